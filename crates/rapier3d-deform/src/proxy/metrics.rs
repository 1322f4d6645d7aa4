//! Proxy error metrics: distance from deformed mesh vertices to the surface of the sphere union (median, maximum, relative to the bounding-box diagonal) and proxy volume over mesh volume.
//!
//! The distance of a vertex `v` to the union of spheres is `|min_s (|v − c_s| − r_s)|`: exact for
//! vertices outside the union (the usual case, since spheres are packed inside), and for a vertex
//! inside it the depth inside the deepest single sphere, a lower bound of its distance to the
//! union's boundary. This is the error of Jones et al. (MiG 2017, Figs. 5 and 6).

use super::SphereProxy;
use crate::error::Result;
use crate::governor::ConvexWeights;
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Writes, per vertex, its distance to the surface of the sphere union (see the module docs).
///
/// # Performance
/// O(V · S), brute force (the independent reference for the proxy's own queries).
pub fn vertex_errors(vertices: &[Vec3], centres: &[Vec3], radii: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend(vertices.iter().map(|v| {
        centres
            .iter()
            .zip(radii)
            .map(|(c, r)| (*v - *c).length() - r)
            .fold(f32::INFINITY, f32::min)
            .abs()
    }));
}

/// Median and maximum of a set of errors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorStats {
    /// Median (the lower middle element for an even count).
    pub median: f32,
    /// Maximum.
    pub max: f32,
}

impl ErrorStats {
    /// Statistics of `errors` (reordered in place); zero for an empty slice.
    ///
    /// # Performance
    /// O(n) (selection).
    pub fn of(errors: &mut [f32]) -> Self {
        if errors.is_empty() {
            return Self::default();
        }
        let mid = (errors.len() - 1) / 2;
        let (_, median, _) = errors.select_nth_unstable_by(mid, f32::total_cmp);
        let median = *median;
        let max = errors.iter().copied().fold(f32::MIN, f32::max);
        Self { median, max }
    }
}

/// Volume enclosed by a closed, outward-oriented mesh at `positions` (divergence theorem).
///
/// # Performance
/// O(T).
pub fn mesh_volume(mesh: &TriangleMesh, positions: &[Vec3]) -> f32 {
    (0..mesh.triangle_count())
        .map(|t| {
            let [a, b, c] = mesh.corners(positions, t).map(|p| p.as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum::<f64>() as f32
}

/// Volume of a union of spheres, by counting the centres of a grid of `resolution` cells along
/// the longest side of the union's bounding box (relative error about `3 / resolution` of the
/// surface-to-volume ratio).
///
/// # Performance
/// O(Σ_s (r_s / h)³ + resolution³ / 8) for cell size h.
pub fn union_volume(centres: &[Vec3], radii: &[f32], resolution: usize) -> f32 {
    let resolution = resolution.max(1);
    let (mut mins, mut maxs) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for (c, r) in centres.iter().zip(radii) {
        mins = mins.min(*c - Vec3::splat(*r));
        maxs = maxs.max(*c + Vec3::splat(*r));
    }
    if !(mins.cmple(maxs).all()) {
        return 0.0;
    }
    let h = (maxs - mins).max_element() / resolution as f32;
    if h <= 0.0 {
        return 0.0;
    }
    let cells = (maxs - mins) / h;
    let dims = [0, 1, 2].map(|a| (cells[a].ceil() as usize).max(1));
    let mut inside = vec![false; dims[0] * dims[1] * dims[2]];
    for (c, r) in centres.iter().zip(radii) {
        let lo = ((*c - Vec3::splat(*r) - mins) / h - Vec3::splat(0.5))
            .floor()
            .max(Vec3::ZERO);
        let hi = ((*c + Vec3::splat(*r) - mins) / h - Vec3::splat(0.5)).ceil();
        let r2 = r * r;
        for k in lo.z as usize..(hi.z as usize + 1).min(dims[2]) {
            for j in lo.y as usize..(hi.y as usize + 1).min(dims[1]) {
                for i in lo.x as usize..(hi.x as usize + 1).min(dims[0]) {
                    let p = mins + h * Vec3::new(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5);
                    if (p - *c).length_squared() <= r2 {
                        inside[i + dims[0] * (j + dims[1] * k)] = true;
                    }
                }
            }
        }
    }
    inside.iter().filter(|&&b| b).count() as f32 * h * h * h
}

/// Accuracy of a [`SphereProxy`] over its example poses and random blends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProxyFitMetrics {
    /// Number of spheres.
    pub spheres: usize,
    /// Poses evaluated (examples + random blends).
    pub poses: usize,
    /// Rest bounding-box diagonal, the unit of the relative errors.
    pub diagonal: f32,
    /// Median vertex error over all poses and vertices, divided by `diagonal`.
    pub median_error_rel: f32,
    /// Largest vertex error over all poses, divided by `diagonal`.
    pub max_error_rel: f32,
    /// Largest per-pose median error, divided by `diagonal`.
    pub worst_pose_median_rel: f32,
    /// Proxy volume over mesh volume at rest (union volume by grid sampling).
    pub volume_ratio_rest: f32,
    /// Smallest proxy-over-mesh volume ratio over the evaluated poses.
    pub volume_ratio_min: f32,
}

/// A small deterministic generator (SplitMix64), so that metrics need no random-number crate.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform on the probability simplex of dimension `n` (normalised exponentials).
    pub(crate) fn simplex(&mut self, n: usize) -> Vec<f32> {
        let mut w: Vec<f32> = (0..n).map(|_| -(1.0 - self.unit()).ln() + 1e-6).collect();
        let sum: f32 = w.iter().sum();
        w.iter_mut().for_each(|x| *x /= sum);
        w
    }
}

/// Random per-vertex example weights: without `local`, global (the same random simplex point at
/// every vertex); with `local`, a dent as the plasticity model makes it: around a random vertex, within a random radius (0.2–0.6 of `diagonal`), the weights move from a random
/// global blend towards one random example with the kernel `2t³ − 3t² + 1` (Jones et al. 2016).
///
/// The same weights for the same `seed` on every platform (SplitMix64).
///
/// # Errors
/// [`crate::DeformError::WeightSumOff`] when `example_count` is 0.
///
/// # Performance
/// O(V · E).
pub fn random_example_weights(
    seed: u64,
    rest: &[Vec3],
    example_count: usize,
    diagonal: f32,
    local: bool,
) -> Result<ConvexWeights> {
    random_weights_from(&mut SplitMix64(seed), rest, example_count, diagonal, local)
}

/// [`random_example_weights`] drawing from a running generator (so that successive blends
/// differ).
fn random_weights_from(
    rng: &mut SplitMix64,
    rest: &[Vec3],
    example_count: usize,
    diagonal: f32,
    local: bool,
) -> Result<ConvexWeights> {
    let base = rng.simplex(example_count);
    if !local || rest.is_empty() {
        let row: Vec<(u32, f32)> = (0..example_count as u32)
            .zip(base.iter().copied())
            .collect();
        return ConvexWeights::from_rows(rest.iter().map(|_| row.clone()), example_count);
    }
    let centre = rest[(rng.next_u64() % rest.len() as u64) as usize];
    let target = (rng.next_u64() % example_count as u64) as usize;
    let radius = diagonal * (0.2 + 0.4 * rng.unit());
    let rows = rest.iter().map(|p| {
        let t = ((*p - centre).length() / radius).min(1.0);
        let f = 2.0 * t * t * t - 3.0 * t * t + 1.0;
        (0..example_count)
            .map(|e| {
                let one = if e == target { 1.0 } else { 0.0 };
                (e as u32, (1.0 - f) * base[e] + f * one)
            })
            .collect::<Vec<_>>()
    });
    ConvexWeights::from_rows(rows, example_count)
}

/// Evaluates `proxy` against the mesh it was built for: every example pose, then `random_blends`
/// random blends ([`random_example_weights`], seeded by `seed`). The ground-truth mesh of a blend
/// is `Σ_e β_{v,e} X_e[v]` per vertex, which is exactly what the example blend's linear matrix
/// blend computes; the proxy blends its spheres with the weights of their nearest rest vertices.
///
/// # Errors
/// What [`SphereProxy::blend_into`] and [`TriangleMesh::check_examples`] reject (examples
/// that do not match the proxy).
///
/// # Performance
/// O((E + B) · V · S) for B blends (brute-force vertex errors) plus the volume sampling.
pub fn evaluate_proxy(
    proxy: &SphereProxy,
    rest: &TriangleMesh,
    examples: &[Vec<Vec3>],
    random_blends: usize,
    seed: u64,
) -> Result<ProxyFitMetrics> {
    rest.check_examples(examples)?;
    if examples.len() != proxy.example_count() {
        return Err(crate::error::DeformError::LengthMismatch {
            what: "examples (one per proxy example)",
            expected: proxy.example_count(),
            actual: examples.len(),
        });
    }
    let (mins, maxs) = rest.bounds();
    let diagonal = (maxs - mins).length();
    let volume_resolution = 96;
    let rest_spheres = proxy.rest_spheres();
    let rest_centres: Vec<Vec3> = rest_spheres.iter().map(|s| s.centre).collect();
    let rest_radii: Vec<f32> = rest_spheres.iter().map(|s| s.radius).collect();
    let volume_ratio_rest = union_volume(&rest_centres, &rest_radii, volume_resolution)
        / mesh_volume(rest, rest.positions());

    let mut all = Vec::new();
    let mut pose_errors = Vec::new();
    let mut worst_median = 0.0f32;
    let mut volume_ratio_min = f32::INFINITY;
    let mut record = |vertices: &[Vec3], centres: &[Vec3], radii: &[f32]| {
        vertex_errors(vertices, centres, radii, &mut pose_errors);
        all.extend_from_slice(&pose_errors);
        worst_median = worst_median.max(ErrorStats::of(&mut pose_errors).median);
        let ratio = union_volume(centres, radii, volume_resolution) / mesh_volume(rest, vertices);
        volume_ratio_min = volume_ratio_min.min(ratio);
    };
    for (e, positions) in examples.iter().enumerate() {
        record(positions, proxy.example_centres(e), proxy.example_radii(e));
    }
    let mut rng = SplitMix64(seed);
    let (mut centres, mut radii, mut vertices) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..random_blends {
        let weights = random_weights_from(
            &mut rng,
            rest.positions(),
            examples.len(),
            diagonal,
            b % 2 == 1,
        )?;
        proxy.blend_into(&weights, &mut centres, &mut radii)?;
        vertices.clear();
        vertices.extend((0..rest.vertex_count()).map(|v| {
            weights
                .iter_row(v)
                .map(|(e, w)| w * examples[e as usize][v])
                .sum::<Vec3>()
        }));
        record(&vertices, &centres, &radii);
    }
    let stats = ErrorStats::of(&mut all);
    Ok(ProxyFitMetrics {
        spheres: proxy.sphere_count(),
        poses: examples.len() + random_blends,
        diagonal,
        median_error_rel: stats.median / diagonal,
        max_error_rel: stats.max / diagonal,
        worst_pose_median_rel: worst_median / diagonal,
        volume_ratio_rest,
        volume_ratio_min,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::tests_support::{box_mesh, small_proxy};

    #[test]
    fn vertex_errors_match_closed_form() {
        let centres = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
        let radii = [1.0, 0.5];
        let mut out = Vec::new();
        vertex_errors(
            &[
                Vec3::new(0.0, 3.0, 0.0),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(1.5, 0.0, 0.0),
            ],
            &centres,
            &radii,
            &mut out,
        );
        assert_eq!(out, vec![2.0, 0.5, 0.0]);
    }

    #[test]
    fn stats_median_and_max() {
        let mut e = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(
            ErrorStats::of(&mut e),
            ErrorStats {
                median: 3.0,
                max: 5.0
            }
        );
    }

    #[test]
    fn volumes_match_closed_forms() {
        let mesh = box_mesh(Vec3::new(1.0, 0.5, 0.25));
        assert!((mesh_volume(&mesh, mesh.positions()) - 1.0).abs() < 1e-6);
        let v = union_volume(&[Vec3::ZERO], &[1.0], 80);
        let exact = 4.0 / 3.0 * std::f32::consts::PI;
        assert!((v - exact).abs() / exact < 0.01, "{v}");
        // Two disjoint balls add up; two identical ones do not.
        let two = union_volume(&[Vec3::ZERO, Vec3::new(5.0, 0.0, 0.0)], &[1.0, 1.0], 200);
        assert!((two - 2.0 * exact).abs() / exact < 0.03, "{two}");
        let same = union_volume(&[Vec3::ZERO, Vec3::ZERO], &[1.0, 1.0], 80);
        assert_eq!(same, v);
    }

    #[test]
    fn random_blends_are_convex_and_reproducible() {
        let (proxy, mesh) = small_proxy();
        let (mins, maxs) = mesh.bounds();
        let d = (maxs - mins).length();
        for local in [false, true] {
            let a = random_example_weights(3, mesh.positions(), 3, d, local).unwrap();
            let b = random_example_weights(3, mesh.positions(), 3, d, local).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.governor_count(), proxy.example_count());
        }
        let m = evaluate_proxy(
            &proxy,
            &mesh,
            &crate::proxy::tests_support::small_examples(&mesh),
            4,
            1,
        )
        .unwrap();
        assert_eq!(m.poses, 7);
        assert!(m.median_error_rel > 0.0 && m.median_error_rel <= m.max_error_rel);
        assert!(m.volume_ratio_rest > 0.0 && m.volume_ratio_rest < 1.0);
    }
}
