//! One-shot queries between a `DeformableMeshShape` and a convex shape: intersection test, distance, contact, closest points and linear shape casts, through the lazy tree and parry's per-triangle routines.

use rapier3d::math::{Real, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::query::{
    ClosestPoints, Contact, DefaultQueryDispatcher, QueryDispatcher, ShapeCastHit,
    ShapeCastOptions, ShapeDistance, ShapeIntersection, Unsupported,
};

use super::MeshPair;

/// Distance between two boxes (0 when they overlap): a lower bound of the distance between
/// anything inside them.
fn aabb_distance(a: &Aabb, b: &Aabb) -> Real {
    let gap = (a.mins - b.maxs).max(b.mins - a.maxs).max(Vector::ZERO);
    gap.length()
}

/// True as soon as one triangle intersects the other shape.
pub(super) fn intersection_test(pair: &MeshPair<'_>) -> Result<ShapeIntersection, Unsupported> {
    let aabb = pair.other.compute_aabb(&pair.pos_mo);
    let mut hit = None;
    pair.mesh.for_each_triangle_in_aabb(&aabb, |t, tri| {
        if hit.is_none()
            && DefaultQueryDispatcher
                .intersection_test(&pair.pos_mo, tri, pair.other)
                .is_ok_and(|r| r.intersecting)
        {
            hit = Some(t);
        }
    });
    let result = match hit {
        Some(t) => ShapeIntersection::new(true).with_subshapes(t, 0),
        None => ShapeIntersection::new(false),
    };
    Ok(if pair.flipped {
        result.swapped()
    } else {
        result
    })
}

/// Smallest distance over the triangles (branch and bound on node boxes).
pub(super) fn distance(pair: &MeshPair<'_>) -> Result<ShapeDistance, Unsupported> {
    let aabb = pair.other.compute_aabb(&pair.pos_mo);
    let best = pair.mesh.find_best(
        Real::MAX,
        |node, _| Some(aabb_distance(node, &aabb)),
        |t, tri, _| {
            DefaultQueryDispatcher
                .distance(&pair.pos_mo, tri, pair.other)
                .ok()
                .map(|d| {
                    (
                        d.distance,
                        ShapeDistance::new(d.distance).with_subshapes(t, 0),
                    )
                })
        },
    );
    let result = best.ok_or(Unsupported)?;
    Ok(if pair.flipped {
        result.swapped()
    } else {
        result
    })
}

/// The deepest (smallest signed distance) contact within `prediction` over the triangles.
pub(super) fn contact(
    pair: &MeshPair<'_>,
    prediction: Real,
) -> Result<Option<Contact>, Unsupported> {
    let aabb = pair.other.compute_aabb(&pair.pos_mo).loosened(prediction);
    let mut best: Option<Contact> = None;
    pair.mesh.for_each_triangle_in_aabb(&aabb, |t, tri| {
        if let Ok(Some(mut c)) =
            DefaultQueryDispatcher.contact(&pair.pos_mo, tri, pair.other, prediction)
            && best.is_none_or(|b| c.dist < b.dist)
        {
            c.subshape1 = t;
            c.subshape2 = 0;
            best = Some(c);
        }
    });
    Ok(best.map(|c| if pair.flipped { c.flipped() } else { c }))
}

/// Closest points within `max_dist`: `Intersecting` as soon as one triangle intersects, else the
/// closest pair over the triangles.
pub(super) fn closest_points(
    pair: &MeshPair<'_>,
    max_dist: Real,
) -> Result<ClosestPoints, Unsupported> {
    let aabb = pair.other.compute_aabb(&pair.pos_mo).loosened(max_dist);
    let mut intersecting = false;
    let mut best: Option<(Real, ClosestPoints)> = None;
    pair.mesh.for_each_triangle_in_aabb(&aabb, |_, tri| {
        if intersecting {
            return;
        }
        match DefaultQueryDispatcher.closest_points(&pair.pos_mo, tri, pair.other, max_dist) {
            Ok(ClosestPoints::Intersecting) => intersecting = true,
            Ok(ClosestPoints::WithinMargin(p1, p2)) => {
                let d = (p1 - pair.pos_mo * p2).length();
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, ClosestPoints::WithinMargin(p1, p2)));
                }
            }
            _ => {}
        }
    });
    let mut result = if intersecting {
        ClosestPoints::Intersecting
    } else {
        best.map_or(ClosestPoints::Disjoint, |(_, c)| c)
    };
    if pair.flipped {
        result.flip();
    }
    Ok(result)
}

/// The earliest time of impact of the other shape moving at `vel_mo` (mesh frame) against the
/// triangles its swept box overlaps.
pub(super) fn cast_shapes(
    pair: &MeshPair<'_>,
    vel_mo: Vector,
    options: ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, Unsupported> {
    let start = pair.other.compute_aabb(&pair.pos_mo);
    let shift = vel_mo * options.max_time_of_impact;
    let end = Aabb::new(start.mins + shift, start.maxs + shift);
    let swept = start.merged(&end).loosened(options.target_distance);
    let mut best: Option<ShapeCastHit> = None;
    pair.mesh.for_each_triangle_in_aabb(&swept, |t, tri| {
        let mut opts = options;
        if let Some(b) = best {
            opts.max_time_of_impact = b.time_of_impact;
        }
        if let Ok(Some(mut hit)) =
            DefaultQueryDispatcher.cast_shapes(&pair.pos_mo, vel_mo, tri, pair.other, opts)
            && best.is_none_or(|b| hit.time_of_impact < b.time_of_impact)
        {
            hit.subshape1 = t;
            hit.subshape2 = 0;
            best = Some(hit);
        }
    });
    Ok(best.map(|h| if pair.flipped { h.swapped() } else { h }))
}
