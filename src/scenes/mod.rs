//! Procedural assets shared by examples, tests and benchmarks.

pub mod barrel;
pub mod car;
pub mod cat;
pub mod cloth;
pub mod crash;
pub mod fox;
pub mod render;
pub mod sdf_mesh;
pub mod teddy;
