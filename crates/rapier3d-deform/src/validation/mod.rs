//! Oracles for tests: the brute-force self-collision finder and the brute-force checkers of the O(m) bounds, documented as such.
//!
//! Nothing in the per-step routes calls these: they are the independent, slow references the
//! crate's fast methods are tested against, exported so that users can test their own setups
//! (a custom deformer, a new asset) the same way.
//!
//! | item | checks |
//! |---|---|
//! | [`self_collisions_brute_force`] | every self-collision of a deformed mesh (sort and sweep, exact test): the reference of [`crate::bn_tree`] and of a deformable mesh collider's self-check |
//! | [`count_aabb_violations`], [`exact_aabb`] | deformed vertices outside a patch's AABB ([`crate::bounds::PatchBounds::aabb`]) |
//! | [`count_cone_violations`], [`exact_cone`] | deformed normals outside a patch's normal cone ([`crate::bounds::PatchBounds::normal_cone`]) |

mod bounds;
mod self_collisions;

pub use bounds::{count_aabb_violations, count_cone_violations, exact_aabb, exact_cone};
pub use self_collisions::self_collisions_brute_force;
