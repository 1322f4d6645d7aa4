//! Conservative bounds of deformed patches: AABBs, normal bounds, discrete normal cones, OBBs and morph-target bounds.
//!
//! All bounds of a patch are computed from its governors in O(m), following Steinemann & Otaduy
//! (limited convex combinations) for AABBs and Schvartzman, Gascón & Otaduy 2009 (BN-Tree §3)
//! for normals. The brute-force checkers these bounds are tested against are in
//! [`crate::validation`].
//!
//! | file | bound |
//! |---|---|
//! | `limited_convex.rs` | the limited-convex-combination LP (AABBs of convex blends) |
//! | `normal_cone.rs` | [`NormalCone`], the discrete normal cone |
//! | `patch.rs` | [`PatchBounds`]: a patch's O(m) AABB and normal bound |
//! | `hierarchy.rs` | [`PatchHierarchy`]: a tree of [`PatchBounds`] refit top-down on demand |
//! | `obb.rs` | [`Obb`], oriented boxes (per-bone avatar OBBs) |
//! | `morph_targets.rs` | [`MorphPatchBounds`]: O(sources) bounds of morphed patches |
//! | `morph_margin.rs` | [`MorphMarginBounds`]: how far morph targets applied before a skin move a patch |

mod hierarchy;
mod limited_convex;
mod morph_margin;
mod morph_targets;
mod normal_cone;
mod obb;
mod patch;

pub(crate) use hierarchy::patch_triangles;
pub use hierarchy::{PatchHierarchy, PatchNode};
pub use limited_convex::{
    LimitedConvexWorkspace, WeightedTerm, limited_convex_bound, limited_convex_max,
    limited_convex_min, limited_convex_range,
};
pub use morph_margin::MorphMarginBounds;
pub use morph_targets::{MorphKind, MorphPatchBounds};
pub use normal_cone::NormalCone;
pub use obb::Obb;
pub use patch::{BoundsWorkspace, PatchBounds};
