//! Example-based plasticity: parameter validation, the car's damage model, impulses read from Rapier, the self-intersection guard, plastic mesh colliders and whole-crash invariants, the crash grid's layout and determinism.

#[path = "plasticity/car.rs"]
mod car;
#[path = "plasticity/crash_grid.rs"]
mod crash_grid;
#[path = "plasticity/crash_invariants.rs"]
mod crash_invariants;
#[path = "plasticity/mesh_collider.rs"]
mod mesh_collider;
#[path = "plasticity/params.rs"]
mod params;
#[path = "plasticity/rapier.rs"]
mod rapier;
#[path = "plasticity/self_intersection.rs"]
mod self_intersection;
