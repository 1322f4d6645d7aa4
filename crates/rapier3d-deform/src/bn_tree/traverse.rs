//! The self-collision traversal (BN-Tree §4.2): `self_collide(a)`, `self_collide(a, b)` for adjacent patches and `collide(a, b)` for disjoint ones, down to exact triangle tests.

use super::build::BnTree;
use super::contour::ContourScratch;
use super::{CullingMode, RefitPolicy, SelfCollisionQuery, SelfCollisionStats};
use crate::bounds::NormalCone;
#[cfg(doc)]
use crate::error::DeformError;
use crate::error::Result;
use crate::geometry::mesh_triangles_collide;
use crate::governor::{Affine, validate_governors, widen_governors};
use crate::math::{Aabb, Vec3};
use rapier3d::parry::glamx::SymmetricEigen3;
use std::time::Instant;

/// When the last measure found the traversal needing more than this fraction of the mesh (the
/// vertices a lazy query deformed, or the triangles a measuring query refit), the next queries
/// deform every vertex first, in index order, and refit every bound bottom-up in one pass
/// (BN-Tree §6: switch to bottom-up where coherence is lost). Measured on the walking cat (93 %
/// reached): deforming eagerly took the fast mode from 26–27 to 22–25 ms per frame; refitting
/// eagerly too (instead of lazily, node by node in traversal order) from 12.9–13.0 to
/// 12.1–12.4 ms.
const EAGER_DEFORM_FRACTION: f64 = 0.8;

/// Every this many eager queries, one measures the need again (so a mesh that calms down
/// returns to lazy queries): it deforms every vertex up front but refits bounds lazily, and
/// counts the triangles whose bounds the traversal needed. A fully lazy measuring query, as used
/// before, cost twice an eager one on the walking cat (1.5 ms per frame on average).
const EAGER_REMEASURE_FRAMES: u32 = 8;

/// One pending query of the traversal.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Task {
    /// Pairs inside one patch.
    SelfOne(u32),
    /// Pairs across two adjacent (edge-sharing) patches.
    SelfPair(u32, u32),
    /// Pairs across two patches that share no edge (they may touch at vertices).
    Collide(u32, u32),
}

impl Task {
    /// The task for two disjoint patches: adjacent if they share an edge.
    #[inline]
    fn pair(share_edge: bool, a: u32, b: u32) -> Self {
        if share_edge {
            Self::SelfPair(a, b)
        } else {
            Self::Collide(a, b)
        }
    }
}

/// What the traversal reads of this frame's bounds: the lazy, stamped caches of a query
/// ([`super::FrameCache`]), or bounds all refit before the traversal, shared read-only between
/// threads.
pub(crate) trait Bounds {
    /// The deformed position of vertex `v`.
    fn vertex(&mut self, tree: &BnTree, v: u32) -> Vec3;
    /// The deformed positions (entries the traversal has not asked for may be stale).
    fn vertices(&self) -> &[Vec3];
    /// Node `i`'s box this frame.
    fn node_aabb(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> Aabb;
    /// Node `i`'s normal cone this frame.
    fn node_cone(&mut self, tree: &BnTree, governors: &[Affine], i: u32) -> NormalCone;
    /// The traversal tested node `i`'s own cone (for the update front).
    fn visit(&mut self, i: u32);
    /// The traversal went below node `i` (for the update front).
    fn descend(&mut self, i: u32);

    /// The three deformed corners of triangle `t`.
    #[inline(always)]
    fn corners(&mut self, tree: &BnTree, t: u32) -> [Vec3; 3] {
        let [a, b, c] = tree.mesh.triangles()[t as usize];
        [
            self.vertex(tree, a),
            self.vertex(tree, b),
            self.vertex(tree, c),
        ]
    }

    /// The AABB of deformed triangle `t`.
    #[inline(always)]
    fn triangle_aabb(&mut self, tree: &BnTree, t: u32) -> Aabb {
        let [a, b, c] = self.corners(tree, t);
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }
}

/// The traversal's own state: the task stack, the contour test's and the leaf pairs' scratch
/// memory, and the counters of the tasks it ran.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walker {
    pub(crate) stack: Vec<Task>,
    pub(crate) contour: ContourScratch,
    /// Triangles of one leaf (with their boxes) that meet the other leaf's box, in a leaf
    /// pair's exact tests.
    leaf_candidates: Vec<(u32, Aabb)>,
    pub(crate) stats: SelfCollisionStats,
}

impl SelfCollisionQuery {
    /// Finds every pair of colliding triangles of the mesh under `governors` (all governors of
    /// the deformation, indexed as in the tree's weights) and writes it to `out` as sorted
    /// `[t1, t2]` with `t1 < t2`. Triangles sharing an edge never collide; triangles sharing one
    /// vertex collide only where they really cross (see
    /// [`crate::geometry::mesh_triangles_collide`]).
    ///
    /// `policy` chooses the BN-Tree (lazy, O(m) bounds on demand, front caching) or the HSC
    /// baseline (every bound refit bottom-up first); `mode` chooses whether pruning by normals
    /// also requires the contour test (conservative: the result equals the exhaustive one) or
    /// not (the seed paper's fast mode, which may miss pairs).
    ///
    /// # Errors
    /// What [`validate_governors`] rejects: not one governor per governor of the tree's
    /// weights ([`DeformError::LengthMismatch`]), a non-finite or out-of-range transform. `out`
    /// and the query's caches are left untouched then.
    ///
    /// # Performance
    /// BN-Tree: proportional to the nodes the query reaches, O(m log m) per reached node with
    /// governor data, O(size) below nodes that bound bottom-up; no allocation after warm-up.
    /// HSC: O(n) refit plus the same traversal. The governor check is O(m).
    ///
    /// With the `parallel` feature, on a mesh of at least [`super::PARALLEL_MIN_TRIANGLES`]
    /// triangles and with more than one rayon thread where it is called (inside a pool's
    /// `install`, or rayon's global pool), the frames that refit every bound first (HSC, and
    /// BN-Tree frames after a measure that reached > 80 % of the mesh) deform, refit and
    /// traverse on rayon's threads, in tasks down to [`super::PARALLEL_GRAIN_TRIANGLES`]; a
    /// BN-Tree frame that measures the need again deforms its vertices there and refits lazily on
    /// the calling thread; lazy frames stay on it. The pairs and counters are the same on any
    /// thread count ([`SelfCollisionStats::parallel_tasks`] and the timings aside). The
    /// multi-threaded route allocates when the pool's thread count changes and while its
    /// per-thread scratch grows (the one-thread route never does after warm-up).
    pub fn run(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        policy: RefitPolicy,
        mode: CullingMode,
        out: &mut Vec<[u32; 2]>,
    ) -> Result<SelfCollisionStats> {
        validate_governors(governors, tree.weights().governor_count())?;
        if policy == RefitPolicy::OnDemand && !pose_is_resolved(tree, governors) {
            // The O(m) normal cones hold for exact positions; rounding this coarse could fold
            // the f32 triangles they prune. The sweep tests the rounded triangles themselves.
            return self.run_sweep(tree, governors, out);
        }
        let start = Instant::now();
        self.begin_frame(tree);
        widen_governors(governors, &mut self.cache.wide_governors);
        let parallel = self.parallel_frame(tree);
        let eager =
            policy == RefitPolicy::OnDemand && self.reached_fraction > EAGER_DEFORM_FRACTION;
        let measuring = eager && self.eager_streak + 1 >= EAGER_REMEASURE_FRAMES;
        if measuring {
            self.deform_all_vertices(tree, parallel);
            self.eager_streak = 0;
        } else if eager {
            // The last measure reached nearly all the mesh: deform every vertex in one pass in
            // index order and refit every bound bottom-up (what HSC does), cheaper than one at a
            // time in traversal order.
            self.refit_all_bottom_up(tree, parallel);
            self.eager_streak += 1;
        } else {
            self.eager_streak = 0;
        }
        let mut refit_nanos = 0;
        if policy == RefitPolicy::BottomUpEveryFrame {
            let refit_start = Instant::now();
            self.refit_all_bottom_up(tree, parallel);
            refit_nanos = refit_start.elapsed().as_nanos() as u64;
        }
        out.clear();
        // Every bound is refit: the traversal only reads them and may run on several threads.
        let settled = (eager && !measuring) || policy == RefitPolicy::BottomUpEveryFrame;
        self.walk(tree, governors, mode, parallel && settled, out);
        self.walker.stats.add(&self.cache.stats);
        self.walker.stats.refit_nanos = refit_nanos;
        for pair in out.iter_mut() {
            if pair[0] > pair[1] {
                pair.swap(0, 1);
            }
        }
        out.sort_unstable();
        if policy == RefitPolicy::OnDemand {
            if !eager || measuring {
                // Frames that refit everything bottom-up do not read the front; it is kept
                // up to date by the frames that do (lazy and measuring ones).
                self.walker.stats.front_nodes_below = self.update_front(tree, governors);
            }
            let stats = &self.walker.stats;
            if !eager {
                self.reached_fraction =
                    stats.vertices_deformed as f64 / tree.rest.len().max(1) as f64;
            } else if measuring {
                self.reached_fraction =
                    stats.triangles_refit as f64 / tree.mesh.triangle_count().max(1) as f64;
            }
        }
        self.walker.stats.pairs = out.len() as u64;
        self.walker.stats.nanos = start.elapsed().as_nanos() as u64;
        Ok(self.walker.stats)
    }

    /// The traversal from the root (on rayon's threads if `parallel`: every bound is refit).
    fn walk(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        parallel: bool,
        out: &mut Vec<[u32; 2]>,
    ) {
        #[cfg(feature = "parallel")]
        if parallel {
            self.walk_parallel(tree, governors, mode, out);
            return;
        }
        let _ = parallel;
        self.walker.stack.clear();
        self.walker.stack.push(Task::SelfOne(0));
        self.walker
            .walk(&mut self.cache, tree, governors, mode, out);
    }

    /// Deforms every vertex (on rayon's threads if `parallel`).
    fn deform_all_vertices(&mut self, tree: &BnTree, parallel: bool) {
        #[cfg(feature = "parallel")]
        if parallel {
            self.cache.deform_all_vertices_parallel(tree);
            return;
        }
        let _ = parallel;
        self.cache.deform_all_vertices(tree);
    }

    /// Deforms every vertex and refits every bound bottom-up (on rayon's threads if
    /// `parallel`).
    fn refit_all_bottom_up(&mut self, tree: &BnTree, parallel: bool) {
        #[cfg(feature = "parallel")]
        if parallel {
            self.cache.refit_all_bottom_up_parallel(tree);
            return;
        }
        let _ = parallel;
        self.cache.refit_all_bottom_up(tree);
    }
}

impl Walker {
    /// Fresh scratch for `tree`.
    pub(crate) fn new(tree: &BnTree) -> Self {
        Self {
            // A leaf holds at most this many triangles: no allocation in later leaf pairs.
            leaf_candidates: Vec::with_capacity(
                tree.options.leaf_triangles.min(tree.mesh.triangle_count()),
            ),
            ..Self::default()
        }
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.stack.capacity() * core::mem::size_of::<Task>()
            + self.leaf_candidates.capacity() * core::mem::size_of::<(u32, Aabb)>()
            + self.contour.heap_bytes()
    }

    /// Runs the tasks on the stack, and those they spawn, until it is empty.
    pub(crate) fn walk<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        out: &mut Vec<[u32; 2]>,
    ) {
        while let Some(task) = self.stack.pop() {
            self.step(bounds, tree, governors, mode, task, out);
        }
    }

    /// Runs one task: its pairs go to `out`, the tasks it spawns onto the stack.
    pub(crate) fn step<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        task: Task,
        out: &mut Vec<[u32; 2]>,
    ) {
        self.stats.tasks += 1;
        match task {
            Task::SelfOne(a) => {
                self.stats.self_tasks += 1;
                self.self_one(bounds, tree, governors, mode, a, out)
            }
            Task::SelfPair(a, b) => {
                self.stats.adjacent_tasks += 1;
                self.self_pair(bounds, tree, governors, mode, a, b, out)
            }
            Task::Collide(a, b) => {
                self.stats.disjoint_tasks += 1;
                self.collide(bounds, tree, governors, a, b, out)
            }
        }
    }

    fn self_one<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        a: u32,
        out: &mut Vec<[u32; 2]>,
    ) {
        let node = tree.nodes[a as usize];
        bounds.visit(a);
        let cone = bounds.node_cone(tree, governors, a);
        if tree.oriented
            && let Some(dir) = (0..14).find(|&d| cone.contains_direction(d))
            && (mode == CullingMode::Fast || self.contour_is_simple(bounds, tree, a, None, dir))
        {
            self.stats.pruned_by_normals += 1;
            return;
        }
        match node.children {
            None => {
                for i in node.first..node.first + node.count {
                    for j in i + 1..node.first + node.count {
                        let (t1, t2) = (tree.order[i as usize], tree.order[j as usize]);
                        self.exact_test(bounds, tree, t1, t2, out);
                    }
                }
            }
            Some([l, r]) => {
                bounds.descend(a);
                self.stack.push(Task::SelfOne(l));
                self.stack.push(Task::SelfOne(r));
                self.stack.push(Task::pair(
                    tree.nodes_share_edge(l as usize, r as usize),
                    l,
                    r,
                ));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn self_pair<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        a: u32,
        b: u32,
        out: &mut Vec<[u32; 2]>,
    ) {
        bounds.visit(a);
        bounds.visit(b);
        let ca = bounds.node_cone(tree, governors, a);
        let cone = if ca.is_empty() {
            ca
        } else {
            ca.intersection(bounds.node_cone(tree, governors, b))
        };
        if tree.oriented
            && let Some(dir) = (0..14).find(|&d| cone.contains_direction(d))
            && (mode == CullingMode::Fast || self.contour_is_simple(bounds, tree, a, Some(b), dir))
        {
            self.stats.pruned_by_normals += 1;
            return;
        }
        // Adjacent patches can still be far apart except at the shared vertices: the box test
        // prunes nothing there, so go straight to the split.
        self.split_pair(bounds, tree, governors, a, b, true, out);
    }

    fn collide<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        a: u32,
        b: u32,
        out: &mut Vec<[u32; 2]>,
    ) {
        let (ba, bb) = (
            bounds.node_aabb(tree, governors, a),
            bounds.node_aabb(tree, governors, b),
        );
        if !aabbs_overlap(&ba, &bb) {
            self.stats.pruned_by_boxes += 1;
            return;
        }
        self.split_pair(bounds, tree, governors, a, b, false, out);
    }

    /// Descends the larger of two patches (or tests triangles when both are leaves).
    /// `share_edge` says whether `a` and `b` share an edge: if not, no child pair does either.
    #[allow(clippy::too_many_arguments)]
    fn split_pair<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        a: u32,
        b: u32,
        share_edge: bool,
        out: &mut Vec<[u32; 2]>,
    ) {
        let (na, nb) = (tree.nodes[a as usize], tree.nodes[b as usize]);
        let (split, keep) = match (na.children, nb.children) {
            (None, None) => {
                self.leaf_pair(bounds, tree, governors, a, b, out);
                return;
            }
            (Some(_), None) => (a, b),
            (None, Some(_)) => (b, a),
            (Some(_), Some(_)) => {
                if na.count >= nb.count {
                    (a, b)
                } else {
                    (b, a)
                }
            }
        };
        bounds.descend(split);
        if let Some([l, r]) = tree.nodes[split as usize].children {
            let (left_shares, right_shares) = if !share_edge {
                (false, false)
            } else if tree.nodes_share_edge(l as usize, keep as usize) {
                (true, tree.nodes_share_edge(r as usize, keep as usize))
            } else {
                // The shared edge lies on one of the two halves.
                (false, true)
            };
            self.stack.push(Task::pair(left_shares, l, keep));
            self.stack.push(Task::pair(right_shares, r, keep));
        }
    }

    /// Exact tests between two leaves, for the triangle pairs whose boxes overlap: each
    /// triangle's box is computed once, and only triangles whose box meets the other leaf's box
    /// take part (a triangle's box lies inside its leaf's box, so no overlapping pair is lost).
    ///
    /// # Performance
    /// O(|a| + |b|) boxes plus one box test per pair of candidates; no allocation after
    /// warm-up.
    fn leaf_pair<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        governors: &[Affine],
        a: u32,
        b: u32,
        out: &mut Vec<[u32; 2]>,
    ) {
        let (box_a, box_b) = (
            bounds.node_aabb(tree, governors, a),
            bounds.node_aabb(tree, governors, b),
        );
        let (na, nb) = (tree.nodes[a as usize], tree.nodes[b as usize]);
        let mut candidates = core::mem::take(&mut self.leaf_candidates);
        candidates.clear();
        for j in nb.first..nb.first + nb.count {
            let t2 = tree.order[j as usize];
            let box2 = bounds.triangle_aabb(tree, t2);
            if aabbs_overlap(&box2, &box_a) {
                candidates.push((t2, box2));
            }
        }
        if !candidates.is_empty() {
            for i in na.first..na.first + na.count {
                let t1 = tree.order[i as usize];
                let box1 = bounds.triangle_aabb(tree, t1);
                if !aabbs_overlap(&box1, &box_b) {
                    continue;
                }
                for &(t2, box2) in &candidates {
                    if aabbs_overlap(&box1, &box2) {
                        self.exact_test(bounds, tree, t1, t2, out);
                    }
                }
            }
        }
        self.leaf_candidates = candidates;
    }

    #[inline]
    fn exact_test<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        t1: u32,
        t2: u32,
        out: &mut Vec<[u32; 2]>,
    ) {
        // Make sure both triangles' vertices are deformed this frame before the exact test
        // reads them from the cache.
        let _ = bounds.corners(tree, t1);
        let _ = bounds.corners(tree, t2);
        self.stats.triangle_tests += 1;
        if mesh_triangles_collide(&tree.mesh, bounds.vertices(), t1, t2) {
            out.push([t1, t2]);
        }
    }
}

/// Whether `f32` resolves the mesh under `governors` well enough for the O(m) normal cones,
/// which bound the exact deformation, to be used on the rounded vertices: the bound on the
/// rounding of a deformed vertex, `(2i + 4) ε M` for `i` influences and coordinates up to `M`,
/// must stay below the smallest rest altitude times the smallest singular value of a governor's
/// linear part (governors with a zero linear part collapse their vertices exactly and are
/// skipped). This guards against poses where rounding is as large as the triangles themselves,
/// not against every possible tilt of a rounded normal. Trees of point governors are not checked.
///
/// A plate 0.043 apart translated to 8.2e5 (`f32` spacing 0.0625 there) folded under rounding
/// where the exact surface did not: the traversal reported 0 pairs, brute force on the rounded
/// vertices 22 (found by libFuzzer). The 244k-triangle cat (smallest altitude 2.5e-5, rest radius
/// 0.48, 9 influences) passes with a margin of about 10.
///
/// # Performance
/// O(m): one 3×3 symmetric eigendecomposition per governor.
fn pose_is_resolved(tree: &BnTree, governors: &[Affine]) -> bool {
    if tree.rest_points.is_some() {
        return true;
    }
    let mut magnitude = 0f32;
    let mut smallest = f32::INFINITY;
    for g in governors {
        if g.linear == crate::math::Mat3::ZERO {
            magnitude = magnitude.max(g.translation.length());
            continue;
        }
        let eigen = SymmetricEigen3::new(g.linear.transpose() * g.linear);
        let (lo, hi) = (
            eigen.eigenvalues.min_element().max(0.0).sqrt(),
            eigen.eigenvalues.max_element().max(0.0).sqrt(),
        );
        magnitude = magnitude.max(hi * tree.rest_radius + g.translation.length());
        smallest = smallest.min(lo);
    }
    let influences = tree.max_influences as f32;
    let rounding = (2.0 * influences + 4.0) * f32::EPSILON * magnitude;
    !smallest.is_finite() || rounding <= tree.min_rest_altitude * smallest
}

#[inline]
fn aabbs_overlap(a: &crate::math::Aabb, b: &crate::math::Aabb) -> bool {
    a.mins.cmple(b.maxs).all() && b.mins.cmple(a.maxs).all()
}
