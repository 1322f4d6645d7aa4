//! The local self-collision check after some vertices moved (a weight change under plasticity): triangle pairs that collide now, touch a moved vertex, and did not collide with those vertices at their previous positions.

use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};

use super::DeformableMeshShape;
use crate::math::Vec3;
use crate::self_collision::{
    PairTopology, pair_topology, triangles_cross_beyond_vertex, triangles_intersect,
};

/// Reusable memory of [`DeformableMeshShape::new_self_collisions`] (no allocation after
/// warm-up).
#[derive(Clone, Debug, Default)]
pub struct SelfCheckScratch {
    moved: Vec<(u32, Vec3)>,
    triangles: Vec<u32>,
    stack: Vec<u32>,
}

/// Whether triangles `ta` and `tb` (vertex indices) collide under `pos`, with the topology rules
/// of [`crate::self_collision::mesh_triangles_collide`] (edge-adjacent never; vertex-sharing only
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
    /// "pairs now minus pairs before" of a full self-collision query, found locally: each
    /// triangle around a moved vertex is tested against the triangles whose boxes it overlaps
    /// (tree traversal with lazy refits), with the exact, topology-aware test of
    /// [`crate::self_collision::mesh_triangles_collide`].
    ///
    /// # Performance
    /// O(k log k + k · (log T + c)) for k triangles around moved vertices with c candidates
    /// each; no allocation after warm-up.
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
        let before = |moved: &[(u32, Vec3)], v: u32| match moved.binary_search_by_key(&v, |m| m.0) {
            Ok(i) => moved[i].1,
            Err(_) => self.vertex(v),
        };
        let SelfCheckScratch {
            moved,
            triangles,
            stack,
        } = scratch;
        for &t in triangles.iter() {
            let ta = tris[t as usize];
            let tri = self.triangle(t);
            let aabb: Aabb = tri.local_aabb();
            stack.clear();
            stack.push(0);
            while let Some(i) = stack.pop() {
                if !self.node_aabb(i).intersects(&aabb) {
                    continue;
                }
                let node = self.tree.nodes()[i as usize];
                if let Some([l, r]) = node.children {
                    stack.push(r);
                    stack.push(l);
                    continue;
                }
                for &u in self.tree.node_triangles(i as usize) {
                    // Pairs of two moved triangles are taken once, from the smaller index.
                    if u == t || (u < t && triangles.binary_search(&u).is_ok()) {
                        continue;
                    }
                    if !self.triangle(u).local_aabb().intersects(&aabb) {
                        continue;
                    }
                    let tb = tris[u as usize];
                    if collide(ta, tb, |v| self.vertex(v)) && !collide(ta, tb, |v| before(moved, v))
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
