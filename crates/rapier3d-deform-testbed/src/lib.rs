//! rapier3d-deform's scenes in Rapier's own testbed (kiss3d): the scene construction and per-step updates, without a window (`main.rs` draws them).
//!
//! | module | what it holds |
//! |---|---|
//! | [`demo`] | [`SceneId`] (the registered scenes), [`Demo`]: a built scene, its per-step update, what the viewer draws (meshes in body frame, self-collision pairs) and its per-step statistics |
//! | [`cat`] | the BN-Tree paper's cat as one skinned collider running and jumping under falling balls, its self-collisions found every step |
//! | [`garment`] | a cape on the running Fox and a skirt on the walking RiggedFigure: XPBD cloth against the avatar's per-bone boxes, with the garment's self-collision |
//! | [`assets`] | the plastic car and barrel assets, built once per process and shared by every scene that uses them |
//!
//! Every scene is built by the scene crate's builders (`rapier3d_deform_scenes::crash`,
//! `::characters`, `::cat`, `::cape`, `::skirt`), the same ones the examples, tests and benchmarks use; the crate's
//! per-step updates (`PlasticPipeline::update`, posing skinned colliders through `shape_mut`,
//! self-collision queries) run inside [`Demo::step`], which the viewer calls every testbed
//! step and `tests/scenes.rs` calls without a window.
#![warn(missing_docs)]

pub mod assets;
pub mod cat;
pub mod demo;
pub mod garment;

pub use demo::{Demo, DemoOptions, DrawnMesh, SceneId};
