//! Exact triangle–triangle intersection (Guigue–Devillers on exact orientation predicates) and its topology-aware variant for triangles of one mesh.
//!
//! Triangles are closed sets: touching counts as intersecting. Every decision is a sign of an
//! exact determinant of the input coordinates ([`super::predicates`]), so the answer is the exact
//! answer for the `f32` positions given, independent of the order of the arguments and of the
//! method that found the candidate pair. That is what lets the BN-Tree, the BVH baseline and the
//! brute-force oracle agree pair for pair.
//!
//! * Non-degenerate, non-coplanar pairs follow Guigue & Devillers, *Fast and Robust
//!   Triangle-Triangle Overlap Test Using Orientation Predicates* (JGT 8(1), 2003): plane-side
//!   signs, canonical permutation, two orientation tests on the line of intersection.
//! * Coplanar pairs are tested in a coordinate plane onto which their common plane projects
//!   injectively (exactly chosen: a non-zero component of the exact normal).
//! * Pairs with a degenerate (collinear) triangle, which a deformation can produce, use the edge
//!   characterisation: two closed triangles meet iff an edge of one meets the other.
//!
//! Mesh topology ([`mesh_triangles_collide`]): triangles sharing an edge are adjacent and never a
//! contact; triangles sharing exactly one vertex `v` are a contact only when they meet somewhere
//! other than `v` ([`triangles_cross_beyond_vertex`]); other pairs use [`triangles_intersect`].

use super::predicates::{Sign, dot_sign, orient2d, orient3d};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

type P3 = [f64; 3];
type P2 = [f64; 2];

#[inline]
fn to_f64(v: Vec3) -> P3 {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// Whether two closed triangles intersect (touching counts), decided exactly for the given
/// `f32` coordinates. Degenerate (collinear or point) triangles are handled as the segments or
/// points they are.
///
/// ```
/// use rapier3d_deform::math::Vec3;
/// use rapier3d_deform::geometry::triangles_intersect;
/// let a = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
/// let b = [Vec3::new(0.5, 0.5, -1.0), Vec3::new(0.5, 0.5, 1.0), Vec3::new(3.0, 3.0, 0.0)];
/// assert!(triangles_intersect(a, b));
/// ```
///
/// # Performance
/// O(1): six to eight filtered orientation determinants in the common case; exact expansions
/// only for (nearly) degenerate configurations.
pub fn triangles_intersect(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
    tri_tri(a.map(to_f64), b.map(to_f64))
}

/// Whether triangles `(v, a[0], a[1])` and `(v, b[0], b[1])`, which share the vertex `v`, meet
/// anywhere other than at `v` (a real crossing or overlap, not just the shared corner).
///
/// Exact: the intersection of two convex sets that contain `v` is larger than `{v}` iff an edge
/// of one triangle meets the other at a point other than `v`; for the two edges from `v` that
/// means the edge direction lies in the other triangle's corner cone at `v`.
///
/// # Performance
/// O(1): two orientation tests reject the common case (each triangle's free vertices strictly
/// on one side of the other's plane); otherwise up to about thirty.
pub fn triangles_cross_beyond_vertex(v: Vec3, a: [Vec3; 2], b: [Vec3; 2]) -> bool {
    shared_vertex_cross(to_f64(v), a.map(to_f64), b.map(to_f64))
}

/// How two triangles of one mesh relate by their vertex indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairTopology {
    /// They share two or three vertex indices (an edge, or the same triangle): adjacent, never a
    /// contact.
    Adjacent,
    /// They share exactly one vertex: `shared` is its index; `a` and `b` are the other two
    /// vertices of the first and of the second triangle.
    SharedVertex {
        /// The shared vertex.
        shared: u32,
        /// The first triangle's other two vertices.
        a: [u32; 2],
        /// The second triangle's other two vertices.
        b: [u32; 2],
    },
    /// No vertex in common.
    Disjoint,
}

/// Classifies a pair of triangles by shared vertex indices.
///
/// # Performance
/// O(1) (nine index comparisons).
#[inline]
pub fn pair_topology(t1: [u32; 3], t2: [u32; 3]) -> PairTopology {
    let mut shared = 0;
    let mut i1 = 0;
    let mut i2 = 0;
    for (i, &x) in t1.iter().enumerate() {
        if let Some(j) = t2.iter().position(|&y| y == x) {
            shared += 1;
            i1 = i;
            i2 = j;
        }
    }
    match shared {
        0 => PairTopology::Disjoint,
        1 => PairTopology::SharedVertex {
            shared: t1[i1],
            a: [t1[(i1 + 1) % 3], t1[(i1 + 2) % 3]],
            b: [t2[(i2 + 1) % 3], t2[(i2 + 2) % 3]],
        },
        _ => PairTopology::Adjacent,
    }
}

/// Whether triangles `t1` and `t2` of `mesh` are in contact under `positions`, respecting
/// topology: a triangle with itself or with a triangle sharing an edge never is; triangles
/// sharing exactly one vertex are when they meet beyond it ([`triangles_cross_beyond_vertex`]);
/// other pairs when they intersect at all ([`triangles_intersect`]).
///
/// # Panics
/// When `t1` or `t2` is not a triangle of `mesh`, or `positions` is shorter than the mesh's
/// vertex count (a caller bug, like slice indexing; the batch APIs of this module validate their
/// input and return errors instead).
///
/// # Performance
/// O(1), see [`triangles_intersect`].
#[inline]
pub fn mesh_triangles_collide(mesh: &TriangleMesh, positions: &[Vec3], t1: u32, t2: u32) -> bool {
    let tris = mesh.triangles();
    let (ta, tb) = (tris[t1 as usize], tris[t2 as usize]);
    let at = |i: u32| to_f64(positions[i as usize]);
    match pair_topology(ta, tb) {
        PairTopology::Adjacent => false,
        PairTopology::SharedVertex { shared, a, b } => {
            shared_vertex_cross(at(shared), a.map(at), b.map(at))
        }
        PairTopology::Disjoint => tri_tri(ta.map(at), tb.map(at)),
    }
}

// ---------------------------------------------------------------------------------------------
// Exact building blocks.

/// Drops coordinate `k`, keeping a cyclic order so that `orient2d` of the projection is the
/// sign of component `k` of the 3D cross product.
#[inline]
fn proj(p: P3, k: usize) -> P2 {
    [p[(k + 1) % 3], p[(k + 2) % 3]]
}

/// Sign of component `k` of `(b − a) × (c − a)`.
#[inline]
fn cross_sign(a: P3, b: P3, c: P3, k: usize) -> Sign {
    orient2d(proj(a, k), proj(b, k), proj(c, k))
}

/// A coordinate axis along which the plane of `a b c` projects injectively, or `None` when the
/// three points are collinear (every component of the exact normal is zero).
#[inline]
fn projection_axis(a: P3, b: P3, c: P3) -> Option<usize> {
    (0..3).find(|&k| cross_sign(a, b, c, k) != 0)
}

#[inline]
fn collinear(a: P3, b: P3, c: P3) -> bool {
    projection_axis(a, b, c).is_none()
}

/// `p` inside the closed axis-aligned box of `a` and `b` (2D).
#[inline]
fn in_box2(p: P2, a: P2, b: P2) -> bool {
    (0..2).all(|k| a[k].min(b[k]) <= p[k] && p[k] <= a[k].max(b[k]))
}

/// `p` inside the closed axis-aligned box of `a` and `b` (3D).
#[inline]
fn in_box3(p: P3, a: P3, b: P3) -> bool {
    (0..3).all(|k| a[k].min(b[k]) <= p[k] && p[k] <= a[k].max(b[k]))
}

/// `p` on the closed segment `a b` (3D, exact).
#[inline]
fn point_on_segment(p: P3, a: P3, b: P3) -> bool {
    collinear(a, b, p) && in_box3(p, a, b)
}

/// Closed segments `p q` and `r s` meet (2D, exact, degenerate segments allowed).
fn seg_seg_2d(p: P2, q: P2, r: P2, s: P2) -> bool {
    let o1 = orient2d(p, q, r);
    let o2 = orient2d(p, q, s);
    let o3 = orient2d(r, s, p);
    let o4 = orient2d(r, s, q);
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    (o1 == 0 && in_box2(r, p, q))
        || (o2 == 0 && in_box2(s, p, q))
        || (o3 == 0 && in_box2(p, r, s))
        || (o4 == 0 && in_box2(q, r, s))
}

/// `p` in the closed triangle `t` (2D, exact, degenerate triangles allowed).
fn point_in_tri_2d(p: P2, t: [P2; 3]) -> bool {
    let o = orient2d(t[0], t[1], t[2]);
    if o == 0 {
        return (0..3).any(|i| {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            orient2d(a, b, p) == 0 && in_box2(p, a, b)
        });
    }
    (0..3).all(|i| orient2d(t[i], t[(i + 1) % 3], p) * o >= 0)
}

/// Closed triangles meet (2D, exact, degenerate triangles allowed): a vertex of one lies in the
/// other, or two edges cross.
fn tri_tri_2d(a: [P2; 3], b: [P2; 3]) -> bool {
    a.iter().any(|&p| point_in_tri_2d(p, b))
        || b.iter().any(|&p| point_in_tri_2d(p, a))
        || (0..3).any(|i| (0..3).any(|j| seg_seg_2d(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])))
}

/// Closed segment `p q` meets the closed triangle `t` (2D).
fn seg_tri_2d(p: P2, q: P2, t: [P2; 3]) -> bool {
    point_in_tri_2d(p, t)
        || point_in_tri_2d(q, t)
        || (0..3).any(|i| seg_seg_2d(p, q, t[i], t[(i + 1) % 3]))
}

/// Closed segments meet (3D, exact). Coplanar sets meet iff their projections onto all three
/// coordinate planes meet: one of them is injective on any common plane or line.
fn seg_seg_3d(p: P3, q: P3, r: P3, s: P3) -> bool {
    orient3d(p, q, r, s) == 0
        && (0..3).all(|k| seg_seg_2d(proj(p, k), proj(q, k), proj(r, k), proj(s, k)))
}

/// Closed segment `p q` meets the closed triangle `t` (3D, exact, degenerate segment or
/// triangle allowed).
fn seg_tri_3d(p: P3, q: P3, t: [P3; 3]) -> bool {
    let Some(axis) = projection_axis(t[0], t[1], t[2]) else {
        // A degenerate triangle is the union of its edges.
        return (0..3).any(|i| seg_seg_3d(p, q, t[i], t[(i + 1) % 3]));
    };
    let op = orient3d(t[0], t[1], t[2], p);
    let oq = orient3d(t[0], t[1], t[2], q);
    if op * oq > 0 {
        return false;
    }
    if op == 0 && oq == 0 {
        return seg_tri_2d(proj(p, axis), proj(q, axis), t.map(|x| proj(x, axis)));
    }
    // The line crosses the plane at one point; it lies in the closed triangle iff it is on the
    // same side (or on) all three edges as seen along the line.
    let s = [
        orient3d(p, q, t[0], t[1]),
        orient3d(p, q, t[1], t[2]),
        orient3d(p, q, t[2], t[0]),
    ];
    s.iter().all(|&x| x >= 0) || s.iter().all(|&x| x <= 0)
}

/// Closed triangles meet, by the edge characterisation (valid for degenerate triangles too).
fn tri_tri_by_edges(a: [P3; 3], b: [P3; 3]) -> bool {
    (0..3).any(|i| seg_tri_3d(a[i], a[(i + 1) % 3], b) || seg_tri_3d(b[i], b[(i + 1) % 3], a))
}

/// Coplanar (or degenerate) pair: exact projection onto an injective coordinate plane, or the
/// edge characterisation when a triangle is degenerate.
#[cold]
fn tri_tri_coplanar_or_degenerate(a: [P3; 3], b: [P3; 3]) -> bool {
    match (
        projection_axis(a[0], a[1], a[2]),
        collinear(b[0], b[1], b[2]),
    ) {
        (Some(axis), false) => {
            // Both non-degenerate and (this function's precondition) coplanar.
            tri_tri_2d(a.map(|x| proj(x, axis)), b.map(|x| proj(x, axis)))
        }
        _ => tri_tri_by_edges(a, b),
    }
}

/// Guigue–Devillers' interval test after canonical permutation: `a[0]` alone on its side of
/// plane B, `b[0]` alone on its side of plane A, orientations arranged so that the two
/// triangles' intervals on the line of intersection overlap iff neither test is positive.
#[inline]
fn check_min_max(a: [P3; 3], b: [P3; 3]) -> bool {
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    orient3d(q1, p2, p1, q2) <= 0 && orient3d(p1, p2, r1, r2) <= 0
}

/// Permutes B into canonical form given the signs of its vertices against plane A
/// (Guigue–Devillers' `TRI_TRI_3D`).
fn tri_tri_3d(a: [P3; 3], b: [P3; 3], d: [Sign; 3]) -> Option<bool> {
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    let [dp2, dq2, dr2] = d;
    let r = if dp2 > 0 {
        if dq2 > 0 {
            check_min_max([p1, r1, q1], [r2, p2, q2])
        } else if dr2 > 0 {
            check_min_max([p1, r1, q1], [q2, r2, p2])
        } else {
            check_min_max([p1, q1, r1], [p2, q2, r2])
        }
    } else if dp2 < 0 {
        if dq2 < 0 {
            check_min_max([p1, q1, r1], [r2, p2, q2])
        } else if dr2 < 0 {
            check_min_max([p1, q1, r1], [q2, r2, p2])
        } else {
            check_min_max([p1, r1, q1], [p2, q2, r2])
        }
    } else if dq2 < 0 {
        if dr2 >= 0 {
            check_min_max([p1, r1, q1], [q2, r2, p2])
        } else {
            check_min_max([p1, q1, r1], [p2, q2, r2])
        }
    } else if dq2 > 0 {
        if dr2 > 0 {
            check_min_max([p1, r1, q1], [p2, q2, r2])
        } else {
            check_min_max([p1, q1, r1], [q2, r2, p2])
        }
    } else if dr2 > 0 {
        check_min_max([p1, q1, r1], [r2, p2, q2])
    } else if dr2 < 0 {
        check_min_max([p1, r1, q1], [r2, p2, q2])
    } else {
        return None;
    };
    Some(r)
}

/// Exact closed triangle–triangle test.
fn tri_tri(a: [P3; 3], b: [P3; 3]) -> bool {
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    let d1 = [
        orient3d(p2, q2, r2, p1),
        orient3d(p2, q2, r2, q1),
        orient3d(p2, q2, r2, r1),
    ];
    if d1[0] * d1[1] > 0 && d1[0] * d1[2] > 0 {
        return false;
    }
    let d2 = [
        orient3d(p1, q1, r1, p2),
        orient3d(p1, q1, r1, q2),
        orient3d(p1, q1, r1, r2),
    ];
    if d2[0] * d2[1] > 0 && d2[0] * d2[2] > 0 {
        return false;
    }
    if d1 == [0; 3] || d2 == [0; 3] {
        // Coplanar, or a degenerate triangle (whose "plane" makes every sign zero).
        return tri_tri_coplanar_or_degenerate(a, b);
    }
    let [dp1, dq1, dr1] = d1;
    let [dp2, dq2, dr2] = d2;
    // Canonical permutation of A (Guigue–Devillers' `tri_tri_overlap_test_3d`).
    let result = if dp1 > 0 {
        if dq1 > 0 {
            tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2])
        } else if dr1 > 0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2])
        }
    } else if dp1 < 0 {
        if dq1 < 0 {
            tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2])
        } else if dr1 < 0 {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2])
        } else {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2])
        }
    } else if dq1 < 0 {
        if dr1 >= 0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2])
        }
    } else if dq1 > 0 {
        if dr1 > 0 {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2])
        }
    } else if dr1 > 0 {
        tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2])
    } else {
        // dp1 = dq1 = 0 and dr1 < 0 (all three zero was handled above).
        tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2])
    };
    // `None` (all of B on plane A) cannot happen here: d2 is not all zero.
    result.unwrap_or_else(|| tri_tri_coplanar_or_degenerate(a, b))
}

/// Whether the direction `d − v` (non-zero) lies in the closed cone at `v` spanned by `u − v`
/// and `w − v` (the corner cone of triangle `v u w`), exactly.
fn direction_in_corner(v: P3, d: P3, u: P3, w: P3) -> bool {
    if d == v {
        return false;
    }
    match projection_axis(v, u, w) {
        Some(k) => {
            // A proper wedge (angle < π) in the plane of v u w.
            if orient3d(v, u, w, d) != 0 {
                return false;
            }
            let s = cross_sign(v, u, w, k);
            cross_sign(v, u, d, k) * s >= 0 && cross_sign(v, d, w, k) * s >= 0
        }
        None => {
            // Degenerate corner: the union of the rays towards u and towards w (a ray, a line
            // or nothing).
            let along = |e: P3| e != v && collinear(v, e, d) && dot_sign(v, e, d) > 0;
            along(u) || along(w)
        }
    }
}

/// Triangles `v a0 a1` and `v b0 b1` meet somewhere other than `v` (exact).
fn shared_vertex_cross(v: P3, a: [P3; 2], b: [P3; 2]) -> bool {
    // Fast rejection: if the free vertices of one triangle lie strictly on one side of the
    // other's plane, that triangle touches the plane only at v.
    let sb = [orient3d(v, a[0], a[1], b[0]), orient3d(v, a[0], a[1], b[1])];
    if sb[0] * sb[1] > 0 {
        return false;
    }
    let sa = [orient3d(v, b[0], b[1], a[0]), orient3d(v, b[0], b[1], a[1])];
    if sa[0] * sa[1] > 0 {
        return false;
    }
    // An edge from v pointing into the other triangle's corner cone.
    if direction_in_corner(v, a[0], b[0], b[1])
        || direction_in_corner(v, a[1], b[0], b[1])
        || direction_in_corner(v, b[0], a[0], a[1])
        || direction_in_corner(v, b[1], a[0], a[1])
    {
        return true;
    }
    // The edge opposite v meeting the other triangle (when v lies on that edge, the triangle
    // is degenerate and the edge is covered by the two edges from v tested above).
    let opposite =
        |e: [P3; 2], t: [P3; 3]| !point_on_segment(v, e[0], e[1]) && seg_tri_3d(e[0], e[1], t);
    opposite(a, [v, b[0], b[1]]) || opposite(b, [v, a[0], a[1]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }

    /// Every argument order gives the same answer (a property of an exact test).
    fn intersect_sym(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
        let r = triangles_intersect(a, b);
        for perm in [
            [0, 1, 2],
            [1, 2, 0],
            [2, 0, 1],
            [0, 2, 1],
            [2, 1, 0],
            [1, 0, 2],
        ] {
            let pa = perm.map(|i| a[i]);
            let pb = perm.map(|i| b[i]);
            assert_eq!(triangles_intersect(pa, b), r, "{a:?} {b:?}");
            assert_eq!(triangles_intersect(b, pa), r, "{a:?} {b:?}");
            assert_eq!(triangles_intersect(a, pb), r, "{a:?} {b:?}");
        }
        r
    }

    #[test]
    fn hand_cases() {
        let base = [v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0)];
        // (whether B meets the base, B).
        let cases: [(bool, [[f32; 3]; 3]); 14] = [
            // Crossing: a vertical triangle piercing the base.
            (true, [[0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [0.5, 3.0, 0.0]]),
            // Disjoint: same shape lifted.
            (false, [[0.5, 0.5, 0.1], [0.5, 0.5, 1.0], [0.5, 3.0, 0.5]]),
            // Disjoint: plane crossing outside the triangle.
            (false, [[3.0, 3.0, -1.0], [3.0, 3.0, 1.0], [4.0, 3.0, 0.0]]),
            // Touching: a vertex of B exactly on the interior of A.
            (true, [[0.5, 0.5, 0.0], [0.5, 0.5, 1.0], [1.0, 0.5, 1.0]]),
            // Touching: B's edge meets A's plane at one point of A's edge.
            (true, [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [3.0, 3.0, 1.0]]),
            // Touching: B's edge lies along A's hypotenuse.
            (true, [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0]]),
            // Coplanar overlap.
            (true, [[1.0, 1.0, 0.0], [-1.0, 1.0, 0.0], [1.0, -1.0, 0.0]]),
            // Coplanar containment.
            (true, [[0.2, 0.2, 0.0], [0.6, 0.2, 0.0], [0.2, 0.6, 0.0]]),
            // Coplanar disjoint.
            (false, [[1.1, 1.1, 0.0], [3.0, 1.1, 0.0], [1.1, 3.0, 0.0]]),
            // Coplanar vertex touch.
            (true, [[2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [3.0, 1.0, 0.0]]),
            // Degenerate: a segment piercing A.
            (true, [[0.5, 0.5, -1.0], [0.5, 0.5, 0.0], [0.5, 0.5, 1.0]]),
            // Degenerate: a segment beside A.
            (false, [[3.0, 0.5, -1.0], [3.0, 0.5, 0.0], [3.0, 0.5, 1.0]]),
            // Degenerate: a point on A.
            (true, [[0.5, 0.5, 0.0]; 3]),
            // Degenerate: a point above A.
            (false, [[0.5, 0.5, 0.5]; 3]),
        ];
        for (k, (expected, b)) in cases.into_iter().enumerate() {
            assert_eq!(
                intersect_sym(base, b.map(Vec3::from_array)),
                expected,
                "case {k}"
            );
        }
    }

    /// Mesh topology: a shared edge folded flat, shared vertices with and without a crossing.
    #[test]
    fn topology_cases() {
        let rest = vec![
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.0, 1.0, 0.0),
            v(0.0, -1.0, 0.0),
            v(3.0, 3.0, 3.0),
            v(-1.0, 0.5, -1.0),
            v(-1.0, 0.5, 1.0),
            v(0.3, 0.3, 1.0),
            v(0.3, 0.3, -1.0),
        ];
        let mesh = TriangleMesh::new(
            rest.clone(),
            vec![[0, 1, 2], [1, 0, 3], [0, 5, 6], [0, 7, 8], [4, 5, 6]],
        )
        .unwrap();
        // Fold triangle 1 about the edge (0, 1) onto triangle 0: they coincide.
        let mut folded = rest;
        folded[3] = folded[2];
        assert!(triangles_intersect(
            mesh.corners(&folded, 0),
            mesh.corners(&folded, 1)
        ));
        assert!(!mesh_triangles_collide(&mesh, &folded, 0, 1));
        assert!(!mesh_triangles_collide(&mesh, &folded, 0, 0));
        // Triangle 2 shares vertex 0; its plane y = −x/2 meets triangle 0 (x, y ≥ 0) only there.
        assert!(triangles_intersect(
            mesh.corners(&folded, 0),
            mesh.corners(&folded, 2)
        ));
        assert!(!mesh_triangles_collide(&mesh, &folded, 0, 2));
        // Triangle 3 shares vertex 0 and stands in the plane x = y through triangle 0's interior
        // (it contains the segment from vertex 0 to (0.3, 0.3, 0)): a real crossing.
        assert!(mesh_triangles_collide(&mesh, &folded, 0, 3));
        assert!(mesh_triangles_collide(&mesh, &folded, 3, 0));
        // Triangle 4 shares no vertex with triangle 3; it meets the plane x = y only at (3, 3, 3).
        assert!(!mesh_triangles_collide(&mesh, &folded, 3, 4));
    }

    #[test]
    fn shared_vertex_cases() {
        let o = v(0.0, 0.0, 0.0);
        let a = [v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
        // (whether (o, B) meets (o, A) beyond o, B's free corners).
        let cases: [(bool, [[f32; 3]; 2]); 9] = [
            // Folded away (a fan): only the corner in common.
            (false, [[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]),
            // Coplanar, wedges adjacent: touching along a ray from the corner.
            (true, [[0.0, 2.0, 0.0], [-1.0, 0.0, 0.0]]),
            // Coplanar, wedges overlapping.
            (true, [[1.0, 1.0, 0.0], [-1.0, 2.0, 0.0]]),
            // Coplanar, small triangle inside the wedge near the corner.
            (true, [[0.1, 0.05, 0.0], [0.05, 0.1, 0.0]]),
            // Transversal crossing through the interior (no edge of one in the other's cone).
            (true, [[1.0, 1.0, 1.0], [1.0, 1.0, -1.0]]),
            // Transversal, the planes meet outside both triangles near the corner.
            (false, [[-1.0, -1.0, 1.0], [-1.0, -1.0, -1.0]]),
            // No edge from o enters A's corner, but B's opposite edge pierces A.
            (true, [[0.9, 0.9, 3.0], [0.3, 0.3, -1.0]]),
            // Degenerate B (collinear with o) along A's edge: overlap beyond o.
            (true, [[0.5, 0.0, 0.0], [2.0, 0.0, 0.0]]),
            // Degenerate B pointing away from A.
            (false, [[-0.5, 0.0, 0.0], [-2.0, 0.0, 0.0]]),
        ];
        for (k, (expected, b)) in cases.into_iter().enumerate() {
            let got = triangles_cross_beyond_vertex(o, a, b.map(Vec3::from_array));
            assert_eq!(got, expected, "case {k}");
        }
    }

    // -----------------------------------------------------------------------------------------
    // Independent slow reference: integer coordinates, i64 arithmetic, edge characterisation.

    type I3 = [i64; 3];

    fn orient_i(a: I3, b: I3, c: I3, d: I3) -> i64 {
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let w1 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let w2 = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
        (u[0] * (w1[1] * w2[2] - w1[2] * w2[1])
            + u[1] * (w1[2] * w2[0] - w1[0] * w2[2])
            + u[2] * (w1[0] * w2[1] - w1[1] * w2[0]))
            .signum()
    }

    fn cross_i(a: I3, b: I3, c: I3) -> I3 {
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ]
    }

    /// Point `x` on closed segment `a b` (3D, exact): collinear and between.
    fn on_seg_i(x: I3, a: I3, b: I3) -> bool {
        cross_i(a, b, x) == [0; 3]
            && (0..3).all(|k| a[k].min(b[k]) <= x[k] && x[k] <= a[k].max(b[k]))
    }

    /// Closed segments in 3D: an endpoint on the other segment, or a proper crossing of two
    /// coplanar segments (each strictly separates the other's endpoints within their plane).
    fn seg_seg_i(p: I3, q: I3, r: I3, s: I3) -> bool {
        if on_seg_i(p, r, s) || on_seg_i(q, r, s) || on_seg_i(r, p, q) || on_seg_i(s, p, q) {
            return true;
        }
        if orient_i(p, q, r, s) != 0 {
            return false;
        }
        // Coplanar, no endpoint on the other segment: they meet iff they cross properly, i.e.
        // r and s strictly on opposite sides of line pq and p, q strictly on opposite sides of
        // line rs (sides measured with the plane normal).
        let n = {
            let c1 = cross_i(p, q, r);
            let c2 = cross_i(p, q, s);
            let c3 = cross_i(r, s, p);
            [c1, c2, c3].into_iter().find(|c| *c != [0; 3])
        };
        let Some(n) = n else { return false }; // all collinear and no endpoint inside: disjoint
        let side = |a: I3, b: I3, x: I3| {
            let c = cross_i(a, b, x);
            (c[0] as i128 * n[0] as i128
                + c[1] as i128 * n[1] as i128
                + c[2] as i128 * n[2] as i128)
                .signum()
        };
        side(p, q, r) * side(p, q, s) < 0 && side(r, s, p) * side(r, s, q) < 0
    }

    /// Point `x` in closed triangle `t` (3D, exact).
    fn point_in_tri_i(x: I3, t: [I3; 3]) -> bool {
        let n = cross_i(t[0], t[1], t[2]);
        if n == [0; 3] {
            return (0..3).any(|i| on_seg_i(x, t[i], t[(i + 1) % 3]));
        }
        if orient_i(t[0], t[1], t[2], x) != 0 {
            return false;
        }
        (0..3).all(|i| {
            let c = cross_i(t[i], t[(i + 1) % 3], x);
            c[0] as i128 * n[0] as i128 + c[1] as i128 * n[1] as i128 + c[2] as i128 * n[2] as i128
                >= 0
        })
    }

    /// Closed segment vs closed triangle by exact rational intersection point.
    fn seg_tri_i(p: I3, q: I3, t: [I3; 3]) -> bool {
        let n = cross_i(t[0], t[1], t[2]);
        if n == [0; 3] {
            return (0..3).any(|i| seg_seg_i(p, q, t[i], t[(i + 1) % 3]));
        }
        let dot = |a: I3| -> i128 {
            (0..3)
                .map(|k| (a[k] - t[0][k]) as i128 * n[k] as i128)
                .sum()
        };
        let (dp, dq) = (dot(p), dot(q));
        if dp == 0 && dq == 0 {
            return point_in_tri_i(p, t)
                || point_in_tri_i(q, t)
                || (0..3).any(|i| seg_seg_i(p, q, t[i], t[(i + 1) % 3]));
        }
        if (dp > 0 && dq > 0) || (dp < 0 && dq < 0) {
            return false;
        }
        // X = p + (dp / (dp − dq)) (q − p); scale everything by den = dp − dq to stay integral.
        let den = dp - dq;
        let xs: [i128; 3] =
            std::array::from_fn(|k| p[k] as i128 * den + dp * (q[k] - p[k]) as i128);
        let sgn = den.signum();
        (0..3)
            .map(|i| {
                let (a, b) = (t[i], t[(i + 1) % 3]);
                // (b − a) × (X − a) · n with X = xs / den, times den.
                let e = [
                    (b[0] - a[0]) as i128,
                    (b[1] - a[1]) as i128,
                    (b[2] - a[2]) as i128,
                ];
                let w: [i128; 3] = std::array::from_fn(|k| xs[k] - a[k] as i128 * den);
                let c = [
                    e[1] * w[2] - e[2] * w[1],
                    e[2] * w[0] - e[0] * w[2],
                    e[0] * w[1] - e[1] * w[0],
                ];
                (c[0] * n[0] as i128 + c[1] * n[1] as i128 + c[2] * n[2] as i128) * sgn
            })
            .all(|x| x >= 0)
    }

    fn tri_tri_i(a: [I3; 3], b: [I3; 3]) -> bool {
        (0..3).any(|i| seg_tri_i(a[i], a[(i + 1) % 3], b) || seg_tri_i(b[i], b[(i + 1) % 3], a))
    }

    fn to_vec3(p: I3) -> Vec3 {
        Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)
    }

    /// Random triangles on a tiny integer grid: most pairs are degenerate in some way
    /// (coplanar, touching, collinear), which is where a test can go wrong.
    #[test]
    fn random_grid_pairs_match_integer_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut hits = 0;
        let mut coplanar = 0;
        let n = 60_000;
        for i in 0..n {
            let span = if i % 2 == 0 { 2 } else { 4 };
            let mut pt = || -> I3 { std::array::from_fn(|_| rng.random_range(-span..=span)) };
            let a = [pt(), pt(), pt()];
            let mut b = [pt(), pt(), pt()];
            if i % 5 == 0 {
                // Force coplanar pairs: B in the plane z = a's z of a flat A.
                let z = a[0][2];
                let a_flat = a.map(|p| [p[0], p[1], z]);
                b = b.map(|p| [p[0], p[1], z]);
                let expected = tri_tri_i(a_flat, b);
                assert_eq!(
                    triangles_intersect(a_flat.map(to_vec3), b.map(to_vec3)),
                    expected,
                    "{a_flat:?} {b:?}"
                );
                coplanar += 1;
                continue;
            }
            let expected = tri_tri_i(a, b);
            let got = triangles_intersect(a.map(to_vec3), b.map(to_vec3));
            assert_eq!(got, expected, "{a:?} {b:?}");
            hits += got as usize;
        }
        assert!(
            hits > n / 20 && hits < n * 19 / 20,
            "unbalanced sample: {hits} of {n}"
        );
        assert!(coplanar > 0);
    }

    /// Random triangles sharing a vertex on an integer grid, against an independent criterion.
    #[test]
    fn random_shared_vertex_pairs_match_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut crossings = 0;
        let n = 100_000;
        for _ in 0..n {
            let mut pt = || -> I3 { std::array::from_fn(|_| 2 * rng.random_range(-2i64..=2)) };
            let (o, a0, a1, b0, b1) = (pt(), pt(), pt(), pt(), pt());
            let expected = reference_shared(o, [a0, a1], [b0, b1]);
            let got = triangles_cross_beyond_vertex(
                to_vec3(o),
                [to_vec3(a0), to_vec3(a1)],
                [to_vec3(b0), to_vec3(b1)],
            );
            assert_eq!(got, expected, "{o:?} {a0:?} {a1:?} {b0:?} {b1:?}");
            crossings += got as usize;
        }
        assert!(crossings > n / 50, "too few crossings: {crossings}");
    }

    /// Reference for "T1 = (o, a0, a1) and T2 = (o, b0, b1) meet beyond o". Both are convex and
    /// contain o, so they do iff their corner cones at o share a non-zero direction. That
    /// intersection, when not {0}, contains one of these candidates: a spanning vector of either
    /// cone (coplanar wedges, and degenerate cones that are rays or lines), or ±(n1 × n2) (the
    /// planes' common line, for non-parallel planes). Each candidate is tested for membership
    /// with integer dot and cross products (no projection, unlike the code under test).
    fn reference_shared(o: I3, a: [I3; 2], b: [I3; 2]) -> bool {
        let rel = |p: I3| [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
        let dotv = |x: I3, y: I3| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let crossv = |x: I3, y: I3| {
            [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ]
        };
        let in_cone = |d: I3, u: I3, w: I3| -> bool {
            let n = crossv(u, w);
            if n == [0; 3] {
                let ray = |e: I3| e != [0; 3] && crossv(e, d) == [0; 3] && dotv(e, d) > 0;
                return ray(u) || ray(w);
            }
            dotv(n, d) == 0 && dotv(crossv(u, d), n) >= 0 && dotv(crossv(d, w), n) >= 0
        };
        let (u1, w1, u2, w2) = (rel(a[0]), rel(a[1]), rel(b[0]), rel(b[1]));
        let line = crossv(crossv(u1, w1), crossv(u2, w2));
        [u1, w1, u2, w2, line, line.map(|x| -x)]
            .into_iter()
            .any(|d| d != [0; 3] && in_cone(d, u1, w1) && in_cone(d, u2, w2))
    }

    /// Random float triangles in general position: compare with an f64 Möller-style reference
    /// (segment–plane intersection points, barycentric inside test) away from degeneracy.
    #[test]
    fn random_float_pairs_match_f64_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut agree = 0;
        let mut hits = 0;
        for _ in 0..100_000 {
            let mut pt = || {
                Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
            };
            let a = [pt(), pt(), pt()];
            let b = [pt() * 0.7, pt() * 0.7, pt() * 0.7];
            let Some(expected) = float_reference(a.map(to_f64), b.map(to_f64)) else {
                continue;
            };
            assert_eq!(triangles_intersect(a, b), expected, "{a:?} {b:?}");
            agree += 1;
            hits += expected as usize;
        }
        assert!(agree > 90_000, "{agree}");
        assert!(hits > 5_000, "{hits}");
    }

    /// f64 segment–triangle reference with a margin; `None` when any decision is within the
    /// margin (near-degenerate sample, skipped).
    fn float_reference(a: [P3; 3], b: [P3; 3]) -> Option<bool> {
        let sub = |x: P3, y: P3| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        let dot = |x: P3, y: P3| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let cross = |x: P3, y: P3| {
            [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ]
        };
        let eps = 1e-9;
        let seg_tri = |p: P3, q: P3, t: [P3; 3]| -> Option<bool> {
            let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
            let dp = dot(sub(p, t[0]), n);
            let dq = dot(sub(q, t[0]), n);
            if dp.abs() < eps || dq.abs() < eps {
                return None;
            }
            if (dp > 0.0) == (dq > 0.0) {
                return Some(false);
            }
            let s = dp / (dp - dq);
            let x = [
                p[0] + s * (q[0] - p[0]),
                p[1] + s * (q[1] - p[1]),
                p[2] + s * (q[2] - p[2]),
            ];
            let mut inside = true;
            for i in 0..3 {
                let c = dot(cross(sub(t[(i + 1) % 3], t[i]), sub(x, t[i])), n);
                if c.abs() < eps {
                    return None;
                }
                inside &= c > 0.0;
            }
            Some(inside)
        };
        let mut any = false;
        for i in 0..3 {
            any |= seg_tri(a[i], a[(i + 1) % 3], b)?;
            any |= seg_tri(b[i], b[(i + 1) % 3], a)?;
        }
        Some(any)
    }
}
