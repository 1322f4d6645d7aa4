//! Cloth–skin crossings at one instant: cloth triangles that intersect the posed skin, and those among them that no cloth vertex inside the skin explains (what edge–edge contacts would have to catch).

use rapier3d_deform::geometry::triangles_intersect;
use rapier3d_deform::math::{Aabb, Vec3};
use rapier3d_deform::rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy};

/// What [`skin_crossings`] counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkinCrossings {
    /// Cloth triangles (none of whose vertices is pinned) that intersect some skin triangle.
    pub crossing_triangles: usize,
    /// Of those, the ones whose three vertices are all outside the skin: the skin passes
    /// through the triangle between its vertices (a skin edge through the cloth face, or a
    /// cloth edge through the skin and back out), which vertex–triangle contacts cannot see.
    pub without_inside_vertex: usize,
    /// The cloth triangles counted in [`Self::without_inside_vertex`], in index order.
    pub vertex_free_triangles: Vec<u32>,
    /// Cloth triangles skipped because a vertex is pinned (pins may lie on the skin).
    pub pinned_triangles: usize,
}

/// Counts the cloth triangles of `cloth_triangles` (over `cloth`) that intersect a triangle of
/// the skin `skin_triangles` posed at `skin` (shared points count: [`triangles_intersect`]),
/// skipping cloth triangles with a vertex for which `pinned` is true; `inside[v]` says whether
/// cloth vertex `v` lies inside the closed skin (the caller's signed distance or winding
/// number).
///
/// # Panics
/// If an index is out of range of `skin`, `cloth`, `pinned` or `inside`.
///
/// # Performance
/// O(S log S) to build a parry [`Bvh`] over the skin triangles' boxes, then per cloth triangle
/// one box query and an exact test against each skin triangle whose box its box touches.
pub fn skin_crossings(
    skin_triangles: &[[u32; 3]],
    skin: &[Vec3],
    cloth_triangles: &[[u32; 3]],
    cloth: &[Vec3],
    pinned: &[bool],
    inside: &[bool],
) -> SkinCrossings {
    let corners = |t: &[u32; 3], points: &[Vec3]| t.map(|v| points[v as usize]);
    let boxes: Vec<Aabb> = skin_triangles
        .iter()
        .map(|t| triangle_box(corners(t, skin)))
        .collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes);
    let mut counts = SkinCrossings::default();
    for (index, t) in cloth_triangles.iter().enumerate() {
        if t.iter().any(|&v| pinned[v as usize]) {
            counts.pinned_triangles += 1;
            continue;
        }
        let c = corners(t, cloth);
        let query = triangle_box(c);
        let crosses = bvh
            .intersect_aabb(&query)
            .any(|s| triangles_intersect(c, corners(&skin_triangles[s as usize], skin)));
        if crosses {
            counts.crossing_triangles += 1;
            if t.iter().all(|&v| !inside[v as usize]) {
                counts.without_inside_vertex += 1;
                counts.vertex_free_triangles.push(index as u32);
            }
        }
    }
    counts
}

/// The box of a triangle.
fn triangle_box([a, b, c]: [Vec3; 3]) -> Aabb {
    Aabb::new(a.min(b).min(c), a.max(b).max(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed tetrahedron as the skin, with a spike at `apex`.
    fn tetrahedron(apex: Vec3) -> (Vec<[u32; 3]>, Vec<Vec3>) {
        let points = vec![
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, -1.0),
            Vec3::new(0.0, 0.0, 1.0),
            apex,
        ];
        (vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]], points)
    }

    /// One large cloth triangle lying across the plane `y = height`.
    fn sheet(height: f32) -> (Vec<[u32; 3]>, Vec<Vec3>) {
        let points = vec![
            Vec3::new(-5.0, height, -5.0),
            Vec3::new(5.0, height, -5.0),
            Vec3::new(0.0, height, 5.0),
        ];
        (vec![[0, 1, 2]], points)
    }

    /// Every intersecting pair by brute force: the oracle for the Bvh-accelerated count.
    fn brute_force(skin: &(Vec<[u32; 3]>, Vec<Vec3>), cloth: &(Vec<[u32; 3]>, Vec<Vec3>)) -> usize {
        cloth
            .0
            .iter()
            .filter(|c| {
                skin.0.iter().any(|s| {
                    triangles_intersect(
                        c.map(|v| cloth.1[v as usize]),
                        s.map(|v| skin.1[v as usize]),
                    )
                })
            })
            .count()
    }

    #[test]
    fn a_spike_through_a_sheet_is_a_crossing_without_an_inside_vertex() {
        // The apex 1 m above the sheet at 0.5 m: the skin's three upper edges pierce the face,
        // and every sheet vertex is far outside the skin.
        let skin = tetrahedron(Vec3::new(0.0, 1.5, 0.0));
        let cloth = sheet(0.5);
        let counts = skin_crossings(
            &skin.0,
            &skin.1,
            &cloth.0,
            &cloth.1,
            &[false; 3],
            &[false; 3],
        );
        assert_eq!(counts.crossing_triangles, 1);
        assert_eq!(counts.without_inside_vertex, 1);
        assert_eq!(counts.crossing_triangles, brute_force(&skin, &cloth));
        // A vertex inside explains the crossing: it is not counted as vertex-free.
        let counts = skin_crossings(
            &skin.0,
            &skin.1,
            &cloth.0,
            &cloth.1,
            &[false; 3],
            &[true, false, false],
        );
        assert_eq!(
            (counts.crossing_triangles, counts.without_inside_vertex),
            (1, 0)
        );
        // Pinned triangles are skipped.
        let counts = skin_crossings(
            &skin.0,
            &skin.1,
            &cloth.0,
            &cloth.1,
            &[false, true, false],
            &[false; 3],
        );
        assert_eq!((counts.crossing_triangles, counts.pinned_triangles), (0, 1));
    }

    #[test]
    fn a_sheet_above_the_spike_does_not_cross() {
        let skin = tetrahedron(Vec3::new(0.0, 1.5, 0.0));
        let cloth = sheet(1.6);
        let counts = skin_crossings(
            &skin.0,
            &skin.1,
            &cloth.0,
            &cloth.1,
            &[false; 3],
            &[false; 3],
        );
        assert_eq!(counts, SkinCrossings::default());
        assert_eq!(brute_force(&skin, &cloth), 0);
    }

    #[test]
    fn crossings_equal_brute_force_on_random_sheets() {
        // Fixed-seed xorshift: sheets at random heights and tilts over a spiky skin.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut crossings = 0;
        for _ in 0..200 {
            let skin = tetrahedron(Vec3::new(next() - 0.5, 0.5 + next(), next() - 0.5));
            let h = next() * 2.0;
            let cloth = (
                vec![[0, 1, 2], [1, 3, 2]],
                vec![
                    Vec3::new(-2.0, h + next() - 0.5, -2.0),
                    Vec3::new(2.0, h + next() - 0.5, -2.0),
                    Vec3::new(-2.0, h + next() - 0.5, 2.0),
                    Vec3::new(2.0, h + next() - 0.5, 2.0),
                ],
            );
            let counts = skin_crossings(
                &skin.0,
                &skin.1,
                &cloth.0,
                &cloth.1,
                &[false; 4],
                &[false; 4],
            );
            assert_eq!(counts.crossing_triangles, brute_force(&skin, &cloth));
            crossings += counts.crossing_triangles;
        }
        // The sample has both outcomes.
        assert!(crossings > 20 && crossings < 380, "{crossings} crossings");
    }
}
