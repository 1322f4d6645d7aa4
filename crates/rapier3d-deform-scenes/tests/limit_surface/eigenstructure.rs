//! Contract: for every valence 3..=12, (a) the local subdivision matrix `S` and the picking matrices equal the crate's
//! `LoopSubdivision` stencils of the fine vertices gathered around the patch's children (one to three levels, f32
//! stencils: 1e-5); (b) projecting random control points onto the eigenbasis, scaling by `J^j` and mapping back
//! reproduces `S^j p` to 1e-9 for j ∈ {1, 2, 3, 5, 8, 12} (the valence-3 Jordan block included).

use super::local::{gather, local_mesh, opposite_map, random_neighbourhood};
use crate::common::rng;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::limit_surface::{
    MAX_VALENCE, MIN_VALENCE, REGULAR_VALENCE, loop_eigen, neighbourhood_size, subdivision_matrix,
};
use rapier3d_deform::rapier3d::na::DMatrix;

fn as_matrix(p: &[[f64; 3]]) -> DMatrix<f64> {
    DMatrix::from_fn(p.len(), 3, |i, d| p[i][d])
}

/// Stencil rows of the fine vertices `fine`, as a dense matrix over the control points.
fn stencil_matrix(sub: &LoopSubdivision, fine: &[u32]) -> DMatrix<f64> {
    let w = sub.stencils();
    let n = sub.control_mesh().vertex_count();
    let mut m = DMatrix::zeros(fine.len(), n);
    for (r, &v) in fine.iter().enumerate() {
        let (g, x) = w.row(v as usize);
        for (&k, &wk) in g.iter().zip(x) {
            m[(r, k as usize)] = wk as f64;
        }
    }
    m
}

#[test]
fn local_matrices_equal_the_crates_loop_stencils() {
    for n in MIN_VALENCE..=MAX_VALENCE {
        let size = neighbourhood_size(n);
        let s = subdivision_matrix(n);
        let eig = loop_eigen(n).unwrap();
        for levels in 1..=3u32 {
            let sub = LoopSubdivision::new(local_mesh(n), levels).unwrap();
            let opp = opposite_map(sub.mesh().triangles());
            // The corner child after `levels` steps is fine triangle 0.
            let corner = gather(&opp, sub.mesh().triangles()[0], n);
            let reference = stencil_matrix(&sub, &corner);
            let mut power = DMatrix::identity(size, size);
            for _ in 0..levels {
                power = &s * power;
            }
            assert!(
                (&reference - &power).amax() < 1e-5,
                "valence {n}, {levels} levels"
            );
            if levels == 1 {
                let tris = sub.mesh().triangles();
                // Children 1, 2, 3: at r₀ ([ab, b, bc]), at r₁ ([ca, bc, c]), middle ([ab, bc, ca]
                // read from bc).
                let children = [tris[1], tris[2], [tris[3][1], tris[3][2], tris[3][0]]];
                for (k, t) in children.into_iter().enumerate() {
                    let ids = gather(&opp, t, REGULAR_VALENCE);
                    let reference = stencil_matrix(&sub, &ids);
                    assert!(
                        (&reference - &eig.picks()[k]).amax() < 1e-5,
                        "valence {n}, child {k}"
                    );
                }
            }
        }
    }
}

#[test]
fn eigenbasis_scaling_reproduces_direct_subdivision() {
    let mut r = rng(0x5eed_e16e);
    for n in MIN_VALENCE..=MAX_VALENCE {
        let eig = loop_eigen(n).unwrap();
        let s = eig.subdivision();
        for _ in 0..25 {
            let p = random_neighbourhood(&mut r, n);
            let c = eig.coefficients(&p).unwrap();
            let mut direct = as_matrix(&p);
            let mut done = 0;
            for j in [1u32, 2, 3, 5, 8, 12] {
                while done < j {
                    direct = s * direct;
                    done += 1;
                }
                let mut cj = c.clone();
                eig.advance(&mut cj, j);
                let via_eigen = as_matrix(&eig.points(&cj));
                let err = (&via_eigen - &direct).amax();
                assert!(err < 1e-9, "valence {n}, j = {j}: {err:e}");
            }
        }
    }
}

#[test]
fn valence_three_needs_its_jordan_block() {
    // Without the off-diagonal 1 the valence-3 powers are wrong: the block is real.
    let eig = loop_eigen(3).unwrap();
    let (a, b) = eig.jordan().unwrap();
    let mut j = eig.jordan_matrix();
    assert_eq!(j[(a, b)], 1.0);
    let with = (eig.subdivision() * eig.right() - eig.right() * &j).amax();
    j[(a, b)] = 0.0;
    let without = (eig.subdivision() * eig.right() - eig.right() * &j).amax();
    assert!(with < 1e-13 && without > 1e-3, "{with:e} {without:e}");
}
