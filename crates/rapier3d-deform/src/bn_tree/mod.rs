//! The BN-Tree (Schvartzman, Gascón & Otaduy, SCA 2009): self-collision detection for meshes under reduced deformations, with normal bounds refit on demand in O(m).
//!
//! [`BnTree`] is built once from the rest mesh and the convex weights (compact, connected
//! patches; boundary contours; O(m) bound data where it pays). [`SelfCollisionQuery`] holds the
//! per-frame state (lazy caches stamped with a frame epoch, the update front, scratch memory)
//! and runs the traversal:
//!
//! * `self_collide(a)` prunes a patch whose discrete normal cone is non-empty and whose
//!   projected contour is simple (the contour test the seed paper omits; without it, pruning is
//!   not conservative — [`CullingMode::Fast`] reproduces the paper);
//! * `self_collide(a, b)` does the same for two adjacent patches;
//! * `collide(a, b)` tests the AABBs of two disjoint patches.
//!
//! [`RefitPolicy::BottomUpEveryFrame`] turns the same traversal into the HSC baseline of Volino &
//! Magnenat-Thalmann 1994 (every cone and box refit bottom-up from the deformed vertices first).
//! With [`RefitPolicy::OnDemand`], once a query needed more than 80 % of the mesh the next ones
//! refit everything bottom-up first too (the seed's §6, "transition to bottom-up"), and every
//! 8th of them measures the need again, so a mesh that calms down returns to lazy queries.

mod build;
mod contour;
mod front;
mod parallel;
mod refit;
mod sweep;
mod traverse;
mod weights;

pub use build::{BnNode, BnTree, BnTreeOptions};
pub use parallel::{PARALLEL_GRAIN_TRIANGLES, PARALLEL_MIN_TRIANGLES};
pub use sweep::SWEEP_BELOW_TRIANGLES;
pub use weights::VertexLeaves;

use crate::bounds::{BoundsWorkspace, NormalCone};
use crate::governor::WideAffine;
use crate::math::{Aabb, Vec3};
use traverse::Walker;

/// How node bounds are refit each frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefitPolicy {
    /// The BN-Tree: bounds computed on demand, O(m) from governors where the node has that data,
    /// with front caching and conservative ascent (§4.3).
    OnDemand,
    /// The HSC baseline: deform every vertex and refit every box and cone bottom-up, then
    /// traverse.
    BottomUpEveryFrame,
}

/// Which tests may prune a patch by its normals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullingMode {
    /// Normal test and contour test (Volino & Magnenat-Thalmann's two conditions): conservative.
    Conservative,
    /// Normal test only, as in the seed paper: faster, may miss pairs.
    Fast,
}

/// Counters and timings of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelfCollisionStats {
    /// Traversal tasks processed.
    pub tasks: u64,
    /// `self_collide(a)` tasks.
    pub self_tasks: u64,
    /// `self_collide(a, b)` tasks (adjacent patches).
    pub adjacent_tasks: u64,
    /// `collide(a, b)` tasks (disjoint patches).
    pub disjoint_tasks: u64,
    /// Patches or patch pairs pruned by the normal (+ contour) test.
    pub pruned_by_normals: u64,
    /// Patch pairs pruned by disjoint boxes.
    pub pruned_by_boxes: u64,
    /// O(m) cone computations.
    pub governor_cones: u64,
    /// O(m) AABB computations.
    pub governor_aabbs: u64,
    /// Vertices deformed.
    pub vertices_deformed: u64,
    /// Triangles whose bounds were refit bottom-up (leaves of lazily refit subtrees, or every
    /// triangle when all bounds are refit first).
    pub triangles_refit: u64,
    /// Contour tests run.
    pub contour_tests: u64,
    /// Contour tests failed because a boundary vertex has several boundary edges (a pinch) or
    /// the boundary is empty.
    pub contour_pinched: u64,
    /// Contour tests that found a non-simple contour.
    pub contour_failures: u64,
    /// Time spent in contour tests.
    pub contour_nanos: u64,
    /// Exact triangle–triangle tests.
    pub triangle_tests: u64,
    /// Colliding pairs found.
    pub pairs: u64,
    /// Total time of the query.
    pub nanos: u64,
    /// Nodes whose cone comes from their children because of the update front.
    pub front_nodes_below: u64,
    /// Time spent in the eager bottom-up refit before the traversal (HSC policy only).
    pub refit_nanos: u64,
    /// Traversal tasks handed to rayon (`parallel` feature, frames that refit every bound
    /// first): 0 when the query ran on one thread. Every other field but the timings equals
    /// the one-thread query's.
    pub parallel_tasks: u64,
}

impl SelfCollisionStats {
    /// Adds every counter and timing of `other` to `self`.
    fn add(&mut self, other: &Self) {
        // Destructured so that a new field cannot be forgotten here.
        let Self {
            tasks,
            self_tasks,
            adjacent_tasks,
            disjoint_tasks,
            pruned_by_normals,
            pruned_by_boxes,
            governor_cones,
            governor_aabbs,
            vertices_deformed,
            triangles_refit,
            contour_tests,
            contour_pinched,
            contour_failures,
            contour_nanos,
            triangle_tests,
            pairs,
            nanos,
            front_nodes_below,
            refit_nanos,
            parallel_tasks,
        } = *other;
        self.tasks += tasks;
        self.self_tasks += self_tasks;
        self.adjacent_tasks += adjacent_tasks;
        self.disjoint_tasks += disjoint_tasks;
        self.pruned_by_normals += pruned_by_normals;
        self.pruned_by_boxes += pruned_by_boxes;
        self.governor_cones += governor_cones;
        self.governor_aabbs += governor_aabbs;
        self.vertices_deformed += vertices_deformed;
        self.triangles_refit += triangles_refit;
        self.contour_tests += contour_tests;
        self.contour_pinched += contour_pinched;
        self.contour_failures += contour_failures;
        self.contour_nanos += contour_nanos;
        self.triangle_tests += triangle_tests;
        self.pairs += pairs;
        self.nanos += nanos;
        self.front_nodes_below += front_nodes_below;
        self.refit_nanos += refit_nanos;
        self.parallel_tasks += parallel_tasks;
    }
}

/// Per-frame state of self-collision queries on one [`BnTree`]: lazy caches stamped with the
/// frame epoch, the update front and scratch memory. Reuse one per tree across frames; nothing
/// is allocated per frame after the first.
///
/// With the `parallel` feature, a query on a mesh of at least [`PARALLEL_MIN_TRIANGLES`]
/// triangles called with more than one rayon thread available (`rayon::current_num_threads`,
/// i.e. inside a pool's `install`, or rayon's global pool) uses them on the frames that refit
/// every bound first (the HSC policy, and BN-Tree frames that reach most of the mesh, see
/// [`SelfCollisionQuery::run`]): it deforms the vertices and refits the bounds in parallel,
/// then walks the tree in rayon tasks down to [`PARALLEL_GRAIN_TRIANGLES`]. The pairs and every
/// counter of [`SelfCollisionStats`] but the timings and `parallel_tasks` equal those of the
/// same query on one thread.
#[derive(Clone, Debug)]
pub struct SelfCollisionQuery {
    cache: FrameCache,
    walker: Walker,
    /// Fraction of the mesh the last measuring BN-Tree query needed: vertices deformed by a
    /// lazy query, or triangles refit by a measuring eager one.
    reached_fraction: f64,
    /// Eager queries since the last measuring one.
    eager_streak: u32,
    /// Triangle boxes of the sweep route ([`SelfCollisionQuery::run_sweep`]).
    sweep_boxes: Vec<(Vec3, Vec3)>,
    /// Triangles in sweep order.
    sweep_order: Vec<u32>,
    /// One traversal scratch per rayon thread (and one for a caller outside the pool).
    #[cfg(feature = "parallel")]
    workers: parallel::Workers,
}

/// The per-frame bound caches of a query: deformed vertices, node boxes and cones stamped with
/// the frame epoch, the update fronts, and the counters of the work they did this frame.
#[derive(Clone, Debug)]
pub(crate) struct FrameCache {
    epoch: u32,
    vertices: Vec<Vec3>,
    vertex_stamp: Vec<u32>,
    aabbs: Vec<Aabb>,
    aabb_stamp: Vec<u32>,
    cones: Vec<NormalCone>,
    cone_stamp: Vec<u32>,
    /// Update front: the node's cone is taken from its children (the front is below it).
    cone_from_children: Vec<bool>,
    /// Update front of the boxes (the seed keeps separate fronts for cones and boxes, §4.3):
    /// the traversal went below the node last frame, so its box is the union of its children's.
    aabb_from_children: Vec<bool>,
    /// Frame in which the traversal descended below the node.
    descended: Vec<u32>,
    /// Frame in which the traversal tested the node's cone itself (not through a parent's
    /// bottom-up recursion).
    visited: Vec<u32>,
    bounds_ws: BoundsWorkspace,
    /// Current positions of point governors (only the entries a cone needs are refreshed).
    points: Vec<Vec3>,
    /// Every vertex was deformed this frame (eager or HSC): refits read them without stamps.
    all_vertices_deformed: bool,
    /// This frame's governors laid out for 4-lane deformation.
    wide_governors: Vec<WideAffine>,
    /// Refit counters of this frame (vertices deformed, O(m) bounds, triangles refit).
    stats: SelfCollisionStats,
}

impl FrameCache {
    fn new(tree: &BnTree) -> Self {
        let (n, v) = (tree.nodes().len(), tree.rest_positions().len());
        Self {
            epoch: 0,
            vertices: vec![Vec3::ZERO; v],
            vertex_stamp: vec![0; v],
            aabbs: vec![Aabb::new_invalid(); n],
            aabb_stamp: vec![0; n],
            cones: vec![NormalCone::EMPTY; n],
            cone_stamp: vec![0; n],
            cone_from_children: vec![false; n],
            aabb_from_children: vec![false; n],
            descended: vec![0; n],
            visited: vec![0; n],
            bounds_ws: BoundsWorkspace::default(),
            points: Vec::new(),
            all_vertices_deformed: false,
            wide_governors: Vec::new(),
            stats: SelfCollisionStats::default(),
        }
    }

    fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        self.vertices.capacity() * size_of::<Vec3>()
            + self.vertex_stamp.capacity() * size_of::<u32>()
            + self.aabbs.capacity() * size_of::<Aabb>()
            + (self.aabb_stamp.capacity()
                + self.cone_stamp.capacity()
                + self.descended.capacity()
                + self.visited.capacity())
                * size_of::<u32>()
            + self.cones.capacity() * size_of::<NormalCone>()
            + (self.cone_from_children.capacity() + self.aabb_from_children.capacity())
                * size_of::<bool>()
            + self.points.capacity() * size_of::<Vec3>()
    }
}

impl SelfCollisionQuery {
    /// Fresh state for `tree`.
    ///
    /// # Performance
    /// O(nodes + vertices).
    pub fn new(tree: &BnTree) -> Self {
        Self {
            cache: FrameCache::new(tree),
            walker: Walker::new(tree),
            reached_fraction: 0.0,
            eager_streak: 0,
            sweep_boxes: Vec::new(),
            sweep_order: Vec::new(),
            #[cfg(feature = "parallel")]
            workers: parallel::Workers::default(),
        }
    }

    fn begin_frame(&mut self, tree: &BnTree) {
        if self.cache.aabbs.len() != tree.nodes().len()
            || self.cache.vertices.len() != tree.rest_positions().len()
        {
            *self = Self::new(tree);
        }
        let cache = &mut self.cache;
        cache.epoch = cache.epoch.wrapping_add(1);
        if cache.epoch == 0 {
            // Stamps wrapped around: clear them so no stale entry looks fresh.
            cache.vertex_stamp.fill(0);
            cache.aabb_stamp.fill(0);
            cache.cone_stamp.fill(0);
            cache.descended.fill(0);
            cache.visited.fill(0);
            cache.epoch = 1;
        }
        cache.stats = SelfCollisionStats::default();
        cache.all_vertices_deformed = false;
        self.walker.stats = SelfCollisionStats::default();
    }

    /// The deformed vertex positions computed this frame (entries of vertices the query did not
    /// need are stale).
    pub fn cached_vertices(&self) -> &[Vec3] {
        &self.cache.vertices
    }

    /// Bytes held by this state.
    pub fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        let workers = {
            #[cfg(feature = "parallel")]
            {
                self.workers.heap_bytes()
            }
            #[cfg(not(feature = "parallel"))]
            {
                0
            }
        };
        self.cache.heap_bytes()
            + self.walker.heap_bytes()
            + workers
            + self.sweep_boxes.capacity() * size_of::<(Vec3, Vec3)>()
            + self.sweep_order.capacity() * size_of::<u32>()
    }
}
