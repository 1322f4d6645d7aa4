//! Changing the weights of a built BN-Tree's vertices (example weights under plasticity): the row is replaced in place and the O(m) bound data of every node containing the vertex is dropped, so those nodes bound themselves from their children from then on.

use super::build::{BnTree, NONE};
use crate::bounds::patch_triangles;
use crate::error::{DeformError, Result};

/// For every vertex, the leaves of a [`BnTree`] whose triangles use it (compressed rows).
///
/// # Performance
/// Memory O(3 T) indices (each triangle corner names one leaf; duplicates within a vertex are
/// removed).
#[derive(Clone, Debug, Default)]
pub struct VertexLeaves {
    offsets: Vec<u32>,
    leaves: Vec<u32>,
}

impl VertexLeaves {
    /// The leaves containing vertex `v` (empty out of range).
    #[inline]
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.leaves[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Number of vertices covered.
    pub fn vertex_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

impl BnTree {
    /// The leaves containing each vertex (what [`BnTree::set_vertex_weights`] needs).
    ///
    /// # Performance
    /// O(T + V), two passes.
    pub fn vertex_leaves(&self) -> VertexLeaves {
        let n = self.rest.len();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(3 * self.order.len());
        for (i, node) in self.nodes.iter().enumerate() {
            if !node.is_leaf() {
                continue;
            }
            for &t in patch_triangles(&self.order, node.first, node.count) {
                for v in self.mesh.triangles()[t as usize] {
                    pairs.push((v, i as u32));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; n + 1];
        for &(v, _) in &pairs {
            offsets[v as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        VertexLeaves {
            offsets,
            leaves: pairs.into_iter().map(|(_, l)| l).collect(),
        }
    }

    /// Replaces the weights of vertex `v`, keeping its governor pattern (`weights[i]` goes to
    /// the `i`-th governor of `weights().row(v)`, explicit zeros included), and drops the O(m)
    /// bound data of every node containing `v` — that data was precomputed from the old weights
    /// (their per-governor ranges) and would no longer be conservative. Those nodes bound
    /// themselves from their children from then on ([`BnTree::node_patch`] returns `None`).
    /// Returns how many nodes lost their O(m) data.
    ///
    /// `leaves` must come from [`BnTree::vertex_leaves`] of this tree (or of a copy of it).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `leaves` does not cover this tree's vertices; what
    /// [`crate::governor::ConvexWeights::set_row_weights`] rejects (bad vertex, wrong row
    /// length, non-finite or negative weight, sum off). Nothing changes on error.
    ///
    /// # Performance
    /// O(row length + leaves of `v` · depth).
    pub fn set_vertex_weights(
        &mut self,
        v: usize,
        weights: &[f32],
        leaves: &VertexLeaves,
    ) -> Result<usize> {
        if leaves.vertex_count() != self.rest.len() {
            return Err(DeformError::LengthMismatch {
                what: "vertex leaves (build them with BnTree::vertex_leaves)",
                expected: self.rest.len(),
                actual: leaves.vertex_count(),
            });
        }
        self.weights.set_row_weights(v, weights)?;
        let mut dropped = 0;
        for &leaf in leaves.of(v as u32) {
            let mut i = leaf;
            while i != NONE {
                let node = &mut self.nodes[i as usize];
                if node.patch != NONE {
                    node.patch = NONE;
                    dropped += 1;
                }
                i = node.parent;
            }
        }
        Ok(dropped)
    }
}

#[cfg(test)]
mod tests {
    use crate::bn_tree::{BnTree, BnTreeOptions};
    use crate::governor::ConvexWeights;
    use crate::math::Vec3;
    use crate::mesh::TriangleMesh;

    /// A 16 × 16 grid, two governors blended along x (explicit zeros kept in every row).
    fn grid() -> BnTree {
        let n = 16usize;
        let mut p = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                p.push(Vec3::new(i as f32, 0.0, j as f32));
            }
        }
        let id = |i: usize, j: usize| (j * (n + 1) + i) as u32;
        let mut t = Vec::new();
        for j in 0..n {
            for i in 0..n {
                t.push([id(i, j), id(i, j + 1), id(i + 1, j)]);
                t.push([id(i + 1, j), id(i, j + 1), id(i + 1, j + 1)]);
            }
        }
        let mut offsets = vec![0u32];
        let (mut g, mut w) = (Vec::new(), Vec::new());
        for q in &p {
            let a = q.x / n as f32;
            g.extend([0u32, 1]);
            w.extend([1.0 - a, a]);
            offsets.push(g.len() as u32);
        }
        let weights = ConvexWeights::from_csr(offsets, g, w, 2).unwrap();
        let mesh = TriangleMesh::new(p.clone(), t).unwrap();
        let options = BnTreeOptions {
            governor_cost: 0.0,
            ..Default::default()
        };
        BnTree::build_with(&mesh, &p, &weights, options).unwrap()
    }

    #[test]
    fn a_weight_change_drops_the_data_of_exactly_the_nodes_containing_the_vertex() {
        let mut tree = grid();
        let leaves = tree.vertex_leaves();
        let v = 5 * 17 + 3;
        let containing: Vec<usize> = (0..tree.nodes().len())
            .filter(|&i| {
                tree.node_triangles(i)
                    .iter()
                    .any(|&t| tree.mesh().triangles()[t as usize].contains(&(v as u32)))
            })
            .collect();
        let with_data_before: Vec<bool> = (0..tree.nodes().len())
            .map(|i| tree.node_patch(i).is_some())
            .collect();
        let dropped = tree.set_vertex_weights(v, &[0.25, 0.75], &leaves).unwrap();
        assert_eq!(tree.weights().row(v).1, &[0.25, 0.75]);
        assert_eq!(
            dropped,
            containing.iter().filter(|&&i| with_data_before[i]).count()
        );
        for (i, &had_data) in with_data_before.iter().enumerate() {
            let expect = had_data && !containing.contains(&i);
            assert_eq!(tree.node_patch(i).is_some(), expect, "node {i}");
        }
        // Bad rows change nothing.
        let before = tree.weights().row(v).1.to_vec();
        assert!(tree.set_vertex_weights(v, &[0.5], &leaves).is_err());
        assert!(tree.set_vertex_weights(v, &[-0.5, 1.5], &leaves).is_err());
        assert!(
            tree.set_vertex_weights(v, &[f32::NAN, 1.0], &leaves)
                .is_err()
        );
        assert!(tree.set_vertex_weights(9999, &[0.5, 0.5], &leaves).is_err());
        assert!(
            tree.set_vertex_weights(v, &[0.5, 0.5], &Default::default())
                .is_err()
        );
        assert_eq!(tree.weights().row(v).1, &before[..]);
    }
}
