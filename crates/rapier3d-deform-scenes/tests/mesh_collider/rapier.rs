//! Contract: with `DeformDispatcher` installed first in Rapier's narrow phase, a dynamic ball and a dynamic box resting on a kinematic skinned `DeformableMeshShape` (re-posed through `shape_mut()` every step) stay at rest: drift ≤ 1 mm over 5 s; without the dispatcher the box falls through; scene queries (ray casts, shape intersection, shape casts) reach the deformed mesh; a rain of balls gives identical results for 1 and 2 threads (with `parallel`).

use crate::common;

use std::sync::Arc;

use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher, ShapeCastOptions};
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::DeformableMeshShape;

const SURFACE_Y: f32 = 0.2;

/// The 4 × 4 skinned grid of the shared fixtures with every internal node bounding itself in
/// O(m) (governor_cost 0), so that the refit count measures laziness alone, not the build
/// heuristic that trades O(m) data for bottom-up refits.
fn grid(n: usize) -> Arc<BnTree> {
    // Small leaves give the 512-triangle grid enough nodes for laziness to show.
    let options = BnTreeOptions {
        governor_cost: 0.0,
        leaf_triangles: 4,
    };
    common::skinned_grid(n, options)
}

/// Both bones lift the grid to `SURFACE_Y`; the second stretches it along x by an animated
/// factor, so the surface stays the plane y = `SURFACE_Y` while its vertices move.
fn pose(time: f32) -> Vec<Affine> {
    let stretch = 1.2 + 0.1 * (2.0 * time).sin();
    vec![
        Affine::new(Mat3::IDENTITY, Vec3::new(0.0, SURFACE_Y, 0.0)),
        Affine::new(
            Mat3::from_diagonal(Vec3::new(stretch, 1.0, 1.0)),
            Vec3::new(0.0, SURFACE_Y, 0.0),
        ),
    ]
}

struct Scene {
    world: PhysicsWorld,
    mesh: ColliderHandle,
    ball: RigidBodyHandle,
    cube: RigidBodyHandle,
    time: f32,
}

impl Scene {
    fn new(with_dispatcher: bool) -> Self {
        let mut world = PhysicsWorld::default();
        if with_dispatcher {
            world.narrow_phase =
                NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
        }
        let shape = DeformableMeshShape::new(grid(16), &pose(0.0)).unwrap();
        let body = world
            .bodies
            .insert(RigidBodyBuilder::kinematic_position_based().build());
        let mesh = world.colliders.insert_with_parent(
            ColliderBuilder::new(SharedShape::new(shape)).build(),
            body,
            &mut world.bodies,
        );
        let ball = world.bodies.insert(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(-0.5, SURFACE_Y + 0.25, 0.3))
                .build(),
        );
        world.colliders.insert_with_parent(
            ColliderBuilder::ball(0.25).build(),
            ball,
            &mut world.bodies,
        );
        let cube = world.bodies.insert(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.7, SURFACE_Y + 0.2, -0.4))
                .build(),
        );
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(0.2, 0.2, 0.2).build(),
            cube,
            &mut world.bodies,
        );
        Self {
            world,
            mesh,
            ball,
            cube,
            time: 0.0,
        }
    }

    /// Re-poses the mesh (O(m), through `shape_mut`) and steps.
    fn step(&mut self) {
        self.time += self.world.integration_parameters.dt;
        let governors = pose(self.time);
        self.world.colliders[self.mesh]
            .shape_mut()
            .as_shape_mut::<DeformableMeshShape>()
            .unwrap()
            .set_governors(&governors)
            .unwrap();
        self.world.step();
    }

    fn positions(&self) -> [Vec3; 2] {
        [self.ball, self.cube].map(|h| self.world.bodies[h].translation())
    }
}

#[test]
fn bodies_rest_on_a_skinned_mesh() {
    let mut scene = Scene::new(true);
    for _ in 0..30 {
        scene.step();
    }
    let settled = scene.positions();
    assert!(
        (settled[0].y - (SURFACE_Y + 0.25)).abs() < 0.01,
        "{settled:?}"
    );
    assert!(
        (settled[1].y - (SURFACE_Y + 0.2)).abs() < 0.01,
        "{settled:?}"
    );
    let steps = (5.0 / scene.world.integration_parameters.dt).round() as usize;
    let mut max_drift = 0.0f32;
    for _ in 0..steps {
        scene.step();
        for (p, q) in scene.positions().iter().zip(&settled) {
            max_drift = max_drift.max((*p - *q).length());
        }
    }
    println!("max drift over 5 s: {max_drift:e} m");
    let shape = scene.world.colliders[scene.mesh]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .unwrap();
    let (refits, nodes) = (shape.refit_stats().node_refits, shape.tree().nodes().len());
    println!("nodes refit in the last step: {refits} of {nodes}");
    // Two small bodies on a 512-triangle mesh: the step refits a minority of the tree.
    assert!(
        refits > 0 && (refits as usize) < nodes / 2,
        "{refits} of {nodes}"
    );
    assert!(max_drift <= 1e-3, "drift {max_drift} m");
    let pair = scene
        .world
        .narrow_phase
        .contact_pair(scene.mesh, scene.world.bodies[scene.cube].colliders()[0])
        .expect("the box touches the mesh");
    assert!(pair.has_any_active_contact());
}

#[test]
fn without_the_dispatcher_the_box_falls_through() {
    let mut scene = Scene::new(false);
    for _ in 0..120 {
        scene.step();
    }
    assert!(scene.positions()[1].y < SURFACE_Y - 0.5);
}

/// Bends the grid along x (second bone rotated about z at x = 0): a ridge under falling balls.
fn bent_pose(time: f32) -> Vec<Affine> {
    let r = Mat3::from_rotation_z(0.3 * (1.5 * time).sin());
    vec![
        Affine::new(Mat3::IDENTITY, Vec3::new(0.0, SURFACE_Y, 0.0)),
        Affine::new(r, Vec3::new(0.0, SURFACE_Y, 0.0)),
    ]
}

/// 64 balls rain on the animated bent grid; returns their final positions and the fraction of
/// tree nodes refit in the last step.
fn rain(threads: usize) -> (Vec<Vec3>, f32) {
    let mut world = PhysicsWorld::default();
    #[cfg(feature = "parallel")]
    world.configure_thread_pool(threads).unwrap();
    let _ = threads;
    world.narrow_phase =
        NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
    let tree = grid(32);
    let nodes = tree.nodes().len();
    let shape = DeformableMeshShape::new(tree, &bent_pose(0.0)).unwrap();
    let body = world
        .bodies
        .insert(RigidBodyBuilder::kinematic_position_based().build());
    let mesh = world.colliders.insert_with_parent(
        ColliderBuilder::new(SharedShape::new(shape)).build(),
        body,
        &mut world.bodies,
    );
    let mut balls = Vec::new();
    for k in 0..64 {
        let (i, j) = (k % 8, k / 8);
        let h = world.bodies.insert(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(
                    -1.5 + 0.42 * i as f32,
                    1.0 + 0.05 * (k % 7) as f32,
                    -1.5 + 0.42 * j as f32,
                ))
                .build(),
        );
        world.colliders.insert_with_parent(
            ColliderBuilder::ball(0.1).build(),
            h,
            &mut world.bodies,
        );
        balls.push(h);
    }
    let mut fraction = 0.0;
    for step in 0..50 {
        let time = step as f32 * world.integration_parameters.dt;
        world.colliders[mesh]
            .shape_mut()
            .as_shape_mut::<DeformableMeshShape>()
            .unwrap()
            .set_governors(&bent_pose(time))
            .unwrap();
        world.step();
        let shape = world.colliders[mesh]
            .shape()
            .as_shape::<DeformableMeshShape>()
            .unwrap();
        fraction = shape.refit_stats().node_refits as f32 / nodes as f32;
    }
    (
        balls
            .iter()
            .map(|h| world.bodies[*h].translation())
            .collect(),
        fraction,
    )
}

#[test]
fn rain_on_a_bending_mesh_is_deterministic() {
    let (a, fraction) = rain(1);
    let (b, _) = rain(2);
    println!("nodes refit in the last step: {:.1} %", 100.0 * fraction);
    assert_eq!(a, b, "results depend on the thread count");
    // Nothing fell through the mesh: balls over its footprint are above its lowest point
    // (y ≥ SURFACE_Y - 2 sin 0.3 ≈ -0.39).
    let over = a.iter().filter(|p| p.x.abs() < 1.9 && p.z.abs() < 1.9);
    assert!(over.clone().count() > 32);
    assert!(over.clone().all(|p| p.y > -0.4), "{a:?}");
    assert!(fraction > 0.0, "{fraction}");
}

#[test]
fn scene_queries_reach_the_deformed_mesh() {
    let mut scene = Scene::new(true);
    scene.step();
    let w = &scene.world;
    let query = w.broad_phase.as_query_pipeline(
        w.narrow_phase.query_dispatcher(),
        &w.bodies,
        &w.colliders,
        QueryFilter::exclude_dynamic(),
    );
    // The stretched surface reaches x = 2 · 1.2 ≈ 2.4 > 2 (outside the rest grid).
    let ray = Ray::new(Vector::new(2.2, 3.0, 1.5), Vector::new(0.0, -1.0, 0.0));
    let (handle, toi) = query
        .cast_ray(&ray, 10.0, true)
        .expect("the ray hits the mesh");
    assert_eq!(handle, scene.mesh);
    assert!((toi - (3.0 - SURFACE_Y)).abs() < 1e-5, "{toi}");
    let ball = Ball::new(0.1);
    let touching = Pose::from_translation(Vector::new(1.5, SURFACE_Y + 0.05, 1.5));
    assert!(
        query
            .intersect_shape(touching, &ball)
            .any(|(h, _)| h == scene.mesh)
    );
    let above = Pose::from_translation(Vector::new(1.5, SURFACE_Y + 0.5, 1.5));
    assert!(
        !query
            .intersect_shape(above, &ball)
            .any(|(h, _)| h == scene.mesh)
    );
    let (handle, hit) = query
        .cast_shape(
            &above,
            Vector::new(0.0, -1.0, 0.0),
            &ball,
            ShapeCastOptions::with_max_time_of_impact(1.0),
        )
        .expect("the ball cast hits the mesh");
    assert_eq!(handle, scene.mesh);
    assert!(
        (hit.time_of_impact - 0.4).abs() < 1e-4,
        "{}",
        hit.time_of_impact
    );
}
