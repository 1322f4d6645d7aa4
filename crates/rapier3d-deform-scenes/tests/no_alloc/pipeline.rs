//! Contract: after a warm-up step, posing a mesh collider (`pose_deformable_mesh`), running every mesh's self-collision query (`DeformableMeshSelfCollisions::update`) and the local check of a weight change (`DeformableMeshShape::new_self_collisions`) allocate nothing (counted by a global allocator).

use crate::common;
use crate::counting_alloc;

use std::sync::Arc;

use common::*;
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::BnTree;
use rapier3d_deform::character::{DeformableMeshSelfCollisions, pose_deformable_mesh};
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::shape::{DeformableMeshShape, SelfCheckScratch};

#[test]
fn per_step_mesh_work_does_not_allocate_after_warm_up() {
    let mut r = rng(5);
    let (length, bones) = (8.0, 8);
    let mesh = tube(length, 30, 12);
    let weights = tube_weights(&mesh, bones, length, 4);
    let tree = Arc::new(BnTree::build(&mesh, mesh.positions(), &weights).unwrap());
    let poses: Vec<Vec<Affine>> = (0..8)
        .map(|_| {
            (0..bones)
                .map(|_| random_governor(&mut r, 0.2, 0.5))
                .collect()
        })
        .collect();
    let mut colliders = ColliderSet::new();
    let shape = DeformableMeshShape::new(tree.clone(), &poses[0]).unwrap();
    let h = colliders.insert(ColliderBuilder::new(SharedShape::new(shape)).build());
    let mut self_collisions = DeformableMeshSelfCollisions::default();
    self_collisions.insert(&colliders, h).unwrap();
    let mut scratch = SelfCheckScratch::default();
    let mut found = Vec::new();
    let mut total_pairs = 0;
    // Pass 0 warms up (capacities grow to the largest pose); pass 1 must not allocate.
    for pass in 0..2 {
        for (k, pose) in poses.iter().enumerate() {
            let before = counting_alloc::allocations();
            pose_deformable_mesh(&mut colliders, h, pose).unwrap();
            self_collisions.update(&colliders).unwrap();
            let shape = colliders[h]
                .shape()
                .as_shape::<DeformableMeshShape>()
                .unwrap();
            // Pretend a few vertices moved from elsewhere: the local check runs on them.
            let moved = [
                (5u32, Vec3::new(0.1, 0.2, 0.3)),
                (40, Vec3::ZERO),
                (77, Vec3::ONE),
            ];
            shape.new_self_collisions(&moved, &mut scratch, &mut found);
            let allocated = counting_alloc::allocations() - before;
            total_pairs += self_collisions.pairs(h).unwrap().len();
            if pass == 1 {
                assert_eq!(allocated, 0, "pose {k} allocated {allocated} times");
            }
        }
    }
    println!("{total_pairs} self-collision pairs over the poses");
}
