//! Every scene the testbed registers, built by the same `Demo::build` the viewer calls and stepped with the crate's updates without a window: bodies stay finite, the drawn meshes are the colliders' surfaces (inside their bounds, dented where hit, tinted by their displacement), skinned colliders follow their clips, self-collisions contain the brute-force oracle's; the garments' pinned vertices follow the skin, no cloth vertex ends deeper in the skin than the thickness (winding-number oracle), and the cloth's colours are the seed's code of the brute-force skin distance.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::rapier3d::parry::query::PointQuery;
use rapier3d_deform::rapier3d::parry::shape::Triangle;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::characters::{self, WALK_SPEED};
use rapier3d_deform_scenes::crash::{CAR_DENT_SCALE, CAR_SPEED};
use rapier3d_deform_scenes::skin_distance::signed_distance;
use rapier3d_deform_testbed::demo::DENT_STEPS;
use rapier3d_deform_testbed::{Demo, DemoOptions, SceneId};

const STEPS: usize = 60;

fn build(id: SceneId, options: &DemoOptions) -> Demo {
    Demo::build(id, options).unwrap_or_else(|e| panic!("{}: {e}", id.name()))
}

fn step(demo: &mut Demo, steps: usize) {
    for k in 0..steps {
        demo.step()
            .unwrap_or_else(|e| panic!("{} step {k}: {e}", demo.id().name()));
    }
}

/// Every body's pose and velocity are finite.
fn assert_bodies_finite(demo: &Demo) {
    for (h, rb) in demo.world().bodies.iter() {
        let ok = rb.translation().is_finite()
            && rb.rotation().is_finite()
            && rb.linvel().is_finite()
            && rb.angvel().is_finite();
        assert!(ok, "{}: body {h:?} is not finite", demo.id().name());
    }
}

/// Every drawn mesh has one finite position per vertex its triangles use.
fn assert_meshes_drawable(demo: &mut Demo) {
    assert!(
        !demo.meshes().is_empty(),
        "{} draws no mesh",
        demo.id().name()
    );
    let mut positions = Vec::new();
    for i in 0..demo.meshes().len() {
        demo.mesh_positions(i, &mut positions).unwrap();
        let mesh = &demo.meshes()[i];
        assert!(positions.iter().all(|p| p.is_finite()));
        let used = mesh.triangles.iter().flatten().copied().max().unwrap() as usize;
        assert_eq!(used + 1, positions.len(), "{} mesh {i}", demo.id().name());
    }
    assert!(
        demo.mesh_positions(demo.meshes().len(), &mut positions)
            .is_err()
    );
}

#[test]
fn every_registered_scene_builds_and_steps_sixty_times() {
    for id in SceneId::ALL {
        let mut demo = build(id, &DemoOptions::default());
        step(&mut demo, STEPS);
        assert_eq!(demo.steps(), STEPS);
        assert_bodies_finite(&demo);
        assert_meshes_drawable(&mut demo);
        assert!(
            !demo.stats().is_empty(),
            "{} shows no statistics",
            id.name()
        );
    }
}

/// The drawn mesh of a skinned collider, put in the world by its body's pose, lies in the
/// collider's world AABB: what the viewer draws is the surface the narrow phase bounds (the
/// bound is the crate's O(m) one, the vertices are deformed directly).
fn assert_drawn_inside_collider(demo: &mut Demo, index: usize) {
    let mut positions = Vec::new();
    demo.mesh_positions(index, &mut positions).unwrap();
    let mesh = &demo.meshes()[index];
    let pose = *demo.world().bodies[mesh.body].position();
    let aabb = demo.world().colliders[mesh.collider.unwrap()].compute_aabb();
    let tol = 1e-4 * (aabb.maxs - aabb.mins).length();
    for p in &positions {
        let q = pose * *p;
        assert!(
            q.cmpge(aabb.mins - Vec3::splat(tol)).all()
                && q.cmple(aabb.maxs + Vec3::splat(tol)).all(),
            "{}: drawn vertex {q} outside the collider's box {aabb:?}",
            demo.id().name()
        );
    }
}

#[test]
fn skinned_characters_follow_their_clips_and_walk() {
    let mut demo = build(SceneId::SkinnedCharacter, &DemoOptions::default());
    let local_aabb = |demo: &Demo| {
        let s = demo.character_scene().unwrap();
        let shape = demo.world().colliders[s.fox.collider()].shape();
        shape.compute_local_aabb()
    };
    step(&mut demo, 1);
    let first = local_aabb(&demo);
    let mut largest_change = 0.0f32;
    for _ in 1..STEPS {
        step(&mut demo, 1);
        let now = local_aabb(&demo);
        largest_change = largest_change
            .max((now.mins - first.mins).abs().max_element())
            .max((now.maxs - first.maxs).abs().max_element());
        assert_drawn_inside_collider(&mut demo, 0);
        assert_drawn_inside_collider(&mut demo, 1);
    }
    // The walk moves the legs by centimetres within a second: the posed box changes.
    assert!(
        largest_change > 0.01,
        "the Fox's posed box moved by {largest_change} m only"
    );
    // The kinematic bodies walked forward at the walking speed.
    let s = demo.character_scene().unwrap();
    let z = demo.world().bodies[s.fox.body()].translation().z;
    let expected = WALK_SPEED * STEPS as f32 * characters::DT;
    assert!(
        (z - expected).abs() < 1e-3,
        "Fox body at z = {z}, expected {expected}"
    );
    // No ball fell through the ground.
    for &(b, _) in &s.balls {
        assert!(demo.world().bodies[b].translation().y > 0.0);
    }
}

#[test]
fn cat_self_collisions_contain_the_brute_force_pairs_of_the_drawn_mesh() {
    let mut demo = build(SceneId::SelfCollision, &DemoOptions::default());
    let mut positions = Vec::new();
    let (mut frames_with_pairs, mut largest_change) = (0, 0.0f32);
    let first = {
        step(&mut demo, 1);
        demo.world().colliders[demo.meshes()[0].collider.unwrap()]
            .shape()
            .compute_local_aabb()
    };
    for k in 1..STEPS {
        step(&mut demo, 1);
        let now = demo.world().colliders[demo.meshes()[0].collider.unwrap()]
            .shape()
            .compute_local_aabb();
        largest_change = largest_change
            .max((now.mins - first.mins).abs().max_element())
            .max((now.maxs - first.maxs).abs().max_element());
        if k % 10 != 0 {
            continue;
        }
        assert_drawn_inside_collider(&mut demo, 0);
        demo.mesh_positions(0, &mut positions).unwrap();
        let s = demo.cat_scene().unwrap();
        let oracle = self_collisions_brute_force(s.cat.mesh(), &positions).unwrap();
        let found = demo.self_collisions();
        assert_eq!(found.len(), 1);
        let (collider, pairs) = found[0];
        assert_eq!(collider, s.collider.collider());
        // Conservative culling: every true pair is found (no false negative).
        for pair in &oracle {
            assert!(pairs.contains(pair), "step {k}: pair {pair:?} missed");
        }
        frames_with_pairs += usize::from(!oracle.is_empty());
    }
    assert!(
        largest_change > 0.005,
        "the cat's posed box moved by {largest_change} m only"
    );
    assert!(
        frames_with_pairs > 0,
        "no sampled frame self-collides: the test checks nothing"
    );
}

#[test]
fn car_crash_cars_hold_their_course_before_the_impacts() {
    // The examples' layout: a 30 m run-up at 35 m/s, no crash in the first quarter second.
    let mut demo = build(SceneId::CarCrash, &DemoOptions::default());
    let scene = demo.crash_scene().unwrap();
    let starts: Vec<Vec3> = scene
        .cars
        .iter()
        .map(|c| scene.world.bodies[c.rigid_body].translation())
        .collect();
    step(&mut demo, STEPS);
    let scene = demo.crash_scene().unwrap();
    let t = STEPS as f32 * scene.world.integration_parameters.dt;
    for (car, start) in scene.cars.clone().iter().zip(&starts) {
        let moved = (scene.world.bodies[car.rigid_body].translation() - *start).length();
        // Launch speeds are CAR_SPEED ± 0.5 m/s; sliding friction slows them by less than 5 %.
        assert!(
            moved > 0.9 * (CAR_SPEED - 0.5) * t && moved < (CAR_SPEED + 0.5) * t,
            "a car moved {moved} m in {t} s"
        );
        // Blending the rest weights rounds by a fraction of a micrometre; no dent yet.
        let depth = scene.dent_depth(car).unwrap();
        assert!(depth < 1e-5, "a car dented by {depth} m before any impact");
    }
}

/// A plastic scene after its impacts: how many cars are dented by more than a centimetre, and
/// how many of them deepest in their front half (the cars drive along their `+x`, so a head-on
/// impact dents the front). With `head_on`, every dented car must also have lost most of its
/// speed (equal masses meeting head-on).
fn dented_cars(demo: &mut Demo, head_on: bool) -> (usize, usize) {
    let name = demo.id().name();
    let cars = demo.crash_scene().unwrap().cars.clone();
    let mut positions = Vec::new();
    let (mut dented, mut front, mut tinted) = (0, 0, 0);
    for (i, mesh) in demo.meshes().to_vec().iter().enumerate() {
        let Some(car) = cars.iter().find(|c| c.rigid_body == mesh.body) else {
            continue;
        };
        demo.mesh_positions(i, &mut positions).unwrap();
        let scene = demo.crash_scene().unwrap();
        if scene.dent_depth(car).unwrap() < 0.01 {
            continue;
        }
        dented += 1;
        let h = car.deformable.unwrap();
        let rest_mesh = scene
            .pipeline
            .asset(h)
            .unwrap()
            .render()
            .unwrap()
            .mesh()
            .positions();
        // The deepest dent of the drawn mesh, at its rest position.
        let (deepest, _) = positions
            .iter()
            .zip(rest_mesh)
            .map(|(p, q)| (*q, (*p - *q).length()))
            .fold((Vec3::ZERO, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
        front += usize::from(deepest.x > 0.0);
        // The drawn colours: each vertex the ramp step of its displacement, recomputed here.
        let mut colours = Vec::new();
        demo.mesh_colours(i, &mut colours).unwrap();
        assert_eq!(colours.len(), positions.len());
        assert_eq!(demo.meshes()[i].palette.len(), DENT_STEPS);
        let scene = demo.crash_scene().unwrap();
        let rest = scene
            .pipeline
            .asset(h)
            .unwrap()
            .render()
            .unwrap()
            .mesh()
            .positions();
        let mut largest = 0;
        for ((p, q), &c) in positions.iter().zip(rest).zip(&colours) {
            let d = (*p - *q).length();
            let expected = ((d / CAR_DENT_SCALE).min(1.0) * (DENT_STEPS - 1) as f32).round();
            assert_eq!(
                c as f32, expected,
                "{name}: displacement {d} drawn as step {c}"
            );
            largest = largest.max(c);
        }
        tinted += usize::from(largest > 0);
        let speed = scene.world.bodies[car.rigid_body].linvel().length();
        assert!(
            !head_on || speed < 0.5 * CAR_SPEED,
            "{name}: a dented car still drives at {speed} m/s"
        );
    }
    // A dent of at least one ramp step (CAR_DENT_SCALE / 30 ≈ 1.2 cm) shows.
    assert!(tinted > 0, "{name}: {dented} dented cars, none tinted");
    (dented, front)
}

#[test]
fn crash_many_cars_dent_their_fronts_in_the_head_on_impacts() {
    // The grid's 3 m run-up: the pairs meet after about 0.1 s.
    let mut demo = build(SceneId::CrashMany, &DemoOptions::default());
    step(&mut demo, STEPS);
    assert_bodies_finite(&demo);
    let cars = DemoOptions::default().crash_many_cars;
    let (dented, front) = dented_cars(&mut demo, true);
    assert!(dented >= cars / 2, "{dented} of {cars} cars dented");
    assert_eq!(
        front, dented,
        "every car of a head-on pair is dented in its front"
    );
}

#[test]
fn car_crash_with_a_short_run_up_dents_the_cars() {
    let options = DemoOptions {
        crash_run_up: 1.0,
        ..DemoOptions::default()
    };
    let mut demo = build(SceneId::CarCrash, &options);
    step(&mut demo, STEPS);
    assert_bodies_finite(&demo);
    // The two head-on pairs dent their fronts (the T-bone strikers theirs as well, the
    // struck cars their sides).
    let (dented, front) = dented_cars(&mut demo, false);
    assert!(
        front >= 4,
        "{front} of {dented} dented cars dented in front"
    );
}

#[test]
fn barrels_fall_without_gaining_energy() {
    let mut demo = build(SceneId::BarrelDrop, &DemoOptions::default());
    let scene = demo.crash_scene().unwrap();
    let e0 = scene.mechanical_energy();
    let starts: Vec<f32> = scene
        .barrels
        .iter()
        .map(|b| scene.world.bodies[b.rigid_body].translation().y)
        .collect();
    step(&mut demo, STEPS);
    let scene = demo.crash_scene().unwrap();
    for (b, y0) in scene.barrels.iter().zip(&starts) {
        assert!(scene.world.bodies[b.rigid_body].translation().y < *y0);
    }
    let e1 = scene.mechanical_energy();
    assert!(e1 <= e0 * (1.0 + 1e-3), "energy rose from {e0} to {e1}");
}

/// Steps garment scene `id` (avatars subdivided once) 60 times; every tenth step checks the
/// pins, the depth of every cloth vertex in the posed skin and the cloth's colours. Returns the
/// vertices drawn red (contact) and not red over the checked steps.
fn check_garment(id: SceneId) -> (usize, usize) {
    let options = DemoOptions {
        garment_subdivision: 1,
        ..DemoOptions::default()
    };
    let mut demo = build(id, &options);
    assert_eq!(demo.meshes().len(), 2, "the skin and the cloth");
    let (mut red, mut other) = (0, 0);
    let mut skin = Vec::new();
    let mut colours = Vec::new();
    for k in 1..=STEPS {
        step(&mut demo, 1);
        if k % 10 != 0 {
            continue;
        }
        assert_meshes_drawable(&mut demo);
        demo.mesh_colours(0, &mut colours).unwrap();
        assert!(colours.is_empty(), "the skin is drawn in one colour");
        demo.mesh_colours(1, &mut colours).unwrap();
        demo.mesh_positions(0, &mut skin).unwrap();
        let s = demo.garment_scene().unwrap();
        let tris = s.avatar.mesh().triangles();
        let cloth = &s.cloth;
        assert_eq!(colours.len(), cloth.positions().len());
        // Pinned vertices are where the skin carries them.
        let targets = s.pin_targets(s.governors());
        for (&p, t) in cloth.pinned().iter().zip(&targets) {
            let x = cloth.positions()[p as usize];
            assert!(
                (x - *t).length() <= 1e-6 * (1.0 + t.length()),
                "{} step {k}: pin {p} at {x}, its skin point at {t}",
                id.name()
            );
            assert_eq!(colours[p as usize], 3, "pinned vertices are grey");
        }
        let thresholds = s.thresholds;
        let queried = s.stages.collision.queried_positions();
        for (i, &x) in cloth.positions().iter().enumerate() {
            assert!(x.is_finite());
            let d = signed_distance(tris, &skin, x);
            assert!(
                d >= -thresholds.thickness,
                "{} step {k}: cloth vertex {i} ends {d} inside the skin",
                id.name()
            );
            if cloth.is_pinned(i) {
                continue;
            }
            // Red exactly where the skin stage's query point is within OUTSIDE of the skin
            // (brute force over every posed skin triangle).
            let q = queried[i];
            let nearest = tris
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|v| skin[v as usize]);
                    (Triangle::new(a, b, c).project_local_point(q, true).point - q).length()
                })
                .fold(f32::MAX, f32::min);
            let is_red = colours[i] == 2;
            if nearest < thresholds.outside - 1e-5 {
                assert!(
                    is_red,
                    "{} step {k}: vertex {i} at {nearest} not red",
                    id.name()
                );
            } else if nearest > thresholds.outside + 1e-5 {
                assert!(
                    !is_red,
                    "{} step {k}: vertex {i} at {nearest} red",
                    id.name()
                );
            }
            if is_red {
                red += 1;
            } else {
                other += 1;
            }
        }
    }
    assert!(!demo.stats().is_empty());
    eprintln!("{}: {red} vertices drawn red, {other} not", id.name());
    (red, other)
}

#[test]
fn cloth_cape_follows_the_running_fox_without_sinking_into_it() {
    let (red, other) = check_garment(SceneId::ClothCape);
    // The cape lies on the Fox's back and hangs past its flanks.
    assert!(red > 500 && other > 100, "{red} red, {other} other");
}

#[test]
fn cloth_skirt_follows_the_walking_figure_without_sinking_into_it() {
    let (red, other) = check_garment(SceneId::ClothSkirt);
    assert!(red > 100 && other > 1000, "{red} red, {other} other");
}

#[test]
fn cloth_garment_follows_the_walking_body_without_sinking_into_it() {
    let (red, other) = check_garment(SceneId::ClothGarment);
    // The suit is tight: most of its free vertices are within the contact threshold.
    assert!(red > 4000 && other > 300, "{red} red, {other} other");
}
