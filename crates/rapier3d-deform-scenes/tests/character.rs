//! The skinned route a game calls: `SkinnedCollider` built from a glTF skin or a whole glTF scene (`character/scene.rs`), surface velocities of posed meshes in contacts (`character/surface_velocity.rs`), posed from clips and from bones, checked against an independent per-vertex skinning, parry's `TriMesh` on the same posed vertices, the brute-force self-collision oracle, and its typed errors.

#[path = "character/scene.rs"]
mod scene;
#[path = "character/surface_velocity.rs"]
mod surface_velocity;

use std::sync::Arc;

use crate::io::{gltf_reference, io_support};
use rapier3d_deform::DeformError;
use rapier3d_deform::io::GltfAsset;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::*;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::asset_path;

use rapier3d::parry::query::{Ray, RayCast};
use rapier3d::parry::shape::TriMesh;

fn fox() -> GltfAsset {
    load_gltf(asset_path("skinned/Fox.glb"), &LoadOptions::default())
        .expect("the Fox loads")
        .0
}

fn world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    world
}

/// The Fox as a collider in `world`, built with `configure` applied to the builder.
fn fox_collider(
    asset: &GltfAsset,
    world: &mut PhysicsWorld,
    configure: impl FnOnce(SkinnedColliderBuilder) -> SkinnedColliderBuilder,
) -> SkinnedCollider {
    configure(SkinnedColliderBuilder::from_gltf(asset).unwrap())
        .build(world)
        .unwrap()
}

fn shape(world: &PhysicsWorld, c: &SkinnedCollider) -> DeformableMeshShape {
    world.colliders[c.collider()]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .expect("a deformable mesh")
        .clone()
}

/// glTF skinning written out per vertex, in f64: Σ_j w_j (world_j · inverse_bind_j) p, then the
/// uniform scale.
fn reference_positions(asset: &GltfAsset, bones: &[Affine], scale: f64) -> Vec<Vec3> {
    let skin = asset.skinning.as_ref().expect("skinned");
    let weights = skin.weights();
    skin.rest_positions()
        .iter()
        .enumerate()
        .map(|(v, p)| {
            let p = p.as_dvec3();
            let mut acc = rapier3d::parry::glamx::DVec3::ZERO;
            for (j, w) in weights.iter_row(v) {
                let g = bones[j as usize].compose(&skin.inverse_bind()[j as usize]);
                let q = g.linear.as_dmat3() * p + g.translation.as_dvec3();
                acc += q * f64::from(w);
            }
            (acc * scale).as_vec3()
        })
        .collect()
}

#[test]
fn clip_pose_equals_per_vertex_skinning_on_every_sampled_frame() {
    let asset = fox();
    let mut world = world();
    let mut fox = fox_collider(&asset, &mut world, |b| b.scale(0.01));
    let mut checked = 0;
    for clip in &asset.clips {
        let name = clip.name().unwrap();
        for k in 0..12 {
            let t = clip.duration() * k as f32 / 11.0;
            fox.pose_clip(
                &mut world.colliders,
                asset
                    .clips
                    .iter()
                    .position(|c| c.name() == Some(name))
                    .unwrap(),
                t,
                ClipTime::Clamp,
            )
            .unwrap();
            let expected =
                reference_positions(&asset, &asset.skeleton.world_transforms(clip, t), 0.01);
            let mesh = shape(&world, &fox);
            let mut posed = Vec::new();
            fox.deformed_positions(&mut posed);
            for (v, e) in expected.iter().enumerate() {
                let got = mesh.vertex(v as u32);
                let tol = 1e-5 * (1.0 + e.length());
                assert!(
                    (got - *e).length() <= tol && (posed[v] - *e).length() <= tol,
                    "clip {name} t {t} vertex {v}: {got:?} vs {e:?}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 12 * asset.clips.len());
}

#[test]
fn pose_clips_equals_pose_clip_per_character_and_reports_the_first_rejected_one() {
    let asset = fox();
    let clips = asset.clips.len();
    let (mut many_world, mut one_world) = (world(), world());
    let mut many: Vec<SkinnedCollider> = (0..5)
        .map(|_| fox_collider(&asset, &mut many_world, |b| b.scale(0.01)))
        .collect();
    let mut one: Vec<SkinnedCollider> = (0..5)
        .map(|_| fox_collider(&asset, &mut one_world, |b| b.scale(0.01)))
        .collect();
    let request = |step: usize, i: usize| ClipPose {
        clip: (i + step) % clips,
        t: 0.37 * i as f32 + 0.05 * step as f32,
        time: if i.is_multiple_of(2) {
            ClipTime::Loop
        } else {
            ClipTime::Clamp
        },
    };
    let vertices = |w: &PhysicsWorld, cs: &[SkinnedCollider]| -> Vec<Vec<Vec3>> {
        cs.iter().map(|c| shape(w, c).deformed_vertices()).collect()
    };
    for step in 0..4 {
        SkinnedCollider::pose_clips(&mut many, &mut many_world.colliders, |i| request(step, i))
            .unwrap();
        for (i, c) in one.iter_mut().enumerate() {
            let r = request(step, i);
            c.pose_clip(&mut one_world.colliders, r.clip, r.t, r.time)
                .unwrap();
        }
        assert_eq!(
            vertices(&many_world, &many),
            vertices(&one_world, &one),
            "step {step}"
        );
    }
    // Characters 1 (no such clip) and 3 (a non-finite time) are rejected: the first one's error
    // comes back, both keep their pose, the others are posed.
    let before = vertices(&many_world, &many);
    let bad = |i: usize| match i {
        1 => ClipPose {
            clip: clips,
            ..request(9, i)
        },
        3 => ClipPose {
            t: f32::NAN,
            ..request(9, i)
        },
        _ => request(9, i),
    };
    let err = SkinnedCollider::pose_clips(&mut many, &mut many_world.colliders, bad).unwrap_err();
    assert!(
        matches!(err, DeformError::IndexOutOfRange { what: "clip", index, len } if index == clips && len == clips),
        "{err:?}"
    );
    let after = vertices(&many_world, &many);
    for i in 0..5 {
        if i == 1 || i == 3 {
            assert_eq!(after[i], before[i], "character {i} kept its pose");
        } else {
            let r = request(9, i);
            one[i]
                .pose_clip(&mut one_world.colliders, r.clip, r.t, r.time)
                .unwrap();
            assert_eq!(
                after[i],
                shape(&one_world, &one[i]).deformed_vertices(),
                "character {i}"
            );
        }
    }
}

#[test]
fn instances_share_the_tree_and_pose_bit_for_bit_like_built_characters() {
    let asset = fox();
    let clips = asset.clips.len();
    let (mut shared_world, mut built_world) = (world(), world());
    let settings = |b: SkinnedColliderBuilder| {
        b.scale(0.01)
            .collider(ColliderBuilder::ball(1.0).friction(0.25).restitution(0.4))
    };
    let source = fox_collider(&asset, &mut shared_world, settings);
    let mut shared = vec![source];
    for i in 1..4 {
        let body = RigidBodyBuilder::kinematic_position_based().translation(Vec3::new(
            2.0 * i as f32,
            0.0,
            0.0,
        ));
        let w = &mut shared_world;
        let c = shared[0]
            .instantiate(&mut w.bodies, &mut w.colliders, body)
            .unwrap();
        shared.push(c);
    }
    let mut built: Vec<SkinnedCollider> = (0..4)
        .map(|_| fox_collider(&asset, &mut built_world, settings))
        .collect();
    for c in &shared[1..] {
        assert!(Arc::ptr_eq(c.tree(), shared[0].tree()), "one tree");
        assert_ne!(c.collider(), shared[0].collider());
        assert_ne!(c.body(), shared[0].body());
        let co = &shared_world.colliders[c.collider()];
        assert_eq!(co.parent(), Some(c.body()));
        assert_eq!((co.friction(), co.restitution()), (0.25, 0.4));
        assert_eq!(
            co.mass_properties(),
            shared_world.colliders[shared[0].collider()].mass_properties()
        );
    }
    // Vertices, every node box and the root box, bit for bit.
    let bits = |w: &PhysicsWorld, c: &SkinnedCollider| -> Vec<u32> {
        let co = &w.colliders[c.collider()];
        let s = co.shape().as_shape::<DeformableMeshShape>().unwrap();
        let mut out: Vec<u32> = s
            .deformed_vertices()
            .iter()
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect();
        let boxes = (0..s.tree().nodes().len() as u32)
            .map(|i| s.node_aabb(i))
            .chain([co.shape().compute_local_aabb()]);
        for b in boxes {
            out.extend(
                b.mins
                    .to_array()
                    .into_iter()
                    .chain(b.maxs.to_array())
                    .map(f32::to_bits),
            );
        }
        out
    };
    let request = |step: usize, i: usize| ClipPose {
        clip: (i + step) % clips,
        t: 0.29 * i as f32 + 0.07 * step as f32,
        time: ClipTime::Loop,
    };
    for step in 0..4 {
        SkinnedCollider::pose_clips(&mut shared, &mut shared_world.colliders, |i| {
            request(step, i)
        })
        .unwrap();
        SkinnedCollider::pose_clips(&mut built, &mut built_world.colliders, |i| request(step, i))
            .unwrap();
        for i in 0..4 {
            assert_eq!(
                bits(&shared_world, &shared[i]),
                bits(&built_world, &built[i]),
                "step {step}, character {i}"
            );
        }
    }
    // Posing one instance leaves the others (and the source) as they were.
    let before: Vec<Vec<u32>> = shared.iter().map(|c| bits(&shared_world, c)).collect();
    shared[2]
        .pose_clip(&mut shared_world.colliders, 0, 0.61, ClipTime::Loop)
        .unwrap();
    for (i, c) in shared.iter().enumerate() {
        let now = bits(&shared_world, c);
        assert_eq!(now == before[i], i != 2, "character {i}");
    }
    // A character whose collider is gone has nothing to instantiate.
    let gone = shared.pop().unwrap();
    let w = &mut shared_world;
    w.colliders.remove(
        gone.collider(),
        &mut w.islands,
        &mut w.bodies,
        &mut w.soft_bodies,
        true,
    );
    let err = gone
        .instantiate(
            &mut w.bodies,
            &mut w.colliders,
            RigidBodyBuilder::kinematic_position_based(),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            DeformError::UnknownHandle {
                what: "collider",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn play_loops_and_pose_bones_matches_play() {
    let asset = fox();
    let mut world = world();
    let mut a = fox_collider(&asset, &mut world, |b| b);
    let walk = asset.clip("Walk").unwrap();
    let d = walk.duration();
    a.play(&mut world.colliders, "Walk", 0.3).unwrap();
    let first = shape(&world, &a).deformed_vertices();
    a.play(&mut world.colliders, "Walk", 0.3 + 2.0 * d).unwrap();
    let looped = shape(&world, &a).deformed_vertices();
    for (p, q) in first.iter().zip(&looped) {
        assert!(
            (*p - *q).length() < 1e-3 * (1.0 + p.length()),
            "{p:?} vs {q:?}"
        );
    }
    a.pose_bones(
        &mut world.colliders,
        &asset.skeleton.world_transforms(walk, 0.3),
    )
    .unwrap();
    assert_eq!(shape(&world, &a).deformed_vertices(), first);
    a.pose_rest(&mut world.colliders).unwrap();
    let rest = reference_positions(&asset, &asset.skeleton.rest_world_transforms(), 1.0);
    for (p, q) in shape(&world, &a).deformed_vertices().iter().zip(&rest) {
        assert!((*p - *q).length() <= 1e-5 * (1.0 + q.length()));
    }
}

#[test]
fn ray_casts_equal_parry_trimesh_of_the_posed_vertices() {
    let asset = fox();
    let mut world = world();
    let mut fox = fox_collider(&asset, &mut world, |b| b.scale(0.01));
    let mut hits = 0;
    for k in 0..6 {
        fox.play(&mut world.colliders, "Run", k as f32 * 0.1)
            .unwrap();
        let mesh = shape(&world, &fox);
        let vertices = mesh.deformed_vertices();
        let trimesh = TriMesh::new(vertices.clone(), asset.mesh.triangles().to_vec()).unwrap();
        for i in 0..40 {
            for j in 0..40 {
                let origin = Vec3::new(-0.5 + i as f32 / 39.0, 0.1 + 0.7 * j as f32 / 39.0, 2.0);
                let ray = Ray::new(origin, Vec3::new(0.05, -0.02, -1.0).normalize());
                let a = mesh.cast_local_ray(&ray, 10.0, true);
                let b = trimesh.cast_local_ray(&ray, 10.0, true);
                match (a, b) {
                    (Some(a), Some(b)) => {
                        assert!((a - b).abs() < 1e-4, "ray {i},{j}: {a} vs {b}");
                        hits += 1;
                    }
                    (None, None) => {}
                    other => panic!("ray {i},{j} frame {k}: {other:?}"),
                }
            }
        }
    }
    assert!(hits > 500, "the rays should hit the Fox: {hits}");
}

#[test]
fn self_collisions_equal_brute_force_over_a_clip() {
    let asset = fox();
    let mut world = world();
    let mut fox = fox_collider(&asset, &mut world, |b| {
        b.scale(0.01).self_collisions(CullingMode::Conservative)
    });
    let mut total = 0;
    for k in 0..30 {
        fox.play(&mut world.colliders, "Run", k as f32 / 30.0)
            .unwrap();
        let found = fox.find_self_collisions().unwrap().to_vec();
        let positions = shape(&world, &fox).deformed_vertices();
        let expected = self_collisions_brute_force(&asset.mesh, &positions).unwrap();
        assert_eq!(found, expected, "frame {k}");
        assert_eq!(fox.last_self_collisions(), expected.as_slice());
        total += expected.len();
    }
    assert!(total > 0, "the running Fox self-collides somewhere");
}

#[test]
fn balls_land_on_the_walking_fox_and_stay_above_ground() {
    let asset = fox();
    let mut world = world();
    world.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(5.0, 0.1, 5.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );
    let mut fox = fox_collider(&asset, &mut world, |b| b.scale(0.01));
    let balls: Vec<_> = (0..8)
        .map(|k| {
            world.insert(
                RigidBodyBuilder::dynamic().translation(Vector::new(
                    0.0,
                    1.0 + 0.1 * k as f32,
                    -0.4 + 0.1 * k as f32,
                )),
                ColliderBuilder::ball(0.05),
            )
        })
        .collect();
    let mut touched = vec![false; balls.len()];
    for step in 0..120 {
        fox.play(&mut world.colliders, "Walk", step as f32 / 60.0)
            .unwrap();
        world.step();
        for pair in world.narrow_phase.contact_pairs_with(fox.collider()) {
            if pair.has_any_active_contact() {
                for (k, &(_, c)) in balls.iter().enumerate() {
                    touched[k] |= pair.collider1 == c || pair.collider2 == c;
                }
            }
        }
    }
    assert!(touched.iter().filter(|&&t| t).count() >= 4, "{touched:?}");
    for &(b, _) in &balls {
        let p = world.bodies[b].translation();
        assert!(p.is_finite() && p.y > 0.0, "ball at {p:?}");
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let asset = fox();
    let mut world = world();
    let mut fox = fox_collider(&asset, &mut world, |b| b);
    assert!(matches!(
        fox.play(&mut world.colliders, "Dance", 0.0),
        Err(DeformError::UnknownName { what: "clip", .. })
    ));
    assert!(matches!(
        fox.pose_clip(&mut world.colliders, 3, 0.0, ClipTime::Loop),
        Err(DeformError::IndexOutOfRange {
            what: "clip",
            index: 3,
            len: 3
        })
    ));
    assert!(matches!(
        fox.pose_clip(&mut world.colliders, 0, f32::NAN, ClipTime::Loop),
        Err(DeformError::InvalidParameter { .. })
    ));
    assert!(matches!(
        fox.pose_bones(&mut world.colliders, &[Affine::IDENTITY; 3]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut bones = asset.skeleton.rest_world_transforms();
    bones[5].translation.x = f32::INFINITY;
    let before = shape(&world, &fox).deformed_vertices();
    assert!(matches!(
        fox.pose_bones(&mut world.colliders, &bones),
        Err(DeformError::NonFiniteTransform { governor: 5 })
    ));
    assert_eq!(
        shape(&world, &fox).deformed_vertices(),
        before,
        "nothing changes on error"
    );
    assert!(matches!(
        fox.find_self_collisions(),
        Err(DeformError::NotAvailable { .. })
    ));
    assert!(matches!(
        SkinnedColliderBuilder::from_gltf(&asset)
            .unwrap()
            .density(-1.0),
        Err(DeformError::InvalidParameter {
            name: "density",
            ..
        })
    ));
    for scale in [0.0, -1.0, f32::NAN] {
        assert!(matches!(
            SkinnedColliderBuilder::from_gltf(&asset)
                .unwrap()
                .scale(scale)
                .build(&mut world),
            Err(DeformError::InvalidParameter { .. })
        ));
    }
    let gone = world.insert_body(RigidBodyBuilder::fixed());
    world.remove_body(gone);
    assert!(matches!(
        SkinnedColliderBuilder::from_gltf(&asset)
            .unwrap()
            .attach_to(gone)
            .build(&mut world),
        Err(DeformError::UnknownHandle { .. })
    ));
    let (unskinned, _) = load_gltf(
        asset_path("morph/SimpleMorph/SimpleMorph.gltf"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(matches!(
        SkinnedColliderBuilder::from_gltf(&unskinned),
        Err(DeformError::NotAvailable { .. })
    ));
}

/// Two boxes of one mesh that overlap in the bind pose, one per bone: their crossing pairs are the
/// collider's rest contacts; with `ignore_rest_contacts` they are left out of the results while
/// pairs the motion creates are still reported (equal to brute force minus the rest pairs).
#[test]
fn rest_contacts_are_listed_and_can_be_ignored() {
    use rapier3d_deform::governor::ConvexWeights;
    use rapier3d_deform_scenes::primitives::box_arrays;
    let (mut positions, mut triangles) = box_arrays(Vec3::splat(-1.0), Vec3::ONE);
    let (p2, t2) = box_arrays(Vec3::new(0.5, -0.5, -0.5), Vec3::new(2.5, 0.5, 0.5));
    let offset = positions.len() as u32;
    positions.extend(p2);
    triangles.extend(t2.iter().map(|t| t.map(|v| v + offset)));
    let mesh = TriangleMesh::new(positions.clone(), triangles).unwrap();
    let weights = ConvexWeights::from_rows(
        (0..positions.len()).map(|v| vec![(u32::from(v as u32 >= offset), 1.0f32)]),
        2,
    )
    .unwrap();
    let skin = || {
        LinearBlendSkinning::new(
            positions.clone(),
            weights.clone(),
            vec![Affine::IDENTITY; 2],
        )
        .unwrap()
    };
    for ignore in [false, true] {
        let mut world = world();
        let mut collider = SkinnedColliderBuilder::new(mesh.clone(), skin())
            .unwrap()
            .self_collisions(CullingMode::Conservative)
            .ignore_rest_contacts(ignore)
            .build(&mut world)
            .unwrap();
        let rest = self_collisions_brute_force(&mesh, &positions).unwrap();
        assert!(!rest.is_empty(), "the boxes cross in the bind pose");
        assert_eq!(collider.rest_contacts(), rest.as_slice());
        // Bind pose, then the second box slid up and turned: new crossings, some rest ones gone.
        let turned = Affine::new(Mat3::from_rotation_z(0.4), Vec3::new(0.0, 0.7, 0.0));
        let mut moved_any = false;
        for bones in [[Affine::IDENTITY; 2], [Affine::IDENTITY, turned]] {
            collider.pose_bones(&mut world.colliders, &bones).unwrap();
            let found = collider.find_self_collisions().unwrap().to_vec();
            let posed = shape(&world, &collider).deformed_vertices();
            let all = self_collisions_brute_force(&mesh, &posed).unwrap();
            let expected: Vec<[u32; 2]> = if ignore {
                all.iter()
                    .copied()
                    .filter(|p| rest.binary_search(p).is_err())
                    .collect()
            } else {
                all.clone()
            };
            assert_eq!(found, expected, "ignore {ignore}");
            moved_any |= ignore && !expected.is_empty();
        }
        if ignore {
            assert!(
                moved_any,
                "the turned box makes crossings that are not rest contacts"
            );
        }
    }
    // Without self-collisions there is nothing to list.
    let mut world = world();
    let plain = SkinnedColliderBuilder::new(mesh.clone(), skin())
        .unwrap()
        .build(&mut world)
        .unwrap();
    assert!(plain.rest_contacts().is_empty());
}
