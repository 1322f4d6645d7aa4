//! Contract: bad input to the sphere-proxy pipeline gives a typed error, one test per case — open
//! and self-intersecting meshes, an empty example set, an example whose vertex count differs from
//! the rest mesh, NaN positions (rest and example), and proxy/weight shape mismatches.

use rapier3d_deform::DeformError;
use rapier3d_deform::governor::ConvexWeights;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::shape::SphereProxyShape;
use rapier3d_deform_scenes::primitives::box_arrays;

/// An axis-aligned box with 12 outward-oriented triangles.
fn cube(half: f32, offset: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    box_arrays(offset - Vec3::splat(half), offset + Vec3::splat(half))
}

fn options() -> ProxyOptions {
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

fn closed_cube() -> TriangleMesh {
    let (p, t) = cube(1.0, Vec3::ZERO);
    TriangleMesh::new(p, t).unwrap()
}

#[test]
fn open_mesh() {
    let (p, mut t) = cube(1.0, Vec3::ZERO);
    t.truncate(10); // one face missing
    let mesh = TriangleMesh::new(p.clone(), t).unwrap();
    let err = SphereProxy::build(&mesh, &[p], &options()).unwrap_err();
    assert!(
        matches!(
            err,
            DeformError::OpenMesh {
                boundary_edges: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn self_intersecting_mesh() {
    let (mut p, mut t) = cube(1.0, Vec3::ZERO);
    let (p2, t2) = cube(1.0, Vec3::new(0.8, 0.3, 0.0));
    t.extend(t2.iter().map(|tri| tri.map(|i| i + 8)));
    p.extend(p2);
    let mesh = TriangleMesh::new(p.clone(), t).unwrap();
    let err = SphereProxy::build(&mesh, &[p], &options()).unwrap_err();
    assert!(
        matches!(err, DeformError::SelfIntersectingMesh { winding, .. } if winding > 1.5),
        "{err}"
    );
}

#[test]
fn empty_example_set() {
    let err = SphereProxy::build(&closed_cube(), &[], &options()).unwrap_err();
    assert_eq!(err, DeformError::Empty { what: "examples" });
}

#[test]
fn example_vertex_count_mismatch() {
    let mesh = closed_cube();
    let mut short = mesh.positions().to_vec();
    short.pop();
    let examples = vec![mesh.positions().to_vec(), short];
    let err = SphereProxy::build(&mesh, &examples, &options()).unwrap_err();
    assert_eq!(
        err,
        DeformError::ExampleVertexCount {
            example: 1,
            expected: 8,
            actual: 7
        }
    );
}

#[test]
fn nan_rest_position() {
    let (mut p, t) = cube(1.0, Vec3::ZERO);
    p[6].z = f32::NAN;
    let err = TriangleMesh::new(p, t).unwrap_err();
    assert_eq!(
        err,
        DeformError::NonFinitePosition {
            what: "vertex",
            index: 6
        }
    );
}

#[test]
fn nan_example_position() {
    let mesh = closed_cube();
    let mut bad = mesh.positions().to_vec();
    bad[2].x = f32::INFINITY;
    let err = SphereProxy::build(&mesh, &[mesh.positions().to_vec(), bad], &options()).unwrap_err();
    assert_eq!(
        err,
        DeformError::NonFiniteExamplePosition {
            example: 1,
            vertex: 2
        }
    );
}

#[test]
fn weights_of_the_wrong_shape() {
    let mesh = closed_cube();
    let (proxy, _) = SphereProxy::build(&mesh, &[mesh.positions().to_vec()], &options()).unwrap();
    let mut shape = SphereProxyShape::from_proxy(&proxy).unwrap();
    let before = shape.centres().to_vec();
    let wrong_rows = ConvexWeights::from_rows([vec![(0, 1.0)]], 1).unwrap();
    assert!(matches!(
        shape.blend_from(&proxy, &wrong_rows),
        Err(DeformError::LengthMismatch { .. })
    ));
    assert!(matches!(
        shape.blend_global_from(&proxy, &[0.5, 0.5]),
        Err(DeformError::InvalidGlobalWeight { .. })
    ));
    // A failed blend leaves the shape as it was.
    assert_eq!(shape.centres(), &before[..]);
}
