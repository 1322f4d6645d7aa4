//! Contract: on every measured frame of the self-collision benchmark scenes at reduced size (the cat's walk and run, the Fox's Walk and Run, the cloth, the point-based teddy), the BN-Tree in conservative mode, the HSC baseline and the deform-all + BVH-refit route all report exactly the brute-force oracle's self-collision pairs.

use rapier3d_deform_scenes::asset_path;

use rapier3d_deform::bn_tree::{BnTree, CullingMode, RefitPolicy, SelfCollisionQuery};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::BvhRefitSelfCollision;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use rapier3d_deform_scenes::cloth::ClothAnimation;
use rapier3d_deform_scenes::fox::SubdividedFox;
use rapier3d_deform_scenes::teddy::Teddy;

/// Runs every method over `frames` (governors per frame) and compares each with brute force.
/// Returns the total number of reference pairs (so callers can require that the scene
/// self-collides at all).
fn check(
    name: &str,
    mesh: &TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
    frames: &[Vec<Affine>],
) -> usize {
    let tree = BnTree::build(mesh, rest, weights).unwrap();
    // The scenes' meshes are oriented manifolds: their queries prune by normals (the speed the
    // benchmarks measure), not only exactly.
    assert!(tree.prunes_by_normals(), "{name}: not an oriented manifold");
    let mut bn = SelfCollisionQuery::new(&tree);
    let mut hsc = SelfCollisionQuery::new(&tree);
    let mut bvh = BvhRefitSelfCollision::new(mesh, rest).unwrap();
    let (mut out, mut positions) = (Vec::new(), Vec::new());
    let mut total = 0;
    for (f, governors) in frames.iter().enumerate() {
        deform_vertices(rest, weights, governors, &mut positions);
        let expected = self_collisions_brute_force(mesh, &positions).unwrap();
        total += expected.len();
        bn.run(
            &tree,
            governors,
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, expected, "{name}: BN-Tree, frame {f}");
        hsc.run(
            &tree,
            governors,
            RefitPolicy::BottomUpEveryFrame,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, expected, "{name}: HSC, frame {f}");
        bvh.detect(mesh, &positions, &mut out).unwrap();
        assert_eq!(out, expected, "{name}: BVH refit, frame {f}");
    }
    total
}

#[test]
fn cat_walk_and_run() {
    let mut cat = Cat::build(CatResolution::Tiny).unwrap();
    let mut total = 0;
    for gait in Gait::ALL {
        let frames: Vec<Vec<Affine>> = cat
            .frames(gait, 5)
            .iter()
            .map(|world| {
                cat.skinning_mut().set_bone_transforms(world).unwrap();
                cat.skinning().governors().to_vec()
            })
            .collect();
        let skin = cat.skinning();
        total += check(
            &format!("cat {gait:?}"),
            cat.mesh(),
            skin.rest_positions(),
            skin.weights(),
            &frames,
        );
    }
    assert!(total > 0, "the cat should self-collide somewhere");
}

#[test]
fn fox_walk_and_run() {
    let mut fox = SubdividedFox::load(asset_path("skinned/Fox.glb"), 1).unwrap();
    let mut frames = Vec::new();
    for name in ["Walk", "Run"] {
        let clip = fox.clip(name).unwrap().clone();
        for k in 0..6 {
            let t = clip.duration() * k as f32 / 6.0;
            frames.push(fox.governors_at(&clip, t).unwrap());
        }
    }
    let skin = fox.skinning();
    check(
        "fox",
        fox.mesh(),
        skin.rest_positions(),
        skin.weights(),
        &frames,
    );
}

#[test]
fn cloth_level_two() {
    let anim = ClothAnimation::simulate(1, 130).unwrap();
    let mut fine = anim.subdivided(2).unwrap();
    let frames: Vec<Vec<Affine>> = anim
        .frames()
        .iter()
        .skip(40)
        .step_by(12)
        .map(|points| {
            fine.set_control_points(points).unwrap();
            fine.governors().to_vec()
        })
        .collect();
    let total = check(
        "cloth",
        fine.mesh(),
        fine.rest_positions(),
        fine.weights(),
        &frames,
    );
    assert!(total > 0, "the cloth should self-collide");
}

#[test]
fn point_based_teddy() {
    let mut teddy = Teddy::from_obj_file(asset_path("closed/spot.obj"), 0).unwrap();
    let frames: Vec<Vec<Affine>> = (0..6)
        .map(|k| {
            teddy.pose(k as f32 / 6.0).unwrap();
            teddy.animation().governors().to_vec()
        })
        .collect();
    let anim = teddy.animation();
    let total = check(
        "teddy",
        teddy.mesh(),
        anim.rest_positions(),
        anim.weights(),
        &frames,
    );
    assert!(total > 0, "the teddy's head should press into its back");
}
