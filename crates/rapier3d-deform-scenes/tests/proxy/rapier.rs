//! Contract: a `SphereProxyShape` collider behaves in Rapier like the union of balls it is — a
//! dynamic body rests on a cuboid, on a parry trimesh and on another proxy with at most 1 mm of
//! drift over 10 s (with and without per-step `shape_mut()` updates); its contacts equal parry's
//! own for a `Compound` of the same balls; ray casts hit the sphere a brute-force search picks;
//! and the warm-start behaviour under per-step updates is measured, through parry's composite
//! code (the default dispatcher) and through `DeformDispatcher`, which keeps every warm start
//! (new solver contacts per step: one ball on a cuboid 100 % → 0 %).

use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::geometry::NEW_CONTACT_BIT;
use rapier3d_deform::rapier3d::parry::query::QueryDispatcher;
use rapier3d_deform::rapier3d::parry::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, Ray, RayCast,
};
use rapier3d_deform::rapier3d::parry::shape::{Ball, PackedFeatureId, Shape};
use rapier3d_deform::rapier3d::prelude::*;
use rapier3d_deform::shape::SphereProxyShape;

/// Six overlapping balls of radius 0.3 in a 3 × 2 block: a small box-like proxy whose lowest
/// points are 0.3 below its origin.
fn block() -> SphereProxyShape {
    let mut centres = Vec::new();
    for x in [-0.4, 0.0, 0.4] {
        for z in [-0.2, 0.2] {
            centres.push(Vec3::new(x, 0.0, z));
        }
    }
    let radii = vec![0.3; centres.len()];
    SphereProxyShape::new(centres, radii).unwrap()
}

/// Four balls of radius 0.3 at `(±0.3, 0, ±0.3)`: on [`slab`] each sits in a dimple between four
/// slab balls (a stable rest; the 3 × 2 [`block`] would balance on ball tops there).
fn dimple_block() -> SphereProxyShape {
    let centres = vec![
        Vec3::new(-0.3, 0.0, -0.3),
        Vec3::new(-0.3, 0.0, 0.3),
        Vec3::new(0.3, 0.0, -0.3),
        Vec3::new(0.3, 0.0, 0.3),
    ];
    SphereProxyShape::new(centres, vec![0.3; 4]).unwrap()
}

/// A flat slab of balls (radius 0.5, spacing 0.6) whose tops are at `y = 0`.
fn slab() -> SphereProxyShape {
    let mut centres = Vec::new();
    for i in -4..=4 {
        for k in -4..=4 {
            centres.push(Vec3::new(0.6 * i as f32, -0.5, 0.6 * k as f32));
        }
    }
    let radii = vec![0.5; centres.len()];
    SphereProxyShape::new(centres, radii).unwrap()
}

fn ground_trimesh() -> SharedShape {
    let (n, h) = (6, 2.0);
    let mut vertices = Vec::new();
    for i in 0..=n {
        for k in 0..=n {
            vertices.push(Vec3::new(-6.0 + h * i as f32, 0.0, -6.0 + h * k as f32));
        }
    }
    let mut indices = Vec::new();
    for i in 0..n {
        for k in 0..n {
            let a = i * (n + 1) + k;
            let (b, c, d) = (a + 1, a + n + 1, a + n + 2);
            indices.push([a, b, d]);
            indices.push([a, d, c]);
        }
    }
    SharedShape::trimesh(vertices, indices).unwrap()
}

struct Scene {
    world: PhysicsWorld,
    body: RigidBodyHandle,
    collider: ColliderHandle,
}

/// A fixed ground collider whose top is at `y = 0` and a dynamic proxy whose lowest point starts
/// `gap` above it.
fn scene_with(ground: SharedShape, ground_y: f32, gap: f32, proxy: SphereProxyShape) -> Scene {
    let mut world = PhysicsWorld::new();
    let g = world
        .bodies
        .insert(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, ground_y, 0.0)));
    world
        .colliders
        .insert_with_parent(ColliderBuilder::new(ground), g, &mut world.bodies);
    let body = world.bodies.insert(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(0.0, 0.3 + gap, 0.0))
            .can_sleep(false),
    );
    let collider = world.colliders.insert_with_parent(
        ColliderBuilder::new(SharedShape::new(proxy)).density(500.0),
        body,
        &mut world.bodies,
    );
    Scene {
        world,
        body,
        collider,
    }
}

fn scene(ground: SharedShape, ground_y: f32, gap: f32) -> Scene {
    scene_with(ground, ground_y, gap, block())
}

/// Steps `seconds` of simulation; with `update`, rewrites the proxy's spheres through
/// `shape_mut()` before every step (what a blend does each frame). Returns the number of solver
/// contacts seen and how many of them were new, over the last second.
fn run(scene: &mut Scene, seconds: f32, update: bool) -> (usize, usize) {
    let dt = scene.world.integration_parameters.dt;
    let steps = (seconds / dt).round() as usize;
    let last_second = (1.0 / dt).round() as usize;
    let (mut total, mut new) = (0, 0);
    let reference = scene.world.colliders[scene.collider]
        .shape()
        .as_shape::<SphereProxyShape>()
        .unwrap()
        .clone();
    for step in 0..steps {
        if update {
            let collider = scene.world.colliders.get_mut(scene.collider).unwrap();
            let proxy = collider
                .shape_mut()
                .as_shape_mut::<SphereProxyShape>()
                .unwrap();
            proxy
                .set_spheres(reference.centres(), reference.radii())
                .unwrap();
        }
        scene.world.step();
        if step + last_second >= steps {
            for pair in scene.world.narrow_phase.contact_pairs_with(scene.collider) {
                for m in pair.solver_manifolds() {
                    for c in &m.data.solver_contacts {
                        total += 1;
                        new += usize::from(c.contact_id[0] & NEW_CONTACT_BIT != 0);
                    }
                }
            }
        }
    }
    (total, new)
}

fn translation(scene: &Scene) -> Vec3 {
    scene.world.bodies[scene.body].translation()
}

/// Settles for 1 s, then checks that 10 more seconds move the body by at most 1 mm, and returns
/// its resting height and the warm-start counts of the last second.
fn rests(mut s: Scene, update: bool) -> (f32, (usize, usize)) {
    run(&mut s, 1.0, update);
    let settled = translation(&s);
    let counts = run(&mut s, 10.0, update);
    let drift = (translation(&s) - settled).length();
    assert!(
        drift <= 1e-3,
        "drift {drift} m over 10 s (update: {update})"
    );
    (translation(&s).y, counts)
}

#[test]
fn rests_on_a_cuboid() {
    for update in [false, true] {
        let s = scene(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02);
        let (y, _) = rests(s, update);
        // The lowest balls touch the top face: origin 0.3 above it, within the solver's
        // allowed penetration.
        assert!((y - 0.3).abs() < 5e-3, "{y}");
    }
}

#[test]
fn rests_on_a_trimesh() {
    for update in [false, true] {
        let s = scene(ground_trimesh(), 0.0, 0.02);
        let (y, _) = rests(s, update);
        assert!((y - 0.3).abs() < 5e-3, "{y}");
    }
}

#[test]
fn rests_on_another_proxy() {
    for update in [false, true] {
        let s = scene_with(SharedShape::new(slab()), 0.0, 0.02, dimple_block());
        let (y, _) = rests(s, update);
        // Each ball sits in a dimple: 0.8 from four slab centres 0.3·√2 away horizontally.
        let expected = -0.5 + (0.64f32 - 0.18).sqrt();
        assert!((y - expected).abs() < 5e-3, "{y} vs {expected}");
    }
}

#[test]
fn warm_starting_under_per_step_updates() {
    // Measured, not assumed. `shape_mut()` sets `ColliderChanges::SHAPE`, so every step runs a
    // full narrow-phase update with the pair's workspace reset. With several touching balls the
    // pair has several manifolds, Rapier clusters them, and the clusters take their warm start
    // from the previous step's clusters by position: no solver contact is new.
    let s = scene(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02);
    let (_, (total, new)) = rests(s, true);
    assert!(total > 0);
    assert_eq!(
        new, 0,
        "{new} of {total} solver contacts were new in steady contact"
    );
    // On another proxy each ball touches four slab balls: the manifolds fall into four clusters
    // (one per normal direction) and the position matching recovers only part of the warm start
    // (measured: half of the solver contacts are new every step). The body still rests.
    let s = scene_with(SharedShape::new(slab()), 0.0, 0.02, dimple_block());
    let (_, (total, new)) = rests(s, true);
    assert!(total > 0);
    assert!(
        new <= total / 2,
        "{new} of {total} solver contacts were new on the slab"
    );
    // A single touching ball gives a single manifold, which is not clustered: the reset
    // workspace yields a fresh manifold every step and its contacts are all new (warm start
    // lost), as the integration notes predict. The body still rests (drift checked by `rests`).
    // This is what a crate dispatcher that re-keys manifolds must fix.
    let one_ball = SphereProxyShape::new(vec![Vec3::ZERO], vec![0.3]).unwrap();
    let s = scene_with(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02, one_ball);
    let (_, (total, new)) = rests(s, true);
    assert!(total > 0);
    assert_eq!(
        new, total,
        "single-manifold pairs now keep their warm start: update the notes"
    );
}

/// All contact points of the pair `(g1, g2)` as sorted tuples.
fn manifold_points(pos12: &Pose, g1: &dyn Shape, g2: &dyn Shape) -> Vec<[f32; 8]> {
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    let mut workspace = None;
    DefaultQueryDispatcher
        .contact_manifolds(pos12, g1, g2, 0.05, &mut manifolds, &mut workspace)
        .unwrap();
    let mut out: Vec<[f32; 8]> = manifolds
        .iter()
        .flat_map(|m| {
            m.points.iter().map(move |p| {
                [
                    m.subshape1 as f32,
                    m.subshape2 as f32,
                    p.local_p1.x,
                    p.local_p1.y,
                    p.local_p1.z,
                    p.local_p2.x,
                    p.local_p2.y,
                    p.dist,
                ]
            })
        })
        .collect();
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

#[test]
fn contacts_equal_parry_ball_contacts() {
    let proxy = block();
    let compound = proxy.to_compound();
    let others: Vec<(SharedShape, Pose)> = vec![
        (
            SharedShape::cuboid(2.0, 0.1, 2.0),
            Pose::from_translation(Vec3::new(0.1, -0.38, 0.0)),
        ),
        (
            SharedShape::ball(0.25),
            Pose::from_translation(Vec3::new(0.3, 0.45, 0.1)),
        ),
        (
            ground_trimesh(),
            Pose::from_translation(Vec3::new(0.0, -0.29, 0.0)),
        ),
        (
            SharedShape::new(slab()),
            Pose::from_translation(Vec3::new(0.05, -0.29, 0.02)),
        ),
        (
            SharedShape::capsule_y(0.3, 0.2),
            Pose::from_translation(Vec3::new(-0.5, 0.2, 0.5)),
        ),
    ];
    for (n, (other, pos12)) in others.iter().enumerate() {
        let a = manifold_points(pos12, &proxy, &**other);
        let b = manifold_points(pos12, &compound, &**other);
        assert!(!a.is_empty(), "case {n}: no contact");
        assert_eq!(a.len(), b.len(), "case {n}");
        for (p, q) in a.iter().zip(&b) {
            for (x, y) in p.iter().zip(q) {
                assert!((x - y).abs() < 1e-6, "case {n}: {p:?} vs {q:?}");
            }
        }
        // Flipped order too (the composite is the second shape).
        let inv = pos12.inverse();
        assert_eq!(
            manifold_points(&inv, &**other, &proxy).len(),
            manifold_points(&inv, &**other, &compound).len()
        );
        // The single deepest contact agrees as well.
        let c1 = rapier3d_deform::rapier3d::parry::query::contact(
            &Pose::IDENTITY,
            &proxy,
            pos12,
            &**other,
            0.0,
        )
        .unwrap();
        let c2 = rapier3d_deform::rapier3d::parry::query::contact(
            &Pose::IDENTITY,
            &compound,
            pos12,
            &**other,
            0.0,
        )
        .unwrap();
        assert_eq!(c1.map(|c| c.dist), c2.map(|c| c.dist), "case {n}");
    }
}

#[test]
fn ray_casts_hit_the_nearest_sphere() {
    let mut proxy = block();
    // Irregular radii so that the nearest sphere is not a tie.
    let radii: Vec<f32> = (0..proxy.sphere_count())
        .map(|i| 0.2 + 0.03 * i as f32)
        .collect();
    let centres = proxy.centres().to_vec();
    proxy.set_spheres(&centres, &radii).unwrap();
    let mut state = 0x1234_5678u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut hits = 0;
    for _ in 0..500 {
        let origin = Vec3::new(4.0 * next() - 2.0, 4.0 * next() - 2.0, 4.0 * next() - 2.0) * 1.5;
        let target = Vec3::new(next() - 0.5, 0.6 * next() - 0.3, next() - 0.5);
        let ray = Ray::new(origin, (target - origin).normalize());
        // Brute force over the balls.
        let mut best: Option<(u32, f32)> = None;
        for (i, (c, r)) in centres.iter().zip(&radii).enumerate() {
            let local = Ray::new(ray.origin - *c, ray.dir);
            if let Some(t) = Ball::new(*r).cast_local_ray(&local, 100.0, true)
                && best.is_none_or(|(_, b)| t < b)
            {
                best = Some((i as u32, t));
            }
        }
        let hit = proxy.cast_local_ray_and_get_normal(&ray, 100.0, true);
        match (best, hit) {
            (None, None) => {}
            (Some((i, t)), Some(h)) => {
                hits += 1;
                assert!((h.time_of_impact - t).abs() < 1e-5);
                if t > 0.0 {
                    assert_eq!(h.subshape, i, "ray {ray:?}");
                    let p = ray.point_at(t);
                    let n = (p - centres[i as usize]).normalize();
                    assert!((h.normal - n).length() < 1e-4);
                }
            }
            (b, h) => panic!("brute force {b:?} vs proxy {h:?}"),
        }
    }
    assert!(hits > 100);
}

#[test]
fn query_pipeline_casts_reach_the_proxy() {
    let mut s = scene(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02);
    run(&mut s, 0.5, true);
    let body_y = translation(&s).y;
    let qp = s.world.broad_phase.as_query_pipeline(
        s.world.narrow_phase.query_dispatcher(),
        &s.world.bodies,
        &s.world.colliders,
        QueryFilter::default(),
    );
    let ray = Ray::new(Vec3::new(0.2, 5.0, 0.21), Vec3::new(0.0, -1.0, 0.0));
    let (handle, hit) = qp.cast_ray_and_get_normal(&ray, 100.0, true).unwrap();
    assert_eq!(handle, s.collider);
    // The ray passes between two balls' centres in x, above the right-hand row (z = 0.2).
    assert!(hit.subshape == 3 || hit.subshape == 5, "{}", hit.subshape);
    let top = body_y + (0.3f32.powi(2) - 0.01f32.powi(2) - 0.2f32.powi(2)).sqrt();
    assert!((ray.point_at(hit.time_of_impact).y - top).abs() < 1e-3);
}

#[test]
fn explicit_mass_properties_follow_density() {
    let s = scene(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02);
    let body = &s.world.bodies[s.body];
    let expected = block().mass_properties(500.0).mass();
    assert!((body.mass() - expected).abs() < 1e-3 * expected);
    assert!(block().ccd_thickness() > 0.0);
}

/// Warm-start counts over the solver contacts of the proxy's pairs.
#[derive(Clone, Copy, Debug, Default)]
struct WarmStart {
    total: usize,
    /// Flagged new: no impulse carried in (including contacts whose impulse was zero).
    new: usize,
    /// Contacts (same pair, manifold key and feature ids) that had an impulse at the previous
    /// step, and how many of them came in new anyway.
    eligible: usize,
    lost: usize,
}

type ContactKey = (
    ColliderHandle,
    ColliderHandle,
    u32,
    u32,
    PackedFeatureId,
    PackedFeatureId,
);

/// Steps `seconds` with `set_spheres` through `shape_mut()` before every step; counts the
/// last second.
fn run_warm(scene: &mut Scene, seconds: f32) -> WarmStart {
    let dt = scene.world.integration_parameters.dt;
    let steps = (seconds / dt).round() as usize;
    let last_second = (1.0 / dt).round() as usize;
    let reference = scene.world.colliders[scene.collider]
        .shape()
        .as_shape::<SphereProxyShape>()
        .unwrap()
        .clone();
    let mut out = WarmStart::default();
    let mut previous: std::collections::HashMap<ContactKey, f32> = Default::default();
    for step in 0..steps {
        scene.world.colliders[scene.collider]
            .shape_mut()
            .as_shape_mut::<SphereProxyShape>()
            .unwrap()
            .set_spheres(reference.centres(), reference.radii())
            .unwrap();
        scene.world.step();
        let mut current = std::collections::HashMap::new();
        for pair in scene.world.narrow_phase.contact_pairs_with(scene.collider) {
            for m in pair.solver_manifolds() {
                for sc in &m.data.solver_contacts {
                    let p = &m.points[(sc.contact_id[0] & !NEW_CONTACT_BIT) as usize];
                    let key = (
                        pair.collider1,
                        pair.collider2,
                        m.subshape1,
                        m.subshape2,
                        p.fid1,
                        p.fid2,
                    );
                    let new = sc.contact_id[0] & NEW_CONTACT_BIT != 0;
                    if step + last_second >= steps {
                        out.total += 1;
                        out.new += usize::from(new);
                        if previous.get(&key).is_some_and(|i| *i > 0.0) {
                            out.eligible += 1;
                            out.lost += usize::from(new);
                        }
                    }
                    let slot = current.entry(key).or_insert(0.0f32);
                    *slot = slot.max(p.data.impulse);
                }
            }
        }
        previous = current;
    }
    out
}

#[test]
fn the_dispatcher_keeps_warm_starts_under_per_step_updates() {
    // Before: parry's composite code through the default dispatcher (its workspace is reset by
    // every `shape_mut()`, so manifolds are rebuilt fresh). After: `DeformDispatcher` first,
    // which keys manifolds per (ball, other part) and re-keys them from the incoming list.
    type MakeScene = fn() -> Scene;
    let cases: [(&str, MakeScene); 5] = [
        ("block on cuboid", || {
            scene(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02)
        }),
        ("block on trimesh", || scene(ground_trimesh(), 0.0, 0.02)),
        ("dimple block on a proxy slab", || {
            scene_with(SharedShape::new(slab()), 0.0, 0.02, dimple_block())
        }),
        ("one ball on cuboid", || {
            let one = SphereProxyShape::new(vec![Vec3::ZERO], vec![0.3]).unwrap();
            scene_with(SharedShape::cuboid(10.0, 0.1, 10.0), -0.1, 0.02, one)
        }),
        ("one ball on a proxy slab", || {
            let one = SphereProxyShape::new(vec![Vec3::new(0.3, 0.0, 0.3)], vec![0.3]).unwrap();
            scene_with(SharedShape::new(slab()), 0.0, 0.02, one)
        }),
    ];
    for (name, make) in cases {
        let mut before = make();
        run_warm(&mut before, 1.0);
        let settled = translation(&before);
        let b = run_warm(&mut before, 3.0);
        let drift_before = (translation(&before) - settled).length();
        let mut after = make();
        after.world.narrow_phase =
            NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
        run_warm(&mut after, 1.0);
        let settled = translation(&after);
        let a = run_warm(&mut after, 3.0);
        let drift_after = (translation(&after) - settled).length();
        let frac = |w: WarmStart| w.new as f32 / w.total.max(1) as f32;
        println!(
            "{name}: new per step before {:.2} ({b:?}, drift {drift_before:.1e}), after {:.2} ({a:?}, drift {drift_after:.1e})",
            frac(b),
            frac(a)
        );
        assert!(a.total > 0, "{name}");
        assert!(drift_after <= 1e-3, "{name}: drift {drift_after}");
        // No contact that carried an impulse loses it, and no pair does worse than before.
        assert_eq!(a.lost, 0, "{name}: {a:?}");
        assert!(frac(a) <= frac(b) + 1e-6, "{name}: {a:?} vs {b:?}");
    }
}
