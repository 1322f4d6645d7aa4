//! One-shot queries of every part-pair family (intersection test, distance, contact, closest points, linear shape cast): parry's convex routines on each candidate part pair, results moved into the colliders' frames and tagged with the parts' sub-shape ids.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::{
    ClosestPoints, Contact, DefaultQueryDispatcher, QueryDispatcher, ShapeCastHit,
    ShapeCastOptions, ShapeDistance, ShapeIntersection, Unsupported,
};

use rapier3d::parry::shape::Shape;

use super::part_pairs::PartPairs;
use super::part_tree::part_pos12;

/// True as soon as one part pair intersects.
pub(super) fn intersection_test(pairs: &dyn PartPairs) -> Result<ShapeIntersection, Unsupported> {
    let pos12 = *pairs.pos12();
    let mut hit = None;
    pairs.for_each_pair(0.0, Vector::ZERO, &mut |p1, p2| {
        let pos = part_pos12(&pos12, p1.pose, p2.pose);
        let intersecting = DefaultQueryDispatcher
            .intersection_test(&pos, p1.shape, p2.shape)
            .is_ok_and(|r| r.intersecting);
        if intersecting {
            hit = Some((p1.id, p2.id));
        }
        !intersecting
    });
    Ok(match hit {
        Some((s1, s2)) => ShapeIntersection::new(true).with_subshapes(s1, s2),
        None => ShapeIntersection::new(false),
    })
}

/// Smallest distance over the part pairs (branch and bound); `Unsupported` for families without
/// a distance bound (height fields) and when no part pair exists.
pub(super) fn distance(pairs: &dyn PartPairs) -> Result<ShapeDistance, Unsupported> {
    let pos12 = *pairs.pos12();
    let mut best = None;
    pairs.find_best(Real::MAX, &mut |p1, p2, _| {
        let pos = part_pos12(&pos12, p1.pose, p2.pose);
        let d = DefaultQueryDispatcher
            .distance(&pos, p1.shape, p2.shape)
            .ok()?;
        if best.is_none_or(|b: ShapeDistance| d.distance < b.distance) {
            best = Some(ShapeDistance::new(d.distance).with_subshapes(p1.id, p2.id));
        }
        Some(d.distance)
    })?;
    best.ok_or(Unsupported)
}

/// The deepest (smallest signed distance) contact within `prediction` over the part pairs.
pub(super) fn contact(
    pairs: &dyn PartPairs,
    prediction: Real,
) -> Result<Option<Contact>, Unsupported> {
    let pos12 = *pairs.pos12();
    let mut best: Option<Contact> = None;
    pairs.for_each_pair(prediction, Vector::ZERO, &mut |p1, p2| {
        let pos = part_pos12(&pos12, p1.pose, p2.pose);
        if let Ok(Some(mut c)) = part_contact(&pos, p1.shape, p2.shape, prediction)
            && best.is_none_or(|b| c.dist < b.dist)
        {
            if let Some(pose) = p1.pose {
                c.transform1_by_mut(pose);
            }
            if let Some(pose) = p2.pose {
                c.point2 = pose * c.point2;
                c.normal2 = pose.rotation * c.normal2;
            }
            best = Some(c.with_subshapes(p1.id, p2.id));
        }
        true
    });
    Ok(best)
}

/// parry's contact between two parts. parry 0.31.1's `contact_support_map_halfspace` (a
/// support-mapped shape first, a half-space second) passes the pose unchanged to the
/// half-space-first routine, which expects its inverse, so that order is computed the other way
/// round and flipped.
fn part_contact(
    pos12: &Pose,
    g1: &dyn Shape,
    g2: &dyn Shape,
    prediction: Real,
) -> Result<Option<Contact>, Unsupported> {
    if g2.as_halfspace().is_some() && g1.as_halfspace().is_none() {
        DefaultQueryDispatcher
            .contact(&pos12.inverse(), g2, g1, prediction)
            .map(|c| c.map(Contact::flipped))
    } else {
        DefaultQueryDispatcher.contact(pos12, g1, g2, prediction)
    }
}

/// Closest points within `max_dist`: `Intersecting` as soon as one part pair intersects, else
/// the closest pair of points over the part pairs.
pub(super) fn closest_points(
    pairs: &dyn PartPairs,
    max_dist: Real,
) -> Result<ClosestPoints, Unsupported> {
    let pos12 = *pairs.pos12();
    let mut intersecting = false;
    let mut best: Option<(Real, ClosestPoints)> = None;
    pairs.for_each_pair(max_dist, Vector::ZERO, &mut |p1, p2| {
        let pos = part_pos12(&pos12, p1.pose, p2.pose);
        match DefaultQueryDispatcher.closest_points(&pos, p1.shape, p2.shape, max_dist) {
            Ok(ClosestPoints::Intersecting) => {
                intersecting = true;
                return false;
            }
            Ok(ClosestPoints::WithinMargin(a, b)) => {
                let a = p1.pose.map_or(a, |pose| pose * a);
                let b = p2.pose.map_or(b, |pose| pose * b);
                let d = (a - pos12 * b).length();
                if best.is_none_or(|(x, _)| d < x) {
                    best = Some((d, ClosestPoints::WithinMargin(a, b)));
                }
            }
            _ => {}
        }
        true
    });
    Ok(if intersecting {
        ClosestPoints::Intersecting
    } else {
        best.map_or(ClosestPoints::Disjoint, |(_, c)| c)
    })
}

/// The earliest time of impact of shape 2 moving at `vel12` (shape 1's frame) over the part
/// pairs its swept bounds reach.
pub(super) fn cast_shapes(
    pairs: &dyn PartPairs,
    vel12: Vector,
    options: ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, Unsupported> {
    let pos12 = *pairs.pos12();
    let mut best: Option<ShapeCastHit> = None;
    let sweep = vel12 * options.max_time_of_impact;
    pairs.for_each_pair(options.target_distance, sweep, &mut |p1, p2| {
        let mut opts = options;
        if let Some(b) = best {
            opts.max_time_of_impact = b.time_of_impact;
        }
        let pos = part_pos12(&pos12, p1.pose, p2.pose);
        let vel = p1
            .pose
            .map_or(vel12, |pose| pose.rotation.inverse() * vel12);
        if let Ok(Some(mut hit)) =
            DefaultQueryDispatcher.cast_shapes(&pos, vel, p1.shape, p2.shape, opts)
            && best.is_none_or(|b| hit.time_of_impact < b.time_of_impact)
        {
            if let Some(pose) = p1.pose {
                hit = hit.transform1_by(pose);
            }
            if let Some(pose) = p2.pose {
                hit.witness2 = pose * hit.witness2;
                hit.normal2 = pose.rotation * hit.normal2;
            }
            hit.subshape1 = p1.id;
            hit.subshape2 = p2.id;
            best = Some(hit);
        }
        true
    });
    Ok(best)
}
