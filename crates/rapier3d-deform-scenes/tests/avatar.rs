//! Per-bone avatar boxes (Pelechano 2002, made conservative): candidate skin triangles of a point contain every triangle within the radius, the closest contact equals brute force, the seed's fixed-tolerance boxes miss skin the conservative ones keep, the cell hierarchies bound only the skin the queries reach, the debug renderer draws the boxes the queries test, and bad input gets typed errors.

#[path = "avatar/bad_input.rs"]
mod bad_input;
use crate::common;
#[path = "avatar/conservative.rs"]
mod conservative;
#[path = "avatar/debug_render.rs"]
mod debug_render;
#[path = "avatar/hierarchy.rs"]
mod hierarchy;
