//! The local self-collision check after some vertices moved (a weight change under plasticity): triangle pairs that collide now, touch a moved vertex, and did not collide with those vertices at their previous positions.
//!
//! It lives with the shape, not with the other self-collision code: it is a method of
//! [`DeformableMeshShape`] that reads the shape's private lazy caches (node boxes refit on demand
//! at the shape's epoch, cached vertices, vertex → triangle incidence). `bn_tree` sits above
//! `shape` and cannot see the shape; the routes below it (`crash`, whose self-intersection guard
//! calls it, and `character`) would need those caches made crate-visible. The exact leaf test
//! it shares with every other method comes from [`crate::geometry`].

use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};

use super::DeformableMeshShape;
use super::deformable_mesh_shape::MeshIncidence;
use crate::geometry::predicates::orient2d;
use crate::geometry::{triangles_cross_beyond_vertex, triangles_intersect};
use crate::math::Vec3;

/// Reusable memory of [`DeformableMeshShape::new_self_collisions`] (no allocation after
/// warm-up).
#[derive(Clone, Debug, Default)]
pub struct SelfCheckScratch {
    moved: Vec<(u32, Vec3)>,
    /// Triangles around moved vertices, sorted.
    triangles: Vec<u32>,
    /// Vertices of those triangles, sorted: the apexes of every vertex-sharing pair to check.
    corners: Vec<u32>,
    /// The same as (leaf, triangle), sorted by leaf.
    by_leaf: Vec<(u32, u32)>,
    /// Candidates of one leaf group: triangle, its current box, and whether it is a changed
    /// triangle.
    candidates: Vec<(u32, Aabb, bool)>,
    stack: Vec<u32>,
    /// The link of one vertex fan (its ring of neighbours in winding order).
    link: Vec<u32>,
    /// Current box of each triangle, valid where its stamp equals `call` (computed once per
    /// call, shared by the groups whose queries reach it).
    boxes: Vec<(u32, Aabb)>,
    /// Per triangle: `call` when it uses a moved vertex (O(1) membership in `triangles`).
    changed: Vec<u32>,
    /// Per vertex: `call` when it moved, with its index in `moved`.
    moved_at: Vec<(u32, u32)>,
    call: u32,
}

/// The corner of `v` in triangle `t`.
#[inline]
fn corner(t: [u32; 3], v: u32) -> Option<usize> {
    t.iter().position(|&x| x == v)
}

/// Whether triangles `ta` and `tb` share a vertex index.
#[inline]
fn share_a_vertex(ta: [u32; 3], tb: [u32; 3]) -> bool {
    ta.iter().any(|x| tb.contains(x))
}

/// `p` without coordinate `k` (cyclic order: `orient2d` of projections is the sign of component
/// `k` of the 3D cross product).
#[inline]
fn project(p: Vec3, k: usize) -> [f64; 2] {
    let a = p.to_array();
    [a[(k + 1) % 3] as f64, a[(k + 2) % 3] as f64]
}

/// Whether the fan of triangles around vertex `v` is an *injective star* under the current
/// positions `pos`: walking around `v` across the mesh's edges visits every triangle of `fan`
/// (its incident triangles) once, consistently oriented, and their projections onto a
/// coordinate plane (along the axis of the fan's largest normal component) are strictly
/// oriented sectors around `v` with the same sign, turning around `v` exactly once.
///
/// Then no two triangles of the fan sharing only `v` meet beyond `v` (the test
/// [`triangles_cross_beyond_vertex`] would say `false` for every such pair): non-adjacent
/// sectors of a star that turns once meet only at `v`'s projection, so a common point `p` of the
/// two triangles projects onto `v`'s projection; each triangle projects injectively (its sector
/// is strictly oriented), so `p = v`. Every sign is an exact orientation predicate of the `f32`
/// positions; the axis choice (rounded) only decides whether the certificate is found, never
/// what it proves. `false` means "not certified" (boundary and non-manifold vertices, folded or
/// degenerate fans): the pairs are then tested one by one.
///
/// # Performance
/// O(k) for a fan of k triangles: k orientation signs and up to 2(k − 2) more for the turn.
fn fan_is_star(
    v: u32,
    fan: &[u32],
    triangles: &[[u32; 3]],
    incidence: &MeshIncidence,
    pos: impl Fn(u32) -> Vec3,
    link: &mut Vec<u32>,
) -> bool {
    let k = fan.len();
    if k < 3 {
        return false;
    }
    let t0 = fan[0];
    let Some(i0) = corner(triangles[t0 as usize], v) else {
        return false;
    };
    link.clear();
    link.push(triangles[t0 as usize][(i0 + 1) % 3]);
    let mut t = t0;
    for step in 1..=k {
        let tri = triangles[t as usize];
        let Some(i) = corner(tri, v) else {
            return false;
        };
        // The previous triangle's far edge (v, w) is this one's edge (w, v) reversed: the
        // corner after v is w (consistent orientation).
        if link.last() != Some(&tri[(i + 1) % 3]) {
            return false;
        }
        link.push(tri[(i + 2) % 3]);
        // Across the edge (corner i + 2, corner i) = (next link vertex, v).
        let next = incidence.edge_neighbors[t as usize][(i + 2) % 3];
        if (next == t0) != (step == k) || next == u32::MAX {
            return false;
        }
        t = next;
    }
    if link[k] != link[0] {
        return false;
    }
    let c3 = pos(v);
    let mut normal = Vec3::ZERO;
    for w in link.windows(2) {
        normal += (pos(w[0]) - c3).cross(pos(w[1]) - c3);
    }
    let n = normal.abs().to_array();
    let axis = if n[0] >= n[1] && n[0] >= n[2] {
        0
    } else if n[1] >= n[2] {
        1
    } else {
        2
    };
    let c = project(c3, axis);
    let w = |j: usize| project(pos(link[j]), axis);
    // Every sector strictly oriented, all the same way.
    let w0 = w(0);
    let sign = orient2d(c, w0, w(1));
    if sign == 0 {
        return false;
    }
    let mut a = w(1);
    for j in 1..k {
        let b = w(j + 1);
        if orient2d(c, a, b) != sign {
            return false;
        }
        a = b;
    }
    // Each sector is less than a half turn, so the fan turns `W ≥ 1` times around v, and the
    // direction of w0 lies in exactly `W` of the half-open sectors (θ_j, θ_(j+1)]: always in the
    // last one, never in the first. W = 1 iff no sector in between contains it.
    let mut a = w(1);
    for j in 1..k - 1 {
        let b = w(j + 1);
        if orient2d(c, a, w0) == sign && orient2d(c, w0, b) != -sign {
            return false;
        }
        a = b;
    }
    true
}

impl DeformableMeshShape {
    /// The self-collisions a change created: every pair `[t1, t2]` (`t1 < t2`, sorted, written to
    /// `out`) of triangles that collide under the current positions, where at least one of them
    /// uses a vertex of `moved`, and that did *not* collide with each moved vertex at its
    /// position before the change (`moved[i] = (vertex, previous position)`). "Collide" is the
    /// exact, topology-aware test of [`crate::geometry::mesh_triangles_collide`].
    ///
    /// Pairs of two triangles none of whose vertices moved cannot have changed (vertices listed
    /// in `moved` at their previous position count as not moved), so this is exactly the set
    /// difference "pairs now minus pairs before" of a full self-collision query, found locally
    /// from the triangles around moved vertices ("changed" triangles):
    ///
    /// * Triangles sharing an edge never collide: nothing to test.
    /// * Triangles sharing one vertex `v` are pairs of `v`'s fan, enumerated from the mesh
    ///   topology (no box test) at every vertex of a changed triangle, each pair once. A fan that
    ///   is an injective star around `v` in a coordinate projection (an O(k) exact certificate)
    ///   has no colliding pair; the pairs of other fans take the exact shared-vertex test
    ///   ([`crate::geometry::triangles_cross_beyond_vertex`]).
    /// * Triangles sharing no vertex are found through the tree: the changed triangles are
    ///   grouped by the leaf that holds them, each group's box queries the tree once (lazy
    ///   refits), each changed triangle is tested against the candidates whose boxes it
    ///   overlaps with the exact triangle–triangle test.
    ///
    /// The "before" test runs only for pairs that collide now.
    ///
    /// # Performance
    /// O(k log k + g · log T + k · c + Σ fan sizes) for k triangles around moved vertices in g
    /// leaves with c candidates per group; no allocation after warm-up.
    pub fn new_self_collisions(
        &self,
        moved: &[(u32, Vec3)],
        scratch: &mut SelfCheckScratch,
        out: &mut Vec<[u32; 2]>,
    ) {
        out.clear();
        let n = self.tree.rest_positions().len() as u32;
        // Only vertices that did move can change a pair.
        scratch.moved.clear();
        scratch.moved.extend(
            moved
                .iter()
                .copied()
                .filter(|&(v, p)| v < n && self.vertex(v) != p),
        );
        scratch.moved.sort_by_key(|m| m.0);
        scratch.moved.dedup_by_key(|m| m.0);
        let incidence = self.incidence();
        scratch.triangles.clear();
        for &(v, _) in &scratch.moved {
            scratch
                .triangles
                .extend_from_slice(incidence.triangles_of(v));
        }
        scratch.triangles.sort_unstable();
        scratch.triangles.dedup();
        let tris = self.tree.mesh().triangles();
        let t_count = self.tree.mesh().triangle_count();
        if scratch.boxes.len() != t_count || scratch.moved_at.len() != n as usize {
            scratch.boxes.clear();
            scratch.boxes.resize(t_count, (0, Aabb::new_invalid()));
            scratch.changed.clear();
            scratch.changed.resize(t_count, 0);
            scratch.moved_at.clear();
            scratch.moved_at.resize(n as usize, (0, 0));
            scratch.call = 0;
        }
        scratch.call = scratch.call.wrapping_add(1);
        if scratch.call == 0 {
            scratch.boxes.iter_mut().for_each(|b| b.0 = 0);
            scratch.changed.fill(0);
            scratch.moved_at.fill((0, 0));
            scratch.call = 1;
        }
        let SelfCheckScratch {
            moved,
            triangles,
            corners,
            by_leaf,
            candidates,
            stack,
            link,
            boxes,
            changed: changed_stamp,
            moved_at,
            call,
        } = scratch;
        let call = *call;
        for &t in triangles.iter() {
            changed_stamp[t as usize] = call;
        }
        for (i, &(v, _)) in moved.iter().enumerate() {
            moved_at[v as usize] = (call, i as u32);
        }
        let now = |v: u32| self.vertex(v);
        let before = |v: u32| match moved_at[v as usize] {
            (c, i) if c == call => moved[i as usize].1,
            _ => self.vertex(v),
        };
        // Pairs sharing one vertex: per fan, from the topology.
        corners.clear();
        corners.extend(triangles.iter().flat_map(|&t| tris[t as usize]));
        corners.sort_unstable();
        corners.dedup();
        for &v in corners.iter() {
            let fan = incidence.triangles_of(v);
            if fan.len() < 2 || fan_is_star(v, fan, tris, incidence, now, link) {
                continue;
            }
            for (i, &t) in fan.iter().enumerate() {
                let ta = tris[t as usize];
                let t_changed = changed_stamp[t as usize] == call;
                for &u in &fan[i + 1..] {
                    if !t_changed && changed_stamp[u as usize] != call {
                        continue;
                    }
                    let tb = tris[u as usize];
                    let (Some(ci), Some(cj)) = (corner(ta, v), corner(tb, v)) else {
                        continue;
                    };
                    let a = [ta[(ci + 1) % 3], ta[(ci + 2) % 3]];
                    let b = [tb[(cj + 1) % 3], tb[(cj + 2) % 3]];
                    if a.iter().any(|x| b.contains(x)) {
                        // An edge (or the whole triangle) in common: adjacent, never a contact.
                        continue;
                    }
                    let cross = |p: &dyn Fn(u32) -> Vec3| {
                        triangles_cross_beyond_vertex(p(v), a.map(p), b.map(p))
                    };
                    if cross(&now) && !cross(&before) {
                        out.push([t.min(u), t.max(u)]);
                    }
                }
            }
        }
        // Pairs sharing no vertex: through the tree. The changed triangles grouped by leaf: one
        // tree query per group (changed triangles are clustered), then each against the group's
        // candidates by box.
        let mut box_of = |t: u32| {
            let slot = &mut boxes[t as usize];
            if slot.0 != call {
                *slot = (call, self.triangle(t).local_aabb());
            }
            slot.1
        };
        by_leaf.clear();
        by_leaf.extend(
            triangles
                .iter()
                .map(|&t| (incidence.triangle_leaf[t as usize], t)),
        );
        by_leaf.sort_unstable();
        let mut start = 0;
        while start < by_leaf.len() {
            let leaf = by_leaf[start].0;
            let end = start
                + by_leaf[start..]
                    .iter()
                    .take_while(|(l, _)| *l == leaf)
                    .count();
            let group = &by_leaf[start..end];
            start = end;
            let mut query = Aabb::new_invalid();
            for &(_, t) in group {
                query.merge(&box_of(t));
            }
            candidates.clear();
            stack.clear();
            stack.push(0);
            while let Some(i) = stack.pop() {
                if !self.node_aabb(i).intersects(&query) {
                    continue;
                }
                let node = self.tree.nodes()[i as usize];
                if let Some([l, r]) = node.children {
                    stack.push(r);
                    stack.push(l);
                    continue;
                }
                for &u in self.tree.node_triangles(i as usize) {
                    let aabb = box_of(u);
                    if aabb.intersects(&query) {
                        candidates.push((u, aabb, changed_stamp[u as usize] == call));
                    }
                }
            }
            for &(_, t) in group {
                let ta = tris[t as usize];
                let aabb = box_of(t);
                for &(u, ub, changed) in candidates.iter() {
                    // Pairs of two moved triangles are taken once, from the smaller index.
                    if !ub.intersects(&aabb) || (changed && u <= t) {
                        continue;
                    }
                    let tb = tris[u as usize];
                    if share_a_vertex(ta, tb) {
                        continue;
                    }
                    if triangles_intersect(ta.map(now), tb.map(now))
                        && !triangles_intersect(ta.map(before), tb.map(before))
                    {
                        out.push([t.min(u), t.max(u)]);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}
