//! Indexed triangle meshes: validation, per-triangle geometry and edge adjacency.

mod triangle_mesh;

pub use triangle_mesh::TriangleMesh;
