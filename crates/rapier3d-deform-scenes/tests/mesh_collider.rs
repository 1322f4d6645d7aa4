//! The `DeformableMeshShape` collider: queries, contact manifolds and shape casts (CCD) against parry's own on the deformed triangles, O(m) posing in Rapier's pipeline, local weight changes and the self-collisions they create, bodies resting on it in Rapier, scenes without crate shapes stepping exactly as with Rapier's default narrow phase, and debug lines on the shapes.

#[path = "mesh_collider/ccd.rs"]
mod ccd;
#[path = "mesh_collider/composites.rs"]
mod composites;
#[path = "mesh_collider/debug_render.rs"]
mod debug_render;
#[path = "mesh_collider/dispatcher_fallthrough.rs"]
mod dispatcher_fallthrough;
#[path = "mesh_collider/pipeline.rs"]
mod pipeline;
#[path = "mesh_collider/queries.rs"]
mod queries;
#[path = "mesh_collider/rapier.rs"]
mod rapier;
#[path = "mesh_collider/rapier_composites.rs"]
mod rapier_composites;
#[path = "mesh_collider/self_check.rs"]
mod self_check;
#[path = "mesh_collider/weights.rs"]
mod weights;
