//! Self-collision reference implementations: exact triangle tests, the brute-force oracle and the deform-all + BVH-refit baseline.
//!
//! A self-collision is a pair of triangles of one mesh, neither equal nor sharing an edge, that
//! intersect — triangles sharing one vertex only when they meet beyond it
//! ([`mesh_triangles_collide`]). Every method of the crate reports them as a sorted list of
//! `[t1, t2]` with `t1 < t2`, and all share the same exact leaf test, so their outputs can be
//! compared pair for pair:
//!
//! | item | role |
//! |---|---|
//! | [`triangles_intersect`], [`mesh_triangles_collide`] | exact, topology-aware leaf test |
//! | [`self_collisions_brute_force`] | the oracle: every pair whose boxes overlap (sort and sweep), exact test |
//! | [`BvhRefitSelfCollision`] | what a user does today: deform every vertex, refit a parry [`Bvh`](rapier3d::parry::partitioning::Bvh), self-overlap traversal, exact test, no normal culling |
//! | [`predicates`] | the exact orientation predicates underneath |

mod brute_force;
mod bvh_refit;
pub mod predicates;
mod triangle_intersection;

pub use brute_force::self_collisions_brute_force;
pub use bvh_refit::BvhRefitSelfCollision;
pub use triangle_intersection::{
    PairTopology, mesh_triangles_collide, pair_topology, triangles_cross_beyond_vertex,
    triangles_intersect,
};

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Rejects deformed positions that do not match the mesh or are not finite.
fn check_positions(mesh: &TriangleMesh, positions: &[Vec3]) -> Result<()> {
    if positions.len() != mesh.vertex_count() {
        return Err(DeformError::LengthMismatch {
            what: "deformed positions",
            expected: mesh.vertex_count(),
            actual: positions.len(),
        });
    }
    crate::deformation::validate_positions("deformed vertex", positions)
}

/// Small deformed meshes that self-collide, shared by the tests of this module.
#[cfg(test)]
pub(crate) mod test_meshes {
    use crate::math::Vec3;
    use crate::mesh::TriangleMesh;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A flat `nx × ny` grid sheet (rest) rolled into 1.3 turns of a cylinder whose radius jitters
    /// per vertex, so the overlapping layers cross each other (deformed).
    pub fn crumpled_sheet(nx: usize, ny: usize, seed: u64) -> (TriangleMesh, Vec<Vec3>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rest = Vec::new();
        let mut deformed = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                let (u, v) = (i as f32 / (nx - 1) as f32, j as f32 / (ny - 1) as f32);
                rest.push(Vec3::new(u, v, 0.0));
                let a = core::f32::consts::TAU * 1.3 * u;
                let r = 0.2 * (1.0 + rng.random_range(-0.12..0.12));
                let jitter = Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    0.0,
                ) * 0.01;
                deformed.push(Vec3::new(r * a.cos(), v, r * a.sin()) + jitter);
            }
        }
        let mut tris = Vec::new();
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let k = (j * nx + i) as u32;
                let n = nx as u32;
                tris.push([k, k + 1, k + n + 1]);
                tris.push([k, k + n + 1, k + n]);
            }
        }
        (TriangleMesh::new(rest, tris).expect("valid grid"), deformed)
    }

    /// A closed torus (`nu × nv` quads) whose points are pulled 0.75 towards the axis, so the
    /// inner walls pass through the axis and through each other; a little per-vertex noise
    /// breaks the symmetry.
    pub fn pinched_torus(nu: usize, nv: usize, seed: u64) -> (TriangleMesh, Vec<Vec3>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rest = Vec::new();
        let mut deformed = Vec::new();
        for i in 0..nu {
            for j in 0..nv {
                let a = core::f32::consts::TAU * i as f32 / nu as f32;
                let b = core::f32::consts::TAU * j as f32 / nv as f32;
                let rho = 1.0 + 0.3 * b.cos();
                let p = Vec3::new(rho * a.cos(), rho * a.sin(), 0.3 * b.sin());
                rest.push(p);
                let pulled = rho - 0.75;
                let noise = Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                );
                deformed.push(Vec3::new(pulled * a.cos(), pulled * a.sin(), p.z) + noise * 0.01);
            }
        }
        let idx = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
        let mut tris = Vec::new();
        for i in 0..nu {
            for j in 0..nv {
                tris.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
                tris.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
            }
        }
        (
            TriangleMesh::new(rest, tris).expect("valid torus"),
            deformed,
        )
    }
}
