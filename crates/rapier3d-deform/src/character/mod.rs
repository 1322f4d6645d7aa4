//! The skinned route (characters): the per-step calls for [`DeformableMeshShape`](crate::shape::DeformableMeshShape) colliders driven by the game — pose the governors in O(m), find the mesh's self-collisions once per step.
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
//! | `pose.rs` | [`pose_deformable_mesh`]: new governors through Rapier's `SHAPE` flag |
//! | `self_collisions.rs` | [`DeformableMeshSelfCollisions`]: one BN-Tree query per registered mesh |

mod pose;
mod self_collisions;

pub use pose::{MeshPoseUpdate, pose_deformable_mesh};
pub use self_collisions::DeformableMeshSelfCollisions;
