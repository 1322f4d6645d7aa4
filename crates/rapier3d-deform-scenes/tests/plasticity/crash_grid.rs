//! Contract of the crash grid (`build_crash_grid`, the `crash_many` benchmark's layout): every car meets its pair head-on, nothing becomes NaN, every pair dents, the rigid baseline has the same bodies, a run is bit-identical for a seed, and bad options are typed errors.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rapier3d_deform::crash::{DeformableCollider, PlasticAsset};
use rapier3d_deform::error::DeformError;
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform_scenes::car::CAR_LENGTH;
use rapier3d_deform_scenes::crash::{
    CarCollider, CrashGridOptions, CrashScene, GRID_LANE_PITCH, MAX_GRID_CARS, build_crash_grid,
    car_asset, crash_grid_launches,
};

/// Eight cars (four pairs) after a 1.5 m run-up: contact after about 10 steps.
const STEPS: usize = 48;

fn options(seed: u64) -> CrashGridOptions {
    CrashGridOptions {
        seed,
        cars: 8,
        run_up: 1.5,
        ..CrashGridOptions::default()
    }
}

fn proxy() -> CarCollider {
    CarCollider::Deformable(DeformableCollider::SphereProxy)
}

/// A hash of every car's pose, velocities and cage (the bit patterns).
fn state_hash(scene: &mut CrashScene) -> u64 {
    let mut h = DefaultHasher::new();
    let mut cage = Vec::new();
    for b in scene.cars.clone() {
        let rb = &scene.world.bodies[b.rigid_body];
        for v in [rb.translation(), rb.linvel(), rb.angvel()] {
            v.to_array().map(f32::to_bits).hash(&mut h);
        }
        rb.rotation().to_array().map(f32::to_bits).hash(&mut h);
        if let Some(d) = b.deformable {
            scene.pipeline.cage_positions(d, &mut cage).unwrap();
            for p in &cage {
                p.to_array().map(f32::to_bits).hash(&mut h);
            }
        }
    }
    h.finish()
}

fn run(asset: &Arc<PlasticAsset>, collider: &CarCollider, seed: u64) -> CrashScene {
    let mut scene = build_crash_grid(asset, collider, &options(seed)).unwrap();
    for _ in 0..STEPS {
        scene.step().unwrap();
    }
    scene
}

#[test]
fn grid_pairs_head_at_each_other_in_separate_lanes() {
    for cars in [2, 8, 32, 128, MAX_GRID_CARS] {
        let o = CrashGridOptions {
            cars,
            ..CrashGridOptions::default()
        };
        let l = crash_grid_launches(&o).unwrap();
        assert_eq!(l.len(), cars);
        for (k, pair) in l.chunks(2).enumerate() {
            let f0 = Quat::from_rotation_y(pair[0].yaw) * Vec3::X;
            let f1 = Quat::from_rotation_y(pair[1].yaw) * Vec3::X;
            let gap = pair[1].position - pair[0].position;
            // Facing each other along the gap (heading jitter ±0.01 rad, lane jitter ±0.1 m).
            assert!(f0.dot(gap.normalize()) > 0.99, "{cars} cars, pair {k}");
            assert!(f1.dot(-gap.normalize()) > 0.99, "{cars} cars, pair {k}");
            // Bumpers `2 · run_up` apart.
            let bumpers = gap.length() - CAR_LENGTH;
            assert!(
                (bumpers - 2.0 * o.run_up).abs() < 0.25,
                "{cars} cars, pair {k}: {bumpers} m"
            );
            assert!(pair.iter().all(|c| (c.speed - o.speed).abs() <= 0.5));
        }
        // Brute force over every two cars of different pairs: either in different lanes (at
        // least a lane pitch apart, less the jitter) or at least a car length plus the
        // run-ups apart along the lane.
        for a in 0..cars {
            for b in a + 1..cars {
                if a / 2 == b / 2 {
                    continue;
                }
                let d = (l[a].position - l[b].position).abs();
                assert!(
                    d.z > GRID_LANE_PITCH - 0.25 || d.x > CAR_LENGTH + 2.0,
                    "{cars} cars: cars {a} and {b} at {d:?}"
                );
            }
        }
    }
}

#[test]
fn grid_rejects_bad_options_with_typed_errors() {
    for (cars, speed, run_up, name) in [
        (0, 35.0, 3.0, "cars"),
        (7, 35.0, 3.0, "cars"),
        (MAX_GRID_CARS + 2, 35.0, 3.0, "cars"),
        (8, f32::NAN, 3.0, "speed"),
        (8, 35.0, -1.0, "run_up"),
        (8, 35.0, f32::INFINITY, "run_up"),
    ] {
        let o = CrashGridOptions {
            cars,
            speed,
            run_up,
            ..CrashGridOptions::default()
        };
        match crash_grid_launches(&o) {
            Err(DeformError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{cars} cars, {speed} m/s, {run_up} m: {other:?}"),
        }
    }
}

#[test]
fn grid_crash_dents_every_pair_stays_finite_and_is_deterministic() {
    let asset = Arc::new(car_asset("low", None, &mut |_| {}).unwrap());
    let mut a = run(&asset, &proxy(), 11);
    let cars = a.cars.clone();
    for (i, b) in cars.iter().enumerate() {
        let rb = &a.world.bodies[b.rigid_body];
        assert!(
            rb.translation().is_finite() && rb.linvel().is_finite() && rb.angvel().is_finite(),
            "car {i}"
        );
        // Every car has hit its pair: it lost most of its 35 m/s closing speed.
        assert!(rb.linvel().length() < 20.0, "car {i}: {:?}", rb.linvel());
    }
    for (k, pair) in cars.chunks(2).enumerate() {
        let dent = pair
            .iter()
            .map(|b| a.dent_depth(b).unwrap())
            .fold(0.0f32, f32::max);
        assert!(
            dent.is_finite() && dent > 0.02 * CAR_LENGTH,
            "pair {k}: {dent} m"
        );
    }
    let hash = state_hash(&mut a);
    assert_eq!(hash, state_hash(&mut run(&asset, &proxy(), 11)));
    assert_ne!(hash, state_hash(&mut run(&asset, &proxy(), 12)));

    // The rigid baseline: the same bodies, none in the pipeline, and its cars collide too.
    let rigid = run(&asset, &CarCollider::StaticCompound, 11);
    assert_eq!(rigid.cars.len(), cars.len());
    for (i, b) in rigid.cars.iter().enumerate() {
        assert!(b.deformable.is_none());
        let rb = &rigid.world.bodies[b.rigid_body];
        assert!(rb.translation().is_finite());
        assert!(
            rb.linvel().length() < 20.0,
            "rigid car {i}: {:?}",
            rb.linvel()
        );
    }
}

/// The pipeline's per-body phase runs on rayon's threads with `parallel`: a crash of eight
/// proxy cars, and of eight cars with rebuilt-compound colliders (the baseline whose shapes are
/// built in that phase), stepped in a one-thread and in a two-thread pool give bit-identical
/// poses, velocities and cages, and the same dent events every step.
#[cfg(feature = "parallel")]
#[test]
fn grid_crash_is_bit_identical_on_one_and_two_threads() {
    let asset = Arc::new(car_asset("low", None, &mut |_| {}).unwrap());
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let pools = [pool(1), pool(2)];
    for collider in [
        proxy(),
        CarCollider::Deformable(DeformableCollider::RebuiltCompound),
    ] {
        let mut scenes: Vec<CrashScene> = pools
            .iter()
            .map(|_| build_crash_grid(&asset, &collider, &options(11)).unwrap())
            .collect();
        let mut dents = 0;
        for step in 0..STEPS {
            for (scene, pool) in scenes.iter_mut().zip(&pools) {
                pool.install(|| scene.step().unwrap());
            }
            let [one, two] = [&scenes[0], &scenes[1]].map(|s| s.pipeline.events().to_vec());
            assert_eq!(one, two, "{collider:?}, step {step}: dent events");
            assert_eq!(
                scenes[0].pipeline.stats(),
                scenes[1].pipeline.stats(),
                "{collider:?}, step {step}"
            );
            dents += one.len();
        }
        assert!(dents > 0, "{collider:?}: the cars must dent");
        let [a, b] = &mut scenes[..] else {
            unreachable!()
        };
        assert_eq!(state_hash(a), state_hash(b), "{collider:?}");
    }
}
