//! Reduced deformation models: governors (affine transforms) and the sparse convex weights that blend them.
//!
//! Every deformer writes a vertex as `p = Σ_k w_k (A_k p0 + t_k)` (BN-Tree, Schvartzman et al. 2009,
//! eq. 4; Steinemann & Otaduy's limited convex combinations). [`GovernedDeformation`] is that
//! contract; each file here is one deformer that fulfils it.

mod affine;
mod example_blend;
pub(crate) mod governed;
mod loop_subdivision;
mod morph_targets;
mod point_based;
mod skinning;
mod weights;

pub use affine::Affine;
pub use example_blend::ExampleBlend;
pub use governed::{
    GovernedDeformation, deform_vertex, deform_vertices, validate_governors, validate_positions,
};
pub use loop_subdivision::{LoopSubdivision, MAX_LOOP_LEVELS};
pub use morph_targets::{MorphExamples, MorphKind, MorphPatchBounds, MorphTargets};
pub use point_based::{PointBasedAnimation, point_kernel};
pub use skinning::LinearBlendSkinning;
pub use weights::ConvexWeights;
pub(crate) use weights::check_row as check_convex_row;
