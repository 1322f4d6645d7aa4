//! Inside tests of closed shapes by ray parity: the surface crossings of a ray from the point, counted by parry's ray casts.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::rapier3d::parry::query::Ray;
use rapier3d_deform::rapier3d::parry::shape::Shape;

/// Three fixed directions, slightly tilted off the axes so that a ray rarely runs along an edge
/// of an axis-aligned mesh (not normalised).
pub const TILTED_DIRECTIONS: [Vec3; 3] = [
    Vec3::new(0.0137, 1.0, 0.0291),
    Vec3::new(1.0, 0.0213, -0.0377),
    Vec3::new(-0.0419, 0.0173, 1.0),
];

/// Whether the ray from `origin` along the unit direction `dir` crosses the surface of `shape`
/// (in its local frame) an odd number of times: each hit restarts the ray 10 µm past it, at
/// most 256 hits.
///
/// # Performance
/// One ray cast per crossing plus one.
pub fn odd_crossings(shape: &dyn Shape, origin: Vec3, dir: Vec3) -> bool {
    let mut origin = origin;
    let mut hits = 0;
    for _ in 0..256 {
        match shape.cast_local_ray(&Ray::new(origin, dir), f32::MAX, false) {
            Some(t) => {
                hits += 1;
                origin += dir * (t + 1e-5);
            }
            None => break,
        }
    }
    hits % 2 == 1
}

/// Ray parity voted over [`TILTED_DIRECTIONS`]: inside when at least two of the three rays from
/// `point` (local frame of `shape`) cross its surface an odd number of times; one ray that
/// grazes an edge or a vertex counts a crossing twice or not at all.
///
/// # Performance
/// Three [`odd_crossings`].
pub fn inside_voted(shape: &dyn Shape, point: Vec3) -> bool {
    TILTED_DIRECTIONS
        .into_iter()
        .filter(|&d| odd_crossings(shape, point, d.normalize()))
        .count()
        >= 2
}
