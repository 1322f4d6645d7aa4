//! A procedural car body (4.5 m, closed, about 20k triangles) on a 32-bone lattice with six damage examples, as in Jones et al.'s car crash scenes.
//!
//! The paper's Crown Victoria has 6 examples and 32 bones (research anchors §1.2). This body is
//! a closed tube of cross-sections swept along the car (x forward, y up, z to the right; the
//! underside rests on `y = 0`): a rounded, superelliptic section whose height follows a
//! bumper–hood–windshield–roof–rear-window–trunk profile and whose upper part narrows above the
//! beltline (tumblehome), closed at both ends by rounded caps.
//!
//! **Bones.** A lattice of 8 × 2 × 2 nodes spans the bounding box (8 stations along the car,
//! floor and roof level, left and right side). Skin weights are the trilinear interpolation
//! weights of a vertex in its lattice cell (≤ 8 influences, a partition of unity), so the rig is
//! a free-form deformation whose handles are affine bones.
//!
//! **Examples.** Each damage example is one affine transform per bone: the rest pose (example 0),
//! then a front crush, a rear crush, left and right side dents, a roof crush and a twist
//! ([`CAR_EXAMPLE_NAMES`]). An example pose is the skinned mesh under that example's transforms;
//! a blend with per-vertex example weights `β` is `Σ_e β_e X_e` per vertex, the linear matrix
//! blend of the example-based plasticity model.

use std::time::Instant;

use rapier3d_deform::deformation::{ExampleBlend, LinearBlendSkinning};
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy, evaluate_proxy};

/// Car length along x (m).
pub const CAR_LENGTH: f32 = 4.5;
/// Half the car's width (m).
const HALF_WIDTH: f32 = 0.9;
/// Roof height (m).
const ROOF: f32 = 1.42;
/// Beltline height, where the cabin starts narrowing (m).
const BELT: f32 = 0.8;
/// Lattice stations along the car.
const STATIONS_X: usize = 8;

/// Names of the car's examples, in order (example 0 is the rest pose).
pub const CAR_EXAMPLE_NAMES: [&str; 7] = [
    "rest",
    "front crush",
    "rear crush",
    "left side dent",
    "right side dent",
    "roof crush",
    "twist",
];

/// A closed mesh rigged to affine bones, with one bone pose per example (example 0 = rest).
///
/// # Performance
/// [`ExampleAsset::example_positions`] is O(E · influences).
#[derive(Clone, Debug)]
pub struct ExampleAsset {
    /// The rest mesh.
    pub mesh: TriangleMesh,
    /// Skin weights: one row per vertex, one governor per bone.
    pub bone_weights: ConvexWeights,
    /// Rest position of each bone's handle (lattice node or ring point).
    pub bones: Vec<Vec3>,
    /// Example names, example 0 being the rest pose.
    pub example_names: Vec<&'static str>,
    /// Per example, the transform of every bone (`p ↦ A p + t`, in rest coordinates).
    pub example_bones: Vec<Vec<Affine>>,
}

impl ExampleAsset {
    /// Number of examples (rest included).
    pub fn example_count(&self) -> usize {
        self.example_bones.len()
    }

    /// Number of bones.
    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }

    /// The example-based deformation of this asset (every vertex on example 0, the rest pose):
    /// per-vertex example weights over per-example bone transforms, the plasticity model's
    /// state.
    ///
    /// # Errors
    /// Only if the asset was assembled inconsistently (see [`ExampleBlend::new`]).
    ///
    /// # Performance
    /// O(V · E · influences).
    pub fn example_blend(&self) -> Result<ExampleBlend> {
        ExampleBlend::new(
            self.mesh.positions().to_vec(),
            self.bone_weights.clone(),
            self.example_bones.clone(),
        )
    }

    /// The mesh of every example pose (skinned with that example's bone transforms).
    ///
    /// # Errors
    /// Only if the asset was assembled inconsistently ([`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteTransform`]).
    ///
    /// # Performance
    /// O(E · influences).
    pub fn example_positions(&self) -> Result<Vec<Vec<Vec3>>> {
        let mut skin = LinearBlendSkinning::new(
            self.mesh.positions().to_vec(),
            self.bone_weights.clone(),
            vec![Affine::IDENTITY; self.bones.len()],
        )?;
        self.example_bones
            .iter()
            .map(|bones| {
                skin.set_skinning_transforms(bones)?;
                Ok(skin.deformed_positions())
            })
            .collect()
    }
}

/// Tessellation of the car body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarOptions {
    /// Cross-sections along the body (≥ 4).
    pub stations: usize,
    /// Vertices around each cross-section (≥ 8).
    pub segments: usize,
}

impl CarOptions {
    /// About 20k triangles (the paper's render mesh has 22k; its physics mesh 14k).
    pub const FULL: Self = Self {
        stations: 100,
        segments: 96,
    };
    /// About 3k triangles, for quick tests.
    pub const COARSE: Self = Self {
        stations: 40,
        segments: 36,
    };
}

impl Default for CarOptions {
    fn default() -> Self {
        Self::FULL
    }
}

/// Smooth step between 0 and 1.
fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Height of the body's top at station `x`: bumper, hood, windshield, roof, rear window, trunk.
fn top_profile(x: f32) -> f32 {
    const KEYS: [(f32, f32); 8] = [
        (-2.25, 0.86),
        (-2.0, 0.94),
        (-1.55, 0.97),
        (-0.85, ROOF),
        (0.35, ROOF - 0.02),
        (1.1, 0.84),
        (2.0, 0.74),
        (2.25, 0.64),
    ];
    let x = x.clamp(KEYS[0].0, KEYS[7].0);
    for w in KEYS.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if x <= x1 {
            return y0 + (y1 - y0) * smoothstep((x - x0) / (x1 - x0));
        }
    }
    KEYS[7].1
}

/// Half width at station `x`, rounded in plan view near the bumpers.
fn half_width(x: f32) -> f32 {
    let t = ((x.abs() - 1.8) / 0.45).clamp(0.0, 1.0);
    HALF_WIDTH * (0.85 + 0.15 * (1.0 - t * t).sqrt())
}

/// The point of the cross-section at station `x` for angle `phi` (0 = right side, π/2 = top).
fn section_point(x: f32, phi: f32) -> Vec3 {
    const EXPONENT: f32 = 2.0 / 6.0;
    let top = top_profile(x);
    // Snap the float noise of cos(π/2) etc., which `powf` would magnify into millimetres.
    let snap = |v: f32| if v.abs() < 1e-6 { 0.0 } else { v };
    let (s, c) = phi.sin_cos();
    let (s, c) = (snap(s), snap(c));
    let z = half_width(x) * c.signum() * c.abs().powf(EXPONENT);
    let y = 0.5 * top * (1.0 + s.signum() * s.abs().powf(EXPONENT));
    // Tumblehome: the cabin narrows above the beltline.
    let narrowing = if top > BELT + 0.05 {
        0.3 * smoothstep((y - BELT) / (top - BELT))
    } else {
        0.0
    };
    Vec3::new(x, y, z * (1.0 - narrowing))
}

/// The car body mesh alone.
///
/// # Errors
/// [`DeformError::InvalidParameter`] for fewer than 4 stations or 8 segments.
///
/// # Performance
/// O(stations × segments).
pub fn car_mesh(options: &CarOptions) -> Result<TriangleMesh> {
    if options.stations < 4 {
        return Err(DeformError::InvalidParameter {
            name: "stations",
            value: options.stations as f32,
            reason: "the car needs at least 4 cross-sections",
        });
    }
    if options.segments < 8 {
        return Err(DeformError::InvalidParameter {
            name: "segments",
            value: options.segments as f32,
            reason: "the car needs at least 8 vertices per cross-section",
        });
    }
    let (n, m) = (options.stations, options.segments as u32);
    let end = 0.5 * CAR_LENGTH - 0.05;
    // Rounded caps: rings stepping out past the last section while shrinking to its centre.
    const CAP: [(f32, f32); 4] = [(0.018, 0.93), (0.033, 0.75), (0.044, 0.5), (0.05, 0.22)];
    let mut rings: Vec<(f32, f32, f32)> = Vec::new(); // (x, section station, scale)
    for &(dx, s) in CAP.iter().rev() {
        rings.push((-end - dx, -end, s));
    }
    for i in 0..n {
        let x = -end + 2.0 * end * i as f32 / (n - 1) as f32;
        rings.push((x, x, 1.0));
    }
    for &(dx, s) in &CAP {
        rings.push((end + dx, end, s));
    }
    let mut positions = Vec::with_capacity(rings.len() * m as usize + 2);
    for &(x, station, scale) in &rings {
        let centre = Vec3::new(x, 0.5 * top_profile(station), 0.0);
        for j in 0..m {
            let phi = std::f32::consts::TAU * j as f32 / m as f32;
            let p = section_point(station, phi);
            let p = Vec3::new(x, p.y, p.z);
            positions.push(centre + scale * (p - centre));
        }
    }
    let rear_tip = positions.len() as u32;
    positions.push(Vec3::new(-0.5 * CAR_LENGTH, 0.5 * top_profile(-end), 0.0));
    let front_tip = positions.len() as u32;
    positions.push(Vec3::new(0.5 * CAR_LENGTH, 0.5 * top_profile(end), 0.0));
    let ring = |r: usize, j: u32| (r as u32) * m + j % m;
    let mut triangles = Vec::with_capacity(2 * rings.len() * m as usize);
    for r in 0..rings.len() - 1 {
        for j in 0..m {
            let (a, b, c, d) = (
                ring(r, j),
                ring(r, j + 1),
                ring(r + 1, j),
                ring(r + 1, j + 1),
            );
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..m {
        triangles.push([rear_tip, ring(0, j), ring(0, j + 1)]);
        triangles.push([front_tip, ring(last, j + 1), ring(last, j)]);
    }
    orient_outwards(&positions, &mut triangles);
    TriangleMesh::new(positions, triangles)
}

/// Flips every triangle when the mesh's signed volume is negative.
pub(crate) fn orient_outwards(positions: &[Vec3], triangles: &mut [[u32; 3]]) {
    let volume: f64 = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3());
            a.dot(b.cross(c))
        })
        .sum();
    if volume < 0.0 {
        for t in triangles {
            t.swap(1, 2);
        }
    }
}

/// Rest positions of the 8 × 2 × 2 lattice nodes; bone `b = 4 i + 2 j + k` for station `i`,
/// level `j` (floor, roof) and side `k` (left −z, right +z).
fn lattice_nodes() -> Vec<Vec3> {
    let mut nodes = Vec::with_capacity(4 * STATIONS_X);
    for i in 0..STATIONS_X {
        let x = -0.5 * CAR_LENGTH + CAR_LENGTH * i as f32 / (STATIONS_X - 1) as f32;
        for y in [0.0, ROOF] {
            for z in [-HALF_WIDTH, HALF_WIDTH] {
                nodes.push(Vec3::new(x, y, z));
            }
        }
    }
    nodes
}

/// Trilinear lattice weights of every vertex.
fn lattice_weights(positions: &[Vec3]) -> Result<ConvexWeights> {
    let dx = CAR_LENGTH / (STATIONS_X - 1) as f32;
    let rows = positions.iter().map(|p| {
        let fx = ((p.x + 0.5 * CAR_LENGTH) / dx).clamp(0.0, (STATIONS_X - 1) as f32);
        let i = (fx.floor() as usize).min(STATIONS_X - 2);
        let tx = fx - i as f32;
        let ty = (p.y / ROOF).clamp(0.0, 1.0);
        let tz = ((p.z + HALF_WIDTH) / (2.0 * HALF_WIDTH)).clamp(0.0, 1.0);
        let mut row = Vec::with_capacity(8);
        for (di, wx) in [(0, 1.0 - tx), (1, tx)] {
            for (j, wy) in [(0, 1.0 - ty), (1, ty)] {
                for (k, wz) in [(0, 1.0 - tz), (1, tz)] {
                    row.push(((4 * (i + di) + 2 * j + k) as u32, wx * wy * wz));
                }
            }
        }
        row
    });
    ConvexWeights::from_rows(rows, 4 * STATIONS_X)
}

/// `p ↦ node + S (p − node) + shift`: scale about the bone's node, then move it.
fn scaled_about(node: Vec3, scale: Vec3, shift: Vec3) -> Affine {
    let s = Mat3::from_diagonal(scale);
    Affine::new(s, node - s * node + shift)
}

/// The bone transforms of the six damage examples (after the rest pose).
fn damage_examples(nodes: &[Vec3]) -> Vec<Vec<Affine>> {
    let station = |b: usize| b / 4;
    let is_roof = |b: usize| (b / 2) % 2 == 1;
    let is_right = |b: usize| b % 2 == 1;
    let per_bone = |f: &dyn Fn(usize, Vec3) -> Affine| -> Vec<Affine> {
        nodes.iter().enumerate().map(|(b, n)| f(b, *n)).collect()
    };
    let one = Vec3::ONE;
    let front = per_bone(&|b, n| match station(b) {
        7 => scaled_about(
            n,
            Vec3::new(1.0, 0.85, 0.92),
            Vec3::new(-0.6, if is_roof(b) { -0.18 } else { 0.0 }, 0.0),
        ),
        6 => scaled_about(
            n,
            Vec3::new(1.0, 0.95, 1.0),
            Vec3::new(-0.28, if is_roof(b) { -0.1 } else { 0.0 }, 0.0),
        ),
        5 => scaled_about(n, one, Vec3::new(-0.06, 0.0, 0.0)),
        _ => Affine::IDENTITY,
    });
    let rear = per_bone(&|b, n| match station(b) {
        0 => scaled_about(
            n,
            Vec3::new(1.0, 0.9, 0.93),
            Vec3::new(0.5, if is_roof(b) { -0.12 } else { 0.0 }, 0.0),
        ),
        1 => scaled_about(
            n,
            one,
            Vec3::new(0.22, if is_roof(b) { -0.06 } else { 0.0 }, 0.0),
        ),
        _ => Affine::IDENTITY,
    });
    let side = |right: bool| {
        per_bone(&|b, n| {
            let inward = if right { -1.0 } else { 1.0 };
            if is_right(b) != right {
                return Affine::IDENTITY;
            }
            let depth = match station(b) {
                3 | 4 => 0.38,
                2 | 5 => 0.12,
                _ => 0.0,
            };
            let depth = if is_roof(b) { 0.45 * depth } else { depth };
            scaled_about(n, one, Vec3::new(0.0, 0.0, inward * depth))
        })
    };
    let roof = per_bone(&|b, n| {
        if !is_roof(b) {
            return Affine::IDENTITY;
        }
        let drop = match station(b) {
            3 | 4 => 0.45,
            2 => 0.3,
            5 => 0.25,
            1 | 6 => 0.08,
            _ => 0.0,
        };
        scaled_about(
            n,
            Vec3::new(1.0, 1.0 - 0.6 * drop, 1.0 + 0.15 * drop),
            Vec3::new(0.0, -drop, 0.0),
        )
    });
    let axis_point = Vec3::new(0.0, 0.5 * ROOF, 0.0);
    let twist = per_bone(&|b, _| {
        let angle = 0.14 * (station(b) as f32 - 3.5) / 3.5;
        let r = Mat3::from_rotation_x(angle);
        Affine::new(r, axis_point - r * axis_point)
    });
    vec![front, rear, side(false), side(true), roof, twist]
}

/// The rigged car body with its rest pose and six damage examples.
///
/// # Errors
/// As [`car_mesh`].
///
/// # Performance
/// O(stations × segments).
pub fn car(options: &CarOptions) -> Result<ExampleAsset> {
    let mesh = car_mesh(options)?;
    let bones = lattice_nodes();
    let bone_weights = lattice_weights(mesh.positions())?;
    let mut example_bones = vec![vec![Affine::IDENTITY; bones.len()]];
    example_bones.extend(damage_examples(&bones));
    Ok(ExampleAsset {
        mesh,
        bone_weights,
        bones,
        example_names: CAR_EXAMPLE_NAMES.to_vec(),
        example_bones,
    })
}

/// Proxy resolutions of the benchmark, named as in the paper (about 66, 114 and 320 spheres).
pub const PROXY_RESOLUTIONS: [&str; 3] = ["low", "mid", "high"];

/// The packing options used for the car at `resolution` (`"low"`, `"mid"`, `"high"`).
///
/// # Errors
/// [`DeformError::InvalidParameter`] for another name.
pub fn car_proxy_options(resolution: &str) -> Result<ProxyOptions> {
    // Grid cells along the car, radius limits (m), and a cap at the paper's sphere counts
    // (its 66 / 114 / 320 spheres for the Crown Victoria).
    let (grid, min_radius, max_radius, max_spheres) = match resolution {
        "low" => (40, 0.15, 0.7, 66),
        "mid" => (56, 0.12, 0.6, 114),
        "high" => (76, 0.07, 0.45, 320),
        _ => {
            return Err(DeformError::InvalidParameter {
                name: "resolution",
                value: f32::NAN,
                reason: "one of \"low\", \"mid\", \"high\"",
            });
        }
    };
    Ok(ProxyOptions {
        sdf: SdfOptions {
            resolution: grid,
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius,
            max_radius,
            max_spheres,
        },
    })
}

/// The `proxy_fit` scene: packs the car at the three resolutions, fits the six damage examples,
/// and measures the error over every example and random blends (100; 6 with `quick`, which also
/// uses the coarse body). Metrics, per resolution `low`/`mid`/`high`: `spheres_*`,
/// `median_error_rel_*` and `max_error_rel_*` (vertex-to-proxy distance over the bounding-box
/// diagonal, all poses pooled), `worst_pose_median_rel_*`, `volume_ratio_rest_*`,
/// `pack_seconds_*` (grid + packing + example fit), `clamped_radii_*`; plus `triangles`,
/// `vertices`, `bones`, `examples`, `blends`.
///
/// # Errors
/// Only if the procedural asset fails to build (a bug).
///
/// # Performance
/// Seconds in release (`quick`: well under a second per resolution); dominated by the
/// brute-force error evaluation, O((E + B) · V · S).
pub fn proxy_fit_report(quick: bool) -> Result<Vec<(String, f64)>> {
    let options = if quick {
        CarOptions::COARSE
    } else {
        CarOptions::FULL
    };
    let blends = if quick { 6 } else { 100 };
    let asset = car(&options)?;
    let examples = asset.example_positions()?;
    let mut out = vec![
        ("triangles".to_string(), asset.mesh.triangle_count() as f64),
        ("vertices".to_string(), asset.mesh.vertex_count() as f64),
        ("bones".to_string(), asset.bone_count() as f64),
        ("examples".to_string(), asset.example_count() as f64),
        ("blends".to_string(), blends as f64),
    ];
    for resolution in PROXY_RESOLUTIONS {
        let start = Instant::now();
        let (proxy, report) =
            SphereProxy::build(&asset.mesh, &examples, &car_proxy_options(resolution)?)?;
        let pack_seconds = start.elapsed().as_secs_f64();
        let m = evaluate_proxy(&proxy, &asset.mesh, &examples, blends, 2017)?;
        let clamped: usize = report.clamped_radii.iter().sum();
        for (name, value) in [
            ("spheres", m.spheres as f64),
            ("median_error_rel", m.median_error_rel as f64),
            ("max_error_rel", m.max_error_rel as f64),
            ("worst_pose_median_rel", m.worst_pose_median_rel as f64),
            ("volume_ratio_rest", m.volume_ratio_rest as f64),
            ("pack_seconds", pack_seconds),
            ("clamped_radii", clamped as f64),
        ] {
            out.push((format!("{name}_{resolution}"), value));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d_deform::proxy::sdf_grid::boundary_edges;
    use rapier3d_deform::proxy::{MeshDistance, metrics::mesh_volume};

    #[test]
    fn car_is_closed_car_sized_and_outward() {
        let asset = car(&CarOptions::COARSE).unwrap();
        let mesh = &asset.mesh;
        assert_eq!(boundary_edges(mesh).edges, 0);
        let (mins, maxs) = mesh.bounds();
        assert!((maxs.x - mins.x - CAR_LENGTH).abs() < 1e-3);
        assert!(mins.y.abs() < 1e-3 && (maxs.y - ROOF).abs() < 0.05);
        assert!((maxs.z - HALF_WIDTH).abs() < 0.02);
        let v = mesh_volume(mesh, mesh.positions());
        // Between a third and the whole of its bounding box.
        let bbox = (maxs - mins).x * (maxs - mins).y * (maxs - mins).z;
        assert!(v > 0.33 * bbox && v < bbox, "{v} of {bbox}");
        // Cabin above the beltline, hood below it.
        let tree = MeshDistance::new(mesh, mesh.positions()).unwrap();
        assert!(tree.signed_distance(Vec3::new(0.0, 1.2, 0.0)) < 0.0);
        assert!(tree.signed_distance(Vec3::new(1.8, 1.2, 0.0)) > 0.0);
    }

    #[test]
    fn example_blend_reproduces_the_example_poses() {
        let asset = car(&CarOptions::COARSE).unwrap();
        let poses = asset.example_positions().unwrap();
        let mut blend = asset.example_blend().unwrap();
        for (e, pose) in poses.iter().enumerate() {
            let mut beta = vec![0.0; asset.example_count()];
            beta[e] = 1.0;
            blend.set_global_example_weights(&beta).unwrap();
            let got = blend.deformed_positions();
            let err = got
                .iter()
                .zip(pose)
                .map(|(a, b)| (*a - *b).length())
                .fold(0.0, f32::max);
            assert!(err < 1e-5, "example {e}: {err}");
        }
        // A blend is the blend of the example poses (linear matrix blend).
        blend
            .set_global_example_weights(&[0.5, 0.0, 0.0, 0.0, 0.0, 0.25, 0.25])
            .unwrap();
        let got = blend.deformed_positions();
        for (v, p) in got.iter().enumerate() {
            let expected = 0.5 * poses[0][v] + 0.25 * poses[5][v] + 0.25 * poses[6][v];
            assert!((*p - expected).length() < 1e-4);
        }
    }

    #[test]
    fn full_car_has_about_twenty_thousand_triangles() {
        let mesh = car_mesh(&CarOptions::FULL).unwrap();
        assert!((19_000..23_000).contains(&mesh.triangle_count()));
    }

    fn bounds(p: &[Vec3]) -> (Vec3, Vec3) {
        p.iter()
            .fold((Vec3::MAX, Vec3::MIN), |(a, b), q| (a.min(*q), b.max(*q)))
    }

    #[test]
    fn examples_move_the_right_parts() {
        let asset = car(&CarOptions::COARSE).unwrap();
        assert_eq!(asset.bone_count(), 32);
        assert_eq!(asset.example_count(), 7);
        let poses = asset.example_positions().unwrap();
        let rest = asset.mesh.positions();
        let rest_error = poses[0]
            .iter()
            .zip(rest)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f32::max);
        assert!(rest_error < 1e-5);
        let (rest_min, rest_max) = bounds(rest);
        // Front crush shortens the front, rear crush the rear, roof crush lowers the roof, side
        // dents push one side in.
        assert!(bounds(&poses[1]).1.x < rest_max.x - 0.4);
        assert!(bounds(&poses[2]).0.x > rest_min.x + 0.3);
        assert!(bounds(&poses[5]).1.y < rest_max.y - 0.25);
        let centre_left = |p: &[Vec3]| {
            p.iter()
                .filter(|q| q.x.abs() < 0.2 && (0.3..0.6).contains(&q.y))
                .map(|q| q.z)
                .fold(f32::MAX, f32::min)
        };
        assert!(centre_left(&poses[3]) > centre_left(rest) + 0.25);
        // The right dent is the mirror image of the left one (the mesh is symmetric in z).
        for q in poses[3].iter().step_by(7) {
            let mirrored = Vec3::new(q.x, q.y, -q.z);
            let nearest = poses[4]
                .iter()
                .map(|r| (*r - mirrored).length())
                .fold(f32::MAX, f32::min);
            assert!(nearest < 1e-4, "{q}");
        }
        // Every pose stays closed and finite; the twist keeps the volume.
        let v0 = mesh_volume(&asset.mesh, rest);
        let v6 = mesh_volume(&asset.mesh, &poses[6]);
        assert!((v6 - v0).abs() / v0 < 0.02, "{v0} {v6}");
    }
}
