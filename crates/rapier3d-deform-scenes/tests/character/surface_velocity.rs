//! Surface velocity in contacts: a bar swung by its governors (its body never moves) hits a row of resting balls, which leave with the bar's normal surface velocity at their last full-speed contact (ω ŷ × the bar's contact point, within 10 %; 3 % with swept contacts up to 8 rad/s) and never pass through it (up to 3.5 rad/s with plain triangle edges, held by the hooks' penetration lead, 5 rad/s when the closed bar is contacted as a solid, 8 rad/s, 27 cm per step where it meets the balls, with swept contacts); a box on a platform turned by its governor turns with it (friction carries it, slip below 5 %); a morphing cube pushes the balls it meets out. Each scene also runs without `SurfaceVelocityHooks`, where the property fails.

use std::sync::Arc;

use rapier3d_deform::DeformError;
use rapier3d_deform::bn_tree::BnTree;
use rapier3d_deform::character::pose_deformable_mesh;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::prelude::*;

use crate::common;

const DT: f32 = 1.0 / 60.0;

/// A bar of square cross-section (half-width `half`) along x from 0 to `length`, weighted to
/// governor 0 (the root) at x = 0, blending linearly into governor 1 (the swinging part) up to
/// x = `blend`, then 1.
fn bar(length: f32, half: f32, blend: f32) -> Arc<BnTree> {
    // A 4-segment tube is a square whose corners lie on the axes; turn it by 45° so its faces
    // face ±y and ±z, and move the cap apexes onto the ends.
    let base = common::tube(length, 24, 4);
    let n = base.positions().len();
    let positions: Vec<Vec3> = base
        .positions()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = match i {
                _ if i == n - 2 => 0.0,
                _ if i == n - 1 => length,
                _ => p.x,
            };
            Vec3::new(x, half * (p.y - p.z), half * (p.y + p.z))
        })
        .collect();
    let rows: Vec<Vec<(u32, f32)>> = positions
        .iter()
        .map(|p| {
            let w1 = (p.x / blend).clamp(0.0, 1.0);
            [(0u32, 1.0 - w1), (1u32, w1)]
                .into_iter()
                .filter(|(_, w)| *w > 0.0)
                .collect()
        })
        .collect();
    let weights = ConvexWeights::from_rows(rows, 2).unwrap();
    let mesh = TriangleMesh::new(positions.clone(), base.triangles().to_vec()).unwrap();
    Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap())
}

/// How the bar's contacts treat its triangle edges.
#[derive(Clone, Copy, Debug)]
enum Edges {
    /// Plain triangles (a `TriMesh` with only `DEFORMABLE`).
    Plain,
    /// Two-sided pseudo-normals (`with_fixed_internal_edges`).
    TwoSided,
    /// One-sided pseudo-normals out of the closed bar (`with_solid_contacts`).
    Solid,
    /// Solid, plus contacts that follow the bar's motion between poses (`with_swept_contacts`).
    Swept,
}

/// A world with the crate's narrow phase.
fn world(gravity: Vector) -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    world.gravity = gravity;
    world
}

/// A `DeformableMeshShape` collider on a kinematic body that never moves, turned by `yaw` about
/// the y axis, its contacts as `edges` says.
fn insert_mesh(
    world: &mut PhysicsWorld,
    tree: Arc<BnTree>,
    governors: &[Affine],
    yaw: f32,
    edges: Edges,
) -> ColliderHandle {
    let mut shape = DeformableMeshShape::new(tree, governors).unwrap();
    shape = match edges {
        Edges::Plain => shape,
        Edges::TwoSided => shape.with_fixed_internal_edges().unwrap(),
        Edges::Solid => shape.with_solid_contacts().unwrap(),
        Edges::Swept => shape.with_swept_contacts().unwrap(),
    };
    world
        .insert(
            RigidBodyBuilder::kinematic_position_based().rotation(Vector::new(0.0, yaw, 0.0)),
            ColliderBuilder::new(SharedShape::new(shape)),
        )
        .1
}

/// One step: pose, record the pose pair (when hooked), step, give caught bodies the surface's
/// normal velocity (when hooked).
fn step(
    world: &mut PhysicsWorld,
    hooks: Option<&mut SurfaceVelocityHooks>,
    mesh: ColliderHandle,
    governors: &[Affine],
) {
    pose_deformable_mesh(&mut world.colliders, mesh, governors).unwrap();
    match hooks {
        Some(hooks) => {
            hooks.update(&world.colliders, DT).unwrap();
            world.step_with_events(&*hooks, &());
            hooks.apply_normal_velocities(world);
        }
        None => world.step(),
    }
}

/// What happened to the balls of [`swing`].
struct Swing {
    /// Per ball: its velocity along the bar's face normal at its last contact while the bar
    /// turned at full speed (the narrow phase's deepest point on the bar),
    /// moved, and the bar's normal surface velocity there (`None`: never touched).
    normal_speeds: Vec<Option<(f32, f32)>>,
    /// Balls that ended behind the bar.
    passed_through: usize,
    /// Whether the bar was the first collider of its contact pairs.
    bar_first: bool,
}

impl Swing {
    /// Balls whose normal speed is within 10 % of the surface's.
    fn within_ten_percent(&self) -> usize {
        self.normal_speeds
            .iter()
            .flatten()
            .filter(|(ball, surface)| (ball - surface).abs() <= 0.1 * surface.abs())
            .count()
    }
}

/// A 2 m bar (half-width 0.1) swings about the y axis at `omega` rad/s by turning its governor
/// 1 (governor 0, at the root, stays), from angle 0 to 1 rad, then stops. Five balls (radius
/// 0.1, frictionless, no gravity) rest at 0.75 rad, 0.6 to 1.8 m from the pivot. The bar is
/// inserted before the balls or, with `balls_first`, after them (the order of the colliders in
/// their contact pairs follows).
fn swing(omega: f32, hooked: bool, balls_first: bool, edges: Edges) -> Swing {
    let mut world = world(Vector::ZERO);
    let (length, half, stop, theta) = (2.0f32, 0.1f32, 1.0f32, 0.75f32);
    let pose = |phi: f32| {
        [
            Affine::IDENTITY,
            Affine::new(Mat3::from_rotation_y(phi), Vec3::ZERO),
        ]
    };
    let mut limb = None;
    if !balls_first {
        limb = Some(insert_mesh(
            &mut world,
            bar(length, half, 0.3),
            &pose(0.0),
            0.0,
            edges,
        ));
    }
    let balls: Vec<(RigidBodyHandle, ColliderHandle)> = [0.6f32, 0.9, 1.2, 1.5, 1.8]
        .iter()
        .map(|&r| {
            world.insert(
                RigidBodyBuilder::dynamic().translation(Vector::new(
                    r * theta.cos(),
                    0.0,
                    -r * theta.sin(),
                )),
                ColliderBuilder::ball(0.1).friction(0.0),
            )
        })
        .collect();
    let limb = limb
        .unwrap_or_else(|| insert_mesh(&mut world, bar(length, half, 0.3), &pose(0.0), 0.0, edges));
    let mut bar_first = None;
    let mut hooks = SurfaceVelocityHooks::new();
    if hooked {
        hooks.track(&mut world.colliders, limb).unwrap();
    }
    let mut last = vec![None; balls.len()];
    // Steps at full speed; the next one turns the bar the rest of the way to `stop`.
    let moving = (stop / (omega * DT) + 1e-3).floor() as usize;
    for k in 1..=moving + 40 {
        let phi = (omega * DT * k as f32).min(stop);
        step(&mut world, hooked.then_some(&mut hooks), limb, &pose(phi));
        if k > moving {
            continue;
        }
        // The reference: the swinging part turns rigidly, so its surface moves with ω ŷ × p;
        // the face the balls meet has the outward normal ŷ × axis.
        let axis = Vec3::new(phi.cos(), 0.0, -phi.sin());
        let normal = Vec3::Y.cross(axis);
        for (i, &(body, collider)) in balls.iter().enumerate() {
            let Some(pair) = world.narrow_phase.contact_pair(limb, collider) else {
                continue;
            };
            let first = pair.collider1 == limb;
            // The bar's point of the pair's deepest contact (the bar's body stays at the origin).
            let deepest = pair
                .manifolds()
                .iter()
                .flat_map(|m| m.points.iter())
                .filter(|q| q.dist < 0.01)
                .min_by(|a, b| a.dist.total_cmp(&b.dist))
                .map(|q| if first { q.local_p1 } else { q.local_p2 });
            if let Some(contact) = deepest {
                assert_ne!(bar_first, Some(!first), "a stable order");
                bar_first = Some(first);
                let surface = (Vec3::Y * omega).cross(contact).dot(normal);
                last[i] = Some((body, normal, surface));
            }
        }
    }
    let mut passed_through = 0;
    for &(body, _) in &balls {
        let x = world.bodies[body].translation();
        if (-x.z).atan2(x.x) < stop {
            passed_through += 1;
        }
    }
    let normal_speeds = last
        .iter()
        .map(|l| l.map(|(body, n, s)| (world.bodies[body].linvel().dot(n), s)))
        .collect();
    Swing {
        normal_speeds,
        passed_through,
        bar_first: bar_first.expect("a ball touched the bar"),
    }
}

#[test]
fn balls_hit_by_a_governor_swung_bar_leave_with_its_normal_surface_velocity() {
    let mut orders = Vec::new();
    for (omega, balls_first) in [(1.0, false), (2.0, false), (2.0, true)] {
        let hooked = swing(omega, true, balls_first, Edges::Plain);
        orders.push(hooked.bar_first);
        assert_eq!(hooked.passed_through, 0, "ω {omega}");
        for (i, speeds) in hooked.normal_speeds.iter().enumerate() {
            let (ball, surface) = speeds.unwrap_or_else(|| panic!("ω {omega}: ball {i} touched"));
            assert!(
                surface > 0.5 && (ball - surface).abs() <= 0.1 * surface,
                "ω {omega}: ball {i} leaves at {ball} m/s, the surface moved at {surface} m/s"
            );
        }
        // Without the hooks the balls are only pushed out of the bar: they are left behind
        // (no normal velocity) or passed through.
        let plain = swing(omega, false, balls_first, Edges::Plain);
        assert_eq!(
            plain.within_ten_percent(),
            0,
            "ω {omega}: {:?}",
            plain.normal_speeds
        );
        assert!(plain.passed_through > 0, "ω {omega}");
    }
    assert!(
        orders.contains(&true) && orders.contains(&false),
        "the bar should be each side of a pair: {orders:?}"
    );
}

/// A 4 m square platform (a 16 × 16 grid at y = 0) turned about the y axis by its single
/// governor, spun up over 0.5 s to 0.5 rad/s, then kept at that rate for 3.5 s; a 0.2 m box
/// rests on it 1.2 m from the axis under gravity (inserted after the platform, or before it with
/// `box_first`). Returns the angle the box turned about the axis, the angle the platform turned
/// and whether the platform was the first collider of their contact pair.
fn platform(hooked: bool, box_first: bool) -> (f32, f32, bool) {
    let mut world = world(Vector::new(0.0, -9.81, 0.0));
    let mesh = common::grid_mesh(16, [-2.0, -2.0], [4.0, 4.0]);
    let positions = mesh.positions().to_vec();
    let weights = ConvexWeights::from_rows(positions.iter().map(|_| vec![(0u32, 1.0)]), 1).unwrap();
    let tree = Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap());
    let pose = |phi: f32| [Affine::new(Mat3::from_rotation_y(phi), Vec3::ZERO)];
    // The body is turned too: the surface velocity is computed in the collider's frame and
    // handed to Rapier in world axes.
    let insert_box = |world: &mut PhysicsWorld| {
        world.insert(
            RigidBodyBuilder::dynamic().translation(Vector::new(1.2, 0.1, 0.0)),
            ColliderBuilder::cuboid(0.1, 0.1, 0.1),
        )
    };
    let first = box_first.then(|| insert_box(&mut world));
    let platform = insert_mesh(&mut world, tree, &pose(0.0), 0.7, Edges::Plain);
    let (b, c) = first.unwrap_or_else(|| insert_box(&mut world));
    let mut hooks = SurfaceVelocityHooks::new();
    if hooked {
        hooks.track(&mut world.colliders, platform).unwrap();
    }
    let (rate, ramp) = (0.5f32, 0.5f32);
    let mut phi = 0.0f32;
    let mut turned = 0.0f32;
    let mut previous = 0.0f32;
    for k in 1..=240 {
        let t = k as f32 * DT;
        phi += rate * (t / ramp).min(1.0) * DT;
        step(
            &mut world,
            hooked.then_some(&mut hooks),
            platform,
            &pose(phi),
        );
        let x = world.bodies[b].translation();
        let angle = (-x.z).atan2(x.x);
        let mut d = angle - previous;
        if d > std::f32::consts::PI {
            d -= std::f32::consts::TAU;
        } else if d < -std::f32::consts::PI {
            d += std::f32::consts::TAU;
        }
        turned += d;
        previous = angle;
        assert!(x.y > 0.0, "step {k}: the box fell through ({x:?})");
    }
    let pair = world
        .narrow_phase
        .contact_pair(platform, c)
        .expect("touching");
    (turned, phi, pair.collider1 == platform)
}

#[test]
fn a_box_on_a_governor_turned_platform_turns_with_it() {
    let mut orders = Vec::new();
    for box_first in [false, true] {
        let (turned, phi, platform_first) = platform(true, box_first);
        orders.push(platform_first);
        assert!(phi > 1.8, "the platform turned {phi} rad");
        let slip = (turned - phi).abs() / phi;
        assert!(
            slip < 0.05,
            "box first {box_first}: the box turned {turned} rad, the platform {phi}"
        );
        // Without the hooks friction sees a surface at rest: the box stays where it was.
        let (turned, phi, _) = platform(false, box_first);
        assert!(
            (turned - phi).abs() / phi > 0.5,
            "box first {box_first}: the box turned {turned} rad, the platform {phi}"
        );
    }
    assert!(
        orders.contains(&true) && orders.contains(&false),
        "the platform should be each side of a pair: {orders:?}"
    );
}

/// A skinned tube (3 bones, 2 influences) with one morph group of two targets over all its
/// vertices, as a collider on a fixed body.
fn morphed_tube(world: &mut PhysicsWorld, r: &mut rand_chacha::ChaCha8Rng) -> ColliderHandle {
    use rand::Rng;
    let mesh = common::tube(3.0, 8, 8);
    let weights = common::tube_weights(&mesh, 3, 3.0, 2);
    let positions = mesh.positions().to_vec();
    let tree = Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap());
    let targets: Vec<Vec<Vec3>> = (0..2)
        .map(|_| {
            (0..positions.len())
                .map(|_| {
                    Vec3::new(
                        r.random_range(-0.1..0.1),
                        r.random_range(-0.1..0.1),
                        r.random_range(-0.1..0.1),
                    )
                })
                .collect()
        })
        .collect();
    let mut morph = rapier3d_deform::deformation::MorphDeltas::new(positions.len());
    morph.add_group(0, targets).unwrap();
    let shape = DeformableMeshShape::new(tree, &[Affine::IDENTITY; 3])
        .unwrap()
        .with_morph_targets(morph)
        .unwrap();
    world
        .insert(
            RigidBodyBuilder::fixed()
                .translation(Vector::new(0.5, -1.0, 2.0))
                .rotation(Vector::new(0.3, 0.2, -0.1)),
            ColliderBuilder::new(SharedShape::new(shape)),
        )
        .1
}

#[test]
fn surface_velocity_equals_the_finite_difference_of_the_posed_points() {
    use rand::Rng;
    use rapier3d_deform::character::pose_deformable_mesh_with_morphs;
    let mut r = common::rng(14);
    let mut world = world(Vector::ZERO);
    let tube = morphed_tube(&mut world, &mut r);
    let shape = |world: &PhysicsWorld| {
        world.colliders[tube]
            .shape()
            .as_shape::<DeformableMeshShape>()
            .unwrap()
            .clone()
    };
    let mut hooks = SurfaceVelocityHooks::new();
    let dt = 0.01;
    let mut checked = 0;
    for round in 0..20 {
        let pose: Vec<Affine> = (0..3)
            .map(|_| common::random_governor(&mut r, 0.3, 0.5))
            .collect();
        let morph = [r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)];
        pose_deformable_mesh_with_morphs(&mut world.colliders, tube, &pose, &morph).unwrap();
        if round == 0 {
            hooks.track(&mut world.colliders, tube).unwrap();
            continue;
        }
        let before = shape(&world).deformed_vertices();
        let next: Vec<Affine> = pose
            .iter()
            .map(|g| {
                let d = common::random_governor(&mut r, 0.02, 0.02);
                Affine::new(
                    g.linear + d.linear - Mat3::IDENTITY,
                    g.translation + d.translation,
                )
            })
            .collect();
        let next_morph = [
            morph[0] + r.random_range(-0.05..0.05),
            morph[1] + r.random_range(-0.05..0.05),
        ];
        // `pose` becomes the earlier pose of the pair, `next` the later one.
        hooks.update(&world.colliders, dt).unwrap();
        pose_deformable_mesh_with_morphs(&mut world.colliders, tube, &next, &next_morph).unwrap();
        hooks.update(&world.colliders, dt).unwrap();
        let after = shape(&world).deformed_vertices();
        let triangles = shape(&world).tree().mesh().triangles().to_vec();
        for _ in 0..50 {
            let t = r.random_range(0..triangles.len());
            let (a, b) = (r.random_range(0.0..1.0f32), r.random_range(0.0..1.0f32));
            let (a, b) = if a + b > 1.0 {
                (1.0 - a, 1.0 - b)
            } else {
                (a, b)
            };
            let beta = [1.0 - a - b, a, b];
            let point = |p: &[Vec3]| -> Vec3 {
                triangles[t]
                    .iter()
                    .zip(beta)
                    .map(|(&v, w)| p[v as usize] * w)
                    .sum()
            };
            let expected = (point(&after) - point(&before)) / dt;
            let got = hooks
                .surface_velocity(&world.colliders, tube, t as u32, point(&after))
                .expect("a tracked triangle");
            assert!(
                (got - expected).length() <= 2e-3 * expected.length() + 2e-2,
                "round {round} triangle {t}: {got:?} vs {expected:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 19 * 50);
}

#[test]
fn surface_velocity_bad_input_is_a_typed_error() {
    let mut world = world(Vector::ZERO);
    let mut hooks = SurfaceVelocityHooks::new();
    let (_, ball) = world.insert(RigidBodyBuilder::fixed(), ColliderBuilder::ball(1.0));
    assert!(matches!(
        hooks.track(&mut world.colliders, ball),
        Err(DeformError::InvalidParameter {
            name: "collider shape",
            ..
        })
    ));
    let tube = morphed_tube(&mut world, &mut common::rng(1));
    hooks.track(&mut world.colliders, tube).unwrap();
    for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            hooks.update(&world.colliders, dt),
            Err(DeformError::InvalidParameter { name: "dt", .. })
        ));
    }
    assert!(
        hooks
            .surface_velocity(&world.colliders, tube, u32::MAX, Vec3::ZERO)
            .is_none()
    );
    assert!(
        hooks
            .surface_velocity(&world.colliders, ball, 0, Vec3::ZERO)
            .is_none()
    );
    world.remove_collider(tube);
    assert!(matches!(
        hooks.update(&world.colliders, 0.01),
        Err(DeformError::UnknownHandle {
            what: "collider",
            ..
        })
    ));
    assert!(matches!(
        hooks.track(&mut world.colliders, tube),
        Err(DeformError::UnknownHandle {
            what: "collider",
            ..
        })
    ));
    assert!(hooks.untrack(tube));
    hooks.update(&world.colliders, 0.01).unwrap();
}

/// At every `omega`, the bar swung with `weaker` edges lets a ball through (else the test lost
/// its case); with `stronger` edges, in either collider order, none passes and the first three
/// balls leave within `tolerance` (relative) of the surface's normal speed.
fn assert_stronger_edges_keep_the_balls(
    omegas: &[f32],
    weaker: Edges,
    stronger: Edges,
    tolerance: f32,
) {
    for &omega in omegas {
        let weak = swing(omega, true, false, weaker);
        assert!(
            weak.passed_through > 0,
            "ω {omega}: {weaker:?} no longer lets a ball through; this test lost its case"
        );
        for balls_first in [false, true] {
            let strong = swing(omega, true, balls_first, stronger);
            assert_eq!(
                strong.passed_through, 0,
                "ω {omega}, {stronger:?}, balls first {balls_first}"
            );
            for (i, speeds) in strong.normal_speeds.iter().take(3).enumerate() {
                let (ball, surface) = speeds.unwrap_or_else(|| panic!("ball {i} touched"));
                assert!(
                    (ball - surface).abs() <= tolerance * surface,
                    "ω {omega}, {stronger:?}: ball {i} leaves at {ball} m/s, the surface moved at {surface} m/s"
                );
            }
        }
    }
}

/// Regression: at 2.5 to 3.5 rad/s the bar's tip region moves 7.5–10.5 cm per step into the outer
/// balls (radius 0.1 m, bar 0.2 m thick). Rapier's penetration bias is soft (about 9 per second
/// of the depth): without a lead by the surface's normal speed the balls lag behind the bar a
/// little more every step, and at an edge between two coplanar triangles, whose contact reports
/// that edge's sideways normal, one slides behind it (one to two balls passed with plain edges
/// before the lead). With the lead, plain edges keep every ball, in either collider order, and
/// the first three balls leave with the surface's normal velocity (within 10 %).
#[test]
fn the_penetration_lead_keeps_a_swung_bar_with_plain_edges_from_passing_balls() {
    for omega in [2.5, 3.0, 3.5] {
        for balls_first in [false, true] {
            let plain = swing(omega, true, balls_first, Edges::Plain);
            assert_eq!(
                plain.passed_through, 0,
                "ω {omega}, balls first {balls_first}"
            );
            for (i, speeds) in plain.normal_speeds.iter().take(3).enumerate() {
                let (ball, surface) = speeds.unwrap_or_else(|| panic!("ball {i} touched"));
                assert!(
                    (ball - surface).abs() <= 0.1 * surface,
                    "ω {omega}: ball {i} leaves at {ball} m/s, the surface moved at {surface} m/s"
                );
            }
        }
    }
}

#[test]
fn fixed_internal_edges_need_an_oriented_manifold() {
    // Two triangles sharing an edge traversed the same way: not consistently oriented.
    let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
    let mesh = TriangleMesh::new(positions.clone(), vec![[0, 1, 2], [0, 1, 3]]).unwrap();
    let weights = ConvexWeights::from_rows(vec![vec![(0u32, 1.0f32)]; 4], 1).unwrap();
    let tree = Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap());
    let shape = DeformableMeshShape::new(tree, &[Affine::IDENTITY]).unwrap();
    assert!(!shape.fixes_internal_edges());
    assert!(matches!(
        shape.with_fixed_internal_edges(),
        Err(DeformError::InvalidParameter {
            name: "fix_internal_edges",
            ..
        })
    ));
}

/// Regression: at 4 and 5 rad/s the bar's tip region moves 12–15 cm per step into the outer
/// balls (radius 0.1 m), carrying their centres past its front face. Two-sided pseudo-normals
/// then push a ball on through the bar; contacted as a solid (`with_solid_contacts`) the bar
/// pushes every ball back out in front, in either collider order, and the first three leave
/// with the surface's normal velocity (within 10 %).
#[test]
fn a_solid_bar_swung_faster_than_a_ball_radius_per_step_keeps_every_ball_in_front() {
    assert_stronger_edges_keep_the_balls(&[4.0, 5.0], Edges::TwoSided, Edges::Solid, 0.1);
}

/// Regression: at 6 to 8 rad/s the bar's tip region moves 18–27 cm per step where it meets the
/// balls, less than a ball's radius plus the bar's thickness (30 cm): a ball's centre ends
/// nearer the bar's far face than its front, and solid contacts push the ball on through. With
/// swept contacts the triangle that swept past the centre pushes it out in front until it is
/// there, in either collider order, and the first three balls leave within 3 % of the
/// surface's normal velocity at their last contact (the issue asks for 10 %). Regression: the
/// normal velocity used to be given at the contact point of the step's start, which the ball
/// had moved away from, so part of the push spun it (balls left up to 7 % slow); a ball is now
/// pushed through its centre.
#[test]
fn a_swept_bar_moving_less_than_a_ball_radius_plus_its_thickness_per_step_keeps_every_ball_in_front()
 {
    assert_stronger_edges_keep_the_balls(&[6.0, 7.0, 8.0], Edges::Solid, Edges::Swept, 0.03);
    for omega in [4.0f32, 5.0] {
        let swept = swing(omega, true, false, Edges::Swept);
        assert_eq!(swept.passed_through, 0, "ω {omega}");
        assert!(swept.within_ten_percent() >= 3, "ω {omega}");
    }
}

/// Swept contacts remember the pose before the last: a governor turned by a known angle moves
/// no vertex farther than the motion bound, the bound is tight within the rest radius, and the
/// previous vertex positions are those of the previous governors.
#[test]
fn swept_contacts_keep_the_previous_pose_and_bound_the_motion() {
    let tree = bar(2.0, 0.1, 0.3);
    let pose = |phi: f32| {
        [
            Affine::IDENTITY,
            Affine::new(Mat3::from_rotation_y(phi), Vec3::ZERO),
        ]
    };
    let mut shape = DeformableMeshShape::new(tree.clone(), &pose(0.0))
        .unwrap()
        .with_swept_contacts()
        .unwrap();
    assert!(shape.has_solid_contacts() && shape.has_swept_contacts());
    assert_eq!(shape.swept_motion_bound(), Some(0.0));
    let mut largest = 0.0f32;
    shape.set_governors(&pose(0.1)).unwrap();
    shape.set_governors(&pose(0.25)).unwrap();
    let before = DeformableMeshShape::new(tree.clone(), &pose(0.1)).unwrap();
    for v in 0..tree.rest_positions().len() as u32 {
        assert_eq!(shape.previous_vertex(v), before.vertex(v), "vertex {v}");
        largest = largest.max((shape.vertex(v) - shape.previous_vertex(v)).length());
    }
    let bound = shape.swept_motion_bound().unwrap();
    // The tip (2 m out) turns by 0.15 rad: a chord of about 0.3 m.
    assert!(
        largest > 0.29 && largest <= bound,
        "moved {largest}, bound {bound}"
    );
    assert!(
        bound < 3.0 * largest,
        "bound {bound} for a motion of {largest}"
    );
    // Without swept contacts the previous vertex is the current one.
    let plain = DeformableMeshShape::new(tree, &pose(0.3)).unwrap();
    assert_eq!(plain.previous_vertex(5), plain.vertex(5));
    assert_eq!(plain.swept_motion_bound(), None);
}

/// With morph targets the sweep follows the morph weights too: over random sequences of bone
/// poses and morph weights (large jumps included), every vertex moved by at most the motion
/// bound, and the previous vertex equals a second shape posed with the previous governors and
/// weights; the bound is the same whether the targets came before or after the sweep.
#[test]
fn swept_motion_bound_covers_morph_targets() {
    use rand::Rng;
    let mut r = common::rng(31);
    let tree = bar(2.0, 0.1, 0.3);
    let n = tree.rest_positions().len();
    let targets: Vec<Vec<Vec3>> = (0..3)
        .map(|j| {
            (0..n)
                .map(|v| {
                    // Target 0 moves every vertex, 1 only the far half, 2 is zero.
                    let scale = [0.2, if v % 2 == 0 { 0.3 } else { 0.0 }, 0.0][j];
                    Vec3::new(
                        r.random_range(-1.0..1.0),
                        r.random_range(-1.0..1.0),
                        r.random_range(-1.0..1.0),
                    ) * scale
                })
                .collect()
        })
        .collect();
    let mut morph = rapier3d_deform::deformation::MorphDeltas::new(n);
    morph.add_group(0, targets).unwrap();
    let pose = |r: &mut rand_chacha::ChaCha8Rng, jump: bool| {
        let spread = if jump { 2.0 } else { 0.2 };
        let bone = |r: &mut rand_chacha::ChaCha8Rng| {
            let axis = Vec3::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
            )
            .normalize_or(Vec3::Y);
            let scale = r.random_range(0.9..1.1);
            Affine::new(
                Mat3::from_axis_angle(axis, r.random_range(-spread..spread)) * scale,
                Vec3::new(
                    r.random_range(-spread..spread),
                    r.random_range(-spread..spread),
                    r.random_range(-spread..spread),
                ),
            )
        };
        let governors = [bone(r), bone(r)];
        let weights = [
            r.random_range(-spread..spread),
            r.random_range(-spread..spread),
            r.random_range(-spread..spread),
        ];
        (governors, weights)
    };
    let (g0, m0) = pose(&mut r, false);
    let mut first = DeformableMeshShape::new(tree.clone(), &g0)
        .unwrap()
        .with_morph_targets(morph.clone())
        .unwrap();
    first.set_pose(&g0, &m0).unwrap();
    let mut swept = first.clone().with_swept_contacts().unwrap();
    let mut swept_first = DeformableMeshShape::new(tree.clone(), &g0)
        .unwrap()
        .with_swept_contacts()
        .unwrap()
        .with_morph_targets(morph.clone())
        .unwrap();
    swept_first.set_pose(&g0, &m0).unwrap();
    let mut previous = (g0, m0);
    let mut tight = 0usize;
    for step in 0..200 {
        let (g, m) = pose(&mut r, step % 10 == 9);
        swept.set_pose(&g, &m).unwrap();
        swept_first.set_pose(&g, &m).unwrap();
        let bound = swept.swept_motion_bound().unwrap();
        assert_eq!(swept_first.swept_motion_bound(), Some(bound), "step {step}");
        let mut before = first.clone();
        before.set_pose(&previous.0, &previous.1).unwrap();
        let mut largest = 0.0f32;
        for v in 0..n as u32 {
            assert_eq!(
                swept.previous_vertex(v),
                before.vertex(v),
                "step {step} vertex {v}"
            );
            largest = largest.max((swept.vertex(v) - swept.previous_vertex(v)).length());
        }
        assert!(
            largest <= bound * (1.0 + 1e-5) + 1e-6,
            "step {step}: moved {largest}, bound {bound}"
        );
        if bound < 4.0 * largest {
            tight += 1;
        }
        previous = (g, m);
    }
    // The bound is useful, not only safe: within 4× of the largest motion on most steps.
    assert!(tight > 150, "tight on {tight} of 200 steps");
}

#[test]
fn solid_contacts_need_a_closed_mesh() {
    // An open strip of two triangles, consistently wound: an oriented manifold, not closed.
    let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
    let mesh = TriangleMesh::new(positions.clone(), vec![[0, 1, 2], [2, 1, 3]]).unwrap();
    let weights = ConvexWeights::from_rows(vec![vec![(0u32, 1.0f32)]; 4], 1).unwrap();
    let tree = Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap());
    let shape = DeformableMeshShape::new(tree, &[Affine::IDENTITY]).unwrap();
    assert!(shape.clone().with_fixed_internal_edges().is_ok());
    assert!(matches!(
        shape.with_solid_contacts(),
        Err(DeformError::InvalidParameter {
            name: "solid_contacts",
            ..
        })
    ));
}

/// Regression: the Khronos AnimatedMorphCube (2 m across, its morph targets sweeping faces at up
/// to 1.3 m/s) under 64 balls of 8 cm. A ball wedged between the ground and an advancing face
/// moved at the face's normal speed after every step, yet sank 4–5 mm deeper into it per step
/// (Rapier's soft penetration bias did not know the face moves, ground friction slowed the ball
/// within the step) until its centre crossed: 8 balls ended inside the cube. With the lead of
/// the penetration bias by the surface's normal speed, none does (checked every 10 steps by
/// ray-parity votes on the posed mesh).
#[test]
fn a_morphing_cube_pushes_the_balls_it_meets_out_instead_of_swallowing_them() {
    let path = rapier3d_deform_scenes::asset_path("morph/AnimatedMorphCube/AnimatedMorphCube.gltf");
    let (scene, _) = load_gltf_scene(&path, &LoadOptions::default()).unwrap();
    let mut world = world(Vector::new(0.0, -9.81, 0.0));
    let mut rest = PhysicsWorld::new();
    let probe = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .build(&mut rest)
        .unwrap();
    let extent = {
        let shape = DeformableMeshShape::of_collider(&rest.colliders, probe.collider()).unwrap();
        let v = shape.deformed_vertices();
        let (lo, hi) = v
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
        (lo, hi)
    };
    let scale = 2.0 / (extent.1 - extent.0).max_element();
    let (lo, hi) = (extent.0 * scale, extent.1 * scale);
    let mut cube = SkinnedColliderBuilder::from_scene(&scene)
        .unwrap()
        .scale(scale)
        .build(&mut world)
        .unwrap();
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, lo.y - 0.5, 0.0)),
        ColliderBuilder::cuboid(20.0, 0.5, 20.0),
    );
    let radius = 0.08;
    let mut balls = Vec::new();
    for i in 0..8 {
        for j in 0..8 {
            let x = lo.x + (hi.x - lo.x) * (i as f32 + 0.5) / 8.0;
            let z = lo.z + (hi.z - lo.z) * (j as f32 + 0.5) / 8.0;
            let y = hi.y + 2.0 * radius + 0.5 * radius * ((i + j) % 2) as f32;
            balls.push(
                world
                    .insert(
                        RigidBodyBuilder::dynamic().translation(Vector::new(x, y, z)),
                        ColliderBuilder::ball(radius),
                    )
                    .0,
            );
        }
    }
    let mut hooks = SurfaceVelocityHooks::new();
    hooks.track(&mut world.colliders, cube.collider()).unwrap();
    let mut inside = vec![false; balls.len()];
    for k in 1..=300 {
        cube.pose_clip(&mut world.colliders, 0, k as f32 * DT, ClipTime::Loop)
            .unwrap();
        hooks.update(&world.colliders, DT).unwrap();
        world.step_with_events(&hooks, &());
        hooks.apply_normal_velocities(&mut world);
        if k % 10 == 0 {
            let co = &world.colliders[cube.collider()];
            for (i, &b) in balls.iter().enumerate() {
                let local = co
                    .position()
                    .inverse_transform_point(world.bodies[b].translation());
                inside[i] |= rapier3d_deform_scenes::ray_parity::inside_voted(co.shape(), local);
            }
        }
    }
    let swallowed: Vec<usize> = (0..balls.len()).filter(|&i| inside[i]).collect();
    assert!(swallowed.is_empty(), "balls inside the cube: {swallowed:?}");
}
