//! Steps a Rapier scene without any crate shape (a pyramid of cuboids on a cuboid ground, balls on a `TriMesh`) with `DeformDispatcher::narrow_phase()`, for measuring with callgrind what the dispatcher's fall-through costs a scene that does not use it.
//!
//! `cargo run --release --example dispatcher_overhead [steps]` (default 300). Under callgrind:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='dispatcher_overhead::step' \
//!   target/release/examples/dispatcher_overhead
//! ```
//!
//! the dispatcher's share is the inclusive cost of `rapier3d_deform::query::DeformDispatcher`'s
//! methods over that of `step`.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::prelude::*;

#[inline(never)]
fn step(world: &mut PhysicsWorld) {
    world.step();
}

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    let ground = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(ColliderBuilder::cuboid(30.0, 0.1, 30.0), Some(ground));
    let layers = 10;
    for layer in 0..layers {
        for i in 0..(layers - layer) {
            let x = (i as f32 - (layers - 1 - layer) as f32 * 0.5) * 1.02;
            let body = world.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(
                x,
                0.6 + layer as f32,
                0.0,
            )));
            world.insert_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), Some(body));
        }
    }
    let n = 10u32;
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| Vec3::new(i as f32, 0.0, j as f32 + 5.0)))
        .collect();
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let a = i * (n + 1) + j;
            indices.push([a, a + 1, a + n + 1]);
            indices.push([a + 1, a + n + 2, a + n + 1]);
        }
    }
    let floor = world.insert_body(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, 0.5, 0.0)));
    world.insert_collider(
        ColliderBuilder::trimesh(vertices, indices).expect("a valid mesh"),
        Some(floor),
    );
    for k in 0..50 {
        let p = Vec3::new(
            1.0 + (k % 8) as f32,
            1.5 + 0.6 * (k / 8) as f32,
            6.0 + (k % 5) as f32,
        );
        let body = world.insert_body(RigidBodyBuilder::dynamic().translation(p));
        world.insert_collider(ColliderBuilder::ball(0.25), Some(body));
    }
    for _ in 0..steps {
        step(&mut world);
    }
    let contacts = world
        .narrow_phase
        .contact_pairs()
        .filter(|p| p.has_any_active_contact())
        .count();
    println!("{steps} steps, {contacts} pairs in contact at the end");
}
