//! Contract: brute-force references over every posed skin triangle — closest triangle within a radius, and the signed distance to a closed skin (winding number for the sign).

use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::math::Vec3;

/// The closest triangle within `radius` of `p` (ties: lowest index) and its distance.
pub fn closest(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3, radius: f32) -> Option<(u32, f32)> {
    let mut best: Option<(u32, f32)> = None;
    for (t, tri) in triangles.iter().enumerate() {
        let [a, b, c] = tri.map(|v| posed[v as usize]);
        let d = (Triangle::new(a, b, c).project_local_point(p, true).point - p).length();
        if d <= radius && best.is_none_or(|b| d < b.1) {
            best = Some((t as u32, d));
        }
    }
    best
}

/// Signed distance of `p` to the closed, outward-oriented skin: the distance to the nearest
/// triangle, negative when the winding number says inside.
pub fn signed_distance(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3) -> f32 {
    let mut distance = f32::MAX;
    let mut winding = 0f64;
    for tri in triangles {
        let [a, b, c] = tri.map(|v| posed[v as usize]);
        let d = (Triangle::new(a, b, c).project_local_point(p, true).point - p).length();
        distance = distance.min(d);
        // Solid angle (Van Oosterom & Strackee 1983), in f64.
        let [a, b, c] = [a, b, c].map(|x| (x - p).as_dvec3());
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        winding += 2.0 * num.atan2(den);
    }
    let inside = winding / (4.0 * std::f64::consts::PI) > 0.5;
    if inside { -distance } else { distance }
}
