//! Front caching with conservative ascent (BN-Tree §4.3): where last frame's query went below a node, its cone comes from its children next frame; where it stopped above, the front climbs back if the parent's own bound is good.

use super::SelfCollisionQuery;
use super::build::{BnTree, NONE};
use crate::governor::Affine;

/// A node climbs back above the front only if its own O(m) cone keeps at least this many
/// directions (the paper's "less than 3 active bits" rule).
const ASCENT_MIN_BITS: u32 = 3;

impl SelfCollisionQuery {
    /// Moves the update fronts after a query; returns the nodes whose cone comes from their
    /// children next frame.
    ///
    /// * Boxes: a node with O(m) data that the traversal descended below takes the union of its
    ///   children's boxes next frame, otherwise its own O(m) box.
    /// * A node with O(m) data that the traversal descended below gets its cone from its
    ///   children next frame: its own bound did not prune, and the children are computed anyway.
    /// * A node whose cone came from its children but which the traversal tested and did not
    ///   descend (pruned there) is a candidate for ascent: its own O(m) cone is test-computed, and the
    ///   front climbs above it only if that cone keeps at least three directions.
    ///
    /// # Performance
    /// O(nodes) flag scan plus one O(m) bound per ascent candidate.
    pub(crate) fn update_front(&mut self, tree: &BnTree, governors: &[Affine]) -> u64 {
        let cache = &mut self.cache;
        let mut below = 0;
        for i in 0..tree.nodes.len() {
            let node = tree.nodes[i];
            if node.patch == NONE {
                continue;
            }
            // Only nodes the traversal tested itself: nodes whose cones were merely computed by a
            // parent's bottom-up recursion are not candidates (testing them all would cost
            // O(m) per node of the recursed subtree).
            let reached = cache.visited[i] == cache.epoch;
            let descended = cache.descended[i] == cache.epoch;
            // Boxes: where the traversal went below the node, its children's boxes are computed
            // anyway, so next frame the node's box is their union instead of an O(m) box.
            cache.aabb_from_children[i] = descended;
            if !cache.cone_from_children[i] {
                if descended {
                    cache.cone_from_children[i] = true;
                }
            } else if reached && !descended {
                let own =
                    tree.patches[node.patch as usize].normal_cone(governors, &mut cache.bounds_ws);
                if own.count() >= ASCENT_MIN_BITS {
                    cache.cone_from_children[i] = false;
                }
            }
            below += cache.cone_from_children[i] as u64;
        }
        below
    }
}
