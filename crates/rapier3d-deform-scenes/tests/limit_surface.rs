//! Loop limit surfaces (Grinspun & Schröder 2001): the eigenstructure of the local subdivision matrix reproduces direct subdivision (the crate's `LoopSubdivision` stencils and the matrix itself), and every limit-surface normal sampled by deep subdivision lies in the computed patch normal cones, for every valence 3..=12; bad control meshes are refused with typed errors; interference detection on the limit surface covers the level-k mesh's crossings, also on the torus and everted-sphere scenes at each of their tolerances; a query reused over frames, hierarchies and surface pairs answers as a fresh one.

#[path = "limit_surface/control_mesh.rs"]
mod control_mesh;
#[path = "limit_surface/detect.rs"]
mod detect;
#[path = "limit_surface/eigenstructure.rs"]
mod eigenstructure;
#[path = "limit_surface/local.rs"]
mod local;
#[path = "limit_surface/normal_bounds.rs"]
mod normal_bounds;
#[path = "limit_surface/query_reuse.rs"]
mod query_reuse;
#[path = "limit_surface/scenes.rs"]
mod scenes;
