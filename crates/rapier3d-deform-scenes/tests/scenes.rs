//! Scene content of `rapier3d_deform_scenes`: the procedural cat's mesh, rig, weights and gaits; the colliding point-based bodies (santas) against brute force.

#[path = "scenes/cat.rs"]
mod cat;
#[path = "scenes/santas.rs"]
mod santas;
