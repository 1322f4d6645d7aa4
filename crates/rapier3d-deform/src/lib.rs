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
//! Modules are layered: each uses only the modules above it in this table (a test of the scene
//! crate, `tests/layers.rs`, checks it).
//!
//! | module | what it holds |
//! |---|---|
//! | [`error`], [`limits`], [`math`] | typed errors; documented resource and range limits; conservative interval arithmetic over `f32`, glam types, finiteness checks |
//! | [`mesh`] | validated indexed triangle meshes, spatial vertex order |
//! | [`governor`] | governors ([`governor::Affine`]), convex weights and their validation, the evaluation `p = Σ_k w_k (A_k p0 + t_k)` |
//! | [`deformation`] | the deformers: skinning, example blend, morph targets, point-based (MLS), Loop subdivision |
//! | [`io`] | glTF (skins, animations, morph targets) and OBJ loaders with load reports |
//! | [`bounds`] | O(m) patch bounds: AABBs (limited convex combinations), normal bounds and cones (BN-Tree), OBBs, morph-target bounds |
//! | [`geometry`] | exact orientation predicates and triangle–triangle tests |
//! | [`limit_surface`] | Loop limit surfaces: eigenstructure of the local subdivision matrix, eigenbasis normal bounds of limit patches, patch hierarchy and interference detection to a tolerance (Grinspun & Schröder 2001) |
//! | [`bn_tree`] | the BN-Tree: build, lazy refit, traversal, update fronts, contour tests, self-collision queries |
//! | [`avatar`] | per-bone oriented boxes of a skinned avatar, cut into slabs and bounded conservatively each frame, for cloth–skin contacts (Pelechano 2002) |
//! | [`cloth`] | XPBD cloth whose collision stage is the avatar's per-vertex box → slab → closest-triangle test, with a continuous test (Pelechano 2002) |
//! | [`proxy`], [`plasticity`] | sphere-union proxies of example-based bodies (Jones et al. 2017); example-based plastic deformation from contact impulses (Jones et al. 2016) |
//! | [`shape`] | the parry shapes Rapier colliders use |
//! | [`query`] | the narrow-phase dispatcher for pairs involving the crate's shapes |
//! | [`crash`], [`character`] | the per-step routes: plastic bodies (impulses → plasticity → proxies, shapes, mass properties, dent events); skinned mesh colliders (pose, self-collisions, surface velocity in contacts) |
//! | `debug_render` | the crate's shapes drawn as lines through Rapier's debug-render backend (posed mesh wireframes, BN-Tree node boxes and normal cones, proxy spheres, triangle pairs, contact velocities, avatar boxes); feature `debug-render` |
//! | [`validation`] | oracles for tests: brute-force self-collisions and bound checkers |
//! | [`prelude`] | the types a game uses, in one import |
#![warn(missing_docs)]

pub mod error;
pub mod limits;
pub mod math;

pub mod mesh;

pub mod governor;

pub mod deformation;

pub mod io;

pub mod bounds;

pub mod geometry;
// Loop limit surfaces: eigenbasis normal bounds, interference detection on the limit surface.
pub mod limit_surface;

pub mod bn_tree;

pub mod avatar;
pub mod plasticity;
pub mod proxy;

pub mod cloth;

pub mod shape;

pub mod query;

pub mod character;
pub mod crash;

#[cfg(feature = "debug-render")]
pub mod debug_render;

pub mod validation;

pub mod prelude;

pub use error::{DeformError, Result};

/// Re-export of the Rapier version this crate is built against.
pub use rapier3d;
