//! The one idea under everything: vertices as convex combinations of governor transforms, and their O(n) evaluation.

use super::{Affine, ConvexWeights};
use crate::error::{DeformError, Result};
use crate::math::Vec3;

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

/// `out[v] = Σ_k w_vk (A_k rest[v] + t_k)` for every vertex.
///
/// # Performance
/// O(total influences).
pub fn deform_vertices(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[Affine],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    out.extend((0..rest.len()).map(|v| deform_vertex(rest, weights, governors, v)));
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

/// Rejects governor arrays of the wrong length or with non-finite entries.
///
/// # Errors
/// [`DeformError::LengthMismatch`] or [`DeformError::NonFiniteTransform`].
pub fn validate_governors(governors: &[Affine], expected: usize) -> Result<()> {
    if governors.len() != expected {
        return Err(DeformError::LengthMismatch {
            what: "governor transforms",
            expected,
            actual: governors.len(),
        });
    }
    if let Some(governor) = governors.iter().position(|g| !g.is_finite()) {
        return Err(DeformError::NonFiniteTransform { governor });
    }
    Ok(())
}

/// Rejects non-finite positions.
///
/// # Errors
/// [`DeformError::NonFinitePosition`] naming the first bad index.
pub fn validate_positions(what: &'static str, positions: &[Vec3]) -> Result<()> {
    match positions.iter().position(|p| !p.is_finite()) {
        Some(index) => Err(DeformError::NonFinitePosition { what, index }),
        None => Ok(()),
    }
}
