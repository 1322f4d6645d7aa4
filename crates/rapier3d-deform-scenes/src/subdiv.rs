//! Loop control meshes for limit-surface scenes and tests: a capsule-ended tube under a prescribed bend that folds it onto itself (Grinspun & Schröder 2001, Fig. 1), and a jittered sphere cage.

use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use std::f32::consts::TAU;

/// A closed capsule along `x`: a tube `0..length` of radius `radius` (`segments` around, `rings`
/// quad rows) with hemispherical ends (two rings each at 30° and 60° and a pole vertex), refined
/// by one Loop step so that no triangle has two irregular corners (what
/// [`rapier3d_deform::limit_surface::LimitPatches`] asks for). Irregular vertices: the poles
/// (valence `segments`) and the rings next to them (valence 5).
///
/// # Panics
/// For `segments < 3` or `rings < 1` (fixture sizes are constants of the callers).
pub fn tube_cage(segments: usize, rings: usize, radius: f32, length: f32) -> TriangleMesh {
    assert!(segments >= 3 && rings >= 1);
    // Ring centres and radii along x: the left cap, the tube, the right cap.
    let mut profile: Vec<(f32, f32)> = Vec::new();
    let cap = [60.0f32, 30.0];
    for deg in cap {
        let a = deg.to_radians();
        profile.push((-radius * a.sin(), radius * a.cos()));
    }
    for i in 0..=rings {
        profile.push((length * i as f32 / rings as f32, radius));
    }
    for deg in cap.iter().rev() {
        let a = deg.to_radians();
        profile.push((length + radius * a.sin(), radius * a.cos()));
    }
    let mut p = Vec::new();
    for &(x, r) in &profile {
        for j in 0..segments {
            let a = TAU * j as f32 / segments as f32;
            p.push(Vec3::new(x, r * a.cos(), r * a.sin()));
        }
    }
    let (c0, c1) = (p.len() as u32, p.len() as u32 + 1);
    p.push(Vec3::new(-radius, 0.0, 0.0));
    p.push(Vec3::new(length + radius, 0.0, 0.0));
    let id = |i: usize, j: usize| (i * segments + j % segments) as u32;
    let last = profile.len() - 1;
    let mut t = Vec::new();
    for i in 0..last {
        for j in 0..segments {
            let (a, b, c, d) = (id(i, j), id(i, j + 1), id(i + 1, j), id(i + 1, j + 1));
            t.push([a, b, c]);
            t.push([b, d, c]);
        }
    }
    for j in 0..segments {
        t.push([c0, id(0, j + 1), id(0, j)]);
        t.push([c1, id(last, j), id(last, j + 1)]);
    }
    let coarse = TriangleMesh::new(p, t).expect("the capsule is a valid mesh");
    LoopSubdivision::new(coarse, 1)
        .expect("one Loop step of a closed mesh")
        .mesh()
        .clone()
}

/// Bends points of a tube along `x` in the `x y` plane: the section `x0 ≤ x ≤ x0 + arc` becomes
/// a circular arc of total angle `angle` (radius `arc / angle`, bending towards `+y`), the part
/// beyond it is carried rigidly. With `angle = π` and `arc / π` below the tube radius the two legs
/// interpenetrate and the inner side of the bend folds through itself.
pub fn bend(points: &[Vec3], x0: f32, arc: f32, angle: f32) -> Vec<Vec3> {
    if angle.abs() < 1e-6 {
        return points.to_vec();
    }
    let r = arc / angle;
    points
        .iter()
        .map(|&q| {
            if q.x <= x0 {
                return q;
            }
            let phi = angle * ((q.x - x0) / arc).min(1.0);
            let rho = r - q.y;
            let on_arc = Vec3::new(x0 + rho * phi.sin(), r - rho * phi.cos(), q.z);
            if q.x <= x0 + arc {
                return on_arc;
            }
            let beyond = q.x - x0 - arc;
            on_arc + beyond * Vec3::new(angle.cos(), angle.sin(), 0.0)
        })
        .collect()
}

/// The regular octahedron on the unit axes (closed, genus 0, valence 4 everywhere), outward
/// oriented.
pub fn octahedron() -> TriangleMesh {
    let p = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let t = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    TriangleMesh::new(p, t).expect("the octahedron is a valid mesh")
}

/// An octahedron refined `levels` Loop steps (valence-4 irregular vertices, at least one step so
/// no triangle has two irregular corners), projected to the unit sphere and jittered by
/// `jitter` per coordinate with a fixed hash (deterministic).
///
/// # Panics
/// For `levels == 0` or more than 4.
pub fn sphere_cage(levels: u32, jitter: f32) -> TriangleMesh {
    assert!((1..=4).contains(&levels));
    let s = LoopSubdivision::new(octahedron(), levels).expect("a few Loop steps");
    let q: Vec<Vec3> = s
        .mesh()
        .positions()
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let f = |k: u32| ((h.rotate_left(k) % 10_000) as f32 / 10_000.0 - 0.5) * jitter;
            q.normalize() + Vec3::new(f(0), f(21), f(42))
        })
        .collect();
    TriangleMesh::new(q, s.mesh().triangles().to_vec()).expect("the jittered sphere is valid")
}
