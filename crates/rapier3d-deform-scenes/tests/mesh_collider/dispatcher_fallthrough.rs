//! Contract: scenes without any crate shape (a pyramid of cuboids, balls on a `TriMesh`, compounds, balls on a `HeightField`, CCD balls fired at a wall) step bit for bit alike with `DeformDispatcher::narrow_phase()` and with Rapier's default narrow phase: every position and velocity, every step.

use rapier3d::parry::utils::Array2;
use rapier3d::prelude::*;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;

/// Builds one scene into `world`.
type Build = fn(&mut PhysicsWorld);

fn ground(world: &mut PhysicsWorld, shape: SharedShape) {
    let fixed = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(ColliderBuilder::new(shape).friction(0.6), Some(fixed));
}

fn dynamic(world: &mut PhysicsWorld, body: RigidBodyBuilder, shape: SharedShape) {
    let h = world.insert_body(body);
    world.insert_collider(ColliderBuilder::new(shape).friction(0.5), Some(h));
}

fn cuboid_pyramid(world: &mut PhysicsWorld) {
    ground(world, SharedShape::cuboid(20.0, 0.1, 20.0));
    for layer in 0..5 {
        for i in 0..(5 - layer) {
            let x = (i as f32 - (4 - layer) as f32 * 0.5) * 1.02;
            let p = Vec3::new(x, 0.6 + layer as f32 * 1.0, 0.0);
            dynamic(
                world,
                RigidBodyBuilder::dynamic().translation(p),
                SharedShape::cuboid(0.5, 0.5, 0.5),
            );
        }
    }
}

fn balls_on_trimesh(world: &mut PhysicsWorld) {
    let n = 8;
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|i| {
            (0..=n).map(move |j| {
                let (x, z) = (i as f32 - 4.0, j as f32 - 4.0);
                Vec3::new(x, 0.1 * (x * 0.7).sin() * (z * 0.5).cos(), z)
            })
        })
        .collect();
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let a = i * (n + 1) + j;
            indices.push([a, a + 1, a + n + 1]);
            indices.push([a + 1, a + n + 2, a + n + 1]);
        }
    }
    ground(world, SharedShape::trimesh(vertices, indices).unwrap());
    for k in 0..12 {
        let p = Vec3::new(
            (k % 4) as f32 - 1.5,
            1.0 + 0.5 * k as f32,
            (k / 4) as f32 - 1.0,
        );
        dynamic(
            world,
            RigidBodyBuilder::dynamic().translation(p),
            SharedShape::ball(0.3),
        );
    }
}

fn compounds(world: &mut PhysicsWorld) {
    ground(world, SharedShape::cuboid(20.0, 0.1, 20.0));
    for k in 0..6 {
        let parts = vec![
            (
                Pose::from_translation(Vec3::new(-0.4, 0.0, 0.0)),
                SharedShape::ball(0.3),
            ),
            (
                Pose::from_translation(Vec3::new(0.4, 0.0, 0.0)),
                SharedShape::cuboid(0.3, 0.2, 0.3),
            ),
            (
                Pose::from_translation(Vec3::new(0.0, 0.3, 0.0)),
                SharedShape::capsule_y(0.2, 0.15),
            ),
        ];
        let p = Vec3::new(0.3 * k as f32, 1.0 + 0.9 * k as f32, 0.1 * k as f32);
        dynamic(
            world,
            RigidBodyBuilder::dynamic()
                .translation(p)
                .angvel(Vec3::new(0.0, 1.0, 0.5)),
            SharedShape::compound(parts),
        );
    }
}

fn balls_on_heightfield(world: &mut PhysicsWorld) {
    let n = 12;
    let heights: Vec<f32> = (0..n * n)
        .map(|k| 0.3 * ((k % n) as f32 * 0.6).sin() * ((k / n) as f32 * 0.4).cos())
        .collect();
    ground(
        world,
        SharedShape::heightfield(Array2::new(n, n, heights), Vec3::new(10.0, 1.0, 10.0)),
    );
    for k in 0..10 {
        let p = Vec3::new(
            (k % 5) as f32 - 2.0,
            1.5 + 0.4 * k as f32,
            (k / 5) as f32 - 0.5,
        );
        let shape = if k % 2 == 0 {
            SharedShape::ball(0.35)
        } else {
            SharedShape::cuboid(0.3, 0.2, 0.25)
        };
        dynamic(world, RigidBodyBuilder::dynamic().translation(p), shape);
    }
}

fn ccd_balls(world: &mut PhysicsWorld) {
    ground(world, SharedShape::cuboid(0.1, 3.0, 3.0));
    for k in 0..4 {
        let body = RigidBodyBuilder::dynamic()
            .translation(Vec3::new(-4.0, 0.5 * k as f32 - 0.75, 0.3 * k as f32))
            .linvel(Vec3::new(200.0, 0.0, 0.0))
            .gravity_scale(0.0)
            .ccd_enabled(true);
        dynamic(world, body, SharedShape::ball(0.05));
    }
}

/// Every body's position and velocities, as bits.
fn state(world: &PhysicsWorld) -> Vec<[u32; 13]> {
    world
        .bodies
        .iter()
        .map(|(_, b)| {
            let (t, r) = (b.translation(), b.rotation());
            let (v, w) = (b.linvel(), b.angvel());
            [
                t.x, t.y, t.z, r.x, r.y, r.z, r.w, v.x, v.y, v.z, w.x, w.y, w.z,
            ]
            .map(f32::to_bits)
        })
        .collect()
}

#[test]
fn scenes_without_crate_shapes_step_bit_identically_with_deform_dispatcher() {
    let scenes: [(&str, Build); 5] = [
        ("cuboid pyramid", cuboid_pyramid),
        ("balls on a TriMesh", balls_on_trimesh),
        ("compounds", compounds),
        ("balls and cuboids on a HeightField", balls_on_heightfield),
        ("CCD balls", ccd_balls),
    ];
    for (name, build) in scenes {
        let mut worlds = [PhysicsWorld::new(), PhysicsWorld::new()];
        worlds[1].narrow_phase = DeformDispatcher::narrow_phase();
        let mut contacts = 0;
        for w in &mut worlds {
            w.integration_parameters.max_ccd_substeps = 1;
            build(w);
        }
        for step in 0..120 {
            for w in &mut worlds {
                w.step();
            }
            assert_eq!(
                state(&worlds[0]),
                state(&worlds[1]),
                "{name}: step {step} differs"
            );
            contacts += worlds[0]
                .narrow_phase
                .contact_pairs()
                .filter(|p| p.has_any_active_contact())
                .count();
        }
        // The scene exercises the narrow phase (the comparison is not vacuous).
        assert!(contacts > 0, "{name}: no contact in 120 steps");
    }
}
