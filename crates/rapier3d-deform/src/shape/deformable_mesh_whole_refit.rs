//! Whole-mesh refit of a `DeformableMeshShape` whose BN-Tree has no O(m) data at internal nodes: every vertex deformed once in one tight loop, then every node box bottom-up, in one pass per epoch.
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

use std::cell::RefCell;
use std::sync::atomic::Ordering;

use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::glamx::Vec3A;

use super::DeformableMeshShape;
use super::deformable_mesh_shape::store_point;
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
                    None => {
                        let mut lo = Vec3A::splat(f32::MAX);
                        let mut hi = Vec3A::splat(f32::MIN);
                        for &v in self.blocks.slot_vertices(i) {
                            let p = points[v as usize];
                            lo = lo.min(p);
                            hi = hi.max(p);
                        }
                        [lo, hi]
                    }
                    Some([l, r]) => {
                        let ([l0, l1], [r0, r1]) = (boxes[l as usize], boxes[r as usize]);
                        [l0.min(r0), l1.max(r1)]
                    }
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
        let p0 = match morph {
            None => p0,
            Some((m, mw)) => m.displace_with(mw, v, p0),
        };
        *o = blend_wide_a(p0, g.iter().copied().zip(w.iter().copied()), governors);
    }
}
