//! The skinned route (characters): a game's character as one deformable Rapier collider, posed once per step in O(m), its self-collisions found on request.
//!
//! [`SkinnedCollider`] (built by [`SkinnedColliderBuilder`], from a glTF skin or a whole glTF
//! scene in one call: [`SkinnedColliderBuilder::from_scene`]) owns its skin, its morph targets,
//! its BN-Tree and its handles; [`SkinnedCollider::play`] and [`SkinnedCollider::pose`] pose it
//! from a clip time (looping or clamping), [`SkinnedCollider::pose_rest`] and
//! [`SkinnedCollider::pose_bind`] without a clip, [`SkinnedCollider::pose_bones`] and
//! [`SkinnedCollider::pose_nodes`] from the game's own transforms,
//! [`SkinnedCollider::set_morph_weights`] from its morph weights. A crowd is posed in one call,
//! [`SkinnedCollider::pose_clips`], which samples every character's clip on rayon's threads with
//! the `parallel` feature. Underneath, and for colliders built by hand:
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
//! A moving surface pushes and carries what it touches with [`SurfaceVelocityHooks`] (the
//! governors' velocities between two consecutive poses):
//!
//! ```text
//! hooks.track(&mut world.colliders, character.collider())?;     // once
//! character.play(&mut world.colliders, "Walk", t)?;             // each step
//! hooks.update(&world.colliders, dt)?;
//! world.step_with_events(&hooks, &());
//! hooks.apply_normal_velocities(&mut world);
//! ```
//!
//! | file | step |
//! |---|---|
//! | `collider.rs` | [`SkinnedCollider`], [`SkinnedColliderBuilder`]: the collider a game holds; [`ClipPose`]: one character's clip time for [`SkinnedCollider::pose_clips`] |
//! | `pose.rs` | [`pose_deformable_mesh`], [`pose_deformable_mesh_with_morphs`]: new governors (and morph weights) through Rapier's `SHAPE` flag |
//! | `self_collisions.rs` | [`DeformableMeshSelfCollisions`]: one BN-Tree query per registered mesh |
//! | `surface_velocity.rs` | [`SurfaceVelocityHooks`]: the surface's velocity at each contact from two consecutive poses, given to Rapier's solver (tangential part, `PhysicsHooks`) and to the bodies it catches (normal part) |

mod collider;
mod pose;
mod self_collisions;
mod surface_velocity;

pub use collider::{ClipPose, ClipTime, SkinnedCollider, SkinnedColliderBuilder};
pub use pose::{MeshPoseUpdate, pose_deformable_mesh, pose_deformable_mesh_with_morphs};
pub use self_collisions::DeformableMeshSelfCollisions;
pub use surface_velocity::SurfaceVelocityHooks;
