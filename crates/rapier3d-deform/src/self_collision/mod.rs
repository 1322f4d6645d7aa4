//! Self-collision reference implementations: exact triangle tests and the brute-force oracle.
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
//! | [`predicates`] | the exact orientation predicates underneath |

mod brute_force;
pub mod predicates;
mod triangle_intersection;

pub use brute_force::self_collisions_brute_force;
pub use triangle_intersection::{
    PairTopology, mesh_triangles_collide, pair_topology, triangles_cross_beyond_vertex,
    triangles_intersect,
};

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Rejects deformed positions that do not match the mesh or are not finite.
///
/// # Errors
/// [`DeformError::LengthMismatch`] or [`DeformError::NonFinitePosition`].
///
/// # Performance
/// O(vertices).
pub fn check_positions(mesh: &TriangleMesh, positions: &[Vec3]) -> Result<()> {
    if positions.len() != mesh.vertex_count() {
        return Err(DeformError::LengthMismatch {
            what: "deformed positions",
            expected: mesh.vertex_count(),
            actual: positions.len(),
        });
    }
    crate::deformation::validate_positions("deformed vertex", positions)
}
