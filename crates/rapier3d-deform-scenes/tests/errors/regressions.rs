//! Contract: every bad-input case found by probing the public API one call at a time gets a typed
//! error naming the field or index (or, where the input is valid, the correct result), one test per
//! case: weight composition and truncation, governor counts beyond the limits (no allocation of an
//! unchecked size), degeneracy at every scale, overflowing weight sums, out-of-range bone transforms,
//! self-collision queries given the wrong governors, NaN rest data, flipped or duplicated faces under
//! a sphere proxy, huge radii, non-finite plasticity contacts, bad weld tolerances, meshes beyond the
//! coordinate limit.

use rapier3d::parry::shape::Shape;
use rapier3d_deform::DeformError;
use rapier3d_deform::bn_tree::{BnTree, CullingMode, RefitPolicy, SelfCollisionQuery};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation};
use rapier3d_deform::io::{LoadError, LoadOptions, load_obj_slice};
use rapier3d_deform::limits::{MAX_COORDINATE, MAX_GOVERNORS, MIN_LINEAR, MIN_MESH_EXTENT};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::{
    ContactSample, PlasticModel, PlasticWorkspace, PlasticityParams,
};
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::shape::SphereProxyShape;
use rapier3d_deform_scenes::primitives::box_arrays;

/// The 8 corners and 12 outward triangles of the cube `[-1, 1]³`.
fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    box_arrays(Vec3::splat(-1.0), Vec3::ONE)
}

fn cube_mesh() -> TriangleMesh {
    let (p, t) = cube();
    TriangleMesh::new(p, t).unwrap()
}

fn proxy_options() -> ProxyOptions {
    ProxyOptions {
        sdf: SdfOptions {
            resolution: 16,
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius: 0.1,
            max_radius: 0.5,
            max_spheres: 32,
        },
    }
}

/// The cube skinned to two governors (bottom half to 0, top half to 1), its tree and query.
fn cube_tree() -> (BnTree, SelfCollisionQuery) {
    let mesh = cube_mesh();
    let weights = ConvexWeights::from_rows(
        mesh.positions()
            .iter()
            .map(|p| vec![(u32::from(p.y > 0.0), 1.0f32)]),
        2,
    )
    .unwrap();
    let tree = BnTree::build(&mesh, mesh.positions(), &weights).unwrap();
    let query = SelfCollisionQuery::new(&tree);
    (tree, query)
}

fn run(query: &mut SelfCollisionQuery, tree: &BnTree, governors: &[Affine]) -> DeformError {
    let mut out = vec![[7, 7]];
    let e = query
        .run(
            tree,
            governors,
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap_err();
    assert_eq!(
        out,
        vec![[7, 7]],
        "a rejected query leaves its output alone"
    );
    e
}

#[test]
fn compose_with_too_few_inner_rows_is_a_length_error() {
    let outer = ConvexWeights::from_rows([vec![(0u32, 0.5f32), (2, 0.5)]], 3).unwrap();
    let inner = ConvexWeights::from_rows([vec![(0u32, 1.0f32)], vec![(1, 1.0)]], 2).unwrap();
    assert_eq!(
        outer.compose(&inner).unwrap_err(),
        DeformError::LengthMismatch {
            what: "inner weight rows (one per governor of the outer weights)",
            expected: 3,
            actual: 2
        }
    );
}

#[test]
fn compose_matches_a_dense_product() {
    let outer = ConvexWeights::from_rows([vec![(0u32, 0.25f32), (1, 0.75)]], 2).unwrap();
    let inner =
        ConvexWeights::from_rows([vec![(0u32, 0.5f32), (1, 0.5)], vec![(1, 1.0)]], 2).unwrap();
    let c = outer.compose(&inner).unwrap();
    assert!((c.weight(0, 0) - 0.125).abs() < 1e-7);
    assert!((c.weight(0, 1) - 0.875).abs() < 1e-7);
}

#[test]
fn from_csr_with_usize_max_governors_is_a_limit_error() {
    let e = ConvexWeights::from_csr(vec![0, 1], vec![0], vec![1.0], usize::MAX).unwrap_err();
    assert_eq!(
        e,
        DeformError::LimitExceeded {
            what: "governors",
            value: usize::MAX as u64,
            max: MAX_GOVERNORS as u64
        }
    );
}

#[test]
fn from_csr_with_2_pow_40_governors_is_rejected_before_allocating() {
    // Used to allocate a per-governor buffer of 4 TiB and abort the process.
    let e = ConvexWeights::from_csr(vec![0, 1], vec![0], vec![1.0], 1 << 40).unwrap_err();
    assert!(
        matches!(e, DeformError::LimitExceeded { what: "governors", value, .. } if value == 1 << 40),
        "{e}"
    );
}

#[test]
fn from_rows_with_2_pow_40_governors_is_rejected() {
    let e = ConvexWeights::from_rows([vec![(0u32, 1.0f32)]], 1 << 40).unwrap_err();
    assert!(
        matches!(
            e,
            DeformError::LimitExceeded {
                what: "governors",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn from_csr_with_a_repeated_governor_names_it() {
    let e = ConvexWeights::from_csr(vec![0, 2], vec![5, 5], vec![0.5, 0.5], 8).unwrap_err();
    assert_eq!(
        e,
        DeformError::GovernorIndexOutOfRange {
            vertex: 0,
            governor: 5,
            governor_count: 8
        }
    );
}

#[test]
fn a_row_with_more_influences_than_the_limit_is_rejected() {
    let row: Vec<(u32, f32)> = (0..300u32).map(|g| (g, 1.0 / 300.0)).collect();
    let e = ConvexWeights::from_rows([row], 300).unwrap_err();
    assert!(
        matches!(
            e,
            DeformError::TooManyInfluences {
                vertex: 0,
                count: 257,
                max: 256
            }
        ),
        "{e}"
    );
}

#[test]
fn collinear_triangle_at_3e38_is_rejected_as_out_of_range() {
    let p = vec![
        Vec3::splat(-3e38),
        Vec3::ZERO,
        Vec3::splat(3e38),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let e = TriangleMesh::new(p, vec![[0, 1, 2], [0, 1, 3]]).unwrap_err();
    assert_eq!(
        e,
        DeformError::PositionOutOfRange {
            what: "vertex",
            index: 0,
            value: -3e38,
            max: MAX_COORDINATE
        }
    );
}

#[test]
fn collinear_triangle_at_the_coordinate_limit_is_degenerate() {
    let s = MAX_COORDINATE;
    let p = vec![
        Vec3::splat(-s),
        Vec3::ZERO,
        Vec3::splat(s),
        Vec3::new(0.0, s, 0.0),
    ];
    assert_eq!(
        TriangleMesh::new(p, vec![[0, 1, 3], [0, 1, 2]]).unwrap_err(),
        DeformError::DegenerateTriangle { triangle: 1 }
    );
}

#[test]
fn right_triangles_with_huge_legs_get_the_range_error_not_degenerate() {
    for legs in [1e20f32, 1e25, 1e30] {
        let p = vec![
            Vec3::ZERO,
            Vec3::new(legs, 0.0, 0.0),
            Vec3::new(0.0, legs, 0.0),
        ];
        let e = TriangleMesh::new(p, vec![[0, 1, 2]]).unwrap_err();
        assert!(
            matches!(e, DeformError::PositionOutOfRange { index: 1, .. }),
            "legs {legs}: {e}"
        );
    }
    // At every scale within the limits, a right triangle is valid (the area test is in f64).
    for legs in [MIN_MESH_EXTENT, 1e-3, 1.0, 1e6, MAX_COORDINATE] {
        let p = vec![
            Vec3::ZERO,
            Vec3::new(legs, 0.0, 0.0),
            Vec3::new(0.0, legs, 0.0),
        ];
        TriangleMesh::new(p, vec![[0, 1, 2]]).unwrap_or_else(|e| panic!("legs {legs}: {e}"));
    }
}

#[test]
fn renormalised_row_with_overflowing_sum_is_halved_not_zeroed() {
    let (w, renormalised) =
        ConvexWeights::from_rows_renormalised([vec![(0u32, 3e38f32), (1, 3e38)]], 2).unwrap();
    assert_eq!(renormalised, 1);
    assert_eq!(w.row(0).1, &[0.5, 0.5]);
}

#[test]
fn truncated_to_zero_influences_is_an_invalid_parameter() {
    let w = ConvexWeights::from_rows([vec![(0u32, 0.25f32), (1, 0.75)]], 2).unwrap();
    assert!(
        matches!(
            w.truncated(0),
            Err(DeformError::InvalidParameter { name: "max", .. })
        ),
        "truncated(0) must not return the untruncated weights"
    );
    let one = w.truncated(1).unwrap();
    assert_eq!(one.row(0), (&[1u32][..], &[1.0f32][..]));
}

#[test]
fn bone_transforms_scaled_1e20_are_out_of_range() {
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let w = ConvexWeights::from_rows(p.iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    let mut skin = LinearBlendSkinning::new(p, w, vec![Affine::IDENTITY]).unwrap();
    let huge = Affine::new(Mat3::from_diagonal(Vec3::splat(1e20)), Vec3::ZERO);
    let before = skin.deformed_positions();
    assert_eq!(
        skin.set_bone_transforms(&[huge]).unwrap_err(),
        DeformError::TransformOutOfRange {
            governor: 0,
            field: "linear",
            value: 1e20,
            max: rapier3d_deform::limits::MAX_LINEAR
        }
    );
    assert_eq!(skin.deformed_positions(), before, "the pose is unchanged");
    assert!(skin.governors().iter().all(Affine::is_finite));
}

#[test]
fn bone_and_inverse_bind_within_limits_whose_product_is_not_are_rejected() {
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let w = ConvexWeights::from_rows(p.iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    let inverse_bind = Affine::new(Mat3::from_diagonal(Vec3::splat(1e3)), Vec3::ZERO);
    let mut skin = LinearBlendSkinning::new(p, w, vec![inverse_bind]).unwrap();
    let bone = Affine::new(Mat3::from_diagonal(Vec3::splat(1e3)), Vec3::ZERO);
    let e = skin.set_bone_transforms(&[bone]).unwrap_err();
    assert!(
        matches!(
            e,
            DeformError::TransformOutOfRange {
                governor: 0,
                field: "linear",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn self_collision_query_with_fewer_governors_is_a_length_error() {
    let (tree, mut query) = cube_tree();
    assert_eq!(
        run(&mut query, &tree, &[Affine::IDENTITY]),
        DeformError::LengthMismatch {
            what: "governor transforms",
            expected: 2,
            actual: 1
        }
    );
}

#[test]
fn self_collision_query_with_more_governors_is_a_length_error() {
    let (tree, mut query) = cube_tree();
    assert!(matches!(
        run(&mut query, &tree, &[Affine::IDENTITY; 3]),
        DeformError::LengthMismatch {
            expected: 2,
            actual: 3,
            ..
        }
    ));
}

#[test]
fn self_collision_query_with_nan_governors_is_rejected() {
    let (tree, mut query) = cube_tree();
    let nan = Affine::new(Mat3::IDENTITY, Vec3::new(0.0, f32::NAN, 0.0));
    assert_eq!(
        run(&mut query, &tree, &[Affine::IDENTITY, nan]),
        DeformError::NonFiniteTransform { governor: 1 }
    );
    // The same query still answers a valid pose afterwards: an intact cube has no pair.
    let mut out = Vec::new();
    query
        .run(
            &tree,
            &[Affine::IDENTITY; 2],
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut out,
        )
        .unwrap();
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn bn_tree_build_rejects_nan_rest_positions() {
    let mesh = cube_mesh();
    let weights =
        ConvexWeights::from_rows(mesh.positions().iter().map(|_| vec![(0u32, 1.0f32)]), 1).unwrap();
    let mut rest = mesh.positions().to_vec();
    rest[5].x = f32::NAN;
    assert_eq!(
        BnTree::build(&mesh, &rest, &weights).unwrap_err(),
        DeformError::NonFinitePosition {
            what: "rest vertex",
            index: 5
        }
    );
}

#[test]
fn proxy_from_a_cube_with_a_flipped_triangle_is_rejected() {
    let (p, mut t) = cube();
    t[3].swap(1, 2);
    let mesh = TriangleMesh::new(p, t).unwrap();
    let e = SphereProxy::build(&mesh, &[mesh.positions().to_vec()], &proxy_options()).unwrap_err();
    assert!(
        matches!(e, DeformError::InconsistentOrientation { .. }),
        "{e}"
    );
}

#[test]
fn proxy_from_a_cube_with_a_duplicated_face_is_rejected() {
    let (p, mut t) = cube();
    t.push(t[0]);
    let mesh = TriangleMesh::new(p, t).unwrap();
    let e = SphereProxy::build(&mesh, &[mesh.positions().to_vec()], &proxy_options()).unwrap_err();
    assert!(
        matches!(e, DeformError::NonManifoldEdge { triangles: 3, .. }),
        "{e}"
    );
}

#[test]
fn proxy_from_the_intact_cube_has_the_cube_unit_mass() {
    let mesh = cube_mesh();
    let (proxy, _) =
        SphereProxy::build(&mesh, &[mesh.positions().to_vec()], &proxy_options()).unwrap();
    assert!((proxy.unit_mass_properties().mass() - 8.0).abs() < 1e-3);
}

#[test]
fn sphere_proxy_shape_radius_1e13_is_rejected_and_the_limit_has_finite_mass() {
    let e = SphereProxyShape::new(vec![Vec3::ZERO, Vec3::X], vec![1.0, 1e13]).unwrap_err();
    assert_eq!(
        e,
        DeformError::InvalidElement {
            what: "sphere radius",
            index: 1,
            value: 1e13,
            reason: "must be finite, non-negative and at most limits::MAX_COORDINATE"
        }
    );
    let big = SphereProxyShape::new(vec![Vec3::ZERO], vec![MAX_COORDINATE]).unwrap();
    let mass = big.mass_properties(1.0);
    let exact = 4.0 / 3.0 * std::f64::consts::PI * f64::from(MAX_COORDINATE).powi(3);
    assert!(mass.mass().is_finite() && mass.principal_inertia().is_finite());
    assert!(
        (f64::from(mass.mass()) / exact - 1.0).abs() < 0.05,
        "{} vs {exact}",
        mass.mass()
    );
}

/// A 3×3-vertex plate (z = 0) with a dented example (centre pushed down).
fn plate_model() -> PlasticModel {
    let mut p = Vec::new();
    for j in 0..3 {
        for i in 0..3 {
            p.push(Vec3::new(i as f32, j as f32, 0.0));
        }
    }
    let mut t = Vec::new();
    for j in 0..2u32 {
        for i in 0..2u32 {
            let a = j * 3 + i;
            t.push([a, a + 1, a + 4]);
            t.push([a, a + 4, a + 3]);
        }
    }
    let mesh = TriangleMesh::new(p.clone(), t).unwrap();
    let mut dented = p.clone();
    dented[4].z = -0.5;
    PlasticModel::from_examples(&mesh, &[p, dented], PlasticityParams::jones_car()).unwrap()
}

fn contact_error(contacts: &[ContactSample]) -> DeformError {
    let model = plate_model();
    let mut state = model.new_state().unwrap();
    let mut dents = Vec::new();
    let e = model
        .apply_contacts(
            &mut state,
            contacts,
            &mut PlasticWorkspace::new(),
            &mut dents,
        )
        .unwrap_err();
    assert!(dents.is_empty() && state.pending_magnitude() == 0.0);
    e
}

#[test]
fn plasticity_contact_with_a_nan_point_is_reported() {
    let good = ContactSample {
        point: Vec3::new(1.0, 1.0, 0.0),
        displacement: Vec3::new(0.0, 0.0, -0.2),
    };
    let bad = ContactSample {
        point: Vec3::new(f32::NAN, 1.0, 0.0),
        ..good
    };
    assert_eq!(
        contact_error(&[good, bad]),
        DeformError::InvalidContact {
            contact: 1,
            field: "point",
            reason: "not finite"
        }
    );
}

#[test]
fn plasticity_displacement_of_1_9e19_is_reported() {
    let bad = ContactSample {
        point: Vec3::new(1.0, 1.0, 0.0),
        displacement: Vec3::new(0.0, 0.0, -1.9e19),
    };
    assert_eq!(
        contact_error(&[bad]),
        DeformError::InvalidContact {
            contact: 0,
            field: "displacement",
            reason: "beyond limits::MAX_COORDINATE"
        }
    );
}

const TRIANGLE_OBJ: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

fn weld_error(tolerance: f32) -> LoadError {
    let options = LoadOptions {
        weld_tolerance: tolerance,
        ..LoadOptions::default()
    };
    load_obj_slice(TRIANGLE_OBJ.as_bytes(), &options).unwrap_err()
}

#[test]
fn obj_weld_tolerance_nan_is_rejected() {
    let e = weld_error(f32::NAN);
    assert!(
        matches!(
            e,
            LoadError::Deform(DeformError::InvalidParameter {
                name: "weld_tolerance",
                ..
            })
        ),
        "{e}"
    );
}

#[test]
fn obj_weld_tolerance_negative_is_rejected() {
    let e = weld_error(-1.0);
    assert!(
        matches!(
            e,
            LoadError::Deform(DeformError::InvalidParameter { name: "weld_tolerance", value, .. })
                if value == -1.0
        ),
        "{e}"
    );
}

#[test]
fn obj_at_1e30_reports_the_range_not_an_empty_mesh() {
    let obj = "v 1e30 0 0\nv 2e30 0 0\nv 1e30 1e30 0\nf 1 2 3\n";
    let e = load_obj_slice(obj.as_bytes(), &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::Deform(DeformError::PositionOutOfRange {
                what: "vertex",
                index: 0,
                ..
            })
        ),
        "{e}"
    );
}

#[test]
fn a_cube_1e_20_across_is_too_small_not_a_massless_proxy() {
    let (p, t) = cube();
    let e = TriangleMesh::new(p.iter().map(|x| *x * 1e-20).collect(), t).unwrap_err();
    assert!(matches!(e, DeformError::MeshTooSmall { .. }), "{e}");
}

/// Cell-centre sampling weighed two small balls far apart at 0 (both fell between the centres
/// of the mass grid); balls narrower than two cells now count exactly.
#[test]
fn two_small_distant_balls_weigh_their_volume() {
    let r = 1e-3f32;
    let shape =
        SphereProxyShape::new(vec![Vec3::ZERO, Vec3::new(1e3, 0.0, 0.0)], vec![r; 2]).unwrap();
    let mass = shape.mass_properties(1.0);
    let exact = 2.0 * 4.0 / 3.0 * std::f32::consts::PI * r.powi(3);
    assert!(
        (mass.mass() / exact - 1.0).abs() < 1e-4,
        "{} vs {exact}",
        mass.mass()
    );
    assert!((mass.local_com.x - 500.0).abs() < 1e-2);
}

/// A ball whose radius is below the ulp of its centre cannot be sampled at all; it used to
/// weigh 0.
#[test]
fn a_ball_finer_than_its_coordinates_ulp_weighs_its_volume() {
    let shape = SphereProxyShape::new(vec![Vec3::splat(1e6)], vec![1e-6]).unwrap();
    let exact = 4.0 / 3.0 * std::f32::consts::PI * 1e-18;
    let m = shape.mass_properties(1.0).mass();
    assert!((m / exact - 1.0).abs() < 1e-4, "{m} vs {exact}");
}

/// The fuzzer's plate scaled by 2.8e-43 put every vertex into subnormal coordinates, where `f32`
/// rounding is absolute: the conservative query reported 281 pairs and brute force 313
/// (`api_cases/subnormal_scale_plate` replays it). Such a scale is now rejected; an exactly zero
/// linear part (a collapsed part) is still accepted and equals brute force.
#[test]
fn governor_scaling_into_subnormal_range_is_rejected_but_exact_zero_is_not() {
    let (tree, mut query) = cube_tree();
    let tiny = Affine::new(Mat3::from_diagonal(Vec3::splat(2.8e-43)), Vec3::ZERO);
    assert_eq!(
        run(&mut query, &tree, &[Affine::IDENTITY, tiny]),
        DeformError::TransformTooSmall {
            governor: 1,
            largest: 2.8e-43,
            min: MIN_LINEAR
        }
    );
    // Just at the limit and with a rotation's tiny entries beside a large one: accepted.
    let at_limit = Affine::new(Mat3::from_diagonal(Vec3::splat(MIN_LINEAR)), Vec3::ZERO);
    let mut rotation = Mat3::from_rotation_z(core::f32::consts::FRAC_PI_2);
    rotation.x_axis.x = 1e-40;
    for second in [
        at_limit,
        Affine::new(rotation, Vec3::Y),
        Affine::new(Mat3::ZERO, Vec3::new(0.0, -0.5, 0.0)),
    ] {
        let governors = [Affine::IDENTITY, second];
        let mut out = Vec::new();
        query
            .run(
                &tree,
                &governors,
                RefitPolicy::OnDemand,
                CullingMode::Conservative,
                &mut out,
            )
            .unwrap();
        let mesh = cube_mesh();
        let deformed: Vec<Vec3> = (0..mesh.vertex_count())
            .map(|v| {
                rapier3d_deform::governor::deform_vertex(
                    mesh.positions(),
                    tree.weights(),
                    &governors,
                    v,
                )
            })
            .collect();
        assert_eq!(
            out,
            rapier3d_deform::validation::self_collisions_brute_force(&mesh, &deformed).unwrap(),
            "{second:?}"
        );
    }
}
