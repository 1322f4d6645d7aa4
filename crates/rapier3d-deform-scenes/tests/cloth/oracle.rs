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

/// Signed distance of `p` to the closed, outward-oriented skin (the scenes crate's oracle).
pub fn signed_distance(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3) -> f32 {
    rapier3d_deform_scenes::skirt::signed_distance(triangles, posed, p)
}
