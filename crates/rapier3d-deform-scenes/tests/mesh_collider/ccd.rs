//! Contract: `DeformDispatcher::cast_shapes_nonlinear` gives the earliest of parry's per-part nonlinear casts (within 1e-4 s over a 1 s interval) over the triangles of a `TriMesh` of the deformed vertices and the balls of a `Compound` of the proxy, in both argument orders, on seeded random motions, never later than parry's own `TriMesh`/`Compound` cast; in CCD mode it keeps exactly the hits deep enough to count and ignores grazing contacts parry stops at; in Rapier, fast balls and boxes do not tunnel through a thin deformed mesh sheet or a sphere-proxy wall with CCD and do without it; a car proxy at 35 m/s and 60 Hz slides on the ground with CCD as far as without it (1 %), while parry's cast clamps it.

use std::sync::Arc;

use rand::Rng;
use rapier3d::math::{Pose, Real, Rotation, Vector};
use rapier3d::parry::query::{
    DefaultQueryDispatcher, NonlinearRigidMotion, QueryDispatcher, ShapeCastHit,
};
use rapier3d::parry::shape::{Ball, Shape, TriMesh};
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::BnTree;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::{DeformableMeshShape, SphereProxyShape};
use rapier3d_deform_scenes::crash::{car_asset, insert_ground};

use crate::common;

/// Time-of-impact tolerance against parry's own casts (the interval is 1 s long).
const TOI_TOLERANCE: Real = 1e-4;

/// A square sheet (no thickness) in the yz plane, side `2 half`, `n × n` quads, skinned to two
/// bones blended along y.
fn sheet(n: usize, half: f32) -> Arc<BnTree> {
    let mut p = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let y = -half + 2.0 * half * i as f32 / n as f32;
            let z = -half + 2.0 * half * j as f32 / n as f32;
            p.push(Vec3::new(0.0, y, z));
        }
    }
    let id = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    let mut t = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1));
            t.push([a, b, c]);
            t.push([b, d, c]);
        }
    }
    let rows: Vec<Vec<(u32, f32)>> = p
        .iter()
        .map(|q| {
            let w1 = ((q.y + half) / (2.0 * half)).clamp(0.0, 1.0);
            [(0u32, 1.0 - w1), (1u32, w1)]
                .into_iter()
                .filter(|(_, w)| *w > 0.0)
                .collect()
        })
        .collect();
    let weights = ConvexWeights::from_rows(rows, 2).unwrap();
    let mesh = TriangleMesh::new(p.clone(), t).unwrap();
    Arc::new(BnTree::build(&mesh, &p, &weights).unwrap())
}

/// Both bones move the sheet to the plane x = `SHEET_X`; the second also stretches it along y,
/// so the vertices are deformed while the surface stays that plane.
const SHEET_X: f32 = 0.25;

fn sheet_pose() -> Vec<Affine> {
    let t = Vec3::new(SHEET_X, 0.0, 0.0);
    vec![
        Affine::new(Mat3::IDENTITY, t),
        Affine::new(Mat3::from_diagonal(Vec3::new(1.0, 1.3, 1.0)), t),
    ]
}

/// A parry `TriMesh` on the mesh's deformed vertices (the reference).
fn trimesh_of(shape: &DeformableMeshShape) -> TriMesh {
    TriMesh::new(
        shape.deformed_vertices(),
        shape.tree().mesh().triangles().to_vec(),
    )
    .unwrap()
}

fn random_vector(r: &mut impl Rng, scale: f32) -> Vector {
    Vector::new(
        r.random_range(-scale..scale),
        r.random_range(-scale..scale),
        r.random_range(-scale..scale),
    )
}

/// A random motion starting at a random pose around `centre`, aimed at `target` with speed in
/// `speed`, spinning at up to `spin` rad/s about a random local centre.
fn motion_toward(
    r: &mut impl Rng,
    centre: Vector,
    target: Vector,
    speed: (f32, f32),
    spin: f32,
) -> NonlinearRigidMotion {
    let rotation = Rotation::from_scaled_axis(random_vector(r, 3.0));
    let start = Pose::from_parts(centre, rotation);
    let dir = (target - centre).normalize_or(Vector::X);
    NonlinearRigidMotion::new(
        start,
        random_vector(r, 0.2),
        dir * r.random_range(speed.0..speed.1),
        random_vector(r, spin),
    )
}

/// A random point on a sphere of radius `radius` around `centre`.
fn around(r: &mut impl Rng, centre: Vector, radius: f32) -> Vector {
    centre + random_vector(r, 1.0).normalize_or(Vector::Y) * radius
}

/// The convex parts of a shape as parry's composite casts see them (`TriMesh` triangles with no
/// pose, `Compound` children with theirs) or the shape itself.
fn parts(shape: &dyn Shape) -> Vec<(Option<Pose>, SharedShape)> {
    if let Some(mesh) = shape.as_trimesh() {
        (0..mesh.indices().len() as u32)
            .map(|i| (None, SharedShape::new(mesh.triangle(i))))
            .collect()
    } else if let Some(compound) = shape.as_compound() {
        compound
            .shapes()
            .iter()
            .map(|(pose, part)| (Some(*pose), part.clone()))
            .collect()
    } else {
        vec![(None, SharedShape(shape.clone_dyn().into()))]
    }
}

/// A filter of the hits of a pair of parts: the hit, then each part's motion and shape.
type Accept<'a> = dyn Fn(&ShapeCastHit, &NonlinearRigidMotion, &dyn Shape, &NonlinearRigidMotion, &dyn Shape) -> bool
    + 'a;

/// The earliest time of impact over every pair of parts, each cast with parry (no pruning):
/// what a `TriMesh` / `Compound` cast computes, minus its tree traversal. `accept` filters the
/// hits of a pair of parts (its motions and shapes given).
fn brute_force(
    m1: &NonlinearRigidMotion,
    g1: &dyn Shape,
    m2: &NonlinearRigidMotion,
    g2: &dyn Shape,
    stop: bool,
    accept: &Accept<'_>,
) -> Option<Real> {
    let place = |m: &NonlinearRigidMotion, pose: &Option<Pose>| match pose {
        Some(p) => m.prepend(*p),
        None => *m,
    };
    let (parts1, parts2) = (parts(g1), parts(g2));
    let mut best: Option<Real> = None;
    for (p1, s1) in &parts1 {
        let m1 = place(m1, p1);
        for (p2, s2) in &parts2 {
            let m2 = place(m2, p2);
            if let Some(hit) = DefaultQueryDispatcher
                .cast_shapes_nonlinear(&m1, s1.as_ref(), &m2, s2.as_ref(), 0.0, 1.0, stop)
                .unwrap()
                && accept(&hit, &m1, s1.as_ref(), &m2, s2.as_ref())
                && best.is_none_or(|b| hit.time_of_impact < b)
            {
                best = Some(hit.time_of_impact);
            }
        }
    }
    best
}

fn cast(
    dispatcher: &dyn QueryDispatcher,
    m1: &NonlinearRigidMotion,
    g1: &dyn Shape,
    m2: &NonlinearRigidMotion,
    g2: &dyn Shape,
    stop: bool,
) -> Option<ShapeCastHit> {
    dispatcher
        .cast_shapes_nonlinear(m1, g1, m2, g2, 0.0, 1.0, stop)
        .expect("supported pair")
}

/// Agreement counts of [`compare`].
#[derive(Default, Debug)]
struct Agreement {
    trials: usize,
    hits: usize,
    /// Trials where parry's composite cast (with its own tree pruning) gives the same answer.
    parry_equal: usize,
}

/// The pair's time of impact both ways round (mine, `g1`/`g2`) against the brute force over
/// parry's casts of the reference's parts (`r1`/`r2`: the same geometry as parry shapes), and
/// against parry's composite cast of the reference (never later than it; mostly equal).
#[allow(clippy::too_many_arguments)]
fn compare(
    m1: &NonlinearRigidMotion,
    g1: &dyn Shape,
    r1: &dyn Shape,
    m2: &NonlinearRigidMotion,
    g2: &dyn Shape,
    r2: &dyn Shape,
    what: &str,
    tally: &mut Agreement,
) {
    let expected = brute_force(m1, r1, m2, r2, true, &|_, _, _, _, _| true);
    let forward = cast(&DeformDispatcher, m1, g1, m2, g2, true);
    let backward = cast(&DeformDispatcher, m2, g2, m1, g1, true);
    for (order, got) in [("forward", forward), ("backward", backward)] {
        match (got, expected) {
            (None, None) => {}
            (Some(a), Some(b)) => assert!(
                (a.time_of_impact - b).abs() <= TOI_TOLERANCE,
                "{what} {order}: toi {} vs parry's parts {b}",
                a.time_of_impact
            ),
            _ => panic!("{what} {order}: {got:?} vs parry's parts {expected:?}"),
        }
    }
    // Witnesses and normals belong to the right shape: backward is forward swapped.
    if let (Some(f), Some(b)) = (forward, backward)
        && (f.time_of_impact - b.time_of_impact).abs() < 1e-6
        && (f.subshape1, f.subshape2) == (b.subshape2, b.subshape1)
    {
        assert!((f.normal1 - b.normal2).length() < 1e-3, "{what}: normals");
        assert!(
            (f.witness1 - b.witness2).length() < 1e-3,
            "{what}: witnesses"
        );
    }
    let composite = cast(&DefaultQueryDispatcher, m1, r1, m2, r2, true);
    match (forward, composite) {
        (Some(a), Some(b)) => {
            assert!(
                a.time_of_impact <= b.time_of_impact + TOI_TOLERANCE,
                "{what}: later than parry"
            );
            if (a.time_of_impact - b.time_of_impact).abs() <= TOI_TOLERANCE {
                tally.parry_equal += 1;
            }
        }
        (None, Some(b)) => panic!(
            "{what}: parry's composite cast hits at {}",
            b.time_of_impact
        ),
        (None, None) => tally.parry_equal += 1,
        (Some(_), None) => {}
    }
    tally.trials += 1;
    tally.hits += usize::from(expected.is_some());
}

/// Most throws hit, some miss (both outcomes are checked), and parry's own composite cast agrees
/// on most (it misses some earliest parts: its tree pruning casts bounding balls).
fn check_tally(tally: &Agreement) {
    eprintln!("{tally:?}");
    assert!(
        tally.hits > tally.trials / 2 && tally.hits < tally.trials,
        "{tally:?}"
    );
    assert!(tally.parry_equal * 10 >= tally.trials * 8, "{tally:?}");
}

#[test]
fn mesh_casts_equal_parry_casts_on_the_deformed_triangles() {
    let mut r = common::rng(61);
    let tree = common::capped_tube_tree(12, 10);
    let others = [
        SharedShape::ball(0.15),
        SharedShape::cuboid(0.2, 0.1, 0.15),
        SharedShape::capsule_y(0.2, 0.1),
    ];
    let mut tally = Agreement::default();
    for pose in 0..5 {
        let shape = DeformableMeshShape::new(
            tree.clone(),
            &common::bent_tube_pose(0.2 * pose as f32 - 0.4),
        )
        .unwrap();
        let reference = trimesh_of(&shape);
        for _ in 0..12 {
            // The mesh drifts and spins slowly; the other shape is thrown at a point of the tube.
            let mesh_motion = NonlinearRigidMotion::new(
                Pose::from_parts(
                    random_vector(&mut r, 0.3),
                    Rotation::from_scaled_axis(random_vector(&mut r, 0.5)),
                ),
                Vector::new(1.0, 0.0, 0.0) + random_vector(&mut r, 0.2),
                random_vector(&mut r, 0.5),
                random_vector(&mut r, 0.5),
            );
            let aim = mesh_motion.start * Vector::new(r.random_range(0.0..2.0), 0.0, 0.0)
                + random_vector(&mut r, 0.4);
            let distance = r.random_range(1.5..3.0);
            let from = around(&mut r, aim, distance);
            let other_motion = motion_toward(&mut r, from, aim, (1.0, 6.0), 4.0);
            for other in &others {
                compare(
                    &mesh_motion,
                    &shape,
                    &reference,
                    &other_motion,
                    other.as_ref(),
                    other.as_ref(),
                    "mesh",
                    &mut tally,
                );
            }
        }
    }
    check_tally(&tally);
}

/// A random union of `n` balls in a 2 × 1 × 1 box.
fn random_proxy(r: &mut impl Rng, n: usize) -> SphereProxyShape {
    let centres = (0..n)
        .map(|_| {
            Vec3::new(
                r.random_range(0.0..2.0),
                r.random_range(-0.5..0.5),
                r.random_range(-0.5..0.5),
            )
        })
        .collect();
    let radii = (0..n).map(|_| r.random_range(0.08..0.35)).collect();
    SphereProxyShape::new(centres, radii).unwrap()
}

#[test]
fn proxy_casts_equal_parry_casts_on_the_balls() {
    let mut r = common::rng(62);
    let tree = common::capped_tube_tree(6, 8);
    let mesh = DeformableMeshShape::new(tree, &common::bent_tube_pose(0.3)).unwrap();
    let trimesh = trimesh_of(&mesh);
    let ball = SharedShape::ball(0.1);
    let cuboid = SharedShape::cuboid(0.3, 0.05, 0.2);
    let mut tally = Agreement::default();
    for _ in 0..5 {
        let proxy = random_proxy(&mut r, 20);
        let compound = proxy.to_compound();
        for _ in 0..8 {
            let proxy_motion = NonlinearRigidMotion::new(
                Pose::from_parts(
                    random_vector(&mut r, 0.3),
                    Rotation::from_scaled_axis(random_vector(&mut r, 0.5)),
                ),
                Vector::new(1.0, 0.0, 0.0),
                random_vector(&mut r, 1.0),
                random_vector(&mut r, 2.0),
            );
            let aim = proxy_motion.start * Vector::new(r.random_range(0.0..2.0), 0.0, 0.0);
            let distance = r.random_range(2.0..3.5);
            let from = around(&mut r, aim, distance);
            let other_motion = motion_toward(&mut r, from, aim, (1.0, 6.0), 3.0);
            // Convex shapes, a parry composite, and the deformable mesh (against its TriMesh).
            let pairs: [(&dyn Shape, &dyn Shape, &str); 4] = [
                (ball.as_ref(), ball.as_ref(), "proxy-ball"),
                (cuboid.as_ref(), cuboid.as_ref(), "proxy-cuboid"),
                (&trimesh, &trimesh, "proxy-trimesh"),
                (&mesh, &trimesh, "proxy-mesh"),
            ];
            for (other, other_reference, what) in pairs {
                compare(
                    &proxy_motion,
                    &proxy,
                    &compound,
                    &other_motion,
                    other,
                    other_reference,
                    what,
                    &mut tally,
                );
            }
        }
    }
    check_tally(&tally);
}

/// Approach speed along the normal at a hit, from the witness points (the CCD rule's input,
/// recomputed here from parry's hit).
fn approach(hit: &ShapeCastHit, m1: &NonlinearRigidMotion, m2: &NonlinearRigidMotion) -> Real {
    let t = hit.time_of_impact;
    let velocity = |m: &NonlinearRigidMotion, local: Vector| {
        let pose = m.position_at_time(t);
        let centre = pose * m.local_center;
        m.linvel + m.angvel.cross(pose * local - centre)
    };
    let normal = m1.position_at_time(t).rotation * hit.normal1;
    (velocity(m1, hit.witness1) - velocity(m2, hit.witness2)).dot(normal)
}

/// CCD mode (`stop_at_penetration = false`) equals the brute force over parry's directional casts
/// of the triangles, keeping only hits whose approach over the rest of the interval exceeds half
/// the ball's radius (triangles have no thickness); many hits are deep, some are not.
#[test]
fn ccd_mode_is_parry_without_shallow_hits() {
    let mut r = common::rng(63);
    let tree = common::capped_tube_tree(16, 12);
    let shape = DeformableMeshShape::new(tree, &common::bent_tube_pose(0.25)).unwrap();
    let reference = trimesh_of(&shape);
    let still = NonlinearRigidMotion::constant_position(Pose::IDENTITY);
    let ball = Ball::new(0.1);
    let deep_enough = |hit: &ShapeCastHit,
                       m1: &NonlinearRigidMotion,
                       _: &dyn Shape,
                       m2: &NonlinearRigidMotion,
                       _: &dyn Shape| {
        approach(hit, m1, m2) * (1.0 - hit.time_of_impact) > 0.5 * ball.radius
    };
    let (mut hits, mut shallow) = (0, 0);
    for k in 0..60 {
        // Thrown radially at the tube from `gap` outside its rest surface (radius 0.5); every
        // other throw is slow, and its hits are often too shallow to count.
        let axis = Vector::new(r.random_range(0.2..1.8), 0.0, 0.0);
        let angle = r.random_range(0.0..std::f32::consts::TAU);
        let radial = Vector::new(0.0, angle.cos(), angle.sin());
        let (gap, speed) = if k % 2 == 0 {
            let gap = r.random_range(0.02..0.15);
            (gap, gap * r.random_range(1.02..1.6))
        } else {
            (r.random_range(0.1..1.5), r.random_range(0.5..4.0))
        };
        let from = axis + radial * (0.5 + ball.radius + gap);
        let motion = NonlinearRigidMotion::new(
            Pose::from_translation(from),
            Vector::ZERO,
            -radial * speed + random_vector(&mut r, 0.1 * speed),
            random_vector(&mut r, 0.5),
        );
        let expected = brute_force(&motion, &ball, &still, &reference, false, &deep_enough);
        let any = brute_force(
            &motion,
            &ball,
            &still,
            &reference,
            false,
            &|_, _, _, _, _| true,
        );
        for got in [
            cast(&DeformDispatcher, &motion, &ball, &still, &shape, false),
            cast(&DeformDispatcher, &still, &shape, &motion, &ball, false),
        ] {
            match (got, expected) {
                (None, None) => {}
                (Some(a), Some(b)) => assert!((a.time_of_impact - b).abs() <= TOI_TOLERANCE),
                _ => panic!("{got:?} vs {expected:?}"),
            }
        }
        hits += usize::from(expected.is_some());
        shallow += usize::from(any.is_some() && any != expected);
    }
    assert!(
        hits > 20 && shallow > 3,
        "{hits} deep hits, {shallow} with shallow ones"
    );
}

/// A ball sliding along a surface half a millimetre above it, sinking slowly: parry's cast
/// stops it at once, the CCD mode does not; thrown at the surface, both stop it. The surfaces:
/// the deformed sheet (facing +x at `SHEET_X`) and a proxy ball of radius 100 (locally flat).
#[test]
fn ccd_mode_ignores_grazing_contacts() {
    let shape = DeformableMeshShape::new(sheet(8, 2.0), &sheet_pose()).unwrap();
    let reference = trimesh_of(&shape);
    let big = 100.0;
    let proxy = SphereProxyShape::new(vec![Vec3::new(SHEET_X - big, 0.0, 0.0)], vec![big]).unwrap();
    let compound = proxy.to_compound();
    let still = NonlinearRigidMotion::constant_position(Pose::IDENTITY);
    let ball = Ball::new(0.1);
    let (dt, gap, tangential) = (1.0 / 60.0, 5e-4, 10.0);
    for (target, target_reference) in [
        (&shape as &dyn Shape, &reference as &dyn Shape),
        (&proxy, &compound),
    ] {
        let start = Pose::from_translation(Vector::new(
            SHEET_X + ball.radius + gap,
            -0.5 * tangential * dt,
            0.0,
        ));
        for (normal_speed, counts) in [(-0.1, false), (-40.0, true)] {
            let motion = NonlinearRigidMotion::new(
                start,
                Vector::ZERO,
                Vector::new(normal_speed, tangential, 0.0),
                Vector::ZERO,
            );
            let parry = DefaultQueryDispatcher
                .cast_shapes_nonlinear(&motion, &ball, &still, target_reference, 0.0, dt, false)
                .unwrap()
                .expect("parry stops the ball");
            assert!(parry.time_of_impact < 0.5 * dt, "{}", parry.time_of_impact);
            let got = DeformDispatcher
                .cast_shapes_nonlinear(&motion, &ball, &still, target, 0.0, dt, false)
                .unwrap();
            if counts {
                let got = got.expect("a fast approach counts");
                assert!((got.time_of_impact - parry.time_of_impact).abs() <= 1e-6);
            } else {
                assert!(got.is_none(), "grazing hit reported: {got:?}");
            }
        }
    }
}

/// A world with `DeformDispatcher` first in the chain, `dt`, and CCD on or off.
fn world(dt: f32, ccd: bool) -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = dt;
    world.integration_parameters.max_ccd_substeps = usize::from(ccd);
    world.narrow_phase =
        NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
    world
}

/// Fires `projectile` at 120 m/s along +x from (−3, `y`, `z`) (2 m per step at 60 Hz) at a fixed
/// `target` and returns the projectile's largest x over 30 steps.
fn fire(projectile: SharedShape, target: SharedShape, (y, z): (f32, f32), ccd: bool) -> f32 {
    let mut world = world(1.0 / 60.0, ccd);
    let fixed = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(ColliderBuilder::new(target).restitution(0.0), Some(fixed));
    let body = world.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(-3.0, y, z))
            .linvel(Vec3::new(120.0, 0.0, 0.0))
            .ccd_enabled(ccd),
    );
    world.insert_collider(
        ColliderBuilder::new(projectile)
            .restitution(0.0)
            .density(100.0),
        Some(body),
    );
    let mut max_x = f32::MIN;
    for _ in 0..30 {
        world.step();
        max_x = max_x.max(world.bodies[body].translation().x);
    }
    max_x
}

#[test]
fn fast_shapes_do_not_tunnel_through_a_deformed_sheet_with_ccd() {
    let sheet = SharedShape::new(DeformableMeshShape::new(sheet(8, 2.0), &sheet_pose()).unwrap());
    for (projectile, half) in [
        (SharedShape::ball(0.05), 0.05),
        (SharedShape::cuboid(0.05, 0.05, 0.05), 0.05),
    ] {
        let with = fire(projectile.clone(), sheet.clone(), (0.05, 0.1), true);
        let without = fire(projectile, sheet.clone(), (0.05, 0.1), false);
        // Stopped in front of the sheet (a millimetre of penetration allowed) vs far behind it.
        assert!(with < SHEET_X - half + 1e-3, "with CCD: x = {with}");
        assert!(without > SHEET_X + 10.0, "without CCD: x = {without}");
    }
}

#[test]
fn fast_shapes_do_not_tunnel_through_a_sphere_proxy_wall_with_ccd() {
    // A wall of 0.1 m balls 0.1 m apart in the plane x = SHEET_X (0.2 m thick, ±1 m), hit
    // head-on at a ball. (Between four balls 0.15 m apart, the pocket can squeeze a box through
    // the wall in the step after the clamp: the contact solver's doing, not the sweep's.)
    let (mut centres, mut radii) = (Vec::new(), Vec::new());
    for j in -10..=10 {
        for k in -10..=10 {
            centres.push(Vec3::new(SHEET_X, 0.1 * j as f32, 0.1 * k as f32));
            radii.push(0.1);
        }
    }
    let wall = SharedShape::new(SphereProxyShape::new(centres, radii).unwrap());
    for (projectile, half) in [
        (SharedShape::ball(0.03), 0.03),
        (SharedShape::cuboid(0.03, 0.03, 0.03), 0.03),
    ] {
        let with = fire(projectile.clone(), wall.clone(), (0.0, 0.0), true);
        let without = fire(projectile, wall.clone(), (0.0, 0.0), false);
        // In front of the wall (up to 2 cm into its balls in the step after the clamp).
        assert!(with < SHEET_X - 0.1 - half + 0.02, "with CCD: x = {with}");
        assert!(without > SHEET_X + 10.0, "without CCD: x = {without}");
    }
}

/// The crash scene's car proxy launched at 35 m/s on the crash ground at 60 Hz (0.58 m per step,
/// more than half its CCD thickness: Rapier sweeps it every step): distance travelled in 1 s.
fn slide(dispatcher: bool, ccd: bool) -> f32 {
    let asset = car_asset("low", None, &mut |_| {}).unwrap();
    let shape = SphereProxyShape::from_proxy(asset.proxy()).unwrap();
    let mut world = world(1.0 / 60.0, ccd);
    if !dispatcher {
        world.narrow_phase = NarrowPhase::new();
    }
    insert_ground(&mut world);
    // Dropped from 2 cm with some roll and pitch, so the balls bounce on the ground.
    let lift = -shape.compute_local_aabb().mins.y + 0.02;
    let density = 1500.0 / shape.unit_mass_properties().mass();
    let body = world.insert_body(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(0.0, lift, 0.0))
            .linvel(Vec3::new(35.0, 0.0, 0.0))
            .angvel(Vec3::new(0.3, 0.0, 0.2))
            .ccd_enabled(ccd),
    );
    world.insert_collider(
        ColliderBuilder::new(SharedShape::new(shape))
            .density(density)
            .friction(0.5),
        Some(body),
    );
    for _ in 0..60 {
        world.step();
    }
    world.bodies[body].translation().x
}

#[test]
fn a_car_keeps_sliding_with_ccd() {
    let without = slide(true, false);
    let with = slide(true, true);
    assert!(without > 25.0, "the car slides: {without} m");
    assert!(
        (with - without).abs() < 0.01 * without,
        "with CCD {with} m, without {without} m"
    );
    // The scenario is one that parry's composite cast gets wrong (it clamps the car at the
    // ground): the test would catch a dispatcher that did the same.
    let parry = slide(false, true);
    assert!(
        parry < 0.8 * without,
        "parry's cast: {parry} m of {without} m"
    );
}
