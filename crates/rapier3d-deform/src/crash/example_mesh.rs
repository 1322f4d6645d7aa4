//! A triangle mesh rigged with the plastic cage's examples (examples × bones) and bound to the cage, as the BN-Tree `DeformableMeshShape` collider of a plastic body: per-vertex example weights interpolated from the cage, weight rows `β_e · W_b`.

use std::sync::Arc;

use super::asset::BoundMesh;
use crate::bn_tree::{BnTree, BnTreeOptions};
use crate::deformation::ExampleBlend;
use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights, GovernedDeformation};
use crate::mesh::TriangleMesh;
use crate::plasticity::PlasticState;
use crate::shape::DeformableMeshShape;

/// A mesh under an [`ExampleBlend`] (the same examples as the plastic cage, each a pose of the
/// mesh's own bones), bound to the cage like a [`BoundMesh`]: vertex `i` takes the example
/// weights interpolated from the cage triangle it is bound to, `β_i = Σ_k λ_ik β_(c_ik)`, and
/// its position is `Σ_(e,b) β_ie W_ib (A_eb p0_i + t_eb)` — the blend of its example poses
/// `Σ_e β_ie x_ie` that a [`BoundMesh`] computes, written as a convex combination of the fixed
/// `(example, bone)` governors so that its [`DeformableMeshShape`] is bounded by a [`BnTree`].
///
/// The governors never change (the examples are fixed poses in the body frame; the body moves
/// rigidly): only weights do, locally, when the body dents
/// ([`DeformableMeshShape::update_vertex_weights`]).
///
/// # Performance
/// Memory: the tree (about 250 bytes per triangle) plus O(V · E) for the binding and the
/// topology tables of the guard (O(V + T)); a body's collider copies the tree on its first dent
/// (copy-on-write).
#[derive(Clone, Debug)]
pub struct ExampleMesh {
    bound: BoundMesh,
    bone_weights: ConvexWeights,
    examples: usize,
    /// The collider shape at the rest weights (the tree, the governors), its topology tables
    /// built: every body's shape is a clone of it and shares them, so no body builds them on its
    /// first dent.
    prototype: DeformableMeshShape,
    /// CSR: the mesh vertices that read each cage vertex.
    reader_offsets: Vec<u32>,
    readers: Vec<u32>,
}

impl ExampleMesh {
    /// Binds `mesh` under `blend` (its rest positions must be the mesh's; its examples those of
    /// the plastic cage, e.g. [`super::PlasticAsset::cage`]) to the rest pose of `cage` and builds its
    /// BN-Tree with `options`.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the blend does not match the mesh; what
    /// [`BoundMesh::new`] and [`BnTree::build_with`] reject.
    ///
    /// # Performance
    /// O(V log T_cage + V · E · influences + T log T).
    pub fn new(
        cage: &TriangleMesh,
        mesh: TriangleMesh,
        blend: &ExampleBlend,
        options: BnTreeOptions,
    ) -> Result<Self> {
        let n = mesh.vertex_count();
        if blend.rest_positions().len() != n {
            return Err(DeformError::LengthMismatch {
                what: "rest positions of the example blend",
                expected: n,
                actual: blend.rest_positions().len(),
            });
        }
        let e = blend.example_count();
        // Example poses, for the binding's reference positions.
        let mut examples = vec![Vec::with_capacity(n); e];
        let mut columns = Vec::with_capacity(e);
        for v in 0..n {
            blend.example_jacobian_into(v, &mut columns)?;
            for (pose, c) in examples.iter_mut().zip(&columns) {
                pose.push(*c);
            }
        }
        // The tree over the (example, bone) governors, at the rest weights (β = e_0).
        let mut rest_blend = blend.clone();
        let mut rest_beta = vec![0.0; e];
        rest_beta[0] = 1.0;
        rest_blend.set_global_example_weights(&rest_beta)?;
        let tree = Arc::new(BnTree::build_with(
            &mesh,
            blend.rest_positions(),
            rest_blend.weights(),
            options,
        )?);
        let bound = BoundMesh::new(mesh, &examples, cage)?;
        let cage_n = cage.vertex_count();
        let mut reader_offsets = vec![0u32; cage_n + 1];
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(3 * n);
        for v in 0..n {
            if let Some((cage, _)) = bound.binding(v) {
                for c in cage {
                    pairs.push((c, v as u32));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        for &(c, _) in &pairs {
            reader_offsets[c as usize + 1] += 1;
        }
        for c in 0..cage_n {
            reader_offsets[c + 1] += reader_offsets[c];
        }
        let prototype = DeformableMeshShape::new(tree, blend.governors())?;
        prototype.build_topology();
        Ok(Self {
            bound,
            bone_weights: blend.bone_weights().clone(),
            examples: e,
            prototype,
            reader_offsets,
            readers: pairs.into_iter().map(|(_, v)| v).collect(),
        })
    }

    /// A collider shape at the rest weights (every vertex on example 0). The shapes of every
    /// body share the tree until their first dent (copy-on-write) and the topology tables the
    /// self-intersection guard reads (built once, with the mesh).
    ///
    /// # Errors
    /// Not expected (the governors were validated by the blend).
    ///
    /// # Performance
    /// O(nodes + vertices) for the shape's caches.
    pub fn shape(&self) -> Result<DeformableMeshShape> {
        Ok(self.prototype.clone())
    }

    /// The binding to the cage (rest mesh, example poses, cage triangles and barycentric
    /// coordinates): [`BoundMesh::positions_into`] gives the same positions the shape holds, by
    /// another formula (an independent reference).
    pub fn bound(&self) -> &BoundMesh {
        &self.bound
    }

    /// The mesh's BN-Tree at the rest weights (shared by the shapes of every body).
    pub fn tree(&self) -> &Arc<BnTree> {
        self.prototype.tree()
    }

    /// The `(example, bone)` governors, index `e · B + b`.
    pub fn governors(&self) -> &[Affine] {
        self.prototype.governors()
    }

    /// Number of examples.
    pub fn example_count(&self) -> usize {
        self.examples
    }

    /// The mesh vertices that read cage vertex `c` (sorted; empty out of range).
    pub fn readers_of(&self, c: u32) -> &[u32] {
        let c = c as usize;
        match (self.reader_offsets.get(c), self.reader_offsets.get(c + 1)) {
            (Some(&a), Some(&b)) => &self.readers[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Every cage vertex some mesh vertex reads (sorted, unique).
    pub fn cage_vertices(&self) -> Vec<u32> {
        self.bound.cage_vertices()
    }

    /// Writes vertex `v`'s weight row (in its tree row's order: for each bone of its skin row,
    /// every example) from the cage weights stored in `state`: `β_e · W_b` with `β` the
    /// barycentric blend of its three cage vertices' rows.
    ///
    /// # Performance
    /// O(E · influences), no allocation for up to 32 examples.
    pub(crate) fn write_row(&self, v: u32, state: &PlasticState, row: &mut [f32]) {
        let e = self.examples;
        let mut stack = [0.0f32; 32];
        let mut heap = Vec::new();
        let beta: &mut [f32] = if e <= stack.len() {
            &mut stack[..e]
        } else {
            heap.resize(e, 0.0);
            &mut heap
        };
        if let Some((cage, lambda)) = self.bound.binding(v as usize) {
            for (c, l) in cage.iter().zip(lambda) {
                if let Some(w) = state.weights_as_stored(*c) {
                    for (b, x) in beta.iter_mut().zip(w) {
                        *b += l * x;
                    }
                }
            }
        }
        let sum: f32 = beta.iter().sum();
        if !(sum.is_finite() && sum > 0.0) {
            beta.fill(0.0);
            beta[0] = 1.0;
        }
        let mut out = row.iter_mut();
        for (_, w) in self.bone_weights.iter_row(v as usize) {
            for &b in beta.iter() {
                if let Some(slot) = out.next() {
                    *slot = b * w;
                }
            }
        }
    }
}
