//! Contract: bad cloth input (NaN positions, bad triangle or pinned indices, bad options, thresholds, time steps, pin targets, accelerations, governor counts, self-collision thickness, positions or a stage built for another cloth) gets typed errors naming the field; nothing panics.

use super::common::grid_mesh;
use rapier3d_deform::DeformError;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{Cloth, ClothOptions, ContactThresholds, SkinCollision};
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::Vec3;

fn sheet() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let m = grid_mesh(4, [0.0, 0.0], [1.0, 1.0]);
    (m.positions().to_vec(), m.triangles().to_vec())
}

#[test]
fn nan_positions_and_bad_indices_are_named() {
    let (mut p, t) = sheet();
    p[7].y = f32::NAN;
    assert!(matches!(
        Cloth::new(p, t.clone(), &[], ClothOptions::default()),
        Err(DeformError::NonFinitePosition { index: 7, .. })
    ));
    let (p, mut bad) = sheet();
    bad[3][1] = 1000;
    assert!(matches!(
        Cloth::new(p.clone(), bad, &[], ClothOptions::default()),
        Err(DeformError::VertexIndexOutOfRange {
            triangle: 3,
            index: 1000,
            ..
        })
    ));
    assert!(matches!(
        Cloth::new(p, t, &[0, 99], ClothOptions::default()),
        Err(DeformError::IndexOutOfRange {
            what: "pinned vertex",
            index: 99,
            ..
        })
    ));
}

#[test]
fn bad_options_steps_targets_and_accelerations_are_named() {
    let (p, t) = sheet();
    for (options, name) in [
        (
            ClothOptions {
                density: 0.0,
                ..Default::default()
            },
            "density",
        ),
        (
            ClothOptions {
                stretch_compliance: -1.0,
                ..Default::default()
            },
            "stretch_compliance",
        ),
        (
            ClothOptions {
                bend_compliance: f32::NAN,
                ..Default::default()
            },
            "bend_compliance",
        ),
        (
            ClothOptions {
                damping: f32::INFINITY,
                ..Default::default()
            },
            "damping",
        ),
        (
            ClothOptions {
                substeps: 0,
                ..Default::default()
            },
            "substeps",
        ),
        (
            ClothOptions {
                gravity: Vec3::NAN,
                ..Default::default()
            },
            "gravity",
        ),
    ] {
        match Cloth::new(p.clone(), t.clone(), &[], options) {
            Err(DeformError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let mut cloth = Cloth::new(p, t, &[2, 0, 2], ClothOptions::default()).unwrap();
    assert_eq!(cloth.pinned(), &[0, 2]);
    for dt in [0.0, -1.0, f32::NAN] {
        assert!(matches!(
            cloth.step(dt),
            Err(DeformError::InvalidParameter { name: "dt", .. })
        ));
    }
    assert!(matches!(
        cloth.set_pin_targets(&[Vec3::ZERO]),
        Err(DeformError::LengthMismatch {
            expected: 2,
            actual: 1,
            ..
        })
    ));
    assert!(matches!(
        cloth.set_pin_targets(&[Vec3::ZERO, Vec3::splat(f32::NAN)]),
        Err(DeformError::NonFinitePosition { index: 1, .. })
    ));
    assert!(matches!(
        cloth.add_acceleration(1000, Vec3::ONE),
        Err(DeformError::IndexOutOfRange { index: 1000, .. })
    ));
    assert!(matches!(
        cloth.add_acceleration(3, Vec3::new(f32::NAN, 0.0, 0.0)),
        Err(DeformError::NonFinitePosition { index: 3, .. })
    ));
    // A valid step leaves finite positions.
    cloth.step(1.0 / 60.0).unwrap();
    assert!(cloth.positions().iter().all(|x| x.is_finite()));
}

#[test]
fn bad_thresholds_and_governors_are_named() {
    let m = grid_mesh(4, [0.0, 0.0], [1.0, 1.0]);
    let weights =
        ConvexWeights::from_rows(m.positions().iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    let avatar = AvatarBoxes::build(&m, m.positions(), &weights, AvatarOptions::default()).unwrap();
    let ok = ContactThresholds::default();
    for (th, name) in [
        (
            ContactThresholds {
                outside: f32::NAN,
                ..ok
            },
            "outside",
        ),
        (
            ContactThresholds {
                thickness: 0.0,
                ..ok
            },
            "thickness",
        ),
        (ContactThresholds { surface: 1.0, ..ok }, "surface"),
        (
            ContactThresholds {
                thickness: 1.0,
                ..ok
            },
            "thickness",
        ),
        (
            ContactThresholds {
                feedback_gain: -1.0,
                ..ok
            },
            "feedback_gain",
        ),
    ] {
        match SkinCollision::new(&avatar, th) {
            Err(DeformError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let mut collision = SkinCollision::new(&avatar, ok).unwrap();
    let (p, t) = sheet();
    let mut cloth = Cloth::new(p, t, &[], ClothOptions::default()).unwrap();
    let one = vec![Affine::IDENTITY];
    assert!(
        collision
            .resolve(&mut cloth, &avatar, &[], &one, 0.01)
            .is_err()
    );
    assert!(
        collision
            .resolve(&mut cloth, &avatar, &one, &[], 0.01)
            .is_err()
    );
    assert!(matches!(
        collision.resolve(&mut cloth, &avatar, &one, &one, 0.0),
        Err(DeformError::InvalidParameter { name: "dt", .. })
    ));
    collision
        .resolve(&mut cloth, &avatar, &one, &one, 0.01)
        .unwrap();
}

#[test]
fn bad_self_collision_input_is_named() {
    use rapier3d_deform::cloth::{ClothSelfCollision, SelfCollisionOptions};
    let (p, t) = sheet();
    let mut cloth = Cloth::new(p.clone(), t.clone(), &[0], ClothOptions::default()).unwrap();
    for thickness in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            ClothSelfCollision::new(
                &cloth,
                SelfCollisionOptions {
                    thickness,
                    ..SelfCollisionOptions::default()
                }
            ),
            Err(DeformError::InvalidParameter {
                name: "thickness",
                ..
            })
        ));
    }
    let mut stage = ClothSelfCollision::new(&cloth, SelfCollisionOptions::default()).unwrap();
    // Positions of the wrong length, or not finite.
    assert!(matches!(
        stage.find(&p[1..]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut nan = p.clone();
    nan[5].x = f32::NAN;
    assert!(stage.find(&nan).is_err());
    // A stage built for another cloth.
    let (q, u) = {
        let m = grid_mesh(6, [0.0, 0.0], [1.0, 1.0]);
        (m.positions().to_vec(), m.triangles().to_vec())
    };
    let mut other = Cloth::new(q, u, &[], ClothOptions::default()).unwrap();
    assert!(matches!(
        other.step_with_self_collision(1.0 / 60.0, &mut stage),
        Err(DeformError::LengthMismatch { .. })
    ));
    assert!(matches!(
        stage.resolve(&mut other),
        Err(DeformError::LengthMismatch { .. })
    ));
    assert!(matches!(
        cloth.step_with_self_collision(f32::NAN, &mut stage),
        Err(DeformError::InvalidParameter { name: "dt", .. })
    ));
    // The good cloth still steps.
    cloth
        .step_with_self_collision(1.0 / 60.0, &mut stage)
        .unwrap();
    assert!(cloth.positions().iter().all(|x| x.is_finite()));
}
