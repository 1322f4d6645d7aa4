//! Scene `crash_many`: 8, 32 and 128 plastic cars in head-on pairs on a grid, sphere proxies with plasticity against the same spheres as never-updated rigid compounds, CCD off and on; cost per body, overhead and the largest car count a 60 Hz step fits on one core.
//!
//! The layout is `scenes::crash::build_crash_grid`: pairs of cars 3 m (1.5 m with `--quick`)
//! from their crash point, at 35 m/s, lanes 8 m apart. The deformable variant gives every car
//! the high sphere proxy with the crate's `PlasticPipeline` (impulses, plasticity, proxy and
//! mass updates); the rigid variant the same rest spheres as a parry `Compound` that never
//! changes (`CarCollider::StaticCompound`, no plasticity), on the same world. A step's time is
//! Rapier's `step()` plus the pipeline's update.
//!
//! For each round and each car count the four variants (deformable and rigid, CCD off and on)
//! are built side by side and stepped in lockstep, one step each in turn, so machine noise hits
//! them alike; each reports the median over rounds of its mean ms/step, and its min–max.
//! Without `--features parallel` everything runs on the calling thread, so the
//! `max_bodies_at_60hz_one_core_*` figures are one core's only from a build without the feature
//! (with it, Rapier's step uses rayon's global pool).
//!
//! With `--features parallel` (Rapier's `parallel` step, and the pipeline's per-body phase on
//! rayon's threads), `parallel_speedup_128` is the ms/step of the 128-car deformable variant in
//! a one-thread rayon pool over the same in a two-thread pool, stepped in lockstep (median over
//! the rounds); `parallel_speedup_128_rigid` the same for the rigid variant, in the same lockstep:
//! what Rapier's own parallel step gains on this crash with no crate shape.
//!
//! `pipeline_update_share_*` is the deformable variant's time in the pipeline's update over its
//! whole step (Rapier's step plus the update); `parallel_speedup_update_128` the update's own
//! one-thread over two-thread ratio.
//!
//! `max_bodies_at_60hz_one_core_*` is the largest measured car count whose mean step takes at
//! most 16.7 ms; when even the largest count fits, it is extrapolated linearly from that count's
//! ms/step per body (`16.7 / ms_per_step_per_body`), and the note says so.

use super::output::load_average;
use super::runner::{PlotSpec, RunOptions, SceneReport, Section, max_at_60hz, median};
use rapier3d_deform::crash::{DeformableCollider, PlasticAsset};
use rapier3d_deform_scenes::car::CAR_LENGTH;
use rapier3d_deform_scenes::crash::{
    self, CarCollider, CrashGridOptions, CrashScene, DT, build_crash_grid,
};
use std::sync::Arc;
use std::time::Instant;

/// The car counts, in report order.
const COUNTS: [usize; 3] = [8, 32, 128];

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    steps: usize,
    run_up: f32,
    rounds: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                steps: 24,
                run_up: 1.5,
                rounds: 1,
            }
        } else {
            // 0.5 s: the run-up (about 20 steps) and the crash.
            Self {
                steps: 120,
                run_up: 3.0,
                rounds: 3,
            }
        }
    }
}

/// The variants of each car count, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Deformable,
    Rigid,
    DeformableCcd,
    RigidCcd,
}

const VARIANTS: [Variant; 4] = [
    Variant::Deformable,
    Variant::Rigid,
    Variant::DeformableCcd,
    Variant::RigidCcd,
];

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Deformable => "deformable",
            Variant::Rigid => "rigid",
            Variant::DeformableCcd => "deformable_ccd",
            Variant::RigidCcd => "rigid_ccd",
        }
    }

    fn ccd(self) -> bool {
        matches!(self, Variant::DeformableCcd | Variant::RigidCcd)
    }

    fn build(self, asset: &Arc<PlasticAsset>, options: &CrashGridOptions) -> CrashScene {
        let collider = match self {
            Variant::Deformable | Variant::DeformableCcd => {
                CarCollider::Deformable(DeformableCollider::SphereProxy)
            }
            Variant::Rigid | Variant::RigidCcd => CarCollider::StaticCompound,
        };
        let mut scene = build_crash_grid(asset, &collider, options)
            .unwrap_or_else(|e| panic!("{} with {} cars: {e}", self.name(), options.cars));
        if !self.ccd() {
            scene.world.integration_parameters.max_ccd_substeps = 0;
        }
        scene
    }
}

/// What one (car count, variant) measured.
#[derive(Default)]
struct Tally {
    /// Mean ms/step of each round.
    per_round: Vec<f64>,
    /// Mean ms/step of the pipeline's update (part of `per_round`) of each round.
    update_per_round: Vec<f64>,
    /// Per-step ms of round 0.
    frames: Vec<f64>,
    /// Deepest dent (render/cage vertex from rest) over the car length, round 0.
    dent_depth_rel: f64,
    /// Fraction of the cars dented by more than 1 % of the car length, round 0.
    dented_fraction: f64,
}

impl Tally {
    fn median(&self) -> f64 {
        let mut xs = self.per_round.clone();
        median(&mut xs)
    }
    fn min(&self) -> f64 {
        self.per_round.iter().copied().fold(f64::INFINITY, f64::min)
    }
    fn max(&self) -> f64 {
        self.per_round.iter().copied().fold(0.0, f64::max)
    }
    fn update_median(&self) -> f64 {
        let mut xs = self.update_per_round.clone();
        median(&mut xs)
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("crash_many");
    let load_start = load_average();
    let t0 = Instant::now();
    let asset = Arc::new(
        crash::car_asset("high", None, &mut |_| {})
            .unwrap_or_else(|e| panic!("car asset high: {e}")),
    );
    let spheres = asset.proxy().sphere_count();
    eprintln!(
        "  car asset high: {spheres} spheres ({:.1} s)",
        t0.elapsed().as_secs_f64()
    );

    let mut tallies: Vec<Vec<Tally>> = COUNTS
        .iter()
        .map(|_| VARIANTS.iter().map(|_| Tally::default()).collect())
        .collect();
    for round in 0..sizes.rounds {
        for (c, &cars) in COUNTS.iter().enumerate() {
            let grid = CrashGridOptions {
                cars,
                run_up: sizes.run_up,
                ..CrashGridOptions::default()
            };
            let started = Instant::now();
            let mut scenes: Vec<CrashScene> =
                VARIANTS.iter().map(|v| v.build(&asset, &grid)).collect();
            let mut totals = [0.0f64; VARIANTS.len()];
            let mut updates = [0.0f64; VARIANTS.len()];
            for _ in 0..sizes.steps {
                for (k, scene) in scenes.iter_mut().enumerate() {
                    let (step, update) = scene
                        .step_timed()
                        .unwrap_or_else(|e| panic!("pipeline update failed: {e}"));
                    let ms = (step + update).as_secs_f64() * 1e3;
                    totals[k] += ms;
                    updates[k] += update.as_secs_f64() * 1e3;
                    if round == 0 {
                        tallies[c][k].frames.push(ms);
                    }
                }
            }
            for (k, scene) in scenes.iter_mut().enumerate() {
                let t = &mut tallies[c][k];
                t.per_round.push(totals[k] / sizes.steps as f64);
                t.update_per_round.push(updates[k] / sizes.steps as f64);
                if round == 0 {
                    let bodies = scene.cars.clone();
                    let dents: Vec<f32> = bodies
                        .iter()
                        .map(|b| scene.dent_depth(b).unwrap_or(f32::NAN))
                        .collect();
                    t.dent_depth_rel =
                        dents.iter().copied().fold(0.0f32, f32::max) as f64 / CAR_LENGTH as f64;
                    t.dented_fraction = dents.iter().filter(|d| **d > 0.01 * CAR_LENGTH).count()
                        as f64
                        / cars as f64;
                }
            }
            eprintln!(
                "  round {round}, {cars} cars: {} steps × {} variants, {:.1} s",
                sizes.steps,
                VARIANTS.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    #[cfg(feature = "parallel")]
    let parallel = parallel_speedup(&asset, &sizes);
    let load_end = load_average();

    let index = |v: Variant| VARIANTS.iter().position(|x| *x == v).unwrap_or(0);
    for (c, &cars) in COUNTS.iter().enumerate() {
        let t = &tallies[c];
        for v in VARIANTS {
            let tv = &t[index(v)];
            let what = match v {
                Variant::Deformable | Variant::DeformableCcd => {
                    format!("{spheres}-sphere proxies with plasticity")
                }
                Variant::Rigid | Variant::RigidCcd => {
                    format!("{spheres}-ball static compounds, no plasticity")
                }
            };
            report.metric(
                leak(format!("ms_per_step_per_body_{cars}_{}", v.name())),
                tv.median() / cars as f64,
                format!(
                    "{cars} cars, {what}, CCD {}; median of {} round(s) (min–max {:.4}–{:.4})",
                    if v.ccd() { "on" } else { "off" },
                    tv.per_round.len(),
                    tv.min() / cars as f64,
                    tv.max() / cars as f64
                ),
            );
        }
        for (d, r, suffix) in [
            (Variant::Deformable, Variant::Rigid, ""),
            (Variant::DeformableCcd, Variant::RigidCcd, "_ccd"),
        ] {
            report.metric(
                leak(format!("overhead_vs_rigid_{cars}{suffix}")),
                t[index(d)].median() / t[index(r)].median(),
                format!(
                    "{cars} cars: {} / {}, medians of the same rounds (target ≤ 1.2)",
                    d.name(),
                    r.name()
                ),
            );
        }
        let td = &t[index(Variant::Deformable)];
        report.metric(
            leak(format!("pipeline_update_share_{cars}")),
            td.update_median() / td.median(),
            format!(
                "{cars} cars, deformable, CCD off: the pipeline's update ({:.3} ms/step) over the whole step, medians of the same rounds",
                td.update_median()
            ),
        );
        report.metric(
            leak(format!("dent_depth_max_rel_{cars}")),
            td.dent_depth_rel,
            "deformable: deepest dent over the car length (round 0)",
        );
        report.metric(
            leak(format!("dented_cars_fraction_{cars}")),
            td.dented_fraction,
            "deformable: cars dented by more than 1 % of their length (round 0)",
        );
    }
    for v in VARIANTS {
        let per_count: Vec<(usize, f64)> = COUNTS
            .iter()
            .enumerate()
            .map(|(c, &n)| (n, tallies[c][index(v)].median()))
            .collect();
        let (n, extrapolated) = max_at_60hz(&per_count);
        let largest = COUNTS[COUNTS.len() - 1];
        report.metric(
            leak(format!("max_bodies_at_60hz_one_core_{}", v.name())),
            n,
            if extrapolated {
                format!(
                    "extrapolated linearly from ms_per_step_per_body at {largest} cars: one step (dt = 1/{:.0} s) in 16.7 ms",
                    1.0 / DT
                )
            } else {
                format!(
                    "largest measured car count ({COUNTS:?}) whose step (dt = 1/{:.0} s) fits 16.7 ms",
                    1.0 / DT
                )
            },
        );
    }
    #[cfg(feature = "parallel")]
    {
        let [one, two, rigid_one, rigid_two] = parallel;
        let cars = COUNTS[COUNTS.len() - 1];
        for (name, one, two, what) in [
            (
                "parallel_speedup_128",
                &one,
                &two,
                "deformable: Rapier's parallel step and the pipeline's per-body phase",
            ),
            (
                "parallel_speedup_128_rigid",
                &rigid_one,
                &rigid_two,
                "rigid (static compounds, no plasticity): Rapier's own parallel step on the same crash, the reference for the deformable row",
            ),
        ] {
            report.metric(
                name,
                one.median() / two.median(),
                format!(
                    "{cars} cars, {what}, CCD off: ms/step in a 1-thread pool ({:.3}, min–max {:.3}–{:.3}) / in a 2-thread pool ({:.3}, {:.3}–{:.3})",
                    one.median(),
                    one.min(),
                    one.max(),
                    two.median(),
                    two.min(),
                    two.max()
                ),
            );
        }
        report.metric(
            "parallel_speedup_update_128",
            one.update_median() / two.update_median(),
            format!(
                "{cars} cars, deformable, CCD off: the pipeline's update alone, ms/step in a 1-thread pool ({:.3}) / in a 2-thread pool ({:.3})",
                one.update_median(),
                two.update_median()
            ),
        );
    }
    report.metric(
        "steps",
        sizes.steps as f64,
        format!(
            "steps per run, dt = 1/{:.0} s, run-up {} m",
            1.0 / DT,
            sizes.run_up
        ),
    );
    report.metric(
        "load_average_start",
        load_start.unwrap_or(f64::NAN),
        "1-minute load average before the asset build (2 cores; other builds may share them)",
    );
    report.metric(
        "load_average_end",
        load_end.unwrap_or(f64::NAN),
        "1-minute load average after the last round",
    );

    let mut section = Section {
        title: "per-variant round means (ms/step)".to_string(),
        header: [
            "cars", "variant", "rounds", "median", "min", "max", "per body",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows: Vec::new(),
    };
    for (c, &cars) in COUNTS.iter().enumerate() {
        for (k, v) in VARIANTS.iter().enumerate() {
            let t = &tallies[c][k];
            section.rows.push(vec![
                cars.to_string(),
                v.name().to_string(),
                t.per_round.len().to_string(),
                format!("{:.3}", t.median()),
                format!("{:.3}", t.min()),
                format!("{:.3}", t.max()),
                format!("{:.4}", t.median() / cars as f64),
            ]);
        }
    }
    report.sections.push(section);

    report.frames.columns = std::iter::once("step".to_string())
        .chain(
            COUNTS
                .iter()
                .flat_map(|n| VARIANTS.iter().map(move |v| format!("ms_{n}_{}", v.name()))),
        )
        .collect();
    for s in 0..sizes.steps {
        let mut row = vec![s as f64];
        for per_variant in &tallies {
            row.extend(
                per_variant
                    .iter()
                    .map(|t| t.frames.get(s).copied().unwrap_or(f64::NAN)),
            );
        }
        report.frames.rows.push(row);
    }
    report.plot = Some(PlotSpec {
        title: "crash_many: ms per step (head-on pairs, 35 m/s, dt = 1/240 s)".to_string(),
        y_label: "ms per step".to_string(),
        series: (1..=COUNTS.len() * VARIANTS.len()).collect(),
        log_y: true,
    });
    report
}

/// The 128-car deformable and rigid variants (CCD off), each stepped in a one-thread and a
/// two-thread rayon pool, the four in lockstep; their tallies in the order (deformable one
/// thread, two threads, rigid one thread, two threads).
#[cfg(feature = "parallel")]
fn parallel_speedup(asset: &Arc<PlasticAsset>, sizes: &Sizes) -> [Tally; 4] {
    let pools = [super::runner::rayon_pool(1), super::runner::rayon_pool(2)];
    let runs = [
        (Variant::Deformable, 0),
        (Variant::Deformable, 1),
        (Variant::Rigid, 0),
        (Variant::Rigid, 1),
    ];
    let mut tallies: [Tally; 4] = Default::default();
    let cars = COUNTS[COUNTS.len() - 1];
    let grid = CrashGridOptions {
        cars,
        run_up: sizes.run_up,
        ..CrashGridOptions::default()
    };
    for round in 0..sizes.rounds {
        let started = Instant::now();
        let mut scenes: Vec<CrashScene> = runs
            .iter()
            .map(|&(variant, _)| variant.build(asset, &grid))
            .collect();
        let mut totals = [0.0f64; 4];
        let mut updates = [0.0f64; 4];
        for s in 0..sizes.steps {
            for k in 0..scenes.len() {
                let i = (s + k) % scenes.len();
                let scene = &mut scenes[i];
                let (step, update) = pools[runs[i].1].install(|| {
                    scene
                        .step_timed()
                        .unwrap_or_else(|e| panic!("pipeline update failed: {e}"))
                });
                totals[i] += (step + update).as_secs_f64() * 1e3;
                updates[i] += update.as_secs_f64() * 1e3;
            }
        }
        for ((t, total), update) in tallies.iter_mut().zip(totals).zip(updates) {
            t.per_round.push(total / sizes.steps as f64);
            t.update_per_round.push(update / sizes.steps as f64);
        }
        eprintln!(
            "  round {round}, {cars} cars, deformable and rigid, 1 vs 2 threads: {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    tallies
}
