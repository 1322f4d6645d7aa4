//! Contract: bad input to the foundation (weights, transforms, meshes) gives a typed error naming the problem, one
//! test per case: NaN weights, negative weights, weight sums off beyond the tolerance, NaN or infinite transforms,
//! empty meshes, out-of-range indices and zero-area triangles.

use rapier3d_deform::DeformError;
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;

fn square() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    (
        vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y],
        vec![[0, 1, 2], [0, 2, 3]],
    )
}

#[test]
fn nan_weight_is_rejected_with_its_vertex_and_slot() {
    let e = ConvexWeights::from_rows([vec![(0u32, 1.0f32)], vec![(0, 0.5), (1, f32::NAN)]], 2)
        .unwrap_err();
    assert_eq!(e, DeformError::NonFiniteWeight { vertex: 1, slot: 1 });
    assert!(e.to_string().contains("vertex 1"));
}

#[test]
fn negative_weight_is_rejected() {
    let e = ConvexWeights::from_rows([vec![(0u32, 1.5f32), (1, -0.5)]], 2).unwrap_err();
    assert!(
        matches!(
            e,
            DeformError::NegativeWeight {
                vertex: 0,
                slot: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn weight_sum_off_beyond_tolerance_is_rejected_and_within_is_renormalised() {
    let e = ConvexWeights::from_rows([vec![(0u32, 0.5f32), (1, 0.4)]], 2).unwrap_err();
    assert!(
        matches!(e, DeformError::WeightSumOff { vertex: 0, .. }),
        "{e}"
    );
    let ok = ConvexWeights::from_rows(
        [vec![
            (0u32, 0.5f32),
            (1, 0.5 + 0.5 * ConvexWeights::SUM_TOLERANCE),
        ]],
        2,
    )
    .unwrap();
    let sum: f32 = ok.row(0).1.iter().sum();
    assert!((sum - 1.0).abs() < 1e-6);
}

#[test]
fn nan_and_infinite_transforms_are_rejected() {
    let (p, _) = square();
    let w = ConvexWeights::from_rows(p.iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    let mut skin = LinearBlendSkinning::new(p, w, vec![Affine::IDENTITY]).unwrap();
    let nan = Affine::new(
        Mat3::from_diagonal(Vec3::new(1.0, f32::NAN, 1.0)),
        Vec3::ZERO,
    );
    assert_eq!(
        skin.set_bone_transforms(&[nan]).unwrap_err(),
        DeformError::NonFiniteTransform { governor: 0 }
    );
    let inf = Affine::new(Mat3::IDENTITY, Vec3::new(f32::INFINITY, 0.0, 0.0));
    assert_eq!(
        skin.set_skinning_transforms(&[inf]).unwrap_err(),
        DeformError::NonFiniteTransform { governor: 0 }
    );
}

#[test]
fn empty_meshes_are_rejected() {
    assert!(matches!(
        TriangleMesh::new(vec![], vec![]),
        Err(DeformError::EmptyMesh {
            vertices: 0,
            triangles: 0
        })
    ));
    let (p, _) = square();
    assert!(matches!(
        TriangleMesh::new(p, vec![]),
        Err(DeformError::EmptyMesh { triangles: 0, .. })
    ));
}

#[test]
fn out_of_range_indices_are_rejected() {
    let (p, mut t) = square();
    t[1] = [0, 2, 7];
    assert_eq!(
        TriangleMesh::new(p, t).unwrap_err(),
        DeformError::VertexIndexOutOfRange {
            triangle: 1,
            index: 7,
            vertex_count: 4
        }
    );
    let e = ConvexWeights::from_rows([vec![(3u32, 1.0f32)]], 2).unwrap_err();
    assert!(
        matches!(
            e,
            DeformError::GovernorIndexOutOfRange {
                vertex: 0,
                governor: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn zero_area_triangles_are_rejected() {
    let (mut p, t) = square();
    // Triangle 0 = (0, 1, 2) becomes collinear: vertex 1 moves onto the diagonal 0–2.
    p[1] = Vec3::new(0.25, 0.25, 0.0);
    assert_eq!(
        TriangleMesh::new(p, t).unwrap_err(),
        DeformError::DegenerateTriangle { triangle: 0 }
    );
    let (p, _) = square();
    assert_eq!(
        TriangleMesh::new(p, vec![[0, 0, 1]]).unwrap_err(),
        DeformError::DegenerateTriangle { triangle: 0 }
    );
}
