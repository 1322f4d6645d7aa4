//! BN-Tree construction: bottom-up clustering of edge-connected triangles into compact patches (area over perimeter), leaf collapsing, boundary contours and per-node bound data.

use crate::bounds::{PatchBounds, patch_triangles};
use crate::error::{DeformError, Result};
use crate::governor::ConvexWeights;
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Marks "no node / no triangle".
pub(crate) const NONE: u32 = u32::MAX;

/// Build options of a [`BnTree`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct BnTreeOptions {
    /// Patches of at most this many triangles become leaves (tested pairwise).
    pub leaf_triangles: usize,
    /// Estimated cost of one governor in an O(m) bound, in units of one triangle of bottom-up
    /// refit. A node gets O(m) bound data when `triangles ≥ governor_cost · m` (BN-Tree §4.3:
    /// "we check for each node whether it is more efficient to compute the DNC in a bottom-up
    /// fashion on its subtree or using our algorithm").
    pub governor_cost: f32,
}

/// Defaults measured on the 244,480-triangle walking cat (instruction counts of the query,
/// BENCHMARKS.md): leaves of 16 triangles cost the same query time as leaves of 4 with a quarter
/// of the nodes (the tree then fits below the deform-all + BVH route's memory), and O(m) data
/// only where `triangles ≥ 64 m` (an O(m) cone costs about as much as a bottom-up refit of a
/// few hundred triangles, and is looser). Trees for self-collision queries do better with
/// [`BnTreeOptions::SELF_COLLISION`].
impl Default for BnTreeOptions {
    fn default() -> Self {
        Self {
            leaf_triangles: 16,
            governor_cost: 64.0,
        }
    }
}

impl BnTreeOptions {
    /// For trees that answer [`super::SelfCollisionQuery`]: O(m) data only where `triangles ≥
    /// 256 m`. With the box update front most boxes come from children, so fewer O(m) nodes
    /// cost nothing in speed (as fast or faster on every `self_*` scene) and save memory (the
    /// Fox went below the deform-all + BVH route, 124.9 vs 126.9 B/tri). The root of a large,
    /// nearly flat patch keeps its O(m) data (the cloth's root prune). Mesh colliders want the
    /// opposite, [`BnTreeOptions::COLLIDER`]: their queries touch few nodes.
    pub const SELF_COLLISION: Self = Self {
        leaf_triangles: 16,
        governor_cost: 256.0,
    };

    /// For trees behind mesh colliders ([`crate::shape::DeformableMeshShape`]): leaves of 16
    /// triangles and O(m) data where `triangles ≥ 64 m` (the default's values, named for what
    /// they are for). A shape refits a leaf from its packed vertex block, so a bottom-up box is
    /// cheap and an O(m) box (a few hundred instructions per governor) pays only where it prunes
    /// a large subtree. Instructions per step (callgrind): the `crowd` scene's walking Foxes
    /// 42.5M with leaves of 8 and O(m) data at `8 m`, 32.2M with these (30.1M with leaves of
    /// 32); the `skinned_rain` BN-Tree world (`--quick`) 245M and 218M.
    pub const COLLIDER: Self = Self {
        leaf_triangles: 16,
        governor_cost: 64.0,
    };
}

/// One node of a [`BnTree`]: a connected patch, the contiguous range `first..first + count` of
/// the tree's triangle order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
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
    /// 64-bit signature of the boundary vertices (bit `v mod 64`): disjoint signatures prove two
    /// nodes share no vertex without merging their boundary lists.
    pub(crate) signature: u64,
    /// Every boundary vertex has exactly one incoming and one outgoing boundary edge (the
    /// boundary is a set of closed loops). Otherwise the patch is pinched and its own contour
    /// test cannot pass.
    pub(crate) loops: bool,
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
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
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
///
/// Queries deform vertices lazily, patch by patch: number the mesh's vertices in spatial order
/// first ([`crate::mesh::VertexOrder::spatial`]) if they are not (subdivision output is not), so
/// each patch reads contiguous memory (9–15 % faster queries on the walking cat).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct BnTree {
    pub(crate) mesh: TriangleMesh,
    pub(crate) rest: Vec<Vec3>,
    pub(crate) weights: ConvexWeights,
    pub(crate) nodes: Vec<BnNode>,
    pub(crate) order: Vec<u32>,
    pub(crate) boundary: Vec<BoundaryEdge>,
    pub(crate) patches: Vec<PatchBounds>,
    pub(crate) options: BnTreeOptions,
    /// Whether the mesh is an oriented manifold ([`TriangleMesh::check_oriented_manifold`]):
    /// the normal-cone pruning of self-collision queries (Volino & Magnenat-Thalmann 1994)
    /// holds only for a consistently oriented surface (a fold made of a flipped triangle keeps
    /// every computed normal on one side), so queries on other meshes do not prune by normals.
    #[cfg_attr(feature = "serde-serialize", serde(default))]
    pub(crate) oriented: bool,
    /// Rest positions of point governors (subdivision control points), when the governors are
    /// moving points (`A = 0`, `t = point`): normal bounds then use the per-patch best-fit
    /// affine of BN-Tree §5.
    pub(crate) rest_points: Option<Vec<Vec3>>,
    /// Smallest altitude of a rest triangle (twice its area over its longest edge).
    #[cfg_attr(feature = "serde-serialize", serde(default))]
    pub(crate) min_rest_altitude: f32,
    /// Largest distance of a rest vertex from the origin.
    #[cfg_attr(feature = "serde-serialize", serde(default))]
    pub(crate) rest_radius: f32,
    /// Largest number of influences of a vertex (weight changes keep row lengths).
    #[cfg_attr(
        feature = "serde-serialize",
        serde(default = "crate::bn_tree::build::most_influences")
    )]
    pub(crate) max_influences: u32,
}

/// The influence count assumed for a tree serialized without one: the crate's limit.
#[cfg(feature = "serde-serialize")]
fn most_influences() -> u32 {
    crate::limits::MAX_INFLUENCES as u32
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
    /// Patches are split top-down: each node's triangles are divided into two edge-connected
    /// halves grown breadth-first from two far-apart seeds, which gives balanced, compact
    /// patches (BN-Tree §4.1: patches that maximise area over perimeter make the contour test
    /// unlikely to fail); sets with several connected components are split between components.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `rest` or the weight rows do not match the mesh's
    /// vertex count; [`DeformError::NonFinitePosition`] or [`DeformError::PositionOutOfRange`]
    /// for a bad rest position; [`DeformError::InvalidParameter`] for `leaf_triangles = 0` or a non-finite
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
        crate::governor::check_rest_and_weights(mesh, rest, weights)?;
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
        let mut tree = Self {
            mesh: mesh.clone(),
            rest: rest.to_vec(),
            weights: weights.clone(),
            nodes: Vec::with_capacity(2 * mesh.triangle_count() / options.leaf_triangles + 1),
            order: Vec::with_capacity(mesh.triangle_count()),
            boundary: Vec::new(),
            patches: Vec::new(),
            options,
            oriented: mesh.check_oriented_manifold().is_ok(),
            rest_points: None,
            min_rest_altitude: min_altitude(mesh, rest),
            rest_radius: rest.iter().fold(0f32, |r, p| r.max(p.length())),
            max_influences: weights.max_influences() as u32,
        };
        tree.bisect(&neighbours);
        tree.compute_boundaries(&neighbours);
        tree.compute_patches();
        Ok(tree)
    }

    /// Top-down recursive bisection into edge-connected halves (see [`Bisector`]), written in
    /// depth-first order so every node's triangles are contiguous.
    fn bisect(&mut self, neighbours: &[[u32; 3]]) {
        let mut bisector = Bisector::new(neighbours);
        let all: Vec<u32> = (0..self.mesh.triangle_count() as u32).collect();
        // (triangles, parent node, depth, is-right-child)
        let mut stack = vec![(all, NONE, 0u32, false)];
        while let Some((tris, parent, depth, right)) = stack.pop() {
            let node = self.nodes.len() as u32;
            if parent != NONE
                && let Some(ch) = self.nodes[parent as usize].children.as_mut()
            {
                ch[right as usize] = node;
            }
            let first = self.order.len() as u32;
            let leaf = tris.len() <= self.options.leaf_triangles;
            self.nodes.push(BnNode {
                first,
                count: tris.len() as u32,
                children: if leaf { None } else { Some([NONE; 2]) },
                parent,
                depth,
                patch: NONE,
                boundary: (0, 0),
                signature: 0,
                loops: false,
            });
            if leaf {
                self.order.extend_from_slice(&tris);
                continue;
            }
            let (left, right_tris) = bisector.split(&tris);
            // Left child is processed first so its triangles come first.
            stack.push((right_tris, node, depth + 1, true));
            stack.push((left, node, depth + 1, false));
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
            let edges = &self.boundary[start as usize..];
            self.nodes[i].signature = edges
                .iter()
                .fold(0u64, |sig, e| sig | (1u64 << (e.from % 64)));
            let mut froms: Vec<u32> = edges.iter().map(|e| e.from).collect();
            let mut tos: Vec<u32> = edges.iter().map(|e| e.to).collect();
            froms.sort_unstable();
            tos.sort_unstable();
            self.nodes[i].loops =
                !froms.is_empty() && froms.windows(2).all(|w| w[0] != w[1]) && froms == tos;
        }
    }

    /// O(m) bound data for the nodes where it is cheaper than bottom-up refit.
    fn compute_patches(&mut self) {
        for i in 0..self.nodes.len() {
            let node = self.nodes[i];
            if node.is_leaf() {
                continue;
            }
            let tris = patch_triangles(&self.order, node.first, node.count);
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

    /// Declares the governors to be moving points with these rest positions (e.g. the control
    /// points of a [`crate::deformation::LoopSubdivision`]: governor `k` is `Affine::constant(y_k)`
    /// and `rest_points[k] = x_k`). Normal bounds then fit one affine map per patch to the
    /// points' motion (BN-Tree §5), which is far tighter than `A_k = 0`.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless there is one rest point per governor;
    /// [`DeformError::NonFinitePosition`] for a non-finite one.
    ///
    /// # Performance
    /// O(governors).
    pub fn with_point_governors(mut self, rest_points: Vec<Vec3>) -> Result<Self> {
        if rest_points.len() != self.weights.governor_count() {
            return Err(DeformError::LengthMismatch {
                what: "rest points of the point governors",
                expected: self.weights.governor_count(),
                actual: rest_points.len(),
            });
        }
        crate::math::validate_positions("control point", &rest_points)?;
        self.rest_points = Some(rest_points);
        Ok(self)
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
        patch_triangles(&self.order, n.first, n.count)
    }

    /// Whether self-collision queries prune by normals: only on an oriented manifold (no edge
    /// of three triangles, none traversed twice in one direction; boundaries allowed). On other
    /// meshes the queries stay exact but test every pair of boxes that overlap.
    #[inline]
    pub fn prunes_by_normals(&self) -> bool {
        self.oriented
    }

    /// The rest mesh.
    #[inline]
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The current weights (those the tree was built with, unless
    /// [`BnTree::set_vertex_weights`] changed some rows).
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

    /// One past the last node of the subtree rooted at `i`: nodes are stored in depth-first
    /// order, so a subtree is the contiguous range `i..subtree_end(i)`, ending after its
    /// right-most leaf.
    ///
    /// # Performance
    /// O(depth).
    pub fn subtree_end(&self, i: usize) -> usize {
        let mut j = i;
        while let Some([_, right]) = self.nodes[j].children {
            j = right as usize;
        }
        j + 1
    }

    /// True when nodes `a` and `b` (disjoint) share at least one edge: some boundary edge of the
    /// node with the shorter boundary has the other node's triangle across it. The traversal
    /// treats only edge-sharing nodes as adjacent: the union of two patches that touch at
    /// vertices alone is pinched there, so its contour test cannot pass, and the pair is handled
    /// like a disjoint one (box test, exact tests that know about shared vertices at the leaves).
    ///
    /// # Performance
    /// O(min(boundary(a), boundary(b))), no merge.
    pub fn nodes_share_edge(&self, a: usize, b: usize) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let (short, other) = if na.boundary.1 - na.boundary.0 <= nb.boundary.1 - nb.boundary.0 {
            (na, nb)
        } else {
            (nb, na)
        };
        let (s0, s1) = short.boundary;
        self.boundary[s0 as usize..s1 as usize]
            .iter()
            .any(|e| other.contains_position(e.across))
    }

    /// True when nodes `a` and `b` (disjoint) share at least one vertex. Shared vertices lie on
    /// both boundaries, so this merges the two sorted boundary lists.
    ///
    /// # Performance
    /// O(boundary(a) + boundary(b)).
    pub fn nodes_adjacent(&self, a: usize, b: usize) -> bool {
        if self.nodes[a].signature & self.nodes[b].signature == 0 {
            return false;
        }
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

/// Splits a set of triangles into two edge-connected halves of (nearly) equal size by growing
/// two regions breadth-first from two far-apart seeds, alternating one triangle at a time.
/// Sets with several connected components are split between components instead.
pub(crate) struct Bisector<'a> {
    neighbours: &'a [[u32; 3]],
    /// Per triangle: the node-local stamp saying it belongs to the set being split.
    member: Vec<u32>,
    /// Per triangle: BFS visit stamp.
    visited: Vec<u32>,
    side: Vec<u8>,
    side_grown: u8,
    stamp: u32,
    queue: std::collections::VecDeque<u32>,
}

impl<'a> Bisector<'a> {
    pub(crate) fn new(neighbours: &'a [[u32; 3]]) -> Self {
        let n = neighbours.len();
        Self {
            neighbours,
            member: vec![0; n],
            visited: vec![0; n],
            side: vec![0; n],
            side_grown: 0,
            stamp: 0,
            queue: std::collections::VecDeque::new(),
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp += 1;
        self.stamp
    }

    /// Breadth-first from `start` over members; returns the last triangle reached and the
    /// number reached.
    fn farthest(&mut self, start: u32, member: u32) -> (u32, usize) {
        let stamp = self.next_stamp();
        self.queue.clear();
        self.queue.push_back(start);
        self.visited[start as usize] = stamp;
        let (mut last, mut reached) = (start, 0);
        while let Some(t) = self.queue.pop_front() {
            last = t;
            reached += 1;
            for &n in &self.neighbours[t as usize] {
                if n != NONE
                    && self.member[n as usize] == member
                    && self.visited[n as usize] != stamp
                {
                    self.visited[n as usize] = stamp;
                    self.queue.push_back(n);
                }
            }
        }
        (last, reached)
    }

    /// Splits `tris` into `(left, right)`.
    pub(crate) fn split(&mut self, tris: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let member = self.next_stamp();
        for &t in tris {
            self.member[t as usize] = member;
        }
        let (far, reached) = self.farthest(tris[0], member);
        if reached < tris.len() {
            return self.split_components(tris, member);
        }
        let (seed_b, _) = self.farthest(far, member);
        let seed_a = far;
        let stamp = self.next_stamp();
        let mut queues = [
            std::collections::VecDeque::new(),
            std::collections::VecDeque::new(),
        ];
        for (side, seed) in [(0u8, seed_a), (1u8, seed_b)] {
            self.visited[seed as usize] = stamp;
            self.side[seed as usize] = side;
            queues[side as usize].push_back(seed);
        }
        let mut counts = [1usize, 1usize];
        // Grow the smaller side by one triangle at a time (the other one when the smaller is
        // enclosed), so the halves balance and each stays edge-connected to its seed.
        loop {
            let smaller = if counts[0] <= counts[1] { 0 } else { 1 };
            let grown = self.grow_one(&mut queues[smaller], member, stamp, smaller as u8)
                || self.grow_one(&mut queues[1 - smaller], member, stamp, 1 - smaller as u8);
            if !grown {
                break;
            }
            let side = if self.side_grown == 0 { 0 } else { 1 };
            counts[side] += 1;
        }
        let (mut left, mut right) = (Vec::with_capacity(counts[0]), Vec::with_capacity(counts[1]));
        for &t in tris {
            if self.side[t as usize] == 0 {
                left.push(t);
            } else {
                right.push(t);
            }
        }
        (left, right)
    }

    /// Adds one unvisited member neighbour of the queue's front triangles to `side`.
    fn grow_one(
        &mut self,
        queue: &mut std::collections::VecDeque<u32>,
        member: u32,
        stamp: u32,
        side: u8,
    ) -> bool {
        while let Some(&t) = queue.front() {
            for &n in &self.neighbours[t as usize] {
                if n != NONE
                    && self.member[n as usize] == member
                    && self.visited[n as usize] != stamp
                {
                    self.visited[n as usize] = stamp;
                    self.side[n as usize] = side;
                    self.side_grown = side;
                    queue.push_back(n);
                    return true;
                }
            }
            let _ = queue.pop_front();
        }
        false
    }

    /// A set that is not edge-connected: its components go to two sides, largest first onto
    /// the smaller side.
    fn split_components(&mut self, tris: &[u32], member: u32) -> (Vec<u32>, Vec<u32>) {
        let stamp = self.next_stamp();
        let mut components: Vec<Vec<u32>> = Vec::new();
        for &t in tris {
            if self.visited[t as usize] == stamp {
                continue;
            }
            let mut comp = Vec::new();
            self.queue.clear();
            self.queue.push_back(t);
            self.visited[t as usize] = stamp;
            while let Some(x) = self.queue.pop_front() {
                comp.push(x);
                for &n in &self.neighbours[x as usize] {
                    if n != NONE
                        && self.member[n as usize] == member
                        && self.visited[n as usize] != stamp
                    {
                        self.visited[n as usize] = stamp;
                        self.queue.push_back(n);
                    }
                }
            }
            components.push(comp);
        }
        components.sort_by_key(|c| core::cmp::Reverse(c.len()));
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for c in components {
            if left.len() <= right.len() {
                left.extend(c);
            } else {
                right.extend(c);
            }
        }
        (left, right)
    }
}

/// The smallest altitude of a triangle of `mesh` at `positions` (twice the area over the longest
/// edge, in f64, rounded down to f32).
fn min_altitude(mesh: &TriangleMesh, positions: &[Vec3]) -> f32 {
    let mut min = f64::MAX;
    for t in mesh.triangles() {
        let [a, b, c] = t.map(|v| positions[v as usize].as_dvec3());
        let twice_area = (b - a).cross(c - a).length();
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        if longest > 0.0 {
            min = min.min(twice_area / longest);
        }
    }
    if min == f64::MAX {
        0.0
    } else {
        // Rounded down: the check that reads it must not overestimate the altitude.
        let down = min as f32;
        if f64::from(down) > min {
            down.next_down()
        } else {
            down
        }
    }
}
