//! Contract: after a warm-up frame, a BN-Tree self-collision query allocates nothing (counted by a global
//! allocator), in both culling modes and for the HSC policy.

use crate::common;
use crate::counting_alloc;

use common::*;
use rapier3d_deform::bn_tree::{BnTree, CullingMode, RefitPolicy, SelfCollisionQuery};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::Affine;

#[test]
fn queries_do_not_allocate_after_warm_up() {
    let mut r = rng(3);
    let (length, bones) = (8.0, 8);
    let mesh = tube(length, 30, 12);
    let weights = tube_weights(&mesh, bones, length, 4);
    let skin = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights,
        vec![Affine::IDENTITY; bones],
    )
    .unwrap();
    let tree = BnTree::build(&mesh, mesh.positions(), &skin_weights(&skin)).unwrap();
    let poses: Vec<Vec<Affine>> = (0..12)
        .map(|_| {
            (0..bones)
                .map(|_| random_governor(&mut r, 0.2, 0.5))
                .collect()
        })
        .collect();
    for (policy, mode) in [
        (RefitPolicy::OnDemand, CullingMode::Conservative),
        (RefitPolicy::OnDemand, CullingMode::Fast),
        (RefitPolicy::BottomUpEveryFrame, CullingMode::Conservative),
    ] {
        let mut query = SelfCollisionQuery::new(&tree);
        let mut out = Vec::with_capacity(1 << 16);
        // Warm-up: every pose once grows the scratch buffers to their working size.
        for pose in &poses {
            query.run(&tree, pose, policy, mode, &mut out).unwrap();
        }
        let before = counting_alloc::allocations();
        for pose in &poses {
            query.run(&tree, pose, policy, mode, &mut out).unwrap();
        }
        let after = counting_alloc::allocations();
        assert_eq!(after - before, 0, "{policy:?} {mode:?} allocated");
    }
}

fn skin_weights(skin: &LinearBlendSkinning) -> rapier3d_deform::governor::ConvexWeights {
    use rapier3d_deform::governor::GovernedDeformation;
    skin.weights().clone()
}
