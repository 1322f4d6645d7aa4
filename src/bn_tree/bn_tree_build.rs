//! BN-Tree construction: bottom-up clustering of edge-connected triangles into compact patches (area over perimeter), leaf collapsing, boundary contours and per-node bound data.

use crate::bounds::PatchBounds;
use crate::deformation::ConvexWeights;
use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Marks "no node / no triangle".
pub(crate) const NONE: u32 = u32::MAX;

/// Build options of a [`BnTree`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde-serialize",
    derive(serde::Serialize, serde::Deserialize)
)]
pub struct BnTreeOptions {
    /// Patches of at most this many triangles become leaves (tested pairwise).
    pub leaf_triangles: usize,
    /// Estimated cost of one governor in an O(m) bound, in units of one triangle of bottom-up
    /// refit. A node gets O(m) bound data when `triangles ≥ governor_cost · m` (BN-Tree §4.3:
    /// "we check for each node whether it is more efficient to compute the DNC in a bottom-up
    /// fashion on its subtree or using our algorithm").
    pub governor_cost: f32,
}

impl Default for BnTreeOptions {
    fn default() -> Self {
        Self {
            leaf_triangles: 4,
            governor_cost: 6.0,
        }
    }
}

/// One node of a [`BnTree`]: a connected patch, the contiguous range `first..first + count` of
/// the tree's triangle order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde-serialize",
    derive(serde::Serialize, serde::Deserialize)
)]
pub struct BnNode {
    /// First position in [`BnTree::triangle_order`].
    pub first: u32,
    /// Number of triangles.
    pub count: u32,
    /// Children, or `None` for a leaf.
    pub children: Option<[u32; 2]>,
    /// Parent (`u32::MAX` at the root).
    pub parent: u32,
    /// Depth (root = 0).
    pub depth: u32,
    /// Index into the tree's O(m) patch data, if this node bounds itself from its governors.
    pub(crate) patch: u32,
    /// Range of this node's boundary edges in the tree's edge list.
    pub(crate) boundary: (u32, u32),
}

impl BnNode {
    /// True when the triangle at order position `pos` belongs to this node.
    #[inline]
    pub fn contains_position(&self, pos: u32) -> bool {
        pos.wrapping_sub(self.first) < self.count
    }

    /// True for leaves.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.children.is_none()
    }
}

/// A directed boundary edge of a patch, `from → to` in the winding of its triangle, with the
/// order position of the triangle across it (`u32::MAX` on a mesh border).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde-serialize",
    derive(serde::Serialize, serde::Deserialize)
)]
pub(crate) struct BoundaryEdge {
    pub from: u32,
    pub to: u32,
    pub across: u32,
}

/// The Bounded Normal Tree (Schvartzman, Gascón & Otaduy 2009, §4) of a mesh under a governed
/// deformation: a binary hierarchy of connected, compact patches with, per node, either O(m)
/// bound data ([`PatchBounds`]) or the rule "bound me from my children", and each patch's
/// boundary contour for the contour test of Volino & Magnenat-Thalmann 1994.
///
/// The tree is static (rest data only); the per-frame state lives in
/// [`super::SelfCollisionQuery`].
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde-serialize",
    derive(serde::Serialize, serde::Deserialize)
)]
pub struct BnTree {
    pub(crate) mesh: TriangleMesh,
    pub(crate) rest: Vec<Vec3>,
    pub(crate) weights: ConvexWeights,
    pub(crate) nodes: Vec<BnNode>,
    pub(crate) order: Vec<u32>,
    pub(crate) boundary: Vec<BoundaryEdge>,
    pub(crate) patches: Vec<PatchBounds>,
    pub(crate) options: BnTreeOptions,
}

struct Cluster {
    children: Option<[u32; 2]>,
    triangle: u32,
    count: u32,
    area: f64,
    perimeter: f64,
    centroid: Vec3,
}

impl BnTree {
    /// Builds the tree with default options.
    ///
    /// # Errors
    /// See [`BnTree::build_with`].
    ///
    /// # Performance
    /// O(T log T · i) for T triangles with i influences per vertex.
    pub fn build(mesh: &TriangleMesh, rest: &[Vec3], weights: &ConvexWeights) -> Result<Self> {
        Self::build_with(mesh, rest, weights, BnTreeOptions::default())
    }

    /// Builds the tree of `mesh`, whose vertices `rest` move under governors with `weights`.
    ///
    /// Patches are grown bottom-up: at every level, edge-adjacent clusters are matched greedily
    /// by the compactness `area / perimeter²` of their union (BN-Tree §4.1: patches that maximise
    /// area over perimeter make the contour test unlikely to fail), so every node is an
    /// edge-connected patch; connected components are joined at the top.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `rest` or the weight rows do not match the mesh's
    /// vertex count; [`DeformError::InvalidParameter`] for `leaf_triangles = 0` or a non-finite
    /// or negative `governor_cost`.
    ///
    /// # Performance
    /// O(T log T · i).
    pub fn build_with(
        mesh: &TriangleMesh,
        rest: &[Vec3],
        weights: &ConvexWeights,
        options: BnTreeOptions,
    ) -> Result<Self> {
        if rest.len() != mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "rest positions",
                expected: mesh.vertex_count(),
                actual: rest.len(),
            });
        }
        if weights.vertex_count() != mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "weight rows",
                expected: mesh.vertex_count(),
                actual: weights.vertex_count(),
            });
        }
        if options.leaf_triangles == 0 {
            return Err(DeformError::InvalidParameter {
                name: "leaf_triangles",
                value: 0.0,
                reason: "must be at least 1",
            });
        }
        if !(options.governor_cost.is_finite() && options.governor_cost >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "governor_cost",
                value: options.governor_cost,
                reason: "must be finite and non-negative",
            });
        }
        let neighbours = mesh.edge_neighbours();
        let (clusters, root) = cluster_triangles(mesh, rest, &neighbours);
        let mut tree = Self {
            mesh: mesh.clone(),
            rest: rest.to_vec(),
            weights: weights.clone(),
            nodes: Vec::with_capacity(2 * mesh.triangle_count() / options.leaf_triangles + 1),
            order: Vec::with_capacity(mesh.triangle_count()),
            boundary: Vec::new(),
            patches: Vec::new(),
            options,
        };
        tree.flatten(&clusters, root);
        tree.compute_boundaries(&neighbours);
        tree.compute_patches();
        Ok(tree)
    }

    /// Depth-first flattening of the cluster tree into nodes whose triangles are contiguous,
    /// collapsing clusters of at most `leaf_triangles` into leaves.
    fn flatten(&mut self, clusters: &[Cluster], root: u32) {
        // (cluster, parent node, depth, is-right-child)
        let mut stack = vec![(root, NONE, 0u32, false)];
        let mut leaf_stack = Vec::new();
        while let Some((c, parent, depth, right)) = stack.pop() {
            let node = self.nodes.len() as u32;
            if parent != NONE {
                if let Some(ch) = self.nodes[parent as usize].children.as_mut() {
                    ch[right as usize] = node;
                }
            }
            let cl = &clusters[c as usize];
            let first = self.order.len() as u32;
            let leaf = cl.children.is_none() || cl.count as usize <= self.options.leaf_triangles;
            self.nodes.push(BnNode {
                first,
                count: cl.count,
                children: if leaf { None } else { Some([NONE; 2]) },
                parent,
                depth,
                patch: NONE,
                boundary: (0, 0),
            });
            if leaf {
                leaf_stack.push(c);
                while let Some(x) = leaf_stack.pop() {
                    match clusters[x as usize].children {
                        None => self.order.push(clusters[x as usize].triangle),
                        Some([a, b]) => {
                            leaf_stack.push(b);
                            leaf_stack.push(a);
                        }
                    }
                }
            } else if let Some([a, b]) = cl.children {
                // Left child is processed first so its triangles come first.
                stack.push((b, node, depth + 1, true));
                stack.push((a, node, depth + 1, false));
            }
        }
    }

    /// Boundary edges of every node, children before parents: a child's edge stays on the
    /// parent's boundary unless the triangle across it is in the sibling.
    fn compute_boundaries(&mut self, neighbours: &[[u32; 3]]) {
        let mut position = vec![NONE; self.mesh.triangle_count()];
        for (pos, &t) in self.order.iter().enumerate() {
            position[t as usize] = pos as u32;
        }
        let mut per_node: Vec<Vec<BoundaryEdge>> = vec![Vec::new(); self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            let mut edges = Vec::new();
            match node.children {
                None => {
                    for pos in node.first..node.first + node.count {
                        let t = self.order[pos as usize] as usize;
                        let tri = self.mesh.triangles()[t];
                        for e in 0..3 {
                            let n = neighbours[t][e];
                            let across = if n == NONE {
                                NONE
                            } else {
                                position[n as usize]
                            };
                            if !node.contains_position(across) {
                                edges.push(BoundaryEdge {
                                    from: tri[e],
                                    to: tri[(e + 1) % 3],
                                    across,
                                });
                            }
                        }
                    }
                }
                Some([a, b]) => {
                    for child in [a, b] {
                        let list = core::mem::take(&mut per_node[child as usize]);
                        edges.extend(
                            list.iter()
                                .copied()
                                .filter(|e| !node.contains_position(e.across)),
                        );
                        per_node[child as usize] = list;
                    }
                }
            }
            edges.sort_unstable_by_key(|e| (e.from, e.to));
            per_node[i] = edges;
        }
        for (i, edges) in per_node.into_iter().enumerate() {
            let start = self.boundary.len() as u32;
            self.boundary.extend(edges);
            self.nodes[i].boundary = (start, self.boundary.len() as u32);
        }
    }

    /// O(m) bound data for the nodes where it is cheaper than bottom-up refit.
    fn compute_patches(&mut self) {
        for i in 0..self.nodes.len() {
            let node = self.nodes[i];
            if node.is_leaf() {
                continue;
            }
            let tris = &self.order[node.first as usize..(node.first + node.count) as usize];
            // Cheap governor count before the full precompute.
            let mut governors: Vec<u32> = tris
                .iter()
                .flat_map(|&t| self.mesh.triangles()[t as usize])
                .flat_map(|v| self.weights.row(v as usize).0.iter().copied())
                .collect();
            governors.sort_unstable();
            governors.dedup();
            if (node.count as f32) < self.options.governor_cost * governors.len() as f32 {
                continue;
            }
            self.nodes[i].patch = self.patches.len() as u32;
            self.patches.push(PatchBounds::new(
                &self.rest,
                &self.weights,
                &self.mesh,
                tris,
            ));
        }
    }

    /// The nodes (index 0 is the root; depth-first order).
    #[inline]
    pub fn nodes(&self) -> &[BnNode] {
        &self.nodes
    }

    /// The triangle permutation the nodes' ranges index into.
    #[inline]
    pub fn triangle_order(&self) -> &[u32] {
        &self.order
    }

    /// Triangles of node `i`.
    #[inline]
    pub fn node_triangles(&self, i: usize) -> &[u32] {
        let n = &self.nodes[i];
        &self.order[n.first as usize..(n.first + n.count) as usize]
    }

    /// The rest mesh.
    #[inline]
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The weights the tree was built with.
    #[inline]
    pub fn weights(&self) -> &ConvexWeights {
        &self.weights
    }

    /// Rest positions the governors apply to.
    #[inline]
    pub fn rest_positions(&self) -> &[Vec3] {
        &self.rest
    }

    /// Number of nodes that bound themselves in O(m) from their governors.
    #[inline]
    pub fn governor_bounded_nodes(&self) -> usize {
        self.patches.len()
    }

    /// The O(m) bound data of node `i`, if it has any.
    #[inline]
    pub fn node_patch(&self, i: usize) -> Option<&PatchBounds> {
        let p = self.nodes[i].patch;
        (p != NONE).then(|| &self.patches[p as usize])
    }

    /// Boundary edges (`from`, `to`) of node `i`, sorted by `from`.
    pub fn node_boundary(&self, i: usize) -> impl Iterator<Item = [u32; 2]> + '_ {
        let (a, b) = self.nodes[i].boundary;
        self.boundary[a as usize..b as usize]
            .iter()
            .map(|e| [e.from, e.to])
    }

    /// True when nodes `a` and `b` (disjoint) share at least one vertex. Shared vertices lie on
    /// both boundaries, so this merges the two sorted boundary lists.
    ///
    /// # Performance
    /// O(boundary(a) + boundary(b)).
    pub fn nodes_adjacent(&self, a: usize, b: usize) -> bool {
        let (a0, a1) = self.nodes[a].boundary;
        let (b0, b1) = self.nodes[b].boundary;
        let (ea, eb) = (
            &self.boundary[a0 as usize..a1 as usize],
            &self.boundary[b0 as usize..b1 as usize],
        );
        let (mut i, mut j) = (0, 0);
        while i < ea.len() && j < eb.len() {
            match ea[i].from.cmp(&eb[j].from) {
                core::cmp::Ordering::Less => i += 1,
                core::cmp::Ordering::Greater => j += 1,
                core::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// Memory held by the tree (topology, contours, O(m) data, and its copies of the rest mesh
    /// and weights), in bytes.
    pub fn heap_bytes(&self) -> usize {
        let mesh = self.mesh.vertex_count() * 12 + self.mesh.triangle_count() * 12;
        let weights = self.weights.influence_count() * 8 + (self.weights.vertex_count() + 1) * 4;
        mesh + self.rest.len() * 12
            + weights
            + self.nodes.len() * core::mem::size_of::<BnNode>()
            + self.order.len() * 4
            + self.boundary.len() * core::mem::size_of::<BoundaryEdge>()
            + self
                .patches
                .iter()
                .map(|p| p.heap_bytes() + core::mem::size_of::<PatchBounds>())
                .sum::<usize>()
    }
}

/// Greedy bottom-up matching of edge-adjacent clusters by the compactness of their union.
/// Returns the cluster arena and the root.
fn cluster_triangles(
    mesh: &TriangleMesh,
    rest: &[Vec3],
    neighbours: &[[u32; 3]],
) -> (Vec<Cluster>, u32) {
    let tri_count = mesh.triangle_count();
    let mut clusters: Vec<Cluster> = (0..tri_count)
        .map(|t| {
            let [a, b, c] = mesh.corners(rest, t);
            Cluster {
                children: None,
                triangle: t as u32,
                count: 1,
                area: 0.5 * ((b - a).cross(c - a)).length() as f64,
                perimeter: ((b - a).length() + (c - b).length() + (a - c).length()) as f64,
                centroid: (a + b + c) / 3.0,
            }
        })
        .collect();
    let mut owner: Vec<u32> = (0..tri_count as u32).collect();
    let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
    let mut scored: Vec<(f64, u32, u32)> = Vec::new();
    let mut next_owner: Vec<u32> = Vec::new();
    loop {
        // Shared edge length between every pair of adjacent clusters.
        pairs.clear();
        for t in 0..tri_count {
            let tri = mesh.triangles()[t];
            for e in 0..3 {
                let n = neighbours[t][e];
                if n == NONE || (n as usize) < t {
                    continue;
                }
                let (a, b) = (owner[t], owner[n as usize]);
                if a != b {
                    let len =
                        (rest[tri[e] as usize] - rest[tri[(e + 1) % 3] as usize]).length() as f64;
                    pairs.push((a.min(b), a.max(b), len));
                }
            }
        }
        if pairs.is_empty() {
            break;
        }
        pairs.sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
        scored.clear();
        let mut i = 0;
        while i < pairs.len() {
            let (a, b) = (pairs[i].0, pairs[i].1);
            let mut shared = 0.0;
            while i < pairs.len() && pairs[i].0 == a && pairs[i].1 == b {
                shared += pairs[i].2;
                i += 1;
            }
            let (ca, cb) = (&clusters[a as usize], &clusters[b as usize]);
            let area = ca.area + cb.area;
            let perimeter = (ca.perimeter + cb.perimeter - 2.0 * shared).max(1e-30);
            let balance = (ca.count.min(cb.count) as f64 / ca.count.max(cb.count) as f64).sqrt();
            scored.push((area / (perimeter * perimeter) * balance, a, b));
        }
        scored.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        next_owner.clear();
        next_owner.resize(clusters.len(), NONE);
        for &(_, a, b) in &scored {
            if next_owner[a as usize] != NONE || next_owner[b as usize] != NONE {
                continue;
            }
            let id = clusters.len() as u32;
            let (ca, cb) = (&clusters[a as usize], &clusters[b as usize]);
            let merged = Cluster {
                children: Some([a, b]),
                triangle: NONE,
                count: ca.count + cb.count,
                area: ca.area + cb.area,
                perimeter: ca.perimeter + cb.perimeter,
                centroid: (ca.centroid * ca.count as f32 + cb.centroid * cb.count as f32)
                    / (ca.count + cb.count) as f32,
            };
            clusters.push(merged);
            next_owner.push(NONE);
            next_owner[a as usize] = id;
            next_owner[b as usize] = id;
        }
        // Exact perimeters of the merged clusters: subtract twice their internal shared length.
        for &(a, b, len) in &pairs {
            let (na, nb) = (next_owner[a as usize], next_owner[b as usize]);
            if na != NONE && na == nb {
                clusters[na as usize].perimeter -= 2.0 * len;
            }
        }
        for o in owner.iter_mut() {
            let n = next_owner[*o as usize];
            if n != NONE {
                *o = n;
            }
        }
    }
    // The roots are the clusters nobody merged: one per connected component.
    let mut is_child = vec![false; clusters.len()];
    for c in &clusters {
        if let Some([a, b]) = c.children {
            is_child[a as usize] = true;
            is_child[b as usize] = true;
        }
    }
    let mut roots: Vec<u32> = (0..clusters.len() as u32)
        .filter(|&c| !is_child[c as usize])
        .collect();
    // Join connected components pairwise along their centroids' longest spread.
    while roots.len() > 1 {
        let (lo, hi) = roots.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), &r| {
                let c = clusters[r as usize].centroid;
                (lo.min(c), hi.max(c))
            },
        );
        let axis = (hi - lo).max_position();
        roots.sort_by(|&a, &b| {
            clusters[a as usize].centroid[axis].total_cmp(&clusters[b as usize].centroid[axis])
        });
        let mut next = Vec::with_capacity(roots.len() / 2 + 1);
        for chunk in roots.chunks(2) {
            if let [a, b] = *chunk {
                let (ca, cb) = (&clusters[a as usize], &clusters[b as usize]);
                let merged = Cluster {
                    children: Some([a, b]),
                    triangle: NONE,
                    count: ca.count + cb.count,
                    area: ca.area + cb.area,
                    perimeter: ca.perimeter + cb.perimeter,
                    centroid: (ca.centroid * ca.count as f32 + cb.centroid * cb.count as f32)
                        / (ca.count + cb.count) as f32,
                };
                next.push(clusters.len() as u32);
                clusters.push(merged);
            } else {
                next.push(chunk[0]);
            }
        }
        roots = next;
    }
    let root = roots[0];
    (clusters, root)
}
