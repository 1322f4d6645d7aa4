//! The one idea under everything: vertices as convex combinations of governor transforms, the contract every deformer fulfils, and their O(n) evaluation.

use super::{Affine, ConvexWeights};
use crate::error::{DeformError, Result};
use crate::limits::{MAX_COORDINATE, MAX_LINEAR, MIN_LINEAR};
use crate::math::Vec3;
use rapier3d::parry::glamx::Vec3A;

/// A reduced deformation in the form of BN-Tree eq. (4):
/// `p = Σ_k w_k (A_k p0 + t_k)`, `w_k ≥ 0`, `Σ w_k = 1`.
///
/// Every deformer of the crate implements it: linear blend skinning (governors = bones),
/// example blend (governors = example × bone), point-based animation (particles) and Loop
/// subdivision (control points). [`crate::bounds`] turns the governors of a patch into an AABB and
/// a normal bound in O(m), never touching the patch's vertices.
pub trait GovernedDeformation {
    /// Rest positions `p0` of the deformed vertices.
    fn rest_positions(&self) -> &[Vec3];
    /// The convex weights of every vertex.
    fn weights(&self) -> &ConvexWeights;
    /// The current governor transforms (indexed like the weights' governors).
    fn governors(&self) -> &[Affine];

    /// Evaluates every deformed vertex: the O(n) reference the bounds are checked against.
    ///
    /// # Performance
    /// O(total influences).
    fn deform_into(&self, out: &mut Vec<Vec3>) {
        deform_vertices(self.rest_positions(), self.weights(), self.governors(), out);
    }

    /// Convenience: [`GovernedDeformation::deform_into`] into a new vector.
    fn deformed_positions(&self) -> Vec<Vec3> {
        let mut out = Vec::new();
        self.deform_into(&mut out);
        out
    }
}

/// `out[v] = Σ_k w_vk (A_k rest[v] + t_k)` for every vertex, bit-identical to
/// [`deform_vertex`] (evaluated with 4-lane vectors: the same operations in the same order).
///
/// # Performance
/// O(total influences), no allocation beyond `out`'s growth.
pub fn deform_vertices(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[Affine],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    // Up to 64 governors (4 KiB) on the stack; more (rare) take the scalar path.
    const STACK_GOVERNORS: usize = 64;
    if governors.len() <= STACK_GOVERNORS {
        let mut wide = [[Vec3A::ZERO; 4]; STACK_GOVERNORS];
        for (w, g) in wide.iter_mut().zip(governors) {
            *w = widen(g);
        }
        let wide = &wide[..governors.len()];
        out.extend((0..rest.len()).map(|v| deform_vertex_wide(rest, weights, wide, v)));
    } else {
        out.extend((0..rest.len()).map(|v| deform_vertex(rest, weights, governors, v)));
    }
}

/// One deformed vertex, `Σ_k w_vk (A_k rest[v] + t_k)`, bit-identical to the entry that
/// [`deform_vertices`] computes (lazy evaluators rely on that).
///
/// # Performance
/// O(influences of `v`).
#[inline]
pub fn deform_vertex(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[Affine],
    v: usize,
) -> Vec3 {
    let p0 = rest[v];
    let mut p = Vec3::ZERO;
    for (g, w) in weights.iter_row(v) {
        p += w * governors[g as usize].transform_point(p0);
    }
    p
}

/// A governor laid out for SSE: the columns of `A` and `t` as 4-lane vectors.
pub(crate) type WideAffine = [Vec3A; 4];

/// `governors` converted to [`WideAffine`] (O(m), once per frame by bulk deformers).
pub(crate) fn widen_governors(governors: &[Affine], out: &mut Vec<WideAffine>) {
    out.clear();
    out.extend(governors.iter().map(widen));
}

/// One governor as [`WideAffine`].
#[inline]
fn widen(g: &Affine) -> WideAffine {
    [
        Vec3A::from(g.linear.x_axis),
        Vec3A::from(g.linear.y_axis),
        Vec3A::from(g.linear.z_axis),
        Vec3A::from(g.translation),
    ]
}

/// [`deform_vertex`] with 4-lane vectors: the same operations in the same order per component
/// (`A p = a_x p_x + a_y p_y + a_z p_z`, then `+ t`, `· w`, accumulated), so bit-identical.
///
/// # Performance
/// O(influences of `v`), about a third of the scalar instructions.
#[inline]
pub(crate) fn deform_vertex_wide(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[WideAffine],
    v: usize,
) -> Vec3 {
    blend_wide(rest[v], weights.iter_row(v), governors)
}

/// `Σ w · (A_g p0 + t_g)` over `influences` with 4-lane vectors, in [`deform_vertex`]'s order
/// of operations (bit-identical to it for the same influences in the same order).
///
/// # Performance
/// O(influences).
#[inline]
pub(crate) fn blend_wide(
    p0: Vec3,
    influences: impl Iterator<Item = (u32, f32)>,
    governors: &[WideAffine],
) -> Vec3 {
    blend_wide_a(p0, influences, governors).into()
}

/// [`blend_wide`] kept as a 4-lane vector (bit-identical lanes), for loops that go on with it.
///
/// # Performance
/// O(influences).
#[inline]
pub(crate) fn blend_wide_a(
    p0: Vec3,
    influences: impl Iterator<Item = (u32, f32)>,
    governors: &[WideAffine],
) -> Vec3A {
    let (x, y, z) = (Vec3A::splat(p0.x), Vec3A::splat(p0.y), Vec3A::splat(p0.z));
    let mut p = Vec3A::ZERO;
    for (g, w) in influences {
        let [ax, ay, az, t] = governors[g as usize];
        p += w * (ax * x + ay * y + az * z + t);
    }
    p
}

/// Checks the rest positions and weights a governed mesh is built from: one finite, in-range rest
/// position and one weight row per mesh vertex.
///
/// # Errors
/// [`DeformError::LengthMismatch`] for `rest` or the weight rows;
/// [`DeformError::NonFinitePosition`] / [`DeformError::PositionOutOfRange`] for a rest position.
///
/// # Performance
/// O(vertices).
pub fn check_rest_and_weights(
    mesh: &crate::mesh::TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
) -> Result<()> {
    if rest.len() != mesh.vertex_count() {
        return Err(DeformError::LengthMismatch {
            what: "rest positions",
            expected: mesh.vertex_count(),
            actual: rest.len(),
        });
    }
    crate::math::validate_positions("rest vertex", rest)?;
    if weights.vertex_count() != mesh.vertex_count() {
        return Err(DeformError::LengthMismatch {
            what: "weight rows",
            expected: mesh.vertex_count(),
            actual: weights.vertex_count(),
        });
    }
    Ok(())
}

/// Rejects governor arrays of the wrong length, with non-finite entries, or with entries beyond
/// the crate's limits ([`crate::limits::MAX_LINEAR`] for the linear part, which must also be
/// exactly zero or reach [`crate::limits::MIN_LINEAR`], [`crate::limits::MAX_COORDINATE`] for
/// the translation).
///
/// # Errors
/// [`DeformError::LengthMismatch`], [`DeformError::NonFiniteTransform`],
/// [`DeformError::TransformOutOfRange`] or [`DeformError::TransformTooSmall`], naming the first
/// bad governor.
///
/// # Performance
/// O(governors).
pub fn validate_governors(governors: &[Affine], expected: usize) -> Result<()> {
    if governors.len() != expected {
        return Err(DeformError::LengthMismatch {
            what: "governor transforms",
            expected,
            actual: governors.len(),
        });
    }
    for (governor, g) in governors.iter().enumerate() {
        check_governor(governor, g)?;
    }
    Ok(())
}

/// [`validate_governors`] for one governor, `governor` naming it in the error.
///
/// # Errors
/// [`DeformError::NonFiniteTransform`], [`DeformError::TransformOutOfRange`] or
/// [`DeformError::TransformTooSmall`] (a nonzero linear part below [`MIN_LINEAR`]).
pub fn check_governor(governor: usize, g: &Affine) -> Result<()> {
    // 4-lane columns: one finiteness mask per column, and the largest
    // magnitude is three lane-wise maxima (posing checks every governor every step).
    let [x, y, z] = [g.linear.x_axis, g.linear.y_axis, g.linear.z_axis].map(Vec3A::from);
    let t = Vec3A::from(g.translation);
    let finite = |v: Vec3A| v.is_finite_mask().all();
    if !(finite(x) && finite(y) && finite(z) && finite(t)) {
        return Err(DeformError::NonFiniteTransform { governor });
    }
    let linear = x.abs().max(y.abs()).max(z.abs()).max_element();
    if linear > MAX_LINEAR {
        return Err(DeformError::TransformOutOfRange {
            governor,
            field: "linear",
            value: linear,
            max: MAX_LINEAR,
        });
    }
    if linear > 0.0 && linear < MIN_LINEAR {
        return Err(DeformError::TransformTooSmall {
            governor,
            largest: linear,
            min: MIN_LINEAR,
        });
    }
    let translation = t.abs().max_element();
    if translation > MAX_COORDINATE {
        return Err(DeformError::TransformOutOfRange {
            governor,
            field: "translation",
            value: translation,
            max: MAX_COORDINATE,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The 4-lane deformation (and `deform_vertices`, which uses it) gives the very bits of the
    /// scalar one (lazy and bulk deformers mix them), on random weights, transforms and
    /// positions of mixed magnitudes.
    #[test]
    fn wide_deformation_is_bit_identical() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let value = |rng: &mut ChaCha8Rng| {
            let scale = [1e-3f32, 1.0, 37.0, 1e4][rng.random_range(0..4)];
            (rng.random::<f32>() * 2.0 - 1.0) * scale
        };
        let governors: Vec<Affine> = (0..12)
            .map(|_| Affine {
                linear: Mat3::from_cols_array(&core::array::from_fn(|_| value(&mut rng))),
                translation: Vec3::new(value(&mut rng), value(&mut rng), value(&mut rng)),
            })
            .collect();
        let rest: Vec<Vec3> = (0..2000)
            .map(|_| Vec3::new(value(&mut rng), value(&mut rng), value(&mut rng)))
            .collect();
        let rows: Vec<Vec<(u32, f32)>> = (0..rest.len())
            .map(|_| {
                let k = rng.random_range(1..10);
                let mut governors: Vec<u32> = (0..12).collect();
                governors.sort_by_key(|_| rng.random::<u32>());
                let raw: Vec<f32> = (0..k).map(|_| rng.random::<f32>() + 0.01).collect();
                let sum: f32 = raw.iter().sum();
                governors[..k]
                    .iter()
                    .zip(&raw)
                    .map(|(&g, &w)| (g, w / sum))
                    .collect()
            })
            .collect();
        let weights = ConvexWeights::from_rows(rows, 12).unwrap();
        let mut bulk = Vec::new();
        deform_vertices(&rest, &weights, &governors, &mut bulk);
        let mut wide = Vec::new();
        widen_governors(&governors, &mut wide);
        assert_eq!(bulk.len(), rest.len());
        for (v, from_bulk) in bulk.iter().enumerate() {
            let scalar = deform_vertex(&rest, &weights, &governors, v);
            let lanes = deform_vertex_wide(&rest, &weights, &wide, v);
            assert_eq!(
                scalar.to_array().map(f32::to_bits),
                lanes.to_array().map(f32::to_bits),
                "vertex {v}"
            );
            assert_eq!(
                scalar.to_array().map(f32::to_bits),
                from_bulk.to_array().map(f32::to_bits),
                "deform_vertices, vertex {v}"
            );
        }
    }
}
