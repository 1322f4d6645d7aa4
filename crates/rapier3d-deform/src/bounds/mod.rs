//! Conservative bounds of deformed patches: AABBs, normal bounds, discrete normal cones, OBBs.
//!
//! All bounds of a patch are computed from its governors in O(m), following Steinemann & Otaduy
//! (limited convex combinations) for AABBs and Schvartzman, Gascón & Otaduy 2009 (BN-Tree §3)
//! for normals.

mod limited_convex;

pub use limited_convex::{
    LimitedConvexWorkspace, WeightedTerm, limited_convex_bound, limited_convex_max,
    limited_convex_min, limited_convex_range,
};
mod normal_cone;
mod obb;
mod patch;

pub use normal_cone::NormalCone;
pub use obb::Obb;
pub use patch::{BoundsWorkspace, PatchBounds};
mod hierarchy;

pub use hierarchy::{PatchHierarchy, PatchNode};
pub mod validation;
