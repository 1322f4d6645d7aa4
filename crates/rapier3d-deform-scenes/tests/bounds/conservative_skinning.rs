//! Contract: for linear blend skinning, every node's O(m) AABB contains every skinned vertex of the node and every
//! direction of its O(m) discrete normal cone sees every skinned triangle normal from the positive side, over at
//! least 10,000 random poses (random rotations, non-uniform scales within ±50 %, translations; coherent and random
//! weights, up to 12 influences), with zero violations; and the oracle itself catches a shrunk bound.

use crate::common;

use common::*;
use rapier3d_deform::bounds::{BoundsWorkspace, PatchHierarchy};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{Affine, GovernedDeformation};

fn run(seed: u64, poses: usize, coherent: bool, amplitude: f32) -> Tally {
    let mut r = rng(seed);
    let length = 8.0;
    let mesh = tube(length, 12, 10);
    let bones = 12;
    let weights = if coherent {
        tube_weights(&mesh, bones, length, 12)
    } else {
        random_weights(&mut r, mesh.vertex_count(), bones, 12)
    };
    assert!(weights.max_influences() >= 9);
    let mut skin = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights.clone(),
        vec![Affine::IDENTITY; bones],
    )
    .unwrap();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, mesh.positions(), &weights, &h);
    let mut ws = BoundsWorkspace::default();
    let mut deformed = Vec::new();
    let mut tally = Tally::default();
    for _ in 0..poses {
        let pose: Vec<Affine> = (0..bones)
            .map(|_| random_governor(&mut r, amplitude, 2.0))
            .collect();
        skin.set_skinning_transforms(&pose).unwrap();
        check_pose(
            &mesh,
            &h,
            &patches,
            &skin,
            &mut ws,
            &mut deformed,
            &mut tally,
        );
    }
    assert_oracle_catches_shrunk_bounds(&mesh, &h, &skin.deformed_positions());
    tally
}

#[test]
fn skinning_bounds_are_conservative_over_10k_random_poses() {
    let mut total = Tally::default();
    for (seed, poses, coherent, amplitude) in [
        (1, 4000, true, 0.15),
        (2, 3000, true, 1.0),
        (3, 2000, false, 0.15),
        (4, 1000, false, 1.0),
    ] {
        let t = run(seed, poses, coherent, amplitude);
        assert_eq!(t.aabb_violations, 0, "seed {seed}: {t:?}");
        assert_eq!(t.normal_violations, 0, "seed {seed}: {t:?}");
        total.poses += t.poses;
        total.normal_checks += t.normal_checks;
        total.nonempty_cones += t.nonempty_cones;
        total.vertices_checked += t.vertices_checked;
    }
    eprintln!("{total:?}");
    assert!(total.poses >= 10_000);
    // The normal test is not vacuous: mild poses of coherent weights give many non-empty cones.
    assert!(total.normal_checks > 100_000, "{total:?}");
}
