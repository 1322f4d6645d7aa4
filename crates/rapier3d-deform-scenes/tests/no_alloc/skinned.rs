//! Contract: posing a glTF-rigged `SkinnedCollider` from a clip (`pose_clip`: the skeleton's world transforms into reusable buffers, then the O(bones) pose) and its self-collision query (`find_self_collisions`) allocate nothing once every frame has been visited once; `Skeleton::world_transforms_into` equals `Skeleton::world_transforms` bit for bit.

use crate::counting_alloc;

use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::CullingMode;
use rapier3d_deform::io::{LoadOptions, SkeletonScratch, load_gltf};
use rapier3d_deform::prelude::{ClipTime, DeformDispatcher, SkinnedColliderBuilder};
use rapier3d_deform_scenes::asset_path;

#[test]
fn clip_posing_and_self_collision_queries_do_not_allocate_after_warm_up() {
    let (asset, _) = load_gltf(asset_path("skinned/Fox.glb"), &LoadOptions::default()).unwrap();
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    let mut fox = SkinnedColliderBuilder::from_gltf(&asset)
        .unwrap()
        .scale(0.01)
        .self_collisions(CullingMode::Conservative)
        .build(&mut world)
        .unwrap();
    let frames: Vec<(usize, f32)> = (0..asset.clips.len())
        .flat_map(|c| {
            let duration = asset.clips[c].duration();
            (0..10).map(move |k| (c, duration * k as f32 / 9.0))
        })
        .collect();
    let mut pairs = 0;
    // Pass 0 warms up (buffers grow to the largest frame); pass 1 must not allocate.
    for pass in 0..2 {
        for &(clip, t) in &frames {
            let before = counting_alloc::allocations();
            fox.pose_clip(&mut world.colliders, clip, t, ClipTime::Clamp)
                .unwrap();
            pairs += fox.find_self_collisions().unwrap().len();
            let allocated = counting_alloc::allocations() - before;
            if pass == 1 {
                assert_eq!(allocated, 0, "clip {clip} t {t}: {allocated} allocations");
            }
        }
    }
    println!(
        "{} frames, {pairs} self-collision pairs over both passes",
        frames.len()
    );
}

#[test]
fn world_transforms_into_equals_world_transforms() {
    let (asset, _) = load_gltf(asset_path("skinned/Fox.glb"), &LoadOptions::default()).unwrap();
    let mut scratch = SkeletonScratch::default();
    let mut out = Vec::new();
    let mut compared = 0;
    for clip in &asset.clips {
        for k in 0..7 {
            let t = clip.duration() * (k as f32 / 6.0) * 1.1 - 0.05;
            asset
                .skeleton
                .world_transforms_into(clip, t, &mut scratch, &mut out);
            let expected = asset.skeleton.world_transforms(clip, t);
            assert_eq!(out.len(), expected.len());
            for (a, b) in out.iter().zip(&expected) {
                assert_eq!(
                    (a.linear.to_cols_array(), a.translation.to_array()),
                    (b.linear.to_cols_array(), b.translation.to_array()),
                    "t {t}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 0);
}
