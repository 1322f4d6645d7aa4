//! The skinned route: a game's character as one deformable Rapier collider, posed once per step.

mod collider;

pub use collider::{ClipTime, SkinnedCollider, SkinnedColliderBuilder};
