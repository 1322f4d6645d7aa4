//! Deformable colliders for [Rapier](https://rapier.rs) driven by reduced deformations.
//!
//! Skinned characters, cars that dent plastically from artist-authored damage examples,
//! point-based animation and subdivision surfaces: their vertices are convex combinations of a few
//! *governor* transforms,
//!
//! ```text
//! p = Σ_k w_k (A_k p0 + t_k),   w_k ≥ 0,  Σ_k w_k = 1
//! ```
//!
//! so a patch of the mesh can be bounded (AABB and normal cone) in O(m) in the number of
//! governors that touch it, never O(vertices). Everything in the crate is built on that.
//!
//! | module | what it holds |
//! |---|---|
//! | [`math`] | conservative interval arithmetic over `f32` |
//! | [`mesh`] | validated indexed triangle meshes |
//! | [`deformation`] | governors, convex weights and the deformers |
//! | [`bounds`] | O(m) AABBs (limited convex combinations) and normal bounds (BN-Tree) |
//! | [`io`] | glTF (skins, animations, morph targets) and OBJ loaders with load reports |
//! | [`proxy`] | sphere-union proxies of example-based deformable bodies (Jones et al. 2017) |
//! | [`shape`] | the parry shapes Rapier colliders use |
//! | [`query`] | the narrow-phase dispatcher for pairs involving the crate's shapes |
//! | [`plasticity`] | example-based plastic deformation from contact impulses (Jones et al. 2016) |
//! | [`pipeline`] | the per-step loop: impulses → plasticity → proxies, shapes, mass properties, dent events |
//! | [`self_collision`] | exact triangle tests and the brute-force oracle |
#![warn(missing_docs)]

pub mod bn_tree;
pub mod bounds;
pub mod character;
pub mod deformation;
pub mod error;
pub mod io;
pub mod math;
pub mod mesh;
pub mod pipeline;
pub mod plasticity;
pub mod prelude;
pub mod proxy;
pub mod query;
pub mod self_collision;
pub mod shape;

pub use error::{DeformError, Result};

/// Re-export of the Rapier version this crate is built against.
pub use rapier3d;
