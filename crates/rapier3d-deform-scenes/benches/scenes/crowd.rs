//! Scene `crowd`: 1, 8 and 32 walking Foxes (each one `SkinnedCollider` with `SurfaceVelocityHooks`) under waves of falling balls, against the same crowd as static parry `TriMesh`es of the rest pose; cost per character, overhead and the largest crowd a 60 Hz step fits on one core.
//!
//! Every character is the Khronos Fox (576 triangles, 24 joints) loaded once with
//! `load_gltf_scene`, built once with `SkinnedColliderBuilder::from_scene` (scaled to [`SIZE`] m
//! along its longest axis, on a kinematic body at its grid cell, cells [`SPACING`] m apart) and
//! `SkinnedCollider::instantiate`d N − 1 times (one BN-Tree, clip set and leaf-block table for
//! the crowd, as a game instancing one asset has; each instance has its own pose and caches),
//! playing its Walk clip in place, each with its own phase. Every [`WAVE_EVERY`] steps a
//! wave of [`BALLS_PER_WAVE`] balls falls on each character from above its box; a ball is
//! removed [`BALL_LIFETIME`] steps after it spawned, so about a dozen balls per character are
//! alive at any time.
//!
//! Two variants with the same bodies, stepped in lockstep (one step each in turn, so machine
//! noise hits both alike):
//!
//! * **deformable**: what a game writes with the crate: `SkinnedCollider::pose_clips` (every
//!   character's clip sampled, on rayon's threads with `parallel`),
//!   `SurfaceVelocityHooks::update`, `step_with_events` with the hooks, then
//!   `apply_normal_velocities`;
//! * **rigid**: the same characters as fixed parry `TriMesh`es of their rest pose, one mesh
//!   shared by the crowd's colliders (nothing moves; the balls rest on still meshes and may
//!   sleep).
//!
//! A step's time is everything listed for its variant. Figures are medians over rounds of each
//! variant's mean ms/step, one thread (Rapier without `parallel`). The variants differ in
//! physics too (balls on a walking character bounce and slide, on a still mesh they settle):
//! `contacts_mean_*` gives the contact points per step of each.

use super::output::load_average;
use super::runner::{RunOptions, SceneReport, Section, max_at_60hz, median};
use rapier3d_deform::character::{
    ClipPose, ClipTime, SkinnedCollider, SkinnedColliderBuilder, SurfaceVelocityHooks,
};
use rapier3d_deform::io::{GltfScene, LoadOptions, load_gltf_scene};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle};
use rapier3d_deform::rapier3d::geometry::{ColliderBuilder, SharedShape};
use rapier3d_deform::rapier3d::parry::shape::TriMesh;
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use rapier3d_deform::shape::DeformableMeshShape;
use std::time::Instant;

/// The Fox's longest extent after scaling (m).
const SIZE: f32 = 1.5;

/// Distance between grid cells (m).
const SPACING: f32 = 2.5;

/// A wave of balls falls on each character every this many steps.
const WAVE_EVERY: usize = 20;

/// Balls per character per wave.
const BALLS_PER_WAVE: usize = 4;

/// Steps a ball lives.
const BALL_LIFETIME: usize = 60;

/// Ball radius (m).
const BALL_RADIUS: f32 = 0.05;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    counts: &'static [usize],
    steps: usize,
    rounds: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                counts: &[1, 4],
                steps: 40,
                rounds: 1,
            }
        } else {
            Self {
                counts: &[1, 8, 32],
                steps: 240,
                rounds: 3,
            }
        }
    }
}

/// The two variants, in report order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    Deformable,
    Rigid,
}

const VARIANTS: [Variant; 2] = [Variant::Deformable, Variant::Rigid];

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Deformable => "deformable",
            Variant::Rigid => "rigid",
        }
    }
}

/// One world of the comparison.
struct Crowd {
    variant: Variant,
    world: PhysicsWorld,
    /// The walking characters (deformable variant only).
    characters: Vec<SkinnedCollider>,
    walk: usize,
    hooks: SurfaceVelocityHooks,
    /// Alive balls with their spawn step.
    balls: Vec<(RigidBodyHandle, usize)>,
    /// Per character: its cell centre and its rest box's top (y).
    cells: Vec<(Vec3, f32)>,
    contacts: f64,
}

/// Cell `i` of an `n`-character grid (as square as possible), centred on the origin.
fn cell(i: usize, n: usize) -> Vec3 {
    let side = (n as f32).sqrt().ceil() as usize;
    let (r, c) = (i / side, i % side);
    let half = (side as f32 - 1.0) * 0.5;
    Vec3::new(
        (c as f32 - half) * SPACING,
        0.0,
        (r as f32 - half) * SPACING,
    )
}

/// The Fox's scale factor and its rest box (after scaling, feet on `y = 0` not guaranteed).
fn fox_scale(scene: &GltfScene) -> (f32, Vec3, Vec3) {
    let (lo, hi) = scene
        .mesh
        .positions()
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let s = SIZE / (hi - lo).max_element();
    (s, lo * s, hi * s)
}

impl Crowd {
    fn new(variant: Variant, scene: &GltfScene, n: usize) -> Self {
        let mut world = PhysicsWorld::new();
        world.narrow_phase = DeformDispatcher::narrow_phase();
        let (scale, lo, hi) = fox_scale(scene);
        // Feet on the ground.
        world.insert(
            RigidBodyBuilder::fixed().translation(Vec3::new(0.0, lo.y - 0.5, 0.0)),
            ColliderBuilder::cuboid(SPACING * 20.0, 0.5, SPACING * 20.0),
        );
        let mut characters: Vec<SkinnedCollider> = Vec::new();
        let mut hooks = SurfaceVelocityHooks::new();
        let mut cells = Vec::new();
        let mut walk = 0;
        // The rigid crowd's one rest-pose mesh, shared by every character after the first.
        let mut rigid_shape: Option<SharedShape> = None;
        for i in 0..n {
            let at = cell(i, n);
            let centre = at + Vec3::new(0.5 * (lo.x + hi.x), 0.0, 0.5 * (lo.z + hi.z));
            // Every character after the first is an instance of it: one tree (or one mesh) for
            // the crowd, as a game instancing one asset has.
            let first = match (variant, characters.first(), &rigid_shape) {
                (Variant::Deformable, Some(first), _) => {
                    let c = first
                        .instantiate(
                            &mut world.bodies,
                            &mut world.colliders,
                            RigidBodyBuilder::kinematic_position_based().translation(at),
                        )
                        .unwrap_or_else(|e| panic!("fox {i}: {e}"));
                    hooks
                        .track(&mut world.colliders, c.collider())
                        .unwrap_or_else(|e| panic!("{e}"));
                    characters.push(c);
                    false
                }
                (Variant::Rigid, _, Some(shape)) => {
                    world.insert(
                        RigidBodyBuilder::fixed().translation(at),
                        ColliderBuilder::new(shape.clone()),
                    );
                    false
                }
                _ => true,
            };
            if !first {
                cells.push((centre, hi.y));
                continue;
            }
            let c = SkinnedColliderBuilder::from_scene(scene)
                .and_then(|b| {
                    b.scale(scale)
                        .body(RigidBodyBuilder::kinematic_position_based().translation(at))
                        .build(&mut world)
                })
                .unwrap_or_else(|e| panic!("fox {i}: {e}"));
            walk = c
                .clip_names()
                .position(|name| name == Some("Walk"))
                .unwrap_or(0);
            match variant {
                Variant::Deformable => {
                    hooks
                        .track(&mut world.colliders, c.collider())
                        .unwrap_or_else(|e| panic!("{e}"));
                    characters.push(c);
                }
                Variant::Rigid => {
                    let mut c = c;
                    c.pose_rest(&mut world.colliders)
                        .unwrap_or_else(|e| panic!("{e}"));
                    let shape = world.colliders[c.collider()]
                        .shape()
                        .as_shape::<DeformableMeshShape>()
                        .unwrap_or_else(|| panic!("a deformable mesh"));
                    let rest = TriMesh::new(
                        shape.deformed_vertices(),
                        shape.tree().mesh().triangles().to_vec(),
                    )
                    .unwrap_or_else(|e| panic!("{e:?}"));
                    let w = &mut world;
                    w.bodies.remove(
                        c.body(),
                        &mut w.islands,
                        &mut w.colliders,
                        &mut w.impulse_joints,
                        &mut w.multibody_joints,
                        &mut w.soft_bodies,
                        true,
                    );
                    let shape = SharedShape::new(rest);
                    rigid_shape = Some(shape.clone());
                    w.insert(
                        RigidBodyBuilder::fixed().translation(at),
                        ColliderBuilder::new(shape),
                    );
                }
            }
            cells.push((centre, hi.y));
        }
        Self {
            variant,
            world,
            characters,
            walk,
            hooks,
            balls: Vec::new(),
            cells,
            contacts: 0.0,
        }
    }

    /// Spawns the wave of step `s` and removes expired balls (outside the timed region).
    fn weather(&mut self, s: usize) {
        if s.is_multiple_of(WAVE_EVERY) {
            for (i, &(centre, top)) in self.cells.iter().enumerate() {
                for k in 0..BALLS_PER_WAVE {
                    // A fixed pattern per wave, turned by the wave and the cell.
                    let a = (k as f32 + 0.37 * (s / WAVE_EVERY + i) as f32) * 1.618;
                    let r = 0.15 * SIZE * (0.3 + 0.7 * ((k + 1) as f32 / BALLS_PER_WAVE as f32));
                    let p =
                        centre + Vec3::new(r * a.cos(), top + 0.3 + 0.1 * k as f32, r * a.sin());
                    let (h, _) = self.world.insert(
                        RigidBodyBuilder::dynamic().translation(p),
                        ColliderBuilder::ball(BALL_RADIUS).friction(0.6),
                    );
                    self.balls.push((h, s));
                }
            }
        }
        let w = &mut self.world;
        self.balls.retain(|&(h, born)| {
            if s >= born + BALL_LIFETIME {
                w.bodies.remove(
                    h,
                    &mut w.islands,
                    &mut w.colliders,
                    &mut w.impulse_joints,
                    &mut w.multibody_joints,
                    &mut w.soft_bodies,
                    true,
                );
                false
            } else {
                true
            }
        });
    }

    /// One step of the variant; returns its ms.
    fn step(&mut self, s: usize) -> f64 {
        let t = Instant::now();
        let dt = self.world.integration_parameters.dt;
        match self.variant {
            Variant::Deformable => {
                let walk = self.walk;
                SkinnedCollider::pose_clips(&mut self.characters, &mut self.world.colliders, |i| {
                    ClipPose {
                        clip: walk,
                        t: 0.137 * i as f32 + s as f32 * dt,
                        time: ClipTime::Loop,
                    }
                })
                .unwrap_or_else(|e| panic!("{e}"));
                self.hooks
                    .update(&self.world.colliders, dt)
                    .unwrap_or_else(|e| panic!("{e}"));
                self.world.step_with_events(&self.hooks, &());
                self.hooks.apply_normal_velocities(&mut self.world);
            }
            Variant::Rigid => self.world.step(),
        }
        let ms = t.elapsed().as_secs_f64() * 1e3;
        self.contacts += self
            .world
            .narrow_phase
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .flat_map(|p| p.manifolds())
            .map(|m| m.points.len())
            .sum::<usize>() as f64;
        ms
    }
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("crowd");
    let load_start = load_average();
    let path = rapier3d_deform_scenes::asset_path("skinned/Fox.glb");
    let (scene, _) = load_gltf_scene(&path, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Per count, per variant: mean ms/step of each round, and contacts per step (round 0).
    let mut per_round = vec![[Vec::new(), Vec::new()]; sizes.counts.len()];
    let mut contacts = vec![[0.0f64; 2]; sizes.counts.len()];
    for round in 0..sizes.rounds {
        for (c, &n) in sizes.counts.iter().enumerate() {
            let started = Instant::now();
            let mut crowds: Vec<Crowd> =
                VARIANTS.iter().map(|&v| Crowd::new(v, &scene, n)).collect();
            let mut totals = [0.0f64; 2];
            for s in 0..sizes.steps {
                for crowd in &mut crowds {
                    crowd.weather(s);
                }
                for k in 0..crowds.len() {
                    let i = (s + k) % crowds.len();
                    totals[i] += crowds[i].step(s);
                }
            }
            for (i, crowd) in crowds.iter().enumerate() {
                per_round[c][i].push(totals[i] / sizes.steps as f64);
                if round == 0 {
                    contacts[c][i] = crowd.contacts / sizes.steps as f64;
                }
            }
            eprintln!(
                "  round {round}, {n} characters: {} steps × 2 variants, {:.1} s",
                sizes.steps,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let load_end = load_average();
    let mut medians = vec![[0.0f64; 2]; sizes.counts.len()];
    let mut section = Section {
        title: "crowd: ms per step (median of rounds, min–max)".into(),
        header: [
            "characters",
            "deformable",
            "rigid",
            "overhead",
            "contacts deformable",
            "contacts rigid",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (c, &n) in sizes.counts.iter().enumerate() {
        for (i, v) in VARIANTS.iter().enumerate() {
            let xs = &per_round[c][i];
            let med = median(&mut xs.clone());
            medians[c][i] = med;
            let (lo, hi) = xs
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            report.metric(
                leak(format!("ms_per_step_per_body_{n}_{}", v.name())),
                med / n as f64,
                format!(
                    "{n} Foxes, {}; median of {} round(s) (min–max {:.4}–{:.4})",
                    match v {
                        Variant::Deformable =>
                            "SkinnedCollider walking + SurfaceVelocityHooks (pose, hooks, step)",
                        Variant::Rigid => "static TriMesh of the rest pose (step)",
                    },
                    xs.len(),
                    lo / n as f64,
                    hi / n as f64
                ),
            );
            report.metric(
                leak(format!("contacts_mean_{n}_{}", v.name())),
                contacts[c][i],
                "contact points per step (round 0)",
            );
        }
        report.metric(
            leak(format!("overhead_vs_rigid_{n}")),
            medians[c][0] / medians[c][1],
            format!("{n} Foxes: deformable / rigid, medians of the same rounds (target ≤ 1.2)"),
        );
        section.rows.push(vec![
            n.to_string(),
            format!("{:.3}", medians[c][0]),
            format!("{:.3}", medians[c][1]),
            format!("{:.2}", medians[c][0] / medians[c][1]),
            format!("{:.0}", contacts[c][0]),
            format!("{:.0}", contacts[c][1]),
        ]);
    }
    for (i, v) in VARIANTS.iter().enumerate() {
        let per_count: Vec<(usize, f64)> = sizes
            .counts
            .iter()
            .enumerate()
            .map(|(c, &n)| (n, medians[c][i]))
            .collect();
        let (n, extrapolated) = max_at_60hz(&per_count);
        report.metric(
            leak(format!("max_bodies_at_60hz_one_core_{}", v.name())),
            n,
            if extrapolated {
                format!(
                    "extrapolated linearly from ms_per_step_per_body at {} characters",
                    sizes.counts[sizes.counts.len() - 1]
                )
            } else {
                format!(
                    "largest measured count ({:?}) whose step fits 16.7 ms",
                    sizes.counts
                )
            },
        );
    }
    #[cfg(feature = "parallel")]
    {
        let n = sizes.counts[sizes.counts.len() - 1];
        let [one, two, rigid_one, rigid_two] = parallel_speedup(&scene, n, &sizes);
        let stats = |xs: &[f64]| {
            let (lo, hi) = xs
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            (median(&mut xs.to_vec()), lo, hi)
        };
        for (suffix, one, two, what) in [
            (
                "",
                &one,
                &two,
                "deformable: Rapier's parallel step, posing by `SkinnedCollider::pose_clips` (target ≥ 1.6)",
            ),
            (
                "_rigid",
                &rigid_one,
                &rigid_two,
                "rigid (fixed `TriMesh`es, no crate shape): Rapier's own parallel step on the same world, the reference for the deformable row",
            ),
        ] {
            let (m1, lo1, hi1) = stats(one);
            let (m2, lo2, hi2) = stats(two);
            report.metric(
                leak(format!("parallel_speedup_{n}{suffix}")),
                m1 / m2,
                format!(
                    "{n} Foxes, {what}: ms/step in a 1-thread pool ({m1:.3}, min–max {lo1:.3}–{hi1:.3}) / in a 2-thread pool ({m2:.3}, {lo2:.3}–{hi2:.3}), lockstep"
                ),
            );
        }
    }
    report.metric(
        "steps",
        sizes.steps as f64,
        format!(
            "steps per run, a wave of {BALLS_PER_WAVE} balls per character every {WAVE_EVERY} steps, each alive {BALL_LIFETIME} steps"
        ),
    );
    report.metric(
        "load_average_start",
        load_start.unwrap_or(f64::NAN),
        "1-minute load average before the first build (2 cores; other builds may share them)",
    );
    report.metric(
        "load_average_end",
        load_end.unwrap_or(f64::NAN),
        "1-minute load average after the last round",
    );
    report.sections.push(section);
    report
}

/// The `n`-Fox crowd, deformable and rigid, each stepped in a one-thread and a two-thread rayon
/// pool, the four in lockstep; each one's mean ms/step per round, in the order (deformable one
/// thread, two threads, rigid one thread, two threads). Both pools of a variant must end in the
/// same state (a parallel step is deterministic): positions and velocities of every ball are
/// compared.
#[cfg(feature = "parallel")]
fn parallel_speedup(scene: &GltfScene, n: usize, sizes: &Sizes) -> [Vec<f64>; 4] {
    let pools = [super::runner::rayon_pool(1), super::runner::rayon_pool(2)];
    let runs = [
        (Variant::Deformable, 0),
        (Variant::Deformable, 1),
        (Variant::Rigid, 0),
        (Variant::Rigid, 1),
    ];
    let mut per_round: [Vec<f64>; 4] = Default::default();
    for round in 0..sizes.rounds {
        let started = Instant::now();
        let mut crowds: Vec<Crowd> = runs
            .iter()
            .map(|&(variant, _)| Crowd::new(variant, scene, n))
            .collect();
        let mut totals = [0.0f64; 4];
        for s in 0..sizes.steps {
            for k in 0..crowds.len() {
                let i = (s + k) % crowds.len();
                crowds[i].weather(s);
                let crowd = &mut crowds[i];
                totals[i] += pools[runs[i].1].install(|| crowd.step(s));
            }
        }
        let state = |c: &Crowd| -> Vec<[f32; 6]> {
            c.balls
                .iter()
                .map(|&(h, _)| {
                    let b = &c.world.bodies[h];
                    let (p, v) = (b.translation(), b.linvel());
                    [p.x, p.y, p.z, v.x, v.y, v.z]
                })
                .collect()
        };
        for pair in [0, 2] {
            assert_eq!(
                state(&crowds[pair]),
                state(&crowds[pair + 1]),
                "crowd of {n} ({}): one and two threads must end in the same state",
                runs[pair].0.name()
            );
        }
        for (r, t) in per_round.iter_mut().zip(totals) {
            r.push(t / sizes.steps as f64);
        }
        eprintln!(
            "  round {round}, {n} characters, deformable and rigid, 1 vs 2 threads: {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    per_round
}

/// A metric name (the runner wants `'static` names; a bench process runs once).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}
