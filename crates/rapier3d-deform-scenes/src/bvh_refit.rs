//! The baseline a user builds today: deform every vertex, refit a parry `Bvh` over the triangle boxes, traverse it against itself, exact tests, no normal culling.

use rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::geometry::mesh_triangles_collide;
use rapier3d_deform::math::{Aabb, Vec3};
use rapier3d_deform::mesh::TriangleMesh;

/// Self-collision by refitting a parry [`Bvh`] over the deformed triangles every frame.
///
/// The tree (one leaf per triangle, leaf index = triangle index) is built once, with the binned
/// SAH strategy, from the triangle boxes of the positions given to
/// [`BvhRefitSelfCollision::new`]; each call of [`BvhRefitSelfCollision::detect`] writes the new
/// leaf boxes in place ([`Bvh::insert_or_update_partially`], no margin), refits the inner nodes
/// bottom-up ([`Bvh::refit_without_opt`], what parry's deformable `TriMesh` does), enumerates the
/// overlapping leaf pairs with parry's self-BVTT ([`Bvh::traverse_bvtt_single_tree`]) and keeps
/// those for which [`mesh_triangles_collide`] holds. Nothing is culled by normals: this is the
/// reference the BN-Tree's speed and its conservative mode's output are compared with.
///
/// The caller deforms the vertices (e.g. with
/// [`GovernedDeformation::deform_into`](rapier3d_deform::governor::GovernedDeformation::deform_into)),
/// which is part of this route's cost.
///
/// # Performance
/// Per frame: O(T) to rebox and refit, plus the traversal, O(K log T) for K overlapping box pairs
/// in the worst case, plus K exact tests. Memory: the tree, about 64 bytes per triangle (parry's
/// wide nodes), plus its workspace; no allocation per frame once the output vector has grown.
#[derive(Clone)]
pub struct BvhRefitSelfCollision {
    bvh: Bvh,
    workspace: BvhWorkspace,
    triangle_count: usize,
    vertex_count: usize,
}

impl core::fmt::Debug for BvhRefitSelfCollision {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BvhRefitSelfCollision")
            .field("triangle_count", &self.triangle_count)
            .field("vertex_count", &self.vertex_count)
            .field("heap_bytes", &self.heap_bytes())
            .finish()
    }
}

/// Counters of one [`BvhRefitSelfCollision::detect`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BvhRefitStats {
    /// Leaf pairs whose boxes overlap (reported by the traversal).
    pub leaf_pairs: usize,
    /// Of those, pairs not adjacent by an edge (given to the exact test).
    pub exact_tests: usize,
    /// Self-collisions found.
    pub contacts: usize,
}

/// The closed box of triangle `t` under `positions`.
#[inline]
fn triangle_box(mesh: &TriangleMesh, positions: &[Vec3], t: usize) -> Aabb {
    let [a, b, c] = mesh.corners(positions, t);
    Aabb::new(a.min(b).min(c), a.max(b).max(c))
}

impl BvhRefitSelfCollision {
    /// Builds the tree over the triangle boxes of `mesh` under `positions` (rest or first frame).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] or [`DeformError::NonFinitePosition`] for bad positions.
    ///
    /// # Performance
    /// O(T log T) (binned SAH build).
    pub fn new(mesh: &TriangleMesh, positions: &[Vec3]) -> Result<Self> {
        mesh.check_positions(positions)?;
        let boxes: Vec<Aabb> = (0..mesh.triangle_count())
            .map(|t| triangle_box(mesh, positions, t))
            .collect();
        Ok(Self {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes),
            workspace: BvhWorkspace::default(),
            triangle_count: mesh.triangle_count(),
            vertex_count: mesh.vertex_count(),
        })
    }

    /// Refits the tree to `positions` and writes every self-collision of `mesh` into `out`
    /// (cleared first): pairs `[t1, t2]`, `t1 < t2`, sorted, exactly those of
    /// [`self_collisions_brute_force`](rapier3d_deform::validation::self_collisions_brute_force).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `mesh` is not the mesh the tree was built for (other
    /// triangle or vertex count) or `positions` has the wrong length,
    /// [`DeformError::NonFinitePosition`] for a non-finite position. Nothing changes on error.
    ///
    /// # Performance
    /// See the type's docs: O(T) refit + traversal + exact tests; sorting the output is
    /// O(C log C) for C contacts.
    pub fn detect(
        &mut self,
        mesh: &TriangleMesh,
        positions: &[Vec3],
        out: &mut Vec<[u32; 2]>,
    ) -> Result<BvhRefitStats> {
        if mesh.triangle_count() != self.triangle_count {
            return Err(DeformError::LengthMismatch {
                what: "mesh triangles (not the mesh the BVH was built for)",
                expected: self.triangle_count,
                actual: mesh.triangle_count(),
            });
        }
        mesh.check_positions(positions)?;
        debug_assert_eq!(mesh.vertex_count(), self.vertex_count);
        for t in 0..self.triangle_count {
            let _ = self.bvh.insert_or_update_partially(
                triangle_box(mesh, positions, t),
                t as u32,
                0.0,
            );
        }
        self.bvh.refit_without_opt();

        out.clear();
        let mut stats = BvhRefitStats::default();
        let tris = mesh.triangles();
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |i, j| {
                stats.leaf_pairs += 1;
                let (a, b) = (tris[i as usize], tris[j as usize]);
                let shared = a.iter().filter(|x| b.contains(x)).count();
                if shared >= 2 {
                    return;
                }
                stats.exact_tests += 1;
                if mesh_triangles_collide(mesh, positions, i, j) {
                    out.push([i.min(j), i.max(j)]);
                }
            });
        out.sort_unstable();
        out.dedup();
        stats.contacts = out.len();
        Ok(stats)
    }

    /// Heap bytes of the tree (parry's estimate; the workspace's scratch is not counted).
    ///
    /// # Performance
    /// O(1).
    pub fn heap_bytes(&self) -> usize {
        self.bvh.heap_memory_size()
    }

    /// Number of triangles (leaves).
    pub fn triangle_count(&self) -> usize {
        self.triangle_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::self_colliding::{crumpled_sheet, pinched_torus};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rapier3d_deform::validation::self_collisions_brute_force;

    #[test]
    fn equals_brute_force_over_frames() {
        // Build on the rest pose, then feed deformed frames (the tree topology stays that of
        // the rest pose, as in an animation), including large random perturbations.
        let mut checked = 0;
        for seed in 0..3 {
            for (mesh, deformed) in [crumpled_sheet(20, 14, seed), pinched_torus(24, 12, seed)] {
                let mut bvh = BvhRefitSelfCollision::new(&mesh, mesh.positions()).unwrap();
                let mut out = Vec::new();
                let mut rng = ChaCha8Rng::seed_from_u64(seed + 100);
                for frame in 0..4 {
                    let s = frame as f32 / 3.0;
                    let positions: Vec<Vec3> = mesh
                        .positions()
                        .iter()
                        .zip(&deformed)
                        .map(|(&r, &d)| {
                            let noise = Vec3::new(
                                rng.random_range(-1.0..1.0),
                                rng.random_range(-1.0..1.0),
                                rng.random_range(-1.0..1.0),
                            );
                            r.lerp(d, s) + noise * 0.02 * s
                        })
                        .collect();
                    let stats = bvh.detect(&mesh, &positions, &mut out).unwrap();
                    let expected = self_collisions_brute_force(&mesh, &positions).unwrap();
                    assert_eq!(out, expected, "seed {seed} frame {frame}");
                    assert_eq!(stats.contacts, expected.len());
                    assert!(
                        stats.leaf_pairs >= stats.exact_tests
                            && stats.exact_tests >= stats.contacts
                    );
                    checked += expected.len();
                }
            }
        }
        assert!(checked > 100, "frames should self-collide: {checked}");
    }

    #[test]
    fn wrong_mesh_or_positions_are_errors() {
        let (mesh, deformed) = crumpled_sheet(6, 5, 1);
        let (other, _) = crumpled_sheet(5, 5, 1);
        let mut bvh = BvhRefitSelfCollision::new(&mesh, &deformed).unwrap();
        let mut out = vec![[7, 8]];
        assert!(bvh.detect(&other, other.positions(), &mut out).is_err());
        assert!(bvh.detect(&mesh, &deformed[1..], &mut out).is_err());
        assert_eq!(out, vec![[7, 8]], "nothing changes on error");
        assert!(BvhRefitSelfCollision::new(&mesh, &deformed[1..]).is_err());
    }
}
