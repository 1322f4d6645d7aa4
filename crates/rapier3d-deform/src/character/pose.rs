//! The per-step update of a `DeformableMeshShape` collider (new governors: bone transforms, or example transforms × bones) in O(m), through Rapier's `SHAPE` flag, with every side effect of that flag O(1) for this shape.

use std::sync::Arc;

use rapier3d::geometry::{ColliderHandle, ColliderSet};

use crate::error::{DeformError, Result};
use crate::governor::Affine;
use crate::shape::DeformableMeshShape;

/// What [`pose_deformable_mesh`] did.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshPoseUpdate {
    /// The collider's `SharedShape` was shared (a clone of it is alive elsewhere), so Rapier's
    /// copy-on-write made a deep copy of the shape: O(nodes + vertices) for its fresh caches,
    /// and the copy no longer shares the other handle's state. Keep the `SharedShape` of a
    /// deforming collider unique (do not clone the collider, its builder or its shape) and this
    /// stays `false`.
    pub deep_copied: bool,
}

/// Poses the [`DeformableMeshShape`] of collider `collider` with new `governors` (one per
/// governor of its tree's weights): the documented per-step route, O(m).
///
/// It calls `collider.shape_mut()` and [`DeformableMeshShape::set_governors`], which copies the
/// governors, bumps the shape's epoch (every cached node box and vertex becomes stale; nothing
/// is recomputed now) and recomputes the root box from the governors in O(m). Queries of the
/// next step refit only the nodes they reach.
///
/// `shape_mut()` sets Rapier's `ColliderChanges::SHAPE` on the collider. That flag is what makes
/// the broad phase refresh the collider's box at the *start* of the next step (otherwise Rapier
/// refreshes it only at the end of a step, and only for awake bodies, so a pose written between
/// steps would be seen one step late); Rapier 0.36 exposes no other public flag that does this
/// without also re-reading the shape. What the flag triggers, and why none of it is O(n) for
/// this shape:
///
/// | Rapier's reaction to `SHAPE` | cost for a `DeformableMeshShape` |
/// |---|---|
/// | `SharedShape::make_mut` (copy-on-write) | O(1) when the `Arc` is unique; a deep copy otherwise (reported in [`MeshPoseUpdate::deep_copied`]) |
/// | body mass properties recomputed (`Shape::mass_properties`) unless the collider has explicit ones | O(1): cached rest-pose mass properties |
/// | `compute_local_bounding_sphere`, `compute_local_aabb` (max extent, sleep metric) | O(1): the cached root box |
/// | broad-phase box (`compute_aabb`) at the start of the step | O(1): the cached root box |
/// | narrow-phase workspaces of the collider's pairs reset, no contact recycling that step | none extra: the dispatcher re-keys manifolds from the incoming list (warm starts kept), and a moving surface must not be recycled anyway |
/// | bodies touching the collider woken | O(contacts); physically right for a moving surface |
///
/// The `BENCHMARKS.md` section of the `skinned_rain` scene measures what the flag costs per step
/// (`shape_flag_ms_per_step`: the same scene with the flag set every step and the pose unchanged,
/// minus the scene without it).
///
/// # Errors
/// [`DeformError::UnknownHandle`] for a collider not in `colliders`;
/// [`DeformError::InvalidParameter`] when its shape is not a [`DeformableMeshShape`]; what
/// [`DeformableMeshShape::set_governors`] rejects (wrong length, non-finite transform), in which
/// case the shape is unchanged (the flag is still set).
///
/// # Performance
/// O(m) in the number of governors (plus a one-time deep copy of a shared shape).
pub fn pose_deformable_mesh(
    colliders: &mut ColliderSet,
    collider: ColliderHandle,
    governors: &[Affine],
) -> Result<MeshPoseUpdate> {
    update_mesh_shape(colliders, collider, |shape| shape.set_governors(governors))
}

/// [`pose_deformable_mesh`] with governors that already passed
/// [`crate::governor::validate_governors`] (a skin's): they are not checked again.
///
/// # Errors
/// As [`pose_deformable_mesh`], without the checks of the governors' values.
///
/// # Performance
/// O(m).
pub(crate) fn pose_deformable_mesh_validated(
    colliders: &mut ColliderSet,
    collider: ColliderHandle,
    governors: &[Affine],
) -> Result<MeshPoseUpdate> {
    update_mesh_shape(colliders, collider, |shape| {
        shape.set_validated_governors(governors)
    })
}

/// [`pose_deformable_mesh`] for a shape with morph targets
/// ([`DeformableMeshShape::with_morph_targets`]): new governors and morph weights in one epoch,
/// through [`DeformableMeshShape::set_pose`].
///
/// # Errors
/// As [`pose_deformable_mesh`]; what [`DeformableMeshShape::set_pose`] rejects (morph weights of
/// the wrong length or not finite), in which case the shape is unchanged.
///
/// # Performance
/// O(m + morph targets).
pub fn pose_deformable_mesh_with_morphs(
    colliders: &mut ColliderSet,
    collider: ColliderHandle,
    governors: &[Affine],
    morph_weights: &[f32],
) -> Result<MeshPoseUpdate> {
    update_mesh_shape(colliders, collider, |shape| {
        shape.set_pose(governors, morph_weights)
    })
}

/// Runs `update` on the collider's [`DeformableMeshShape`] through `shape_mut()` (which flags
/// the collider for Rapier), reporting whether the shape was shared and so deep-copied.
fn update_mesh_shape(
    colliders: &mut ColliderSet,
    collider: ColliderHandle,
    update: impl FnOnce(&mut DeformableMeshShape) -> Result<()>,
) -> Result<MeshPoseUpdate> {
    let co = colliders
        .get_mut(collider)
        .ok_or(DeformError::UnknownHandle {
            what: "collider",
            index: collider.into_raw_parts().0,
        })?;
    if co.shape().as_shape::<DeformableMeshShape>().is_none() {
        return Err(not_a_mesh());
    }
    let deep_copied = Arc::strong_count(&co.shared_shape().0) > 1;
    let shape = co
        .shape_mut()
        .as_shape_mut::<DeformableMeshShape>()
        .ok_or_else(not_a_mesh)?;
    update(shape)?;
    Ok(MeshPoseUpdate { deep_copied })
}

fn not_a_mesh() -> DeformError {
    DeformError::InvalidParameter {
        name: "collider shape",
        value: f32::NAN,
        reason: "the collider's shape is not a DeformableMeshShape",
    }
}
