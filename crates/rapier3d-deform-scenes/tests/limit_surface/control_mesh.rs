//! Contract: `LimitPatches` gathers each control triangle's patch (kinds and canonical control points) of a closed
//! mesh, every limit normal of every patch sampled by deep subdivision of the whole mesh lies in its cone, and bad
//! control meshes (non-manifold edges or vertices, boundary vertices, valence above 12, two irregular corners, wrong
//! or non-finite positions) are refused with typed errors naming the vertex or triangle, never a panic.

use super::local::{angle, opposite_map};
use rapier3d_deform::DeformError;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::limit_surface::{LimitPatches, NormalBound, PatchKind};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use std::f64::consts::TAU;

fn octahedron() -> TriangleMesh {
    rapier3d_deform_scenes::subdiv::octahedron()
}

/// A bipyramid over an `m`-gon: apexes of valence `m`, equator vertices of valence 4.
fn bipyramid(m: usize) -> TriangleMesh {
    let mut p = vec![Vec3::Z, -Vec3::Z];
    for k in 0..m {
        let a = TAU as f32 * k as f32 / m as f32;
        p.push(Vec3::new(a.cos(), a.sin(), 0.0));
    }
    let mut t = Vec::new();
    for k in 0..m as u32 {
        let (a, b) = (2 + k, 2 + (k + 1) % m as u32);
        t.push([0, a, b]);
        t.push([1, b, a]);
    }
    TriangleMesh::new(p, t).unwrap()
}

/// One Loop step of a closed mesh (at most one irregular corner per triangle), jittered.
fn refined(control: TriangleMesh, jitter: f32) -> TriangleMesh {
    let s = LoopSubdivision::new(control, 1).unwrap();
    let p: Vec<Vec3> = s
        .mesh()
        .positions()
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let h = (i as u32).wrapping_mul(2654435761);
            let f = |k: u32| ((h.rotate_left(k) % 1000) as f32 / 1000.0 - 0.5) * jitter;
            q + Vec3::new(f(0), f(11), f(22))
        })
        .collect();
    TriangleMesh::new(p, s.mesh().triangles().to_vec()).unwrap()
}

#[test]
fn every_patch_cone_holds_the_whole_meshs_limit_normals() {
    for (control, levels) in [
        (refined(octahedron(), 0.1), 5u32),
        (refined(bipyramid(7), 0.05), 4),
        (refined(bipyramid(3), 0.05), 4),
    ] {
        let patches = LimitPatches::new(&control).unwrap();
        let bounds = patches.normal_bounds(control.positions()).unwrap();
        let mut kinds = [0usize; 2];
        for t in 0..patches.patch_count() {
            kinds[matches!(patches.kind(t), Some(PatchKind::Irregular { .. })) as usize] += 1;
            let ids = patches.control_indices(t).unwrap();
            assert_eq!(
                ids[0..3]
                    .iter()
                    .filter(|i| control.triangles()[t].contains(i))
                    .count(),
                3
            );
        }
        assert!(kinds[0] > 0 && kinds[1] > 0);
        let last = patches.patch_count();
        assert!(patches.kind(last).is_none() && patches.control_indices(last).is_none());
        // Deep subdivision of the whole mesh: fine triangles 4^L t .. 4^L (t+1) refine patch t.
        let sub = LoopSubdivision::new(control.clone(), levels).unwrap();
        let fine = sub.deformed_positions();
        let tris = sub.mesh().triangles();
        let opp = opposite_map(tris);
        let mut start = std::collections::HashMap::new();
        for t in tris {
            for c in 0..3 {
                start.entry(t[c]).or_insert(t[(c + 1) % 3]);
            }
        }
        let normal_at = |v: u32| {
            let first = start[&v];
            let mut ring = vec![first];
            while opp[&(v, *ring.last().unwrap())] != first {
                ring.push(opp[&(v, *ring.last().unwrap())]);
            }
            let m = ring.len() as f64;
            let (mut t1, mut t2) = ([0.0f64; 3], [0.0f64; 3]);
            for (k, &r) in ring.iter().enumerate() {
                let a = TAU * k as f64 / m;
                let q = fine[r as usize];
                for (d, x) in [q.x, q.y, q.z].into_iter().enumerate() {
                    t1[d] += a.cos() * x as f64;
                    t2[d] += a.sin() * x as f64;
                }
            }
            super::local::cross(t1, t2)
        };
        let per = 1usize << (2 * levels);
        let mut cones = 0;
        for (t, bound) in bounds.iter().enumerate() {
            let NormalBound::Cone(c) = bound else {
                continue;
            };
            cones += 1;
            for tri in &tris[t * per..(t + 1) * per] {
                for &v in tri {
                    let excess = angle(c.axis(), normal_at(v)) - c.half_angle();
                    assert!(excess < 1e-4, "patch {t}: {excess:e}");
                }
            }
        }
        assert!(
            cones * 10 >= 9 * bounds.len(),
            "{cones} cones of {}",
            bounds.len()
        );
    }
}

#[test]
fn bad_control_meshes_are_refused_with_the_culprit_named() {
    // Non-manifold edge: three triangles on (0, 1).
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Y];
    let m = TriangleMesh::new(p, vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]]).unwrap();
    assert!(matches!(
        LimitPatches::new(&m),
        Err(DeformError::NonManifoldEdge {
            a: 0,
            b: 1,
            triangles: 3
        })
    ));
    // Open mesh: a boundary vertex.
    let tri = TriangleMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]).unwrap();
    assert!(matches!(
        LimitPatches::new(&tri),
        Err(DeformError::BoundaryVertex { vertex: 0 })
    ));
    // Two octahedra sharing vertex 0 only: its triangles form two fans.
    let a = octahedron();
    let mut p = a.positions().to_vec();
    p.extend(
        a.positions()[1..]
            .iter()
            .map(|q| *q + Vec3::new(2.0, 0.0, 0.0)),
    );
    let mut t = a.triangles().to_vec();
    let shift = |v: u32| if v == 0 { 0 } else { v + 5 };
    t.extend(a.triangles().iter().map(|tr| tr.map(shift)));
    let m = TriangleMesh::new(p, t).unwrap();
    assert!(matches!(
        LimitPatches::new(&m),
        Err(DeformError::NonManifoldVertex {
            vertex: 0,
            triangles: 8
        })
    ));
    // Valence above the table.
    assert!(matches!(
        LimitPatches::new(&bipyramid(13)),
        Err(DeformError::UnsupportedValence {
            vertex: 0,
            valence: 13,
            min: 3,
            max: 12
        })
    ));
    // Two irregular corners per triangle (the octahedron itself): subdivide once first.
    assert!(matches!(
        LimitPatches::new(&octahedron()),
        Err(DeformError::TooManyIrregularCorners {
            triangle: 0,
            irregular: 3
        })
    ));
    // Positions: wrong count, non-finite.
    let good = refined(octahedron(), 0.0);
    let patches = LimitPatches::new(&good).unwrap();
    assert!(matches!(
        patches.normal_bounds(&good.positions()[1..]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut bad = good.positions().to_vec();
    bad[7].z = f32::NAN;
    assert!(matches!(
        patches.normal_bounds(&bad),
        Err(DeformError::NonFinitePosition { index: 7, .. })
    ));
    // Collapsed control points give no cone, not a panic.
    let flat = vec![Vec3::ZERO; good.vertex_count()];
    for b in patches.normal_bounds(&flat).unwrap() {
        assert_eq!(b, NormalBound::Unbounded);
    }
}

#[test]
fn patch_functions_refuse_bad_arguments() {
    use rapier3d_deform::limit_surface::{
        eigen_normal_bound, regular_normal_bound, tightened_normal_bound,
    };
    assert!(matches!(
        eigen_normal_bound(13, &[[0.0; 3]; 19], 0),
        Err(DeformError::InvalidParameter {
            name: "valence",
            ..
        })
    ));
    assert!(matches!(
        tightened_normal_bound(5, &[[0.0; 3]; 10]),
        Err(DeformError::LengthMismatch {
            expected: 11,
            actual: 10,
            ..
        })
    ));
    let mut p = [[1.0; 3]; 12];
    p[3][1] = f64::INFINITY;
    assert!(matches!(
        regular_normal_bound(&p),
        Err(DeformError::NonFinitePosition { index: 3, .. })
    ));
    // Steps beyond any float range collapse the patch to its limit point: no cone, no panic.
    let q = super::local::base_positions(4);
    assert!(eigen_normal_bound(4, &q, 3).unwrap().cone().is_some());
    assert_eq!(
        eigen_normal_bound(4, &q, u32::MAX).unwrap(),
        NormalBound::Unbounded
    );
}
