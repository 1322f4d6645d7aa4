//! Contract: posing a `DeformableMeshShape` collider with `pose_deformable_mesh` is O(m) — right after the update no vertex is deformed and no node refit, Rapier's reaction to the `SHAPE` flag (broad-phase box, mass properties, bounding sphere) deforms no vertex and refits no node, the shape is not deep-copied while its `SharedShape` is unique (and the copy is reported when it is not), and a body resting on the mesh makes the step refit a small fraction of the tree; `DeformableMeshSelfCollisions` reports, step after step, exactly the pairs of the brute-force oracle on a tube bent through itself; bad handles give typed errors.

use crate::common;

use std::sync::Arc;

use common::{tube, tube_weights};
use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d::prelude::*;
use rapier3d_deform::DeformError;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::character::{DeformableMeshSelfCollisions, pose_deformable_mesh};
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform::validation::self_collisions_brute_force;

const LENGTH: f32 = 10.0;
const BONES: usize = 10;

/// A bone chain along x: joint k at x = k·length/bones rotates by `angles[k]` about `axis`.
fn bent_pose(angles: &[f32], axis: Vec3) -> Vec<Affine> {
    let mut acc = Affine::IDENTITY;
    (0..BONES)
        .map(|b| {
            let joint = Vec3::new(LENGTH * b as f32 / BONES as f32, 0.0, 0.0);
            let rot = Mat3::from_quat(Quat::from_axis_angle(axis, angles[b]));
            acc = acc.compose(&Affine::new(rot, joint - rot * joint));
            acc
        })
        .collect()
}

/// The tube folding at its middle joints (t in [0, 1]); past t ≈ 0.5 the far half passes
/// through the near half.
fn fold(t: f32) -> Vec<Affine> {
    let mut angles = vec![0.0; BONES];
    angles[4] = 1.4 * t;
    angles[5] = 1.4 * t;
    angles[6] = 0.6 * t;
    bent_pose(&angles, Vec3::new(0.0, 0.3, 1.0).normalize())
}

/// The tube's tree; `lazy_only` puts O(m) data on every internal node and uses small leaves, so
/// that refit counts measure laziness alone, not the build heuristic that trades O(m) data for
/// bottom-up refits of small subtrees.
fn tube_tree(rings: usize, segments: usize, lazy_only: bool) -> Arc<BnTree> {
    let mesh = tube(LENGTH, rings, segments);
    let weights = tube_weights(&mesh, BONES, LENGTH, 4);
    let options = if lazy_only {
        BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: 0.0,
        }
    } else {
        BnTreeOptions::default()
    };
    Arc::new(BnTree::build_with(&mesh, mesh.positions(), &weights, options).unwrap())
}

fn world_with_mesh(tree: Arc<BnTree>) -> (PhysicsWorld, ColliderHandle) {
    let mut world = PhysicsWorld {
        narrow_phase: NarrowPhase::with_query_dispatcher(
            DeformDispatcher.chain(DefaultQueryDispatcher),
        ),
        ..Default::default()
    };
    let shape = DeformableMeshShape::new(tree, &fold(0.0)).unwrap();
    let body = world
        .bodies
        .insert(RigidBodyBuilder::kinematic_position_based().build());
    let mesh = world.colliders.insert_with_parent(
        ColliderBuilder::new(SharedShape::new(shape)).build(),
        body,
        &mut world.bodies,
    );
    (world, mesh)
}

fn mesh_shape(world: &PhysicsWorld, h: ColliderHandle) -> &DeformableMeshShape {
    world.colliders[h]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .unwrap()
}

#[test]
fn a_pose_update_is_o_m_and_the_shape_flag_recomputes_nothing_o_n() {
    let tree = tube_tree(160, 32, true);
    let (nodes, vertices) = (tree.nodes().len(), tree.rest_positions().len());
    let (mut world, mesh) = world_with_mesh(tree);
    let shape_ptr =
        |w: &PhysicsWorld| Arc::as_ptr(&w.colliders[mesh].shared_shape().0) as *const u8;
    let before = shape_ptr(&world);
    // Nothing near the mesh: the step handles the SHAPE flag (mass, bounding sphere,
    // broad-phase box) and must not touch a vertex or a node.
    for step in 0..5 {
        let update =
            pose_deformable_mesh(&mut world.colliders, mesh, &fold(0.02 * step as f32)).unwrap();
        assert!(!update.deep_copied);
        let stats = mesh_shape(&world, mesh).refit_stats();
        assert_eq!((stats.node_refits, stats.vertices_deformed), (0, 0));
        world.step();
        let stats = mesh_shape(&world, mesh).refit_stats();
        assert_eq!(
            (stats.node_refits, stats.vertices_deformed),
            (0, 0),
            "Rapier's SHAPE handling refit the tree (step {step})"
        );
    }
    assert_eq!(shape_ptr(&world), before, "the shape was copied");
    // The broad-phase box follows the pose (the flag's purpose): the root box of the new pose.
    let root = mesh_shape(&world, mesh).compute_local_aabb();
    let deformed = mesh_shape(&world, mesh).deformed_vertices();
    assert!(deformed.iter().all(|p| root.contains_local_point(*p)));

    // A ball resting on the tube's near end: each step refits a small part of the tree.
    let ball = world.bodies.insert(
        RigidBodyBuilder::dynamic()
            .translation(Vector::new(1.0, 1.3, 0.0))
            .build(),
    );
    world
        .colliders
        .insert_with_parent(ColliderBuilder::ball(0.3).build(), ball, &mut world.bodies);
    let (mut max_nodes, mut max_vertices) = (0u64, 0u64);
    for step in 0..60 {
        pose_deformable_mesh(&mut world.colliders, mesh, &fold(0.1 + 0.001 * step as f32)).unwrap();
        world.step();
        let stats = mesh_shape(&world, mesh).refit_stats();
        max_nodes = max_nodes.max(stats.node_refits);
        max_vertices = max_vertices.max(stats.vertices_deformed);
    }
    println!(
        "per step at most {max_nodes} of {nodes} nodes, {max_vertices} of {vertices} vertices"
    );
    assert!(max_nodes > 0 && (max_nodes as usize) < nodes / 10);
    assert!(max_vertices > 0 && (max_vertices as usize) < vertices / 10);
    let y = world.bodies[ball].translation().y;
    assert!(
        (y - 1.3).abs() < 0.05,
        "the ball fell through or bounced: y = {y}"
    );

    // A shared SharedShape makes Rapier copy the shape: reported, and the copy is posed.
    let extra = world.colliders[mesh].shared_shape().clone();
    let update = pose_deformable_mesh(&mut world.colliders, mesh, &fold(0.3)).unwrap();
    assert!(update.deep_copied);
    assert_ne!(shape_ptr(&world), Arc::as_ptr(&extra.0) as *const u8);
    assert_eq!(mesh_shape(&world, mesh).governors(), &fold(0.3)[..]);
}

#[test]
fn self_collisions_equal_the_brute_force_oracle_every_step() {
    let tree = tube_tree(40, 16, false);
    let (mut world, mesh) = world_with_mesh(tree.clone());
    let mut self_collisions = DeformableMeshSelfCollisions::default();
    self_collisions.insert(&world.colliders, mesh).unwrap();
    self_collisions.insert(&world.colliders, mesh).unwrap();
    assert_eq!(self_collisions.len(), 1);
    let mut total = 0;
    for step in 0..24 {
        pose_deformable_mesh(&mut world.colliders, mesh, &fold(step as f32 / 23.0)).unwrap();
        world.step();
        self_collisions.update(&world.colliders).unwrap();
        let positions = mesh_shape(&world, mesh).deformed_vertices();
        let expected = self_collisions_brute_force(tree.mesh(), &positions).unwrap();
        assert_eq!(
            self_collisions.pairs(mesh).unwrap(),
            &expected[..],
            "step {step}"
        );
        assert_eq!(
            self_collisions.stats(mesh).unwrap().pairs as usize,
            expected.len()
        );
        total += expected.len();
    }
    assert!(
        total > 200,
        "the tube must pass through itself ({total} pairs)"
    );
}

#[test]
fn bad_handles_and_shapes_are_typed_errors() {
    let (mut world, mesh) = world_with_mesh(tube_tree(8, 8, false));
    let ball = world.colliders.insert(ColliderBuilder::ball(1.0).build());
    let mut self_collisions = DeformableMeshSelfCollisions::default();
    assert!(matches!(
        self_collisions.insert(&world.colliders, ball),
        Err(DeformError::InvalidParameter { .. })
    ));
    assert!(matches!(
        pose_deformable_mesh(&mut world.colliders, ball, &fold(0.0)),
        Err(DeformError::InvalidParameter { .. })
    ));
    assert!(matches!(
        pose_deformable_mesh(&mut world.colliders, mesh, &fold(0.0)[..3]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut nan = fold(0.0);
    nan[2].translation.y = f32::NAN;
    assert!(pose_deformable_mesh(&mut world.colliders, mesh, &nan).is_err());
    assert_eq!(mesh_shape(&world, mesh).governors(), &fold(0.0)[..]);
    self_collisions.insert(&world.colliders, mesh).unwrap();
    assert!(matches!(
        self_collisions.pairs(ball),
        Err(DeformError::UnknownHandle { .. })
    ));
    world.colliders.remove(
        mesh,
        &mut world.islands,
        &mut world.bodies,
        &mut world.soft_bodies,
        false,
    );
    assert!(matches!(
        self_collisions.update(&world.colliders),
        Err(DeformError::UnknownHandle { .. })
    ));
    assert!(matches!(
        pose_deformable_mesh(&mut world.colliders, mesh, &fold(0.0)),
        Err(DeformError::UnknownHandle { .. })
    ));
    assert!(self_collisions.remove(mesh));
    assert!(self_collisions.is_empty());
    self_collisions.update(&world.colliders).unwrap();
}
