//! Nonlinear cast of a `DeformableMeshShape` against a convex shape: conservative advancement over the mesh's lazily refit tree, one parry cast per triangle the bound cannot rule out, the earliest hit wins.

use rapier3d::math::Real;
use rapier3d::parry::query::{NonlinearRigidMotion, QueryDispatcher, ShapeCastHit};
use rapier3d::parry::shape::Shape;

use super::convex_parts::{PartCaster, ccd_min_depth};
use super::motion_bound::{ClosingBound, StartGap, reach};
use crate::shape::DeformableMeshShape;

/// The earliest hit of `mesh` (moving with `motion_mesh`) and the convex shape `other` (moving
/// with `motion_other`) in `[start_time, end_time]`, with the mesh's triangle index as
/// `subshape1`.
///
/// The mesh keeps the deformation of its current epoch for the whole interval (the deformation
/// is frozen during the cast; only the rigid motions move). A tree node, its box refit on
/// demand, is pruned when the conservative-advancement bound ([`StartGap`] over the
/// [`ClosingBound`] speed of points within the box's reach) is not earlier than the best hit so
/// far — and, in CCD mode, when the bound says the other shape cannot sink into it deeply
/// enough to count. The surviving triangles go through [`PartCaster`] (parry's support-map cast
/// with the full interval, as parry's `TriMesh` cast does), so with `stop_at_penetration` the
/// result equals that of a `TriMesh` built on the deformed vertices.
///
/// # Performance
/// O(nodes reached · m) for the refits the first time in an epoch, plus one parry nonlinear cast
/// per triangle not pruned (those the other shape's motion can reach before the best hit).
#[allow(clippy::too_many_arguments)]
pub(super) fn cast(
    caster: &PartCaster,
    motion_mesh: &NonlinearRigidMotion,
    mesh: &DeformableMeshShape,
    motion_other: &NonlinearRigidMotion,
    other: &dyn Shape,
    start_time: Real,
    end_time: Real,
    stop_at_penetration: bool,
) -> Option<ShapeCastHit> {
    let pos_mo = motion_mesh
        .position_at_time(start_time)
        .inv_mul(&motion_other.position_at_time(start_time));
    let gaps = StartGap::new(&pos_mo, other);
    let sphere = other.compute_local_bounding_sphere();
    let reach_other = (sphere.center - motion_other.local_center).length() + sphere.radius;
    let bound = ClosingBound::new(motion_mesh, motion_other, reach_other, start_time, end_time);
    // Triangles have no thickness: in CCD mode a hit counts when the other shape sinks deeper
    // than this (see `PartCaster`).
    let min_depth = ccd_min_depth(0.0, other.ccd_thickness());
    let centre = motion_mesh.local_center;
    let lower_bound = |aabb: &rapier3d::parry::bounding_volume::Aabb, best: Real| {
        let gap = gaps.lower_bound(aabb);
        let r = reach(centre, aabb);
        if !stop_at_penetration && bound.max_depth(gap, r) <= min_depth {
            return None;
        }
        let t = bound.earliest_contact(gap, r);
        (t < best).then_some(t)
    };
    mesh.find_best(end_time, lower_bound, |t, tri, best| {
        lower_bound(&tri.local_aabb(), best)?;
        let mut hit = caster
            .cast_shapes_nonlinear(
                motion_mesh,
                tri,
                motion_other,
                other,
                start_time,
                end_time,
                stop_at_penetration,
            )
            .ok()??;
        hit.subshape1 = t;
        (hit.time_of_impact < best).then_some((hit.time_of_impact, hit))
    })
}
