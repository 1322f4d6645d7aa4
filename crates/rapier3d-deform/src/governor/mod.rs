//! Governors and their weights, the base every deformer and bound is built on: affine transforms `A p + t`, sparse convex weights, and the evaluation `p = Σ_k w_k (A_k p0 + t_k)`.
//!
//! Every deformer of [`crate::deformation`] writes a vertex as `p = Σ_k w_k (A_k p0 + t_k)`
//! (BN-Tree, Schvartzman et al. 2009, eq. 4; Steinemann & Otaduy's limited convex combinations).
//! [`GovernedDeformation`] is that contract; [`crate::bounds`] turns the governors of a patch into
//! boxes and normal bounds in O(m).
//!
//! | file | holds |
//! |---|---|
//! | `affine.rs` | [`Affine`], one governor |
//! | `weights.rs` | [`ConvexWeights`] and the validation of weight rows |
//! | `governed.rs` | [`GovernedDeformation`], [`deform_vertex`], [`deform_vertices`], [`validate_governors`] |

mod affine;
mod governed;
mod weights;

pub use affine::Affine;
pub use governed::{
    GovernedDeformation, check_governor, check_rest_and_weights, deform_vertex, deform_vertices,
    validate_governors,
};
pub(crate) use governed::{
    WideAffine, blend_wide, blend_wide_a, deform_vertex_wide, widen_governors,
};
pub use weights::ConvexWeights;
pub(crate) use weights::{check_global_row, check_row, check_rows};
