//! A procedural steel barrel (0.72 m tall, closed, with rims and rolling hoops) on a ring of 12 bones with three damage examples, as in Jones et al.'s barrel scenes.
//!
//! The paper's barrels have 12 bones and 2–3 examples and stand 0.72 m tall (MiG 2017, Fig. 6).
//! This one is a surface of revolution about `+Y` (its bottom chime rests on `y = 0`): recessed
//! lids, a rolled chime at each end and two rolling hoops on the wall, closed at the axis by
//! triangle fans.
//!
//! **Bones.** Three rings (bottom, middle, top) of four bones at 0°, 90°, 180° and 270° around
//! the axis. A vertex's weights are its angular hat weights between the two nearest bone angles
//! (blended towards uniform near the axis, where the angle is undefined) times its linear weights
//! between the two nearest rings: a partition of unity with at most 4 influences on the wall
//! (8 on the lids).
//!
//! **Examples** ([`BARREL_EXAMPLE_NAMES`]): the rest pose, a crushed top (the top ring pushed
//! down and bulged out), a dented side and a sideways squash.

use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions};

use super::car::{ExampleAsset, orient_outwards};

/// Barrel height (m).
pub const BARREL_HEIGHT: f32 = 0.72;
/// Barrel wall radius (m).
pub const BARREL_RADIUS: f32 = 0.24;
/// Bone angles per ring.
const ANGLES: usize = 4;
/// Bone rings along the axis.
const RINGS: usize = 3;

/// Names of the barrel's examples, in order (example 0 is the rest pose).
pub const BARREL_EXAMPLE_NAMES: [&str; 4] = ["rest", "crushed top", "dented side", "squashed"];

/// Tessellation of the barrel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrelOptions {
    /// Vertices around the axis (≥ 8).
    pub segments: usize,
    /// Profile samples along the wall between the chimes (≥ 4).
    pub wall_samples: usize,
}

impl BarrelOptions {
    /// About 9k triangles.
    pub const FULL: Self = Self {
        segments: 72,
        wall_samples: 40,
    };
    /// About 2k triangles, for quick tests.
    pub const COARSE: Self = Self {
        segments: 32,
        wall_samples: 12,
    };
}

impl Default for BarrelOptions {
    fn default() -> Self {
        Self::FULL
    }
}

/// The profile `(r, y)` from the bottom centre to the top centre.
fn profile(wall_samples: usize) -> Vec<(f32, f32)> {
    const LID: f32 = 0.012;
    let (r, h) = (BARREL_RADIUS, BARREL_HEIGHT);
    // Bottom lid and chime, from the axis outwards.
    let mut bottom: Vec<(f32, f32)> = (0..6)
        .map(|i| ((r - 0.014) * i as f32 / 5.0, LID))
        .collect();
    bottom.extend([
        (r - 0.009, 0.0),
        (r + 0.004, 0.0),
        (r + 0.008, 0.008),
        (r + 0.008, 0.018),
        (r, 0.028),
    ]);
    let hoop = |y: f32| {
        [h / 3.0, 2.0 * h / 3.0]
            .iter()
            .map(|&c| {
                let t = ((y - c) / 0.025).clamp(-1.0, 1.0);
                0.008 * (0.5 + 0.5 * (std::f32::consts::PI * t).cos())
            })
            .sum::<f32>()
    };
    let (y0, y1) = (0.028, h - 0.028);
    let wall: Vec<(f32, f32)> = (1..wall_samples)
        .map(|i| {
            let y = y0 + (y1 - y0) * i as f32 / wall_samples as f32;
            (r + hoop(y), y)
        })
        .collect();
    let mut out = bottom.clone();
    out.extend(wall);
    // The top is the bottom mirrored, walked back towards the axis.
    out.extend(bottom.iter().rev().map(|&(pr, py)| (pr, h - py)));
    out
}

/// The barrel mesh alone.
///
/// # Errors
/// [`DeformError::InvalidParameter`] for fewer than 8 segments or 4 wall samples.
///
/// # Performance
/// O(segments × profile samples).
pub fn barrel_mesh(options: &BarrelOptions) -> Result<TriangleMesh> {
    if options.segments < 8 {
        return Err(DeformError::InvalidParameter {
            name: "segments",
            value: options.segments as f32,
            reason: "the barrel needs at least 8 segments",
        });
    }
    if options.wall_samples < 4 {
        return Err(DeformError::InvalidParameter {
            name: "wall_samples",
            value: options.wall_samples as f32,
            reason: "the barrel needs at least 4 wall samples",
        });
    }
    let prof = profile(options.wall_samples);
    let m = options.segments as u32;
    // Profile points 1..n-1 become rings; the first and last (on the axis) become poles.
    let rings = &prof[1..prof.len() - 1];
    let mut positions = Vec::with_capacity(rings.len() * m as usize + 2);
    for &(r, y) in rings {
        for j in 0..m {
            let th = std::f32::consts::TAU * j as f32 / m as f32;
            positions.push(Vec3::new(r * th.cos(), y, r * th.sin()));
        }
    }
    let bottom = positions.len() as u32;
    positions.push(Vec3::new(0.0, prof[0].1, 0.0));
    let top = positions.len() as u32;
    positions.push(Vec3::new(0.0, prof[prof.len() - 1].1, 0.0));
    let ring = |i: usize, j: u32| i as u32 * m + j % m;
    let mut triangles = Vec::new();
    for i in 0..rings.len() - 1 {
        for j in 0..m {
            let (a, b, c, d) = (
                ring(i, j),
                ring(i, j + 1),
                ring(i + 1, j),
                ring(i + 1, j + 1),
            );
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..m {
        // Each lid fan traverses its rim edge against the wall strip's direction.
        triangles.push([bottom, ring(0, j), ring(0, j + 1)]);
        triangles.push([top, ring(last, j + 1), ring(last, j)]);
    }
    orient_outwards(&positions, &mut triangles);
    TriangleMesh::new(positions, triangles)
}

/// Rest positions of the bones: `b = ring · 4 + angle`.
fn ring_bones() -> Vec<Vec3> {
    let mut bones = Vec::with_capacity(RINGS * ANGLES);
    for ring in 0..RINGS {
        let y = BARREL_HEIGHT * ring as f32 / (RINGS - 1) as f32;
        for a in 0..ANGLES {
            let th = std::f32::consts::TAU * a as f32 / ANGLES as f32;
            bones.push(Vec3::new(
                BARREL_RADIUS * th.cos(),
                y,
                BARREL_RADIUS * th.sin(),
            ));
        }
    }
    bones
}

fn ring_weights(positions: &[Vec3]) -> Result<ConvexWeights> {
    let rows = positions.iter().map(|p| {
        let radial = (p.x.hypot(p.z) / BARREL_RADIUS).min(1.0);
        let th = p.z.atan2(p.x).rem_euclid(std::f32::consts::TAU);
        let t = th / (std::f32::consts::TAU / ANGLES as f32);
        let a0 = (t.floor() as usize) % ANGLES;
        let a1 = (a0 + 1) % ANGLES;
        let ta = t - t.floor();
        let mut angular = [(1.0 - radial) / ANGLES as f32; ANGLES];
        angular[a0] += radial * (1.0 - ta);
        angular[a1] += radial * ta;
        let fy = (p.y / BARREL_HEIGHT * (RINGS - 1) as f32).clamp(0.0, (RINGS - 1) as f32);
        let r0 = (fy.floor() as usize).min(RINGS - 2);
        let ty = fy - r0 as f32;
        let mut row = Vec::with_capacity(2 * ANGLES);
        for (ring, wy) in [(r0, 1.0 - ty), (r0 + 1, ty)] {
            for (a, wa) in angular.iter().enumerate() {
                row.push(((ring * ANGLES + a) as u32, wy * wa));
            }
        }
        row
    });
    ConvexWeights::from_rows(rows, RINGS * ANGLES)
}

/// `p ↦ c + S (p − c) + shift` with `c` the point of the axis at the bone's height.
fn about_axis(bone: Vec3, radial: f32, vertical: f32, shift: Vec3) -> Affine {
    let s = Mat3::from_diagonal(Vec3::new(radial, vertical, radial));
    let c = Vec3::new(0.0, bone.y, 0.0);
    Affine::new(s, c - s * c + shift)
}

fn damage_examples(bones: &[Vec3]) -> Vec<Vec<Affine>> {
    let ring = |b: usize| b / ANGLES;
    let angle = |b: usize| b % ANGLES;
    let per_bone = |f: &dyn Fn(usize, Vec3) -> Affine| -> Vec<Affine> {
        bones.iter().enumerate().map(|(b, p)| f(b, *p)).collect()
    };
    let crushed = per_bone(&|b, p| match ring(b) {
        2 => about_axis(p, 1.12, 1.0, Vec3::new(0.0, -0.16, 0.0)),
        1 => about_axis(p, 1.08, 0.9, Vec3::new(0.0, -0.06, 0.0)),
        _ => Affine::IDENTITY,
    });
    let dented = per_bone(&|b, p| {
        if angle(b) != 0 {
            return Affine::IDENTITY;
        }
        let depth = if ring(b) == 1 { 0.09 } else { 0.02 };
        about_axis(p, 1.0, 1.0, Vec3::new(-depth, 0.0, 0.0))
    });
    let squashed = per_bone(&|b, p| {
        let dir = p.normalize_or_zero() * Vec3::new(1.0, 0.0, 1.0);
        let amount = if angle(b) % 2 == 0 { -0.05 } else { 0.04 };
        about_axis(p, 1.0, 1.0, dir * amount)
    });
    vec![crushed, dented, squashed]
}

/// The rigged barrel with its rest pose and three damage examples.
///
/// # Errors
/// As [`barrel_mesh`].
///
/// # Performance
/// O(segments × profile samples).
pub fn barrel(options: &BarrelOptions) -> Result<ExampleAsset> {
    let mesh = barrel_mesh(options)?;
    let bones = ring_bones();
    let bone_weights = ring_weights(mesh.positions())?;
    let mut example_bones = vec![vec![Affine::IDENTITY; bones.len()]];
    example_bones.extend(damage_examples(&bones));
    Ok(ExampleAsset {
        mesh,
        bone_weights,
        bones,
        example_names: BARREL_EXAMPLE_NAMES.to_vec(),
        example_bones,
    })
}

/// The authors' barrel packing (grid resolution 60, radii between 3 and 15 grid spacings).
pub fn barrel_proxy_options() -> ProxyOptions {
    let spacing = 1.2 * BARREL_HEIGHT / 60.0;
    ProxyOptions {
        sdf: SdfOptions {
            resolution: 60,
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius: 3.0 * spacing,
            max_radius: 15.0 * spacing,
            max_spheres: usize::MAX,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d_deform::proxy::metrics::mesh_volume;
    use rapier3d_deform::proxy::sdf_grid::boundary_edges;

    /// The lid fans used to run against the wall strip (both lids inside out relative to the
    /// wall), which sphere-proxy building now rejects.
    #[test]
    fn barrel_mesh_is_an_oriented_manifold() {
        for options in [BarrelOptions::COARSE, BarrelOptions::FULL] {
            barrel_mesh(&options)
                .unwrap()
                .check_oriented_manifold()
                .unwrap();
        }
    }

    #[test]
    fn barrel_is_closed_and_barrel_sized() {
        let asset = barrel(&BarrelOptions::COARSE).unwrap();
        let mesh = &asset.mesh;
        assert_eq!(boundary_edges(mesh).edges, 0);
        let (mins, maxs) = mesh.bounds();
        assert!(mins.y.abs() < 1e-6 && (maxs.y - BARREL_HEIGHT).abs() < 1e-6);
        assert!((maxs.x - BARREL_RADIUS - 0.008).abs() < 1e-3);
        // Close to the cylinder's volume.
        let cylinder = std::f32::consts::PI * BARREL_RADIUS.powi(2) * BARREL_HEIGHT;
        let v = mesh_volume(mesh, mesh.positions());
        assert!((v / cylinder - 1.0).abs() < 0.05, "{v} vs {cylinder}");
        assert!(
            (8_000..10_000).contains(&barrel_mesh(&BarrelOptions::FULL).unwrap().triangle_count())
        );
    }

    #[test]
    fn weights_are_a_partition_of_unity_reproducing_rest() {
        let asset = barrel(&BarrelOptions::COARSE).unwrap();
        assert_eq!(asset.bone_count(), 12);
        assert!(asset.bone_weights.max_influences() <= 8);
        let poses = asset.example_positions().unwrap();
        assert_eq!(poses.len(), 4);
        let rest = asset.mesh.positions();
        let err = poses[0]
            .iter()
            .zip(rest)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f32::max);
        assert!(err < 1e-5);
        // Crushed top: lower and wider at the top; dented side: the +x wall moved in at mid height.
        let top = |p: &[Vec3]| p.iter().map(|q| q.y).fold(f32::MIN, f32::max);
        assert!(top(&poses[1]) < BARREL_HEIGHT - 0.1);
        let mid_x = |p: &[Vec3]| {
            p.iter()
                .filter(|q| (q.y - 0.5 * BARREL_HEIGHT).abs() < 0.05 && q.z.abs() < 0.03)
                .map(|q| q.x)
                .fold(f32::MIN, f32::max)
        };
        assert!(mid_x(&poses[2]) < mid_x(rest) - 0.07);
    }
}
