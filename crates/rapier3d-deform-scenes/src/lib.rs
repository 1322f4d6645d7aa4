//! Scene content for rapier3d-deform's examples, tests and benchmarks (unpublished): procedural assets, the renderer, and the baselines the benchmarks compare against.
//!
//! | module | what it holds |
//! |---|---|
//! | [`cat`], [`cloth`], [`teddy`], [`fox`] | the self-collision scenes of the BN-Tree paper (procedural cat, hanging cloth, point-based teddy) and the Khronos Fox |
//! | [`santas`] | colliding point-based bodies: Spots whose 24 particles are spring-joined Rapier bodies, crate or `TriMesh` surfaces, a contact pass driving the particles, brute-force inter-body pairs |
//! | [`characters`] | the Fox and Kenney's platformer character walking through falling balls (skinned colliders, surface velocities) |
//! | [`car`], [`barrel`], [`crash`] | plastic car and barrel assets with damage examples, the crash and barrel-drop layouts |
//! | [`ray_parity`] | inside tests of closed shapes by ray parity (one ray, or three voting) |
//! | [`primitives`] | the closed box shared by examples, tests and the API harness |
//! | [`sdf_mesh`] | signed distance fields from smooth unions, meshed by surface nets |
//! | [`render`] | a z-buffered software rasterizer writing PNGs, with titles, time stamps, body labels and legends (`render::annotate`) and the shared dent and self-collision colours |
//! | [`bvh_refit`] | the deform-all + BVH-refit self-collision baseline |
//! | [`self_colliding`] | small deformed meshes that self-collide (test fixtures) |
//! | [`skirt`], [`cape`], [`sportsuit`], [`garment`] | garments on animated avatars: a skirt on the walking RiggedFigure, a cape on the running Fox, the MakeHuman sportsuit on a walking body derived from it, pins carried by skin weights |
//! | [`skin_crossings`] | cloth triangles crossing the posed skin, and those no inside vertex explains (what the collision stage's face pass resolves) |
//! | [`skin_distance`] | brute-force signed distance to a closed skin (the cloth tests' reference): nearest triangle, inside by a signed ray-crossing count or the winding number |
//! | [`subdiv`] | Loop control meshes for limit-surface scenes and their prescribed deformations (the bent capsule tube, a genus-3 torus with a bridge pushed through its bar, a partially everted sphere, a jittered sphere cage), the scenes' tolerance oracle, pictures of a query's result |
//! | [`api_fuzz`] | the structured fuzzing harness over the public API (proptest and libFuzzer drive it) |
//! | [`asset_path`] | where the bundled assets live |
#![warn(missing_docs)]

pub mod api_fuzz;
pub mod barrel;
pub mod bvh_refit;
pub mod cape;
pub mod car;
pub mod cat;
pub mod characters;
pub mod cloth;
pub mod crash;
pub mod fox;
pub mod garment;
pub mod primitives;
pub mod ray_parity;
pub mod render;
pub mod santas;
pub mod sdf_mesh;
pub mod self_colliding;
pub mod skin_crossings;
pub mod skin_distance;
pub mod skirt;
pub mod sportsuit;
pub mod subdiv;
pub mod teddy;

pub use bvh_refit::BvhRefitSelfCollision;

/// The path of a bundled asset, `relative` to the repository's `assets/` folder (for example
/// `"skinned/Fox.glb"`), independent of the working directory.
pub fn asset_path(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(relative)
}

/// The README's code blocks, compiled and run as doctests (from this crate's folder, where
/// `assets/` links to the repository's assets).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
