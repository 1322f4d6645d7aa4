//! The skinned route (characters): a game's character as one deformable Rapier collider, posed once per step in O(m), its self-collisions found on request.
//!
//! [`SkinnedCollider`] (built by [`SkinnedColliderBuilder`], from a glTF skin in one call) owns
//! its skin, its BN-Tree and its handles; [`SkinnedCollider::play`] poses it from a clip time,
//! [`SkinnedCollider::pose_bones`] from the game's own bone transforms. Underneath, and for
//! colliders built by hand:
//!
//! A [`crate::shape::DeformableMeshShape`] collider driven by the game (bone transforms of a
//! skinned character, example transforms × bones) is posed once per step with
//! [`pose_deformable_mesh`]: O(m), every side effect of Rapier's `SHAPE` flag O(1) for this
//! shape (the function's documentation lists them). Its self-collisions are found, once per
//! step, by [`DeformableMeshSelfCollisions`] (one reusable BN-Tree query per mesh):
//!
//! ```text
//! pose_deformable_mesh(&mut world.colliders, cat, &bones)?;   // O(m)
//! world.step();
//! self_collisions.update(&world.colliders)?;
//! for [t1, t2] in self_collisions.pairs(cat)? { … }
//! ```
//!
//! | file | step |
//! |---|---|
//! | `collider.rs` | [`SkinnedCollider`], [`SkinnedColliderBuilder`]: the collider a game holds |
//! | `pose.rs` | [`pose_deformable_mesh`]: new governors through Rapier's `SHAPE` flag |
//! | `self_collisions.rs` | [`DeformableMeshSelfCollisions`]: one BN-Tree query per registered mesh |

mod collider;
mod pose;
mod self_collisions;

pub use collider::{ClipTime, SkinnedCollider, SkinnedColliderBuilder};
pub use pose::{MeshPoseUpdate, pose_deformable_mesh, pose_deformable_mesh_with_morphs};
pub use self_collisions::DeformableMeshSelfCollisions;
