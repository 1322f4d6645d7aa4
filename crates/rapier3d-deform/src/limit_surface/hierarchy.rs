//! The patch hierarchy over a control mesh's limit patches (seed §2.2, Fig. 5): a binary tree built by top-down median splits of the control triangles, with lazily refit boxes and normal cones and, per node, its boundary loop when it is a disc (seed §2.4).

use super::cone::{NormalBound, merge_bounds};
use super::contour::projected_loop_is_simple;
use super::control_mesh::LimitPatches;
use super::refine::{self, P3, Segment};
use crate::error::{DeformError, Result};
use crate::math::{Vec3, validate_positions};
use crate::mesh::TriangleMesh;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Epochs come from one process-wide counter: an epoch names one state of the control points of
/// one hierarchy (and of its clones until they move), so a cache keyed by a patch's last change
/// (as the detection query's sub-patches are) never mistakes another hierarchy's patch for it.
static NEXT_EPOCH: AtomicU64 = AtomicU64::new(1);

fn next_epoch() -> u64 {
    NEXT_EPOCH.fetch_add(1, Ordering::Relaxed)
}

/// A cached self-test outcome: the epoch up to which it is known valid, the contour flag it was
/// found with, the outcome.
type Outcome = (u64, bool, bool);

/// The boundary loop of the union of two adjacent nodes (when a disc) and its self-test outcome.
type UnionLoop = (Option<Vec<BoundaryEdge>>, Outcome);

/// A boundary edge of a region: `(patch, canonical edge 0..3)`.
pub(crate) type BoundaryEdge = (u32, u8);

#[derive(Clone, Debug)]
struct Node {
    start: u32,
    end: u32,
    children: Option<[u32; 2]>,
    /// The node's boundary loop in boundary order, when the node's patches form a topological
    /// disc (fixed by the topology).
    disc: Option<Vec<BoundaryEdge>>,
    /// The leaf-order positions of the patches outside the node that share an edge with one of
    /// its patches, sorted and distinct (fixed by the topology).
    across: Vec<u32>,
}

/// A star of patches around a patch (sorted) and its boundary loop when it is a disc.
#[derive(Clone, Debug)]
struct Star {
    patches: Vec<u32>,
    boundary: Option<Vec<BoundaryEdge>>,
}

/// Per patch: the epoch and its three boundary segments.
type SegmentCache = (u64, Option<Box<[Segment; 3]>>);

#[derive(Clone, Copy, Debug)]
struct Cached {
    box_epoch: u64,
    cone_epoch: u64,
    lo: P3,
    hi: P3,
    cone: NormalBound,
}

impl Cached {
    const EMPTY: Self = Self {
        box_epoch: 0,
        cone_epoch: 0,
        lo: [0.0; 3],
        hi: [0.0; 3],
        cone: NormalBound::Unbounded,
    };
}

/// The patch hierarchy of a closed Loop control mesh (seed §2.2): every node is a set of limit
/// patches (whole control triangles), the root all of them, each leaf one limit patch; below a
/// leaf, the limit patch's own refinement (one Loop step of its control neighbourhood per level)
/// continues the hierarchy inside the detection query.
///
/// Built once from the control mesh's rest positions by top-down median splits of the triangle
/// centroids along the widest axis (the same choice as the BN-Tree's patches). Per node it stores
/// its boundary loop when its patches form a topological disc (connected, one boundary loop
/// visiting each boundary vertex once, Euler characteristic 1): the self-interference test of §2.4
/// applies only to discs.
///
/// The control points move with [`LimitHierarchy::set_control_points`] (point governors): that
/// bumps an epoch and stamps the patches whose control points changed (and the nodes above
/// them); boxes, cones, boundary segments and star tests are refit when a query reads them and
/// their stamp is older than the patch's or node's last change, so a frame pays for the nodes its
/// query reaches, and a region whose control points did not move keeps its bounds.
///
/// # Performance
/// Building: O(T log² T) (median splits, disc checks per node, O(T) each level). Memory O(T log T)
/// (the discs' boundary loops, the patches across each node's boundary) plus O(T) per-patch data
/// (bounds, segments, and the stars of one and two vertex rings once gathered).
#[derive(Clone, Debug)]
pub struct LimitHierarchy {
    patches: LimitPatches,
    triangles: Vec<[u32; 3]>,
    /// Position of the canonical corner 0 in the control triangle.
    first_corner: Vec<u8>,
    /// Per patch, per canonical edge, the patch across it.
    neighbours: Vec<[u32; 3]>,
    nodes: Vec<Node>,
    order: Vec<u32>,
    position: Vec<u32>,
    points: Vec<P3>,
    epoch: u64,
    /// Per patch: the epoch in which its control points last changed.
    patch_changed: Vec<u64>,
    /// Per node: the latest change of its patches.
    node_changed: Vec<u64>,
    /// Per control point: whether the last [`LimitHierarchy::set_control_points`] moved it.
    moved: Vec<bool>,
    patch_cache: Vec<Cached>,
    node_cache: Vec<Cached>,
    /// Per control vertex, the patches around it.
    fans: Vec<Vec<u32>>,
    /// Per patch, per ring count (1, 2): the epoch, the contour flag and the outcome of its
    /// star's self test.
    star_cache: Vec<[(u64, bool, bool); 2]>,
    /// Per patch, per ring count (1, 2): its star (sorted) and the star's boundary loop when it
    /// is a disc, gathered on first use (topology only).
    stars: Vec<[Option<Star>; 2]>,
    /// Per control vertex: the patches around it (sorted) and their boundary loop, gathered on
    /// first use (topology only).
    vertex_fans: Vec<Option<Star>>,
    /// Per control vertex: the epoch, the contour flag and the outcome of its fan's self test.
    fan_cache: Vec<(u64, bool, bool)>,
    /// The boundary loops of the unions of two adjacent nodes met so far (topology only), with
    /// the outcome of the union's self test.
    union_loops: HashMap<(u32, u32), UnionLoop>,
    /// Per node: the outcome of its self test.
    node_test: Vec<Outcome>,
    /// Per patch: the epoch and its boundary segments.
    segment_cache: Vec<SegmentCache>,
}

impl LimitHierarchy {
    /// Checks the control mesh ([`LimitPatches::new`]) and builds the hierarchy over its rest
    /// positions, which are also the first control points.
    ///
    /// # Errors
    /// Those of [`LimitPatches::new`] (boundary, non-manifold, valence, two irregular corners).
    ///
    /// # Performance
    /// O(T log² T).
    pub fn new(control: &TriangleMesh) -> Result<Self> {
        let patches = LimitPatches::new(control)?;
        let triangles = control.triangles().to_vec();
        let t_count = triangles.len();
        let mut first_corner = Vec::with_capacity(t_count);
        for (t, tri) in triangles.iter().enumerate() {
            let v0 = patches
                .control_indices(t)
                .and_then(|c| c.first().copied())
                .unwrap_or(tri[0]);
            first_corner.push(tri.iter().position(|&v| v == v0).unwrap_or(0) as u8);
        }
        let mut directed: HashMap<(u32, u32), u32> = HashMap::with_capacity(3 * t_count);
        for (t, tri) in triangles.iter().enumerate() {
            for c in 0..3 {
                directed.insert((tri[c], tri[(c + 1) % 3]), t as u32);
            }
        }
        let mut neighbours = Vec::with_capacity(t_count);
        for (t, tri) in triangles.iter().enumerate() {
            let c = first_corner[t] as usize;
            let mut nb = [0u32; 3];
            for (e, slot) in nb.iter_mut().enumerate() {
                let (a, b) = (tri[(c + e) % 3], tri[(c + e + 1) % 3]);
                // LimitPatches::new proved the mesh closed and oriented.
                *slot = *directed
                    .get(&(b, a))
                    .ok_or(DeformError::BoundaryVertex { vertex: a })?;
            }
            neighbours.push(nb);
        }
        let centroids: Vec<P3> = triangles
            .iter()
            .map(|tri| {
                let p = tri.map(|v| control.positions()[v as usize]);
                let c = (p[0] + p[1] + p[2]) / 3.0;
                [c.x as f64, c.y as f64, c.z as f64]
            })
            .collect();
        let mut order: Vec<u32> = (0..t_count as u32).collect();
        let mut nodes = Vec::with_capacity(2 * t_count);
        build(&mut nodes, &mut order, &centroids, 0, t_count);
        let mut position = vec![0u32; t_count];
        for (i, &t) in order.iter().enumerate() {
            position[t as usize] = i as u32;
        }
        let points = control
            .positions()
            .iter()
            .map(|p| [p.x as f64, p.y as f64, p.z as f64])
            .collect();
        let epoch = next_epoch();
        let mut h = Self {
            node_test: vec![(0, false, false); nodes.len()],
            patches,
            triangles,
            first_corner,
            neighbours,
            node_cache: vec![Cached::EMPTY; nodes.len()],
            nodes,
            order,
            position,
            points,
            epoch,
            patch_changed: vec![epoch; t_count],
            node_changed: Vec::new(),
            moved: vec![false; control.vertex_count()],
            patch_cache: vec![Cached::EMPTY; t_count],
            fans: Vec::new(),
            star_cache: vec![[(0, false, false); 2]; t_count],
            segment_cache: vec![(0, None); t_count],
            stars: vec![[None, None]; t_count],
            union_loops: HashMap::new(),
            vertex_fans: vec![None; control.vertex_count()],
            fan_cache: vec![(0, false, false); control.vertex_count()],
        };
        let mut fans = vec![Vec::new(); control.vertex_count()];
        for (t, tri) in h.triangles.iter().enumerate() {
            for &v in tri {
                fans[v as usize].push(t as u32);
            }
        }
        h.fans = fans;
        h.node_changed = vec![epoch; h.nodes.len()];
        for n in 0..h.nodes.len() {
            let (s, e) = (h.nodes[n].start, h.nodes[n].end);
            h.nodes[n].disc = h.region_loop(&[(s, e)]);
            let mut across: Vec<u32> = h.order[s as usize..e as usize]
                .iter()
                .flat_map(|&t| h.neighbours[t as usize])
                .map(|t| h.position[t as usize])
                .filter(|&p| p < s || p >= e)
                .collect();
            across.sort_unstable();
            across.dedup();
            h.nodes[n].across = across;
        }
        Ok(h)
    }

    /// The limit patches (topology and per-patch control point indices).
    ///
    /// # Performance
    /// O(1).
    pub fn patches(&self) -> &LimitPatches {
        &self.patches
    }

    /// Number of limit patches (= control triangles).
    ///
    /// # Performance
    /// O(1).
    pub fn patch_count(&self) -> usize {
        self.triangles.len()
    }

    /// Number of hierarchy nodes (`2 T − 1`).
    ///
    /// # Performance
    /// O(1).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The current control points.
    ///
    /// # Performance
    /// O(1).
    pub fn control_points(&self) -> &[[f64; 3]] {
        &self.points
    }

    /// The control triangle of patch `t` (`None` out of range).
    ///
    /// # Performance
    /// O(1).
    pub fn triangle(&self, t: usize) -> Option<[u32; 3]> {
        self.triangles.get(t).copied()
    }

    /// Moves the control points (one per control vertex; point governors). Boxes and cones are
    /// refit lazily by the next query, only for the patches with a control point that moved
    /// (compared exactly) and the nodes above them.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`],
    /// [`DeformError::PositionOutOfRange`] (the crate's coordinate limit); nothing changes on error.
    ///
    /// # Performance
    /// O(control points); when one moved, also O(Σ (n+6)) over the patches and O(nodes).
    pub fn set_control_points(&mut self, points: &[Vec3]) -> Result<()> {
        if points.len() != self.points.len() {
            return Err(DeformError::LengthMismatch {
                what: "control points",
                expected: self.points.len(),
                actual: points.len(),
            });
        }
        validate_positions("control point", points)?;
        let mut any = false;
        for ((q, p), moved) in self.points.iter_mut().zip(points).zip(&mut self.moved) {
            let p = [p.x as f64, p.y as f64, p.z as f64];
            *moved = *q != p;
            any |= *moved;
            *q = p;
        }
        if !any {
            return Ok(());
        }
        self.epoch = next_epoch();
        for t in 0..self.triangles.len() {
            let ids = self.patches.control_indices(t).unwrap_or(&[]);
            if ids.iter().any(|&i| self.moved[i as usize]) {
                self.patch_changed[t] = self.epoch;
            }
        }
        // Children follow their parent in `nodes` (pre-order build).
        for n in (0..self.nodes.len()).rev() {
            self.node_changed[n] = match self.nodes[n].children {
                None => self.patch_changed[self.leaf_patch(n as u32) as usize],
                Some([a, b]) => self.node_changed[a as usize].max(self.node_changed[b as usize]),
            };
        }
        Ok(())
    }

    /// The box of limit patch `t` at the current control points (refit lazily): it holds the
    /// limit patch and every finer control mesh over it (its own control triangle and the boxes
    /// of its four children, each from the child's control triangle and its control points after
    /// one more Loop step).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for `t ≥ patch_count()`.
    ///
    /// # Performance
    /// O((n+6)² + 4 · 12²) when stale, O(1) otherwise.
    pub fn patch_aabb(&mut self, t: usize) -> Result<([f64; 3], [f64; 3])> {
        if t >= self.patch_count() {
            return Err(DeformError::IndexOutOfRange {
                what: "limit patch",
                index: t,
                len: self.patch_count(),
            });
        }
        self.patch_box(t as u32)
    }

    pub(crate) fn root(&self) -> u32 {
        0
    }

    pub(crate) fn children(&self, node: u32) -> Option<[u32; 2]> {
        self.nodes[node as usize].children
    }

    pub(crate) fn node_size(&self, node: u32) -> u32 {
        let n = &self.nodes[node as usize];
        n.end - n.start
    }

    /// The patch of a leaf.
    pub(crate) fn leaf_patch(&self, node: u32) -> u32 {
        self.order[self.nodes[node as usize].start as usize]
    }

    pub(crate) fn first_corner(&self, t: u32) -> usize {
        self.first_corner[t as usize] as usize
    }

    /// The control point ids of patch `t`'s canonical corners.
    pub(crate) fn canonical_vertices(&self, t: u32) -> [u32; 3] {
        let tri = self.triangles[t as usize];
        let c = self.first_corner(t);
        [tri[c], tri[(c + 1) % 3], tri[(c + 2) % 3]]
    }

    /// The epoch in which patch `t`'s control points last changed (unique to this hierarchy's
    /// state, see [`next_epoch`]).
    pub(crate) fn patch_changed(&self, t: u32) -> u64 {
        self.patch_changed[t as usize]
    }

    /// The valence and control points of patch `t`.
    pub(crate) fn patch_points(&self, t: u32) -> (usize, Vec<P3>) {
        let ids = self.patches.control_indices(t as usize).unwrap_or(&[]);
        (
            ids.len() - 6,
            ids.iter().map(|&i| self.points[i as usize]).collect(),
        )
    }

    fn patch_box(&mut self, t: u32) -> Result<(P3, P3)> {
        let epoch = self.epoch;
        if self.patch_cache[t as usize].box_epoch < self.patch_changed[t as usize] {
            let (n, p) = self.patch_points(t);
            let (lo, hi) = refine::aabb(n, &p)?;
            let c = &mut self.patch_cache[t as usize];
            c.lo = lo;
            c.hi = hi;
            c.box_epoch = epoch;
        }
        let c = &self.patch_cache[t as usize];
        Ok((c.lo, c.hi))
    }

    fn patch_cone(&mut self, t: u32, stats: &mut u64) -> Result<NormalBound> {
        let epoch = self.epoch;
        if self.patch_cache[t as usize].cone_epoch < self.patch_changed[t as usize] {
            let (n, p) = self.patch_points(t);
            let cone = refine::normal_bound(n, &p)?;
            let c = &mut self.patch_cache[t as usize];
            c.cone = cone;
            c.cone_epoch = epoch;
            *stats += 1;
        }
        Ok(self.patch_cache[t as usize].cone)
    }

    /// The node's box (refit if stale: patches' boxes at a leaf, the union of the children's).
    pub(crate) fn node_box(&mut self, node: u32) -> Result<(P3, P3)> {
        let epoch = self.epoch;
        if self.node_cache[node as usize].box_epoch < self.node_changed[node as usize] {
            let (lo, hi) = match self.nodes[node as usize].children {
                None => self.patch_box(self.leaf_patch(node))?,
                Some([a, b]) => {
                    let (la, ha) = self.node_box(a)?;
                    let (lb, hb) = self.node_box(b)?;
                    (
                        [0, 1, 2].map(|d| la[d].min(lb[d])),
                        [0, 1, 2].map(|d| ha[d].max(hb[d])),
                    )
                }
            };
            let c = &mut self.node_cache[node as usize];
            c.lo = lo;
            c.hi = hi;
            c.box_epoch = epoch;
        }
        let c = &self.node_cache[node as usize];
        Ok((c.lo, c.hi))
    }

    /// The node's normal bound (refit if stale: the patch's at a leaf, the children's merged; an
    /// unbounded child makes the node unbounded without bounding its sibling). `bounded` counts
    /// the patch normal bounds computed.
    pub(crate) fn node_cone(&mut self, node: u32, bounded: &mut u64) -> Result<NormalBound> {
        let epoch = self.epoch;
        if self.node_cache[node as usize].cone_epoch < self.node_changed[node as usize] {
            let cone = match self.nodes[node as usize].children {
                None => self.patch_cone(self.leaf_patch(node), bounded)?,
                Some([a, b]) => {
                    let ca = self.node_cone(a, bounded)?;
                    if matches!(ca, NormalBound::Unbounded) {
                        NormalBound::Unbounded
                    } else {
                        merge_bounds(&ca, &self.node_cone(b, bounded)?)
                    }
                }
            };
            let c = &mut self.node_cache[node as usize];
            c.cone = cone;
            c.cone_epoch = epoch;
        }
        Ok(self.node_cache[node as usize].cone)
    }

    /// The patch box and cone of `t` (for the depth-0 sub-patch of a leaf).
    pub(crate) fn patch_bounds(
        &mut self,
        t: u32,
        bounded: &mut u64,
    ) -> Result<(P3, P3, NormalBound)> {
        let (lo, hi) = self.patch_box(t)?;
        Ok((lo, hi, self.patch_cone(t, bounded)?))
    }

    fn in_ranges(&self, t: u32, ranges: &[(u32, u32)]) -> bool {
        let p = self.position[t as usize];
        ranges.iter().any(|&(s, e)| s <= p && p < e)
    }

    /// Whether a patch of node `a` shares an edge with a patch of node `b` (seed §2.4's adjacency
    /// at the level of whole patches). Nodes of one hierarchy are nested or disjoint; for
    /// disjoint nodes this is whether `a`'s patches across its boundary (`Node::across`, leaf
    /// positions) reach into `b`'s range.
    ///
    /// # Performance
    /// O(log |boundary of a|) for disjoint nodes; O(min(|a|, |b|)) for nested ones.
    pub(crate) fn nodes_adjacent(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        if na.end <= nb.start || nb.end <= na.start {
            let i = na.across.partition_point(|&p| p < nb.start);
            return na.across.get(i).is_some_and(|&p| p < nb.end);
        }
        let (small, big) = if self.node_size(a) <= self.node_size(b) {
            (a, b)
        } else {
            (b, a)
        };
        let (s, e) = (
            self.nodes[small as usize].start,
            self.nodes[small as usize].end,
        );
        let big_range = [(self.nodes[big as usize].start, self.nodes[big as usize].end)];
        self.order[s as usize..e as usize].iter().any(|&t| {
            self.neighbours[t as usize]
                .iter()
                .any(|&n| self.in_ranges(n, &big_range))
        })
    }

    /// The boundary loop of the region made of the patches at `ranges` of the leaf order, when
    /// the region is a topological disc: connected, a single boundary loop that visits each of its
    /// vertices once, and Euler characteristic `V − E + F = 1`.
    fn region_loop(&self, ranges: &[(u32, u32)]) -> Option<Vec<BoundaryEdge>> {
        let region: Vec<u32> = ranges
            .iter()
            .flat_map(|&(s, e)| self.order[s as usize..e as usize].iter().copied())
            .collect();
        self.loop_of(&region, |t| self.in_ranges(t, ranges))
    }

    /// [`Self::region_loop`] of the patches `region`, `in_region` its membership test.
    fn loop_of(
        &self,
        region: &[u32],
        in_region: impl Fn(u32) -> bool,
    ) -> Option<Vec<BoundaryEdge>> {
        let mut boundary: Vec<(u32, u32, u32, u8)> = Vec::new();
        let mut vertices: Vec<u32> = Vec::with_capacity(3 * region.len());
        for &t in region {
            let cv = self.canonical_vertices(t);
            vertices.extend(cv);
            for e in 0..3 {
                if !in_region(self.neighbours[t as usize][e]) {
                    boundary.push((cv[e], cv[(e + 1) % 3], t, e as u8));
                }
            }
        }
        if boundary.is_empty() {
            return None;
        }
        vertices.sort_unstable();
        vertices.dedup();
        let f = region.len() as i64;
        let edges = (3 * f + boundary.len() as i64) / 2;
        if vertices.len() as i64 - edges + f != 1 {
            return None;
        }
        boundary.sort_unstable();
        if boundary.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
        let n = boundary.len();
        let mut out = Vec::with_capacity(n);
        let mut cur = 0usize;
        for _ in 0..n {
            let (_, to, t, e) = boundary[cur];
            out.push((t, e));
            cur = boundary.binary_search_by_key(&to, |b| b.0).ok()?;
            if cur == 0 {
                break;
            }
        }
        if out.len() != n || cur != 0 {
            return None;
        }
        // Connected: a walk over shared edges from one patch reaches every patch.
        let mut sorted = region.to_vec();
        sorted.sort_unstable();
        let mut seen = vec![false; sorted.len()];
        let mut stack = vec![sorted[0]];
        seen[0] = true;
        let mut reached = 1usize;
        while let Some(t) = stack.pop() {
            for &n in &self.neighbours[t as usize] {
                if let Ok(i) = sorted.binary_search(&n)
                    && !seen[i]
                {
                    seen[i] = true;
                    reached += 1;
                    stack.push(n);
                }
            }
        }
        (reached == sorted.len()).then_some(out)
    }

    /// The segments of a boundary loop of whole patches, borrowed from the per-patch cache
    /// (refreshed first: each patch's three computed once per epoch).
    fn loop_segments(&mut self, edges: &[BoundaryEdge]) -> Result<Vec<&Segment>> {
        refresh_segments(
            &mut self.segment_cache,
            self.epoch,
            &self.patch_changed,
            &self.patches,
            &self.points,
            edges,
        )?;
        Ok(edges
            .iter()
            .filter_map(|&(t, e)| {
                self.segment_cache[t as usize]
                    .1
                    .as_ref()
                    .map(|s| &s[e as usize])
            })
            .collect())
    }

    /// Seed §2.4's self-interference test of a node: a normal cone narrower than a half-space and
    /// (unless `contour` is false) a disc whose projected boundary is simple.
    pub(crate) fn rule_out_node(
        &mut self,
        node: u32,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        let (epoch, with_contour, ok) = self.node_test[node as usize];
        if epoch >= self.node_changed[node as usize] && with_contour == contour {
            return Ok(ok);
        }
        let ok = self.node_self_test(node, contour, bounded)?;
        self.node_test[node as usize] = (self.epoch, contour, ok);
        Ok(ok)
    }

    /// [`Self::rule_out_node`] without the cache.
    fn node_self_test(&mut self, node: u32, contour: bool, bounded: &mut u64) -> Result<bool> {
        let NormalBound::Cone(cone) = self.node_cone(node, bounded)? else {
            return Ok(false);
        };
        if !contour {
            return Ok(true);
        }
        let Some(edges) = self.nodes[node as usize].disc.take() else {
            return Ok(false);
        };
        let simple = self
            .loop_segments(&edges)
            .map(|segs| projected_loop_is_simple(&segs, cone.axis()));
        self.nodes[node as usize].disc = Some(edges);
        simple
    }

    /// The same test on the union of two adjacent nodes (seed §2.4: "the union of the two patches
    /// is itself a proper connected patch").
    ///
    /// The outcome is cached per pair of nodes until a control point of either moves.
    pub(crate) fn rule_out_union(
        &mut self,
        a: u32,
        b: u32,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        let key = (a.min(b), a.max(b));
        let changed = self.node_changed[a as usize].max(self.node_changed[b as usize]);
        if let Some((_, (epoch, with_contour, ok))) = self.union_loops.get(&key)
            && *epoch >= changed
            && *with_contour == contour
        {
            return Ok(*ok);
        }
        let (edges, _) = match self.union_loops.remove(&key) {
            Some(l) => l,
            None => {
                let ranges = [
                    (self.nodes[a as usize].start, self.nodes[a as usize].end),
                    (self.nodes[b as usize].start, self.nodes[b as usize].end),
                ];
                (self.region_loop(&ranges), (0, false, false))
            }
        };
        let ok = self.union_self_test(a, b, edges.as_deref(), contour, bounded);
        let outcome = match &ok {
            Ok(ok) => (self.epoch, contour, *ok),
            Err(_) => (0, false, false),
        };
        self.union_loops.insert(key, (edges, outcome));
        ok
    }

    /// The self test of the union of nodes `a` and `b` with boundary loop `edges`.
    fn union_self_test(
        &mut self,
        a: u32,
        b: u32,
        edges: Option<&[BoundaryEdge]>,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        let ca = self.node_cone(a, bounded)?;
        if matches!(ca, NormalBound::Unbounded) {
            return Ok(false);
        }
        let NormalBound::Cone(cone) = merge_bounds(&ca, &self.node_cone(b, bounded)?) else {
            return Ok(false);
        };
        if !contour {
            return Ok(true);
        }
        match edges {
            Some(edges) => self
                .loop_segments(edges)
                .map(|segs| projected_loop_is_simple(&segs, cone.axis())),
            None => Ok(false),
        }
    }
}

impl LimitHierarchy {
    /// The patches within `rings` vertex rings of patch `t` (sorted): `rings = 1` is every patch
    /// sharing a vertex with `t`.
    fn star(&self, t: u32, rings: usize) -> Vec<u32> {
        let mut set = vec![t];
        for _ in 0..rings {
            let mut next = set.clone();
            for &p in &set {
                for v in self.triangles[p as usize] {
                    next.extend_from_slice(&self.fans[v as usize]);
                }
            }
            next.sort_unstable();
            next.dedup();
            set = next;
        }
        set
    }

    /// Whether patches `t` and `u` are proven not to interfere through the self test of a star
    /// around `t` that holds `u` (the patches within one, then two, vertex rings of `t`): a disc
    /// whose merged normal cone is narrower than a half-space and whose projected contour is
    /// simple cannot self-intersect, so no two of its patches interfere (seed §2.4 applied to a
    /// connected neighbourhood instead of the pair's own union, which is no disc when the two
    /// patches only touch at a corner or are one patch apart). Outcomes are cached per patch (and
    /// contour flag) until a control point of the star moves.
    ///
    /// # Performance
    /// O(star size) per (patch, ring count) and frame; O(log) when cached.
    pub(crate) fn star_rules_out(
        &mut self,
        t: u32,
        u: u32,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        for rings in 1..=2usize {
            let star = match self.stars[t as usize][rings - 1].take() {
                Some(r) => r,
                None => {
                    let patches = self.star(t, rings);
                    let boundary = self.loop_of(&patches, |p| patches.binary_search(&p).is_ok());
                    Star { patches, boundary }
                }
            };
            let holds = star.patches.binary_search(&u).is_ok();
            if !holds {
                self.stars[t as usize][rings - 1] = Some(star);
                continue;
            }
            let cached = self.star_cache[t as usize][rings - 1];
            let ok = self.region_rules_out_cached(&star, cached, contour, bounded);
            self.stars[t as usize][rings - 1] = Some(star);
            let ok = ok?;
            self.star_cache[t as usize][rings - 1] = (self.epoch, contour, ok);
            if ok {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether patches `t` and `u` are proven not to interfere through the self test of the fan
    /// of patches around a control vertex they share (seed §2.4 on the vertex's one-ring, a disc
    /// holding both): `false` when they share no vertex. Outcomes are cached per vertex (and
    /// contour flag) until a control point of the fan moves.
    ///
    /// # Performance
    /// O(fan size) per vertex and frame; O(fan size) to check the cache.
    pub(crate) fn fan_rules_out(
        &mut self,
        t: u32,
        u: u32,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        let (vt, vu) = (self.triangles[t as usize], self.triangles[u as usize]);
        let Some(v) = vt.into_iter().find(|v| vu.contains(v)) else {
            return Ok(false);
        };
        let fan = match self.vertex_fans[v as usize].take() {
            Some(f) => f,
            None => {
                let mut patches = self.fans[v as usize].clone();
                patches.sort_unstable();
                let boundary = self.loop_of(&patches, |p| patches.binary_search(&p).is_ok());
                Star { patches, boundary }
            }
        };
        let cached = self.fan_cache[v as usize];
        let ok = self.region_rules_out_cached(&fan, cached, contour, bounded);
        self.vertex_fans[v as usize] = Some(fan);
        let ok = ok?;
        self.fan_cache[v as usize] = (self.epoch, contour, ok);
        Ok(ok)
    }

    /// [`Self::region_rules_out`], or the `cached` outcome `(epoch, contour flag, outcome)` when
    /// it was found with the same contour flag and no control point of the region has moved
    /// since its epoch.
    ///
    /// # Performance
    /// O(region size) to check the cache; the self test otherwise.
    fn region_rules_out_cached(
        &mut self,
        region: &Star,
        (epoch, with_contour, ok): Outcome,
        contour: bool,
        bounded: &mut u64,
    ) -> Result<bool> {
        if epoch == self.epoch && with_contour == contour {
            return Ok(ok);
        }
        let changed = region
            .patches
            .iter()
            .map(|&p| self.patch_changed[p as usize])
            .max()
            .unwrap_or(self.epoch);
        if epoch >= changed && with_contour == contour {
            Ok(ok)
        } else {
            self.region_rules_out(region, contour, bounded)
        }
    }

    /// The self test of a star (its sorted patches and its boundary loop).
    fn region_rules_out(&mut self, star: &Star, contour: bool, bounded: &mut u64) -> Result<bool> {
        let region = &star.patches;
        let mut cone = self.patch_cone(region[0], bounded)?;
        for &p in &region[1..] {
            if matches!(cone, NormalBound::Unbounded) {
                return Ok(false);
            }
            cone = merge_bounds(&cone, &self.patch_cone(p, bounded)?);
        }
        let NormalBound::Cone(cone) = cone else {
            return Ok(false);
        };
        if !contour {
            return Ok(true);
        }
        let Some(edges) = &star.boundary else {
            return Ok(false);
        };
        let segs = self.loop_segments(edges)?;
        Ok(projected_loop_is_simple(&segs, cone.axis()))
    }
}

/// Computes the segments of the patches along `edges` whose cached segments are older than
/// the patch's last change (`changed`), stamping them with `epoch`.
fn refresh_segments(
    cache: &mut [SegmentCache],
    epoch: u64,
    changed: &[u64],
    patches: &LimitPatches,
    points: &[P3],
    edges: &[BoundaryEdge],
) -> Result<()> {
    for &(t, _) in edges {
        if cache[t as usize].0 < changed[t as usize] {
            let ids = patches.control_indices(t as usize).unwrap_or(&[]);
            let p: Vec<P3> = ids.iter().map(|&i| points[i as usize]).collect();
            cache[t as usize] = (
                epoch,
                Some(Box::new(refine::segments(ids.len().saturating_sub(6), &p)?)),
            );
        }
    }
    Ok(())
}

/// Top-down median split of `order[start..end]` by centroid along the widest axis; pushes the
/// node and returns its index.
fn build(
    nodes: &mut Vec<Node>,
    order: &mut [u32],
    centroids: &[P3],
    start: usize,
    end: usize,
) -> u32 {
    let id = nodes.len() as u32;
    nodes.push(Node {
        start: start as u32,
        end: end as u32,
        children: None,
        disc: None,
        across: Vec::new(),
    });
    if end - start <= 1 {
        return id;
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for &t in &order[start..end] {
        let c = centroids[t as usize];
        for d in 0..3 {
            lo[d] = lo[d].min(c[d]);
            hi[d] = hi[d].max(c[d]);
        }
    }
    let axis = (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
        .unwrap_or(0);
    let mid = (start + end) / 2;
    order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
        centroids[a as usize][axis]
            .total_cmp(&centroids[b as usize][axis])
            .then(a.cmp(&b))
    });
    let a = build(nodes, order, centroids, start, mid);
    let b = build(nodes, order, centroids, mid, end);
    nodes[id as usize].children = Some([a, b]);
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deformation::{LoopSubdivision, octahedron};

    /// An octahedron Loop-subdivided twice (valences 4 and 6, at most one irregular corner per
    /// triangle), with its vertices spread so that the median splits are not degenerate.
    fn cage() -> TriangleMesh {
        LoopSubdivision::new(octahedron(), 2)
            .unwrap()
            .mesh()
            .clone()
    }

    /// Node adjacency from the sorted boundary neighbours against a brute-force search for an
    /// edge-sharing pair of patches, over every pair of disjoint nodes.
    #[test]
    fn node_adjacency_matches_brute_force_over_all_disjoint_node_pairs() {
        let h = LimitHierarchy::new(&cage()).unwrap();
        let patches = |n: usize| {
            let node = &h.nodes[n];
            h.order[node.start as usize..node.end as usize].to_vec()
        };
        let (mut adjacent, mut apart) = (0, 0);
        for a in 0..h.node_count() {
            let pa = patches(a);
            for b in 0..h.node_count() {
                let (na, nb) = (&h.nodes[a], &h.nodes[b]);
                if na.start < nb.end && nb.start < na.end {
                    continue;
                }
                let pb = patches(b);
                let brute = pa
                    .iter()
                    .any(|&t| h.neighbours[t as usize].iter().any(|n| pb.contains(n)));
                assert_eq!(h.nodes_adjacent(a as u32, b as u32), brute, "{a} {b}");
                if brute {
                    adjacent += 1;
                } else {
                    apart += 1;
                }
            }
        }
        assert!(adjacent > 1000 && apart > 1000, "{adjacent} {apart}");
    }
}
