//! Contract: posing a glTF-rigged `SkinnedCollider` from a clip (`pose_clip`: the skeleton's world transforms into reusable buffers, then the O(bones) pose; with morph targets too; many characters at once with `pose_clips`) and its self-collision query (`find_self_collisions`) allocate nothing once every frame has been visited once; in a Rapier step under falling balls, the skinned route (posing, the surface-velocity hooks, the crate's contact queries on pairs already in contact) allocates nothing; `Skeleton::world_transforms_into` equals `Skeleton::world_transforms` bit for bit.

use crate::counted_dispatcher::{self, Counted};
use crate::counting_alloc;

use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::CullingMode;
use rapier3d_deform::io::{LoadOptions, SkeletonScratch, load_gltf, load_gltf_scene};
use rapier3d_deform::prelude::{
    ClipPose, ClipTime, DeformDispatcher, SkinnedCollider, SkinnedColliderBuilder,
};
use rapier3d_deform_scenes::asset_path;
use rapier3d_deform_scenes::characters::CharacterScene;

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
fn morph_clip_posing_and_posing_many_characters_do_not_allocate_after_warm_up() {
    let (sphere, _) = load_gltf_scene(
        asset_path("morph/AnimatedMorphSphere/AnimatedMorphSphere.gltf"),
        &LoadOptions::default(),
    )
    .unwrap();
    let (fox, _) = load_gltf_scene(asset_path("skinned/Fox.glb"), &LoadOptions::default()).unwrap();
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    let mut characters: Vec<SkinnedCollider> = [&sphere, &fox, &fox, &sphere]
        .iter()
        .map(|s| {
            SkinnedColliderBuilder::from_scene(s)
                .unwrap()
                .build(&mut world)
                .unwrap()
        })
        .collect();
    assert!(characters[0].morph_targets().is_some(), "the sphere morphs");
    // Every clip of each character, sampled at 10 times.
    let clips: Vec<usize> = characters.iter().map(|c| c.clip_names().count()).collect();
    let frames: Vec<(usize, f32)> = (0..3)
        .flat_map(|c| (0..10).map(move |k| (c, 0.11 * k as f32)))
        .collect();
    // Counted on the calling thread: with `parallel`, the staging on rayon's workers is not seen
    // (the serial build runs everything here).
    for pass in 0..2 {
        for &(c, t) in &frames {
            let before = counting_alloc::allocations();
            characters[0]
                .pose_clip(&mut world.colliders, c % clips[0], t, ClipTime::Loop)
                .unwrap();
            SkinnedCollider::pose_clips(&mut characters, &mut world.colliders, |i| ClipPose {
                clip: (c + i) % clips[i],
                t: t + 0.2 * i as f32,
                time: ClipTime::Loop,
            })
            .unwrap();
            let allocated = counting_alloc::allocations() - before;
            if pass == 1 {
                assert_eq!(allocated, 0, "clip {c} t {t}: {allocated} allocations");
            }
        }
    }
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

#[test]
fn skinned_steps_allocate_only_to_grow_manifold_lists() {
    counted_dispatcher::on_one_thread(|| {
        // The `skinned_character` scene: the Fox (swept contacts, self-collisions) and Kenney's
        // figure walk through 240 falling balls; every step poses both from their clips, updates
        // the surface-velocity hooks, steps Rapier with them and runs the Fox's self-collision query.
        let mut scene = CharacterScene::build(4.0).unwrap();
        scene.world.narrow_phase =
            NarrowPhase::with_query_dispatcher(Counted.chain(DefaultQueryDispatcher));
        let (mut posing, mut self_query, mut beyond_rapier) = (0, 0, 0);
        let (mut beyond_growth, mut growth) = (0, 0);
        let (mut pushed, mut handled_before, mut warm_up_done) = (0, 0, None);
        for step in 0..240 {
            counted_dispatcher::reset();
            // Rapier's API allocates here (the first body modified in a step regrows its
            // modified-bodies list, which the step takes): not counted.
            scene.move_bodies();
            let before = counting_alloc::allocations();
            scene.pose().unwrap();
            let pose = counting_alloc::allocations() - before;
            scene.world.step_with_events(&scene.hooks, &());
            scene.steps += 1;
            let before = counting_alloc::allocations();
            let applied = scene.hooks.apply_normal_velocities(&mut scene.world);
            let apply = counting_alloc::allocations() - before;
            let before = counting_alloc::allocations();
            scene.fox.find_self_collisions().unwrap();
            let query = counting_alloc::allocations() - before;
            // Warm-up: a second of walking (the hooks' and queries' buffers grow to the largest
            // frame, the first balls land), and until both characters have touched a ball (a
            // shape's first contact builds its edge adjacency, once).
            let touched = |c: ColliderHandle| {
                scene
                    .world
                    .narrow_phase
                    .contact_pairs_with(c)
                    .any(|p| p.has_any_active_contact())
            };
            if warm_up_done.is_none()
                && step >= 60
                && touched(scene.fox.collider())
                && touched(scene.figure.collider())
            {
                warm_up_done = Some(step);
                handled_before = counted_dispatcher::handled();
                continue;
            }
            if warm_up_done.is_some() {
                posing += pose;
                self_query += query;
                beyond_rapier += apply.saturating_sub(rapier_list_allocations(applied));
                beyond_growth += counted_dispatcher::allocations_beyond_growth();
                growth += counted_dispatcher::allocations()
                    - counted_dispatcher::allocations_beyond_growth();
                pushed += applied;
            }
        }
        let warm_up_done = warm_up_done.expect("a character never touched a ball");
        assert!(
            warm_up_done < 180,
            "warm-up lasted {warm_up_done} of 240 steps"
        );
        let handled = counted_dispatcher::handled() - handled_before;
        assert!(
            handled > 1000,
            "only {handled} pairs went through the crate's dispatcher"
        );
        assert!(pushed > 0, "no ball was pushed by a moving surface");
        assert_eq!(
            posing, 0,
            "posing and the hooks' update allocated {posing} times"
        );
        assert_eq!(
            beyond_rapier, 0,
            "giving normal velocities allocated {beyond_rapier} times beyond Rapier's modified-bodies list"
        );
        assert_eq!(
            self_query, 0,
            "the self-collision query allocated {self_query} times"
        );
        assert_eq!(
            beyond_growth, 0,
            "the crate's contact queries allocated {beyond_growth} times beyond growing manifold lists ({growth} growth allocations)"
        );
        println!(
            "{handled} dispatcher calls from step {warm_up_done}, {pushed} pushes, {growth} growth allocations"
        );
    });
}

/// The most allocations Rapier's API can make when a step's first `bodies` impulses each modify
/// a different body: its modified-bodies list (taken by every step) is allocated on the first
/// and doubles from 4 entries.
fn rapier_list_allocations(bodies: usize) -> usize {
    match bodies {
        0 => 0,
        n => 1 + n.div_ceil(4).next_power_of_two().trailing_zeros() as usize,
    }
}
