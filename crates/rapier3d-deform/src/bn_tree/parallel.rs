//! The multi-threaded route of a self-collision query (`parallel` feature): every vertex deformed and every bound refit on rayon's threads, then the traversal of BN-Tree §4.2 split into rayon tasks over subtree pairs, with per-thread pair lists and counters merged into the one-thread result.
//!
//! It runs on the frames whose bounds are all refit before the traversal (the HSC policy, and
//! BN-Tree frames that reached most of the mesh, §6): the traversal then only reads the caches,
//! so tasks share them without synchronisation. A task is a function of the frame's bounds
//! alone, so the set of pairs and every counter are those of the one-thread walk whatever the
//! interleaving; the pairs are sorted as on one thread, and the counters are sums.
//! Frames that refit lazily (whose counters and update front depend on the order bounds are
//! first asked for) stay on one thread, but a measuring frame deforms its vertices on all.

use super::SelfCollisionQuery;
use super::build::BnTree;
#[cfg(feature = "parallel")]
use super::{
    CullingMode, FrameCache,
    refit::{NodeSlots, deform_stale, merged_bounds, refit_deformed_range},
    traverse::{Bounds, Task, Walker},
};
#[cfg(feature = "parallel")]
use crate::{
    bounds::NormalCone,
    governor::Affine,
    math::{Aabb, Vec3},
};

/// Meshes with fewer triangles never run a query on several threads: a game character's mesh
/// (1–10k triangles, a query well under a millisecond) keeps the one-thread route, with no task
/// hand-over and no allocation after warm-up. At this size a traversal splits into at least
/// eight tasks of [`PARALLEL_GRAIN_TRIANGLES`].
pub const PARALLEL_MIN_TRIANGLES: usize = 16_384;

/// A traversal task over nodes holding fewer triangles than this (both nodes together, for a
/// pair) runs to completion on the thread that took it; larger ones hand their subtasks to
/// rayon. Bottom-up refits and vertex deformation split at the same size.
pub const PARALLEL_GRAIN_TRIANGLES: usize = 2_048;

impl SelfCollisionQuery {
    /// Whether this frame may use several threads: the `parallel` feature, more than one rayon
    /// thread where the query is called, and a mesh of at least [`PARALLEL_MIN_TRIANGLES`].
    pub(crate) fn parallel_frame(&self, tree: &BnTree) -> bool {
        #[cfg(feature = "parallel")]
        {
            rayon::current_num_threads() > 1 && tree.mesh.triangle_count() >= PARALLEL_MIN_TRIANGLES
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = tree;
            false
        }
    }
}

/// One traversal scratch per thread of the rayon pool the query runs in, plus one for a caller
/// outside any pool; each locked only by its own thread (never contended).
#[cfg(feature = "parallel")]
#[derive(Debug, Default)]
pub(crate) struct Workers(Vec<std::sync::Mutex<Worker>>);

/// A thread's traversal scratch and the pairs it found; aligned so that two threads' counters
/// never share a cache line.
#[cfg(feature = "parallel")]
#[derive(Debug, Default)]
#[repr(align(128))]
struct Worker {
    walker: Walker,
    pairs: Vec<[u32; 2]>,
}

#[cfg(feature = "parallel")]
impl Clone for Workers {
    /// Scratch memory only: a clone starts without it.
    fn clone(&self) -> Self {
        Self::default()
    }
}

#[cfg(feature = "parallel")]
impl Workers {
    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.capacity() * core::mem::size_of::<std::sync::Mutex<Worker>>()
            + self
                .0
                .iter()
                .map(|w| {
                    let w = lock(w);
                    w.walker.heap_bytes() + w.pairs.capacity() * 8
                })
                .sum::<usize>()
    }
}

#[cfg(feature = "parallel")]
fn lock(worker: &std::sync::Mutex<Worker>) -> std::sync::MutexGuard<'_, Worker> {
    // A panic while locked leaves only scratch memory behind: keep using it.
    worker
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// This frame's bounds, all refit before the traversal: read-only, shared by every task.
#[cfg(feature = "parallel")]
#[derive(Clone, Copy)]
struct Settled<'a> {
    vertices: &'a [Vec3],
    aabbs: &'a [Aabb],
    cones: &'a [NormalCone],
}

#[cfg(feature = "parallel")]
impl Bounds for Settled<'_> {
    #[inline(always)]
    fn vertex(&mut self, _: &BnTree, v: u32) -> Vec3 {
        self.vertices[v as usize]
    }

    #[inline(always)]
    fn vertices(&self) -> &[Vec3] {
        self.vertices
    }

    #[inline(always)]
    fn node_aabb(&mut self, _: &BnTree, _: &[Affine], i: u32) -> Aabb {
        self.aabbs[i as usize]
    }

    #[inline(always)]
    fn node_cone(&mut self, _: &BnTree, _: &[Affine], i: u32) -> NormalCone {
        self.cones[i as usize]
    }

    /// Not recorded: the update front is moved only after frames that refit lazily, and reads
    /// the marks of its own frame alone.
    #[inline(always)]
    fn visit(&mut self, _: u32) {}

    /// Not recorded (see `visit`).
    #[inline(always)]
    fn descend(&mut self, _: u32) {}
}

/// What every task of one parallel traversal shares.
#[cfg(feature = "parallel")]
struct Shared<'a> {
    tree: &'a BnTree,
    governors: &'a [Affine],
    mode: CullingMode,
    bounds: Settled<'a>,
    workers: &'a [std::sync::Mutex<Worker>],
}

#[cfg(feature = "parallel")]
impl Shared<'_> {
    /// Runs `task`: to completion on this thread below [`PARALLEL_GRAIN_TRIANGLES`], else
    /// the task's own tests here and its subtasks as rayon tasks. Returns the tasks handed to
    /// rayon.
    fn run(&self, task: Task) -> u64 {
        let nodes = &self.tree.nodes;
        let triangles = match task {
            Task::SelfOne(a) => nodes[a as usize].count,
            Task::SelfPair(a, b) | Task::Collide(a, b) => {
                nodes[a as usize].count + nodes[b as usize].count
            }
        } as usize;
        // The pool's threads have indices below its size; a caller outside it takes the last
        // slot.
        let slot = rayon::current_thread_index()
            .unwrap_or(self.workers.len() - 1)
            .min(self.workers.len() - 1);
        let mut bounds = self.bounds;
        let mut children = [None; 3];
        {
            let mut guard = lock(&self.workers[slot]);
            let Worker { walker, pairs } = &mut *guard;
            walker.stack.clear();
            if triangles < PARALLEL_GRAIN_TRIANGLES {
                walker.stack.push(task);
                walker.walk(&mut bounds, self.tree, self.governors, self.mode, pairs);
                return 0;
            }
            walker.step(
                &mut bounds,
                self.tree,
                self.governors,
                self.mode,
                task,
                pairs,
            );
            for child in &mut children {
                *child = walker.stack.pop();
            }
            debug_assert!(walker.stack.is_empty(), "a task spawns at most three");
        }
        // The lock is released before joining: a thread waiting in `join` may run other tasks,
        // which lock its own slot.
        match children {
            [None, ..] => 0,
            [Some(a), None, _] => self.run(a),
            [Some(a), Some(b), None] => {
                let (x, y) = rayon::join(|| self.run(a), || self.run(b));
                2 + x + y
            }
            [Some(a), Some(b), Some(c)] => {
                let (x, (y, z)) = rayon::join(
                    || self.run(a),
                    || rayon::join(|| self.run(b), || self.run(c)),
                );
                3 + x + y + z
            }
        }
    }
}

#[cfg(feature = "parallel")]
impl SelfCollisionQuery {
    /// The traversal on rayon's threads, over bounds all refit this frame: pairs go to `out`
    /// (unsorted), counters to the query's.
    ///
    /// # Performance
    /// The one-thread traversal's work plus one task hand-over per task above
    /// [`PARALLEL_GRAIN_TRIANGLES`]; allocates only when the thread count changes or a thread's
    /// scratch grows.
    pub(crate) fn walk_parallel(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        out: &mut Vec<[u32; 2]>,
    ) {
        let slots = rayon::current_num_threads() + 1;
        let workers = &mut self.workers.0;
        if workers.len() != slots {
            workers.clear();
            workers.resize_with(slots, Default::default);
        }
        for worker in workers.iter_mut() {
            let w = worker
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            w.walker.stats = Default::default();
            w.pairs.clear();
        }
        let shared = Shared {
            tree,
            governors,
            mode,
            bounds: Settled {
                vertices: &self.cache.vertices,
                aabbs: &self.cache.aabbs,
                cones: &self.cache.cones,
            },
            workers,
        };
        let handed = shared.run(Task::SelfOne(0));
        // Fixed merge order (slot by slot); the pairs are sorted afterwards and the counters
        // are sums, so the order does not show.
        for worker in workers.iter_mut() {
            let w = worker
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.walker.stats.add(&w.walker.stats);
            out.extend_from_slice(&w.pairs);
        }
        self.walker.stats.parallel_tasks = handed;
    }
}

#[cfg(feature = "parallel")]
impl FrameCache {
    /// [`FrameCache::deform_all_vertices`] on rayon's threads, in chunks of vertices: each
    /// vertex is computed by the same function, so positions are bit-identical.
    ///
    /// # Performance
    /// O(total influences) spread over the threads.
    pub(crate) fn deform_all_vertices_parallel(&mut self, tree: &BnTree) {
        use rayon::prelude::*;
        if self.all_vertices_deformed {
            return;
        }
        let (epoch, wide) = (self.epoch, &self.wide_governors);
        self.stats.vertices_deformed += self
            .vertices
            .par_chunks_mut(PARALLEL_GRAIN_TRIANGLES)
            .zip(self.vertex_stamp.par_chunks_mut(PARALLEL_GRAIN_TRIANGLES))
            .enumerate()
            .map(|(c, (positions, stamps))| {
                deform_stale(
                    tree,
                    wide,
                    epoch,
                    c * PARALLEL_GRAIN_TRIANGLES,
                    positions,
                    stamps,
                )
            })
            .sum::<u64>();
        self.all_vertices_deformed = true;
    }

    /// [`FrameCache::refit_all_bottom_up`] on rayon's threads: subtrees refit in parallel
    /// (each node from the same inputs as on one thread).
    ///
    /// # Performance
    /// O(n) spread over the threads.
    pub(crate) fn refit_all_bottom_up_parallel(&mut self, tree: &BnTree) {
        self.deform_all_vertices_parallel(tree);
        let slots = NodeSlots {
            start: 0,
            aabbs: &mut self.aabbs,
            cones: &mut self.cones,
            aabb_stamp: &mut self.aabb_stamp,
            cone_stamp: &mut self.cone_stamp,
        };
        self.stats.triangles_refit += refit_subtree(tree, &self.vertices, self.epoch, slots);
    }
}

/// Refits the subtree whose node range is `slots` (its root first), its two halves as rayon
/// tasks above [`PARALLEL_GRAIN_TRIANGLES`]; returns the triangles refit.
#[cfg(feature = "parallel")]
fn refit_subtree(tree: &BnTree, vertices: &[Vec3], epoch: u32, slots: NodeSlots<'_>) -> u64 {
    let i = slots.start;
    let node = tree.nodes[i];
    let Some([l, r]) = node.children else {
        return refit_deformed_range(tree, vertices, epoch, slots);
    };
    let (l, r) = (l as usize, r as usize);
    // Depth-first order: the left subtree is `i + 1..r`, the right one `r..end`.
    if (node.count as usize) < PARALLEL_GRAIN_TRIANGLES || l != i + 1 || r <= l {
        return refit_deformed_range(tree, vertices, epoch, slots);
    }
    let (mut root, rest) = slots.split_at(1);
    let (left, right) = rest.split_at(r - l);
    let (mut left, mut right) = (left, right);
    let (a, b) = rayon::join(
        || refit_subtree(tree, vertices, epoch, left.reborrow()),
        || refit_subtree(tree, vertices, epoch, right.reborrow()),
    );
    root.set(i, merged_bounds(left.get(l), right.get(r)), epoch);
    a + b
}
