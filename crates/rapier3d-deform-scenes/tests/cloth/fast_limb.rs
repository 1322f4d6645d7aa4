//! Contract: a limb crossing a cloth sheet in one step (0.3 m per 1/60 s) pushes the vertices it sweeps ahead of it — the continuous test finds what a discrete test at the step's end cannot — and no vertex ends inside the limb.

use super::common::tube;
use super::oracle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{Cloth, ClothOptions, ContactThresholds, SkinCollision};
use rapier3d_deform::governor::{Affine, ConvexWeights, deform_vertices};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;

const RADIUS: f32 = 0.04;

/// A capped cylinder of radius [`RADIUS`] along z (|z| ≤ 0.25), outward-oriented, one bone.
fn limb() -> (TriangleMesh, ConvexWeights) {
    let t = tube(4.0, 16, 24);
    let p: Vec<Vec3> = t
        .positions()
        .iter()
        .map(|p| Vec3::new(RADIUS * p.y, RADIUS * p.z, 0.1 * (p.x - 2.0)))
        .collect();
    // The tube's winding faces inward: flip it.
    let tris: Vec<[u32; 3]> = t.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect();
    let mesh = TriangleMesh::new(p, tris).unwrap();
    let volume: f32 = mesh
        .triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| mesh.positions()[v as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    assert!(volume > 0.0, "outward orientation: volume {volume}");
    let weights =
        ConvexWeights::from_rows(mesh.positions().iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    (mesh, weights)
}

/// A sheet in the plane x = 0, |y| ≤ 0.15, |z| ≤ 0.1, 1 cm spacing, pinned at y = ±0.15.
fn sheet() -> Cloth {
    let (nu, nv) = (31, 21);
    let mut p = Vec::new();
    for j in 0..nv {
        for i in 0..nu {
            p.push(Vec3::new(
                0.0,
                -0.15 + 0.01 * i as f32,
                -0.1 + 0.01 * j as f32,
            ));
        }
    }
    let id = |i: usize, j: usize| (j * nu + i) as u32;
    let mut t = Vec::new();
    for j in 0..nv - 1 {
        for i in 0..nu - 1 {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    let pinned: Vec<u32> = (0..nv).flat_map(|j| [id(0, j), id(nu - 1, j)]).collect();
    let options = ClothOptions {
        gravity: Vec3::ZERO,
        ..ClothOptions::default()
    };
    Cloth::new(p, t, &pinned, options).unwrap()
}

fn at(x: f32) -> Vec<Affine> {
    vec![Affine::new(Mat3::IDENTITY, Vec3::new(x, 0.0, 0.0))]
}

#[test]
fn a_limb_sweeping_through_the_cloth_in_one_step_pushes_it_ahead() {
    let (mesh, weights) = limb();
    let avatar =
        AvatarBoxes::build(&mesh, mesh.positions(), &weights, AvatarOptions::default()).unwrap();
    let thresholds = ContactThresholds::default();
    let mut collision = SkinCollision::new(&avatar, thresholds).unwrap();
    let mut cloth = sheet();
    let dt = 1.0 / 60.0;
    let poses = [-0.15f32, 0.15, 0.15, 0.3];
    let mut posed = Vec::new();
    for k in 1..poses.len() {
        let (previous, current) = (at(poses[k - 1]), at(poses[k]));
        cloth.step(dt).unwrap();
        let before = cloth.positions().to_vec();
        collision
            .resolve(&mut cloth, &avatar, &previous, &current, dt)
            .unwrap();
        deform_vertices(mesh.positions(), &weights, &current, &mut posed);
        for (i, &x) in cloth.positions().iter().enumerate() {
            let d = oracle::signed_distance(mesh.triangles(), &posed, x);
            assert!(d >= -thresholds.thickness, "step {k} vertex {i}: {d}");
        }
        if k == 1 {
            // The swept vertices: within the limb's footprint.
            let mut swept = 0;
            for (i, &x) in cloth.positions().iter().enumerate() {
                if before[i].y.abs() > 0.8 * RADIUS {
                    continue;
                }
                swept += 1;
                // At the step's end they lie far behind the limb: a discrete test misses them.
                let gap = oracle::signed_distance(mesh.triangles(), &posed, before[i]);
                assert!(gap > thresholds.outside, "vertex {i}: {gap}");
                // The continuous test put them ahead of the limb's front.
                assert!(
                    x.x >= poses[1] + 0.5 * RADIUS,
                    "vertex {i} left behind at {x} (limb at x = {})",
                    poses[1]
                );
            }
            assert!(swept >= 6 * 21, "{swept}");
            assert!(collision.stats().continuous_hits >= swept);
        }
    }
}
