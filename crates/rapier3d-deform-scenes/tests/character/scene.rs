//! Whole glTF scenes as one `SkinnedCollider`: every clip frame of every bundled asset equals the independent per-vertex evaluation (morph, then skin, glTF order); rest, bind, looping, clamping and game-driven node poses; the O(m) node boxes contain every posed vertex over 10,000 random poses with morph targets (and are too small without the morph margin); ray casts on a morphing sphere equal parry's triangle casts on the posed triangles.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rapier3d::parry::glamx::DVec3;
use rapier3d::parry::query::{Ray, RayCast};
use rapier3d::parry::shape::{Shape, Triangle};
use rapier3d_deform::DeformError;
use rapier3d_deform::io::{GltfScene, LoadReport, load_gltf_scene};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::asset_path;

use super::gltf_reference::{RefFile, all_gltf_assets};

fn world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    world
}

fn load(rel: &str) -> (GltfScene, LoadReport) {
    load_gltf_scene(asset_path(rel), &LoadOptions::default()).unwrap()
}

fn shape_of<'a>(world: &'a PhysicsWorld, c: &SkinnedCollider) -> &'a DeformableMeshShape {
    world.colliders[c.collider()]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .unwrap()
}

/// Compares every render vertex of the collider (through its welded vertex) with `expected`,
/// within `1e-5 ×` the bounding-box diagonal of `expected`. Returns the largest error relative
/// to that diagonal.
fn compare(what: &str, scene: &GltfScene, shape: &DeformableMeshShape, expected: &[DVec3]) -> f64 {
    assert_eq!(expected.len(), scene.render.to_welded.len(), "{what}");
    let (lo, hi) = expected.iter().fold(
        (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    let diag = (hi - lo).length().max(1e-9);
    let mut worst = 0.0f64;
    for (r, e) in expected.iter().enumerate() {
        let got = shape.vertex(scene.render.to_welded[r]).as_dvec3();
        let err = (got - *e).length() / diag;
        worst = worst.max(err);
        assert!(
            err <= 1e-5,
            "{what}: render vertex {r}: {got:?} vs {e:?} ({err:e})"
        );
    }
    worst
}

#[test]
fn every_keyframe_of_every_clip_of_every_asset_equals_the_independent_evaluation() {
    let mut frames = 0;
    let mut worst = 0.0f64;
    for path in all_gltf_assets() {
        let (scene, report) = load_gltf_scene(&path, &LoadOptions::default()).unwrap();
        let reference = RefFile::open(&path);
        let mut world = world();
        let mut c = SkinnedColliderBuilder::from_scene(&scene)
            .unwrap()
            .build(&mut world)
            .unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // The rest pose (what a skin without a clip shows).
        let rest = reference.posed(&report.mesh_nodes, None, 0.0);
        worst = worst.max(compare(
            &format!("{name} rest"),
            &scene,
            shape_of(&world, &c),
            &rest,
        ));
        c.pose_rest(&mut world.colliders).unwrap();
        worst = worst.max(compare(
            &format!("{name} rest"),
            &scene,
            shape_of(&world, &c),
            &rest,
        ));
        for (a, anim) in reference.doc.animations().enumerate() {
            for t in reference.keyframe_times(&anim) {
                c.pose_clip(&mut world.colliders, a, t, ClipTime::Clamp)
                    .unwrap();
                let expected = reference.posed(&report.mesh_nodes, Some(&anim), t);
                let what = format!("{name} clip {a} t {t}");
                worst = worst.max(compare(&what, &scene, shape_of(&world, &c), &expected));
                frames += 1;
            }
        }
    }
    println!("{frames} frames, worst error {worst:e} of the bounding-box diagonal");
    assert!(frames > 300, "{frames}");
}

#[test]
fn a_skin_without_a_clip_has_rest_and_bind_poses() {
    let (scene, _) = load("skinned/RiggedFigure.glb");
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut world)
        .unwrap();
    c.pose_bind(&mut world.colliders).unwrap();
    // Every governor is the identity: a vertex is Σ_k w_k p0 (weights rounded to f32).
    for (p, q) in shape_of(&world, &c)
        .deformed_vertices()
        .iter()
        .zip(scene.mesh.positions())
    {
        assert!(
            (*p - *q).length() <= 1e-6 * (1.0 + q.length()),
            "{p:?} vs {q:?}"
        );
    }
    // The bind bone transforms give the same pose through pose_bones.
    c.pose_bones(&mut world.colliders, &scene.bind_bone_transforms())
        .unwrap();
    for (p, q) in shape_of(&world, &c)
        .deformed_vertices()
        .iter()
        .zip(scene.mesh.positions())
    {
        assert!(
            (*p - *q).length() <= 1e-5 * (1.0 + q.length()),
            "{p:?} vs {q:?}"
        );
    }
    c.pose_rest(&mut world.colliders).unwrap();
    assert_eq!(
        shape_of(&world, &c).deformed_vertices(),
        scene.posed_positions(None, 0.0)
    );
}

#[test]
fn pose_loops_clamps_and_follows_the_games_node_transforms() {
    let (scene, _) = load("skinned/kenney_platformer_character.glb");
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut world)
        .unwrap();
    let walk = scene.clip("walk").unwrap();
    let d = walk.duration();
    let at = |c: &mut SkinnedCollider, world: &mut PhysicsWorld, t: f32, time: ClipTime| {
        c.pose(&mut world.colliders, "walk", t, time).unwrap();
        shape_of(world, c).deformed_vertices()
    };
    let close = |a: &[Vec3], b: &[Vec3]| {
        a.iter()
            .zip(b)
            .all(|(p, q)| (*p - *q).length() <= 1e-4 * (1.0 + q.length()))
    };
    let t = 0.3 * d;
    let first = at(&mut c, &mut world, t, ClipTime::Loop);
    assert!(close(
        &at(&mut c, &mut world, t + 3.0 * d, ClipTime::Loop),
        &first
    ));
    assert!(close(
        &at(&mut c, &mut world, t - d, ClipTime::Loop),
        &first
    ));
    let end = at(&mut c, &mut world, d, ClipTime::Clamp);
    assert_eq!(at(&mut c, &mut world, d + 5.0, ClipTime::Clamp), end);
    let start = at(&mut c, &mut world, 0.0, ClipTime::Clamp);
    assert_eq!(at(&mut c, &mut world, -2.0, ClipTime::Clamp), start);
    assert!(
        !close(&start, &at(&mut c, &mut world, 0.5 * d, ClipTime::Clamp)),
        "the clip moves"
    );
    // The game's own node transforms: the same pose as the clip.
    let nodes = scene.skeleton.node_world_transforms(Some(walk), t);
    c.pose_nodes(&mut world.colliders, &nodes).unwrap();
    assert_eq!(shape_of(&world, &c).deformed_vertices(), first);
    c.pose_bones(&mut world.colliders, &scene.bone_transforms(Some(walk), t))
        .unwrap();
    assert_eq!(shape_of(&world, &c).deformed_vertices(), first);
    assert!(matches!(
        c.pose_nodes(&mut world.colliders, &nodes[1..]),
        Err(DeformError::LengthMismatch { .. })
    ));
    assert!(matches!(
        c.pose(&mut world.colliders, "dance", 0.0, ClipTime::Loop),
        Err(DeformError::UnknownName { .. })
    ));
}

/// Smooth random morph targets over every vertex (`count` targets of amplitude `amp`).
fn synthetic_morphs(rest: &[Vec3], count: usize, amp: f32, rng: &mut ChaCha8Rng) -> MorphDeltas {
    let targets = (0..count)
        .map(|_| {
            let k = Vec3::new(rng.random(), rng.random(), rng.random()) * 6.0;
            let dir = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            let phase: f32 = rng.random_range(0.0..6.0);
            rest.iter()
                .map(|p| dir * (amp * (k.dot(*p) + phase).sin()))
                .collect()
        })
        .collect();
    let mut m = MorphDeltas::new(rest.len());
    m.add_group(0, targets).unwrap();
    m
}

fn random_rotation(rng: &mut ChaCha8Rng, max_angle: f32) -> Mat3 {
    let axis = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize_or(Vec3::X);
    Mat3::from_quat(Quat::from_axis_angle(
        axis,
        rng.random_range(-max_angle..max_angle),
    ))
}

/// Poses `c` `poses` times at random (clip time, bone perturbations, morph weights in
/// [-1.5, 1.5]) and checks that every node box with O(m) data, and the root box, contain the
/// node's posed vertices. Also counts the vertices that a shape without the morph margin (same
/// tree and governors, no morph) would leave outside its boxes. Returns (checked nodes, misses
/// without the margin).
fn random_poses(
    scene: &GltfScene,
    c: &mut SkinnedCollider,
    world: &mut PhysicsWorld,
    poses: usize,
    seed: u64,
) -> (usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let size = {
        let (lo, hi) = scene.mesh.bounds();
        (hi - lo).length()
    };
    let targets = c.morph_weights().len();
    assert!(targets > 0);
    let mut checked = 0;
    let mut misses = 0;
    for _ in 0..poses {
        let clip =
            (!scene.clips.is_empty()).then(|| &scene.clips[rng.random_range(0..scene.clips.len())]);
        let t = clip.map_or(0.0, |c| rng.random_range(0.0..=c.duration()));
        let bones: Vec<Affine> = scene
            .bone_transforms(clip, t)
            .iter()
            .map(|b| {
                let r = Affine::new(
                    random_rotation(&mut rng, 0.6),
                    Vec3::new(rng.random(), rng.random(), rng.random()) * (0.05 * size),
                );
                b.compose(&r)
            })
            .collect();
        let weights: Vec<f32> = (0..targets).map(|_| rng.random_range(-1.5..1.5)).collect();
        c.pose_bones_and_morphs(&mut world.colliders, &bones, &weights)
            .unwrap();
        let shape = shape_of(world, c);
        let plain = DeformableMeshShape::new(shape.tree().clone(), shape.governors()).unwrap();
        let tree = shape.tree();
        let tris = tree.mesh().triangles();
        let root = shape.compute_local_aabb();
        let positions = shape.deformed_vertices();
        for p in &positions {
            assert!(
                root.mins.cmple(*p).all() && p.cmple(root.maxs).all(),
                "root box {root:?} misses {p:?}"
            );
        }
        for i in 0..tree.nodes().len() {
            if tree.node_patch(i).is_none() {
                continue;
            }
            let b = shape.node_aabb(i as u32);
            let nb = plain.node_aabb(i as u32);
            let mut missed = false;
            for &t in tree.node_triangles(i) {
                for v in tris[t as usize] {
                    let p = positions[v as usize];
                    assert!(
                        b.mins.cmple(p).all() && p.cmple(b.maxs).all(),
                        "node {i} box {b:?} misses vertex {v} at {p:?}"
                    );
                    missed |= !(nb.mins.cmple(p).all() && p.cmple(nb.maxs).all());
                }
            }
            misses += usize::from(missed);
            checked += 1;
        }
    }
    (checked, misses)
}

#[test]
fn node_boxes_contain_every_posed_vertex_over_10000_random_skinned_and_morphed_poses() {
    let (scene, _) = load("skinned/RiggedFigure.glb");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (lo, hi) = scene.mesh.bounds();
    let morph = synthetic_morphs(
        scene.mesh.positions(),
        3,
        0.08 * (hi - lo).length(),
        &mut rng,
    );
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .morph_targets(morph)
        .unwrap()
        .tree_options(BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: 0.0,
        })
        .build(&mut world)
        .unwrap();
    let (checked, misses) = random_poses(&scene, &mut c, &mut world, 10_000, 11);
    println!("{checked} node boxes checked; {misses} would miss a vertex without the morph margin");
    assert!(checked >= 10_000 * 10, "{checked}");
    assert!(
        misses > checked / 10,
        "the margin matters: {misses} of {checked}"
    );
}

#[test]
fn node_boxes_contain_every_vertex_over_10000_random_morph_weights_of_morph_stress_test() {
    let (scene, _) = load("morph/MorphStressTest/MorphStressTest.gltf");
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .tree_options(BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: 0.0,
        })
        .build(&mut world)
        .unwrap();
    let (checked, misses) = random_poses(&scene, &mut c, &mut world, 10_000, 12);
    println!("{checked} node boxes checked; {misses} would miss a vertex without the morph margin");
    assert!(checked >= 10_000 * 10, "{checked}");
    assert!(misses > 0, "the margin matters");
}

#[test]
fn morph_then_skin_in_gltf_order_equals_the_per_vertex_formula() {
    let (scene, _) = load("skinned/Fox.glb");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (lo, hi) = scene.mesh.bounds();
    let morph = synthetic_morphs(
        scene.mesh.positions(),
        2,
        0.1 * (hi - lo).length(),
        &mut rng,
    );
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .morph_targets(morph.clone())
        .unwrap()
        .build(&mut world)
        .unwrap();
    let run = scene.clip("Run").unwrap();
    let bones = scene.bone_transforms(Some(run), 0.4);
    let weights = [0.7, -0.4];
    c.pose_bones_and_morphs(&mut world.colliders, &bones, &weights)
        .unwrap();
    let skin = &scene.skinning;
    let w = skin.weights();
    let mut order_matters = 0.0f64;
    let size = f64::from((hi - lo).length());
    for (v, p) in scene.mesh.positions().iter().enumerate() {
        let g = morph.groups()[0].targets();
        let morphed = p.as_dvec3() + 0.7 * g[0][v].as_dvec3() + -0.4 * g[1][v].as_dvec3();
        let mut skinned = DVec3::ZERO;
        let mut skin_then_morph = DVec3::ZERO;
        for (j, x) in w.iter_row(v) {
            let a = bones[j as usize].compose(&skin.inverse_bind()[j as usize]);
            let m = a.linear.as_dmat3();
            let t = a.translation.as_dvec3();
            skinned += f64::from(x) * (m * morphed + t);
            skin_then_morph += f64::from(x) * (m * p.as_dvec3() + t);
        }
        skin_then_morph += morphed - p.as_dvec3();
        let got = shape_of(&world, &c).vertex(v as u32).as_dvec3();
        assert!(
            (got - skinned).length() <= 1e-5 * size,
            "vertex {v}: {got:?} vs {skinned:?}"
        );
        order_matters = order_matters.max((skinned - skin_then_morph).length() / size);
    }
    assert!(
        order_matters > 1e-2,
        "the two orders differ on this pose: {order_matters}"
    );
    let mut posed = Vec::new();
    c.deformed_positions(&mut posed);
    assert_eq!(posed, shape_of(&world, &c).deformed_vertices());
}

#[test]
fn ray_casts_see_the_morphed_shape() {
    let (scene, _) = load("morph/AnimatedMorphSphere/AnimatedMorphSphere.gltf");
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut world)
        .unwrap();
    let rest = shape_of(&world, &c).deformed_vertices();
    let mut moved = 0.0f32;
    let mut hits = 0;
    for k in 0..8 {
        c.play(&mut world.colliders, "Globe", k as f32 * 0.9)
            .unwrap();
        let shape = shape_of(&world, &c);
        let vertices = shape.deformed_vertices();
        moved = vertices
            .iter()
            .zip(&rest)
            .map(|(a, b)| (*a - *b).length())
            .fold(moved, f32::max);
        let triangles: Vec<Triangle> = scene
            .mesh
            .triangles()
            .iter()
            .map(|t| {
                Triangle::new(
                    vertices[t[0] as usize],
                    vertices[t[1] as usize],
                    vertices[t[2] as usize],
                )
            })
            .collect();
        let aabb = shape.compute_local_aabb();
        let c0 = aabb.center();
        let r = aabb.half_extents().length() * 2.0;
        for i in 0..24 {
            for j in 0..24 {
                let (th, ph) = (i as f32 * 0.26, j as f32 * 0.13 - 1.5);
                let dir = Vec3::new(th.cos() * ph.cos(), ph.sin(), th.sin() * ph.cos());
                let ray = Ray::new(c0 + dir * r, -dir);
                let a = shape.cast_local_ray(&ray, 10.0 * r, true);
                // Brute force: parry's own ray cast on every posed triangle.
                let b = triangles
                    .iter()
                    .filter_map(|t| t.cast_local_ray(&ray, 10.0 * r, true))
                    .min_by(f32::total_cmp);
                match (a, b) {
                    (Some(a), Some(b)) => {
                        assert!((a - b).abs() <= 1e-4 * r, "{a} vs {b}");
                        hits += 1;
                    }
                    (None, None) => {}
                    other => panic!("frame {k} ray {i},{j}: {other:?}"),
                }
            }
        }
    }
    assert!(hits > 1000, "{hits}");
    let (lo, hi) = scene.mesh.bounds();
    assert!(
        moved > 0.05 * (hi - lo).length(),
        "the clip morphs the sphere: {moved}"
    );
}

#[test]
fn morph_input_errors_are_typed_and_change_nothing() {
    let (scene, _) = load("morph/MorphStressTest/MorphStressTest.gltf");
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut world)
        .unwrap();
    c.set_morph_weights(&mut world.colliders, &[0.5; 8])
        .unwrap();
    let before = shape_of(&world, &c).deformed_vertices();
    assert!(matches!(
        c.set_morph_weights(&mut world.colliders, &[0.5; 7]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut bad = [0.5; 8];
    bad[3] = f32::NAN;
    assert!(matches!(
        c.set_morph_weights(&mut world.colliders, &bad),
        Err(DeformError::InvalidGlobalWeight { .. })
    ));
    assert!(
        c.pose_bones_and_morphs(&mut world.colliders, &[Affine::IDENTITY], &bad)
            .is_err()
    );
    assert_eq!(c.morph_weights(), &[0.5; 8]);
    assert_eq!(shape_of(&world, &c).deformed_vertices(), before);
    assert!(matches!(
        SkinnedColliderBuilder::from_scene(&scene)
            .unwrap()
            .self_collisions(CullingMode::Conservative)
            .build(&mut world),
        Err(DeformError::NotAvailable { .. })
    ));
    assert!(matches!(
        SkinnedColliderBuilder::from_scene(&scene)
            .unwrap()
            .morph_targets(MorphDeltas::new(3)),
        Err(DeformError::LengthMismatch { .. })
    ));
}

/// A file authored here with everything at once: a ribbon skinned to two joints with two morph
/// targets (node default weights), a triangle rigidly under the second joint with its own morph
/// target (mesh default weights), and a clip with LINEAR rotation, LINEAR weights, STEP weights
/// and CUBICSPLINE translation channels. Every keyframe time and every midpoint between them
/// equals the independent evaluation, through both loaders: `load_gltf_scene` (whole scene) and
/// `load_gltf` (the skinned node alone, morphed before it is skinned).
#[test]
fn a_skinned_and_morphed_scene_with_every_interpolation_equals_the_independent_evaluation() {
    use super::io_support::{Glb, identity16, ribbon};
    let mut b = Glb::new();
    let (p, t) = ribbon(4);
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let mut j = Vec::new();
    let mut w = Vec::new();
    for v in 0..10 {
        let x = (v / 2) as f32;
        j.extend([0u8, 1, 0, 0]);
        let a = (1.0 - x / 4.0).clamp(0.0, 1.0);
        w.extend([a, 1.0 - a, 0.0, 0.0]);
    }
    let joints = b.u8s(&j, "VEC4", false);
    let weights = b.floats(&w, "VEC4");
    let mut ib = identity16().to_vec();
    let mut ib1 = identity16();
    ib1[12] = -2.0;
    ib.extend(ib1);
    let ibm = b.floats(&ib, "MAT4");
    let d0: Vec<f32> = (0..10)
        .flat_map(|v| [0.0, 0.0, 0.3 * (v / 2) as f32])
        .collect();
    let d1: Vec<f32> = (0..10)
        .flat_map(|v| [0.1 * (v % 2) as f32, 0.2, 0.0])
        .collect();
    let t0 = b.floats(&d0, "VEC3");
    let t1 = b.floats(&d1, "VEC3");
    let tri = b.floats(&[0.0, 0.0, 0.5, 1.0, 0.0, 0.5, 0.0, 1.0, 0.5], "VEC3");
    let tri_d = b.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0], "VEC3");
    let times = b.floats(&[0.0, 0.5, 1.5], "SCALAR");
    let q = |a: f32| [0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()];
    let rot: Vec<f32> = [0.0, 0.8, -0.5].iter().flat_map(|&a| q(a)).collect();
    let rot = b.floats(&rot, "VEC4");
    let mw = b.floats(&[0.0, 0.0, 1.0, -0.5, 0.25, 1.5], "SCALAR");
    let step_t = b.floats(&[0.2, 1.0], "SCALAR");
    let step_v = b.floats(&[1.0, -1.0], "SCALAR");
    let cubic_t = b.floats(&[0.0, 1.2], "SCALAR");
    let cubic_v = b.floats(
        &[
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0,
            0.0,
        ],
        "VEC3",
    );
    let glb = b.glb(&format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{pos},"JOINTS_0":{joints},"WEIGHTS_0":{weights}}},"indices":{idx},"targets":[{{"POSITION":{t0}}},{{"POSITION":{t1}}}]}}]}},{{"primitives":[{{"attributes":{{"POSITION":{tri}}},"targets":[{{"POSITION":{tri_d}}}]}}],"weights":[0.5]}}],
        "skins":[{{"joints":[1,2],"inverseBindMatrices":{ibm}}}],
        "nodes":[{{"mesh":0,"skin":0,"weights":[0.3,-0.2]}},{{"children":[2]}},{{"translation":[2.0,0.0,0.0],"children":[3]}},{{"mesh":1,"translation":[0.0,1.0,0.0]}}],
        "scenes":[{{"nodes":[0,1]}}],"scene":0,
        "animations":[{{"name":"all","samplers":[{{"input":{times},"output":{rot}}},{{"input":{times},"output":{mw}}},{{"input":{step_t},"output":{step_v},"interpolation":"STEP"}},{{"input":{cubic_t},"output":{cubic_v},"interpolation":"CUBICSPLINE"}}],
        "channels":[{{"sampler":0,"target":{{"node":2,"path":"rotation"}}}},{{"sampler":1,"target":{{"node":0,"path":"weights"}}}},{{"sampler":2,"target":{{"node":3,"path":"weights"}}}},{{"sampler":3,"target":{{"node":1,"path":"translation"}}}}]}}]"#
    ));
    let dir = std::env::temp_dir().join(format!("rapier3d_deform_scene_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("skinned_morphed.glb");
    std::fs::write(&path, &glb).unwrap();
    let reference = RefFile::open(&path);
    let anim = reference.doc.animations().next().unwrap();
    let mut times = reference.keyframe_times(&anim);
    let mids: Vec<f32> = times.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
    times.extend(mids);
    times.push(2.0);

    let (scene, report) = load_gltf_scene(&path, &LoadOptions::default()).unwrap();
    assert_eq!(report.mesh_nodes, vec![0, 3], "{report}");
    assert_eq!(report.morph_targets, 3);
    let mut world = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut world)
        .unwrap();
    assert_eq!(
        c.morph_weights(),
        &[0.3, -0.2, 0.5],
        "node weights, then mesh weights"
    );
    compare(
        "rest",
        &scene,
        shape_of(&world, &c),
        &reference.posed(&[0, 3], None, 0.0),
    );
    // The single-mesh loader: the skinned node, morphed and then skinned.
    let (asset, _) = load_gltf(&path, &LoadOptions::default()).unwrap();
    let mut single_world = self::world();
    let mut single = SkinnedColliderBuilder::from_gltf(&asset)
        .unwrap()
        .build(&mut single_world)
        .unwrap();
    let ribbon_render = scene.parts[0].render_vertices.clone();
    for &t in &times {
        c.pose_clip(&mut world.colliders, 0, t, ClipTime::Clamp)
            .unwrap();
        let expected = reference.posed(&[0, 3], Some(&anim), t);
        compare(
            &format!("scene t {t}"),
            &scene,
            shape_of(&world, &c),
            &expected,
        );
        single
            .pose_clip(&mut single_world.colliders, 0, t, ClipTime::Clamp)
            .unwrap();
        let shape = shape_of(&single_world, &single);
        for r in ribbon_render.clone() {
            let got = shape.vertex(asset.render.to_welded[r]).as_dvec3();
            assert!(
                (got - expected[r]).length() <= 1e-5 * 5.0,
                "load_gltf t {t} vertex {r}: {got:?} vs {:?}",
                expected[r]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The closed skins build as solids (one-sided pseudo-normals pointing out of them); the Kenney
/// character, whose parts are open, is a typed error naming a triangle with an open edge.
#[test]
fn solid_contacts_build_on_closed_skins_and_name_an_open_edge_elsewhere() {
    for rel in [
        "skinned/Fox.glb",
        "skinned/RiggedFigure.glb",
        "skinned/RiggedSimple.glb",
    ] {
        let (scene, _) = load(rel);
        let mut w = world();
        let c = SkinnedColliderBuilder::from_scene(&scene)
            .and_then(|b| b.solid_contacts(true).build(&mut w))
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let shape = shape_of(&w, &c);
        assert!(
            shape.has_solid_contacts() && shape.fixes_internal_edges(),
            "{rel}"
        );
    }
    let (scene, _) = load("skinned/kenney_platformer_character.glb");
    let mut w = world();
    let err = SkinnedColliderBuilder::from_scene(&scene)
        .and_then(|b| b.solid_contacts(true).build(&mut w))
        .err();
    match err {
        Some(DeformError::InvalidParameter {
            name: "solid_contacts",
            value,
            ..
        }) => assert!(value >= 0.0 && value.fract() == 0.0, "triangle {value}"),
        other => panic!("expected an open-edge error, got {other:?}"),
    }
}

/// `contact_points_per_triangle(true)` gives the Fox a shape whose contacts with a box sunk into
/// its feet hold parry `TriMesh` points one for one; by default the points the triangles around
/// a vertex share are merged, so there are fewer.
#[test]
fn per_triangle_contact_points_equal_the_trimesh_points_and_merged_ones_are_fewer() {
    use rapier3d::parry::query::{
        ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
    };
    use rapier3d::parry::shape::{Cuboid, TriMesh};
    let (scene, _) = load("skinned/Fox.glb");
    let mut w = world();
    let merged = SkinnedColliderBuilder::from_scene(&scene)
        .and_then(|b| b.build(&mut w))
        .unwrap();
    let per_triangle = SkinnedColliderBuilder::from_scene(&scene)
        .and_then(|b| b.contact_points_per_triangle(true).build(&mut w))
        .unwrap();
    assert!(shape_of(&w, &merged).merges_contact_points());
    assert!(!shape_of(&w, &per_triangle).merges_contact_points());
    let shape = shape_of(&w, &per_triangle);
    let vertices = shape.deformed_vertices();
    let lowest = vertices.iter().map(|v| v.y).fold(f32::MAX, f32::min);
    let highest = vertices.iter().map(|v| v.y).fold(f32::MIN, f32::max);
    let trimesh = TriMesh::new(vertices, shape.tree().mesh().triangles().to_vec()).unwrap();
    // A wide box whose top is 3 % of the Fox's height above its lowest vertex.
    let ground = Cuboid::new(Vec3::new(1e3, 10.0, 1e3));
    let top = lowest + 0.03 * (highest - lowest);
    let pose = rapier3d::math::Pose::from_translation(Vec3::new(0.0, top - 10.0, 0.0));
    let count = |d: &dyn PersistentQueryDispatcher<(), ()>, s: &dyn Shape| {
        let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
        d.contact_manifolds(&pose, s, &ground, 0.0, &mut manifolds, &mut None)
            .unwrap();
        manifolds.iter().map(|m| m.points.len()).sum::<usize>()
    };
    let theirs = count(&DefaultQueryDispatcher, &trimesh);
    let ours = count(&DeformDispatcher, shape);
    let fewer = count(&DeformDispatcher, shape_of(&w, &merged));
    assert!(theirs > 20, "only {theirs} TriMesh points");
    assert_eq!(ours, theirs, "per-triangle points");
    assert!(2 * fewer < theirs, "{fewer} merged points against {theirs}");
}

/// A skin built with swept contacts is a solid that remembers its previous pose: over a second
/// of the Fox's first clip, every vertex moves from its previous position by no more than the
/// motion bound, the bound is not loose by orders of magnitude, and the previous positions are
/// the vertices of the pose before.
#[test]
fn swept_contacts_bound_every_vertex_motion_of_a_walking_fox() {
    let (scene, _) = load("skinned/Fox.glb");
    let mut w = world();
    let mut c = SkinnedColliderBuilder::from_scene(&scene)
        .and_then(|b| b.swept_contacts(true).build(&mut w))
        .unwrap();
    assert!(shape_of(&w, &c).has_swept_contacts() && shape_of(&w, &c).has_solid_contacts());
    let mut before: Vec<Vec3> = Vec::new();
    let mut tightest = f32::INFINITY;
    for frame in 0..60 {
        c.pose_clip(&mut w.colliders, 0, frame as f32 / 60.0, ClipTime::Loop)
            .unwrap();
        let shape = shape_of(&w, &c);
        let vertices = shape.tree().rest_positions().len() as u32;
        let bound = shape.swept_motion_bound().unwrap();
        let mut moved = 0.0f32;
        for v in 0..vertices {
            let (now, previous) = (shape.vertex(v), shape.previous_vertex(v));
            if let Some(b) = before.get(v as usize) {
                assert_eq!(previous, *b, "frame {frame}, vertex {v}");
            }
            moved = moved.max((now - previous).length());
        }
        assert!(
            moved <= bound * (1.0 + 1e-5) + 1e-6,
            "frame {frame}: {moved} > {bound}"
        );
        if frame > 0 {
            tightest = tightest.min(bound / moved.max(1e-9));
        }
        before = (0..vertices).map(|v| shape.vertex(v)).collect();
    }
    assert!(
        tightest < 20.0,
        "the bound is {tightest}× the largest motion at best"
    );
}
