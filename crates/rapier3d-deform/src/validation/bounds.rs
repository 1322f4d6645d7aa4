//! Brute-force oracles of the bounds (for tests): count deformed vertices outside an AABB and deformed normals outside a cone.

use crate::bounds::NormalCone;
use crate::math::{Aabb, Vec3};
use crate::mesh::TriangleMesh;
use rapier3d::parry::glamx::DVec3;

/// Number of `vertices` whose deformed position lies outside `aabb` (the independent check of
/// [`crate::bounds::PatchBounds::aabb`]).
///
/// # Performance
/// O(vertices).
pub fn count_aabb_violations(aabb: &Aabb, deformed: &[Vec3], vertices: &[u32]) -> usize {
    vertices
        .iter()
        .filter(|&&v| {
            let p = deformed[v as usize];
            !(p.cmpge(aabb.mins).all() && p.cmple(aabb.maxs).all())
        })
        .count()
}

/// Number of (triangle, direction) pairs where a direction set in `cone` does not have a
/// strictly positive dot product with the triangle's deformed normal, computed in `f64` from the
/// deformed positions (the independent check of [`crate::bounds::PatchBounds::normal_cone`]).
///
/// # Performance
/// O(triangles · set directions).
pub fn count_cone_violations(
    cone: NormalCone,
    mesh: &TriangleMesh,
    deformed: &[Vec3],
    triangles: &[u32],
) -> usize {
    if cone.is_empty() {
        return 0;
    }
    let mut bad = 0;
    for &t in triangles {
        let n = exact_normal(mesh, deformed, t as usize);
        for d in cone.directions() {
            let d = DVec3::new(d.x as f64, d.y as f64, d.z as f64);
            if d.dot(n) <= 0.0 {
                bad += 1;
            }
        }
    }
    bad
}

/// The exact bottom-up cone of a set of deformed triangles: the intersection of the cones of
/// their `f64` normals. Empty if any triangle is degenerate.
///
/// # Performance
/// O(triangles).
pub fn exact_cone(mesh: &TriangleMesh, deformed: &[Vec3], triangles: &[u32]) -> NormalCone {
    let mut cone = NormalCone::ALL;
    for &t in triangles {
        let n = exact_normal(mesh, deformed, t as usize);
        let mut bits = 0u16;
        for (i, d) in NormalCone::DIRECTIONS.iter().enumerate() {
            if DVec3::new(d.x as f64, d.y as f64, d.z as f64).dot(n) > 0.0 {
                bits |= 1 << i;
            }
        }
        cone = cone.intersection(NormalCone(bits));
        if cone.is_empty() {
            break;
        }
    }
    cone
}

/// The exact AABB of the deformed `vertices`.
///
/// # Performance
/// O(vertices).
pub fn exact_aabb(deformed: &[Vec3], vertices: &[u32]) -> Aabb {
    let (lo, hi) = vertices.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &v| (lo.min(deformed[v as usize]), hi.max(deformed[v as usize])),
    );
    Aabb::new(lo, hi)
}

fn exact_normal(mesh: &TriangleMesh, deformed: &[Vec3], t: usize) -> DVec3 {
    let [a, b, c] = mesh.triangles()[t].map(|v| {
        let p = deformed[v as usize];
        DVec3::new(p.x as f64, p.y as f64, p.z as f64)
    });
    (b - a).cross(c - a)
}
