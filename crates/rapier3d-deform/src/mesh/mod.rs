//! Indexed triangle meshes: validation, per-triangle geometry, edge adjacency and spatial vertex order.

mod triangle_mesh;
mod vertex_order;

pub use triangle_mesh::TriangleMesh;
pub(crate) use triangle_mesh::{is_degenerate, squared_diagonal};
pub use vertex_order::VertexOrder;
pub(crate) use vertex_order::is_permutation;
