//! Per-vertex weight changes of a `DeformableMeshShape` (example weights under plasticity): rows replaced in a copy-on-write tree, only the changed vertices and the boxes above them invalidated (or, on a tree refit whole, refit in place).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::DeformableMeshShape;
use crate::error::{DeformError, Result};

impl DeformableMeshShape {
    /// Replaces the weights of `vertices`: `row(v, values)` receives vertex `v`'s current weights
    /// (in the order of `tree().weights().row(v)`, explicit zeros included) and writes the new
    /// ones in place. This is how per-vertex example weights change under plasticity (an
    /// [`crate::deformation::ExampleBlend`] row is `β_e · W_b` over its `(example, bone)`
    /// governors).
    ///
    /// Unlike [`Self::set_governors`], which moves every vertex and bumps the epoch, a weight
    /// change is local: only the changed vertices' cached positions and the cached boxes of the
    /// nodes above them are invalidated; every other cached box stays valid. The O(m) bound data
    /// of those nodes, precomputed from the old weights, is dropped (they bound themselves from
    /// their children from then on, see [`crate::bn_tree::BnTree::set_vertex_weights`]), and
    /// the root box becomes the lazy box of the root node. On a tree refit whole (no O(m) data
    /// at internal nodes) whose whole-mesh refit of the epoch is current, the changed vertices
    /// are deformed again and the boxes on their paths to the root recomputed here, in place:
    /// the caches then equal a whole refit under the new weights bit for bit, and every other
    /// vertex and box stays.
    ///
    /// The tree is copy-on-write: the first change of a shape whose tree is shared (by clones or
    /// other colliders) copies it once (O(tree)); later changes are in place.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a vertex out of range; what
    /// [`crate::governor::ConvexWeights::set_row_weights`] rejects for a written row (non-finite or negative
    /// weight, sum more than [`crate::governor::ConvexWeights::SUM_TOLERANCE`] from 1). Every row is validated
    /// before anything changes; on error nothing changes.
    ///
    /// # Performance
    /// O(Σ row lengths + Σ leaves of the vertices · (depth + leaf vertices)), plus the lazy root box (the nodes
    /// on the changed paths; on a tree refit whole, the changed vertices' influences and the
    /// slots of their leaves); O(T) once to build the vertex incidence, O(tree) once for the
    /// copy of a shared tree and its leaf blocks. No allocation after the first call.
    pub fn update_vertex_weights(
        &mut self,
        vertices: &[u32],
        mut row: impl FnMut(u32, &mut [f32]),
    ) -> Result<()> {
        let n = self.tree.rest_positions().len();
        let mut scratch = std::mem::take(&mut self.weight_scratch);
        scratch.clear();
        for &v in vertices {
            if v as usize >= n {
                self.weight_scratch = scratch;
                return Err(DeformError::IndexOutOfRange {
                    what: "vertex",
                    index: v as usize,
                    len: n,
                });
            }
            let start = scratch.len();
            scratch.extend_from_slice(self.tree.weights().row(v as usize).1);
            row(v, &mut scratch[start..]);
            if let Err(e) = check_row(v, &scratch[start..]) {
                self.weight_scratch = scratch;
                return Err(e);
            }
        }
        // Built before the tree may be copied: the incidence depends on the topology only.
        let _ = self.incidence();
        let incidence = self.incidence.clone();
        let leaves = &incidence
            .get()
            .expect("the incidence was just built")
            .leaves;
        // With the whole-mesh refit of this epoch current, every node box is: the changed
        // vertices and the boxes above them are refit in place below, everything else stays.
        let incremental = self.whole_refit_is_current();
        let mut dirty = std::mem::take(&mut self.dirty_nodes);
        dirty.clear();
        let tree = Arc::make_mut(&mut self.tree);
        let blocks = Arc::make_mut(&mut self.blocks);
        let mut offset = 0;
        for &v in vertices {
            let len = tree.weights().row(v as usize).1.len();
            let row = &scratch[offset..offset + len];
            if let Err(e) = tree.set_vertex_weights(v as usize, row, leaves) {
                // Not expected (every row was checked): leave no cache claiming to be current.
                self.cache.clear_stamps();
                self.weight_scratch = scratch;
                self.dirty_nodes = dirty;
                return Err(e);
            }
            offset += len;
            *self.cache.vertex_stamp[v as usize].get_mut() = 0;
            for &leaf in leaves.of(v) {
                let held = blocks.set_weights(leaf as usize, v, row);
                debug_assert!(held, "leaf {leaf} of vertex {v} has no slot for it");
                let mut i = leaf;
                while i != u32::MAX {
                    let stamp = self.cache.node_stamp[i as usize].get_mut();
                    if incremental {
                        // Every stamp was current: a cleared one marks a node already listed,
                        // and its ancestors with it.
                        if *stamp == 0 {
                            break;
                        }
                        dirty.push(i);
                    }
                    *stamp = 0;
                    i = tree.nodes()[i as usize].parent;
                }
            }
        }
        self.weight_scratch = scratch;
        if !vertices.is_empty() {
            if incremental {
                self.refit_whole_changed(vertices, &mut dirty);
            } else {
                // A whole-mesh refit of this epoch no longer holds for the changed vertices.
                *self.cache.whole_stamp.get_mut() = 0;
            }
            self.root_stale = true;
            self.root_aabb = self.compute_root_aabb();
        }
        self.dirty_nodes = dirty;
        Ok(())
    }

    /// Has vertex `v`'s position been computed in the current epoch (and not invalidated since)?
    /// `false` out of range. For tests and statistics.
    pub fn vertex_is_cached(&self, v: u32) -> bool {
        self.cache
            .vertex_stamp
            .get(v as usize)
            .is_some_and(|s| s.load(Ordering::Relaxed) == self.epoch())
            || (v < self.tree.rest_positions().len() as u32
                && self.cache.whole_stamp.load(Ordering::Acquire) == self.epoch())
    }
}

/// Validates a row like [`crate::governor::ConvexWeights::set_row_weights`] does (so that the batch can be checked
/// before anything changes).
fn check_row(v: u32, row: &[f32]) -> Result<()> {
    crate::governor::check_row(v as usize, row).map(|_| ())
}
