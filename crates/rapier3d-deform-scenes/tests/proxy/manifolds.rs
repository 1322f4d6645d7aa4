//! Contract: contact manifolds of a `SphereProxyShape` through `DeformDispatcher` (parry's nested pairing of its balls, manifolds re-keyed in place) equal parry's own on a `Compound` of the same balls, against a cuboid, a ball, a `TriMesh`, a `Compound`, and a smaller and a larger proxy (either composite enumerated first), in both argument orders over random poses: the same non-empty manifolds by part pair, each contact within 1e-4 (points in the colliders' frames, depth); and a second call re-keys every manifold in place (same order, its data kept).

use crate::common;

use rapier3d::parry::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use rapier3d::prelude::*;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::SphereProxyShape;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn proxy(r: &mut ChaCha8Rng, n: usize, size: f32) -> SphereProxyShape {
    let centres = (0..n)
        .map(|_| {
            Vec3::new(
                r.random_range(-size..size),
                r.random_range(-size..size),
                r.random_range(-size..size),
            )
        })
        .collect();
    let radii = (0..n).map(|_| r.random_range(0.1..0.3) * size).collect();
    SphereProxyShape::new(centres, radii).unwrap()
}

fn trimesh(r: &mut ChaCha8Rng) -> SharedShape {
    let n = 6u32;
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| (i, j)))
        .map(|(i, j)| {
            Vec3::new(
                i as f32 * 0.3 - 0.9,
                r.random_range(-0.05..0.05),
                j as f32 * 0.3 - 0.9,
            )
        })
        .collect();
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let a = i * (n + 1) + j;
            indices.push([a, a + 1, a + n + 1]);
            indices.push([a + 1, a + n + 2, a + n + 1]);
        }
    }
    SharedShape::trimesh(vertices, indices).unwrap()
}

type Manifolds = Vec<ContactManifold<u32, ()>>;

/// A non-empty manifold: part pair and its points (point 1, point 2, depth).
type PairContacts = (u32, u32, Vec<(Vec3, Vec3, f32)>);

/// The non-empty manifolds as (subshape1, subshape2, [(point 1, point 2, dist)]) with points in
/// the colliders' frames (parry's sub-shape poses applied).
fn contacts(manifolds: &Manifolds) -> Vec<PairContacts> {
    let mut out: Vec<_> = manifolds
        .iter()
        .filter(|m| !m.points.is_empty())
        .map(|m| {
            let (p1, p2) = (m.subshape_pos1(), m.subshape_pos2());
            let points = m
                .points
                .iter()
                .map(|c| {
                    let at = |pose: Option<&Pose>, p: Vec3| pose.map_or(p, |pose| pose * p);
                    (at(p1, c.local_p1), at(p2, c.local_p2), c.dist)
                })
                .collect();
            (m.subshape1, m.subshape2, points)
        })
        .collect();
    out.sort_by_key(|c| (c.0, c.1));
    out
}

fn check(
    name: &str,
    pose: &Pose,
    g1: &dyn Shape,
    p1: &dyn Shape,
    g2: &dyn Shape,
    p2: &dyn Shape,
) -> usize {
    let prediction = 0.02;
    let (mut ours, mut theirs): (Manifolds, Manifolds) = (Vec::new(), Vec::new());
    let (mut ws1, mut ws2) = (None, None);
    DeformDispatcher
        .contact_manifolds(pose, g1, g2, prediction, &mut ours, &mut ws1)
        .unwrap();
    DefaultQueryDispatcher
        .contact_manifolds(pose, p1, p2, prediction, &mut theirs, &mut ws2)
        .unwrap();
    let (a, b) = (contacts(&ours), contacts(&theirs));
    let keys = |c: &[PairContacts]| c.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>();
    assert_eq!(keys(&a), keys(&b), "{name}: part pairs in contact differ");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            x.2.len(),
            y.2.len(),
            "{name} {:?}: point counts",
            (x.0, x.1)
        );
        for (p, q) in x.2.iter().zip(&y.2) {
            assert!(
                (p.0 - q.0).length() < 1e-4
                    && (p.1 - q.1).length() < 1e-4
                    && (p.2 - q.2).abs() < 1e-4,
                "{name} {:?}: {p:?} vs {q:?}",
                (x.0, x.1)
            );
        }
    }
    // A second call on the same input re-keys every manifold in place: the same list in the
    // same order, each manifold's own data (here a marker) kept.
    for (k, m) in ours.iter_mut().enumerate() {
        m.data = k as u32 + 1;
    }
    let before: Vec<(u32, u32, u32)> = ours
        .iter()
        .map(|m| (m.subshape1, m.subshape2, m.data))
        .collect();
    DeformDispatcher
        .contact_manifolds(pose, g1, g2, prediction, &mut ours, &mut ws1)
        .unwrap();
    let after: Vec<(u32, u32, u32)> = ours
        .iter()
        .map(|m| (m.subshape1, m.subshape2, m.data))
        .collect();
    assert_eq!(before, after, "{name}: re-keying changed the manifold list");
    a.len()
}

#[test]
fn proxy_manifolds_equal_parrys_on_the_compound_of_its_balls() {
    let mut r = common::rng(31);
    let mut checked = 0;
    for round in 0..30 {
        let shape = proxy(&mut r, 24, 0.6);
        let compound = shape.to_compound();
        let small = proxy(&mut r, 6, 0.3);
        let large = proxy(&mut r, 40, 1.2);
        let (mesh, parts) = (trimesh(&mut r), proxy(&mut r, 5, 0.4).to_compound());
        let parts = SharedShape::new(parts);
        // The other shape as the dispatcher gets it, and as parry gets it.
        let others: Vec<(&str, SharedShape, SharedShape)> = vec![
            (
                "cuboid",
                SharedShape::cuboid(0.5, 0.2, 0.4),
                SharedShape::cuboid(0.5, 0.2, 0.4),
            ),
            ("ball", SharedShape::ball(0.35), SharedShape::ball(0.35)),
            ("trimesh", mesh.clone(), mesh),
            ("compound", parts.clone(), parts),
            (
                "small proxy",
                SharedShape::new(small.clone()),
                SharedShape::new(small.to_compound()),
            ),
            (
                "large proxy",
                SharedShape::new(large.clone()),
                SharedShape::new(large.to_compound()),
            ),
        ];
        for (name, ours, parrys) in &others {
            let pose = Pose::from_parts(
                Vec3::new(
                    r.random_range(-0.8..0.8),
                    r.random_range(-0.8..0.8),
                    r.random_range(-0.8..0.8),
                ),
                common::random_rotation(&mut r),
            );
            let label = format!("round {round}, {name}");
            checked += check(&label, &pose, &shape, &compound, &**ours, &**parrys);
            checked += check(
                &format!("{label}, flipped"),
                &pose.inverse(),
                &**ours,
                &**parrys,
                &shape,
                &compound,
            );
        }
    }
    assert!(
        checked > 200,
        "only {checked} manifolds in contact compared"
    );
}
