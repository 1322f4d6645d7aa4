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
//! | [`scenes`] | procedural assets shared by examples, tests and benchmarks |
#![warn(missing_docs)]

pub mod bounds;
pub mod deformation;
pub mod error;
pub mod math;
pub mod mesh;
pub mod scenes;

pub use error::{DeformError, Result};

/// Re-export of the Rapier version this crate is built against.
pub use rapier3d;
