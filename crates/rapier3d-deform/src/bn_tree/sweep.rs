//! The small-mesh route of a self-collision query: deform every vertex, sort the triangles' boxes along one axis and sweep, with the traversal's exact triangle tests.

use super::SelfCollisionQuery;
use super::build::BnTree;
use super::{CullingMode, RefitPolicy, SelfCollisionStats};
#[cfg(doc)]
use crate::error::DeformError;
use crate::error::Result;
use crate::geometry::mesh_triangles_collide;
use crate::governor::{Affine, validate_governors, widen_governors};
use crate::math::Vec3;
use std::time::Instant;

/// Below this many triangles a sort-and-sweep over every triangle box beats the BN-Tree
/// traversal, whose per-node bounds, contour tests and front bookkeeping cost more than they
/// prune on a mesh this small. Measured on the Fox's Walk and Run clips (`self_fox_game`,
/// BENCHMARKS.md), median ms per frame: at 576 triangles the sweep took 0.40 and the BN-Tree
/// 0.51 (collider preset) to 0.64 (self-collision preset); at 2,304 triangles the BN-Tree took
/// 1.06–1.32 and the sweep 1.92. The crossover, interpolated on a log scale, is near 1,000.
pub const SWEEP_BELOW_TRIANGLES: usize = 1024;

impl SelfCollisionQuery {
    /// [`Self::run_sweep`] for a mesh below [`SWEEP_BELOW_TRIANGLES`] triangles, else
    /// [`Self::run`] with [`RefitPolicy::OnDemand`] and `mode`: the route a caller that only wants
    /// the pairs should take. The sweep finds every pair whatever `mode` says.
    ///
    /// # Errors
    /// As [`Self::run`].
    ///
    /// # Performance
    /// The route's.
    pub fn run_by_mesh_size(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        mode: CullingMode,
        out: &mut Vec<[u32; 2]>,
    ) -> Result<SelfCollisionStats> {
        if tree.mesh.triangle_count() < SWEEP_BELOW_TRIANGLES {
            self.run_sweep(tree, governors, out)
        } else {
            self.run(tree, governors, RefitPolicy::OnDemand, mode, out)
        }
    }

    /// Finds every colliding triangle pair like [`Self::run`] in conservative mode (the same
    /// pairs, sorted), without the tree's culling: every vertex is deformed, the triangles'
    /// boxes are sorted along the axis of largest extent and swept, and overlapping boxes get the
    /// exact test. The route of choice below [`SWEEP_BELOW_TRIANGLES`] triangles.
    ///
    /// # Errors
    /// As [`Self::run`] ([`DeformError::LengthMismatch`], a non-finite or out-of-range
    /// governor); `out` is left untouched then.
    ///
    /// # Performance
    /// O(n · i) to deform n vertices with i influences, O(T log T) to sort T boxes, plus one
    /// exact test per overlapping box pair; no allocation after the first call.
    pub fn run_sweep(
        &mut self,
        tree: &BnTree,
        governors: &[Affine],
        out: &mut Vec<[u32; 2]>,
    ) -> Result<SelfCollisionStats> {
        validate_governors(governors, tree.weights().governor_count())?;
        let start = Instant::now();
        self.begin_frame(tree);
        widen_governors(governors, &mut self.cache.wide_governors);
        self.cache.deform_all_vertices(tree);
        let stats = &mut self.walker.stats;
        stats.add(&self.cache.stats);
        let triangles = tree.mesh.triangles();
        self.sweep_boxes.clear();
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for t in triangles {
            let [a, b, c] = t.map(|v| self.cache.vertices[v as usize]);
            let (min, max) = (a.min(b).min(c), a.max(b).max(c));
            lo = lo.min(min);
            hi = hi.max(max);
            self.sweep_boxes.push((min, max));
        }
        let extent = hi - lo;
        let axis = if extent.x >= extent.y && extent.x >= extent.z {
            0
        } else if extent.y >= extent.z {
            1
        } else {
            2
        };
        let boxes = &self.sweep_boxes;
        self.sweep_order.clear();
        self.sweep_order.extend(0..triangles.len() as u32);
        self.sweep_order.sort_unstable_by(|&i, &j| {
            boxes[i as usize].0[axis].total_cmp(&boxes[j as usize].0[axis])
        });
        out.clear();
        for (k, &i) in self.sweep_order.iter().enumerate() {
            let (min_i, max_i) = boxes[i as usize];
            for &j in &self.sweep_order[k + 1..] {
                let (min_j, max_j) = boxes[j as usize];
                if min_j[axis] > max_i[axis] {
                    break;
                }
                if min_i.cmple(max_j).all() && min_j.cmple(max_i).all() {
                    stats.triangle_tests += 1;
                    if mesh_triangles_collide(&tree.mesh, &self.cache.vertices, i, j) {
                        out.push([i.min(j), i.max(j)]);
                    }
                }
            }
        }
        out.sort_unstable();
        stats.pairs = out.len() as u64;
        stats.nanos = start.elapsed().as_nanos() as u64;
        Ok(*stats)
    }
}
