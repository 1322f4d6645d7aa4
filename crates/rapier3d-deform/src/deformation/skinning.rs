//! Linear blend skinning: bones are the governors, `A_k = world_k · inverse_bind_k`.

use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights, check_governor, validate_governors};
use crate::math::{Vec3, validate_positions};

/// Linear blend skinning (LBS) with any number of influences per vertex.
///
/// A vertex is `p = Σ_b w_b (W_b B_b⁻¹) p0` where `W_b` is bone `b`'s world transform and `B_b⁻¹`
/// its inverse bind transform; the governor of bone `b` is `W_b B_b⁻¹`.
///
/// # Performance
/// [`LinearBlendSkinning::set_bone_transforms`] is O(bones); evaluating all vertices is O(influences).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct LinearBlendSkinning {
    rest: Vec<Vec3>,
    weights: ConvexWeights,
    inverse_bind: Vec<Affine>,
    governors: Vec<Affine>,
}

impl LinearBlendSkinning {
    /// Builds a skin; the initial pose is the bind pose (governors = identity).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the weight rows or the inverse binds do not match the
    /// vertex and bone counts, [`DeformError::NonFinitePosition`], [`DeformError::PositionOutOfRange`],
    /// [`DeformError::NonFiniteTransform`], [`DeformError::TransformOutOfRange`].
    pub fn new(rest: Vec<Vec3>, weights: ConvexWeights, inverse_bind: Vec<Affine>) -> Result<Self> {
        if rest.is_empty() {
            return Err(DeformError::Empty {
                what: "rest positions",
            });
        }
        if weights.vertex_count() != rest.len() {
            return Err(DeformError::LengthMismatch {
                what: "weight rows",
                expected: rest.len(),
                actual: weights.vertex_count(),
            });
        }
        validate_positions("vertex", &rest)?;
        validate_governors(&inverse_bind, weights.governor_count())?;
        let governors = vec![Affine::IDENTITY; inverse_bind.len()];
        Ok(Self {
            rest,
            weights,
            inverse_bind,
            governors,
        })
    }

    /// Number of bones.
    pub fn bone_count(&self) -> usize {
        self.inverse_bind.len()
    }

    /// Inverse bind transforms.
    pub fn inverse_bind(&self) -> &[Affine] {
        &self.inverse_bind
    }

    /// Poses the skin from bone world transforms.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFiniteTransform`] or
    /// [`DeformError::TransformOutOfRange`] (for a bone transform or for its product with the
    /// inverse bind); the pose is left unchanged on error.
    ///
    /// # Performance
    /// O(bones): each bone checked, composed with its inverse bind once (twice beyond 64
    /// bones), the product checked.
    pub fn set_bone_transforms(&mut self, world: &[Affine]) -> Result<()> {
        validate_governors(world, self.inverse_bind.len())?;
        // The products are what the skin stores: each must be in range too (two transforms
        // within the limits can compose to one beyond them). Checked before anything changes:
        // up to `STACK_BONES` products are composed once on the stack, more twice.
        const STACK_BONES: usize = 64;
        if world.len() <= STACK_BONES {
            let mut products = [Affine::IDENTITY; STACK_BONES];
            for (bone, ((p, w), ib)) in products
                .iter_mut()
                .zip(world)
                .zip(&self.inverse_bind)
                .enumerate()
            {
                *p = w.compose(ib);
                check_governor(bone, p)?;
            }
            self.governors.copy_from_slice(&products[..world.len()]);
            return Ok(());
        }
        for (bone, (w, ib)) in world.iter().zip(&self.inverse_bind).enumerate() {
            check_governor(bone, &w.compose(ib))?;
        }
        for ((g, w), ib) in self.governors.iter_mut().zip(world).zip(&self.inverse_bind) {
            *g = w.compose(ib);
        }
        Ok(())
    }

    /// Sets the skinning transforms (`world · inverse_bind`) directly.
    ///
    /// # Errors
    /// As [`LinearBlendSkinning::set_bone_transforms`].
    pub fn set_skinning_transforms(&mut self, governors: &[Affine]) -> Result<()> {
        validate_governors(governors, self.inverse_bind.len())?;
        self.governors.copy_from_slice(governors);
        Ok(())
    }
}

governed_by_fields!(LinearBlendSkinning);
