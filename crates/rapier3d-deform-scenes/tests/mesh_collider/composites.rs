//! Contract: on the same deformed geometry, contact manifolds of a `DeformableMeshShape` through `DeformDispatcher` against parry `TriMesh` (plain and with internal-edge fixing), `Compound`, `HeightField` (plain and with internal-edge fixing), `HalfSpace`, `SphereProxyShape` and another `DeformableMeshShape` equal parry's own (`DefaultQueryDispatcher` on a `TriMesh` of the deformed vertices; against height fields, a `Compound` of the deformed triangles, because parry gives a `TriMesh` no height-field contacts) in both argument orders over random poses: the same non-empty manifolds by part pair, distinct point counts within ±1, deepest depths within 1e-4 relative, and, when the counts agree, every point within the prediction distance found in parry's manifold (1 mm, separation 1e-4 relative + 5e-5); one-shot queries agree with parry's or, where parry has none, with a brute force over all part pairs.

use crate::common;

use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rapier3d::math::{Pose, Real};
use rapier3d::parry::query::{
    ClosestPoints, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
    QueryDispatcher, Ray, ShapeCastOptions,
};
use rapier3d::parry::shape::{
    Cuboid, HeightField, HeightFieldFlags, Shape, SharedShape, TriMesh, TriMeshFlags,
};
use rapier3d::parry::utils::Array2;
use rapier3d_deform::bn_tree::BnTree;
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::{DeformableMeshShape, SphereProxyShape};

/// A skinned tube (radius 1, length `length`, `bones` bones) posed by random governors.
fn posed_tube(
    r: &mut ChaCha8Rng,
    length: f32,
    rings: usize,
    segments: usize,
    bones: usize,
    scale: f32,
) -> DeformableMeshShape {
    let mesh = common::tube(length, rings, segments);
    let weights = common::tube_weights(&mesh, bones, length, 3);
    let tree = Arc::new(BnTree::build(&mesh, mesh.positions(), &weights).unwrap());
    let governors: Vec<Affine> = (0..bones)
        .map(|_| {
            let g = common::random_governor(r, 0.25, 0.1);
            Affine::new(g.linear * scale, g.translation * scale)
        })
        .collect();
    DeformableMeshShape::new(tree, &governors).unwrap()
}

/// A parry `TriMesh` of the shape's deformed vertices, built from a fresh clone (independent of
/// the shape's lazy caches).
fn trimesh_of(shape: &DeformableMeshShape) -> TriMesh {
    let verts = shape.clone().deformed_vertices();
    TriMesh::new(verts, shape.tree().mesh().triangles().to_vec()).unwrap()
}

/// The same deformed triangles as a parry `Compound` (the reference against height fields).
fn compound_of(trimesh: &TriMesh) -> SharedShape {
    SharedShape::compound(
        trimesh
            .triangles()
            .map(|t| (Pose::IDENTITY, SharedShape::triangle(t.a, t.b, t.c)))
            .collect(),
    )
}

/// A bumpy open grid over [-3, 3]² (heights ±0.15).
fn bumpy_ground(r: &mut ChaCha8Rng, flags: TriMeshFlags) -> SharedShape {
    let n = 10;
    let mut v = Vec::new();
    for i in 0..=n {
        for k in 0..=n {
            v.push(Vec3::new(
                -3.0 + 6.0 * i as f32 / n as f32,
                r.random_range(-0.15..0.15),
                -3.0 + 6.0 * k as f32 / n as f32,
            ));
        }
    }
    let mut t = Vec::new();
    for i in 0..n {
        for k in 0..n {
            let a = (i * (n + 1) + k) as u32;
            let (b, c, d) = (a + 1, a + n as u32 + 1, a + n as u32 + 2);
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    SharedShape::new(TriMesh::with_flags(v, t, flags).unwrap())
}

fn height_field(r: &mut ChaCha8Rng, flags: HeightFieldFlags) -> SharedShape {
    let n = 12;
    let heights: Vec<f32> = (0..n * n).map(|_| r.random_range(-0.15..0.15)).collect();
    SharedShape::new(HeightField::with_flags(
        Array2::new(n, n, heights),
        Vec3::new(6.0, 1.0, 6.0),
        flags,
    ))
}

fn compound() -> SharedShape {
    let q = Quat::from_rotation_x(0.4) * Quat::from_rotation_z(-0.3);
    SharedShape::compound(vec![
        (
            Pose::from_translation(Vec3::new(0.3, 0.0, 0.0)),
            SharedShape::ball(0.2),
        ),
        (
            Pose::from_parts(Vec3::new(-0.2, 0.1, 0.1), q),
            SharedShape::cuboid(0.2, 0.1, 0.25),
        ),
        (
            Pose::from_parts(Vec3::new(0.0, -0.25, -0.2), q.inverse()),
            SharedShape::capsule_y(0.15, 0.1),
        ),
        (
            Pose::from_translation(Vec3::new(0.1, 0.3, 0.25)),
            SharedShape::cone(0.15, 0.12),
        ),
    ])
}

fn proxy(r: &mut ChaCha8Rng) -> SphereProxyShape {
    let centres = (0..8)
        .map(|_| {
            Vec3::new(
                r.random_range(-0.4..0.4),
                r.random_range(-0.4..0.4),
                r.random_range(-0.4..0.4),
            )
        })
        .collect();
    let radii = (0..8).map(|_| r.random_range(0.1..0.3)).collect();
    SphereProxyShape::new(centres, radii).unwrap()
}

/// An "other" shape, the shape parry is given in its place, and whether it is a ground (tilted
/// only a little, probed from above).
struct Other {
    name: &'static str,
    ours: SharedShape,
    theirs: SharedShape,
    ground: bool,
    /// Against height fields the mesh's reference is a `Compound` of its triangles.
    compound_reference: bool,
}

fn others(r: &mut ChaCha8Rng) -> Vec<Other> {
    let same = |name, s: SharedShape, ground| Other {
        name,
        ours: s.clone(),
        theirs: s,
        ground,
        compound_reference: false,
    };
    let (cv, ci) = Cuboid::new(Vec3::new(0.3, 0.2, 0.25)).to_trimesh();
    // Per-triangle points on both meshes: the manifolds compare with parry's one by one.
    let second = posed_tube(r, 1.0, 6, 10, 2, 0.4).with_contact_points_per_triangle();
    let second_ref = SharedShape::new(trimesh_of(&second));
    vec![
        same(
            "trimesh ground",
            bumpy_ground(r, TriMeshFlags::empty()),
            true,
        ),
        same(
            "trimesh ground, fixed internal edges",
            bumpy_ground(r, TriMeshFlags::FIX_INTERNAL_EDGES),
            true,
        ),
        same("trimesh box", SharedShape::trimesh(cv, ci).unwrap(), false),
        same("compound", compound(), false),
        Other {
            compound_reference: true,
            ..same(
                "heightfield",
                height_field(r, HeightFieldFlags::empty()),
                true,
            )
        },
        Other {
            compound_reference: true,
            ..same(
                "heightfield, fixed internal edges",
                height_field(r, HeightFieldFlags::FIX_INTERNAL_EDGES),
                true,
            )
        },
        same("half-space", SharedShape::halfspace(Vec3::Y), true),
        same("sphere proxy", SharedShape::new(proxy(r)), false),
        Other {
            name: "deformable mesh",
            ours: SharedShape::new(second),
            theirs: second_ref,
            ground: false,
            compound_reference: false,
        },
    ]
}

/// A random point of the shape's surface, probed by a downward ray in its frame.
fn surface_point(shape: &dyn Shape, r: &mut ChaCha8Rng) -> Vec3 {
    let aabb = shape.compute_local_aabb();
    let (lo, hi) = (
        aabb.mins.max(Vec3::splat(-1.5)),
        aabb.maxs.min(Vec3::splat(1.5)),
    );
    loop {
        let (x, z) = (r.random_range(lo.x..=hi.x), r.random_range(lo.z..=hi.z));
        let ray = Ray::new(Vec3::new(x, hi.y + 1.0, z), Vec3::NEG_Y);
        if let Some(toi) = shape.cast_local_ray(&ray, hi.y - lo.y + 2.0, true) {
            return ray.point_at(toi);
        }
    }
}

/// A random point and normal of the deformed mesh.
fn mesh_point(trimesh: &TriMesh, r: &mut ChaCha8Rng) -> (Vec3, Vec3) {
    loop {
        let tri = trimesh.triangle(r.random_range(0..trimesh.num_triangles() as u32));
        let (u, v) = (r.random::<f32>(), r.random::<f32>());
        let (u, v) = if u + v > 1.0 {
            (1.0 - u, 1.0 - v)
        } else {
            (u, v)
        };
        if let Some(n) = tri.normal() {
            return (tri.a + u * (tri.b - tri.a) + v * (tri.c - tri.a), n);
        }
    }
}

/// The pose of `other` in the mesh's frame putting a random point of its surface at `offset`
/// along the normal of a random point of the mesh.
fn touching_pose(trimesh: &TriMesh, other: &Other, offset: f32, r: &mut ChaCha8Rng) -> Pose {
    let (p, n) = mesh_point(trimesh, r);
    let q = surface_point(&*other.ours, r);
    let amount = if other.ground { 0.2 } else { 1.0 };
    let rot = Quat::IDENTITY.slerp(common::random_rotation(r), amount);
    Pose::from_parts(p + n * offset - rot * q, rot)
}

type Manifolds = Vec<ContactManifold<(), ()>>;

/// Non-empty manifolds as (key, [(point 1, point 2, dist)]) in the colliders' frames, sorted by
/// key, duplicate points merged.
fn normalized(manifolds: &Manifolds) -> Normalized {
    let mut out: Vec<_> = manifolds
        .iter()
        .filter(|m| !m.points.is_empty())
        .map(|m| {
            let p1 = m.subshape_pos1().copied().unwrap_or(Pose::IDENTITY);
            let p2 = m.subshape_pos2().copied().unwrap_or(Pose::IDENTITY);
            // Clipping can emit the same point twice (at a polygon vertex); merge duplicates.
            let mut points: Vec<(Vec3, Vec3, Real)> = Vec::new();
            for c in &m.points {
                let p = (p1 * c.local_p1, p2 * c.local_p2, c.dist);
                if !points
                    .iter()
                    .any(|q| (q.0 - p.0).length() <= 1e-4 && (q.1 - p.1).length() <= 1e-4)
                {
                    points.push(p);
                }
            }
            ((m.subshape1, m.subshape2), points)
        })
        .collect();
    out.sort_by_key(|(k, _)| *k);
    out
}

/// What a comparison of manifold lists found.
#[derive(Default, Debug)]
struct Compared {
    /// Manifolds present on both sides.
    manifolds: usize,
    /// Manifolds within the tolerances: distinct point counts within ±1, deepest
    /// depths within 1e-4 relative (+1e-6).
    strict: usize,
    /// Manifolds whose distinct point counts differ by one.
    count_off_by_one: usize,
    /// Manifolds whose distinct point counts differ by more.
    count_off_by_more: usize,
    /// Largest |Δ deepest depth| beyond the 1e-4 relative tolerance.
    max_excess: Real,
    /// Manifolds with equal counts whose point sets were compared, and how many matched.
    point_sets: usize,
    point_sets_matched: usize,
    /// Non-empty manifolds present on one side only.
    key_mismatches: usize,
}

type Normalized = Vec<((u32, u32), Vec<(Vec3, Vec3, Real)>)>;

/// The same contacts seen with the arguments swapped.
fn swapped(v: Normalized) -> Normalized {
    let mut out: Normalized = v
        .into_iter()
        .map(|((a, b), points)| {
            (
                (b, a),
                points.into_iter().map(|(p, q, d)| (q, p, d)).collect(),
            )
        })
        .collect();
    out.sort_by_key(|(k, _)| *k);
    out
}

/// Compares two normalized manifold lists (`ours` against the reference `theirs`).
fn compare(ours: &Normalized, theirs: &Normalized, tally: &mut Compared) {
    let deepest = |v: &[(Vec3, Vec3, Real)]| v.iter().map(|p| p.2).fold(Real::MAX, Real::min);
    for (key, a) in ours {
        let Some((_, b)) = theirs.iter().find(|(k, _)| k == key) else {
            tally.key_mismatches += 1;
            continue;
        };
        tally.manifolds += 1;
        let count_diff = a.len().abs_diff(b.len());
        tally.count_off_by_one += usize::from(count_diff == 1);
        tally.count_off_by_more += usize::from(count_diff > 1);
        let (da, db) = (deepest(a), deepest(b));
        let excess = (da - db).abs() - 1e-4 * da.abs().max(db.abs());
        tally.max_excess = tally.max_excess.max(excess);
        tally.strict += usize::from(count_diff <= 1 && excess <= 1e-6);
        if count_diff == 0 {
            tally.point_sets += 1;
            // Points beyond the prediction distance are far clipping vertices that no solver
            // contact uses.
            let matched = a.iter().filter(|p| p.2 <= PREDICTION).all(|p| {
                b.iter().any(|q| {
                    (p.0 - q.0).length() <= POSITION
                        && (p.1 - q.1).length() <= POSITION
                        && (p.2 - q.2).abs() <= 1e-4 * p.2.abs().max(q.2.abs()) + SEPARATION
                })
            });
            tally.point_sets_matched += usize::from(matched);
        }
    }
    tally.key_mismatches += theirs
        .iter()
        .filter(|(k, _)| !ours.iter().any(|(o, _)| o == k))
        .count();
}

fn manifolds(
    d: &dyn PersistentQueryDispatcher<(), ()>,
    pos12: &Pose,
    g1: &dyn Shape,
    g2: &dyn Shape,
) -> Manifolds {
    let mut out = Vec::new();
    let mut ws = None;
    d.contact_manifolds(pos12, g1, g2, PREDICTION, &mut out, &mut ws)
        .unwrap();
    out
}

const PREDICTION: Real = 0.02;
/// Tolerance on point positions when point sets are compared: on a curved feature (a capsule's
/// side, a ball) the contact point slides with the contact normal.
const POSITION: Real = 1e-3;
/// Absolute tolerance added to the 1e-4 relative one on separations when point sets are
/// compared (see the test's comment on GJK).
const SEPARATION: Real = 1e-4;

#[test]
fn contact_manifolds_match_parry_in_both_orders() {
    let mut r = common::rng(61);
    let mut tally = Compared::default();
    // Parry against itself with the arguments swapped: the noise floor of the comparison.
    let mut parry_self = Compared::default();
    // (merged points, per-triangle points) with the shape's default merging of coincident points.
    let mut merge_tally = (0usize, 0usize);
    for round in 0..3 {
        let merged = posed_tube(&mut r, 2.0, 12, 16, 3, 1.0);
        let shape = merged.clone().with_contact_points_per_triangle();
        let trimesh = trimesh_of(&shape);
        let mesh_compound = compound_of(&trimesh);
        for other in others(&mut r) {
            let reference: &dyn Shape = if other.compound_reference {
                &*mesh_compound
            } else {
                &trimesh
            };
            let before = tally.manifolds;
            for _ in 0..25 {
                let offset = r.random_range(-0.08f32..0.05);
                let pose = touching_pose(&trimesh, &other, offset, &mut r);
                let what = format!("round {round}, {}", other.name);
                let theirs = normalized(&manifolds(
                    &DefaultQueryDispatcher,
                    &pose,
                    reference,
                    &*other.theirs,
                ));
                let per_triangle = manifolds(&DeformDispatcher, &pose, &shape, &*other.ours);
                let m = manifolds(&DeformDispatcher, &pose, &merged, &*other.ours);
                merged_points_check(&m, &per_triangle, true, &what, &mut merge_tally);
                let ours = normalized(&per_triangle);
                assert_same_keys(&ours, &theirs, &what);
                compare(&ours, &theirs, &mut tally);
                let inv = pose.inverse();
                let theirs_flipped = normalized(&manifolds(
                    &DefaultQueryDispatcher,
                    &inv,
                    &*other.theirs,
                    reference,
                ));
                let per_triangle = manifolds(&DeformDispatcher, &inv, &*other.ours, &shape);
                let m = manifolds(&DeformDispatcher, &inv, &*other.ours, &merged);
                merged_points_check(&m, &per_triangle, false, &what, &mut merge_tally);
                let ours = normalized(&per_triangle);
                assert_same_keys(&ours, &theirs_flipped, &format!("{what} (flipped)"));
                compare(&ours, &theirs_flipped, &mut tally);
                compare(&theirs, &swapped(theirs_flipped), &mut parry_self);
            }
            assert!(
                tally.manifolds - before >= 25,
                "{}: only {} touching manifolds",
                other.name,
                tally.manifolds - before
            );
        }
    }
    println!("ours vs parry: {tally:?}");
    println!("merged points / per-triangle points: {merge_tally:?}");
    assert!(
        10 * merge_tally.0 < 9 * merge_tally.1,
        "merging dropped too few points: {merge_tally:?}"
    );
    println!("parry vs parry (arguments swapped): {parry_self:?}");
    // The tolerances hold for all but a handful of manifolds; those are near-degenerate
    // configurations where GJK/EPA (which stop at a tolerance and return normals accurate to
    // about its square root) take another path after a 1-ulp change of the composed poses, and
    // parry then picks another pair of features: parry disagrees with itself as often when its
    // arguments are swapped (`parry_self`).
    let loose = tally.count_off_by_more + tally.manifolds - tally.strict;
    let parry_loose = parry_self.count_off_by_more + parry_self.manifolds - parry_self.strict;
    assert!(tally.strict * 1000 >= tally.manifolds * 999, "{tally:?}");
    assert!(
        loose <= 2 * parry_loose.max(10),
        "{tally:?} vs {parry_self:?}"
    );
    // Even there, depths agree to 1 mm (a wrong frame or key would be off by centimetres).
    assert!(tally.max_excess <= 1e-3, "{tally:?}");
    assert!(
        tally.point_sets_matched * 1000 >= tally.point_sets * 999,
        "{tally:?}"
    );
}

/// With merging on, every point is a point of the per-triangle manifolds (bit for bit: both
/// positions, normal and depth); every per-triangle point has a merged one at its position on
/// the mesh (`mesh_first`: the mesh is the first shape) with a normal within 5.1°; no two merged
/// points share that position and plane. Adds the point counts (merged, per-triangle) to
/// `tally`.
fn merged_points_check(
    merged: &Manifolds,
    per_triangle: &Manifolds,
    mesh_first: bool,
    what: &str,
    tally: &mut (usize, usize),
) {
    let points = |ms: &Manifolds| {
        ms.iter()
            .flat_map(|m| {
                m.points
                    .iter()
                    .map(move |p| (p.local_p1, p.local_p2, m.local_n1, p.dist))
            })
            .collect::<Vec<_>>()
    };
    let (ours, theirs) = (points(merged), points(per_triangle));
    let at = |p: &(Vec3, Vec3, Vec3, Real)| if mesh_first { p.0 } else { p.1 };
    let same_plane = |a: Vec3, b: Vec3| a.dot(b) >= 0.996;
    for (i, p) in ours.iter().enumerate() {
        assert!(
            theirs.contains(p),
            "{what}: merged point {p:?} is not a per-triangle point"
        );
        assert!(
            !ours[..i]
                .iter()
                .any(|q| at(q) == at(p) && same_plane(q.2, p.2)),
            "{what}: point {p:?} kept twice in one plane"
        );
    }
    for q in &theirs {
        assert!(
            ours.iter().any(|p| at(p) == at(q) && same_plane(p.2, q.2)),
            "{what}: per-triangle point {q:?} has no merged copy"
        );
    }
    tally.0 += ours.len();
    tally.1 += theirs.len();
}

/// Both lists have the same non-empty manifolds (the same part pairs touch).
fn assert_same_keys(ours: &Normalized, theirs: &Normalized, what: &str) {
    let keys = |v: &Normalized| v.iter().map(|x| x.0).collect::<Vec<_>>();
    assert_eq!(
        keys(ours),
        keys(theirs),
        "{what}: non-empty manifolds differ"
    );
}

/// The convex parts of a reference shape, in its frame (a brute-force enumeration without any
/// tree).
fn parts_of(shape: &dyn Shape) -> Vec<(u32, Pose, SharedShape)> {
    if let Some(t) = shape.as_trimesh() {
        t.triangles()
            .enumerate()
            .map(|(i, t)| {
                (
                    i as u32,
                    Pose::IDENTITY,
                    SharedShape::triangle(t.a, t.b, t.c),
                )
            })
            .collect()
    } else if let Some(c) = shape.as_compound() {
        c.shapes()
            .iter()
            .enumerate()
            .map(|(i, (p, s))| (i as u32, *p, s.clone()))
            .collect()
    } else if let Some(h) = shape.as_heightfield() {
        (0..2 * h.nrows() * h.ncols())
            .filter_map(|i| {
                let t = h.triangle_at_id(i as u32)?;
                Some((
                    i as u32,
                    Pose::IDENTITY,
                    SharedShape::triangle(t.a, t.b, t.c),
                ))
            })
            .collect()
    } else {
        vec![(0, Pose::IDENTITY, SharedShape(Arc::from(shape.clone_dyn())))]
    }
}

/// Brute force over all part pairs: (any intersecting, smallest distance).
fn brute_force(pos12: &Pose, g1: &dyn Shape, g2: &dyn Shape) -> (bool, Real) {
    let (a, b) = (parts_of(g1), parts_of(g2));
    let mut intersecting = false;
    let mut best = Real::MAX;
    for (_, p1, s1) in &a {
        for (_, p2, s2) in &b {
            let pos = p1.inv_mul(&(*pos12 * *p2));
            let d = &DefaultQueryDispatcher;
            intersecting |= d
                .intersection_test(&pos, &**s1, &**s2)
                .unwrap()
                .intersecting;
            if let Ok(x) = d.distance(&pos, &**s1, &**s2) {
                best = best.min(x.distance);
            }
        }
    }
    (intersecting, best)
}

/// Disagreements of one-shot queries with the reference, per query kind.
#[derive(Default, Debug)]
struct OneShot {
    queries: usize,
    intersection: usize,
    distance: usize,
    contact: usize,
    closest_points: usize,
    cast: usize,
    cast_hits: usize,
}

fn close(a: Real, b: Real) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()) + 1e-5
}

#[test]
fn one_shot_queries_match_parry_or_brute_force() {
    let mut r = common::rng(67);
    let mut tally = OneShot::default();
    let d = DefaultQueryDispatcher;
    let shape = posed_tube(&mut r, 2.0, 8, 12, 3, 1.0);
    let trimesh = trimesh_of(&shape);
    let mesh_compound = compound_of(&trimesh);
    let options = ShapeCastOptions::with_max_time_of_impact(2.0);
    for other in others(&mut r) {
        let reference: &dyn Shape = if other.compound_reference {
            &*mesh_compound
        } else {
            &trimesh
        };
        let height_field = other.ours.as_heightfield().is_some();
        for k in 0..30 {
            let offset = if k % 3 == 0 {
                r.random_range(0.2f32..0.5)
            } else {
                r.random_range(-0.05f32..0.05)
            };
            let pose = touching_pose(&trimesh, &other, offset, &mut r);
            for flipped in [false, true] {
                let (pos12, o, t): (Pose, [&dyn Shape; 2], [&dyn Shape; 2]) = if flipped {
                    (
                        pose.inverse(),
                        [&*other.ours, &shape],
                        [&*other.theirs, reference],
                    )
                } else {
                    (pose, [&shape, &*other.ours], [reference, &*other.theirs])
                };
                tally.queries += 1;
                let what = format!("{} (flipped: {flipped})", other.name);
                let brute = height_field.then(|| brute_force(&pos12, t[0], t[1]));
                // Intersection test.
                let ours = DeformDispatcher
                    .intersection_test(&pos12, o[0], o[1])
                    .unwrap();
                let theirs = match brute {
                    Some((b, _)) => b,
                    None => {
                        d.intersection_test(&pos12, t[0], t[1])
                            .unwrap()
                            .intersecting
                    }
                };
                tally.intersection += usize::from(ours.intersecting != theirs);
                // Distance (parry has none to a height field, and neither do we).
                let ours = DeformDispatcher.distance(&pos12, o[0], o[1]);
                if height_field {
                    assert!(ours.is_err(), "{what}: distance to a height field");
                } else {
                    let theirs = d.distance(&pos12, t[0], t[1]).unwrap().distance;
                    tally.distance += usize::from(!close(ours.unwrap().distance, theirs));
                }
                // Deepest contact.
                let ours = DeformDispatcher
                    .contact(&pos12, o[0], o[1], 0.05)
                    .unwrap()
                    .map(|c| c.dist);
                let theirs = match other.ours.as_halfspace() {
                    // parry 0.31.1 gets (support map, half-space) contacts wrong away from the
                    // identity pose (it does not invert the pose), and reaches that routine
                    // for a TriMesh in either order: the deepest deformed vertex instead.
                    Some(h) => {
                        let pos_hm = if flipped { pos12 } else { pos12.inverse() };
                        let deepest = trimesh
                            .vertices()
                            .iter()
                            .map(|v| h.normal.dot(pos_hm * *v))
                            .fold(Real::MAX, Real::min);
                        (deepest <= 0.05).then_some(deepest)
                    }
                    None => d.contact(&pos12, t[0], t[1], 0.05).unwrap().map(|c| c.dist),
                };
                let bad = match (ours, theirs) {
                    (Some(a), Some(b)) => !close(a, b),
                    (a, b) => a.is_some() != b.is_some(),
                };
                if bad {
                    println!("contact {what}: {ours:?} vs {theirs:?}");
                }
                tally.contact += usize::from(bad);
                // Closest points.
                let ours = DeformDispatcher
                    .closest_points(&pos12, o[0], o[1], 0.1)
                    .unwrap();
                let theirs = match brute {
                    Some((true, _)) => ClosestPoints::Intersecting,
                    Some((false, x)) if x <= 0.1 => {
                        ClosestPoints::WithinMargin(Vec3::ZERO, Vec3::ZERO)
                    }
                    Some(_) => ClosestPoints::Disjoint,
                    None => d.closest_points(&pos12, t[0], t[1], 0.1).unwrap(),
                };
                let gap = |c: ClosestPoints| match c {
                    ClosestPoints::WithinMargin(a, b) => Some((a - pos12 * b).length()),
                    _ => None,
                };
                tally.closest_points += usize::from(match (ours, theirs) {
                    (ClosestPoints::WithinMargin(..), ClosestPoints::WithinMargin(..)) => {
                        let theirs = brute.map_or(gap(theirs).unwrap(), |b| b.1);
                        !close(gap(ours).unwrap(), theirs)
                    }
                    (a, b) => a != b,
                });
                // Linear shape cast: the second shape starts 0.6 further away and moves back.
                let dir = (Vec3::new(r.random(), r.random(), r.random()) - 0.5).normalize();
                let start = Pose::from_parts(pos12.translation + 0.6 * dir, pos12.rotation);
                // Separated poses sometimes move further away.
                let sign = if k % 6 == 0 { 1.0 } else { -1.0 };
                let vel = sign * dir + 0.3 * (Vec3::new(r.random(), r.random(), r.random()) - 0.5);
                let ours = DeformDispatcher
                    .cast_shapes(&start, vel, o[0], o[1], options)
                    .unwrap();
                let theirs = d.cast_shapes(&start, vel, t[0], t[1], options).unwrap();
                tally.cast_hits += usize::from(theirs.is_some());
                // Casts stop at parry's iteration tolerance: 1e-3 relative.
                let bad = match (ours, theirs) {
                    (Some(a), Some(b)) => {
                        let (a, b) = (a.time_of_impact, b.time_of_impact);
                        (a - b).abs() > 1e-3 * a.max(b) + 1e-5
                    }
                    (a, b) => a.is_some() != b.is_some(),
                };
                if bad {
                    println!("cast {what}: {ours:?} vs {theirs:?}");
                }
                tally.cast += usize::from(bad);
            }
        }
    }
    println!("{tally:?}");
    assert!(tally.cast_hits * 3 >= tally.queries, "{tally:?}");
    // Near-touching poses may flip a boolean under rounding; anything systematic would be far
    // above this.
    let allowed = tally.queries / 200;
    for (what, n) in [
        ("intersection", tally.intersection),
        ("distance", tally.distance),
        ("contact", tally.contact),
        ("closest points", tally.closest_points),
        ("cast", tally.cast),
    ] {
        assert!(n <= allowed, "{what}: {n} disagreements in {tally:?}");
    }
}

/// Every internal node of a 2,048-triangle skinned grid bounds itself in O(m), so refit counts
/// measure laziness alone.
fn big_grid() -> DeformableMeshShape {
    let options = rapier3d_deform::bn_tree::BnTreeOptions {
        governor_cost: 0.0,
        ..Default::default()
    };
    let tree = common::skinned_grid(32, options);
    let governors = vec![
        Affine::IDENTITY,
        Affine::new(
            rapier3d_deform::math::Mat3::from_rotation_z(0.2),
            Vec3::ZERO,
        ),
    ];
    DeformableMeshShape::new(tree, &governors).unwrap()
}

#[test]
fn contact_queries_refit_only_the_nodes_they_reach() {
    let mut r = common::rng(71);
    let mut grid = big_grid();
    let nodes = grid.tree().nodes().len() as u64;
    let (cv, ci) = Cuboid::new(Vec3::splat(0.15)).to_trimesh();
    let small_tube = posed_tube(&mut r, 1.0, 6, 10, 2, 0.2);
    let tilted = Quat::from_rotation_z(-0.3);
    // Each other shape touches the grid near (-1.5, 0, -1.5) or along its x = -2 edge only.
    let corner = Vec3::new(-1.5, 0.0, -1.5);
    let others: Vec<(&str, SharedShape, Pose)> = vec![
        (
            "trimesh",
            SharedShape::trimesh(cv, ci).unwrap(),
            Pose::from_translation(corner + Vec3::Y * 0.1),
        ),
        (
            "compound",
            compound(),
            Pose::from_translation(corner + Vec3::Y * 0.3),
        ),
        (
            "sphere proxy",
            SharedShape::new(proxy(&mut r)),
            Pose::from_translation(corner + Vec3::Y * 0.4),
        ),
        (
            "deformable mesh",
            SharedShape::new(small_tube),
            Pose::from_translation(corner),
        ),
        (
            "height field",
            height_field(&mut r, HeightFieldFlags::empty()),
            // A 6 m field below the grid, tilted so that it rises through the grid's x = -2 edge.
            Pose::from_parts(Vec3::new(0.0, -0.6, 0.0), tilted),
        ),
        (
            "half-space",
            SharedShape::halfspace(Vec3::Y),
            Pose::from_parts(Vec3::new(0.0, -0.6, 0.0), tilted),
        ),
    ];
    for (name, other, pose) in others {
        let governors = grid.governors().to_vec();
        grid.set_governors(&governors).unwrap();
        let m = manifolds(&DeformDispatcher, &pose, &grid, &*other);
        let touching = m.iter().filter(|m| !m.points.is_empty()).count();
        let refits = grid.refit_stats().node_refits;
        println!("{name}: {touching} touching manifolds, {refits} of {nodes} nodes refit");
        assert!(touching > 0, "{name}: no contact");
        // Cost against parry's TriMesh of the same deformed grid (printed, not asserted:
        // timings on a shared machine are noisy). Ours includes re-posing and the lazy refits.
        let trimesh = trimesh_of(&grid);
        let reference: SharedShape = if other.as_heightfield().is_some() {
            compound_of(&trimesh)
        } else {
            SharedShape::new(trimesh)
        };
        let theirs_other = match other.as_shape::<DeformableMeshShape>() {
            Some(m) => SharedShape::new(trimesh_of(m)),
            None => other.clone(),
        };
        let (mut ours_ns, mut theirs_ns) = (u128::MAX, u128::MAX);
        for _ in 0..5 {
            let t = std::time::Instant::now();
            for _ in 0..20 {
                grid.set_governors(&governors).unwrap();
                std::hint::black_box(manifolds(&DeformDispatcher, &pose, &grid, &*other));
            }
            ours_ns = ours_ns.min(t.elapsed().as_nanos() / 20);
            let t = std::time::Instant::now();
            for _ in 0..20 {
                std::hint::black_box(manifolds(
                    &DefaultQueryDispatcher,
                    &pose,
                    &*reference,
                    &*theirs_other,
                ));
            }
            theirs_ns = theirs_ns.min(t.elapsed().as_nanos() / 20);
        }
        println!(
            "{name}: {:.1} µs per query vs parry {:.1} µs (ratio {:.2})",
            ours_ns as f64 / 1e3,
            theirs_ns as f64 / 1e3,
            ours_ns as f64 / theirs_ns as f64
        );
        // A bounded shape's box reaches a corner; a plane or a field crosses a whole strip.
        let bound = if name.starts_with('h') {
            nodes / 2
        } else {
            nodes / 4
        };
        assert!(refits < bound, "{name}: {refits} of {nodes} nodes refit");
    }
}

#[test]
fn warm_start_data_survives_re_posing_and_workspace_resets() {
    let mut r = common::rng(73);
    let mut shape = posed_tube(&mut r, 2.0, 12, 16, 3, 1.0);
    let trimesh = trimesh_of(&shape);
    for other in others(&mut r) {
        let mut kept = 0;
        for flipped in [false, true] {
            let pose = touching_pose(&trimesh, &other, -0.03, &mut r);
            let call = |shape: &DeformableMeshShape,
                        pose: &Pose,
                        m: &mut Vec<ContactManifold<(), f32>>| {
                // A fresh workspace every time, as after Rapier's `SHAPE` change.
                let mut ws = None;
                if flipped {
                    DeformDispatcher.contact_manifolds(
                        &pose.inverse(),
                        &*other.ours,
                        shape,
                        PREDICTION,
                        m,
                        &mut ws,
                    )
                } else {
                    DeformDispatcher.contact_manifolds(
                        pose,
                        shape,
                        &*other.ours,
                        PREDICTION,
                        m,
                        &mut ws,
                    )
                }
                .unwrap();
                assert!(ws.is_some());
            };
            let mut m = Vec::new();
            call(&shape, &pose, &mut m);
            let mut marked = Vec::new();
            for (k, manifold) in m.iter_mut().enumerate() {
                for p in &mut manifold.points {
                    p.data = 1.0 + k as f32;
                    marked.push((
                        manifold.subshape1,
                        manifold.subshape2,
                        p.fid1,
                        p.fid2,
                        p.data,
                    ));
                }
            }
            // Same governors in a new epoch (every cache invalid) and a tiny motion.
            let governors = shape.governors().to_vec();
            shape.set_governors(&governors).unwrap();
            let moved =
                Pose::from_parts(pose.translation + Vec3::new(2e-5, 0.0, 0.0), pose.rotation);
            call(&shape, &moved, &mut m);
            for manifold in &m {
                for p in &manifold.points {
                    let before = marked.iter().find(|x| {
                        (x.0, x.1, x.2, x.3)
                            == (manifold.subshape1, manifold.subshape2, p.fid1, p.fid2)
                    });
                    if let Some(x) = before {
                        assert_eq!(p.data, x.4, "{}: data lost", other.name);
                        kept += 1;
                    } else {
                        assert_eq!(p.data, 0.0, "{}: data invented", other.name);
                    }
                }
            }
        }
        assert!(kept > 0, "{}: nothing kept", other.name);
    }
}
