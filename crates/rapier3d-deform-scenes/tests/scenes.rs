//! Scene content of `rapier3d_deform_scenes`: the procedural cat's mesh, rig, weights and gaits.

#[path = "scenes/cat.rs"]
mod cat;
