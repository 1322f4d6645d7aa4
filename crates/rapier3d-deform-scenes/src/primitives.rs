//! Closed primitive meshes shared by examples, tests and the API harness: the axis-aligned box.

use rapier3d_deform::math::Vec3;

/// The 8 corners (corner `i` takes `hi` on axis `a` when bit `a` of `i` is set) and 12
/// outward-oriented triangles of the box `[lo, hi]`, unvalidated.
///
/// # Performance
/// O(1).
pub fn box_arrays(lo: Vec3, hi: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let corners = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let triangles = faces
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (corners, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d_deform::mesh::TriangleMesh;

    #[test]
    fn the_box_is_a_closed_outward_oriented_manifold_of_its_volume() {
        let (p, t) = box_arrays(Vec3::new(-1.0, 0.0, 2.0), Vec3::new(2.0, 1.0, 4.0));
        let mesh = TriangleMesh::new(p, t).unwrap();
        mesh.check_oriented_manifold().unwrap();
        let volume: f32 = mesh
            .triangles()
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.positions()[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
        assert!((volume - 6.0).abs() < 1e-4, "{volume}");
    }
}
