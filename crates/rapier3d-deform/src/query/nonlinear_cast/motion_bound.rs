//! Bounds on two rigid motions for conservative advancement: how fast a gap can close, the earliest time it can close, and the approach speed at a hit.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::query::{NonlinearRigidMotion, ShapeCastHit};
use rapier3d::parry::shape::Shape;

/// Relative part of the time slack subtracted from every lower bound, so that a part whose
/// parry time of impact is a bisection tolerance earlier than its true first contact is never
/// pruned.
const TIME_SLACK: Real = 1.0e-4;

/// The fastest rate at which the distance between a point of shape 1 and a point of shape 2 can
/// shrink under two [`NonlinearRigidMotion`]s, and what follows from it: the earliest time a gap
/// can close and how deep the shapes can sink into each other by the end of the interval.
///
/// A point `p` of shape 1 moves at `v1 + ω1 × (p − c1(t))`, where `c1(t)` is the moving rotation
/// centre (`local_center`); `|p − c1(t)|` is constant, at most the part's reach. So two points
/// approach at most at `|v1 − v2| + |ω1| reach1 + |ω2| reach2`, and two sets `gap` apart at
/// `start` cannot touch before `start + gap / speed`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClosingBound {
    start: Real,
    duration: Real,
    slack: Real,
    /// `|v1 − v2| + |ω2| reach2`: the part of the speed that does not depend on shape 1's part.
    base_speed: Real,
    angular1: Real,
}

impl ClosingBound {
    /// The bound over `[start, end]` for a shape 2 whose points lie within `reach2` of its
    /// motion's rotation centre; the reach of shape 1's part is given per query.
    ///
    /// # Performance
    /// O(1).
    pub(super) fn new(
        motion1: &NonlinearRigidMotion,
        motion2: &NonlinearRigidMotion,
        reach2: Real,
        start: Real,
        end: Real,
    ) -> Self {
        Self {
            start,
            duration: end - start,
            slack: TIME_SLACK * (end - start).abs(),
            base_speed: (motion1.linvel - motion2.linvel).length()
                + motion2.angvel.length() * reach2,
            angular1: motion1.angvel.length(),
        }
    }

    fn speed(&self, reach1: Real) -> Real {
        self.base_speed + self.angular1 * reach1
    }

    /// A lower bound of the first time a part of shape 1 within `reach1` of its rotation centre,
    /// `gap` away from shape 2 at `start`, can touch it (`Real::MAX` when nothing moves and they
    /// are apart).
    ///
    /// # Performance
    /// O(1).
    pub(super) fn earliest_contact(&self, gap: Real, reach1: Real) -> Real {
        let speed = self.speed(reach1);
        if gap <= 0.0 {
            self.start - self.slack
        } else if speed > 0.0 {
            self.start + gap / speed - self.slack
        } else {
            Real::MAX
        }
    }

    /// An upper bound of how deep such a part and shape 2 can sink into each other, along any
    /// direction, between their first contact and the end of the interval.
    ///
    /// # Performance
    /// O(1).
    pub(super) fn max_depth(&self, gap: Real, reach1: Real) -> Real {
        self.speed(reach1) * (self.duration + self.slack) - gap.max(0.0)
    }
}

/// Lower bounds of the distance at the start of the cast between a box of shape 1 (in shape 1's
/// frame) and shape 2: the larger of the gap to shape 2's box seen from shape 1 and the gap
/// between the box's bounding sphere and shape 2's own local box (the first is tight for a small
/// shape 2, the second for a large one rotated with respect to shape 1, such as a ground slab).
#[derive(Clone, Copy, Debug)]
pub(super) struct StartGap {
    other_aabb: Aabb,
    other_local_aabb: Aabb,
    pos21: Pose,
}

impl StartGap {
    /// The gaps to `other` placed at `pos12` (shape 2's pose in shape 1's frame).
    ///
    /// # Performance
    /// O(1) plus shape 2's `compute_aabb`.
    pub(super) fn new(pos12: &Pose, other: &dyn Shape) -> Self {
        Self {
            other_aabb: other.compute_aabb(pos12),
            other_local_aabb: other.compute_local_aabb(),
            pos21: pos12.inverse(),
        }
    }

    /// A lower bound of the distance between anything inside `aabb` and shape 2.
    ///
    /// # Performance
    /// O(1).
    pub(super) fn lower_bound(&self, aabb: &Aabb) -> Real {
        let sphere = aabb.bounding_sphere();
        self.lower_bound_in(aabb, sphere.center, sphere.radius)
    }

    /// As [`Self::lower_bound`] for a set inside both `aabb` and the ball (`centre`, `radius`).
    ///
    /// # Performance
    /// O(1).
    pub(super) fn lower_bound_in(&self, aabb: &Aabb, centre: Vector, radius: Real) -> Real {
        let centre = self.pos21 * centre;
        let to_box = (self.other_local_aabb.mins - centre)
            .max(centre - self.other_local_aabb.maxs)
            .max(Vector::ZERO)
            .length();
        gap(aabb, &self.other_aabb).max(to_box - radius)
    }
}

/// The largest distance from `center` to a point of `aabb` (a shape's reach around its
/// rotation centre when `aabb` bounds the shape in its own frame).
///
/// # Performance
/// O(1).
pub(super) fn reach(center: Vector, aabb: &Aabb) -> Real {
    (aabb.mins - center)
        .abs()
        .max((aabb.maxs - center).abs())
        .length()
}

/// The distance between two boxes (0 when they overlap): a lower bound of the distance between
/// anything inside them.
///
/// # Performance
/// O(1).
fn gap(a: &Aabb, b: &Aabb) -> Real {
    (a.mins - b.maxs)
        .max(b.mins - a.maxs)
        .max(Vector::ZERO)
        .length()
}

/// The speed at which shape 1 moves toward shape 2 along the hit's normal, at the hit's witness
/// points and time (positive when they close; the same quantity parry's directional cast tests
/// for shapes that start in contact).
///
/// # Performance
/// O(1).
pub(super) fn approach_speed(
    hit: &ShapeCastHit,
    motion1: &NonlinearRigidMotion,
    motion2: &NonlinearRigidMotion,
) -> Real {
    let t = hit.time_of_impact;
    let point_velocity = |motion: &NonlinearRigidMotion, local_point: Vector| {
        let pose = motion.position_at_time(t);
        let lever = pose.rotation * (local_point - motion.local_center);
        motion.linvel + motion.angvel.cross(lever)
    };
    let v1 = point_velocity(motion1, hit.witness1);
    let v2 = point_velocity(motion2, hit.witness2);
    let normal = motion1.position_at_time(t).rotation * hit.normal1;
    (v1 - v2).dot(normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound never exceeds the true first contact of two balls on random motions, found by
    /// dense sampling of their distance.
    #[test]
    fn earliest_contact_is_a_lower_bound() {
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        for _ in 0..200 {
            let v = |n: &mut dyn FnMut() -> f32, s: f32| Vector::new(n() * s, n() * s, n() * s);
            let m1 = NonlinearRigidMotion::new(
                Pose::from_translation(v(&mut next, 3.0)),
                v(&mut next, 0.5),
                v(&mut next, 4.0),
                v(&mut next, 6.0),
            );
            let m2 = NonlinearRigidMotion::new(
                Pose::from_translation(v(&mut next, 3.0)),
                v(&mut next, 0.5),
                v(&mut next, 4.0),
                v(&mut next, 6.0),
            );
            // A point of each shape at a fixed local offset (the "shape" is that point).
            let (p1, p2) = (v(&mut next, 1.0), v(&mut next, 1.0));
            let reach1 = (p1 - m1.local_center).length();
            let reach2 = (p2 - m2.local_center).length();
            let bound = ClosingBound::new(&m1, &m2, reach2, 0.0, 1.0);
            let distance =
                |t: f32| (m1.position_at_time(t) * p1 - m2.position_at_time(t) * p2).length();
            let d0 = distance(0.0);
            // The first time the points come within half their initial distance.
            let target = 0.5 * d0;
            let first = (0..=20_000)
                .map(|k| k as f32 / 20_000.0)
                .find(|&t| distance(t) <= target);
            if let Some(t) = first {
                assert!(bound.earliest_contact(d0 - target, reach1) <= t + 1e-4);
                // By then they have closed d0 - target; by the end at most max_depth more.
                let d1 = distance(1.0);
                assert!(target - d1 <= bound.max_depth(d0 - target, reach1) + 1e-4);
            }
        }
    }

    /// The start gap never exceeds parry's distance between the box (as a cuboid) and a rotated
    /// slab or a small ball.
    #[test]
    fn start_gap_is_a_lower_bound() {
        use rapier3d::parry::query;
        use rapier3d::parry::shape::{Ball, Cuboid};
        let mut seed = 0x9e37_79b9_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        let slab = Cuboid::new(Vector::new(20.0, 0.1, 20.0));
        let ball = Ball::new(0.3);
        for _ in 0..500 {
            let centre = Vector::new(next() * 3.0, next() * 3.0, next() * 3.0);
            let half = Vector::new(next().abs(), next().abs(), next().abs()) * 0.5 + 0.01;
            let aabb = Aabb::from_half_extents(centre, half);
            let axis = Vector::new(next(), next(), next()).normalize_or(Vector::X);
            let pos12 = Pose::from_parts(
                Vector::new(next(), next() - 1.5, next()),
                rapier3d::math::Rotation::from_axis_angle(axis, next() * 3.0),
            );
            for other in [&slab as &dyn Shape, &ball] {
                let bound = StartGap::new(&pos12, other).lower_bound(&aabb);
                let exact = query::distance(
                    &Pose::from_translation(centre),
                    &Cuboid::new(half),
                    &pos12,
                    other,
                )
                .unwrap()
                .distance;
                assert!(bound <= exact + 1e-4, "{bound} > {exact}");
            }
        }
    }

    #[test]
    fn gap_and_reach_of_boxes() {
        let a = Aabb::new(Vector::ZERO, Vector::ONE);
        let b = Aabb::new(Vector::new(2.0, 0.0, 3.0), Vector::new(3.0, 1.0, 4.0));
        assert!((gap(&a, &b) - 5.0f32.sqrt()).abs() < 1e-6);
        assert_eq!(gap(&a, &a), 0.0);
        assert!((reach(Vector::ZERO, &a) - 3.0f32.sqrt()).abs() < 1e-6);
        assert!((reach(Vector::splat(0.5), &a) - 0.75f32.sqrt()).abs() < 1e-6);
    }
}
