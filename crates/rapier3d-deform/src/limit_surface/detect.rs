//! The interference detection of seed Fig. 6 (`DetectSelfInterference`, `DetectPairwiseInterference`) over patch hierarchies of limit patches, refined below the limit patches by one Loop step at a time where a tolerance oracle asks.
//!
//! * **Self** ([`LimitInterferenceQuery::detect_self`]): a region (hierarchy node or sub-patch) is
//!   ruled out when its normal cone is narrower than a half-space and its projected contour is a
//!   simple curve (seed §2.4, §3.6; [`super::NormalCone`], the contour test of `contour.rs`);
//!   otherwise its children are tested on their own and in pairs.
//! * **Pairs**: two regions that share an edge of the limit surface are *adjacent* and ruled out
//!   by the self test of their union (seed §2.4); others (also regions touching at one point only)
//!   by disjoint boxes from the control points (convex hull property). Two limit patches are also
//!   ruled out when the fan of patches around a control vertex they share, or a star around one
//!   of them (the patches within one or two vertex rings) holding the other, passes the self
//!   test; two sub-patches sharing one corner when a plane through the corner separates their
//!   derivative cones; and two disjoint sub-patches also when their control hulls are separated
//!   along the normal of either control triangle or the line through their centroids. Between hierarchy nodes the
//!   larger node is split; two leaves continue as their limit patches; two sub-patches (always of
//!   equal depth) are split together, 4 × 4 child pairs, when the oracle asks.
//! * **Tolerance** ([`ToleranceOracle`]): a pair of sub-patches not ruled out is refined by one
//!   Loop step of both control neighbourhoods while the oracle says so (and below
//!   [`MAX_REFINE_DEPTH`] and the query's sub-patch budget); where it stops, the pair is an
//!   [`InterferenceRegion`] with its two flat polygons (the triangles through the sub-patches'
//!   limit corners) and whether they intersect, decided exactly
//!   ([`crate::geometry::triangles_intersect`], or beyond a shared corner). A sub-patch whose own
//!   self test fails where the oracle stops is listed in
//!   [`LimitInterference::unresolved_self`] (its polygon, one triangle, cannot self-intersect).

use super::cone::{NormalBound, cone_of, merge_bounds};
use super::contour::projected_loop_is_simple;
use super::hierarchy::LimitHierarchy;
use super::refine::{self, Children, P3, Segment};
use crate::error::{DeformError, Result};
use crate::geometry::{triangles_cross_beyond_vertex, triangles_intersect};
use crate::math::Vec3;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The deepest refinement below a limit patch, whatever the oracle says (16 Loop steps: sub-patch
/// edges `2⁻¹⁶` of the control edge).
pub const MAX_REFINE_DEPTH: u32 = 16;

/// The default budget of sub-patches one query may create ([`LimitInterferenceQuery::new`]); when
/// it is reached, pairs stop refining and are reported as they are (never dropped).
pub const DEFAULT_SUBPATCH_BUDGET: usize = 1 << 20;

/// A limit sub-patch: the part of control triangle `patch`'s limit patch covered by one of its
/// descendants after `depth` Loop steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubPatch {
    /// Which surface of the query (0, or 1 for the second surface of
    /// [`LimitInterferenceQuery::detect_pair`]).
    pub surface: usize,
    /// The control triangle (limit patch) it lies in.
    pub patch: usize,
    /// Loop steps below the limit patch (0: the limit patch itself).
    pub depth: u32,
    /// Its parametric domain: the barycentric coordinates of its three corners over the control
    /// triangle's vertices (in the triangle's own vertex order), counter-clockwise.
    pub domain: [[f64; 3]; 3],
}

/// What a tolerance oracle sees of a sub-patch.
#[derive(Clone, Copy, Debug)]
pub struct SubPatchView<'a> {
    /// The sub-patch.
    pub sub: SubPatch,
    /// Its box (lower, upper corner), from its control points or Bézier coefficients.
    pub aabb: ([f64; 3], [f64; 3]),
    /// Its control points in canonical order ([`super::neighbourhood_size`] of them).
    pub control_points: &'a [[f64; 3]],
}

/// Decides whether a pair of limit sub-patches whose interference was not ruled out is refined
/// further by one Loop step of both control neighbourhoods (seed §2.1, "tolerance oracle"). For
/// a sub-patch whose self-interference was not ruled out the oracle is asked with `a == b`.
///
/// Closures `FnMut(&SubPatchView, &SubPatchView) -> bool` are oracles.
pub trait ToleranceOracle {
    /// `true`: refine the pair; `false`: report it at this depth.
    ///
    /// # Performance
    /// The oracle's own; called once per pair not ruled out.
    fn refine(&mut self, a: &SubPatchView<'_>, b: &SubPatchView<'_>) -> bool;
}

impl<F: FnMut(&SubPatchView<'_>, &SubPatchView<'_>) -> bool> ToleranceOracle for F {
    fn refine(&mut self, a: &SubPatchView<'_>, b: &SubPatchView<'_>) -> bool {
        self(a, b)
    }
}

/// The oracle "refine while either box's widest side exceeds `tolerance`, up to `max_depth`".
///
/// # Performance
/// O(1) per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeTolerance {
    /// The largest box side a reported sub-patch may keep.
    pub tolerance: f64,
    /// No refinement below this depth.
    pub max_depth: u32,
}

impl ToleranceOracle for SizeTolerance {
    fn refine(&mut self, a: &SubPatchView<'_>, b: &SubPatchView<'_>) -> bool {
        let side = |v: &SubPatchView<'_>| {
            (0..3)
                .map(|d| v.aabb.1[d] - v.aabb.0[d])
                .fold(0.0f64, f64::max)
        };
        a.sub.depth < self.max_depth && side(a).max(side(b)) > self.tolerance
    }
}

/// How the two sub-patches of a region touch on the limit surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionTopology {
    /// They share an edge (their union's self test failed).
    Adjacent,
    /// They share one corner.
    SharedCorner,
    /// They have no point in common by topology (possibly two surfaces).
    Disjoint,
}

/// A pair of sub-patches whose interference was not ruled out when the oracle stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InterferenceRegion {
    /// The first sub-patch.
    pub a: SubPatch,
    /// The second sub-patch.
    pub b: SubPatch,
    /// How they touch.
    pub topology: RegionTopology,
    /// The flat polygons: triangles through each sub-patch's limit corners (f32).
    pub polygons: [[Vec3; 3]; 2],
    /// Whether the polygons interfere: exact triangle test when disjoint, a crossing beyond the
    /// shared corner when sharing one, never when adjacent (seed Fig. 6: "poly. approxs.
    /// interfere").
    pub polygons_intersect: bool,
}

/// Counters of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectStats {
    /// Hierarchy nodes whose self test ran.
    pub nodes_tested: u64,
    /// Pair tests (nodes or sub-patches).
    pub pair_tests: u64,
    /// Limit-patch normal bounds computed by lazy refits (depth 0).
    pub patch_bounds_computed: u64,
    /// Sub-patches created by refinement (depth ≥ 1).
    pub subpatches_created: u64,
    /// Limit patches entered below the node level (depth-0 sub-patches).
    pub patches_entered: u64,
}

impl DetectStats {
    /// Limit patches visited: the depth-0 patches whose bounds were computed or that were entered
    /// below the node level, plus every sub-patch created.
    ///
    /// # Performance
    /// O(1).
    pub fn limit_patches_visited(&self) -> u64 {
        self.patch_bounds_computed.max(self.patches_entered) + self.subpatches_created
    }
}

/// The result of a query.
#[derive(Clone, Debug, Default)]
pub struct LimitInterference {
    /// Pairs not ruled out at the oracle's tolerance.
    pub regions: Vec<InterferenceRegion>,
    /// Sub-patches whose self-interference was not ruled out at the oracle's tolerance.
    pub unresolved_self: Vec<SubPatch>,
    /// Whether the sub-patch budget stopped refinement somewhere.
    pub budget_reached: bool,
    /// Counters.
    pub stats: DetectStats,
}

impl LimitInterference {
    /// The regions whose flat polygons interfere (the seed's interference list).
    ///
    /// # Performance
    /// O(regions).
    pub fn interfering(&self) -> impl Iterator<Item = &InterferenceRegion> {
        self.regions.iter().filter(|r| r.polygons_intersect)
    }
}

/// A corner of a sub-patch, named independently of the patch it is seen from (equal depths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CornerKey {
    Vertex(u32),
    Edge(u32, u32, u32),
    Interior(u32, u32, u32),
}

#[derive(Clone, Debug)]
struct Sub {
    surface: u8,
    /// Position of the canonical corner 0 in the control triangle.
    first_corner: u8,
    patch: u32,
    depth: u32,
    /// Corners in the root patch's canonical `(u, v)`, scaled by `2^depth`.
    corners: [[u32; 2]; 3],
    keys: [CornerKey; 3],
    valence: usize,
    points: Vec<P3>,
    lo: P3,
    hi: P3,
    /// The normal bound, computed when a test first needs it.
    cone: Option<NormalBound>,
    /// The boundary segments, computed when a contour test first needs them.
    segments: Option<Box<[Segment; 3]>>,
    /// The children's control points (computed with the box, consumed by the refinement).
    kids: Option<Box<Children>>,
    /// The points whose convex hull holds the sub-patch and every finer control mesh over it
    /// (the same set as its box): its control triangle and its children's control points.
    hull: Vec<P3>,
    /// The normal of its control triangle and the hull's extent along it.
    own: (P3, f64, f64),
    children: Option<[u32; 4]>,
    /// The outcome of its self test and the contour flag it was found with.
    self_test: Option<(bool, bool)>,
    /// Per corner, the generators of its derivatives from there, computed when first needed.
    corner_gens: [Option<Box<[P3]>>; 3],
    /// Its flat polygon (the limit corners in f32), computed when a region first reports it.
    polygon: Option<[Vec3; 3]>,
    /// The last query that reached it.
    reached: u64,
}

/// A reusable detection query (seed Fig. 6) with its scratch memory.
///
/// # Performance
/// A query visits hierarchy nodes until their self or pair tests succeed, then limit patches and
/// their refinements where the oracle asks: O(nodes reached + sub-patches created), each
/// sub-patch one Loop step of its control neighbourhood (O((n+6)²)) and a normal bound
/// (Bézier form, or the tightening of §4 at an irregular corner).
///
/// Sub-patches are created once and shared by every pair that reaches them, also by later queries
/// while their limit patch's control points do not move: a sub-patch depends on those alone, so
/// its control points, box, hull, normal bound, boundary segments, flat polygon, self-test outcome
/// and children are kept (the hierarchy's change epochs, [`LimitHierarchy::set_control_points`],
/// tell which patches moved; the sub-patches of a patch that moved are rebuilt when a query
/// reaches it, and the stale ones are dropped once they make up half of the scratch memory). What
/// a query reports, its counters and its budget are the same as if every sub-patch were built
/// anew.
#[derive(Clone, Debug)]
pub struct LimitInterferenceQuery {
    contour: bool,
    budget: usize,
    arena: Vec<Sub>,
    /// Per surface, per patch: (the patch's change epoch it was built for, 0 for none; arena
    /// index) of its depth-0 sub-patch.
    roots: [Vec<(u64, u32)>; 2],
    /// The arena's length after its last compaction.
    compacted: usize,
    stamp: u64,
    /// Sub-patches reached by the current query (its budget counts them).
    reached: usize,
    /// Their arena indices in the order they were reached.
    visited: Vec<u32>,
    /// Per ordered pair of arena indices whose boxes overlap: whether the pair's other tests
    /// ruled it out (kept while the two sub-patches are, cleared when the arena is compacted).
    pair_outcomes: HashMap<u64, bool, BuildHasherDefault<PairHasher>>,
    /// Scratch generators of the corner test.
    scratch: Vec<P3>,
    out: LimitInterference,
}

/// At most this many pair outcomes are kept (about 32 MB); further pairs are tested every time.
const PAIR_OUTCOMES_KEPT: usize = 1 << 20;

/// A multiplicative hash of a pair of arena indices (the standard library's SipHash costs more
/// than most pair tests it would save).
#[derive(Clone, Copy, Debug, Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for LimitInterferenceQuery {
    fn default() -> Self {
        Self::new()
    }
}

struct Ctx<'a, 'h, O: ?Sized> {
    hs: &'a mut [&'h mut LimitHierarchy],
    oracle: &'a mut O,
}

impl LimitInterferenceQuery {
    /// A query testing the contour condition, with [`DEFAULT_SUBPATCH_BUDGET`].
    ///
    /// # Performance
    /// O(1); scratch memory grows with the first queries and is reused.
    pub fn new() -> Self {
        Self {
            contour: true,
            budget: DEFAULT_SUBPATCH_BUDGET,
            arena: Vec::new(),
            roots: [Vec::new(), Vec::new()],
            compacted: 0,
            stamp: 0,
            reached: 0,
            visited: Vec::new(),
            pair_outcomes: HashMap::default(),
            scratch: Vec::new(),
            out: LimitInterference::default(),
        }
    }

    /// Skips the contour condition (the seed notes many applications may; the result is then no
    /// longer a proof of no self-interference where it rules regions out).
    ///
    /// # Performance
    /// O(1).
    pub fn without_contour(mut self) -> Self {
        self.contour = false;
        self.pair_outcomes.clear();
        self
    }

    /// Sets the budget of sub-patches per query (at least 1).
    ///
    /// # Performance
    /// O(1).
    pub fn with_budget(mut self, subpatches: usize) -> Self {
        self.budget = subpatches.max(1);
        self
    }

    /// The last result.
    ///
    /// # Performance
    /// O(1).
    pub fn result(&self) -> &LimitInterference {
        &self.out
    }

    /// Every sub-patch the last query reached below the hierarchy's nodes: the limit patches it
    /// entered (depth 0) and the sub-patches their refinement created, in creation order. Where
    /// the deepest of them over a point has depth `d`, refinement stopped there at depth `d`
    /// (seed Fig. 10); limit patches never entered were ruled out at the node level.
    ///
    /// # Performance
    /// O(1) per item.
    pub fn subpatches(&self) -> impl Iterator<Item = SubPatch> + '_ {
        self.visited
            .iter()
            .map(|&i| sub_patch(&self.arena[i as usize]))
    }

    /// How many sub-patches the query keeps in its scratch memory for later queries (those of
    /// the last queries, including the stale ones of patches that moved since, until the next
    /// compaction drops these).
    ///
    /// # Performance
    /// O(1).
    pub fn kept_subpatches(&self) -> usize {
        self.arena.len()
    }

    fn reset(&mut self, hs: &[&mut LimitHierarchy]) {
        self.stamp += 1;
        self.reached = 0;
        self.visited.clear();
        for (s, h) in hs.iter().enumerate() {
            self.roots[s].resize(h.patch_count(), (0, 0));
        }
        for roots in &mut self.roots[hs.len()..] {
            roots.clear();
        }
        if self.arena.len() > 2 * self.compacted + 4096 {
            self.compact(hs);
        }
        self.out.regions.clear();
        self.out.unresolved_self.clear();
        self.out.budget_reached = false;
        self.out.stats = DetectStats::default();
    }

    /// Keeps only the sub-patches of the patches whose control points have not moved since their
    /// depth-0 sub-patch was built (the others can no longer be reached), renumbered.
    fn compact(&mut self, hs: &[&mut LimitHierarchy]) {
        self.pair_outcomes.clear();
        let mut old = std::mem::take(&mut self.arena);
        let mut stack: Vec<(u32, Option<(usize, u32)>)> = Vec::new();
        for (s, h) in hs.iter().enumerate() {
            for (t, root) in self.roots[s].iter_mut().enumerate() {
                if root.0 == 0 || root.0 != h.patch_changed(t as u32) {
                    *root = (0, 0);
                    continue;
                }
                // Depth first; a copied child is written into its parent's children slot.
                stack.push((root.1, None));
                root.1 = self.arena.len() as u32;
                while let Some((i, parent)) = stack.pop() {
                    let id = self.arena.len() as u32;
                    let mut sub = std::mem::replace(&mut old[i as usize], placeholder());
                    if let Some(kids) = sub.children {
                        for (k, &c) in kids.iter().enumerate().rev() {
                            stack.push((c, Some((k, id))));
                        }
                        sub.children = Some([u32::MAX; 4]);
                    }
                    self.arena.push(sub);
                    if let Some((k, p)) = parent
                        && let Some(c) = self.arena[p as usize].children.as_mut()
                    {
                        c[k] = id;
                    }
                }
            }
        }
        self.compacted = self.arena.len();
    }

    /// `DetectSelfInterference` of the whole surface (seed Fig. 6) at the current control points.
    ///
    /// # Errors
    /// Only an internal table error (valences were validated when the hierarchy was built).
    ///
    /// # Performance
    /// See the type.
    pub fn detect_self<O: ToleranceOracle + ?Sized>(
        &mut self,
        hierarchy: &mut LimitHierarchy,
        oracle: &mut O,
    ) -> Result<&LimitInterference> {
        let mut hs = [hierarchy];
        self.reset(&hs);
        let root = hs[0].root();
        let mut ctx = Ctx {
            hs: &mut hs,
            oracle,
        };
        self.self_node(&mut ctx, root)?;
        Ok(&self.out)
    }

    /// `DetectPairwiseInterference` between two surfaces (seed Fig. 6; regions have `a` on
    /// `first`, `b` on `second`): no two patches are adjacent, boxes prune.
    ///
    /// # Errors
    /// As [`LimitInterferenceQuery::detect_self`].
    ///
    /// # Performance
    /// See the type.
    pub fn detect_pair<O: ToleranceOracle + ?Sized>(
        &mut self,
        first: &mut LimitHierarchy,
        second: &mut LimitHierarchy,
        oracle: &mut O,
    ) -> Result<&LimitInterference> {
        let mut hs = [first, second];
        self.reset(&hs);
        let (r0, r1) = (hs[0].root(), hs[1].root());
        let mut ctx = Ctx {
            hs: &mut hs,
            oracle,
        };
        self.pair_nodes(&mut ctx, (0, r0), (1, r1), false)?;
        Ok(&self.out)
    }

    fn self_node<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        node: u32,
    ) -> Result<()> {
        self.out.stats.nodes_tested += 1;
        let h = &mut *ctx.hs[0];
        if h.rule_out_node(
            node,
            self.contour,
            &mut self.out.stats.patch_bounds_computed,
        )? {
            return Ok(());
        }
        match h.children(node) {
            None => {
                let t = h.leaf_patch(node);
                let s = self.root_sub(ctx, 0, t)?;
                self.self_sub(ctx, s)
            }
            Some([a, b]) => {
                self.self_node(ctx, a)?;
                self.self_node(ctx, b)?;
                self.pair_nodes(ctx, (0, a), (0, b), true)
            }
        }
    }

    fn pair_nodes<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        a: (usize, u32),
        b: (usize, u32),
        union_failed: bool,
    ) -> Result<()> {
        self.out.stats.pair_tests += 1;
        let same = a.0 == b.0;
        if same && ctx.hs[a.0].nodes_adjacent(a.1, b.1) {
            if !union_failed
                && ctx.hs[a.0].rule_out_union(
                    a.1,
                    b.1,
                    self.contour,
                    &mut self.out.stats.patch_bounds_computed,
                )?
            {
                return Ok(());
            }
        } else {
            let (la, ha) = ctx.hs[a.0].node_box(a.1)?;
            let (lb, hb) = ctx.hs[b.0].node_box(b.1)?;
            if disjoint(la, ha, lb, hb) {
                return Ok(());
            }
        }
        let ca = ctx.hs[a.0].children(a.1);
        let cb = ctx.hs[b.0].children(b.1);
        match (ca, cb) {
            (None, None) => {
                let ta = ctx.hs[a.0].leaf_patch(a.1);
                let tb = ctx.hs[b.0].leaf_patch(b.1);
                if same {
                    let h = &mut *ctx.hs[a.0];
                    let bounded = &mut self.out.stats.patch_bounds_computed;
                    if h.fan_rules_out(ta, tb, self.contour, bounded)?
                        || h.star_rules_out(ta, tb, self.contour, bounded)?
                        || h.star_rules_out(tb, ta, self.contour, bounded)?
                    {
                        return Ok(());
                    }
                }
                let sa = self.root_sub(ctx, a.0, ta)?;
                let sb = self.root_sub(ctx, b.0, tb)?;
                self.pair_subs(ctx, sa, sb)
            }
            (Some(kids), None) => {
                for k in kids {
                    self.pair_nodes(ctx, (a.0, k), b, false)?;
                }
                Ok(())
            }
            (None, Some(kids)) => {
                for k in kids {
                    self.pair_nodes(ctx, a, (b.0, k), false)?;
                }
                Ok(())
            }
            (Some(ka), Some(kb)) => {
                if ctx.hs[a.0].node_size(a.1) >= ctx.hs[b.0].node_size(b.1) {
                    for k in ka {
                        self.pair_nodes(ctx, (a.0, k), b, false)?;
                    }
                } else {
                    for k in kb {
                        self.pair_nodes(ctx, a, (b.0, k), false)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// The depth-0 sub-patch of patch `t` of surface `s` (created once per query).
    fn root_sub<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        s: usize,
        t: u32,
    ) -> Result<u32> {
        let (built, idx) = self.roots[s][t as usize];
        let h = &mut *ctx.hs[s];
        let changed = h.patch_changed(t);
        if built != 0 && built == changed {
            let sub = &mut self.arena[idx as usize];
            if sub.reached != self.stamp {
                sub.reached = self.stamp;
                self.reached += 1;
                self.visited.push(idx);
                self.out.stats.patches_entered += 1;
            }
            return Ok(idx);
        }
        let (lo, hi, cone) = h.patch_bounds(t, &mut self.out.stats.patch_bounds_computed)?;
        let (valence, points) = h.patch_points(t);
        let corners = [[0, 0], [1, 0], [0, 1]];
        let keys = corners.map(|c| corner_key(h, t, 0, c));
        let idx = self.arena.len() as u32;
        let kids = refine::children(valence, &points)?;
        let (hull, own) = hull_of(&points, &kids)?;
        self.arena.push(Sub {
            surface: s as u8,
            first_corner: h.first_corner(t) as u8,
            patch: t,
            depth: 0,
            corners,
            keys,
            valence,
            points,
            lo,
            hi,
            cone: Some(cone),
            segments: None,
            kids: Some(Box::new(kids)),
            hull,
            own,
            children: None,
            self_test: None,
            corner_gens: [None, None, None],
            polygon: None,
            reached: self.stamp,
        });
        self.roots[s][t as usize] = (changed, idx);
        self.reached += 1;
        self.visited.push(idx);
        self.out.stats.patches_entered += 1;
        Ok(idx)
    }

    /// The four children of a sub-patch (created once per query), or `None` when the budget or
    /// [`MAX_REFINE_DEPTH`] forbids.
    fn children<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        x: u32,
    ) -> Result<Option<[u32; 4]>> {
        let sub = &self.arena[x as usize];
        if let Some(c) = sub.children
            && self.arena[c[0] as usize].reached == self.stamp
        {
            return Ok(Some(c));
        }
        if sub.depth >= MAX_REFINE_DEPTH || self.reached + 4 > self.budget {
            self.out.budget_reached |= sub.depth < MAX_REFINE_DEPTH;
            return Ok(None);
        }
        if let Some(c) = sub.children {
            // Built by an earlier query over the same control points.
            for k in c {
                self.arena[k as usize].reached = self.stamp;
            }
            self.reached += 4;
            self.visited.extend(c);
            self.out.stats.subpatches_created += 4;
            return Ok(Some(c));
        }
        let (surface, patch, depth, valence) = (sub.surface, sub.patch, sub.depth, sub.valence);
        let p = sub.corners.map(|c| [2 * c[0], 2 * c[1]]);
        let mid = |a: usize, b: usize| [(p[a][0] + p[b][0]) / 2, (p[a][1] + p[b][1]) / 2];
        let (m01, m12, m02) = (mid(0, 1), mid(1, 2), mid(0, 2));
        let child_corners = [
            [p[0], m01, m02],
            [m01, p[1], m12],
            [m02, m12, p[2]],
            [m12, m02, m01],
        ];
        let kids = match self.arena[x as usize].kids.take() {
            Some(k) => *k,
            None => refine::children(valence, &self.arena[x as usize].points)?,
        };
        let mut ids = [0u32; 4];
        for (k, ((n, pts), corners)) in kids.into_iter().zip(child_corners).enumerate() {
            let grandchildren = refine::children(n, &pts)?;
            let (lo, hi) = refine::aabb_of(&pts, &grandchildren);
            let (hull, own) = hull_of(&pts, &grandchildren)?;
            let h = &*ctx.hs[surface as usize];
            let keys = corners.map(|c| corner_key(h, patch, depth + 1, c));
            ids[k] = self.arena.len() as u32;
            self.arena.push(Sub {
                surface,
                first_corner: self.arena[x as usize].first_corner,
                patch,
                depth: depth + 1,
                corners,
                keys,
                valence: n,
                points: pts,
                lo,
                hi,
                cone: None,
                segments: None,
                kids: Some(Box::new(grandchildren)),
                hull,
                own,
                children: None,
                self_test: None,
                corner_gens: [None, None, None],
                polygon: None,
                reached: self.stamp,
            });
            self.visited.push(ids[k]);
        }
        self.reached += 4;
        self.out.stats.subpatches_created += 4;
        self.arena[x as usize].children = Some(ids);
        Ok(Some(ids))
    }

    fn ask<O: ToleranceOracle + ?Sized>(&self, ctx: &mut Ctx<'_, '_, O>, x: u32, y: u32) -> bool {
        let view = |i: u32| {
            let s = &self.arena[i as usize];
            SubPatchView {
                sub: sub_patch(s),
                aabb: (s.lo, s.hi),
                control_points: &s.points,
            }
        };
        let (vx, vy) = (view(x), view(y));
        ctx.oracle.refine(&vx, &vy)
    }

    fn cone(&mut self, x: u32) -> Result<NormalBound> {
        let s = &mut self.arena[x as usize];
        if let Some(c) = s.cone {
            return Ok(c);
        }
        let c = refine::normal_bound(s.valence, &s.points)?;
        s.cone = Some(c);
        Ok(c)
    }

    fn segments(&mut self, x: u32) -> Result<&[Segment; 3]> {
        let s = &mut self.arena[x as usize];
        if s.segments.is_none() {
            s.segments = Some(Box::new(refine::segments(s.valence, &s.points)?));
        }
        Ok(self.arena[x as usize]
            .segments
            .as_deref()
            .unwrap_or_else(|| unreachable!("set above")))
    }

    fn rule_out_sub(&mut self, x: u32) -> Result<bool> {
        if let Some((contour, ok)) = self.arena[x as usize].self_test
            && contour == self.contour
        {
            return Ok(ok);
        }
        let ok = self.sub_self_test(x)?;
        self.arena[x as usize].self_test = Some((self.contour, ok));
        Ok(ok)
    }

    fn sub_self_test(&mut self, x: u32) -> Result<bool> {
        let NormalBound::Cone(cone) = self.cone(x)? else {
            return Ok(false);
        };
        if !self.contour {
            return Ok(true);
        }
        let segs = self.segments(x)?;
        Ok(projected_loop_is_simple(&segs.each_ref(), cone.axis()))
    }

    fn self_sub<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        x: u32,
    ) -> Result<()> {
        if self.rule_out_sub(x)? {
            return Ok(());
        }
        let kids = if self.ask(ctx, x, x) {
            self.children(ctx, x)?
        } else {
            None
        };
        let Some(kids) = kids else {
            let p = sub_patch(&self.arena[x as usize]);
            self.out.unresolved_self.push(p);
            return Ok(());
        };
        for k in kids {
            self.self_sub(ctx, k)?;
        }
        for i in 0..4 {
            for j in i + 1..4 {
                self.pair_subs(ctx, kids[i], kids[j])?;
            }
        }
        Ok(())
    }

    /// Whether the two sub-patches' hulls (`Sub::hull`) are disjoint along the normal
    /// of either control triangle, or along the line through the two control triangles'
    /// centroids: separating directions beyond the box axes, which on a curved sheet separate
    /// patches whose boxes overlap across the bend (any direction along which the hulls' extents
    /// are disjoint separates them). Each sub-patch's extent along its own normal is kept from
    /// its creation.
    fn separated_by_normals(&self, x: u32, y: u32) -> bool {
        let (a, b) = (&self.arena[x as usize], &self.arena[y as usize]);
        let apart = |(al, ah): (f64, f64), (bl, bh): (f64, f64)| {
            let margin = 1e-12 * (1.0 + al.abs().max(ah.abs()).max(bl.abs()).max(bh.abs()));
            ah + margin < bl || bh + margin < al
        };
        // The control triangle is part of the hull: when the triangles' extents along a
        // direction already overlap, so do the hulls', and the full extent is not needed.
        let overlap = |(al, ah): (f64, f64), (bl, bh): (f64, f64)| ah >= bl && bh >= al;
        if !overlap((a.own.1, a.own.2), extent(&b.points[..3], a.own.0))
            && apart((a.own.1, a.own.2), extent(&b.hull, a.own.0))
        {
            return true;
        }
        if !overlap(extent(&a.points[..3], b.own.0), (b.own.1, b.own.2))
            && apart(extent(&a.hull, b.own.0), (b.own.1, b.own.2))
        {
            return true;
        }
        let centroid = |p: &[P3]| [0, 1, 2].map(|d| (p[0][d] + p[1][d] + p[2][d]) / 3.0);
        let (ca, cb) = (centroid(&a.points), centroid(&b.points));
        let chord = [cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]];
        !overlap(extent(&a.points[..3], chord), extent(&b.points[..3], chord))
            && apart(extent(&a.hull, chord), extent(&b.hull, chord))
    }

    /// The corners the two sub-patches share, as `(corner of x, corner of y)` pairs (at most
    /// three), without allocating.
    fn shared_keys(&self, x: u32, y: u32) -> Shared {
        let (a, b) = (&self.arena[x as usize], &self.arena[y as usize]);
        let mut out = Shared::default();
        if a.surface != b.surface {
            return out;
        }
        for i in 0..3 {
            for j in 0..3 {
                if a.keys[i] == b.keys[j] && out.len < 3 {
                    out.pairs[out.len] = (i, j);
                    out.len += 1;
                }
            }
        }
        out
    }

    /// Seed §2.4 on two sub-patches sharing the edge from `a`'s corner `i` to `i + 1`: the union's
    /// cone and its four-segment contour.
    fn rule_out_adjacent_subs(&mut self, x: u32, y: u32, i: usize, j: usize) -> Result<bool> {
        let ca = self.cone(x)?;
        if matches!(ca, NormalBound::Unbounded) {
            return Ok(false);
        }
        let NormalBound::Cone(cone) = merge_bounds(&ca, &self.cone(y)?) else {
            return Ok(false);
        };
        if !self.contour {
            return Ok(true);
        }
        // a's shared edge runs a.i → a.(i+1); b runs the same edge backwards, b.j → b.(j+1)
        // with b.j = a.(i+1).
        self.segments(x)?;
        self.segments(y)?;
        let (Some(sa), Some(sb)) = (
            self.arena[x as usize].segments.as_deref(),
            self.arena[y as usize].segments.as_deref(),
        ) else {
            return Ok(false);
        };
        let loop_ = [
            &sa[(i + 1) % 3],
            &sa[(i + 2) % 3],
            &sb[(j + 1) % 3],
            &sb[(j + 2) % 3],
        ];
        Ok(projected_loop_is_simple(&loop_, cone.axis()))
    }

    fn pair_subs<O: ToleranceOracle + ?Sized>(
        &mut self,
        ctx: &mut Ctx<'_, '_, O>,
        x: u32,
        y: u32,
    ) -> Result<()> {
        self.out.stats.pair_tests += 1;
        {
            // Two sub-patches sharing an edge have overlapping boxes: disjoint boxes rule out a
            // pair of any topology, before the corners are compared.
            let (a, b) = (&self.arena[x as usize], &self.arena[y as usize]);
            if disjoint(a.lo, a.hi, b.lo, b.hi) {
                return Ok(());
            }
        }
        let shared = self.shared_keys(x, y);
        let shared = shared.as_slice();
        let topology = match shared.len() {
            0 => RegionTopology::Disjoint,
            1 => RegionTopology::SharedCorner,
            _ => RegionTopology::Adjacent,
        };
        let key = (u64::from(x) << 32) | u64::from(y);
        let ruled_out = match self.pair_outcomes.get(&key) {
            Some(&ruled_out) => ruled_out,
            None => {
                let ruled_out = self.rule_out_pair(x, y, topology, shared)?;
                if self.pair_outcomes.len() < PAIR_OUTCOMES_KEPT {
                    self.pair_outcomes.insert(key, ruled_out);
                }
                ruled_out
            }
        };
        if ruled_out {
            return Ok(());
        }
        let both = if self.ask(ctx, x, y) {
            match self.children(ctx, x)? {
                Some(kx) => self.children(ctx, y)?.map(|ky| (kx, ky)),
                None => None,
            }
        } else {
            None
        };
        let Some((kx, ky)) = both else {
            return self.report(x, y, topology, shared);
        };
        for &cx in &kx {
            for &cy in &ky {
                self.pair_subs(ctx, cx, cy)?;
            }
        }
        Ok(())
    }

    /// The tests of a pair of sub-patches beyond their boxes: the union's self test when they
    /// share an edge, the separating directions when they are disjoint, the corner cones when
    /// they share one corner.
    fn rule_out_pair(
        &mut self,
        x: u32,
        y: u32,
        topology: RegionTopology,
        shared: &[(usize, usize)],
    ) -> Result<bool> {
        if topology == RegionTopology::Adjacent {
            let Some((i, j)) = edge_of(shared) else {
                return Err(DeformError::NotAvailable {
                    what: "limit sub-patch adjacency",
                    reason: "two sub-patches share two corners but no oriented edge",
                });
            };
            return self.rule_out_adjacent_subs(x, y, i, j);
        }
        if shared.is_empty() {
            return Ok(self.separated_by_normals(x, y));
        }
        let (i, j) = shared[0];
        self.corners_separate(x, i, y, j)
    }

    /// The flat polygon of sub-patch `x`: its limit corners ([`refine::limit_corners`]) in f32,
    /// computed once.
    fn polygon(&mut self, x: u32) -> Result<[Vec3; 3]> {
        let s = &mut self.arena[x as usize];
        if let Some(p) = s.polygon {
            return Ok(p);
        }
        let c = refine::limit_corners(s.valence, &s.points)?;
        let p = c.map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32));
        s.polygon = Some(p);
        Ok(p)
    }

    /// The generators of sub-patch `x`'s derivatives from its corner `i`
    /// ([`refine::corner_generators`]), computed when a pair first needs them.
    fn corner_generators(&mut self, x: u32, i: usize) -> Result<&[P3]> {
        let s = &mut self.arena[x as usize];
        if s.corner_gens[i].is_none() {
            s.corner_gens[i] = Some(refine::corner_generators(s.valence, &s.points, i)?.into());
        }
        Ok(self.arena[x as usize].corner_gens[i]
            .as_deref()
            .unwrap_or_else(|| unreachable!("set above")))
    }

    /// Whether two sub-patches sharing corner `i` of `x` = corner `j` of `y` meet only there: the
    /// cones of their directional derivatives from the corner ([`refine::corner_generators`]:
    /// `a − p` and `b − p` lie in them) fit, `x`'s and the negated `y`'s together, in one cone
    /// narrower than a half-space, so a plane through the corner separates the two sub-patches.
    fn corners_separate(&mut self, x: u32, i: usize, y: u32, j: usize) -> Result<bool> {
        let mut gens = std::mem::take(&mut self.scratch);
        gens.clear();
        gens.extend_from_slice(self.corner_generators(x, i)?);
        gens.extend(self.corner_generators(y, j)?.iter().map(|g| g.map(|c| -c)));
        let separate = cone_of(&gens).is_some();
        self.scratch = gens;
        Ok(separate)
    }

    fn report(
        &mut self,
        x: u32,
        y: u32,
        topology: RegionTopology,
        shared: &[(usize, usize)],
    ) -> Result<()> {
        let (pa, pb) = (self.polygon(x)?, self.polygon(y)?);
        let polygons_intersect = match (topology, shared.first()) {
            (RegionTopology::Adjacent, _) => false,
            (RegionTopology::SharedCorner, Some(&(i, j))) => triangles_cross_beyond_vertex(
                pa[i],
                [pa[(i + 1) % 3], pa[(i + 2) % 3]],
                [pb[(j + 1) % 3], pb[(j + 2) % 3]],
            ),
            _ => triangles_intersect(pa, pb),
        };
        let region = InterferenceRegion {
            a: sub_patch(&self.arena[x as usize]),
            b: sub_patch(&self.arena[y as usize]),
            topology,
            polygons: [pa, pb],
            polygons_intersect,
        };
        self.out.regions.push(region);
        Ok(())
    }
}

/// An empty sub-patch, left behind where [`LimitInterferenceQuery::compact`] moved one out.
fn placeholder() -> Sub {
    Sub {
        surface: 0,
        first_corner: 0,
        patch: 0,
        depth: 0,
        corners: [[0; 2]; 3],
        keys: [CornerKey::Vertex(0); 3],
        valence: 0,
        points: Vec::new(),
        lo: [0.0; 3],
        hi: [0.0; 3],
        cone: None,
        segments: None,
        kids: None,
        hull: Vec::new(),
        own: ([0.0; 3], 0.0, 0.0),
        children: None,
        self_test: None,
        corner_gens: [None, None, None],
        polygon: None,
        reached: 0,
    }
}

/// The public view of a sub-patch: its domain in barycentric coordinates over its control
/// triangle.
fn sub_patch(s: &Sub) -> SubPatch {
    let scale = (1u64 << s.depth) as f64;
    let c = s.first_corner as usize;
    let domain = s.corners.map(|[i, j]| {
        let (u, v) = (i as f64 / scale, j as f64 / scale);
        let mut b = [0.0; 3];
        b[c] = 1.0 - u - v;
        b[(c + 1) % 3] = u;
        b[(c + 2) % 3] = v;
        b
    });
    SubPatch {
        surface: s.surface as usize,
        patch: s.patch as usize,
        depth: s.depth,
        domain,
    }
}

/// The shared corners of two sub-patches (`(corner of a, corner of b)`, at most three).
#[derive(Clone, Copy, Debug, Default)]
struct Shared {
    pairs: [(usize, usize); 3],
    len: usize,
}

impl Shared {
    fn as_slice(&self) -> &[(usize, usize)] {
        &self.pairs[..self.len]
    }
}

/// The shared edge as `(i, j)`: `a`'s corners `i`, `i + 1` are `b`'s `j + 1`, `j`.
fn edge_of(shared: &[(usize, usize)]) -> Option<(usize, usize)> {
    for &(i, j1) in shared {
        for &(i2, j) in shared {
            if i2 == (i + 1) % 3 && j1 == (j + 1) % 3 {
                return Some((i, j));
            }
        }
    }
    None
}

/// The extent of `points` along `n`.
fn extent(points: &[P3], n: P3) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for p in points {
        let d = p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
        lo = lo.min(d);
        hi = hi.max(d);
    }
    (lo, hi)
}

/// A sub-patch's hull points (its control triangle and its children's distinct control points,
/// [`refine::distinct_child_points`]) and the normal of its control triangle with the hull's
/// extent along it.
fn hull_of(points: &[P3], kids: &Children) -> Result<(Vec<P3>, (P3, f64, f64))> {
    let slots = refine::distinct_child_points(kids[0].0)?;
    let mut hull = Vec::with_capacity(3 + slots.len());
    hull.extend_from_slice(&points[..3]);
    hull.extend(slots.iter().map(|&(k, r)| kids[k].1[r]));
    let (a, b, c) = (points[0], points[1], points[2]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let (lo, hi) = extent(&hull, n);
    Ok((hull, (n, lo, hi)))
}

fn disjoint(la: P3, ha: P3, lb: P3, hb: P3) -> bool {
    (0..3).any(|d| ha[d] < lb[d] || hb[d] < la[d])
}

/// The key of the lattice point `c` (root canonical `(u, v)` scaled by `2^depth`) of patch `t`.
fn corner_key(h: &LimitHierarchy, t: u32, depth: u32, c: [u32; 2]) -> CornerKey {
    let scale = 1u32 << depth;
    let bary = [scale - c[0] - c[1], c[0], c[1]];
    let v = h.canonical_vertices(t);
    let mut nonzero = [0usize; 3];
    let mut len = 0;
    for (k, &b) in bary.iter().enumerate() {
        if b != 0 {
            nonzero[len] = k;
            len += 1;
        }
    }
    match &nonzero[..len] {
        [k] => CornerKey::Vertex(v[*k]),
        [k, l] => {
            let (a, b) = (v[*k], v[*l]);
            let at_max = if a > b { bary[*k] } else { bary[*l] };
            CornerKey::Edge(a.min(b), a.max(b), at_max)
        }
        _ => CornerKey::Interior(t, c[0], c[1]),
    }
}
