//! Example blend (Jones et al. 2016): examples × bones are the governors, per-vertex example weights times skin weights the convex weights.

use crate::error::{DeformError, Result};
use crate::governor::{
    Affine, ConvexWeights, check_global_row, check_row, check_rows, validate_governors,
};
use crate::math::{Vec3, validate_positions};

/// The example-based deformation of Jones, Thuerey, Shinar & Bargteil 2016 (see
/// `research/anchors.md` §1.2): `E` examples of a `B`-bone skeleton, each example giving per bone
/// a skinning transform `T_{e,b}`; linear blend skinning weights `W` (over bones) and per-vertex
/// example weights `β_v` (a row-stochastic `n × E` matrix, the plasticity state).
///
/// A vertex is
///
/// ```text
/// p = Σ_b W_b Σ_e β_e T_{e,b} p0  =  Σ_(e,b) (β_e W_b) (A_{e,b} p0 + t_{e,b})
/// ```
///
/// a **linear blend of matrices**, not the authors' per-vertex blend of per-bone quaternions and
/// translations. The reason is the crate's one idea: with the matrix blend every vertex is an
/// exact convex combination of the `E·B` *fixed* governors `(e, b)` (index `e·B + b`) with weights
/// `β_e·W_b ≥ 0` summing to one, so the O(m) AABB and normal bounds of [`crate::bounds`] apply as
/// for skinning. A normalised quaternion blend is a different rotation for every `β`, not a
/// convex combination of fixed transforms, and the bounds would not hold. For examples whose
/// bone rotations differ moderately (dents, crumples) the two blends are close; for large
/// rotations between examples the matrix blend shows the usual LBS shrinking between them.
///
/// # Performance
/// Evaluation is O(Σ_v E · influences_v); updating one vertex's example weights is
/// O(E · influences_v) and allocation-free; changing an example's transforms is O(B).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ExampleBlend {
    rest: Vec<Vec3>,
    bone_weights: ConvexWeights,
    example_count: usize,
    /// `β`, row-major `n × E`, each row renormalised.
    example_weights: Vec<f32>,
    /// Row `v`: for each bone `b` of `W_v` (in its order), for each example `e`: `(e·B + b, β_e W_b)`.
    /// Zeros stay in the pattern so a row can be updated in place.
    weights: ConvexWeights,
    governors: Vec<Affine>,
    scratch: Vec<f32>,
}

impl ExampleBlend {
    /// Builds the blend from rest positions, LBS bone weights and one vector of `B` skinning
    /// transforms per example (`examples[e][b] = T_{e,b}`, world · inverse bind). Every vertex
    /// starts fully on example 0 (`β = (1, 0, …)`), the rest shape in Jones et al.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no vertices or no examples, [`DeformError::LengthMismatch`] when
    /// the weight rows do not match the vertices or an example does not have one transform per
    /// bone, [`DeformError::NonFinitePosition`], [`DeformError::NonFiniteTransform`] (governor
    /// index `e·B + b`).
    ///
    /// # Performance
    /// O(n · E · influences).
    pub fn new(
        rest: Vec<Vec3>,
        bone_weights: ConvexWeights,
        examples: Vec<Vec<Affine>>,
    ) -> Result<Self> {
        if rest.is_empty() {
            return Err(DeformError::Empty {
                what: "rest positions",
            });
        }
        if examples.is_empty() {
            return Err(DeformError::Empty { what: "examples" });
        }
        if bone_weights.vertex_count() != rest.len() {
            return Err(DeformError::LengthMismatch {
                what: "bone weight rows",
                expected: rest.len(),
                actual: bone_weights.vertex_count(),
            });
        }
        validate_positions("vertex", &rest)?;
        let bones = bone_weights.governor_count();
        let example_count = examples.len();
        let mut governors = Vec::with_capacity(example_count * bones);
        for transforms in &examples {
            if transforms.len() != bones {
                return Err(DeformError::LengthMismatch {
                    what: "bone transforms of an example",
                    expected: bones,
                    actual: transforms.len(),
                });
            }
            governors.extend_from_slice(transforms);
        }
        validate_governors(&governors, example_count * bones)?;

        let mut example_weights = vec![0.0; rest.len() * example_count];
        for row in example_weights.chunks_exact_mut(example_count) {
            row[0] = 1.0;
        }
        let mut offsets = Vec::with_capacity(rest.len() + 1);
        let mut pattern = Vec::with_capacity(bone_weights.influence_count() * example_count);
        let mut values = Vec::with_capacity(pattern.capacity());
        offsets.push(0u32);
        for v in 0..rest.len() {
            for (b, w) in bone_weights.iter_row(v) {
                for e in 0..example_count {
                    pattern.push((e * bones) as u32 + b);
                    values.push(if e == 0 { w } else { 0.0 });
                }
            }
            offsets.push(pattern.len() as u32);
        }
        let weights = ConvexWeights::from_csr(offsets, pattern, values, example_count * bones)?;
        Ok(Self {
            rest,
            bone_weights,
            example_count,
            example_weights,
            weights,
            governors,
            scratch: Vec::new(),
        })
    }

    /// Number of examples `E`.
    pub fn example_count(&self) -> usize {
        self.example_count
    }

    /// Number of bones `B`.
    pub fn bone_count(&self) -> usize {
        self.bone_weights.governor_count()
    }

    /// The LBS bone weights `W`.
    pub fn bone_weights(&self) -> &ConvexWeights {
        &self.bone_weights
    }

    /// Governor index of `(example, bone)`: `example · B + bone`.
    #[inline]
    pub fn governor_index(&self, example: usize, bone: usize) -> usize {
        example * self.bone_count() + bone
    }

    /// The `B` skinning transforms of example `e`, or `None` when `e ≥ E`.
    pub fn example_transforms(&self, e: usize) -> Option<&[Affine]> {
        let b = self.bone_count();
        (e < self.example_count).then(|| &self.governors[e * b..(e + 1) * b])
    }

    /// Replaces the `B` skinning transforms of example `e` (e.g. to animate the skeleton: pass
    /// `world_b · example_b` per bone).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`], [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteTransform`] (index of the bone); nothing changes on error.
    ///
    /// # Performance
    /// O(B).
    pub fn set_example_transforms(&mut self, e: usize, transforms: &[Affine]) -> Result<()> {
        if e >= self.example_count {
            return Err(DeformError::IndexOutOfRange {
                what: "example",
                index: e,
                len: self.example_count,
            });
        }
        let b = self.bone_count();
        validate_governors(transforms, b)?;
        self.governors[e * b..(e + 1) * b].copy_from_slice(transforms);
        Ok(())
    }

    /// The (renormalised) example weights `β_v` of vertex `v`, or `None` when out of range.
    pub fn example_weights(&self, v: usize) -> Option<&[f32]> {
        let e = self.example_count;
        (v < self.rest.len()).then(|| &self.example_weights[v * e..(v + 1) * e])
    }

    /// All example weights, row-major `n × E`.
    pub fn all_example_weights(&self) -> &[f32] {
        &self.example_weights
    }

    /// Gives every vertex the same example weights `β` (global blend).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `beta.len() ≠ E`, [`DeformError::InvalidGlobalWeight`]
    /// for a NaN/infinite or negative entry or a sum more than [`ConvexWeights::SUM_TOLERANCE`]
    /// from 1; nothing changes on error.
    ///
    /// # Performance
    /// O(n · E · influences).
    pub fn set_global_example_weights(&mut self, beta: &[f32]) -> Result<()> {
        if beta.len() != self.example_count {
            return Err(DeformError::LengthMismatch {
                what: "global example weights",
                expected: self.example_count,
                actual: beta.len(),
            });
        }
        let sum = check_global_row("example", beta)?;
        for v in 0..self.rest.len() {
            self.write_row(v, beta, sum);
        }
        Ok(())
    }

    /// Sets every vertex's example weights from a row-major `n × E` matrix.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the length is not `n · E`,
    /// [`DeformError::NonFiniteWeight`], [`DeformError::NegativeWeight`],
    /// [`DeformError::WeightSumOff`] naming the vertex and example slot; all rows are validated
    /// before any changes.
    ///
    /// # Performance
    /// O(n · E · influences).
    pub fn set_example_weights(&mut self, per_vertex: &[f32]) -> Result<()> {
        let e = self.example_count;
        let sums = check_rows(per_vertex, self.rest.len(), e)?;
        for (v, sum) in sums.into_iter().enumerate() {
            let row = &per_vertex[v * e..(v + 1) * e];
            self.write_row(v, row, sum);
        }
        Ok(())
    }

    /// Updates the example weights of one vertex in place (the plasticity update).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`], [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteWeight`], [`DeformError::NegativeWeight`],
    /// [`DeformError::WeightSumOff`]; nothing changes on error.
    ///
    /// # Performance
    /// O(E · influences of `v`), no allocation after the first call.
    pub fn set_vertex_example_weights(&mut self, v: usize, beta: &[f32]) -> Result<()> {
        if v >= self.rest.len() {
            return Err(DeformError::IndexOutOfRange {
                what: "vertex",
                index: v,
                len: self.rest.len(),
            });
        }
        if beta.len() != self.example_count {
            return Err(DeformError::LengthMismatch {
                what: "example weights of a vertex",
                expected: self.example_count,
                actual: beta.len(),
            });
        }
        let sum = check_row(v, beta)?;
        self.write_row(v, beta, sum);
        Ok(())
    }

    /// Writes validated `β / sum` for vertex `v` and its product row `β_e W_b`.
    fn write_row(&mut self, v: usize, beta: &[f32], sum: f32) {
        let e = self.example_count;
        for (dst, &x) in self.example_weights[v * e..(v + 1) * e]
            .iter_mut()
            .zip(beta)
        {
            *dst = x / sum;
        }
        let beta = &self.example_weights[v * e..(v + 1) * e];
        self.scratch.clear();
        for (_, w) in self.bone_weights.iter_row(v) {
            self.scratch.extend(beta.iter().map(|&x| x * w));
        }
        // The pattern matches by construction and the row is convex: this cannot fail.
        let updated = self.weights.set_row_weights(v, &self.scratch);
        debug_assert!(updated.is_ok(), "{updated:?}");
    }

    /// The Jacobian `∂p_v/∂β_v` (3 × E) of vertex `v`'s position with respect to its example
    /// weights, as its `E` columns `Σ_b W_b T_{e,b} p0`, written into `out`. Plasticity
    /// (Jones et al. 2016, §1.4 of `research/anchors.md`) projects a displacement onto it.
    ///
    /// The derivative treats the `β_e` as free variables (no simplex constraint): `p` is linear in
    /// them, so `p = J β` exactly when `Σ β = 1`.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`].
    ///
    /// # Performance
    /// O(E · influences of `v`).
    pub fn example_jacobian_into(&self, v: usize, out: &mut Vec<Vec3>) -> Result<()> {
        if v >= self.rest.len() {
            return Err(DeformError::IndexOutOfRange {
                what: "vertex",
                index: v,
                len: self.rest.len(),
            });
        }
        let p0 = self.rest[v];
        let bones = self.bone_count();
        out.clear();
        out.extend((0..self.example_count).map(|e| {
            self.bone_weights
                .iter_row(v)
                .map(|(b, w)| w * self.governors[e * bones + b as usize].transform_point(p0))
                .sum::<Vec3>()
        }));
        Ok(())
    }

    /// [`ExampleBlend::example_jacobian_into`] into a new vector.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`].
    ///
    /// # Performance
    /// O(E · influences of `v`).
    pub fn example_jacobian(&self, v: usize) -> Result<Vec<Vec3>> {
        let mut out = Vec::with_capacity(self.example_count);
        self.example_jacobian_into(v, &mut out)?;
        Ok(out)
    }
}

governed_by_fields!(ExampleBlend);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::GovernedDeformation;
    use crate::math::{Mat3, Quat};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rapier3d::parry::glamx::EulerRot;

    const E: usize = 3;
    const B: usize = 4;

    fn random_affine(rng: &mut ChaCha8Rng) -> Affine {
        let q = Quat::from_euler(
            EulerRot::XYZ,
            rng.random_range(-3.0..3.0),
            rng.random_range(-1.5..1.5),
            rng.random_range(-3.0..3.0),
        );
        let s = Vec3::new(
            rng.random_range(0.5..1.5),
            rng.random_range(0.5..1.5),
            rng.random_range(0.5..1.5),
        );
        Affine::new(
            Mat3::from_quat(q) * Mat3::from_diagonal(s),
            Vec3::new(
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
            ),
        )
    }

    fn random_simplex(rng: &mut ChaCha8Rng, k: usize) -> Vec<f32> {
        let raw: Vec<f32> = (0..k).map(|_| rng.random_range(0.0..1.0f32)).collect();
        let s: f32 = raw.iter().sum();
        raw.iter().map(|x| x / s).collect()
    }

    fn setup(seed: u64, n: usize) -> (ExampleBlend, ChaCha8Rng) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rest: Vec<Vec3> = (0..n)
            .map(|_| {
                Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
            })
            .collect();
        let rows: Vec<Vec<(u32, f32)>> = (0..n)
            .map(|v| {
                let w = random_simplex(&mut rng, 2);
                vec![
                    (v as u32 % B as u32, w[0]),
                    ((v as u32 + 1) % B as u32, w[1]),
                ]
            })
            .collect();
        let w = ConvexWeights::from_rows(rows, B).unwrap();
        let examples = (0..E)
            .map(|_| (0..B).map(|_| random_affine(&mut rng)).collect())
            .collect();
        (ExampleBlend::new(rest, w, examples).unwrap(), rng)
    }

    /// Independent f64 evaluation of `Σ_b W_b Σ_e β_e T_{e,b} p0` (β unnormalised).
    fn direct(blend: &ExampleBlend, v: usize, beta: &[f64]) -> [f64; 3] {
        let p0 = blend.rest_positions()[v];
        let mut p = [0.0; 3];
        for (b, w) in blend.bone_weights().iter_row(v) {
            for (e, &be) in beta.iter().enumerate() {
                let t = blend.example_transforms(e).unwrap()[b as usize];
                for (r, pr) in p.iter_mut().enumerate() {
                    let mut x = t.translation[r] as f64;
                    for c in 0..3 {
                        x += t.linear.col(c)[r] as f64 * p0[c] as f64;
                    }
                    *pr += w as f64 * be * x;
                }
            }
        }
        p
    }

    #[test]
    fn per_vertex_blend_matches_direct_evaluation() {
        let (mut blend, mut rng) = setup(11, 200);
        for _ in 0..20 {
            let beta: Vec<f32> = (0..200).flat_map(|_| random_simplex(&mut rng, E)).collect();
            blend.set_example_weights(&beta).unwrap();
            let got = blend.deformed_positions();
            for v in 0..200 {
                let b: Vec<f64> = beta[v * E..(v + 1) * E].iter().map(|&x| x as f64).collect();
                let r = direct(&blend, v, &b);
                for k in 0..3 {
                    assert!((got[v][k] as f64 - r[k]).abs() < 1e-4, "{v}");
                }
            }
        }
    }

    #[test]
    fn governor_weights_are_products_and_in_place_update_equals_rebuild() {
        let (mut blend, mut rng) = setup(12, 50);
        let global = random_simplex(&mut rng, E);
        blend.set_global_example_weights(&global).unwrap();
        for v in 0..50 {
            assert_eq!(blend.example_weights(v).unwrap(), &global[..]);
            for (b, w) in blend.bone_weights().iter_row(v) {
                for (e, &be) in global.iter().enumerate() {
                    let g = blend.governor_index(e, b as usize) as u32;
                    assert!((blend.weights().weight(v, g) - be * w).abs() < 1e-6);
                }
            }
        }
        let mut rebuilt = blend.clone();
        let mut all = blend.all_example_weights().to_vec();
        for v in [3, 17, 49] {
            let beta = random_simplex(&mut rng, E);
            blend.set_vertex_example_weights(v, &beta).unwrap();
            all[v * E..(v + 1) * E].copy_from_slice(&beta);
        }
        rebuilt.set_example_weights(&all).unwrap();
        assert_eq!(blend.deformed_positions(), rebuilt.deformed_positions());
        // Pattern stays fixed: one entry per (bone of the vertex, example), zeros included.
        blend
            .set_vertex_example_weights(5, &[1.0, 0.0, 0.0])
            .unwrap();
        assert_eq!(blend.weights().row(5).0.len(), 2 * E);
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let (mut blend, mut rng) = setup(13, 40);
        let beta: Vec<f32> = (0..40).flat_map(|_| random_simplex(&mut rng, E)).collect();
        blend.set_example_weights(&beta).unwrap();
        for v in 0..40 {
            let j = blend.example_jacobian(v).unwrap();
            let b0: Vec<f64> = blend
                .example_weights(v)
                .unwrap()
                .iter()
                .map(|&x| x as f64)
                .collect();
            let h = 1e-3;
            for e in 0..E {
                let (mut bp, mut bm) = (b0.clone(), b0.clone());
                bp[e] += h;
                bm[e] -= h;
                let (pp, pm) = (direct(&blend, v, &bp), direct(&blend, v, &bm));
                for k in 0..3 {
                    let fd = (pp[k] - pm[k]) / (2.0 * h);
                    assert!((j[e][k] as f64 - fd).abs() < 1e-4, "v {v} e {e}");
                }
            }
            // p = J β on the simplex.
            let p = blend.deformed_positions()[v];
            let jb: Vec3 = (0..E).map(|e| j[e] * b0[e] as f32).sum();
            assert!((p - jb).length() < 1e-4);
        }
        assert!(matches!(
            blend.example_jacobian(40),
            Err(DeformError::IndexOutOfRange { index: 40, .. })
        ));
    }

    #[test]
    fn rejects_negative_example_weight() {
        let (mut blend, _) = setup(14, 5);
        assert!(matches!(
            blend.set_vertex_example_weights(2, &[1.2, -0.2, 0.0]),
            Err(DeformError::NegativeWeight {
                vertex: 2,
                slot: 1,
                ..
            })
        ));
        assert!(matches!(
            blend.set_global_example_weights(&[1.2, -0.2, 0.0]),
            Err(DeformError::InvalidGlobalWeight { slot: 1, .. })
        ));
    }

    #[test]
    fn rejects_nan_example_weight() {
        let (mut blend, _) = setup(15, 5);
        let before = blend.deformed_positions();
        let mut all = vec![0.0; 5 * E];
        for v in 0..5 {
            all[v * E] = 1.0;
        }
        all[3 * E + 2] = f32::NAN;
        assert!(matches!(
            blend.set_example_weights(&all),
            Err(DeformError::NonFiniteWeight { vertex: 3, slot: 2 })
        ));
        assert!(matches!(
            blend.set_global_example_weights(&[f32::NAN, 0.5, 0.5]),
            Err(DeformError::InvalidGlobalWeight { slot: 0, .. })
        ));
        assert_eq!(blend.deformed_positions(), before);
    }

    #[test]
    fn rejects_example_weight_sum_off() {
        let (mut blend, _) = setup(16, 5);
        assert!(matches!(
            blend.set_vertex_example_weights(1, &[0.5, 0.2, 0.2]),
            Err(DeformError::WeightSumOff { vertex: 1, .. })
        ));
        assert!(matches!(
            blend.set_global_example_weights(&[0.5, 0.2, 0.2]),
            Err(DeformError::InvalidGlobalWeight { slot: 3, .. })
        ));
        // Within tolerance: accepted and renormalised.
        blend
            .set_vertex_example_weights(1, &[0.5, 0.25, 0.2504])
            .unwrap();
        let s: f32 = blend.example_weights(1).unwrap().iter().sum();
        assert!((s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rejects_mismatched_counts() {
        let (mut blend, _) = setup(17, 5);
        assert!(matches!(
            blend.set_vertex_example_weights(0, &[1.0, 0.0]),
            Err(DeformError::LengthMismatch {
                expected: 3,
                actual: 2,
                ..
            })
        ));
        assert!(matches!(
            blend.set_vertex_example_weights(5, &[1.0, 0.0, 0.0]),
            Err(DeformError::IndexOutOfRange { index: 5, .. })
        ));
        assert!(matches!(
            blend.set_example_weights(&[1.0; 4]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            blend.set_example_transforms(0, &[Affine::IDENTITY; B - 1]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            blend.set_example_transforms(E, &[Affine::IDENTITY; B]),
            Err(DeformError::IndexOutOfRange { .. })
        ));
        let w = blend.bone_weights().clone();
        let rest = blend.rest_positions().to_vec();
        assert!(matches!(
            ExampleBlend::new(rest.clone(), w.clone(), vec![vec![Affine::IDENTITY; B - 1]]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            ExampleBlend::new(rest[..4].to_vec(), w, vec![vec![Affine::IDENTITY; B]]),
            Err(DeformError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn rejects_non_finite_transforms_and_positions() {
        let (mut blend, _) = setup(18, 5);
        let mut t = vec![Affine::IDENTITY; B];
        t[2].translation.x = f32::INFINITY;
        assert!(matches!(
            blend.set_example_transforms(1, &t),
            Err(DeformError::NonFiniteTransform { governor: 2 })
        ));
        let w = blend.bone_weights().clone();
        let mut rest = blend.rest_positions().to_vec();
        let mut examples = vec![vec![Affine::IDENTITY; B]; 2];
        examples[1][3].linear.x_axis.y = f32::NAN;
        assert!(matches!(
            ExampleBlend::new(rest.clone(), w.clone(), examples),
            Err(DeformError::NonFiniteTransform { governor: 7 })
        ));
        rest[4].z = f32::NAN;
        assert!(matches!(
            ExampleBlend::new(rest, w, vec![vec![Affine::IDENTITY; B]]),
            Err(DeformError::NonFinitePosition { index: 4, .. })
        ));
    }

    #[test]
    fn rejects_empty_inputs() {
        let w = ConvexWeights::from_rows([vec![(0, 1.0)]], 1).unwrap();
        assert!(matches!(
            ExampleBlend::new(vec![Vec3::ZERO], w.clone(), vec![]),
            Err(DeformError::Empty { what: "examples" })
        ));
        let none = ConvexWeights::from_rows(Vec::<Vec<(u32, f32)>>::new(), 1).unwrap();
        assert!(matches!(
            ExampleBlend::new(vec![], none, vec![vec![Affine::IDENTITY]]),
            Err(DeformError::Empty { .. })
        ));
    }

    #[test]
    fn csr_weights_keep_zeros_and_validate_rows() {
        let w = ConvexWeights::from_csr(vec![0, 2], vec![0, 1], vec![1.0, 0.0], 2).unwrap();
        assert_eq!(w.row(0).0, &[0, 1]);
        assert!(matches!(
            ConvexWeights::from_csr(vec![0, 2], vec![1, 1], vec![0.5, 0.5], 2),
            Err(DeformError::GovernorIndexOutOfRange { governor: 1, .. })
        ));
        assert!(matches!(
            ConvexWeights::from_csr(vec![0, 3], vec![0, 1], vec![0.5, 0.5], 2),
            Err(DeformError::LengthMismatch { .. })
        ));
        let mut w = w;
        assert!(matches!(
            w.set_row_weights(0, &[0.7, 0.7]),
            Err(DeformError::WeightSumOff { vertex: 0, .. })
        ));
        w.set_row_weights(0, &[0.25, 0.75]).unwrap();
        assert_eq!(w.weight(0, 1), 0.75);
    }
}
