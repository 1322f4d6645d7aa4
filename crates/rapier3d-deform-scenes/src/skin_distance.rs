//! Brute-force signed distance to a closed skin: the nearest triangle over all of them, inside by a signed ray-crossing count, or by the generalized winding number where the ray grazes an edge.
//!
//! The cloth tests and benchmarks use [`signed_distance`] as their independent reference, so it
//! looks at every triangle and shares no structure with the crate's avatar hierarchy. Two exact
//! shortcuts keep it affordable:
//!
//! * **Distance.** A triangle whose bounding box is farther from the point than the nearest
//!   triangle found so far (by more than a rounding slack) cannot be nearer, since the box
//!   contains the triangle: its projection is skipped.
//! * **Inside.** On a closed, consistently oriented mesh the winding number of a point equals the
//!   signed count of the surface crossings of any ray from it (Jacobson et al. 2013, §3). The ray
//!   runs along `+X`; a triangle whose box misses the ray costs four comparisons, the others one
//!   exact 2D orientation test per edge in `f64`. When the ray passes within a relative 1e-9 of a
//!   triangle's edge or vertex, or the point lies on a crossed triangle's plane, the count could
//!   be off by one and [`winding_number`] (a solid-angle sum over every triangle) decides instead.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::rapier3d::glamx::DVec3;
use rapier3d_deform::rapier3d::parry::query::PointQuery;
use rapier3d_deform::rapier3d::parry::shape::Triangle;

/// Signed distance of `p` to the closed, outward-oriented skin `triangles` posed at `posed`: the
/// distance to the nearest triangle, negative when `p` is inside (winding number 1).
///
/// # Panics
/// If a triangle index is out of range of `posed`.
///
/// # Performance
/// O(triangles): a box test per triangle, a point–triangle projection only for triangles whose
/// box is nearer than the nearest triangle so far, and a solid angle per triangle only when the
/// `+X` ray from `p` grazes an edge.
pub fn signed_distance(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3) -> f32 {
    let mut distance_squared = f32::MAX;
    let mut crossings = Some(0i32);
    for tri in triangles {
        let [a, b, c] = tri.map(|v| posed[v as usize]);
        let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
        let gap = (lo - p).max(p - hi).max(Vec3::ZERO);
        // 0.1 % slack: the box's distance and the projection round differently.
        if gap.length_squared() <= distance_squared * 1.002 {
            let q = Triangle::new(a, b, c).project_local_point(p, true).point;
            distance_squared = distance_squared.min((q - p).length_squared());
        }
        let on_ray = hi.x >= p.x && lo.y <= p.y && p.y <= hi.y && lo.z <= p.z && p.z <= hi.z;
        if let (true, Some(count)) = (on_ray, crossings.as_mut()) {
            match ray_crossing(a, b, c, p) {
                Crossing::Missed => {}
                Crossing::Signed(sign) => *count += sign,
                Crossing::Grazed => crossings = None,
            }
        }
    }
    let winding = match crossings {
        Some(count) => f64::from(count),
        None => winding_number(triangles, posed, p),
    };
    let distance = distance_squared.sqrt();
    if winding > 0.5 { -distance } else { distance }
}

/// The generalized winding number of `p` with respect to `triangles` posed at `posed`: the sum
/// of the triangles' signed solid angles seen from `p` over 4π (Van Oosterom & Strackee 1983),
/// in `f64`; 1 inside a closed outward-oriented mesh, 0 outside.
///
/// # Panics
/// If a triangle index is out of range of `posed`.
///
/// # Performance
/// O(triangles), one `atan2` each.
pub fn winding_number(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3) -> f64 {
    let mut solid_angle = 0f64;
    for tri in triangles {
        let [a, b, c] = tri.map(|v| (posed[v as usize] - p).as_dvec3());
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        solid_angle += 2.0 * num.atan2(den);
    }
    solid_angle / (4.0 * std::f64::consts::PI)
}

/// How the ray from a point along `+X` meets one triangle.
enum Crossing {
    /// The ray misses the triangle (or meets it behind the point).
    Missed,
    /// The ray crosses the triangle's interior in front of the point: +1 when it leaves through
    /// the outward side (the triangle's normal has a positive `x`), −1 when it enters.
    Signed(i32),
    /// Too close to call: the ray passes within a relative 1e-9 of an edge or a vertex, the
    /// triangle is seen edge-on, or the point lies on the triangle.
    Grazed,
}

/// Where the `+X` ray from `p` meets triangle `(a, b, c)`: the triangle projected on the `YZ`
/// plane, `p`'s projection tested against each edge in `f64` (the differences of `f32`
/// coordinates and their products are exact there).
fn ray_crossing(a: Vec3, b: Vec3, c: Vec3, p: Vec3) -> Crossing {
    let [a, b, c, p] = [a, b, c, p].map(|v| v.as_dvec3());
    let edge = |u: DVec3, v: DVec3| {
        let (e, q) = (v - u, p - u);
        let side = e.y * q.z - e.z * q.y;
        let scale = (e.y.abs() + e.z.abs()) * (q.y.abs() + q.z.abs());
        (side, side.abs() <= 1e-9 * scale)
    };
    let ((wc, grazed_c), (wa, grazed_a), (wb, grazed_b)) = (edge(a, b), edge(b, c), edge(c, a));
    let area = wa + wb + wc;
    let inside = (wa > 0.0 && wb > 0.0 && wc > 0.0) || (wa < 0.0 && wb < 0.0 && wc < 0.0);
    let grazed = grazed_a || grazed_b || grazed_c;
    if !(inside || grazed) {
        return Crossing::Missed;
    }
    if grazed || area == 0.0 {
        return Crossing::Grazed;
    }
    let hit_x = (wa * a.x + wb * b.x + wc * c.x) / area;
    let extent = (a.x - p.x)
        .abs()
        .max((b.x - p.x).abs())
        .max((c.x - p.x).abs());
    if (hit_x - p.x).abs() <= 1e-9 * extent {
        Crossing::Grazed
    } else if hit_x < p.x {
        Crossing::Missed
    } else {
        Crossing::Signed(if area > 0.0 { 1 } else { -1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cape::RunningFox;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Inside by the ray count and the winding number agree, and the distance equals the
    /// nearest projection over every triangle, for random points around the Fox (a closed,
    /// outward-oriented mesh) and for points placed exactly on its vertices' `YZ` lines.
    #[test]
    fn signed_distance_agrees_with_the_winding_number_and_every_projection() {
        let fox = RunningFox::load(0).unwrap();
        let triangles = fox.mesh().triangles().to_vec();
        let posed = fox.rest_positions().to_vec();
        let (lo, hi) = posed.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(l, h), &v| (l.min(v), h.max(v)),
        );
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut points: Vec<Vec3> = (0..3000)
            .map(|_| {
                let t = Vec3::new(rng.random(), rng.random(), rng.random());
                lo - (hi - lo) * 0.1 + t * (hi - lo) * 1.2
            })
            .collect();
        // Rays through vertices and along edges: the grazing fallback must decide these.
        points.extend(
            posed
                .iter()
                .step_by(7)
                .map(|v| Vec3::new(lo.x - 0.1, v.y, v.z)),
        );
        let (mut inside, mut outside) = (0, 0);
        for &p in &points {
            let d = signed_distance(&triangles, &posed, p);
            let nearest = triangles
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|v| posed[v as usize]);
                    (Triangle::new(a, b, c).project_local_point(p, true).point - p).length()
                })
                .fold(f32::MAX, f32::min);
            assert_eq!(d.abs(), nearest, "distance at {p}");
            let winding = winding_number(&triangles, &posed, p);
            assert!(
                (winding - winding.round()).abs() < 1e-6,
                "winding {winding} at {p}"
            );
            assert_eq!(d < 0.0, winding > 0.5, "inside at {p}: winding {winding}");
            if d < 0.0 { inside += 1 } else { outside += 1 }
        }
        assert!(
            inside > 300 && outside > 300,
            "{inside} inside, {outside} outside"
        );
    }
}
