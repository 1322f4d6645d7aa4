//! Contract: for Loop subdivision (control points as governors), the O(m) AABBs and the BN-Tree §5 normal bounds
//! (per-patch best-fit affine of the control points) contain every subdivided vertex and normal over thousands of
//! random control-point motions, with zero violations; the best-fit bound keeps most cones that the exact bottom-up
//! cones have; and the BN-Tree with point governors finds exactly the brute-force self-collisions of a crumpled
//! subdivided sheet.

use crate::common;

use common::*;
use rand::Rng;
use rapier3d_deform::bn_tree::{BnTree, CullingMode, RefitPolicy, SelfCollisionQuery};
use rapier3d_deform::bounds::{BoundsWorkspace, PatchHierarchy};
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform::validation::{count_aabb_violations, count_cone_violations, exact_cone};

/// An `n × n` grid sheet in the xy plane, counter-clockwise seen from +z.
fn grid(n: usize, size: f32) -> TriangleMesh {
    let p = (0..(n + 1) * (n + 1))
        .map(|i| {
            Vec3::new(
                size * (i % (n + 1)) as f32 / n as f32,
                size * (i / (n + 1)) as f32 / n as f32,
                0.0,
            )
        })
        .collect();
    let mut t = Vec::new();
    for y in 0..n as u32 {
        for x in 0..n as u32 {
            let i = y * (n as u32 + 1) + x;
            let w = n as u32 + 1;
            t.push([i, i + 1, i + w]);
            t.push([i + 1, i + w + 1, i + w]);
        }
    }
    TriangleMesh::new(p, t).unwrap()
}

/// Smooth random motion of the control points: a random rotation-free bend plus noise.
fn move_points(r: &mut rand_chacha::ChaCha8Rng, rest: &[Vec3], amplitude: f32) -> Vec<Vec3> {
    let (kx, ky, phase) = (
        r.random_range(0.5..2.0),
        r.random_range(0.5..2.0),
        r.random_range(0.0..std::f32::consts::TAU),
    );
    let rot = random_governor(r, 0.5, 0.5);
    rest.iter()
        .map(|p| {
            let z = amplitude * ((kx * p.x + phase).sin() + (ky * p.y).cos());
            let noise = Vec3::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
            );
            rot.transform_point(Vec3::new(p.x, p.y, z) + noise * 0.05 * amplitude)
        })
        .collect()
}

#[test]
fn subdivision_point_governor_bounds_are_conservative() {
    let mut r = rng(21);
    let control = grid(8, 4.0);
    let rest_points = control.positions().to_vec();
    let mut sub = LoopSubdivision::new(control, 2).unwrap();
    let mesh = sub.mesh().clone();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, sub.rest_positions(), sub.weights(), &h);
    let mut ws = BoundsWorkspace::default();
    let (mut aabb_bad, mut cone_bad, mut checks, mut exact_nonempty, mut both) = (0, 0, 0, 0, 0);
    for pose in 0..400 {
        let amplitude = if pose % 2 == 0 { 0.2 } else { 1.0 };
        let points = move_points(&mut r, &rest_points, amplitude);
        sub.set_control_points(&points).unwrap();
        let deformed = sub.deformed_positions();
        for (i, patch) in patches.iter().enumerate() {
            let aabb = patch.aabb(sub.governors(), &mut ws);
            aabb_bad += count_aabb_violations(&aabb, &deformed, h.node_vertices(i));
            let cone = patch.normal_cone_point_governors(&points, &rest_points, &mut ws);
            cone_bad += count_cone_violations(cone, &mesh, &deformed, h.node_triangles(i));
            checks += cone.count() as usize * h.node_triangles(i).len();
            if !exact_cone(&mesh, &deformed, h.node_triangles(i)).is_empty() {
                exact_nonempty += 1;
                both += !cone.is_empty() as usize;
            }
        }
    }
    assert_eq!(aabb_bad, 0);
    assert_eq!(cone_bad, 0);
    assert!(checks > 200_000, "{checks}");
    let agreement = both as f64 / exact_nonempty as f64;
    assert!(agreement > 0.8, "best-fit cone agreement {agreement}");
}

#[test]
fn bn_tree_with_point_governors_matches_brute_force_on_a_crumpled_sheet() {
    let mut r = rng(5);
    let control = grid(8, 2.0);
    let rest_points = control.positions().to_vec();
    let mut sub = LoopSubdivision::new(control, 2).unwrap();
    let mesh = sub.mesh().clone();
    let tree = BnTree::build(&mesh, sub.rest_positions(), sub.weights())
        .unwrap()
        .with_point_governors(rest_points.clone())
        .unwrap();
    let mut query = SelfCollisionQuery::new(&tree);
    let (mut out, mut total) = (Vec::new(), 0);
    for frame in 0..20 {
        // Fold the sheet over itself: the far half rotates about the middle line past 180°.
        let angle = 2.9 + 0.02 * frame as f32;
        let points: Vec<Vec3> = rest_points
            .iter()
            .map(|p| {
                let noise = Vec3::new(
                    r.random_range(-0.02..0.02),
                    r.random_range(-0.02..0.02),
                    r.random_range(-0.05..0.05),
                );
                if p.x <= 1.0 {
                    *p + noise
                } else {
                    let d = p.x - 1.0;
                    Vec3::new(
                        1.0 + d * angle.cos(),
                        p.y,
                        d * angle.sin() + 0.1 * (p.y * 3.0).sin(),
                    ) + noise
                }
            })
            .collect();
        sub.set_control_points(&points).unwrap();
        let expected = self_collisions_brute_force(&mesh, &sub.deformed_positions()).unwrap();
        query
            .run(
                &tree,
                sub.governors(),
                RefitPolicy::OnDemand,
                CullingMode::Conservative,
                &mut out,
            )
            .unwrap();
        assert_eq!(out, expected, "frame {frame}");
        total += expected.len();
    }
    assert!(total > 0, "the folded sheet must pass through itself");
}
