//! Exact geometry: orientation predicates and the triangle–triangle tests every self-collision method shares.
//!
//! A self-collision is a pair of triangles of one mesh, neither equal nor sharing an edge, that
//! intersect — triangles sharing one vertex only when they meet beyond it
//! ([`mesh_triangles_collide`]). Every method of the crate (the BN-Tree, a deformable mesh
//! collider's local check, the brute-force oracle of [`crate::validation`]) reports them as a
//! sorted list of `[t1, t2]` with `t1 < t2`, and all share the same exact leaf test, so their
//! outputs can be compared pair for pair:
//!
//! | item | role |
//! |---|---|
//! | [`triangles_intersect`], [`mesh_triangles_collide`] | exact, topology-aware leaf test |
//! | [`predicates`] | the exact orientation predicates underneath |
//! | `first_crossing` | continuous test: a moving point through a moving triangle (cloth on skin, swept contacts of a deforming mesh) |

mod moving_point_triangle;
pub mod predicates;
mod triangle_intersection;

pub(crate) use moving_point_triangle::first_crossing;

pub use triangle_intersection::{
    PairTopology, mesh_triangles_collide, pair_topology, triangles_cross_beyond_vertex,
    triangles_intersect,
};
