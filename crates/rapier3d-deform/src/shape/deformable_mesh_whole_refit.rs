//! Whole-mesh refit of a `DeformableMeshShape` whose BN-Tree has no O(m) data at internal nodes: every vertex deformed once in one tight loop, then every node box bottom-up, in one pass per epoch; after a weight change within the epoch, only the changed vertices and the boxes above them, with the same arithmetic.
//!
//! BN-Tree §4.2–4.3 update boxes on demand, from the governors (O(m)) where a node has patch
//! data and bottom-up below that front. When no internal node has patch data (small meshes:
//! the build's cost model keeps it only where it pays), the front is the leaves: the box of
//! any internal node is the union of its children's, so the first box a query asks for in an
//! epoch (the root's) already needs every leaf refit. Done leaf by leaf, that deforms each
//! vertex once per leaf holding it (about 1.9 times on a closed mesh) through the per-slot
//! cache. This pass deforms each vertex exactly once, in vertex order, into a thread-local
//! array, stores it in the vertex cache, and computes every node box from that array (leaves
//! by gathering their vertices, internal nodes from their children, in reverse depth-first
//! order). Each vertex is computed with the operations of the leaf refit in the same order, so
//! boxes and triangles are bit-identical to the leaf-by-leaf path's.
//!
//! Weights change within an epoch (plasticity re-weights a few hundred vertices of a dent per
//! step, the governors stay). Redoing the whole pass would deform every vertex again; instead
//! the changed vertices are deformed by the same formula, their leaves' boxes are gathered
//! again from the vertex cache in slot order and their ancestors' boxes are unions of their
//! children's, children first: the caches equal a whole refit under the new weights, bit for
//! bit.

use std::cell::RefCell;
use std::sync::atomic::Ordering;

use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::glamx::Vec3A;

use super::DeformableMeshShape;
use super::deformable_mesh_shape::{load_point, store_point};
use crate::deformation::MorphDeltas;
use crate::governor::{ConvexWeights, WideAffine, blend_wide_a};
use crate::math::Vec3;

thread_local! {
    /// Deformed vertices and node boxes of the whole-mesh refit (one per thread).
    static WHOLE_WS: RefCell<(Vec<Vec3A>, Vec<[Vec3A; 2]>)> =
        const { RefCell::new((Vec::new(), Vec::new())) };
}

impl DeformableMeshShape {
    /// Whether the tree of this shape is refit whole ([`Self::refit_whole`]): no internal node
    /// has O(m) patch data.
    pub(super) fn tree_is_refit_whole(tree: &crate::bn_tree::BnTree) -> bool {
        (0..tree.nodes().len()).all(|i| tree.nodes()[i].is_leaf() || tree.node_patch(i).is_none())
    }

    /// Deforms every vertex once and computes every node box of the current epoch, stores them
    /// in the caches (vertices, node boxes and stamps, then the whole-mesh stamp) and returns
    /// the box of node `want`.
    ///
    /// # Performance
    /// O(total influences + slots + nodes), no allocation once the thread's buffers have grown.
    pub(super) fn refit_whole(&self, want: usize) -> Aabb {
        let epoch = self.epoch();
        let tree = &*self.tree;
        let rest = tree.rest_positions();
        let weights = tree.weights();
        let governors = &self.wide_governors;
        WHOLE_WS.with(|ws| {
            let mut ws = ws.borrow_mut();
            let (points, boxes) = &mut *ws;
            skin_all(
                rest,
                weights,
                governors,
                self.morph_targets().map(|m| (m, self.morph_weights())),
                points,
            );
            for (slot, &p) in self.cache.vertex.iter().zip(points.iter()) {
                store_point(slot, p.into());
            }
            let nodes = tree.nodes();
            // Every entry is written (children first) before it is read.
            boxes.resize(nodes.len(), [Vec3A::ZERO; 2]);
            // Depth-first order: children after their parent, so reverse order sees them first.
            for i in (0..nodes.len()).rev() {
                let [lo, hi] = match nodes[i].children {
                    None => self.leaf_box(i, |v| points[v as usize]),
                    Some([l, r]) => union(boxes[l as usize], boxes[r as usize]),
                };
                boxes[i] = [lo, hi];
                self.store_node_aabb(i, &Aabb::new(lo.into(), hi.into()));
            }
            self.cache.whole_stamp.store(epoch, Ordering::Release);
            self.cache
                .node_refits
                .fetch_add(nodes.len() as u64, Ordering::Relaxed);
            self.cache
                .vertices_deformed
                .fetch_add(rest.len() as u64, Ordering::Relaxed);
            let [lo, hi] = boxes[want];
            Aabb::new(lo.into(), hi.into())
        })
    }
}

impl DeformableMeshShape {
    /// The box of leaf `leaf`: its slots' vertices (positions given by `point`) in slot order.
    ///
    /// # Performance
    /// O(slots of the leaf).
    #[inline(always)]
    fn leaf_box(&self, leaf: usize, point: impl Fn(u32) -> Vec3A) -> [Vec3A; 2] {
        let mut lo = Vec3A::splat(f32::MAX);
        let mut hi = Vec3A::splat(f32::MIN);
        for &v in self.blocks.slot_vertices(leaf) {
            let p = point(v);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        [lo, hi]
    }

    /// Node `i`'s cached box as corners.
    #[inline]
    fn cached_box(&self, i: usize) -> [Vec3A; 2] {
        let slot = &self.cache.node_aabb[i];
        let f = |k: usize| f32::from_bits(slot[k].load(Ordering::Relaxed));
        [Vec3A::new(f(0), f(1), f(2)), Vec3A::new(f(3), f(4), f(5))]
    }

    /// Whether the whole-mesh refit of the current epoch is in the caches (every vertex and
    /// every node box current).
    pub(super) fn whole_refit_is_current(&self) -> bool {
        self.whole_refit && self.cache.whole_stamp.load(Ordering::Acquire) == self.epoch()
    }

    /// After the weight rows of `vertices` changed while the whole-mesh refit of this epoch was
    /// current ([`Self::whole_refit_is_current`]): deforms those vertices again into the vertex
    /// cache and recomputes the boxes of `dirty` (the leaves holding them and every ancestor,
    /// each once, in any order; sorted here), so that the caches equal a whole refit under the
    /// new weights, bit for bit: each vertex by the formula of the whole refit, each leaf box
    /// over its slots in slot order, each internal box as the union of its children's, children
    /// first. The whole-mesh stamp stays current.
    ///
    /// # Performance
    /// O(Σ influences of `vertices` + Σ slots of the dirty leaves + dirty nodes · log), no
    /// allocation.
    pub(super) fn refit_whole_changed(&mut self, vertices: &[u32], dirty: &mut [u32]) {
        let tree = &*self.tree;
        let rest = tree.rest_positions();
        let weights = tree.weights();
        let morph = self.morph_targets().map(|m| (m, self.morph_weights()));
        for &v in vertices {
            let (g, w) = weights.row(v as usize);
            let p = skin_vertex(
                v as usize,
                rest[v as usize],
                g,
                w,
                &self.wide_governors,
                morph,
            );
            store_point(&self.cache.vertex[v as usize], p.into());
        }
        // Depth-first order: children after their parent, so decreasing indices see them first.
        dirty.sort_unstable_by(|a, b| b.cmp(a));
        let nodes = tree.nodes();
        for &i in dirty.iter() {
            let i = i as usize;
            let [lo, hi] = match nodes[i].children {
                None => self.leaf_box(i, |v| load_point(&self.cache.vertex[v as usize]).into()),
                Some([l, r]) => union(self.cached_box(l as usize), self.cached_box(r as usize)),
            };
            self.store_node_aabb(i, &Aabb::new(lo.into(), hi.into()));
        }
        *self.cache.node_refits.get_mut() += dirty.len() as u64;
        *self.cache.vertices_deformed.get_mut() += vertices.len() as u64;
    }
}

/// Every vertex `Σ w (A_g p0 + t_g)` (`p0` morphed first when `morph` is given) into `out`, in
/// vertex order: the leaf refit's operations in the same order
/// ([`crate::governor::blend_wide`]). The weight rows are walked as stored, each split off the
/// remaining influences, so the loop checks no row bounds of its own.
///
/// # Performance
/// O(total influences (+ morph targets of the morphed vertices)).
#[inline(never)]
fn skin_all(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[WideAffine],
    morph: Option<(&MorphDeltas, &[f32])>,
    out: &mut Vec<Vec3A>,
) {
    // Every entry is overwritten: resizing (not clearing) writes only entries beyond the
    // length the thread's buffer already has.
    out.resize(rest.len(), Vec3A::ZERO);
    let (offsets, mut gs, mut ws) = weights.csr();
    for (v, ((o, &p0), row)) in out.iter_mut().zip(rest).zip(offsets.windows(2)).enumerate() {
        let n = row[1].wrapping_sub(row[0]) as usize;
        let (Some((g, g_rest)), Some((w, w_rest))) =
            (gs.split_at_checked(n), ws.split_at_checked(n))
        else {
            // Unreachable: the rows partition the stored influences.
            break;
        };
        (gs, ws) = (g_rest, w_rest);
        *o = skin_vertex(v, p0, g, w, governors, morph);
    }
}

/// Vertex `v` (rest point `p0`, influences `g`, `w`) morphed when `morph` is given, then
/// deformed by `governors`: the one formula of [`skin_all`] and of the refit after weight
/// changes, so both give the same bits.
///
/// # Performance
/// O(influences (+ morph targets of the vertex)).
#[inline(always)]
fn skin_vertex(
    v: usize,
    p0: Vec3,
    g: &[u32],
    w: &[f32],
    governors: &[WideAffine],
    morph: Option<(&MorphDeltas, &[f32])>,
) -> Vec3A {
    let p0 = match morph {
        None => p0,
        Some((m, mw)) => m.displace_with(mw, v, p0),
    };
    blend_wide_a(p0, g.iter().copied().zip(w.iter().copied()), governors)
}

/// The box of two boxes (`[min, max]` corners), as every internal node's box is computed.
#[inline(always)]
fn union([l0, l1]: [Vec3A; 2], [r0, r1]: [Vec3A; 2]) -> [Vec3A; 2] {
    [l0.min(r0), l1.max(r1)]
}
