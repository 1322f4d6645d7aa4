//! Nonlinear cast of a composite shape (a `SphereProxyShape`, or parry's `TriMesh`, `Compound`, `Polyline`) against any shape: conservative advancement over its BVH, one cast per part the bound cannot rule out (recursing through `PartCaster`), the earliest hit wins.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::query::{NonlinearRigidMotion, QueryDispatcher, ShapeCastHit};
use rapier3d::parry::shape::{CompositeShape, Shape};

use super::convex_parts::{PartCaster, ccd_min_depth};
use super::motion_bound::{ClosingBound, StartGap, reach};

/// The earliest hit of `composite` (moving with `motion1`) and `other` (moving with `motion2`)
/// in `[start_time, end_time]`, with the part's index as `subshape1`.
///
/// Part `i` is cast as parry's composite casts do: the part shape moving with
/// `motion1.prepend(part_pose)` (or `motion1` for parts without a pose, like triangles), the hit
/// brought back to the composite's frame with `transform1_by`. The other shape can be anything
/// [`PartCaster`] splits into convex parts (a convex shape, a composite, voxels, a deformable
/// mesh). The BVH's stored boxes are used as they are (a `SphereProxyShape` refits them
/// whenever its spheres change; they are frozen during the cast).
///
/// Pruning: a node or part is skipped when the conservative-advancement bound ([`StartGap`] over
/// the [`ClosingBound`] speed of points within its reach) is not earlier than the best hit so
/// far, and, in CCD mode against a convex shape, when the part cannot sink into it deeply
/// enough to count. Unlike parry's composite casts, which prune with nonlinear casts of
/// bounding balls and miss the earliest part now and then, this keeps every part that can be
/// hit first, so the result is the earliest of parry's per-part casts.
///
/// # Performance
/// O(log n) per part reached plus one cast per part not pruned.
#[allow(clippy::too_many_arguments)]
pub(super) fn cast(
    caster: &PartCaster,
    motion1: &NonlinearRigidMotion,
    composite: &dyn CompositeShape,
    motion2: &NonlinearRigidMotion,
    other: &dyn Shape,
    start_time: Real,
    end_time: Real,
    stop_at_penetration: bool,
) -> Option<ShapeCastHit> {
    let bvh = composite.bvh();
    let pos12 = motion1
        .position_at_time(start_time)
        .inv_mul(&motion2.position_at_time(start_time));
    let gaps = StartGap::new(&pos12, other);
    let sphere = other.compute_local_bounding_sphere();
    let reach_other = (sphere.center - motion2.local_center).length() + sphere.radius;
    let bound = ClosingBound::new(motion1, motion2, reach_other, start_time, end_time);
    // In CCD mode a part counts only if it sinks deeper than `ccd_min_depth` of its thickness and
    // that of the other shape's part: known when the other shape is one convex part, and a part
    // is only skipped for depth then.
    let convex_other = other.as_support_map().is_some();
    let other_thickness = other.ccd_thickness();
    let centre = motion1.local_center;
    bvh.find_best(
        end_time,
        |node, best| {
            let aabb = node.aabb();
            let t = bound.earliest_contact(gaps.lower_bound(&aabb), reach(centre, &aabb));
            if t < best { t } else { Real::MAX }
        },
        |i, best| {
            let mut result = None;
            composite.map_part_at(i, &mut |part_pose, part, _| {
                let pose = part_pose.copied().unwrap_or(Pose::IDENTITY);
                let aabb = part.compute_aabb(&pose);
                let ball = part.compute_bounding_sphere(&pose);
                let gap = gaps.lower_bound_in(&aabb, ball.center, ball.radius);
                let r = reach(centre, &aabb).min((ball.center - centre).length() + ball.radius);
                if !stop_at_penetration
                    && convex_other
                    && bound.max_depth(gap, r)
                        <= ccd_min_depth(part.ccd_thickness(), other_thickness)
                {
                    return;
                }
                if bound.earliest_contact(gap, r) >= best {
                    return;
                }
                let part_motion = match part_pose {
                    Some(p) => motion1.prepend(*p),
                    None => *motion1,
                };
                let Ok(Some(hit)) = caster.cast_shapes_nonlinear(
                    &part_motion,
                    part,
                    motion2,
                    other,
                    start_time,
                    end_time,
                    stop_at_penetration,
                ) else {
                    return;
                };
                let mut hit = match part_pose {
                    Some(p) => hit.transform1_by(p),
                    None => hit,
                };
                hit.subshape1 = i;
                if hit.time_of_impact < best {
                    result = Some((hit.time_of_impact, hit));
                }
            });
            result
        },
    )
    .map(|(_, (_, hit))| hit)
}
