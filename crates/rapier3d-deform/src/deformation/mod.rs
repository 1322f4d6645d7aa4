//! The deformers: linear blend skinning, example blend, morph targets, point-based animation (MLS) and Loop subdivision surfaces.
//!
//! Each file is one deformer. All but the morph targets fulfil
//! [`GovernedDeformation`](crate::governor::GovernedDeformation): they write a vertex as
//! `p = Σ_k w_k (A_k p0 + t_k)` over [`Affine`](crate::governor::Affine) governors and
//! [`ConvexWeights`](crate::governor::ConvexWeights). Their patch bounds are in [`crate::bounds`].

/// Implements [`GovernedDeformation`](crate::governor::GovernedDeformation) for a deformer that
/// keeps its rest positions, weights and current governors in the fields `rest`, `weights` and
/// `governors`.
macro_rules! governed_by_fields {
    ($deformer:ty) => {
        impl $crate::governor::GovernedDeformation for $deformer {
            fn rest_positions(&self) -> &[$crate::math::Vec3] {
                &self.rest
            }
            fn weights(&self) -> &$crate::governor::ConvexWeights {
                &self.weights
            }
            fn governors(&self) -> &[$crate::governor::Affine] {
                &self.governors
            }
        }
    };
}

mod example_blend;
mod loop_subdivision;
mod morph_deltas;
mod morph_targets;
mod point_based;
mod skinning;

pub use example_blend::ExampleBlend;
pub(crate) use loop_subdivision::loop_beta;
#[cfg(test)]
pub(crate) use loop_subdivision::tests::octahedron;
pub use loop_subdivision::{LoopSubdivision, MAX_LOOP_LEVELS};
pub use morph_deltas::{MorphDeltas, MorphGroup};
pub(crate) use morph_targets::check_target_weights;
#[cfg(test)]
pub(crate) use morph_targets::fixtures as morph_fixtures;
pub use morph_targets::{MorphExamples, MorphTargets};
pub use point_based::{PointBasedAnimation, point_kernel};
pub use skinning::LinearBlendSkinning;
