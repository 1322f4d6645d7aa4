//! Contract: on the same geometry and pose, `DeformableMeshShape` queries through `DeformDispatcher` equal those of a parry `TriMesh` built on the deformed vertices (through `DefaultQueryDispatcher`): contact manifolds against ball, cuboid and capsule in both argument orders (with per-triangle points: contact count within ±1 per manifold, depths within 1e-4 relative; merged, the default: the `TriMesh`'s points without coincident copies), warm-start data kept across steps, ray casts, point projections, intersection tests, distances, contacts and closest points.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rapier3d::math::IVector as IVec3;
use rapier3d::math::{Pose, Real};
use rapier3d::parry::query::{
    ClosestPoints, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, PointQuery,
    QueryDispatcher, Ray, RayCast, ShapeCastOptions,
};
use rapier3d::parry::shape::{Ball, Capsule, Cuboid, Shape, TriMesh, TriMeshFlags, Voxels};
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::DeformableMeshShape;

use crate::common;

/// The shape at a bent pose and the parry `TriMesh` of its deformed vertices.
fn fixture() -> (DeformableMeshShape, TriMesh) {
    fixture_with(false)
}

/// [`fixture`], with `fixed_edges` the shape using triangle pseudo-normals and the `TriMesh`
/// built with parry's `FIX_INTERNAL_EDGES_TWO_SIDED` (the same normal cones).
fn fixture_with(fixed_edges: bool) -> (DeformableMeshShape, TriMesh) {
    let tree = common::capped_tube_tree(24, 20);
    let mut shape = DeformableMeshShape::new(tree.clone(), &common::bent_tube_pose(0.0)).unwrap();
    shape.set_governors(&common::bent_tube_pose(0.35)).unwrap();
    // A reference built independently of the shape's lazy cache.
    let clone = shape.clone();
    let verts = clone.deformed_vertices();
    let flags = if fixed_edges {
        shape = shape.with_fixed_internal_edges().unwrap();
        TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::FIX_INTERNAL_EDGES_TWO_SIDED
    } else {
        TriMeshFlags::empty()
    };
    let trimesh = TriMesh::with_flags(verts, tree.mesh().triangles().to_vec(), flags).unwrap();
    (shape, trimesh)
}

/// [`fixture`] contacted as a solid (`with_solid_contacts`) and the `TriMesh` with parry's
/// one-sided `FIX_INTERNAL_EDGES`, its triangles wound outwards (reversed where the tube is
/// wound inwards, decided here by the rest mesh's signed volume).
fn fixture_solid() -> (DeformableMeshShape, TriMesh) {
    let tree = common::capped_tube_tree(24, 20);
    let mut shape = DeformableMeshShape::new(tree.clone(), &common::bent_tube_pose(0.0)).unwrap();
    shape.set_governors(&common::bent_tube_pose(0.35)).unwrap();
    let verts = shape.clone().deformed_vertices();
    let rest = tree.rest_positions();
    let volume: f32 = tree
        .mesh()
        .triangles()
        .iter()
        .map(|t| rest[t[0] as usize].dot(rest[t[1] as usize].cross(rest[t[2] as usize])))
        .sum();
    let outward: Vec<[u32; 3]> = tree
        .mesh()
        .triangles()
        .iter()
        .map(|&[a, b, c]| if volume > 0.0 { [a, b, c] } else { [a, c, b] })
        .collect();
    let shape = shape.with_solid_contacts().unwrap();
    assert!(shape.has_solid_contacts());
    let trimesh = TriMesh::with_flags(verts, outward, TriMeshFlags::FIX_INTERNAL_EDGES).unwrap();
    (shape, trimesh)
}

fn others() -> Vec<Box<dyn Shape>> {
    vec![
        Box::new(Ball::new(0.2)),
        Box::new(Cuboid::new(Vec3::new(0.15, 0.1, 0.2))),
        Box::new(Capsule::new_y(0.15, 0.1)),
    ]
}

/// Poses of the other shape near random points of the deformed surface, slightly penetrating.
fn poses(trimesh: &TriMesh, rng: &mut ChaCha8Rng, count: usize) -> Vec<Pose> {
    (0..count)
        .map(|_| {
            let t = rng.random_range(0..trimesh.num_triangles() as u32);
            let tri = trimesh.triangle(t);
            let (u, v) = (rng.random::<f32>(), rng.random::<f32>());
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let p = tri.a + u * (tri.b - tri.a) + v * (tri.c - tri.a);
            let n = tri.normal().unwrap();
            let offset = rng.random_range(0.05f32..0.2);
            let axis = Vec3::new(rng.random(), rng.random(), rng.random()) - Vec3::splat(0.5);
            let rot = Quat::from_scaled_axis(axis * 2.0);
            Pose::from_parts(p + n * offset, rot)
        })
        .collect()
}

const SEED: u64 = 7;

type Manifolds = Vec<ContactManifold<(), f32>>;

fn deepest(m: &ContactManifold<(), f32>) -> Real {
    m.points.iter().map(|p| p.dist).fold(Real::MAX, Real::min)
}

/// Non-empty manifolds pair up by `key`, with point counts within ±1 and deepest depths within
/// 1e-4 relative; with `normals`, their normals agree to 1e-4 too.
fn assert_manifolds_match_with(
    ours: &Manifolds,
    theirs: &Manifolds,
    key: impl Fn(&ContactManifold<(), f32>) -> u32,
    normals: bool,
) {
    let ours: Vec<_> = ours.iter().filter(|m| !m.points.is_empty()).collect();
    let theirs: Vec<_> = theirs.iter().filter(|m| !m.points.is_empty()).collect();
    assert_eq!(ours.len(), theirs.len(), "non-empty manifold counts differ");
    for m in &theirs {
        let o = ours
            .iter()
            .find(|o| key(o) == key(m))
            .unwrap_or_else(|| panic!("no manifold for triangle {}", key(m)));
        assert!(
            o.points.len().abs_diff(m.points.len()) <= 1,
            "triangle {}: {} vs {} points\n{:?}\n{:?}",
            key(m),
            o.points.len(),
            m.points.len(),
            o.points
                .iter()
                .map(|p| (p.dist, p.fid1, p.fid2))
                .collect::<Vec<_>>(),
            m.points
                .iter()
                .map(|p| (p.dist, p.fid1, p.fid2))
                .collect::<Vec<_>>(),
        );
        let (a, b) = (deepest(o), deepest(m));
        assert!(
            (a - b).abs() <= 1e-4 * a.abs().max(b.abs()) + 1e-6,
            "triangle {}: depth {a} vs {b}",
            key(m)
        );
        if normals {
            assert!(
                (o.local_n1 - m.local_n1).length() <= 1e-4,
                "triangle {}: normal {:?} vs {:?}",
                key(m),
                o.local_n1,
                m.local_n1
            );
        }
    }
}

#[test]
fn contact_manifolds_match_trimesh_in_both_orders() {
    contact_manifolds_match(per_triangle(fixture_with(false)), false);
}

#[test]
fn contact_manifolds_with_fixed_internal_edges_match_trimesh_with_pseudo_normals() {
    contact_manifolds_match(per_triangle(fixture_with(true)), true);
}

#[test]
fn solid_contact_manifolds_match_trimesh_with_one_sided_pseudo_normals() {
    contact_manifolds_match(per_triangle(fixture_solid()), true);
}

/// The fixture's shape keeping every triangle's contact points, as parry's `TriMesh` does.
fn per_triangle(
    (shape, trimesh): (DeformableMeshShape, TriMesh),
) -> (DeformableMeshShape, TriMesh) {
    (shape.with_contact_points_per_triangle(), trimesh)
}

#[test]
fn merged_contact_points_are_trimesh_points_without_coincident_copies() {
    for (shape, trimesh) in [fixture_with(false), fixture_with(true), fixture_solid()] {
        assert!(shape.merges_contact_points());
        merged_points_match(&shape, &trimesh);
    }
}

/// A contact point seen from the mesh: its position on the mesh, the pair's normal, its depth.
type MeshPoint = (Vec3, Vec3, Real);

/// Every point of every manifold, its mesh side first (`mesh_first`) or second.
fn mesh_points(manifolds: &Manifolds, mesh_first: bool) -> Vec<MeshPoint> {
    manifolds
        .iter()
        .flat_map(|m| {
            m.points.iter().map(move |p| {
                let at = if mesh_first { p.local_p1 } else { p.local_p2 };
                (at, m.local_n1, p.dist)
            })
        })
        .collect()
}

/// Normals within 5.1°: one contact plane, as Rapier's solver clusters them.
fn same_plane(a: Vec3, b: Vec3) -> bool {
    a.dot(b) >= 0.996
}

/// With merging on, against ball, cuboid and capsule at 200 poses each in both orders: every
/// point is one of the `TriMesh`'s (position, normal and depth); every `TriMesh` point has one
/// at its position in its plane; no two share a position and a plane; and on
/// the whole fewer points than the `TriMesh` makes (17–30 % fewer on this curved tube).
fn merged_points_match(shape: &DeformableMeshShape, trimesh: &TriMesh) {
    let prediction = 0.02;
    let (mut ours_total, mut theirs_total) = (0, 0);
    for (seed, other) in others().into_iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED + seed as u64);
        for pose in poses(trimesh, &mut rng, 200) {
            for mesh_first in [true, false] {
                let pos12 = if mesh_first { pose } else { pose.inverse() };
                let (s1, s2, t1, t2): (&dyn Shape, &dyn Shape, &dyn Shape, &dyn Shape) =
                    if mesh_first {
                        (shape, &*other, trimesh, &*other)
                    } else {
                        (&*other, shape, &*other, trimesh)
                    };
                let (mut ours, mut theirs): (Manifolds, Manifolds) = (Vec::new(), Vec::new());
                DeformDispatcher
                    .contact_manifolds(&pos12, s1, s2, prediction, &mut ours, &mut None)
                    .unwrap();
                DefaultQueryDispatcher
                    .contact_manifolds(&pos12, t1, t2, prediction, &mut theirs, &mut None)
                    .unwrap();
                let ours = mesh_points(&ours, mesh_first);
                let theirs = mesh_points(&theirs, mesh_first);
                for (i, &(p, n, d)) in ours.iter().enumerate() {
                    assert!(
                        theirs.iter().any(|&(q, m, e)| q == p
                            && (n - m).length() <= 1e-4
                            && (d - e).abs() <= 1e-4 * d.abs().max(e.abs()) + 1e-6),
                        "point {p:?} (normal {n:?}, depth {d}) is not a TriMesh point"
                    );
                    assert!(
                        !ours[..i]
                            .iter()
                            .any(|&(q, m, _)| q == p && same_plane(n, m)),
                        "point {p:?} kept twice in one plane"
                    );
                }
                for &(q, m, _) in &theirs {
                    assert!(
                        ours.iter().any(|&(p, n, _)| p == q && same_plane(n, m)),
                        "TriMesh point {q:?} (normal {m:?}) has no merged copy"
                    );
                }
                ours_total += ours.len();
                theirs_total += theirs.len();
            }
        }
    }
    assert!(theirs_total > 500, "only {theirs_total} TriMesh points");
    assert!(
        10 * ours_total < 9 * theirs_total,
        "{ours_total} merged points against {theirs_total}"
    );
}

/// Manifolds of the shape against ball, cuboid and capsule at 200 poses each, in both argument
/// orders, equal the `TriMesh`'s (normals too, with `fixed_edges`).
fn contact_manifolds_match((shape, trimesh): (DeformableMeshShape, TriMesh), fixed_edges: bool) {
    let prediction = 0.02;
    let mut touching = 0;
    for (seed, other) in others().into_iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED + seed as u64);
        for pose in poses(&trimesh, &mut rng, 200) {
            let (mut ours, mut theirs): (Manifolds, Manifolds) = (Vec::new(), Vec::new());
            let (mut ws1, mut ws2) = (None, None);
            DeformDispatcher
                .contact_manifolds(&pose, &shape, &*other, prediction, &mut ours, &mut ws1)
                .unwrap();
            DefaultQueryDispatcher
                .contact_manifolds(&pose, &trimesh, &*other, prediction, &mut theirs, &mut ws2)
                .unwrap();
            assert!(ws1.is_some(), "the workspace must be set");
            assert_manifolds_match_with(&ours, &theirs, |m| m.subshape1, fixed_edges);
            touching += ours.iter().filter(|m| !m.points.is_empty()).count();

            let inv = pose.inverse();
            let (mut ours, mut theirs): (Manifolds, Manifolds) = (Vec::new(), Vec::new());
            let (mut ws1, mut ws2) = (None, None);
            DeformDispatcher
                .contact_manifolds(&inv, &*other, &shape, prediction, &mut ours, &mut ws1)
                .unwrap();
            DefaultQueryDispatcher
                .contact_manifolds(&inv, &*other, &trimesh, prediction, &mut theirs, &mut ws2)
                .unwrap();
            assert_manifolds_match_with(&ours, &theirs, |m| m.subshape2, fixed_edges);
            // Manifolds without points are spares (sub-shape ids `u32::MAX`).
            for m in ours.iter().filter(|m| !m.points.is_empty()) {
                assert_eq!(m.subshape1, 0);
            }
        }
    }
    assert!(touching > 100, "only {touching} touching manifolds");
}

#[test]
fn warm_start_data_survives_a_new_pose() {
    let (mut shape, trimesh) = fixture();
    let ball = Ball::new(0.2);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let pose = poses(&trimesh, &mut rng, 1)[0];
    let mut manifolds: Manifolds = Vec::new();
    let mut ws = None;
    DeformDispatcher
        .contact_manifolds(&pose, &shape, &ball, 0.02, &mut manifolds, &mut ws)
        .unwrap();
    let mut keys = Vec::new();
    for m in &mut manifolds {
        for p in &mut m.points {
            p.data = 7.0;
            keys.push(m.subshape1);
        }
    }
    assert!(!keys.is_empty());
    // Same governors, new epoch (every cache invalid), a tiny motion; the workspace is reset as
    // Rapier does after a SHAPE change: manifolds are re-keyed from the list.
    let governors = shape.governors().to_vec();
    shape.set_governors(&governors).unwrap();
    let pose2 = Pose::from_parts(pose.translation + Vec3::new(1e-4, 0.0, 0.0), pose.rotation);
    let mut ws = None;
    DeformDispatcher
        .contact_manifolds(&pose2, &shape, &ball, 0.02, &mut manifolds, &mut ws)
        .unwrap();
    for k in keys {
        let m = manifolds.iter().find(|m| m.subshape1 == k).unwrap();
        assert!(!m.points.is_empty());
        assert!(
            m.points.iter().all(|p| p.data == 7.0),
            "triangle {k} lost its data"
        );
    }
}

#[test]
fn ray_casts_equal_trimesh_ray_casts() {
    let (shape, trimesh) = fixture();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..2000 {
        let dir =
            (Vec3::new(rng.random(), rng.random(), rng.random()) - Vec3::splat(0.5)).normalize();
        let origin = Vec3::new(1.0, 0.3, 0.0) - 3.0 * dir
            + 0.8 * (Vec3::new(rng.random(), rng.random(), rng.random()) - Vec3::splat(0.5));
        let ray = Ray::new(origin, dir);
        for solid in [true, false] {
            let a = shape.cast_local_ray_and_get_normal(&ray, 10.0, solid);
            let b = trimesh.cast_local_ray_and_get_normal(&ray, 10.0, solid);
            match (a, b) {
                (Some(a), Some(b)) => {
                    hits += 1;
                    assert!(
                        (a.time_of_impact - b.time_of_impact).abs() <= 1e-5 * b.time_of_impact,
                        "{} vs {}",
                        a.time_of_impact,
                        b.time_of_impact
                    );
                    if a.subshape == b.subshape {
                        assert!((a.normal - b.normal).length() < 1e-5);
                    }
                }
                (None, None) => misses += 1,
                (a, b) => panic!("hit mismatch: {a:?} vs {b:?}"),
            }
        }
        // Inside the tube, starting at its axis: a ray from the inside hits at 0 when solid.
        let inner = Ray::new(Vec3::new(0.5, 0.0, 0.0), dir);
        let a = shape.cast_local_ray(&inner, 10.0, false);
        let b = trimesh.cast_local_ray(&inner, 10.0, false);
        assert_eq!(a.is_some(), b.is_some());
        if let (Some(a), Some(b)) = (a, b) {
            assert!((a - b).abs() <= 1e-5 * b.max(1.0));
        }
    }
    assert!(hits > 500 && misses > 100, "{hits} hits, {misses} misses");
}

#[test]
fn point_projections_equal_trimesh_projections() {
    let (shape, trimesh) = fixture();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..500 {
        let p = Vec3::new(-0.5, -1.0, -1.0)
            + Vec3::new(3.0, 2.5, 2.0) * Vec3::new(rng.random(), rng.random(), rng.random());
        let a = shape.project_local_point(p, true);
        let b = trimesh.project_local_point(p, true);
        let (da, db) = ((a.point - p).length(), (b.point - p).length());
        assert!((da - db).abs() <= 1e-5 * db.max(1e-3), "{da} vs {db}");
        assert_eq!(a.is_inside, b.is_inside);
        let (fa, _) = shape.project_local_point_and_get_feature(p);
        assert!(((fa.point - p).length() - db).abs() <= 1e-5 * db.max(1e-3));
        // The max-distance projection prunes subtrees beyond the distance: same answer as the
        // full projection filtered by it (solid = false: the surface, inside or not).
        let surface = trimesh.project_local_point(p, false);
        let ds = (surface.point - p).length();
        for max_dist in [0.05, 0.2, 1.0] {
            let m = shape.project_local_point_with_max_dist(p, false, max_dist);
            if ds < max_dist * (1.0 - 1e-5) {
                let m = m.unwrap_or_else(|| panic!("{p}: surface at {ds} < {max_dist}, none"));
                assert!(((m.point - p).length() - ds).abs() <= 1e-5 * ds.max(1e-3));
            } else if ds > max_dist * (1.0 + 1e-5) {
                assert!(m.is_none(), "{p}: surface at {ds} > {max_dist}");
            }
        }
    }
}

#[test]
fn one_shot_queries_equal_trimesh_queries() {
    let (shape, trimesh) = fixture();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let d = DefaultQueryDispatcher;
    for other in others() {
        let mut near = poses(&trimesh, &mut rng, 20);
        // And some separated poses.
        near.extend(
            poses(&trimesh, &mut rng, 10)
                .into_iter()
                .map(|p| Pose::from_parts(p.translation + Vec3::new(0.0, 0.4, 0.3), p.rotation)),
        );
        for pose in near {
            for flipped in [false, true] {
                let (pos12, ours_args, theirs_args): (Pose, [&dyn Shape; 2], [&dyn Shape; 2]) =
                    if flipped {
                        (pose.inverse(), [&*other, &shape], [&*other, &trimesh])
                    } else {
                        (pose, [&shape, &*other], [&trimesh, &*other])
                    };
                let [o1, o2] = ours_args;
                let [t1, t2] = theirs_args;
                assert_eq!(
                    DeformDispatcher
                        .intersection_test(&pos12, o1, o2)
                        .unwrap()
                        .intersecting,
                    d.intersection_test(&pos12, t1, t2).unwrap().intersecting
                );
                let (a, b) = (
                    DeformDispatcher.distance(&pos12, o1, o2).unwrap().distance,
                    d.distance(&pos12, t1, t2).unwrap().distance,
                );
                assert!((a - b).abs() <= 1e-4 * b.max(1e-2), "distance {a} vs {b}");
                let (a, b) = (
                    DeformDispatcher.contact(&pos12, o1, o2, 0.05).unwrap(),
                    d.contact(&pos12, t1, t2, 0.05).unwrap(),
                );
                assert_eq!(a.is_some(), b.is_some());
                if let (Some(a), Some(b)) = (a, b) {
                    assert!((a.dist - b.dist).abs() <= 1e-4 * b.dist.abs().max(1e-2));
                    assert!(
                        (a.normal1 - b.normal1).length() < 1e-3 || (a.dist - b.dist).abs() < 1e-6
                    );
                }
                let (a, b) = (
                    DeformDispatcher
                        .closest_points(&pos12, o1, o2, 0.1)
                        .unwrap(),
                    d.closest_points(&pos12, t1, t2, 0.1).unwrap(),
                );
                match (a, b) {
                    (ClosestPoints::WithinMargin(a1, a2), ClosestPoints::WithinMargin(b1, b2)) => {
                        let da = (a1 - pos12 * a2).length();
                        let db = (b1 - pos12 * b2).length();
                        assert!((da - db).abs() <= 1e-4 * db.max(1e-2), "{da} vs {db}");
                    }
                    (a, b) => assert_eq!(a, b),
                }
            }
        }
    }
}

#[test]
fn unhandled_pairs_are_unsupported() {
    let (shape, trimesh) = fixture();
    let ball = Ball::new(0.2);
    let voxels = Voxels::new(Vec3::splat(0.1), &[IVec3::ZERO, IVec3::X]);
    let pose = Pose::IDENTITY;
    let mut m: Manifolds = Vec::new();
    let mut ws = None;
    // Pairs without a crate shape belong to the next dispatcher of the chain.
    assert!(
        DeformDispatcher
            .contact_manifolds(&pose, &ball, &ball, 0.0, &mut m, &mut ws)
            .is_err()
    );
    assert!(
        DeformDispatcher
            .contact_manifolds(&pose, &trimesh, &ball, 0.0, &mut m, &mut ws)
            .is_err()
    );
    assert!(
        DeformDispatcher
            .intersection_test(&pose, &trimesh, &ball)
            .is_err()
    );
    // Voxels are not handled (neither a tree of convex parts nor a support map).
    assert!(
        DeformDispatcher
            .contact_manifolds(&pose, &shape, &voxels, 0.0, &mut m, &mut ws)
            .is_err()
    );
    assert!(DeformDispatcher.distance(&pose, &voxels, &shape).is_err());
    // A deformable mesh against a TriMesh or another deformable mesh is handled.
    assert!(
        DeformDispatcher
            .contact_manifolds(&pose, &shape, &trimesh, 0.0, &mut m, &mut ws)
            .is_ok()
    );
    assert!(
        DeformDispatcher
            .contact_manifolds(&pose, &shape, &shape, 0.0, &mut m, &mut ws)
            .is_ok()
    );
}

#[test]
fn shape_casts_equal_trimesh_shape_casts() {
    let (shape, trimesh) = fixture();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let d = DefaultQueryDispatcher;
    let options = ShapeCastOptions::with_max_time_of_impact(2.0);
    let mut hits = 0;
    for other in others() {
        for pose in poses(&trimesh, &mut rng, 30) {
            // Start 0.6 further out along a random direction and move back towards the mesh.
            let dir = (Vec3::new(rng.random(), rng.random(), rng.random()) - Vec3::splat(0.5))
                .normalize();
            let start = Pose::from_parts(pose.translation + 0.6 * dir, pose.rotation);
            let vel = -dir + 0.3 * (Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5);
            for flipped in [false, true] {
                let (a, b) = if flipped {
                    let pos12 = start.inverse();
                    let vel12 = pos12.rotation * -vel;
                    (
                        DeformDispatcher.cast_shapes(&pos12, vel12, &*other, &shape, options),
                        d.cast_shapes(&pos12, vel12, &*other, &trimesh, options),
                    )
                } else {
                    (
                        DeformDispatcher.cast_shapes(&start, vel, &shape, &*other, options),
                        d.cast_shapes(&start, vel, &trimesh, &*other, options),
                    )
                };
                let (a, b) = (a.unwrap(), b.unwrap());
                assert_eq!(a.is_some(), b.is_some(), "{a:?} vs {b:?}");
                if let (Some(a), Some(b)) = (a, b) {
                    hits += 1;
                    assert!(
                        (a.time_of_impact - b.time_of_impact).abs()
                            <= 1e-4 * b.time_of_impact.max(1e-2),
                        "{} vs {}",
                        a.time_of_impact,
                        b.time_of_impact
                    );
                }
            }
        }
    }
    assert!(hits > 60, "{hits} hits");
}
