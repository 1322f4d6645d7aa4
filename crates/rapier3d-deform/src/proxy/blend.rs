//! Run-time blend: each sphere's centre and radius are barycentric blends of its per-example spheres, with the example weights of its nearest rest vertex.
//!
//! Jones et al. (MiG 2017, §3.4): `c_s = Σ_e β_e c[e][s]`, `r_s = Σ_e β_e r[e][s]`, where `β` are
//! the example weights of the rest vertex nearest to sphere `s`'s rest centre. No skinning runs
//! for the spheres. Since `β` is convex, each radius lies between the sphere's smallest and largest
//! example radius and each centre in the convex hull of its example centres.

use super::SphereProxy;
use crate::error::{DeformError, Result};
use crate::governor::ConvexWeights;
use crate::math::Vec3;

impl SphereProxy {
    /// Blends the spheres with per-vertex example weights (`example_weights` has one row per rest
    /// vertex and one governor per example, as the plasticity state stores them), writing
    /// `centres` and `radii` (resized to the sphere count).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the weights do not have one row per rest vertex and
    /// one column per example; what [`SphereProxy::validate`] rejects.
    ///
    /// # Performance
    /// O(S · k) for S spheres and k non-zero example weights per vertex (≤ examples), no
    /// allocation once the outputs have capacity.
    pub fn blend_into(
        &self,
        example_weights: &ConvexWeights,
        centres: &mut Vec<Vec3>,
        radii: &mut Vec<f32>,
    ) -> Result<()> {
        self.validate()?;
        self.check_weight_shape(example_weights)?;
        let n = self.rest.len();
        centres.clear();
        radii.clear();
        for (s, &v) in self.sphere_vertex.iter().enumerate() {
            let (mut c, mut r) = (Vec3::ZERO, 0.0);
            for (e, w) in example_weights.iter_row(v as usize) {
                let i = e as usize * n + s;
                c += w * self.centres[i];
                r += w * self.radii[i];
            }
            centres.push(c);
            radii.push(r);
        }
        Ok(())
    }

    /// Like [`SphereProxy::blend_into`] with dense per-vertex example weights: `example_weights` is
    /// row-major `vertices × examples` (what
    /// [`ExampleBlend::all_example_weights`](crate::deformation::ExampleBlend::all_example_weights)
    /// returns). Rows are used as given (an [`crate::deformation::ExampleBlend`] keeps them
    /// convex).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the slice is not `vertices × examples` long, or a
    /// sphere's row has a non-finite entry; what [`SphereProxy::validate`] rejects.
    ///
    /// # Performance
    /// O(S · E), no allocation once the outputs have capacity.
    pub fn blend_dense_into(
        &self,
        example_weights: &[f32],
        centres: &mut Vec<Vec3>,
        radii: &mut Vec<f32>,
    ) -> Result<()> {
        self.validate()?;
        let (n, e_count) = (self.rest.len(), self.example_count);
        if example_weights.len() != self.vertex_count * e_count {
            return Err(DeformError::LengthMismatch {
                what: "dense example weights (vertices × examples)",
                expected: self.vertex_count * e_count,
                actual: example_weights.len(),
            });
        }
        if let Some(&v) = self.sphere_vertex.iter().find(|&&v| {
            let row = &example_weights[v as usize * e_count..(v as usize + 1) * e_count];
            !row.iter().all(|w| w.is_finite())
        }) {
            return Err(DeformError::NonFiniteWeight {
                vertex: v as usize,
                slot: 0,
            });
        }
        centres.clear();
        radii.clear();
        for (s, &v) in self.sphere_vertex.iter().enumerate() {
            let row = &example_weights[v as usize * e_count..(v as usize + 1) * e_count];
            let (mut c, mut r) = (Vec3::ZERO, 0.0);
            for (e, &w) in row.iter().enumerate() {
                c += w * self.centres[e * n + s];
                r += w * self.radii[e * n + s];
            }
            centres.push(c);
            radii.push(r);
        }
        Ok(())
    }

    /// Blends every sphere with the same example weights (`weights[e]` for example `e`; finite,
    /// `≥ 0`, summing to one within [`ConvexWeights::SUM_TOLERANCE`], renormalised).
    ///
    /// # Errors
    /// [`DeformError::InvalidGlobalWeight`] for a wrong length, a negative or non-finite weight
    /// or a sum off by more than the tolerance; what [`SphereProxy::validate`] rejects.
    ///
    /// # Performance
    /// O(S · E).
    pub fn blend_global_into(
        &self,
        weights: &[f32],
        centres: &mut Vec<Vec3>,
        radii: &mut Vec<f32>,
    ) -> Result<()> {
        self.validate()?;
        let sum = check_global_weights(weights, self.example_count)?;
        let n = self.rest.len();
        centres.clear();
        radii.clear();
        centres.resize(n, Vec3::ZERO);
        radii.resize(n, 0.0);
        for (e, &w) in weights.iter().enumerate() {
            if w == 0.0 {
                continue;
            }
            let w = w / sum;
            for s in 0..n {
                centres[s] += w * self.centres[e * n + s];
                radii[s] += w * self.radii[e * n + s];
            }
        }
        Ok(())
    }

    fn check_weight_shape(&self, weights: &ConvexWeights) -> Result<()> {
        if weights.governor_count() != self.example_count {
            return Err(DeformError::LengthMismatch {
                what: "example weight columns (one per example)",
                expected: self.example_count,
                actual: weights.governor_count(),
            });
        }
        if weights.vertex_count() != self.vertex_count {
            return Err(DeformError::LengthMismatch {
                what: "example weight rows (one per rest vertex)",
                expected: self.vertex_count,
                actual: weights.vertex_count(),
            });
        }
        Ok(())
    }
}

/// Validates a global example-weight vector and returns its sum.
pub(crate) fn check_global_weights(weights: &[f32], example_count: usize) -> Result<f32> {
    if weights.len() != example_count {
        return Err(DeformError::InvalidGlobalWeight {
            what: "example",
            slot: weights.len(),
            value: weights.len() as f32,
            reason: "one weight per example is required",
        });
    }
    for (slot, &value) in weights.iter().enumerate() {
        if !(value.is_finite() && value >= 0.0) {
            return Err(DeformError::InvalidGlobalWeight {
                what: "example",
                slot,
                value,
                reason: "weights must be finite and non-negative",
            });
        }
    }
    let sum: f32 = weights.iter().sum();
    if (sum - 1.0).abs() > ConvexWeights::SUM_TOLERANCE {
        return Err(DeformError::InvalidGlobalWeight {
            what: "example",
            slot: weights.len(),
            value: sum,
            reason: "weights must sum to 1",
        });
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::tests_support::small_proxy;

    #[test]
    fn one_hot_weights_give_the_example_spheres() {
        let (proxy, mesh) = small_proxy();
        let mut c = Vec::new();
        let mut r = Vec::new();
        for e in 0..proxy.example_count() {
            let rows = (0..mesh.vertex_count()).map(|_| vec![(e as u32, 1.0)]);
            let w = ConvexWeights::from_rows(rows, proxy.example_count()).unwrap();
            proxy.blend_into(&w, &mut c, &mut r).unwrap();
            assert_eq!(c, proxy.example_centres(e));
            assert_eq!(r, proxy.example_radii(e));
            let mut one_hot = vec![0.0; proxy.example_count()];
            one_hot[e] = 1.0;
            proxy.blend_global_into(&one_hot, &mut c, &mut r).unwrap();
            assert_eq!(r, proxy.example_radii(e));
        }
    }

    #[test]
    fn uniform_per_vertex_weights_equal_the_global_blend() {
        let (proxy, mesh) = small_proxy();
        let w = [0.2, 0.5, 0.3];
        let rows = (0..mesh.vertex_count()).map(|_| (0..3u32).zip(w).collect::<Vec<_>>());
        let per_vertex = ConvexWeights::from_rows(rows, 3).unwrap();
        let (mut c1, mut r1, mut c2, mut r2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        proxy.blend_into(&per_vertex, &mut c1, &mut r1).unwrap();
        proxy.blend_global_into(&w, &mut c2, &mut r2).unwrap();
        for s in 0..proxy.sphere_count() {
            assert!((c1[s] - c2[s]).length() < 1e-5);
            assert!((r1[s] - r2[s]).abs() < 1e-6);
            // Closed form.
            let exact: f32 = (0..3).map(|e| w[e] * proxy.example_radii(e)[s]).sum();
            assert!((r1[s] - exact).abs() < 1e-6);
        }
    }

    #[test]
    fn dense_rows_equal_sparse_rows() {
        let (proxy, mesh) = small_proxy();
        let n = mesh.vertex_count();
        let mut dense = Vec::with_capacity(3 * n);
        let rows: Vec<Vec<(u32, f32)>> = (0..n)
            .map(|v| {
                let a = (v % 5) as f32 / 5.0;
                let row = [a, 0.5 * (1.0 - a), 0.5 * (1.0 - a)];
                dense.extend_from_slice(&row);
                (0..3u32).zip(row).collect()
            })
            .collect();
        let sparse = ConvexWeights::from_rows(rows, 3).unwrap();
        let (mut c1, mut r1, mut c2, mut r2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        proxy.blend_into(&sparse, &mut c1, &mut r1).unwrap();
        proxy.blend_dense_into(&dense, &mut c2, &mut r2).unwrap();
        for s in 0..proxy.sphere_count() {
            assert!((c1[s] - c2[s]).length() < 1e-5 && (r1[s] - r2[s]).abs() < 1e-6);
        }
        assert!(matches!(
            proxy.blend_dense_into(&dense[1..], &mut c2, &mut r2),
            Err(DeformError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn shape_mismatches_are_typed() {
        let (proxy, mesh) = small_proxy();
        let (mut c, mut r) = (Vec::new(), Vec::new());
        let two_columns =
            ConvexWeights::from_rows((0..mesh.vertex_count()).map(|_| vec![(0, 1.0)]), 2).unwrap();
        assert!(matches!(
            proxy.blend_into(&two_columns, &mut c, &mut r),
            Err(DeformError::LengthMismatch {
                expected: 3,
                actual: 2,
                ..
            })
        ));
        let few_rows = ConvexWeights::from_rows([vec![(0, 1.0)]], 3).unwrap();
        assert!(matches!(
            proxy.blend_into(&few_rows, &mut c, &mut r),
            Err(DeformError::LengthMismatch { actual: 1, .. })
        ));
        for bad in [
            vec![0.5, 0.5],
            vec![0.5, 0.7, -0.2],
            vec![0.5, 0.6, 0.3],
            vec![f32::NAN, 0.5, 0.5],
        ] {
            assert!(matches!(
                proxy.blend_global_into(&bad, &mut c, &mut r),
                Err(DeformError::InvalidGlobalWeight { .. })
            ));
        }
    }
}
