//! Nonlinear cast of a `SphereProxyShape` against any shape: conservative advancement over the proxy's BVH, one cast per ball the bound cannot rule out (recursing through `PartCaster`), the earliest hit wins.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::query::{NonlinearRigidMotion, QueryDispatcher, ShapeCastHit};
use rapier3d::parry::shape::{Ball, Shape};

use super::convex_parts::{CCD_DEPTH_FRACTION, PartCaster};
use super::motion_bound::{ClosingBound, StartGap, reach};
use crate::shape::SphereProxyShape;

/// The earliest hit of `proxy` (moving with `motion_proxy`) and `other` (moving with
/// `motion_other`) in `[start_time, end_time]`, with the ball's index as `subshape1`.
///
/// Ball `i` is cast as parry casts a part of a `Compound`: `Ball::new(r_i)` moving with
/// `motion_proxy.prepend(Pose::from_translation(c_i))`, the hit brought back to the proxy's frame
/// with `transform1_by`. The other shape can be anything [`PartCaster`] splits into convex
/// parts (a convex shape, a parry composite, voxels, a deformable mesh, another proxy). The
/// spheres are those of the proxy now (frozen during the cast). BVH nodes and balls are pruned
/// when the conservative-advancement bound ([`StartGap`] over the [`ClosingBound`] speed) is not
/// earlier than the best hit so far, and in CCD mode when no ball inside can sink deeply enough
/// into the other shape to count.
///
/// # Performance
/// O(log S) per ball reached plus one cast per ball not pruned.
#[allow(clippy::too_many_arguments)]
pub(super) fn cast(
    caster: &PartCaster,
    motion_proxy: &NonlinearRigidMotion,
    proxy: &SphereProxyShape,
    motion_other: &NonlinearRigidMotion,
    other: &dyn Shape,
    start_time: Real,
    end_time: Real,
    stop_at_penetration: bool,
) -> Option<ShapeCastHit> {
    let pos_po = motion_proxy
        .position_at_time(start_time)
        .inv_mul(&motion_other.position_at_time(start_time));
    let gaps = StartGap::new(&pos_po, other);
    let sphere = other.compute_local_bounding_sphere();
    let reach_other = (sphere.center - motion_other.local_center).length() + sphere.radius;
    let bound = ClosingBound::new(motion_proxy, motion_other, reach_other, start_time, end_time);
    // The thickness of the other shape's parts when it is convex; the parts of anything else
    // count as 0 (triangles), which keeps the CCD pruning conservative.
    let other_thickness = if other.as_support_map().is_some() {
        other.ccd_thickness()
    } else {
        0.0
    };
    let centre = motion_proxy.local_center;
    // From the gap and reach of a node (or a ball) to the lower bound of its time of impact;
    // `min_radius` is the smallest ball that may lie inside (0 for inner nodes).
    let lower_bound = |gap: Real, r: Real, min_radius: Real, best: Real| {
        let min_depth = CCD_DEPTH_FRACTION * (min_radius + other_thickness);
        if !stop_at_penetration && bound.max_depth(gap, r) <= min_depth {
            return None;
        }
        let t = bound.earliest_contact(gap, r);
        (t < best).then_some(t)
    };
    proxy
        .bvh()
        .find_best(
            end_time,
            |node, best| {
                let aabb = node.aabb();
                lower_bound(gaps.lower_bound(&aabb), reach(centre, &aabb), 0.0, best)
                    .unwrap_or(Real::MAX)
            },
            |i, best| {
                let s = proxy.sphere(i as usize)?;
                let aabb = Aabb::from_half_extents(s.centre, Vector::splat(s.radius));
                let gap = gaps.lower_bound_in(&aabb, s.centre, s.radius);
                let r = (s.centre - centre).length() + s.radius;
                lower_bound(gap, r, s.radius, best)?;
                let pose = Pose::from_translation(s.centre);
                let hit = caster
                    .cast_shapes_nonlinear(
                        &motion_proxy.prepend(pose),
                        &Ball::new(s.radius),
                        motion_other,
                        other,
                        start_time,
                        end_time,
                        stop_at_penetration,
                    )
                    .ok()??;
                let mut hit = hit.transform1_by(&pose);
                hit.subshape1 = i;
                (hit.time_of_impact < best).then_some((hit.time_of_impact, hit))
            },
        )
        .map(|(_, (_, hit))| hit)
}
