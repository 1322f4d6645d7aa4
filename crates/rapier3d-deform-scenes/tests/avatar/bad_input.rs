//! Contract: bad options, skins, governors and query points get typed errors naming the field; degenerate bones (no triangles, coplanar skin) are handled, not refused.

use super::common::grid_mesh;
use rapier3d_deform::DeformError;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery};
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};

fn flat_avatar(bones: usize) -> AvatarBoxes {
    // A flat 8×8 grid: every bone's skin is coplanar (a degenerate PCA axis). Bone 0 carries the
    // left half, bone 1 the right half; any further bone carries nothing.
    let mesh = grid_mesh(8, [0.0, 0.0], [1.0, 1.0]);
    let weights = ConvexWeights::from_rows(
        mesh.positions().iter().map(|p| {
            let right = (p.x - 0.3).clamp(0.0, 0.4) / 0.4;
            vec![(0u32, 1.0 - right), (1, right)]
                .into_iter()
                .filter(|x| x.1 > 0.0)
                .collect::<Vec<_>>()
        }),
        bones,
    )
    .unwrap();
    AvatarBoxes::build(&mesh, mesh.positions(), &weights, AvatarOptions::default()).unwrap()
}

#[test]
fn bad_options_are_named_parameter_errors() {
    let mesh = grid_mesh(4, [0.0, 0.0], [1.0, 1.0]);
    let weights =
        ConvexWeights::from_rows(mesh.positions().iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    for (options, name) in [
        (
            AvatarOptions {
                triangles_per_slab: 0,
                ..AvatarOptions::default()
            },
            "triangles_per_slab",
        ),
        (
            AvatarOptions {
                min_slabs: 0,
                ..AvatarOptions::default()
            },
            "min_slabs",
        ),
        (
            AvatarOptions {
                min_slabs: 20,
                max_slabs: 10,
                triangles_per_slab: 4,
            },
            "min_slabs",
        ),
        (
            AvatarOptions {
                max_slabs: 1 << 20,
                ..AvatarOptions::default()
            },
            "max_slabs",
        ),
    ] {
        match AvatarBoxes::build(&mesh, mesh.positions(), &weights, options) {
            Err(DeformError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{options:?}: {other:?}"),
        }
    }
    let short = &mesh.positions()[1..];
    assert!(matches!(
        AvatarBoxes::build(&mesh, short, &weights, AvatarOptions::default()),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut nan = mesh.positions().to_vec();
    nan[3].y = f32::NAN;
    assert_eq!(
        AvatarBoxes::build(&mesh, &nan, &weights, AvatarOptions::default()).unwrap_err(),
        DeformError::NonFinitePosition {
            what: "rest vertex",
            index: 3
        }
    );
}

#[test]
fn a_bone_without_skin_gets_no_box_and_coplanar_skin_still_bounds() {
    let avatar = flat_avatar(3);
    assert_eq!(avatar.box_bones().collect::<Vec<_>>(), vec![0, 1]);
    let rest = avatar.rest_box(0).unwrap();
    assert!(
        rest.half_extents.min_element() < 1e-6,
        "coplanar skin: {rest:?}"
    );
    let mut query = AvatarQuery::new();
    let bend = Affine::new(Mat3::from_rotation_y(0.8), Vec3::new(0.2, 0.0, 0.1));
    query
        .begin_frame(&avatar, &[Affine::IDENTITY, bend, Affine::IDENTITY])
        .unwrap();
    let mut out = Vec::new();
    // A point on the bent right edge finds triangles there.
    let p = bend.transform_point(Vec3::new(1.0, 0.0, 0.5));
    query.candidates(&avatar, p, 0.01, &mut out).unwrap();
    assert!(!out.is_empty());
    // A bone scaled to zero (not invertible) keeps its rest frame and still bounds.
    let collapse = Affine::new(Mat3::ZERO, Vec3::new(0.5, 0.5, 0.3));
    query
        .begin_frame(&avatar, &[Affine::IDENTITY, collapse, Affine::IDENTITY])
        .unwrap();
    query
        .candidates(&avatar, Vec3::new(0.5, 0.5, 0.3), 0.0, &mut out)
        .unwrap();
    assert!(
        !out.is_empty(),
        "the collapsed skin sits at its bone's point"
    );
}

#[test]
fn bad_frames_and_points_are_typed_errors() {
    let avatar = flat_avatar(2);
    let mut query = AvatarQuery::new();
    let mut out = vec![7];
    assert!(matches!(
        query.candidates(&avatar, Vec3::ZERO, 0.1, &mut out),
        Err(DeformError::NotAvailable { .. })
    ));
    assert_eq!(
        query.begin_frame(&avatar, &[Affine::IDENTITY]).unwrap_err(),
        DeformError::LengthMismatch {
            what: "governor transforms",
            expected: 2,
            actual: 1
        }
    );
    let nan = Affine::new(Mat3::IDENTITY, Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(
        query
            .begin_frame(&avatar, &[Affine::IDENTITY, nan])
            .unwrap_err(),
        DeformError::NonFiniteTransform { governor: 1 }
    );
    query
        .begin_frame(&avatar, &[Affine::IDENTITY, Affine::IDENTITY])
        .unwrap();
    assert!(matches!(
        query.candidates(&avatar, Vec3::new(f32::NAN, 0.0, 0.0), 0.1, &mut out),
        Err(DeformError::NonFinitePosition { .. })
    ));
    for radius in [-1.0, f32::INFINITY, f32::NAN] {
        assert!(matches!(
            query.candidates(&avatar, Vec3::ZERO, radius, &mut out),
            Err(DeformError::InvalidParameter { name: "radius", .. })
        ));
    }
    let mut scratch = Vec::new();
    let mut contacts = Vec::new();
    assert_eq!(
        query
            .contacts(
                &avatar,
                &[Vec3::ZERO, Vec3::splat(f32::NAN)],
                0.1,
                &mut scratch,
                &mut contacts
            )
            .unwrap_err(),
        DeformError::NonFinitePosition {
            what: "query point",
            index: 1
        }
    );
    assert_eq!(
        contacts.len(),
        1,
        "the contact of the point before the bad one"
    );
    let triangles = avatar.mesh().triangle_count();
    assert_eq!(
        query
            .closest_with_hint(&avatar, Vec3::ZERO, 0.1, Some(triangles as u32))
            .unwrap_err(),
        DeformError::IndexOutOfRange {
            what: "hint triangle",
            index: triangles,
            len: triangles
        }
    );
    assert!(matches!(
        query.seed_tolerance_misses(&avatar, -0.1),
        Err(DeformError::InvalidParameter {
            name: "tolerance",
            ..
        })
    ));
}

#[test]
fn bad_box_margins_are_named() {
    let avatar = flat_avatar(2);
    let mut query = AvatarQuery::new();
    query
        .begin_frame(&avatar, &[Affine::IDENTITY, Affine::IDENTITY])
        .unwrap();
    let mut out = Vec::new();
    let boxes = avatar.box_count();
    let p = Vec3::new(0.5, 0.0, 0.5);
    assert!(matches!(
        query.candidates_with_margins(&avatar, p, 0.1, &vec![0.0; boxes + 1], &mut out),
        Err(DeformError::LengthMismatch {
            what: "box margins",
            ..
        })
    ));
    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        let mut margins = vec![0.0; boxes];
        margins[0] = bad;
        assert!(matches!(
            query.candidates_with_margins(&avatar, p, 0.1, &margins, &mut out),
            Err(DeformError::InvalidParameter { name: "margin", .. })
        ));
    }
}
