//! Lazy per-frame refit: deformed vertices, AABBs and discrete normal cones computed on demand and stamped with the frame epoch; and the eager bottom-up refit of the HSC baseline.

use super::FrameCache;
use super::build::{BnTree, NONE};
use super::traverse::Bounds;
use crate::bounds::{NormalCone, patch_triangles};
use crate::governor::Affine;
use crate::governor::deform_vertex_wide;
use crate::math::{Aabb, Vec3};
use rapier3d::parry::glamx::DVec3;

impl Bounds for FrameCache {
    #[inline(always)]
    fn vertex(&mut self, tree: &BnTree, v: u32) -> Vec3 {
        FrameCache::vertex(self, tree, v)
    }

    #[inline(always)]
    fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    #[inline]
    fn node_aabb(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> Aabb {
        FrameCache::node_aabb(self, tree, governors, i)
    }

    #[inline]
    fn node_cone(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> NormalCone {
        FrameCache::node_cone(self, tree, governors, i)
    }

    #[inline(always)]
    fn visit(&mut self, i: u32) {
        self.visited[i as usize] = self.epoch;
    }

    #[inline(always)]
    fn descend(&mut self, i: u32) {
        self.descended[i as usize] = self.epoch;
    }
}

impl FrameCache {
    /// The deformed position of vertex `v`, evaluated once per frame. The cached read is
    /// inlined into the callers (contour projection, triangle boxes), the deformation is not:
    /// as one out-of-line function the read cost 10 % of the `self_fox_game` query's
    /// instructions at 9,216 triangles (callgrind).
    #[inline(always)]
    pub(crate) fn vertex(&mut self, tree: &BnTree, v: u32) -> Vec3 {
        let vu = v as usize;
        if self.all_vertices_deformed || self.vertex_stamp[vu] == self.epoch {
            return self.vertices[vu];
        }
        self.deform_vertex(tree, vu)
    }

    /// Deforms vertex `v` into the cache and stamps it.
    #[inline(never)]
    fn deform_vertex(&mut self, tree: &BnTree, v: usize) -> Vec3 {
        self.vertex_stamp[v] = self.epoch;
        self.vertices[v] = deform_vertex_wide(&tree.rest, &tree.weights, &self.wide_governors, v);
        self.stats.vertices_deformed += 1;
        self.vertices[v]
    }

    /// The node's AABB this frame: O(m) from its governors if it has patch data and the box
    /// front is not below it, else the union of its children (leaves: of their deformed
    /// vertices).
    pub(crate) fn node_aabb(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> Aabb {
        let iu = i as usize;
        if self.aabb_stamp[iu] == self.epoch {
            return self.aabbs[iu];
        }
        let node = tree.nodes[iu];
        if node.patch == NONE {
            self.refit_subtree_bottom_up(tree, i);
            return self.aabbs[iu];
        }
        let aabb = match node.children {
            None => unreachable!("leaves have no O(m) data"),
            Some([l, r]) if self.aabb_from_children[iu] => {
                let (a, b) = (
                    self.node_aabb(tree, governors, l),
                    self.node_aabb(tree, governors, r),
                );
                Aabb::new(a.mins.min(b.mins), a.maxs.max(b.maxs))
            }
            Some(_) => {
                self.stats.governor_aabbs += 1;
                tree.patches[node.patch as usize].aabb(governors, &mut self.bounds_ws)
            }
        };
        self.aabb_stamp[iu] = self.epoch;
        self.aabbs[iu] = aabb;
        aabb
    }

    /// The node's discrete normal cone this frame: O(m) from its governors if it has patch data
    /// and the update front does not sit below it, else the intersection of its children's cones
    /// (leaves: of their deformed triangle normals).
    pub(crate) fn node_cone(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> NormalCone {
        let iu = i as usize;
        if self.cone_stamp[iu] == self.epoch {
            return self.cones[iu];
        }
        let node = tree.nodes[iu];
        if node.patch == NONE {
            self.refit_subtree_bottom_up(tree, i);
            return self.cones[iu];
        }
        let cone = match node.children {
            None => unreachable!("leaves have no O(m) data"),
            Some([l, r]) if self.cone_from_children[iu] => {
                let a = self.node_cone(tree, governors, l);
                if a.is_empty() {
                    // The intersection is empty whatever the sibling's cone is.
                    a
                } else {
                    a.intersection(self.node_cone(tree, governors, r))
                }
            }
            Some(_) => self.own_cone(tree, governors, node.patch),
        };
        self.cone_stamp[iu] = self.epoch;
        self.cones[iu] = cone;
        cone
    }

    /// The O(m) cone of patch data `patch`: BN-Tree §3 for affine governors, §5 (best-fit affine
    /// per patch) for point governors.
    pub(crate) fn own_cone(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        patch: u32,
    ) -> NormalCone {
        self.stats.governor_cones += 1;
        let patch = &tree.patches[patch as usize];
        match &tree.rest_points {
            None => patch.normal_cone(governors, &mut self.bounds_ws),
            Some(rest_points) => {
                if self.points.len() != governors.len() {
                    self.points.resize(governors.len(), Vec3::ZERO);
                }
                for &g in patch.governors() {
                    self.points[g as usize] = governors[g as usize].translation;
                }
                patch.normal_cone_point_governors(&self.points, rest_points, &mut self.bounds_ws)
            }
        }
    }

    /// HSC (Volino & Magnenat-Thalmann 1994): deform every vertex and refit every node's AABB
    /// and cone bottom-up from the leaves, O(n), before the traversal.
    pub(crate) fn refit_all_bottom_up(&mut self, tree: &BnTree) {
        self.deform_all_vertices(tree);
        self.refit_range_bottom_up(tree, 0, tree.nodes.len());
    }

    /// Deforms every vertex in index order (bit-identical to [`Self::vertex`]), so later refits
    /// read them without per-vertex stamps.
    ///
    /// # Performance
    /// O(total influences); the frame's first call only (later calls return at once).
    pub(crate) fn deform_all_vertices(&mut self, tree: &BnTree) {
        if self.all_vertices_deformed {
            return;
        }
        self.stats.vertices_deformed += deform_stale(
            tree,
            &self.wide_governors,
            self.epoch,
            0,
            &mut self.vertices,
            &mut self.vertex_stamp,
        );
        self.all_vertices_deformed = true;
    }

    /// Refits the box and the cone of every node of the subtree rooted at `i` bottom-up from
    /// its deformed triangles (the BN-Tree's choice for nodes without O(m) data: cheaper than
    /// the governor bound for small patches, and both bounds come from one pass over the
    /// corners).
    ///
    /// # Performance
    /// O(subtree triangles); vertices deformed at most once per frame.
    pub(crate) fn refit_subtree_bottom_up(&mut self, tree: &BnTree, i: u32) {
        self.refit_range_bottom_up(tree, i as usize, tree.subtree_end(i as usize));
    }

    /// Bottom-up refit of the contiguous depth-first node range `start..end` (a subtree or the
    /// whole tree): children come after their parent, so a backward walk sees children first.
    fn refit_range_bottom_up(&mut self, tree: &BnTree, start: usize, end: usize) {
        if self.all_vertices_deformed {
            // Every vertex deformed (HSC, eager frames): read them directly.
            let slots = NodeSlots {
                start,
                aabbs: &mut self.aabbs[start..end],
                cones: &mut self.cones[start..end],
                aabb_stamp: &mut self.aabb_stamp[start..end],
                cone_stamp: &mut self.cone_stamp[start..end],
            };
            self.stats.triangles_refit +=
                refit_deformed_range(tree, &self.vertices, self.epoch, slots);
            return;
        }
        for i in (start..end).rev() {
            let node = tree.nodes[i];
            let (aabb, cone) = match node.children {
                None => {
                    self.stats.triangles_refit += u64::from(node.count);
                    let mut lo = Vec3::splat(f32::MAX);
                    let mut hi = Vec3::splat(f32::MIN);
                    let mut cone = NormalCone::ALL;
                    for pos in node.first..node.first + node.count {
                        let t = tree.order[pos as usize];
                        let [a, b, c] = self.corners(tree, t);
                        lo = lo.min(a.min(b).min(c));
                        hi = hi.max(a.max(b).max(c));
                        cone = cone.intersection(cone_of_corners([a, b, c]));
                    }
                    (Aabb::new(lo, hi), cone)
                }
                Some([l, r]) => merged_bounds(
                    (self.aabbs[l as usize], self.cones[l as usize]),
                    (self.aabbs[r as usize], self.cones[r as usize]),
                ),
            };
            self.aabbs[i] = aabb;
            self.cones[i] = cone;
            self.aabb_stamp[i] = self.epoch;
            self.cone_stamp[i] = self.epoch;
        }
    }
}

/// The bound slots of the contiguous depth-first node range `start..start + aabbs.len()`.
pub(crate) struct NodeSlots<'a> {
    /// First node of the range.
    pub start: usize,
    pub aabbs: &'a mut [Aabb],
    pub cones: &'a mut [NormalCone],
    pub aabb_stamp: &'a mut [u32],
    pub cone_stamp: &'a mut [u32],
}

impl<'a> NodeSlots<'a> {
    /// The same range, borrowed for a shorter time.
    #[cfg(feature = "parallel")]
    pub(crate) fn reborrow(&mut self) -> NodeSlots<'_> {
        NodeSlots {
            start: self.start,
            aabbs: self.aabbs,
            cones: self.cones,
            aabb_stamp: self.aabb_stamp,
            cone_stamp: self.cone_stamp,
        }
    }

    /// The first `mid` nodes of the range and the rest.
    #[cfg(feature = "parallel")]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let (a0, a1) = self.aabbs.split_at_mut(mid);
        let (c0, c1) = self.cones.split_at_mut(mid);
        let (s0, s1) = self.aabb_stamp.split_at_mut(mid);
        let (t0, t1) = self.cone_stamp.split_at_mut(mid);
        (
            Self {
                start: self.start,
                aabbs: a0,
                cones: c0,
                aabb_stamp: s0,
                cone_stamp: t0,
            },
            Self {
                start: self.start + mid,
                aabbs: a1,
                cones: c1,
                aabb_stamp: s1,
                cone_stamp: t1,
            },
        )
    }

    /// Stores node `i`'s bounds (`i` in the range), stamped with `epoch`.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, (aabb, cone): (Aabb, NormalCone), epoch: u32) {
        let k = i - self.start;
        self.aabbs[k] = aabb;
        self.cones[k] = cone;
        self.aabb_stamp[k] = epoch;
        self.cone_stamp[k] = epoch;
    }

    /// Node `i`'s bounds (`i` in the range).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> (Aabb, NormalCone) {
        let k = i - self.start;
        (self.aabbs[k], self.cones[k])
    }
}

/// Deforms the vertices `first..first + positions.len()` whose stamp is not `epoch` into
/// `positions` and stamps them; returns how many it deformed.
///
/// # Performance
/// O(influences of the range).
pub(crate) fn deform_stale(
    tree: &BnTree,
    wide_governors: &[crate::governor::WideAffine],
    epoch: u32,
    first: usize,
    positions: &mut [Vec3],
    stamps: &mut [u32],
) -> u64 {
    let mut deformed = 0;
    for (k, (position, stamp)) in positions.iter_mut().zip(stamps.iter_mut()).enumerate() {
        if *stamp != epoch {
            *stamp = epoch;
            *position = deform_vertex_wide(&tree.rest, &tree.weights, wide_governors, first + k);
            deformed += 1;
        }
    }
    deformed
}

/// Refits every node of `slots`, a whole subtree or the whole tree, bottom-up from the deformed
/// `vertices` (every vertex deformed) and stamps it with `epoch`; returns the triangles refit.
///
/// # Performance
/// O(triangles of the range).
pub(crate) fn refit_deformed_range(
    tree: &BnTree,
    vertices: &[Vec3],
    epoch: u32,
    mut slots: NodeSlots<'_>,
) -> u64 {
    let mut triangles = 0;
    for i in (slots.start..slots.start + slots.aabbs.len()).rev() {
        let node = tree.nodes[i];
        let bounds = match node.children {
            None => {
                triangles += u64::from(node.count);
                leaf_bounds_from_vertices(tree, vertices, &node)
            }
            Some([l, r]) => merged_bounds(slots.get(l as usize), slots.get(r as usize)),
        };
        slots.set(i, bounds, epoch);
    }
    triangles
}

/// A parent's bounds from its children's: the union of the boxes, the intersection of the cones.
#[inline]
pub(crate) fn merged_bounds(
    (a, ca): (Aabb, NormalCone),
    (b, cb): (Aabb, NormalCone),
) -> (Aabb, NormalCone) {
    (
        Aabb::new(a.mins.min(b.mins), a.maxs.max(b.maxs)),
        ca.intersection(cb),
    )
}

/// The box and cone of leaf `node` from the deformed `vertices` (every vertex deformed).
/// Reading them directly instead of through the stamped cache (`corners`) costs 23 % fewer
/// instructions on the HSC walk (callgrind).
#[inline]
pub(crate) fn leaf_bounds_from_vertices(
    tree: &BnTree,
    vertices: &[Vec3],
    node: &super::BnNode,
) -> (Aabb, NormalCone) {
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    let mut cone = NormalCone::ALL;
    let triangles = tree.mesh.triangles();
    for &t in patch_triangles(&tree.order, node.first, node.count) {
        let [a, b, c] = triangles[t as usize].map(|v| vertices[v as usize]);
        lo = lo.min(a.min(b).min(c));
        hi = hi.max(a.max(b).max(c));
        cone = cone.intersection(cone_of_corners([a, b, c]));
    }
    (Aabb::new(lo, hi), cone)
}

/// The discrete cone of one triangle from its corners: the normal is computed in `f64`
/// (products and differences of `f32` inputs are nearly exact there, so the sign tests match an
/// exact oracle), and since every direction's components are -1, 0 or 1, the 14 dot products
/// reduce to the normal's components and four signed sums (bit-for-bit the same values as the
/// dot products).
#[inline]
pub(crate) fn cone_of_corners(corners: [Vec3; 3]) -> NormalCone {
    let [a, b, c] = corners.map(|p| DVec3::new(p.x as f64, p.y as f64, p.z as f64));
    let n = (b - a).cross(c - a);
    let (s0, s1, s2, s3) = (
        n.x + n.y + n.z,
        n.x + n.y - n.z,
        n.x - n.y + n.z,
        n.x - n.y - n.z,
    );
    // Bit layout of `NormalCone::DIRECTIONS`: ±x, ±y, ±z interleaved in bits 0-5, then
    // s0..s3 > 0 in bits 6-9 and s3..s0 < 0 in bits 10-13.
    let positive_axes = (n.x > 0.0) as u16 | ((n.y > 0.0) as u16) << 2 | ((n.z > 0.0) as u16) << 4;
    let negative_axes = (n.x < 0.0) as u16 | ((n.y < 0.0) as u16) << 2 | ((n.z < 0.0) as u16) << 4;
    let positive_sums = (s0 > 0.0) as u16
        | ((s1 > 0.0) as u16) << 1
        | ((s2 > 0.0) as u16) << 2
        | ((s3 > 0.0) as u16) << 3;
    let negative_sums = (s3 < 0.0) as u16
        | ((s2 < 0.0) as u16) << 1
        | ((s1 < 0.0) as u16) << 2
        | ((s0 < 0.0) as u16) << 3;
    let bits = positive_axes | negative_axes << 1 | positive_sums << 6 | negative_sums << 10;
    NormalCone(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The packed bits equal the 14 dot products with `NormalCone::DIRECTIONS`, evaluated in
    /// `f64`, on random triangles and on triangles whose normals lie on axes and diagonal planes
    /// (zero components and zero sums).
    #[test]
    fn triangle_cone_bits_equal_direction_dot_products() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let grid = |rng: &mut ChaCha8Rng| {
            Vec3::new(
                rng.random_range(-2..=2) as f32,
                rng.random_range(-2..=2) as f32,
                rng.random_range(-2..=2) as f32,
            )
        };
        for i in 0..20_000 {
            let corners = if i % 2 == 0 {
                [grid(&mut rng), grid(&mut rng), grid(&mut rng)]
            } else {
                core::array::from_fn(|_| {
                    Vec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - Vec3::ONE
                })
            };
            let [a, b, c] = corners.map(|p| DVec3::new(p.x as f64, p.y as f64, p.z as f64));
            let n = (b - a).cross(c - a);
            let mut expected = 0u16;
            for (k, d) in NormalCone::DIRECTIONS.iter().enumerate() {
                let d = DVec3::new(d.x as f64, d.y as f64, d.z as f64);
                if d.dot(n) > 0.0 {
                    expected |= 1 << k;
                }
            }
            assert_eq!(cone_of_corners(corners).0, expected, "{corners:?}");
        }
    }
}
