//! Point-based animation (Müller et al. 2004): particles with affine fields govern the surface through normalised kernel (Shepard) weights.

use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights};
use crate::math::{Mat3, Vec3, validate_positions};
use std::collections::HashMap;

/// Point-based animation as in Müller, Keiser, Nealen, Pauly, Gross & Alexa 2004, the deformation
/// model of Steinemann & Otaduy's bounds (seed `point_based_aabb_bounds.txt`).
///
/// Particle `i` has a rest position `x_i0`, a current position `x_i` and an affine field (a
/// deformation gradient) `F_i`. A surface vertex with rest position `v0` follows
///
/// ```text
/// v = Σ_i w_i (x_i + F_i (v0 − x_i0)) = Σ_i w_i (A_i v0 + t_i),  A_i = F_i,  t_i = x_i − F_i x_i0
/// ```
///
/// with weights from a normalised compactly supported kernel at the rest positions (Shepard):
/// `w_i = W(|v0 − x_i0|) / Σ_j W(|v0 − x_j0|)`, `W(r) = (1 − r²/h²)³` for `r < h` and 0 beyond
/// (the shape of Müller's poly6 kernel; its constant cancels in the normalisation). Every vertex
/// must lie closer than `h` to some particle.
///
/// # Performance
/// Building is O((vertices + particles) · neighbours) with a uniform grid of cell size `h`;
/// [`PointBasedAnimation::estimate_affine_fields`] is O(particle neighbour pairs); setting
/// particles is O(particles).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct PointBasedAnimation {
    rest: Vec<Vec3>,
    particle_rest: Vec<Vec3>,
    particles: Vec<Vec3>,
    fields: Vec<Mat3>,
    support_radius: f32,
    weights: ConvexWeights,
    /// Particle neighbourhoods for the MLS fit: `neighbours[offsets[i]..offsets[i + 1]]` holds
    /// `(j, W(|x_j0 − x_i0|))` for `j ≠ i` within the support.
    neighbour_offsets: Vec<u32>,
    neighbours: Vec<(u32, f32)>,
    /// `M_i⁻¹` of the rest moment matrix, or `None` where it is singular.
    moment_inverses: Vec<Option<Mat3>>,
    governors: Vec<Affine>,
}

/// The unnormalised kernel `W(r) = (1 − r²/h²)³` for `r < h`, 0 beyond.
///
/// # Performance
/// O(1).
#[inline]
pub fn point_kernel(r_squared: f32, h: f32) -> f32 {
    let q = 1.0 - r_squared / (h * h);
    if q > 0.0 { q * q * q } else { 0.0 }
}

impl PointBasedAnimation {
    /// Relative threshold below which a moment matrix counts as singular:
    /// `|det M| ≤ SINGULAR_TOLERANCE · (trace M / 3)³`.
    pub const SINGULAR_TOLERANCE: f64 = 1e-6;

    /// Builds the model from the surface's rest vertices, the particles' rest positions and the
    /// kernel support radius `h`. Particles start at rest with `F = I`.
    ///
    /// # Errors
    /// [`DeformError::Empty`], [`DeformError::NonFinitePosition`] (`"vertex"` or `"particle"`),
    /// [`DeformError::InvalidParameter`] for `h` not finite and positive,
    /// [`DeformError::UncoveredVertex`] for a vertex with no particle closer than `h`.
    ///
    /// # Performance
    /// O((vertices + particles) · particles per neighbourhood), plus hashing into the grid.
    pub fn new(rest: Vec<Vec3>, particle_rest: Vec<Vec3>, support_radius: f32) -> Result<Self> {
        if rest.is_empty() {
            return Err(DeformError::Empty {
                what: "rest vertices",
            });
        }
        if particle_rest.is_empty() {
            return Err(DeformError::Empty { what: "particles" });
        }
        validate_positions("vertex", &rest)?;
        validate_positions("particle", &particle_rest)?;
        if !(support_radius.is_finite() && support_radius > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "support_radius",
                value: support_radius,
                reason: "must be finite and positive",
            });
        }
        let h = support_radius;
        let grid = Grid::new(&particle_rest, h);

        let mut rows: Vec<Vec<(u32, f32)>> = Vec::with_capacity(rest.len());
        for (vertex, &v0) in rest.iter().enumerate() {
            let mut row = Vec::new();
            grid.for_each_near(v0, |i| {
                let w = point_kernel((v0 - particle_rest[i as usize]).length_squared(), h);
                if w > 0.0 {
                    row.push((i, w));
                }
            });
            let sum: f32 = row.iter().map(|e| e.1).sum();
            if sum <= 0.0 {
                return Err(DeformError::UncoveredVertex { vertex, radius: h });
            }
            row.sort_unstable_by_key(|e| e.0);
            for e in &mut row {
                e.1 /= sum;
            }
            rows.push(row);
        }
        let weights = ConvexWeights::from_rows(rows, particle_rest.len())?;

        let mut neighbour_offsets = Vec::with_capacity(particle_rest.len() + 1);
        let mut neighbours = Vec::new();
        let mut moment_inverses = Vec::with_capacity(particle_rest.len());
        neighbour_offsets.push(0u32);
        for (i, &xi) in particle_rest.iter().enumerate() {
            let start = neighbours.len();
            grid.for_each_near(xi, |j| {
                let w = point_kernel((particle_rest[j as usize] - xi).length_squared(), h);
                if j as usize != i && w > 0.0 {
                    neighbours.push((j, w));
                }
            });
            neighbours[start..].sort_unstable_by_key(|e| e.0);
            neighbour_offsets.push(neighbours.len() as u32);
            let mut m = [[0.0f64; 3]; 3];
            for &(j, w) in &neighbours[start..] {
                let d = particle_rest[j as usize] - xi;
                for (r, row) in m.iter_mut().enumerate() {
                    for (c, x) in row.iter_mut().enumerate() {
                        *x += w as f64 * d[r] as f64 * d[c] as f64;
                    }
                }
            }
            moment_inverses.push(invert_moment(&m));
        }

        let particles = particle_rest.clone();
        let fields = vec![Mat3::IDENTITY; particle_rest.len()];
        let mut out = Self {
            rest,
            particle_rest,
            particles,
            fields,
            support_radius: h,
            weights,
            neighbour_offsets,
            neighbours,
            moment_inverses,
            governors: Vec::new(),
        };
        out.update_governors();
        Ok(out)
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.particle_rest.len()
    }

    /// The kernel support radius `h`.
    pub fn support_radius(&self) -> f32 {
        self.support_radius
    }

    /// Particle rest positions `x_i0`.
    pub fn particle_rest_positions(&self) -> &[Vec3] {
        &self.particle_rest
    }

    /// Current particle positions `x_i`.
    pub fn particle_positions(&self) -> &[Vec3] {
        &self.particles
    }

    /// Current affine fields `F_i`.
    pub fn affine_fields(&self) -> &[Mat3] {
        &self.fields
    }

    /// Sets particle positions and affine fields together (e.g. from a simulator that integrates
    /// both).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`] (`"particle"`),
    /// [`DeformError::NonFiniteTransform`] (the particle index); nothing changes on error.
    ///
    /// # Performance
    /// O(particles).
    pub fn set_particles(&mut self, positions: &[Vec3], fields: &[Mat3]) -> Result<()> {
        self.check_positions(positions)?;
        if fields.len() != self.particle_count() {
            return Err(DeformError::LengthMismatch {
                what: "affine fields",
                expected: self.particle_count(),
                actual: fields.len(),
            });
        }
        if let Some(governor) = fields.iter().position(|f| !f.is_finite()) {
            return Err(DeformError::NonFiniteTransform { governor });
        }
        self.particles.copy_from_slice(positions);
        self.fields.copy_from_slice(fields);
        self.update_governors();
        Ok(())
    }

    /// Sets particle positions, keeping the current affine fields (call
    /// [`PointBasedAnimation::estimate_affine_fields`] to refit them).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`]; nothing changes on
    /// error.
    ///
    /// # Performance
    /// O(particles).
    pub fn set_particle_positions(&mut self, positions: &[Vec3]) -> Result<()> {
        self.check_positions(positions)?;
        self.particles.copy_from_slice(positions);
        self.update_governors();
        Ok(())
    }

    /// Refits every `F_i` from the current particle positions by moving least squares (Müller et
    /// al. 2004, eq. 8–9): minimising `Σ_j W_ij |x_j − x_i − F (x_j0 − x_i0)|²` gives
    /// `F_i = (Σ_j W_ij d_j d0_jᵀ) M_i⁻¹` with `M_i = Σ_j W_ij d0_j d0_jᵀ` (equivalently
    /// `F = I + ∇uᵀ` of the paper). It reproduces any affine motion of the particles exactly.
    ///
    /// **Fallback:** when `M_i` is singular (fewer than three non-coplanar neighbours within `h`;
    /// `|det M| ≤ SINGULAR_TOLERANCE · (trace M / 3)³`), `F_i` is set to the identity, so such a
    /// particle only translates its vertices. Returns the number of particles that fell back.
    ///
    /// # Performance
    /// O(particle neighbour pairs).
    pub fn estimate_affine_fields(&mut self) -> usize {
        let mut fallbacks = 0;
        for i in 0..self.particle_count() {
            let Some(m_inv) = self.moment_inverses[i] else {
                self.fields[i] = Mat3::IDENTITY;
                fallbacks += 1;
                continue;
            };
            let (xi0, xi) = (self.particle_rest[i], self.particles[i]);
            let range = self.neighbour_offsets[i] as usize..self.neighbour_offsets[i + 1] as usize;
            let mut b = Mat3::ZERO;
            for &(j, w) in &self.neighbours[range] {
                let d0 = self.particle_rest[j as usize] - xi0;
                let d = self.particles[j as usize] - xi;
                // w · d d0ᵀ, column c = w · d0[c] · d.
                b += Mat3::from_cols(d * (w * d0.x), d * (w * d0.y), d * (w * d0.z));
            }
            let f = b * m_inv;
            self.fields[i] = if f.is_finite() {
                f
            } else {
                fallbacks += 1;
                Mat3::IDENTITY
            };
        }
        self.update_governors();
        fallbacks
    }

    fn check_positions(&self, positions: &[Vec3]) -> Result<()> {
        if positions.len() != self.particle_count() {
            return Err(DeformError::LengthMismatch {
                what: "particle positions",
                expected: self.particle_count(),
                actual: positions.len(),
            });
        }
        validate_positions("particle", positions)
    }

    fn update_governors(&mut self) {
        self.governors.clear();
        self.governors.extend(
            self.particles
                .iter()
                .zip(&self.particle_rest)
                .zip(&self.fields)
                .map(|((&x, &x0), &f)| Affine::new(f, x - f * x0)),
        );
    }
}

governed_by_fields!(PointBasedAnimation);

/// Inverse of a symmetric positive semi-definite moment matrix in f64, or `None` when singular.
fn invert_moment(m: &[[f64; 3]; 3]) -> Option<Mat3> {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    let scale = (m[0][0] + m[1][1] + m[2][2]) / 3.0;
    if scale.is_nan()
        || scale <= 0.0
        || det.abs() <= PointBasedAnimation::SINGULAR_TOLERANCE * scale.powi(3)
    {
        return None;
    }
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    // inv[r][c] = cofactor[c][r] / det.
    let inv = [
        [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
        [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
        [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
    ];
    let col = |k: usize| {
        Vec3::new(
            (inv[0][k] / det) as f32,
            (inv[1][k] / det) as f32,
            (inv[2][k] / det) as f32,
        )
    };
    Some(Mat3::from_cols(col(0), col(1), col(2)))
}

/// A uniform grid over points with cell size `h`: the candidates within `h` of a query are in the
/// 27 cells around it.
#[derive(Debug)]
struct Grid {
    h: f32,
    cells: HashMap<[i32; 3], Vec<u32>>,
}

impl Grid {
    fn new(points: &[Vec3], h: f32) -> Self {
        let mut cells: HashMap<[i32; 3], Vec<u32>> = HashMap::new();
        for (i, &p) in points.iter().enumerate() {
            cells.entry(Self::cell(p, h)).or_default().push(i as u32);
        }
        Self { h, cells }
    }

    fn cell(p: Vec3, h: f32) -> [i32; 3] {
        // `as` saturates, so far-away points land in the outermost cells rather than wrapping.
        [
            (p.x / h).floor() as i32,
            (p.y / h).floor() as i32,
            (p.z / h).floor() as i32,
        ]
    }

    fn for_each_near(&self, p: Vec3, mut f: impl FnMut(u32)) {
        let c = Self::cell(p, self.h);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [
                        c[0].saturating_add(dx),
                        c[1].saturating_add(dy),
                        c[2].saturating_add(dz),
                    ];
                    if let Some(list) = self.cells.get(&key) {
                        list.iter().for_each(|&i| f(i));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::GovernedDeformation;
    use crate::math::Quat;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn v3(rng: &mut ChaCha8Rng, s: f32) -> Vec3 {
        Vec3::new(
            rng.random_range(-s..s),
            rng.random_range(-s..s),
            rng.random_range(-s..s),
        )
    }

    /// A blob: particles on a jittered lattice, vertices scattered among them.
    fn blob(seed: u64) -> (PointBasedAnimation, ChaCha8Rng) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut particles = Vec::new();
        for i in 0..5 {
            for j in 0..5 {
                for k in 0..5 {
                    particles
                        .push(Vec3::new(i as f32, j as f32, k as f32) * 0.5 + v3(&mut rng, 0.1));
                }
            }
        }
        let vertices: Vec<Vec3> = (0..300)
            .map(|_| Vec3::splat(1.0) + v3(&mut rng, 1.1))
            .collect();
        (
            PointBasedAnimation::new(vertices, particles, 0.9).unwrap(),
            rng,
        )
    }

    #[test]
    fn matches_direct_evaluation_with_brute_force_weights() {
        let (mut pba, mut rng) = blob(21);
        let x: Vec<Vec3> = pba
            .particle_rest_positions()
            .iter()
            .map(|&p| p + v3(&mut rng, 0.3))
            .collect();
        let f: Vec<Mat3> = (0..pba.particle_count())
            .map(|_| {
                Mat3::IDENTITY
                    + Mat3::from_cols(v3(&mut rng, 0.4), v3(&mut rng, 0.4), v3(&mut rng, 0.4))
            })
            .collect();
        pba.set_particles(&x, &f).unwrap();
        let got = pba.deformed_positions();
        let h = pba.support_radius() as f64;
        for (v, &v0) in pba.rest_positions().iter().enumerate() {
            let mut num = [0.0f64; 3];
            let mut den = 0.0f64;
            for (i, &x0) in pba.particle_rest_positions().iter().enumerate() {
                let r2 = (0..3)
                    .map(|k| ((v0[k] - x0[k]) as f64).powi(2))
                    .sum::<f64>();
                let w = (1.0 - r2 / (h * h)).max(0.0).powi(3);
                let d = v0 - x0;
                for k in 0..3 {
                    let mut q = x[i][k] as f64;
                    for c in 0..3 {
                        q += f[i].col(c)[k] as f64 * d[c] as f64;
                    }
                    num[k] += w * q;
                }
                den += w;
            }
            for k in 0..3 {
                assert!((got[v][k] as f64 - num[k] / den).abs() < 1e-4, "vertex {v}");
            }
        }
    }

    #[test]
    fn rigid_particle_motion_moves_the_surface_rigidly() {
        let (mut pba, mut rng) = blob(22);
        for _ in 0..10 {
            let r = Mat3::from_quat(Quat::from_scaled_axis(v3(&mut rng, 2.0)));
            let t = v3(&mut rng, 5.0);
            let x: Vec<Vec3> = pba
                .particle_rest_positions()
                .iter()
                .map(|&p| r * p + t)
                .collect();
            pba.set_particle_positions(&x).unwrap();
            assert_eq!(pba.estimate_affine_fields(), 0);
            for f in pba.affine_fields() {
                assert!((*f - r).abs_diff_eq(Mat3::ZERO, 1e-4), "{f:?} vs {r:?}");
            }
            for (p, &v0) in pba.deformed_positions().iter().zip(pba.rest_positions()) {
                assert!((*p - (r * v0 + t)).length() < 1e-4);
            }
        }
    }

    #[test]
    fn mls_reproduces_affine_motion() {
        let (mut pba, mut rng) = blob(23);
        let a = Mat3::from_cols(
            Vec3::X + v3(&mut rng, 0.5),
            Vec3::Y + v3(&mut rng, 0.5),
            Vec3::Z + v3(&mut rng, 0.5),
        );
        let x: Vec<Vec3> = pba
            .particle_rest_positions()
            .iter()
            .map(|&p| a * p)
            .collect();
        pba.set_particle_positions(&x).unwrap();
        pba.estimate_affine_fields();
        for f in pba.affine_fields() {
            assert!((*f - a).abs_diff_eq(Mat3::ZERO, 1e-4));
        }
    }

    #[test]
    fn singular_moment_falls_back_to_identity() {
        // Collinear particles: every moment matrix has rank 1.
        let particles: Vec<Vec3> = (0..5).map(|i| Vec3::X * i as f32 * 0.5).collect();
        let mut pba =
            PointBasedAnimation::new(vec![Vec3::new(1.0, 0.1, 0.0)], particles, 1.0).unwrap();
        let moved: Vec<Vec3> = pba.particle_positions().iter().map(|&p| p * 2.0).collect();
        pba.set_particle_positions(&moved).unwrap();
        assert_eq!(pba.estimate_affine_fields(), 5);
        assert!(pba.affine_fields().iter().all(|&f| f == Mat3::IDENTITY));
    }

    #[test]
    fn rejects_uncovered_vertex() {
        assert!(matches!(
            PointBasedAnimation::new(vec![Vec3::ZERO, Vec3::splat(5.0)], vec![Vec3::ZERO], 1.0),
            Err(DeformError::UncoveredVertex { vertex: 1, .. })
        ));
    }

    #[test]
    fn rejects_bad_support_radius() {
        for h in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(
                PointBasedAnimation::new(vec![Vec3::ZERO], vec![Vec3::ZERO], h),
                Err(DeformError::InvalidParameter {
                    name: "support_radius",
                    ..
                })
            ));
        }
    }

    #[test]
    fn rejects_empty_inputs() {
        assert!(matches!(
            PointBasedAnimation::new(vec![], vec![Vec3::ZERO], 1.0),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            PointBasedAnimation::new(vec![Vec3::ZERO], vec![], 1.0),
            Err(DeformError::Empty { what: "particles" })
        ));
    }

    #[test]
    fn rejects_non_finite_positions() {
        assert!(matches!(
            PointBasedAnimation::new(vec![Vec3::NAN], vec![Vec3::ZERO], 1.0),
            Err(DeformError::NonFinitePosition {
                what: "vertex",
                index: 0
            })
        ));
        assert!(matches!(
            PointBasedAnimation::new(vec![Vec3::ZERO], vec![Vec3::ZERO, Vec3::INFINITY], 1.0),
            Err(DeformError::NonFinitePosition {
                what: "particle",
                index: 1
            })
        ));
        let (mut pba, _) = blob(24);
        let mut x = pba.particle_positions().to_vec();
        x[7].y = f32::NAN;
        assert!(matches!(
            pba.set_particle_positions(&x),
            Err(DeformError::NonFinitePosition { index: 7, .. })
        ));
    }

    #[test]
    fn rejects_non_finite_fields_and_mismatched_counts() {
        let (mut pba, _) = blob(25);
        let before = pba.deformed_positions();
        let x = pba.particle_positions().to_vec();
        let mut f = vec![Mat3::IDENTITY; x.len()];
        f[9].z_axis.x = f32::INFINITY;
        assert!(matches!(
            pba.set_particles(&x, &f),
            Err(DeformError::NonFiniteTransform { governor: 9 })
        ));
        assert!(matches!(
            pba.set_particles(&x, &f[1..]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            pba.set_particle_positions(&x[1..]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert_eq!(pba.deformed_positions(), before);
    }
}
