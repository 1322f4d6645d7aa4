//! Contract: brute-force references over every posed skin triangle — closest triangle within a radius, and the signed distance to a closed skin (`skin_distance`: a signed ray-crossing count or the winding number for the sign) — and the per-frame assertions the garment tests share (stage contacts equal brute force, no vertex inside the skin).

use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::cloth::{Cloth, SkinCollision, VertexState};
use rapier3d_deform::math::Vec3;

/// The closest triangle within `radius` of `p` (ties: lowest index) and its distance.
pub fn closest(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3, radius: f32) -> Option<(u32, f32)> {
    let mut best: Option<(u32, f32)> = None;
    for (t, tri) in triangles.iter().enumerate() {
        let [a, b, c] = tri.map(|v| posed[v as usize]);
        // The triangle lies in its box: a box clearly beyond the radius (or the best so far)
        // holds no nearer point, and the projection is skipped (the 0.1 % slack covers rounding).
        let gap = (a.min(b).min(c) - p)
            .max(p - a.max(b).max(c))
            .max(Vec3::ZERO);
        if gap.length() > best.map_or(radius, |b| b.1) * 1.001 {
            continue;
        }
        let d = (Triangle::new(a, b, c).project_local_point(p, true).point - p).length();
        if d <= radius && best.is_none_or(|b| d < b.1) {
            best = Some((t as u32, d));
        }
    }
    best
}

/// Signed distance of `p` to the closed, outward-oriented skin (the scenes crate's oracle).
pub fn signed_distance(triangles: &[[u32; 3]], posed: &[Vec3], p: Vec3) -> f32 {
    rapier3d_deform_scenes::skin_distance::signed_distance(triangles, posed, p)
}

/// Asserts that the collision stage's first contact of every free cloth vertex is brute force's
/// closest triangle within `radius` of where the stage queried it (distances within 1e-6 m, the
/// vertex marked in contact), on the skin posed at `posed`; returns how many vertices it compared.
pub fn assert_contacts_equal_brute_force(
    collision: &SkinCollision,
    cloth: &Cloth,
    triangles: &[[u32; 3]],
    posed: &[Vec3],
    radius: f32,
    frame: usize,
) -> usize {
    let mut compared = 0;
    for (i, &q) in collision.queried_positions().iter().enumerate() {
        if cloth.is_pinned(i) {
            continue;
        }
        compared += 1;
        match (
            closest(triangles, posed, q, radius),
            collision.first_contacts()[i],
        ) {
            (None, None) => {}
            (Some((_, d)), Some(c)) => {
                assert!(
                    (c.distance - d).abs() <= 1e-6,
                    "frame {frame} vertex {i}: stage {} vs brute force {d}",
                    c.distance
                );
                assert_eq!(collision.states()[i], VertexState::Contact);
            }
            (r, c) => panic!("frame {frame} vertex {i}: brute force {r:?}, stage {c:?}"),
        }
    }
    compared
}

/// Asserts that no cloth vertex is deeper than `thickness` inside the skin posed at `posed`,
/// and, when `face_pass` (the stage ran with [`rapier3d_deform::cloth::ContactThresholds::face_contacts`]),
/// that the skin passes through no unpinned cloth triangle between its vertices (a crossing
/// with all three vertices outside, which only the face pass resolves); returns the largest
/// distance of a vertex outside the skin and the number of such crossings.
pub fn assert_outside(
    cloth: &Cloth,
    triangles: &[[u32; 3]],
    posed: &[Vec3],
    thickness: f32,
    frame: usize,
    face_pass: bool,
) -> (f32, usize) {
    let mut farthest = f32::MIN;
    let mut inside = Vec::with_capacity(cloth.positions().len());
    for (i, &x) in cloth.positions().iter().enumerate() {
        let d = signed_distance(triangles, posed, x);
        assert!(
            d >= -thickness,
            "frame {frame} vertex {i} ends {d} inside the skin"
        );
        farthest = farthest.max(d);
        inside.push(d < 0.0);
    }
    let pinned: Vec<bool> = (0..inside.len()).map(|v| cloth.is_pinned(v)).collect();
    let crossings = rapier3d_deform_scenes::skin_crossings::skin_crossings(
        triangles,
        posed,
        cloth.mesh().triangles(),
        cloth.positions(),
        &pinned,
        &inside,
    );
    assert!(
        !face_pass || crossings.without_inside_vertex == 0,
        "frame {frame}: the skin passes between the vertices of cloth triangles {:?}",
        crossings.vertex_free_triangles
    );
    (farthest, crossings.without_inside_vertex)
}
