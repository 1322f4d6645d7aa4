//! Contract: a plastic car whose collider is a BN-Tree `DeformableMeshShape` (`DeformableCollider::Mesh`) crashing into a wall dents; its collider is re-weighted only in the steps where cage weights change (nothing before the impact), always equals the bound mesh's independent blend `Σ_e β_e x_e` of the current cage weights, gains no self-intersection (brute-force oracle, with the guard on), and the car stays above the ground.

use std::sync::Arc;

use rapier3d::prelude::*;
use rapier3d_deform::crash::DeformableCollider;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::car::CarOptions;
use rapier3d_deform_scenes::crash::{
    CarCollider, CrashOptions, build_crash, car_asset, car_example_mesh,
};

#[test]
fn a_mesh_car_dents_on_a_wall_without_passing_through_itself() {
    let asset = Arc::new(car_asset("low", None, &mut |_| {}).unwrap());
    let mesh = Arc::new(
        car_example_mesh(
            &asset,
            CarOptions {
                stations: 17,
                segments: 30,
            },
        )
        .unwrap(),
    );
    let options = CrashOptions {
        cars: 1,
        barrels: false,
        run_up: 1.0,
        speed: 20.0,
        ..CrashOptions::default()
    };
    let mut scene = build_crash(
        &asset,
        None,
        &CarCollider::Deformable(DeformableCollider::Mesh(mesh.clone())),
        &options,
    )
    .unwrap();
    let car = scene.cars[0];
    // A wall across the car's path, just past the crash point (the car drives along +x).
    let front = scene.world.colliders[car.collider].compute_aabb().maxs.x + options.run_up;
    let lane = scene.world.bodies[car.rigid_body].translation().z;
    let wall = scene.world.insert_body(RigidBodyBuilder::fixed());
    scene.world.insert_collider(
        ColliderBuilder::cuboid(0.25, 1.5, 3.0).translation(Vec3::new(front + 0.25, 1.5, lane)),
        Some(wall),
    );
    let shape_positions = |scene: &rapier3d_deform_scenes::crash::CrashScene| {
        scene.world.colliders[car.collider]
            .shape()
            .as_shape::<DeformableMeshShape>()
            .unwrap()
            .deformed_vertices()
    };
    let triangles = mesh.tree().mesh().clone();
    let start = self_collisions_brute_force(&triangles, &shape_positions(&scene)).unwrap();
    let (mut updated, mut first_update, mut prevented) = (0usize, None, 0usize);
    let mut reference = Vec::new();
    for step in 0..150 {
        scene.step().unwrap();
        let stats = scene.pipeline.stats();
        updated += stats.mesh_vertices_updated;
        prevented += stats.self_intersections_prevented;
        if stats.mesh_vertices_updated > 0 && first_update.is_none() {
            first_update = Some(step);
        }
        if step % 10 == 9 {
            let positions = shape_positions(&scene);
            let h = car.deformable.unwrap();
            mesh.bound()
                .positions_into(scene.pipeline.state_mut(h).unwrap(), &mut reference)
                .unwrap();
            for (v, (p, q)) in positions.iter().zip(&reference).enumerate() {
                assert!(
                    (*p - *q).length() < 1e-4,
                    "step {step} vertex {v}: {p} vs {q}"
                );
            }
            let y = scene.world.bodies[car.rigid_body].translation().y;
            assert!(y > -0.05, "step {step}: the car sank to y = {y}");
        }
    }
    let dent = scene.dent_depth(&car).unwrap();
    let end = self_collisions_brute_force(&triangles, &shape_positions(&scene)).unwrap();
    println!(
        "dent {dent:.3} m, first re-weighting at step {first_update:?}, {updated} vertex updates, \
         {prevented} new self-intersections refused, pairs {} -> {}",
        start.len(),
        end.len()
    );
    assert!(dent > 0.05, "no dent: {dent}");
    // Nothing is re-weighted before the impact (about 1 m at 20 m/s: 12 steps).
    assert!(first_update.is_some_and(|s| s >= 8), "{first_update:?}");
    let new: Vec<_> = end
        .iter()
        .filter(|p| start.binary_search(p).is_err())
        .collect();
    assert!(new.is_empty(), "new self-intersections: {new:?}");
}
