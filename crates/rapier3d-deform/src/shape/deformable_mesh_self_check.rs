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
use crate::geometry::{
    PairTopology, pair_topology, triangles_cross_beyond_vertex, triangles_intersect,
};
use crate::math::Vec3;

/// Reusable memory of [`DeformableMeshShape::new_self_collisions`] (no allocation after
/// warm-up).
#[derive(Clone, Debug, Default)]
pub struct SelfCheckScratch {
    moved: Vec<(u32, Vec3)>,
    /// Triangles around moved vertices, sorted.
    triangles: Vec<u32>,
    /// The same as (leaf, triangle), sorted by leaf.
    by_leaf: Vec<(u32, u32)>,
    /// Candidates of one leaf group: triangle, its current box, and whether it is a changed
    /// triangle.
    candidates: Vec<(u32, Aabb, bool)>,
    stack: Vec<u32>,
    /// Current box of each triangle, valid where its stamp equals `call` (computed once per
    /// call, shared by the groups whose queries reach it).
    boxes: Vec<(u32, Aabb)>,
    /// Per triangle: `call` when it uses a moved vertex (O(1) membership in `triangles`).
    changed: Vec<u32>,
    /// Per vertex: `call` when it moved, with its index in `moved`.
    moved_at: Vec<(u32, u32)>,
    call: u32,
}

/// Whether triangles `ta` and `tb` (vertex indices) collide under `pos`, with the topology rules
/// of [`crate::geometry::mesh_triangles_collide`] (edge-adjacent never; vertex-sharing only
/// beyond the shared vertex).
#[inline]
fn collide(ta: [u32; 3], tb: [u32; 3], pos: impl Fn(u32) -> Vec3) -> bool {
    match pair_topology(ta, tb) {
        PairTopology::Adjacent => false,
        PairTopology::SharedVertex { shared, a, b } => {
            triangles_cross_beyond_vertex(pos(shared), a.map(&pos), b.map(&pos))
        }
        PairTopology::Disjoint => triangles_intersect(ta.map(&pos), tb.map(&pos)),
    }
}

impl DeformableMeshShape {
    /// The self-collisions a change created: every pair `[t1, t2]` (`t1 < t2`, sorted, written to
    /// `out`) of triangles that collide under the current positions, where at least one of them
    /// uses a vertex of `moved`, and that did *not* collide with each moved vertex at its
    /// position before the change (`moved[i] = (vertex, previous position)`).
    ///
    /// Pairs of two unmoved triangles cannot have changed, so this is exactly the set difference
    /// "pairs now minus pairs before" of a full self-collision query, found locally: the
    /// triangles around moved vertices are grouped by the leaf that holds them, each group's box
    /// queries the tree once (lazy refits), and each of its triangles is tested against the
    /// candidates whose boxes it overlaps with the exact, topology-aware test of
    /// [`crate::geometry::mesh_triangles_collide`].
    ///
    /// # Performance
    /// O(k log k + g · log T + k · c) for k triangles around moved vertices in g leaves with c
    /// candidates per group; no allocation after warm-up.
    pub fn new_self_collisions(
        &self,
        moved: &[(u32, Vec3)],
        scratch: &mut SelfCheckScratch,
        out: &mut Vec<[u32; 2]>,
    ) {
        out.clear();
        let n = self.tree.rest_positions().len() as u32;
        scratch.moved.clear();
        scratch
            .moved
            .extend(moved.iter().copied().filter(|(v, _)| *v < n));
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
            by_leaf,
            candidates,
            stack,
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
        let before = |v: u32| match moved_at[v as usize] {
            (c, i) if c == call => moved[i as usize].1,
            _ => self.vertex(v),
        };
        let mut box_of = |t: u32| {
            let slot = &mut boxes[t as usize];
            if slot.0 != call {
                *slot = (call, self.triangle(t).local_aabb());
            }
            slot.1
        };
        // The changed triangles grouped by leaf: one tree query per group (changed triangles
        // are clustered), then each against the group's candidates by box.
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
                    if !ub.intersects(&aabb) || u == t || (changed && u < t) {
                        continue;
                    }
                    let tb = tris[u as usize];
                    if collide(ta, tb, |v| self.vertex(v)) && !collide(ta, tb, before) {
                        out.push([t.min(u), t.max(u)]);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}
