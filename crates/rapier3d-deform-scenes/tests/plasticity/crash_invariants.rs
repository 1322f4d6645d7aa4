//! Contract: over a whole (short) car crash with plasticity, every example-weight row stays on the simplex at every step, nothing becomes NaN, no body sinks below the ground, plasticity creates no energy and a mass update never moves a centre of mass by more than 1 cm in a step.

use std::sync::Arc;

use rapier3d_deform::crash::{DeformableCollider, PlasticAsset};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::crash::{
    CarCollider, CrashOptions, CrashScene, build_crash, car_asset,
};

/// Four cars (a head-on crash and a T-bone) after a 3 m run-up, 0.45 s.
const STEPS: usize = 108;

fn scene(asset: &Arc<PlasticAsset>, seed: u64) -> CrashScene {
    let options = CrashOptions {
        seed,
        cars: 4,
        barrels: false,
        run_up: 3.0,
        ..CrashOptions::default()
    };
    build_crash(
        asset,
        None,
        &CarCollider::Deformable(DeformableCollider::SphereProxy),
        &options,
    )
    .unwrap()
}

fn check_rows(weights: &[f32], examples: usize, what: &str) {
    for (v, row) in weights.chunks(examples).enumerate() {
        assert!(
            row.iter().all(|x| x.is_finite() && *x >= 0.0),
            "{what}: vertex {v}: {row:?}"
        );
        let sum: f32 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "{what}: vertex {v} sums to {sum}");
    }
}

#[test]
fn a_crash_keeps_every_invariant() {
    let asset = Arc::new(car_asset("low", None, &mut |_| {}).unwrap());
    let mut scene = scene(&asset, 2016);
    let examples = asset.model().example_count();
    let e0 = scene.mechanical_energy();
    let mut previous = e0;
    let mut dents = 0;
    let mut largest_rise = 0.0f64;
    for step in 0..STEPS {
        let before = scene.mechanical_energy();
        scene.step().unwrap();
        let stats = scene.pipeline.stats();
        dents += stats.dents;
        // Centre of mass: at most 1 cm per step from a mass update.
        assert!(
            stats.max_com_jump <= 0.01 + 1e-6,
            "step {step}: centre of mass jumped {} m",
            stats.max_com_jump
        );
        let cars = scene.cars.clone();
        for (i, body) in cars.iter().enumerate() {
            let rb = &scene.world.bodies[body.rigid_body];
            // No NaN.
            assert!(
                rb.translation().is_finite() && rb.linvel().is_finite() && rb.angvel().is_finite(),
                "step {step}: car {i}"
            );
            let h = body.deformable.unwrap();
            let pose = *rb.position();
            // Eager weights (those the proxy reads) on the simplex at every step; a lazily read
            // vertex too (the whole state every 12 steps).
            let state = scene.pipeline.state_mut(h).unwrap();
            if step % 12 == 11 {
                state.catch_up_all();
                check_rows(
                    state.all_weights(),
                    examples,
                    &format!("step {step}, car {i}"),
                );
            } else {
                let v = ((step * 131 + i * 17) % state.vertex_count()) as u32;
                check_rows(
                    state.weights(v).unwrap(),
                    examples,
                    &format!("step {step}, car {i}, vertex {v}"),
                );
            }
            // No body below the ground: the lowest sphere of the collider stays above y = −2 cm.
            let (centres, radii) = scene.pipeline.collider_spheres(h).unwrap();
            let lowest = centres
                .iter()
                .zip(radii)
                .map(|(c, r)| (pose * *c).y - r)
                .fold(f32::INFINITY, f32::min);
            assert!(lowest > -0.02, "step {step}: car {i} reaches y = {lowest}");
            assert!(
                centres.iter().all(|c| c.is_finite())
                    && radii.iter().all(|r| r.is_finite() && *r >= 0.0)
            );
        }
        // Plasticity creates no energy: the mechanical energy never rises in a step by more than
        // 1e-5 of the initial energy (float noise), and never exceeds the initial energy.
        let after = scene.mechanical_energy();
        largest_rise = largest_rise.max(after - before);
        assert!(
            after <= before + 1e-5 * e0,
            "step {step}: energy rose from {before} to {after}"
        );
        assert!(
            after <= e0 * (1.0 + 1e-4),
            "step {step}: energy {after} above the initial {e0}"
        );
        previous = after;
    }
    assert!(dents > 0, "the crash dented nothing");
    assert!(
        previous < 0.9 * e0,
        "the crash absorbed almost nothing: {previous} of {e0}"
    );
    // The render side agrees: every cage vertex finite, the deepest dent is real.
    let mut positions = Vec::new();
    let mut deepest = 0.0f32;
    for body in scene.cars.clone() {
        scene
            .pipeline
            .cage_positions(body.deformable.unwrap(), &mut positions)
            .unwrap();
        assert!(positions.iter().all(|p: &Vec3| p.is_finite()));
        deepest = deepest.max(scene.dent_depth(&body).unwrap());
    }
    assert!(deepest > 0.05, "deepest dent {deepest} m");
    eprintln!(
        "energy {e0:.0} → {previous:.0} J, largest rise in a step {largest_rise:.1} J, deepest dent {deepest:.3} m, {dents} dents"
    );
}

#[test]
fn a_crash_is_deterministic_for_a_seed() {
    let asset = Arc::new(car_asset("low", None, &mut |_| {}).unwrap());
    let run = |seed: u64| {
        let mut scene = scene(&asset, seed);
        for _ in 0..60 {
            scene.step().unwrap();
        }
        let cars = scene.cars.clone();
        cars.iter()
            .flat_map(|b| {
                let rb = &scene.world.bodies[b.rigid_body];
                [rb.translation().to_array(), rb.linvel().to_array()]
            })
            .collect::<Vec<_>>()
    };
    let a = run(7);
    assert_eq!(a, run(7));
    assert_ne!(a, run(8));
}
