//! Morph targets (glTF-style deltas with global weights) and per-vertex convex blends of example shapes; their O(examples) patch bounds are [`crate::bounds::MorphPatchBounds`].

use crate::error::{DeformError, Result};
use crate::governor::{check_global_row, check_row, check_rows};
use crate::math::{Interval, Vec3, validate_positions};

/// Morph targets as in glTF: `p = base + Σ_i w_i Δ_i` with one global weight per target.
///
/// The weights may be any finite real numbers (glTF does not restrict them), so this is not a
/// convex combination; its bounds are the interval linear combination of per-target patch boxes
/// (see [`MorphPatchBounds`](crate::bounds::MorphPatchBounds)).
///
/// # Performance
/// Evaluation is O(vertices · targets); setting weights is O(targets).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphTargets {
    base: Vec<Vec3>,
    deltas: Vec<Vec<Vec3>>,
    weights: Vec<f32>,
}

impl MorphTargets {
    /// Builds from base positions and one delta array per target; all weights start at 0.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no vertices or no targets, [`DeformError::LengthMismatch`] when
    /// a target does not have one delta per vertex, [`DeformError::NonFinitePosition`]
    /// (`"base vertex"` or `"target delta"`).
    ///
    /// # Performance
    /// O(vertices · targets).
    pub fn new(base: Vec<Vec3>, deltas: Vec<Vec<Vec3>>) -> Result<Self> {
        if base.is_empty() {
            return Err(DeformError::Empty {
                what: "base positions",
            });
        }
        if deltas.is_empty() {
            return Err(DeformError::Empty {
                what: "morph targets",
            });
        }
        validate_positions("base vertex", &base)?;
        for d in &deltas {
            if d.len() != base.len() {
                return Err(DeformError::LengthMismatch {
                    what: "deltas of a morph target",
                    expected: base.len(),
                    actual: d.len(),
                });
            }
            validate_positions("target delta", d)?;
        }
        let weights = vec![0.0; deltas.len()];
        Ok(Self {
            base,
            deltas,
            weights,
        })
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.base.len()
    }

    /// Number of targets.
    pub fn target_count(&self) -> usize {
        self.deltas.len()
    }

    /// Base positions.
    pub fn base(&self) -> &[Vec3] {
        &self.base
    }

    /// The deltas of target `i`, or `None` when out of range.
    pub fn target(&self, i: usize) -> Option<&[Vec3]> {
        self.deltas.get(i).map(Vec::as_slice)
    }

    /// The deltas of every target.
    pub(crate) fn deltas(&self) -> &[Vec<Vec3>] {
        &self.deltas
    }

    /// Current weights.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Sets the global weights (any finite values).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::InvalidGlobalWeight`] for a NaN or
    /// infinite weight; nothing changes on error.
    ///
    /// # Performance
    /// O(targets).
    pub fn set_weights(&mut self, weights: &[f32]) -> Result<()> {
        check_target_weights(weights, self.deltas.len())?;
        self.weights.copy_from_slice(weights);
        Ok(())
    }

    /// Evaluates every vertex: `out[v] = base[v] + Σ_i w_i Δ_i[v]` (f32, in target order: the
    /// evaluation whose rounding [`MorphPatchBounds`](crate::bounds::MorphPatchBounds) accounts for).
    ///
    /// # Performance
    /// O(vertices · targets).
    pub fn deform_into(&self, out: &mut Vec<Vec3>) {
        out.clear();
        out.extend_from_slice(&self.base);
        for (d, &w) in self.deltas.iter().zip(&self.weights) {
            if w != 0.0 {
                for (p, &x) in out.iter_mut().zip(d) {
                    *p += w * x;
                }
            }
        }
    }

    /// [`MorphTargets::deform_into`] into a new vector.
    ///
    /// # Performance
    /// O(vertices · targets).
    pub fn deformed_positions(&self) -> Vec<Vec3> {
        let mut out = Vec::new();
        self.deform_into(&mut out);
        out
    }
}

/// Examples given as full vertex positions, blended per vertex with convex weights:
/// `p_v = Σ_e β_ve P_e(v)`, `β_v ≥ 0`, `Σ_e β_ve = 1` (example 0 is the rest shape).
///
/// This is the morph-target counterpart of [`super::ExampleBlend`]: plasticity changes the `β_v`
/// locally. Its patch bounds use the runtime ranges of the `β_e` over the patch
/// ([`MorphExamples::weight_ranges`]).
///
/// # Performance
/// Evaluation is O(vertices · examples); updating one vertex is O(examples).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphExamples {
    examples: Vec<Vec<Vec3>>,
    /// `β`, row-major `n × E`.
    weights: Vec<f32>,
}

impl MorphExamples {
    /// Builds from one full position array per example; every vertex starts on example 0.
    ///
    /// # Errors
    /// [`DeformError::Empty`], [`DeformError::LengthMismatch`] (an example with another vertex
    /// count than example 0), [`DeformError::NonFinitePosition`] (`"example vertex"`).
    ///
    /// # Performance
    /// O(vertices · examples).
    pub fn new(examples: Vec<Vec<Vec3>>) -> Result<Self> {
        let Some(first) = examples.first() else {
            return Err(DeformError::Empty { what: "examples" });
        };
        if first.is_empty() {
            return Err(DeformError::Empty {
                what: "example positions",
            });
        }
        let n = first.len();
        for x in &examples {
            if x.len() != n {
                return Err(DeformError::LengthMismatch {
                    what: "positions of an example",
                    expected: n,
                    actual: x.len(),
                });
            }
            validate_positions("example vertex", x)?;
        }
        let e = examples.len();
        let mut weights = vec![0.0; n * e];
        for row in weights.chunks_exact_mut(e) {
            row[0] = 1.0;
        }
        Ok(Self { examples, weights })
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.examples[0].len()
    }

    /// Number of examples `E`.
    pub fn example_count(&self) -> usize {
        self.examples.len()
    }

    /// The positions of example `e`, or `None` when out of range.
    pub fn example(&self, e: usize) -> Option<&[Vec3]> {
        self.examples.get(e).map(Vec::as_slice)
    }

    /// The positions of every example.
    pub(crate) fn examples(&self) -> &[Vec<Vec3>] {
        &self.examples
    }

    /// The example weights `β_v` of vertex `v`, or `None` when out of range.
    pub fn vertex_weights(&self, v: usize) -> Option<&[f32]> {
        let e = self.example_count();
        (v < self.vertex_count()).then(|| &self.weights[v * e..(v + 1) * e])
    }

    /// Gives every vertex the same example weights.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::InvalidGlobalWeight`] (NaN/infinite,
    /// negative, sum off by more than [`ConvexWeights::SUM_TOLERANCE`](crate::governor::ConvexWeights::SUM_TOLERANCE)).
    ///
    /// # Performance
    /// O(vertices · examples).
    pub fn set_global_weights(&mut self, beta: &[f32]) -> Result<()> {
        self.check_len("global example weights", beta.len())?;
        let sum = check_global_row("example", beta)?;
        for row in self.weights.chunks_exact_mut(beta.len()) {
            for (dst, &x) in row.iter_mut().zip(beta) {
                *dst = x / sum;
            }
        }
        Ok(())
    }

    /// Sets all example weights from a row-major `n × E` matrix (validated before any change).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFiniteWeight`],
    /// [`DeformError::NegativeWeight`], [`DeformError::WeightSumOff`] naming vertex and slot.
    ///
    /// # Performance
    /// O(vertices · examples).
    pub fn set_weights(&mut self, per_vertex: &[f32]) -> Result<()> {
        let e = self.example_count();
        let sums = check_rows(per_vertex, self.vertex_count(), e)?;
        for ((dst, src), sum) in self
            .weights
            .chunks_exact_mut(e)
            .zip(per_vertex.chunks_exact(e))
            .zip(sums)
        {
            for (d, &x) in dst.iter_mut().zip(src) {
                *d = x / sum;
            }
        }
        Ok(())
    }

    /// Updates one vertex's example weights in place.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`], [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteWeight`], [`DeformError::NegativeWeight`],
    /// [`DeformError::WeightSumOff`].
    ///
    /// # Performance
    /// O(examples).
    pub fn set_vertex_weights(&mut self, v: usize, beta: &[f32]) -> Result<()> {
        if v >= self.vertex_count() {
            return Err(DeformError::IndexOutOfRange {
                what: "vertex",
                index: v,
                len: self.vertex_count(),
            });
        }
        self.check_len("example weights of a vertex", beta.len())?;
        let sum = check_row(v, beta)?;
        let e = self.example_count();
        for (d, &x) in self.weights[v * e..(v + 1) * e].iter_mut().zip(beta) {
            *d = x / sum;
        }
        Ok(())
    }

    fn check_len(&self, what: &'static str, len: usize) -> Result<()> {
        if len != self.example_count() {
            return Err(DeformError::LengthMismatch {
                what,
                expected: self.example_count(),
                actual: len,
            });
        }
        Ok(())
    }

    /// Per example, the range of its weight over `vertices`: the runtime input of the patch
    /// bounds. Written into `out` (length `E`).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a bad vertex.
    ///
    /// # Performance
    /// O(|vertices| · examples).
    pub fn weight_ranges(&self, vertices: &[u32], out: &mut Vec<Interval>) -> Result<()> {
        let e = self.example_count();
        out.clear();
        out.resize(e, Interval::EMPTY);
        for &v in vertices {
            let row = self
                .vertex_weights(v as usize)
                .ok_or(DeformError::IndexOutOfRange {
                    what: "vertex",
                    index: v as usize,
                    len: self.vertex_count(),
                })?;
            for (r, &x) in out.iter_mut().zip(row) {
                *r = r.hull_point(x);
            }
        }
        Ok(())
    }

    /// Evaluates every vertex: `out[v] = Σ_e β_ve P_e(v)` (f32, in example order).
    ///
    /// # Performance
    /// O(vertices · examples).
    pub fn deform_into(&self, out: &mut Vec<Vec3>) {
        let e = self.example_count();
        out.clear();
        out.extend(self.weights.chunks_exact(e).enumerate().map(|(v, row)| {
            let mut p = Vec3::ZERO;
            for (x, &b) in self.examples.iter().zip(row) {
                p += b * x[v];
            }
            p
        }));
    }

    /// [`MorphExamples::deform_into`] into a new vector.
    ///
    /// # Performance
    /// O(vertices · examples).
    pub fn deformed_positions(&self) -> Vec<Vec3> {
        let mut out = Vec::new();
        self.deform_into(&mut out);
        out
    }
}

/// Rejects a global morph-target weight vector of the wrong length or with a non-finite entry.
pub(crate) fn check_target_weights(weights: &[f32], count: usize) -> Result<()> {
    if weights.len() != count {
        return Err(DeformError::LengthMismatch {
            what: "morph target weights",
            expected: count,
            actual: weights.len(),
        });
    }
    match weights.iter().position(|w| !w.is_finite()) {
        Some(slot) => Err(DeformError::InvalidGlobalWeight {
            what: "morph target",
            slot,
            value: weights[slot],
            reason: "not finite",
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Morph fixtures shared by these tests and those of [`crate::bounds::MorphPatchBounds`].

    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Cells per side of [`grid`].
    pub const K: u32 = 16;

    /// A bumpy open grid over [0, 1]², `K × K` cells.
    pub fn grid() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut p = Vec::new();
        for i in 0..=K {
            for j in 0..=K {
                let (x, y) = (i as f32 / K as f32, j as f32 / K as f32);
                p.push(Vec3::new(x, y, 0.05 * (6.0 * x).sin() * (5.0 * y).cos()));
            }
        }
        let id = |i: u32, j: u32| i * (K + 1) + j;
        let mut t = Vec::new();
        for i in 0..K {
            for j in 0..K {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        (p, t)
    }

    /// A smooth random vector field over the grid.
    pub fn smooth_field(rng: &mut ChaCha8Rng, p: &[Vec3], amplitude: f32) -> Vec<Vec3> {
        let f: [f32; 6] = core::array::from_fn(|_| rng.random_range(0.5..4.0));
        let ph: [f32; 3] = core::array::from_fn(|_| rng.random_range(0.0..6.3));
        p.iter()
            .map(|q| {
                amplitude
                    * Vec3::new(
                        (f[0] * q.x + f[1] * q.y + ph[0]).sin(),
                        (f[2] * q.x + f[3] * q.y + ph[1]).cos(),
                        (f[4] * q.x + f[5] * q.y + ph[2]).sin(),
                    )
            })
            .collect()
    }

    pub fn targets(seed: u64) -> (MorphTargets, ChaCha8Rng) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (p, _) = grid();
        let deltas = (0..3).map(|_| smooth_field(&mut rng, &p, 0.04)).collect();
        (MorphTargets::new(p, deltas).unwrap(), rng)
    }

    pub fn examples(seed: u64) -> (MorphExamples, ChaCha8Rng) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (p, _) = grid();
        let mut ex = vec![p.clone()];
        for _ in 0..3 {
            let d = smooth_field(&mut rng, &p, 0.05);
            ex.push(p.iter().zip(&d).map(|(a, b)| *a + *b).collect());
        }
        (MorphExamples::new(ex).unwrap(), rng)
    }

    /// Smooth per-vertex β: a softmax of random linear functions plus a little noise.
    pub fn random_beta(rng: &mut ChaCha8Rng, p: &[Vec3], e: usize) -> Vec<f32> {
        let coeffs: Vec<[f32; 3]> = (0..e)
            .map(|_| core::array::from_fn(|_| rng.random_range(-3.0..3.0)))
            .collect();
        let mut out = Vec::with_capacity(p.len() * e);
        for q in p {
            let raw: Vec<f32> = coeffs
                .iter()
                .map(|c| (c[0] * q.x + c[1] * q.y + c[2] + rng.random_range(0.0..0.2)).exp())
                .collect();
            let s: f32 = raw.iter().sum();
            out.extend(raw.iter().map(|x| x / s));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn evaluations_match_direct_formulas() {
        let (mut m, mut rng) = targets(51);
        let w = [0.7, -1.2, 2.5];
        m.set_weights(&w).unwrap();
        let got = m.deformed_positions();
        for (v, g) in got.iter().enumerate() {
            let mut e = m.base()[v].as_dvec3();
            for (i, &wi) in w.iter().enumerate() {
                e += wi as f64 * m.target(i).unwrap()[v].as_dvec3();
            }
            assert!((g.as_dvec3() - e).length() < 1e-5);
        }
        let (mut x, _) = examples(52);
        let beta = random_beta(&mut rng, m.base(), x.example_count());
        x.set_weights(&beta).unwrap();
        for (v, g) in x.deformed_positions().iter().enumerate() {
            let b = x.vertex_weights(v).unwrap();
            let e: rapier3d::parry::glamx::DVec3 = (0..4)
                .map(|k| b[k] as f64 * x.example(k).unwrap()[v].as_dvec3())
                .sum();
            assert!((g.as_dvec3() - e).length() < 1e-5);
        }
    }

    #[test]
    fn rejects_non_finite_weights_and_positions() {
        let (mut m, _) = targets(53);
        assert!(matches!(
            m.set_weights(&[0.0, f32::NAN, 0.0]),
            Err(DeformError::InvalidGlobalWeight { slot: 1, .. })
        ));
        let mut base = m.base().to_vec();
        base[3].x = f32::INFINITY;
        assert!(matches!(
            MorphTargets::new(base, vec![vec![Vec3::ZERO; 289]]),
            Err(DeformError::NonFinitePosition { index: 3, .. })
        ));
        let (mut x, _) = examples(54);
        let mut beta = vec![0.25; 289 * 4];
        beta[10 * 4 + 1] = f32::NAN;
        assert!(matches!(
            x.set_weights(&beta),
            Err(DeformError::NonFiniteWeight {
                vertex: 10,
                slot: 1
            })
        ));
        let mut ex = vec![x.example(0).unwrap().to_vec(); 2];
        ex[1][7].z = f32::NAN;
        assert!(matches!(
            MorphExamples::new(ex),
            Err(DeformError::NonFinitePosition { index: 7, .. })
        ));
    }

    #[test]
    fn rejects_negative_and_off_sum_example_weights() {
        let (mut x, _) = examples(55);
        assert!(matches!(
            x.set_vertex_weights(4, &[1.5, -0.5, 0.0, 0.0]),
            Err(DeformError::NegativeWeight {
                vertex: 4,
                slot: 1,
                ..
            })
        ));
        assert!(matches!(
            x.set_vertex_weights(4, &[0.5, 0.1, 0.0, 0.0]),
            Err(DeformError::WeightSumOff { vertex: 4, .. })
        ));
        assert!(matches!(
            x.set_global_weights(&[0.5, 0.1, 0.0, 0.0]),
            Err(DeformError::InvalidGlobalWeight { slot: 4, .. })
        ));
        assert!(matches!(
            x.set_global_weights(&[1.5, -0.5, 0.0, 0.0]),
            Err(DeformError::InvalidGlobalWeight {
                slot: 1,
                reason: "negative",
                ..
            })
        ));
        x.set_global_weights(&[0.25, 0.25, 0.25, 0.2504]).unwrap();
        let s: f32 = x.vertex_weights(0).unwrap().iter().sum();
        assert!((s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rejects_mismatched_counts() {
        let (mut m, _) = targets(56);
        assert!(matches!(
            m.set_weights(&[1.0]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            MorphTargets::new(m.base().to_vec(), vec![vec![Vec3::ZERO; 3]]),
            Err(DeformError::LengthMismatch {
                expected: 289,
                actual: 3,
                ..
            })
        ));
        let (x, _) = examples(57);
        let mut r = Vec::new();
        assert!(matches!(
            x.weight_ranges(&[289], &mut r),
            Err(DeformError::IndexOutOfRange { .. })
        ));
    }

    #[test]
    fn rejects_empty_inputs() {
        assert!(matches!(
            MorphTargets::new(vec![], vec![vec![]]),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            MorphTargets::new(vec![Vec3::ZERO], vec![]),
            Err(DeformError::Empty {
                what: "morph targets"
            })
        ));
        assert!(matches!(
            MorphExamples::new(vec![]),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            MorphExamples::new(vec![vec![]]),
            Err(DeformError::Empty { .. })
        ));
    }
}
