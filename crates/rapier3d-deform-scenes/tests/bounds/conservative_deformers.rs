//! Contract: for the example blend (examples × bones, per-vertex example weights), point-based animation (particles
//! with affine fields) and Loop subdivision (control points, with the BN-Tree §5 best-fit cones), every node's O(m)
//! AABB contains every deformed vertex and every direction of its O(m) normal cone sees every deformed triangle
//! normal, over 10,000 random poses per deformer (random rotations, non-uniform scales within ±50 %, random valid
//! weights), with zero violations. (Skinning: `conservative_skinning.rs`; morph targets: unit tests of
//! `deformation::morph_targets`.)

use crate::common;

use common::*;
use rand::Rng;
use rapier3d_deform::bounds::{BoundsWorkspace, PatchHierarchy};
use rapier3d_deform::deformation::{ExampleBlend, LoopSubdivision, PointBasedAnimation};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::validation::{count_aabb_violations, count_cone_violations};

const POSES: usize = 10_000;

#[test]
fn example_blend_bounds_are_conservative_over_10k_poses() {
    let mut r = rng(31);
    let (length, bones, examples) = (6.0, 6, 3);
    let mesh = tube(length, 8, 8);
    let bone_weights = tube_weights(&mesh, bones, length, 4);
    let identity = vec![Affine::IDENTITY; bones];
    let mut blend = ExampleBlend::new(
        mesh.positions().to_vec(),
        bone_weights,
        vec![identity; examples],
    )
    .unwrap();
    // Random valid per-vertex example weights, smooth along the tube.
    let (a, b) = (r.random_range(0.5..2.0), r.random_range(0.0..3.0));
    let beta: Vec<f32> = mesh
        .positions()
        .iter()
        .flat_map(|p| {
            let s = 0.5 + 0.5 * (a * p.x + b).sin();
            let raw = [1.0 - s + 0.1, s * 0.6 + 0.05, s * 0.4 + 0.05];
            let sum: f32 = raw.iter().sum();
            raw.map(|x| x / sum)
        })
        .collect();
    blend.set_example_weights(&beta).unwrap();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, blend.rest_positions(), blend.weights(), &h);
    let mut ws = BoundsWorkspace::default();
    let mut deformed = Vec::new();
    let mut tally = Tally::default();
    for pose in 0..POSES {
        let amplitude = if pose % 2 == 0 { 0.15 } else { 1.0 };
        for e in 0..examples {
            let t: Vec<Affine> = (0..bones)
                .map(|_| random_governor(&mut r, amplitude, 1.0))
                .collect();
            blend.set_example_transforms(e, &t).unwrap();
        }
        check_pose(
            &mesh,
            &h,
            &patches,
            &blend,
            &mut ws,
            &mut deformed,
            &mut tally,
        );
    }
    assert_eq!(
        (tally.aabb_violations, tally.normal_violations),
        (0, 0),
        "{tally:?}"
    );
    assert!(tally.normal_checks > 10_000, "{tally:?}");
    assert_oracle_catches_shrunk_bounds(&mesh, &h, &deformed);
}

#[test]
fn point_based_bounds_are_conservative_over_10k_poses() {
    let mut r = rng(32);
    let mesh = tube(6.0, 8, 8);
    let particles: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new(-0.5 + i as f32, 0.0, 0.0))
        .collect();
    let mut pba =
        PointBasedAnimation::new(mesh.positions().to_vec(), particles.clone(), 2.6).unwrap();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, pba.rest_positions(), pba.weights(), &h);
    let mut ws = BoundsWorkspace::default();
    let mut deformed = Vec::new();
    let mut tally = Tally::default();
    for pose in 0..POSES {
        let amplitude = if pose % 2 == 0 { 0.15 } else { 1.0 };
        let fields: Vec<(Vec3, Mat3)> = particles
            .iter()
            .map(|p| {
                let g = random_governor(&mut r, amplitude, 0.3);
                (g.transform_point(*p), g.linear)
            })
            .collect();
        let positions: Vec<Vec3> = fields.iter().map(|f| f.0).collect();
        let matrices: Vec<Mat3> = fields.iter().map(|f| f.1).collect();
        pba.set_particles(&positions, &matrices).unwrap();
        check_pose(
            &mesh,
            &h,
            &patches,
            &pba,
            &mut ws,
            &mut deformed,
            &mut tally,
        );
    }
    assert_eq!(
        (tally.aabb_violations, tally.normal_violations),
        (0, 0),
        "{tally:?}"
    );
    assert!(tally.normal_checks > 10_000, "{tally:?}");
    assert_oracle_catches_shrunk_bounds(&mesh, &h, &deformed);
}

#[test]
fn loop_subdivision_bounds_are_conservative_over_10k_poses() {
    let mut r = rng(33);
    let control = tube(4.0, 3, 6);
    let rest_points = control.positions().to_vec();
    let mut sub = LoopSubdivision::new(control, 1).unwrap();
    let mesh = sub.mesh().clone();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, sub.rest_positions(), sub.weights(), &h);
    let mut ws = BoundsWorkspace::default();
    let mut deformed = Vec::new();
    let (mut aabb_bad, mut cone_bad, mut checks) = (0, 0, 0);
    for pose in 0..POSES {
        let amplitude = if pose % 2 == 0 { 0.1 } else { 1.0 };
        let g = random_governor(&mut r, amplitude, 1.0);
        let points: Vec<Vec3> = rest_points
            .iter()
            .map(|p| {
                let noise = Vec3::new(
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                );
                g.transform_point(*p) + noise * (0.1 * amplitude)
            })
            .collect();
        sub.set_control_points(&points).unwrap();
        sub.deform_into(&mut deformed);
        for (i, patch) in patches.iter().enumerate() {
            let aabb = patch.aabb(sub.governors(), &mut ws);
            aabb_bad += count_aabb_violations(&aabb, &deformed, h.node_vertices(i));
            let cone = patch.normal_cone_point_governors(&points, &rest_points, &mut ws);
            cone_bad += count_cone_violations(cone, &mesh, &deformed, h.node_triangles(i));
            checks += cone.count() as usize * h.node_triangles(i).len();
        }
    }
    assert_eq!((aabb_bad, cone_bad), (0, 0));
    assert!(checks > 10_000, "{checks}");
    assert_oracle_catches_shrunk_bounds(&mesh, &h, &deformed);
}
