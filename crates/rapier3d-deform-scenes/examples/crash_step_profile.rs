//! Steps the crash benchmark's sphere-proxy cars and the static-compound cars of the same spheres side by side, one `#[inline(never)]` function per variant, for `valgrind --tool=callgrind` instruction counts and `perf` profiles of a step.
//!
//! `cargo run --release --example crash_step_profile [steps] [warm_up] [ccd]`: builds the
//! "high" car asset, runs the crash (cars only, 12 m run-up, as `cargo bench --bench scenes --
//! crash`) for `warm_up` steps (default 70: just before the impacts), then `steps` steps
//! (default 60) of each variant in lockstep, each through `step_proxy` /
//! `step_static_compound` / `step_naive_compound`, and prints the wall time per step. With
//! `ccd` every variant keeps Rapier's CCD on (default off, as in the benchmark). Under
//! callgrind:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no \
//!   --toggle-collect='crash_step_profile::step_*' target/release/examples/crash_step_profile 20
//! ```
//!
//! gives each variant's instructions per step as the inclusive cost of its function.

use std::sync::Arc;
use std::time::Instant;

use rapier3d_deform::crash::{DeformableCollider, PlasticAsset};
use rapier3d_deform_scenes::crash::{self, CarCollider, CrashOptions, CrashScene, build_crash};

fn scene(
    asset: &Arc<PlasticAsset>,
    collider: &CarCollider,
    ccd: bool,
    warm_up: usize,
) -> CrashScene {
    let options = CrashOptions {
        barrels: false,
        run_up: 12.0,
        ..CrashOptions::default()
    };
    let mut scene =
        build_crash(asset, None, collider, &options).unwrap_or_else(|e| panic!("crash scene: {e}"));
    if !ccd {
        scene.world.integration_parameters.max_ccd_substeps = 0;
    }
    for _ in 0..warm_up {
        scene.step().unwrap_or_else(|e| panic!("step: {e}"));
    }
    scene
}

#[inline(never)]
fn step_proxy(scene: &mut CrashScene) {
    scene.step().unwrap_or_else(|e| panic!("step: {e}"));
}

#[inline(never)]
fn step_static_compound(scene: &mut CrashScene) {
    scene.step().unwrap_or_else(|e| panic!("step: {e}"));
}

#[inline(never)]
fn step_naive_compound(scene: &mut CrashScene) {
    scene.step().unwrap_or_else(|e| panic!("step: {e}"));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let steps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(60);
    // Steps from launch (12 m run-up at 35 m/s and 240 Hz) to just before the first impacts.
    let warm_up: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(70);
    let ccd = args.next().is_some_and(|s| s == "ccd");
    let asset = Arc::new(
        crash::car_asset("high", None, &mut |_| {}).unwrap_or_else(|e| panic!("car asset: {e}")),
    );
    let mut runs = [
        (
            "proxy",
            scene(
                &asset,
                &CarCollider::Deformable(DeformableCollider::SphereProxy),
                ccd,
                warm_up,
            ),
            step_proxy as fn(&mut CrashScene),
            0.0f64,
        ),
        (
            "static_compound",
            scene(&asset, &CarCollider::StaticCompound, ccd, warm_up),
            step_static_compound,
            0.0,
        ),
        (
            "naive_compound",
            scene(
                &asset,
                &CarCollider::Deformable(DeformableCollider::RebuiltCompound),
                ccd,
                warm_up,
            ),
            step_naive_compound,
            0.0,
        ),
    ];
    for _ in 0..steps {
        for (_, scene, step, total) in &mut runs {
            let t = Instant::now();
            step(scene);
            *total += t.elapsed().as_secs_f64();
        }
    }
    for (name, scene, _, total) in &runs {
        println!(
            "{name}: {:.3} ms/step, {} contact pairs",
            1e3 * total / steps as f64,
            scene.world.narrow_phase.contact_pairs().count()
        );
    }
}
