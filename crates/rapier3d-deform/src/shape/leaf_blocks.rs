//! Leaf vertex blocks of a `DeformableMeshShape`: per BN-Tree leaf, its distinct vertices with their rest positions and weight rows copied side by side, so that refitting a leaf reads one contiguous block instead of a cache line per vertex, weight row and triangle.
//!
//! A lazy refit deforms the vertices of the leaves a query reaches. Read through the mesh, each
//! vertex costs several dependent cache misses (its triangle's index triple, its rest position,
//! its weight row's offsets, governors and weights, its cache stamp), and a leaf of 16
//! triangles visits each of its ~15 vertices three times. A block holds, in the tree's triangle
//! order, each leaf's distinct vertices once (a *slot*) with everything the deformation reads,
//! and each triangle's corners as slot indices; the posed positions go to a per-slot cache
//! stamped by the leaf's node. This is the "meshlet" layout of GPU renderers applied to lazy
//! refits: a vertex shared by several leaves has one slot in each (about 1.9 slots per vertex on
//! closed meshes with 16-triangle leaves).

use crate::bn_tree::BnTree;
use crate::math::Vec3;

/// "No block" (internal nodes).
const NONE: u32 = u32::MAX;

/// Per leaf of a [`BnTree`], its vertices' rest positions and weight rows packed contiguously,
/// and each triangle's corners as slot indices.
#[derive(Clone, Debug)]
pub(super) struct LeafBlocks {
    /// Per tree node: its block (= its leaf rank), [`NONE`] for internal nodes.
    block_of_node: Vec<u32>,
    /// Block `b`'s slots are `slot_start[b]..slot_start[b + 1]`.
    slot_start: Vec<u32>,
    /// Per slot: the mesh vertex it holds.
    slot_vertex: Vec<u32>,
    /// Per slot: the vertex's rest position.
    slot_rest: Vec<Vec3>,
    /// Slot `s`'s influences are `influence_start[s]..influence_start[s + 1]`, in the order of
    /// the vertex's weight row.
    influence_start: Vec<u32>,
    influence_governor: Vec<u32>,
    influence_weight: Vec<f32>,
    /// Per position in the tree's triangle order: the triangle's corners as global slot indices.
    corner_slots: Vec<[u32; 3]>,
}

impl LeafBlocks {
    /// Blocks of every leaf of `tree`, from its current weights.
    ///
    /// # Performance
    /// O(T + V + total influences of the slots); memory about 50 bytes per slot and 12 per
    /// triangle.
    pub(super) fn new(tree: &BnTree) -> Self {
        let vertices = tree.rest_positions().len();
        let triangles = tree.mesh().triangles();
        let weights = tree.weights();
        let mut out = Self {
            block_of_node: vec![NONE; tree.nodes().len()],
            slot_start: vec![0],
            slot_vertex: Vec::new(),
            slot_rest: Vec::new(),
            influence_start: vec![0],
            influence_governor: Vec::new(),
            influence_weight: Vec::new(),
            corner_slots: vec![[0; 3]; tree.triangle_order().len()],
        };
        // The block that last took each vertex, and the slot it got there.
        let mut seen_block = vec![NONE; vertices];
        let mut seen_slot = vec![0u32; vertices];
        for (i, node) in tree.nodes().iter().enumerate() {
            if node.children.is_some() {
                continue;
            }
            let b = out.slot_start.len() as u32 - 1;
            out.block_of_node[i] = b;
            let first = node.first as usize;
            for (k, &t) in tree.node_triangles(i).iter().enumerate() {
                let corners = triangles[t as usize].map(|v| {
                    let vu = v as usize;
                    if seen_block[vu] != b {
                        seen_block[vu] = b;
                        seen_slot[vu] = out.slot_vertex.len() as u32;
                        out.slot_vertex.push(v);
                        out.slot_rest.push(tree.rest_positions()[vu]);
                        let (g, w) = weights.row(vu);
                        out.influence_governor.extend_from_slice(g);
                        out.influence_weight.extend_from_slice(w);
                        out.influence_start
                            .push(out.influence_governor.len() as u32);
                    }
                    seen_slot[vu]
                });
                out.corner_slots[first + k] = corners;
            }
            out.slot_start.push(out.slot_vertex.len() as u32);
        }
        out
    }

    /// Number of slots over all blocks.
    pub(super) fn slot_count(&self) -> usize {
        self.slot_vertex.len()
    }

    /// The slots of leaf node `node` (empty for an internal node).
    #[inline]
    pub(super) fn slots_of(&self, node: usize) -> std::ops::Range<usize> {
        match self.block_of_node.get(node) {
            Some(&b) if b != NONE => {
                self.slot_start[b as usize] as usize..self.slot_start[b as usize + 1] as usize
            }
            _ => 0..0,
        }
    }

    /// The mesh vertices of leaf node `node`'s slots (empty for an internal node).
    #[inline]
    pub(super) fn slot_vertices(&self, node: usize) -> &[u32] {
        &self.slot_vertex[self.slots_of(node)]
    }

    /// The mesh vertex of slot `s`.
    #[inline]
    pub(super) fn vertex(&self, s: usize) -> u32 {
        self.slot_vertex[s]
    }

    /// The rest position of slot `s`.
    #[inline]
    pub(super) fn rest(&self, s: usize) -> Vec3 {
        self.slot_rest[s]
    }

    /// The `(governor, weight)` pairs of slot `s`, in its vertex's weight-row order.
    #[inline]
    pub(super) fn influences(&self, s: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (a, b) = (
            self.influence_start[s] as usize,
            self.influence_start[s + 1] as usize,
        );
        self.influence_governor[a..b]
            .iter()
            .copied()
            .zip(self.influence_weight[a..b].iter().copied())
    }

    /// The corners (global slot indices) of the triangle at position `pos` of the tree's order.
    #[inline]
    pub(super) fn corners(&self, pos: usize) -> [u32; 3] {
        self.corner_slots[pos]
    }

    /// Rewrites the weights of vertex `v`'s slot in leaf `node` (same row pattern: `weights` has
    /// one entry per influence of the slot). Returns whether the leaf holds `v`.
    ///
    /// # Performance
    /// O(slots of the leaf + row length).
    pub(super) fn set_weights(&mut self, node: usize, v: u32, weights: &[f32]) -> bool {
        let range = self.slots_of(node);
        let Some(s) = range.into_iter().find(|&s| self.slot_vertex[s] == v) else {
            return false;
        };
        let (a, b) = (
            self.influence_start[s] as usize,
            self.influence_start[s + 1] as usize,
        );
        if b - a != weights.len() {
            return false;
        }
        self.influence_weight[a..b].copy_from_slice(weights);
        true
    }
}
