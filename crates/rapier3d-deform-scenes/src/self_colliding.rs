//! Small deformed meshes that self-collide: fixtures for the self-collision oracles and baselines.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;

/// A flat `nx × ny` grid sheet (rest) rolled into 1.3 turns of a cylinder whose radius jitters
/// per vertex, so the overlapping layers cross each other (deformed).
pub fn crumpled_sheet(nx: usize, ny: usize, seed: u64) -> (TriangleMesh, Vec<Vec3>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rest = Vec::new();
    let mut deformed = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let (u, v) = (i as f32 / (nx - 1) as f32, j as f32 / (ny - 1) as f32);
            rest.push(Vec3::new(u, v, 0.0));
            let a = core::f32::consts::TAU * 1.3 * u;
            let r = 0.2 * (1.0 + rng.random_range(-0.12..0.12));
            let jitter = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                0.0,
            ) * 0.01;
            deformed.push(Vec3::new(r * a.cos(), v, r * a.sin()) + jitter);
        }
    }
    let mut tris = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let k = (j * nx + i) as u32;
            let n = nx as u32;
            tris.push([k, k + 1, k + n + 1]);
            tris.push([k, k + n + 1, k + n]);
        }
    }
    (TriangleMesh::new(rest, tris).expect("valid grid"), deformed)
}

/// A closed torus (`nu × nv` quads) whose points are pulled 0.75 towards the axis, so the
/// inner walls pass through the axis and through each other; a little per-vertex noise
/// breaks the symmetry.
pub fn pinched_torus(nu: usize, nv: usize, seed: u64) -> (TriangleMesh, Vec<Vec3>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rest = Vec::new();
    let mut deformed = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            let a = core::f32::consts::TAU * i as f32 / nu as f32;
            let b = core::f32::consts::TAU * j as f32 / nv as f32;
            let rho = 1.0 + 0.3 * b.cos();
            let p = Vec3::new(rho * a.cos(), rho * a.sin(), 0.3 * b.sin());
            rest.push(p);
            let pulled = rho - 0.75;
            let noise = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            deformed.push(Vec3::new(pulled * a.cos(), pulled * a.sin(), p.z) + noise * 0.01);
        }
    }
    let idx = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
    let mut tris = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            tris.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            tris.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    (
        TriangleMesh::new(rest, tris).expect("valid torus"),
        deformed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d_deform::DeformError;
    use rapier3d_deform::geometry::mesh_triangles_collide;
    use rapier3d_deform::validation::self_collisions_brute_force;

    /// All pairs, no prefilter: the definition.
    fn all_pairs(mesh: &TriangleMesh, positions: &[Vec3]) -> Vec<[u32; 2]> {
        let n = mesh.triangle_count() as u32;
        let mut out = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if mesh_triangles_collide(mesh, positions, i, j) {
                    out.push([i, j]);
                }
            }
        }
        out
    }

    #[test]
    fn sweep_equals_all_pairs() {
        let mut total = 0;
        for seed in 0..4 {
            let (mesh, positions) = crumpled_sheet(12, 9, seed);
            let expected = all_pairs(&mesh, &positions);
            assert_eq!(
                self_collisions_brute_force(&mesh, &positions).unwrap(),
                expected
            );
            total += expected.len();
            let (mesh, positions) = pinched_torus(16, 8, seed);
            let expected = all_pairs(&mesh, &positions);
            assert_eq!(
                self_collisions_brute_force(&mesh, &positions).unwrap(),
                expected
            );
            total += expected.len();
        }
        assert!(
            total > 50,
            "the test meshes should self-collide: {total} pairs"
        );
    }

    #[test]
    fn rest_sheet_has_no_self_collision() {
        let (mesh, _) = crumpled_sheet(10, 10, 0);
        assert!(
            self_collisions_brute_force(&mesh, mesh.positions())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn bad_positions_are_errors() {
        let (mesh, mut positions) = crumpled_sheet(4, 4, 0);
        assert!(matches!(
            self_collisions_brute_force(&mesh, &positions[1..]),
            Err(DeformError::LengthMismatch { .. })
        ));
        positions[3].y = f32::NAN;
        assert!(matches!(
            self_collisions_brute_force(&mesh, &positions),
            Err(DeformError::NonFinitePosition { index: 3, .. })
        ));
    }
}
