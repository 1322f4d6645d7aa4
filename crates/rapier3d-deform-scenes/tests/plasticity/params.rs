//! Contract: bad plasticity and pipeline parameters give typed errors naming the field (one test per kind of mistake), and nothing is built from them.

use rapier3d_deform::DeformError;
use rapier3d_deform::crash::{PipelineParams, PlasticPipeline};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::{PlasticModel, PlasticState, PlasticityParams};

fn good() -> PlasticityParams {
    PlasticityParams::jones_car()
}

/// A tetrahedron with two examples.
fn model(params: PlasticityParams) -> Result<PlasticModel, DeformError> {
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    let mesh =
        TriangleMesh::new(p.clone(), vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    let moved: Vec<Vec3> = p.iter().map(|q| *q * 0.8).collect();
    PlasticModel::from_examples(&mesh, &[p, moved], params)
}

/// The field named by an `InvalidParameter`, checked against every constructor that takes the
/// parameters.
fn rejected(params: PlasticityParams) -> &'static str {
    let err = params.validate().unwrap_err();
    // Compared through Debug: the errors carry the offending value, and NaN != NaN.
    assert_eq!(
        format!("{:?}", model(params.clone()).unwrap_err()),
        format!("{err:?}")
    );
    assert_eq!(
        format!("{:?}", PlasticState::new(4, 2, &params).unwrap_err()),
        format!("{err:?}")
    );
    match err {
        DeformError::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn negative_yield_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            yield_displacement: -1e-3,
            ..good()
        }),
        "yield_displacement"
    );
}

#[test]
fn nan_yield_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            yield_displacement: f32::NAN,
            ..good()
        }),
        "yield_displacement"
    );
    assert_eq!(
        rejected(PlasticityParams {
            yield_displacement: f32::INFINITY,
            ..good()
        }),
        "yield_displacement"
    );
}

#[test]
fn zero_yield_is_allowed() {
    PlasticityParams {
        yield_displacement: 0.0,
        ..good()
    }
    .validate()
    .unwrap();
}

#[test]
fn rate_zero_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            rate: 0.0,
            ..good()
        }),
        "rate"
    );
}

#[test]
fn rate_above_one_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            rate: 1.0001,
            ..good()
        }),
        "rate"
    );
}

#[test]
fn negative_or_nan_rate_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            rate: -0.5,
            ..good()
        }),
        "rate"
    );
    assert_eq!(
        rejected(PlasticityParams {
            rate: f32::NAN,
            ..good()
        }),
        "rate"
    );
}

#[test]
fn rate_one_is_allowed() {
    PlasticityParams {
        rate: 1.0,
        ..good()
    }
    .validate()
    .unwrap();
}

#[test]
fn non_positive_impulse_scale_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            impulse_scale: 0.0,
            ..good()
        }),
        "impulse_scale"
    );
    assert_eq!(
        rejected(PlasticityParams {
            impulse_scale: f32::NAN,
            ..good()
        }),
        "impulse_scale"
    );
}

#[test]
fn non_positive_kernel_radius_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            kernel_radius: 0.0,
            ..good()
        }),
        "kernel_radius"
    );
    assert_eq!(
        rejected(PlasticityParams {
            kernel_radius: -2.0,
            ..good()
        }),
        "kernel_radius"
    );
}

#[test]
fn negative_min_example_motion_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            min_example_motion: -1.0,
            ..good()
        }),
        "min_example_motion"
    );
}

#[test]
fn non_positive_settle_threshold_is_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            settle_threshold: 0.0,
            ..good()
        }),
        "settle_threshold"
    );
}

#[test]
fn bad_restitution_parameters_are_rejected() {
    assert_eq!(
        rejected(PlasticityParams {
            restitution_recovery: -1.0,
            ..good()
        }),
        "restitution_recovery"
    );
    assert_eq!(
        rejected(PlasticityParams {
            restitution_exponent: f32::NAN,
            ..good()
        }),
        "restitution_exponent"
    );
}

#[test]
fn bad_example_scale_names_its_slot() {
    let params = PlasticityParams {
        example_scale: vec![1.0, -0.5],
        ..good()
    };
    let err = params.validate().unwrap_err();
    assert!(
        matches!(
            err,
            DeformError::InvalidGlobalWeight {
                what: "example scale",
                slot: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(model(params).unwrap_err(), err);
}

#[test]
fn example_scale_of_the_wrong_length_is_rejected() {
    let params = PlasticityParams {
        example_scale: vec![1.0, 1.0, 1.0],
        ..good()
    };
    params.validate().unwrap();
    assert!(matches!(
        model(params),
        Err(DeformError::LengthMismatch {
            expected: 2,
            actual: 3,
            ..
        })
    ));
}

#[test]
fn messages_name_the_field() {
    let err = PlasticityParams {
        rate: 2.0,
        ..good()
    }
    .validate()
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("rate") && text.contains("(0, 1]"), "{text}");
}

#[test]
fn bad_pipeline_parameters_are_rejected() {
    let bad_tolerance = PipelineParams {
        shape_tolerance: -1.0,
        ..PipelineParams::default()
    };
    assert!(matches!(
        PlasticPipeline::new(bad_tolerance),
        Err(DeformError::InvalidParameter {
            name: "shape_tolerance",
            ..
        })
    ));
    let bad_step = PipelineParams {
        max_com_step: 0.0,
        ..PipelineParams::default()
    };
    assert!(matches!(
        PlasticPipeline::new(bad_step),
        Err(DeformError::InvalidParameter {
            name: "max_com_step",
            ..
        })
    ));
    PlasticPipeline::new(PipelineParams::default()).unwrap();
}
