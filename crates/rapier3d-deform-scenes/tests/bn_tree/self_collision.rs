//! Contract: the BN-Tree's self-collision pairs in conservative mode equal the brute-force oracle's exactly, frame
//! after frame (with lazy refits, front caching and warm caches), on a tube bent through itself by skinning, on
//! random poses, and on a helical strip whose normals all face up while it passes through itself (the case the
//! contour test exists for: fast mode must miss it, conservative mode must not). The HSC baseline (bottom-up refit,
//! same traversal) equals the oracle too.

use crate::common;

use common::*;
use rapier3d_deform::bn_tree::{BnTree, CullingMode, RefitPolicy, SelfCollisionQuery};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertex};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::mesh::{TriangleMesh, VertexOrder};
use rapier3d_deform::validation::self_collisions_brute_force;

/// Bone chain along x: joint k at x = k·length/bones; each joint rotates by `angle` about `axis`.
fn bent_pose(bones: usize, length: f32, angles: &[f32], axis: Vec3) -> Vec<Affine> {
    let mut acc = Affine::IDENTITY;
    (0..bones)
        .map(|b| {
            let joint = Vec3::new(length * b as f32 / bones as f32, 0.0, 0.0);
            let rot = Mat3::from_quat(Quat::from_axis_angle(axis, angles[b]));
            acc = acc.compose(&Affine::new(rot, joint - rot * joint));
            acc
        })
        .collect()
}

fn compare_frames(
    mesh: &TriangleMesh,
    skin: &mut LinearBlendSkinning,
    poses: &[Vec<Affine>],
) -> (usize, usize) {
    compare_frames_with(
        mesh,
        skin,
        poses,
        rapier3d_deform::bn_tree::BnTreeOptions::default(),
    )
}

fn compare_frames_with(
    mesh: &TriangleMesh,
    skin: &mut LinearBlendSkinning,
    poses: &[Vec<Affine>],
    options: rapier3d_deform::bn_tree::BnTreeOptions,
) -> (usize, usize) {
    let tree = BnTree::build_with(mesh, skin.rest_positions(), skin.weights(), options).unwrap();
    let mut bn = SelfCollisionQuery::new(&tree);
    let mut hsc = SelfCollisionQuery::new(&tree);
    let mut fast = SelfCollisionQuery::new(&tree);
    let (mut out, mut total_pairs, mut fast_misses) = (Vec::new(), 0, 0);
    for (f, pose) in poses.iter().enumerate() {
        skin.set_skinning_transforms(pose).unwrap();
        let positions = skin.deformed_positions();
        let expected = self_collisions_brute_force(mesh, &positions).unwrap();
        bn.run(
            &tree,
            skin.governors(),
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, expected, "BN-Tree frame {f}");
        hsc.run(
            &tree,
            skin.governors(),
            RefitPolicy::BottomUpEveryFrame,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, expected, "HSC frame {f}");
        fast.run(
            &tree,
            skin.governors(),
            RefitPolicy::OnDemand,
            CullingMode::Fast,
            &mut out,
        )
        .unwrap();
        assert!(
            out.iter().all(|p| expected.binary_search(p).is_ok()),
            "fast mode reported a false pair"
        );
        fast_misses += expected.len() - out.len();
        total_pairs += expected.len();
    }
    (total_pairs, fast_misses)
}

#[test]
fn tube_bent_through_itself_matches_brute_force_every_frame() {
    let (length, bones) = (10.0, 10);
    let mesh = tube(length, 40, 16);
    let weights = tube_weights(&mesh, bones, length, 4);
    let mut skin = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights,
        vec![Affine::IDENTITY; bones],
    )
    .unwrap();
    let poses: Vec<Vec<Affine>> = (0..24)
        .map(|f| {
            let t = f as f32 / 23.0;
            let mut angles = vec![0.0; bones];
            // Fold at the middle joints until the far half passes through the near half.
            angles[4] = 1.4 * t;
            angles[5] = 1.4 * t;
            angles[6] = 0.6 * t;
            bent_pose(bones, length, &angles, Vec3::new(0.0, 0.3, 1.0).normalize())
        })
        .collect();
    let (pairs, _) = compare_frames(&mesh, &mut skin, &poses);
    assert!(
        pairs > 200,
        "the scene must actually self-collide ({pairs} pairs)"
    );
}

/// Renumbering the vertices in spatial order (for memory locality) keeps triangle indices, so
/// the pairs of every frame are exactly those of the original numbering, and both equal brute
/// force.
#[test]
fn spatial_vertex_order_gives_the_same_pairs() {
    let (length, bones) = (10.0, 10);
    let mesh = tube(length, 40, 16);
    let weights = tube_weights(&mesh, bones, length, 4);
    let order = VertexOrder::spatial(mesh.positions()).unwrap();
    assert!(
        (0..order.len() as u32).any(|v| order.new_index(v) != v),
        "a real renumbering"
    );
    let ordered_mesh = order.mesh(&mesh).unwrap();
    let ordered_weights = order.weights(&weights).unwrap();
    let trees = [
        BnTree::build(&mesh, mesh.positions(), &weights).unwrap(),
        BnTree::build(&ordered_mesh, ordered_mesh.positions(), &ordered_weights).unwrap(),
    ];
    let mut queries = trees.each_ref().map(SelfCollisionQuery::new);
    let mut skin = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights,
        vec![Affine::IDENTITY; bones],
    )
    .unwrap();
    let (mut outs, mut total) = ([Vec::new(), Vec::new()], 0);
    for f in 0..12 {
        let t = f as f32 / 11.0;
        let mut angles = vec![0.0; bones];
        angles[4] = 1.4 * t;
        angles[5] = 1.4 * t;
        angles[6] = 0.6 * t;
        let pose = bent_pose(bones, length, &angles, Vec3::new(0.0, 0.3, 1.0).normalize());
        skin.set_skinning_transforms(&pose).unwrap();
        let expected = self_collisions_brute_force(&mesh, &skin.deformed_positions()).unwrap();
        for k in 0..2 {
            queries[k]
                .run(
                    &trees[k],
                    skin.governors(),
                    RefitPolicy::OnDemand,
                    CullingMode::Conservative,
                    &mut outs[k],
                )
                .unwrap();
            assert_eq!(outs[k], expected, "frame {f}, numbering {k}");
        }
        total += expected.len();
    }
    assert!(
        total > 100,
        "the tube must fold through itself ({total} pairs)"
    );
}

/// The up-front deformation of every vertex switches on while the traversal needs nearly all of
/// them (a sheet crumpled by 10 random bones) and off again once it does not (the sheet lies flat
/// and the root prunes): every few frames one query measures the need again. Results equal brute
/// force throughout.
#[test]
fn eager_deformation_follows_what_the_traversal_needs() {
    use rapier3d_deform::bn_tree::BnTreeOptions;
    let mesh = grid_mesh(40, [0.0, 0.0], [10.0, 4.0]);
    let p = mesh.positions().to_vec();
    let weights = tube_weights(&mesh, 10, 10.0, 4);
    let options = BnTreeOptions {
        leaf_triangles: 4,
        governor_cost: 0.0,
    };
    let tree = BnTree::build_with(&mesh, &p, &weights, options).unwrap();
    let vertices = p.len() as u64;
    let mut query = SelfCollisionQuery::new(&tree);
    let mut out = Vec::new();
    let mut r = rng(7);
    let mut run = |governors: &[Affine], out: &mut Vec<[u32; 2]>| {
        let stats = query
            .run(
                &tree,
                governors,
                RefitPolicy::OnDemand,
                CullingMode::Conservative,
                out,
            )
            .unwrap();
        let positions: Vec<Vec3> = (0..p.len())
            .map(|v| deform_vertex(&p, &weights, governors, v))
            .collect();
        assert_eq!(
            *out,
            self_collisions_brute_force(&mesh, &positions).unwrap()
        );
        stats.vertices_deformed
    };
    let mut eager_frames = 0;
    for _ in 0..12 {
        let governors: Vec<Affine> = (0..10).map(|_| random_governor(&mut r, 0.8, 1.0)).collect();
        eager_frames += (run(&governors, &mut out) == vertices) as u32;
    }
    assert!(
        eager_frames >= 8,
        "crumpled: eager in {eager_frames} of 12 frames"
    );
    let mut last = 0;
    for _ in 0..20 {
        last = run(&[Affine::IDENTITY; 10], &mut out);
    }
    assert!(
        last * 5 < vertices,
        "flat: still deforming {last} of {vertices} vertices"
    );
}

#[test]
fn random_poses_match_brute_force() {
    let mut r = rng(11);
    let (length, bones) = (8.0, 8);
    let mesh = tube(length, 24, 12);
    let weights = tube_weights(&mesh, bones, length, 6);
    let mut skin = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights,
        vec![Affine::IDENTITY; bones],
    )
    .unwrap();
    let poses: Vec<Vec<Affine>> = (0..30)
        .map(|_| {
            (0..bones)
                .map(|_| random_governor(&mut r, 0.3, 1.5))
                .collect()
        })
        .collect();
    use rapier3d_deform::bn_tree::BnTreeOptions;
    // Every preset: the tree's shape and O(m) data change, the pairs must not.
    for options in [
        BnTreeOptions::default(),
        BnTreeOptions::SELF_COLLISION,
        BnTreeOptions::COLLIDER,
    ] {
        let (pairs, _) = compare_frames_with(&mesh, &mut skin, &poses, options);
        assert!(pairs > 0);
    }
}

/// A strip winding 1.25 turns around the z axis, nearly flat (all normals have a positive z
/// component), whose end is tilted against its start so the two layers cross along a line.
fn helical_strip(turns: f32, steps: usize, across: usize) -> TriangleMesh {
    let mut p = Vec::new();
    for i in 0..=steps {
        let theta = turns * std::f32::consts::TAU * i as f32 / steps as f32;
        let s = -0.3 + 0.6 * i as f32 / steps as f32;
        for j in 0..=across {
            let r = 1.0 + j as f32 / across as f32;
            p.push(Vec3::new(r * theta.cos(), r * theta.sin(), (r - 1.5) * s));
        }
    }
    let w = (across + 1) as u32;
    let mut t = Vec::new();
    for i in 0..steps as u32 {
        for j in 0..across as u32 {
            let a = i * w + j;
            // Counter-clockwise seen from +z.
            t.push([a, a + w, a + 1]);
            t.push([a + 1, a + w, a + w + 1]);
        }
    }
    TriangleMesh::new(p, t).unwrap()
}

#[test]
fn contour_test_catches_a_strip_passing_through_itself_with_all_normals_up() {
    let mesh = helical_strip(1.25, 200, 6);
    let weights =
        ConvexWeights::from_rows((0..mesh.vertex_count()).map(|_| [(0u32, 1.0f32)]), 1).unwrap();
    let mut skin =
        LinearBlendSkinning::new(mesh.positions().to_vec(), weights, vec![Affine::IDENTITY])
            .unwrap();
    let (pairs, fast_misses) = compare_frames(&mesh, &mut skin, &vec![vec![Affine::IDENTITY]; 3]);
    assert!(pairs > 0, "the strip crosses itself");
    assert!(
        fast_misses > 0,
        "without the contour test the normal test prunes the crossing"
    );
}

/// The small-mesh route (`run_sweep`) finds exactly the brute-force pairs, frame after frame on
/// the Fox's clips (576 triangles, the size it is chosen for) and on random poses of a tube, with
/// the same query state reused between both routes; a wrong governor count leaves `out` alone.
#[test]
fn sweep_route_equals_brute_force_and_the_traversal() {
    let mut fox = rapier3d_deform_scenes::fox::SubdividedFox::load(
        rapier3d_deform_scenes::asset_path("skinned/Fox.glb"),
        0,
    )
    .unwrap();
    let mesh = fox.mesh().clone();
    let rest = fox.skinning().rest_positions().to_vec();
    let weights = fox.skinning().weights().clone();
    let tree = BnTree::build(&mesh, &rest, &weights).unwrap();
    let mut query = SelfCollisionQuery::new(&tree);
    let (mut swept, mut traversed) = (Vec::new(), Vec::new());
    let mut nonempty = 0;
    for name in ["Walk", "Run"] {
        let clip = fox.clip(name).unwrap().clone();
        for k in 0..12 {
            let g = fox
                .governors_at(&clip, clip.duration() * k as f32 / 12.0)
                .unwrap();
            query.run_sweep(&tree, &g, &mut swept).unwrap();
            query
                .run(
                    &tree,
                    &g,
                    RefitPolicy::OnDemand,
                    CullingMode::Conservative,
                    &mut traversed,
                )
                .unwrap();
            let posed: Vec<Vec3> = (0..rest.len())
                .map(|v| deform_vertex(&rest, &weights, &g, v))
                .collect();
            let oracle = self_collisions_brute_force(&mesh, &posed).unwrap();
            assert_eq!(swept, oracle, "{name} frame {k}: sweep");
            assert_eq!(traversed, oracle, "{name} frame {k}: traversal");
            nonempty += usize::from(!oracle.is_empty());
        }
    }
    assert!(nonempty > 0, "the Fox's legs should cross on some frames");

    let mesh = tube(2.0, 16, 12);
    let weights = tube_weights(&mesh, 4, 2.0, 3);
    let tree = BnTree::build(&mesh, mesh.positions(), &weights).unwrap();
    let mut query = SelfCollisionQuery::new(&tree);
    let mut r = rng(41);
    for _ in 0..20 {
        let g: Vec<Affine> = (0..4).map(|_| random_governor(&mut r, 0.8, 0.3)).collect();
        query.run_sweep(&tree, &g, &mut swept).unwrap();
        let posed: Vec<Vec3> = (0..mesh.vertex_count())
            .map(|v| deform_vertex(mesh.positions(), &weights, &g, v))
            .collect();
        assert_eq!(swept, self_collisions_brute_force(&mesh, &posed).unwrap());
    }
    let before = swept.clone();
    assert!(
        query
            .run_sweep(&tree, &[Affine::IDENTITY], &mut swept)
            .is_err()
    );
    assert_eq!(swept, before, "a rejected sweep leaves its output alone");
}

/// Leaf pairs of every size (down to single triangles) report exactly the brute-force pairs on
/// the Fox Loop-subdivided once: on frames of its Walk clip and on those frames with one bone at
/// a time swung by up to ±115° about one of its vertices, so that limbs pass through the body and
/// leaves meet leaves with many overlapping triangle boxes. The lazy BN-Tree and the HSC baseline
/// share the leaf-pair code; both are checked.
#[test]
fn leaf_pairs_match_brute_force_under_large_single_bone_rotations() {
    use rand::Rng;
    use rapier3d_deform::bn_tree::BnTreeOptions;
    let mut fox = rapier3d_deform_scenes::fox::SubdividedFox::load(
        rapier3d_deform_scenes::asset_path("skinned/Fox.glb"),
        1,
    )
    .unwrap();
    let mesh = fox.mesh().clone();
    let rest = fox.skinning().rest_positions().to_vec();
    let weights = fox.skinning().weights().clone();
    let bones = weights.governor_count();
    // Per bone, the vertex it weighs most (the pivot of its swing).
    let mut pivot = vec![(0usize, 0f32); bones];
    for v in 0..rest.len() {
        let (g, w) = weights.row(v);
        for (&g, &w) in g.iter().zip(w) {
            if w > pivot[g as usize].1 {
                pivot[g as usize] = (v, w);
            }
        }
    }
    let base = fox.clip_frames(&["Walk"], 4).unwrap();
    let mut r = rng(23);
    let mut poses = base.clone();
    for frame in &base {
        for _ in 0..4 {
            let k = r.random_range(0..bones);
            if pivot[k].1 == 0.0 {
                continue;
            }
            let axis = Vec3::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
            )
            .normalize_or(Vec3::X);
            let angle: f32 = r.random_range(-2.0..2.0);
            let centre = frame[k].transform_point(rest[pivot[k].0]);
            let rot = Mat3::from_quat(Quat::from_axis_angle(axis, angle));
            let mut pose = frame.clone();
            pose[k] = Affine::new(rot, centre - rot * centre).compose(&frame[k]);
            poses.push(pose);
        }
    }
    let oracles: Vec<Vec<[u32; 2]>> = poses
        .iter()
        .map(|g| {
            let posed: Vec<Vec3> = (0..rest.len())
                .map(|v| deform_vertex(&rest, &weights, g, v))
                .collect();
            self_collisions_brute_force(&mesh, &posed).unwrap()
        })
        .collect();
    let swung_pairs: usize = oracles[base.len()..].iter().map(Vec::len).sum();
    let walk_pairs: usize = oracles[..base.len()].iter().map(Vec::len).sum();
    assert!(
        swung_pairs > 4 * walk_pairs.max(1),
        "the swings should cross limbs through the body: {swung_pairs} pairs swung, {walk_pairs} walking"
    );
    let mut out = Vec::new();
    for leaf_triangles in [1, 3, 16, 64] {
        let options = BnTreeOptions {
            leaf_triangles,
            ..BnTreeOptions::SELF_COLLISION
        };
        let tree = BnTree::build_with(&mesh, &rest, &weights, options).unwrap();
        let mut lazy = SelfCollisionQuery::new(&tree);
        let mut hsc = SelfCollisionQuery::new(&tree);
        for (f, (g, oracle)) in poses.iter().zip(&oracles).enumerate() {
            lazy.run(
                &tree,
                g,
                RefitPolicy::OnDemand,
                CullingMode::Conservative,
                &mut out,
            )
            .unwrap();
            assert_eq!(
                &out, oracle,
                "leaves of {leaf_triangles}, pose {f}: BN-Tree"
            );
            hsc.run(
                &tree,
                g,
                RefitPolicy::BottomUpEveryFrame,
                CullingMode::Conservative,
                &mut out,
            )
            .unwrap();
            assert_eq!(&out, oracle, "leaves of {leaf_triangles}, pose {f}: HSC");
        }
    }
}
