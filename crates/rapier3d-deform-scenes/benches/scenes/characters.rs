//! Scene `characters`: every glTF asset under `assets/` loaded whole as one `SkinnedCollider`, played (its first clip, looping) under a rain of balls with `SurfaceVelocityHooks`; per asset the load time, the pose cost, contacts against a parry `TriMesh` of the same posed vertices, balls found inside the mesh, and the step cost against the same rain on a static `TriMesh` of the rest pose.
//!
//! Per asset (metric names end in `_<asset>`):
//!
//! * `load_ms`: file to collider in a world (`load_gltf_scene`, `SkinnedColliderBuilder::from_scene`,
//!   `build`), median of the builds.
//! * `pose_us_per_step`: `SkinnedCollider::pose_clip` plus `SurfaceVelocityHooks::update`, median
//!   over the steps (O(bones + morph targets), no vertex deformed).
//! * `contacts_match_trimesh`: 1 when, at every sampled step, the crate's dispatcher on the posed
//!   `DeformableMeshShape` and parry's on a `TriMesh` of the same posed vertices give every ball
//!   the same number of contact points and the same deepest penetration (1e-4 m), else 0.
//! * `balls_passed_through`: balls found inside the posed mesh (ray parity, closed meshes only;
//!   `-1` for an open mesh) at any sampled step.
//! * `step_cost_vs_static_trimesh`: mean ms per step of the character world (pose, hooks update,
//!   step, normal velocities) over the same rain on a fixed parry `TriMesh` of the rest pose;
//!   `step_cost_vs_static_trimesh_without_hooks` the same for the posed character without
//!   `SurfaceVelocityHooks` (whose `MODIFY_SOLVER_CONTACTS` flag keeps the character's pairs out
//!   of Rapier's contact recycling).
//! * `step_cost_vs_kinematic_trimesh`: the same over the rest-pose `TriMesh` on a kinematic
//!   body that never moves (report): the body type a character has, whose contacts Rapier's
//!   solver handles at a higher cost than contacts with a fixed body.
//! * `step_cost_swept_vs_static_trimesh`, `balls_passed_through_swept`: the hooked character
//!   built with `SkinnedColliderBuilder::swept_contacts` (closed skins;
//!   `NaN` / `-1` elsewhere), same rain.
//! * `balls_touching`: balls that had an active contact with the character (the rain hit it).
//! * `awake_balls_character`, `awake_balls_static_trimesh`: mean dynamic bodies awake per step
//!   in the hooked world and on the static `TriMesh` (balls resting on a fixed mesh fall asleep;
//!   on a moving skin they stay awake and are simulated every step).
//!
//! Every asset is scaled so its rest pose's largest extent is 2 m and stands on a ground plane.
//!
//! `pose_us_per_step_fox_x1`, `_x4`, `_x16`: the Fox as one `SkinnedCollider` Loop-subdivided 0, 1
//! and 2 times (576, 2,304 and 9,216 triangles, the same 24-joint rig), median µs of
//! `SkinnedCollider::pose_bones` over its Run clip; `pose_cost_ratio_x16_vs_x1` should stay near 1
//! (O(bones) posing, no vertex deformed).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::runner::{RunOptions, SceneReport, Section, median};
use rapier3d_deform::character::{
    ClipTime, SkinnedCollider, SkinnedColliderBuilder, SurfaceVelocityHooks,
};
use rapier3d_deform::io::{LoadOptions, load_gltf_scene};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle};
use rapier3d_deform::rapier3d::geometry::{ColliderBuilder, ColliderHandle, SharedShape};
use rapier3d_deform::rapier3d::math::{Pose, Vector};
use rapier3d_deform::rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d_deform::rapier3d::parry::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use rapier3d_deform::rapier3d::parry::shape::{Shape, TriMesh};
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform_scenes::ray_parity::{TILTED_DIRECTIONS, odd_crossings};

/// The largest extent of every asset's rest pose after scaling (m).
const SIZE: f32 = 2.0;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    steps: usize,
    balls_per_side: usize,
    builds: usize,
    /// A contact comparison every this many steps.
    sample_every: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                steps: 60,
                balls_per_side: 4,
                builds: 1,
                sample_every: 20,
            }
        } else {
            Self {
                steps: 300,
                balls_per_side: 8,
                builds: 5,
                sample_every: 10,
            }
        }
    }
}

/// Every `.gltf` / `.glb` file under `assets/`, sorted.
fn assets() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("gltf" | "glb")) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&rapier3d_deform_scenes::asset_path(""), &mut out);
    out.sort();
    out
}

fn world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    world
}

/// The asset loaded and built in `world` with `scale` (with swept contacts when `swept`).
fn build(
    path: &Path,
    world: &mut PhysicsWorld,
    scale: f32,
    swept: bool,
) -> Result<SkinnedCollider, String> {
    let (scene, _) = load_gltf_scene(path, &LoadOptions::default()).map_err(|e| e.to_string())?;
    SkinnedColliderBuilder::from_scene(&scene)
        .and_then(|b| b.scale(scale).swept_contacts(swept).build(world))
        .map_err(|e| e.to_string())
}

/// Poses `c` at step `k` of its first clip (its rest pose without clips).
fn pose_at(
    c: &mut SkinnedCollider,
    world: &mut PhysicsWorld,
    clips: usize,
    k: usize,
    dt: f32,
) -> Result<(), String> {
    if clips > 0 {
        c.pose_clip(&mut world.colliders, 0, k as f32 * dt, ClipTime::Loop)
    } else {
        c.pose_rest(&mut world.colliders)
    }
    .map_err(|e| e.to_string())
}

fn shape_of<'a>(world: &'a PhysicsWorld, c: &SkinnedCollider) -> &'a DeformableMeshShape {
    world.colliders[c.collider()]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .expect("a deformable mesh")
}

/// The rest pose's box at scale 1, or why the asset does not load as a collider.
fn rest_box(path: &Path) -> Result<(Vec3, Vec3), String> {
    let mut w = world();
    let mut c = build(path, &mut w, 1.0, false)?;
    c.pose_rest(&mut w.colliders).map_err(|e| e.to_string())?;
    Ok(shape_of(&w, &c)
        .deformed_vertices()
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p))))
}

/// Whether every edge of the mesh has exactly two triangles (ray parity is meaningful).
fn closed(triangles: &[[u32; 3]]) -> bool {
    let mut edges = std::collections::HashMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0u32) += 1;
        }
    }
    edges.values().all(|&n| n == 2)
}

/// Ray parity: an odd number of surface crossings along a fixed, slightly tilted direction.
fn inside_closed(shape: &dyn Shape, pose: &Pose, point: Vec3) -> bool {
    let local = pose.inverse_transform_point(point);
    if !shape.compute_local_aabb().contains_local_point(local) {
        return false;
    }
    odd_crossings(shape, local, TILTED_DIRECTIONS[0].normalize())
}

/// Contact points and deepest penetration of each ball against the character, by the crate's
/// dispatcher on the posed shape and parry's on a `TriMesh` of the same posed vertices. Returns
/// whether they agree for every ball.
fn contacts_match(world: &PhysicsWorld, c: &SkinnedCollider, balls: &[ColliderHandle]) -> bool {
    let prediction = world.integration_parameters.prediction_distance();
    let shape = shape_of(world, c);
    let Ok(trimesh) = TriMesh::new(
        shape.deformed_vertices(),
        shape.tree().mesh().triangles().to_vec(),
    ) else {
        return false;
    };
    let mesh_pose = *world.colliders[c.collider()].position();
    let aabb = world.colliders[c.collider()].compute_aabb();
    // Per-triangle points, as the `TriMesh` reports them (merging coincident points is checked
    // against parry by the `mesh_collider::queries` tests).
    let per_triangle = shape.clone().with_contact_points_per_triangle();
    let shapes: [&dyn Shape; 2] = [&per_triangle, &trimesh];
    let dispatchers: [&dyn PersistentQueryDispatcher<(), ()>; 2] =
        [&DeformDispatcher, &DefaultQueryDispatcher];
    for &b in balls {
        let co = &world.colliders[b];
        if !co.compute_aabb().loosened(prediction).intersects(&aabb) {
            continue;
        }
        let pos12 = mesh_pose.inv_mul(co.position());
        let mut found = [(0usize, 0.0f32); 2];
        for (k, (d, s)) in dispatchers.iter().zip(shapes).enumerate() {
            let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
            let mut workspace = None;
            let _ = d.contact_manifolds(
                &pos12,
                s,
                co.shape(),
                prediction,
                &mut manifolds,
                &mut workspace,
            );
            for m in &manifolds {
                found[k].0 += m.points.len();
                for p in &m.points {
                    found[k].1 = found[k].1.max(-p.dist);
                }
            }
        }
        if found[0].0 != found[1].0 || (found[0].1 - found[1].1).abs() > 1e-4 {
            return false;
        }
    }
    true
}

/// What one asset measured.
struct Measured {
    name: String,
    triangles: usize,
    load_ms: f64,
    pose_us: f64,
    contacts_match: bool,
    passed_through: Option<usize>,
    passed_through_unhooked: Option<usize>,
    /// With swept contacts (`None`: the skin does not allow them).
    passed_through_swept: Option<usize>,
    ms_swept: Option<f64>,
    ms_character: f64,
    ms_static: f64,
    /// Mean ms per step of the same rain on the rest-pose `TriMesh` on a kinematic body that
    /// never moves.
    ms_kinematic: f64,
    ms_unhooked: f64,
    touched: usize,
    /// Mean awake balls per step: with the hooked character, on the static `TriMesh`.
    awake: (f64, f64),
}

/// Dynamic bodies of `world` that are not asleep.
fn awake_bodies(world: &PhysicsWorld) -> usize {
    world
        .bodies
        .iter()
        .filter(|(_, b)| b.is_dynamic() && !b.is_sleeping())
        .count()
}

/// The balls of the rain over `(lo, hi)` (the scaled rest box), `n × n` of them at two heights.
fn rain(
    world: &mut PhysicsWorld,
    lo: Vec3,
    hi: Vec3,
    n: usize,
) -> Vec<(RigidBodyHandle, ColliderHandle)> {
    let radius = 0.04 * SIZE;
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let fx = (i as f32 + 0.5) / n as f32;
            let fz = (j as f32 + 0.5) / n as f32;
            let x = lo.x + (hi.x - lo.x) * fx;
            let z = lo.z + (hi.z - lo.z) * fz;
            let y = hi.y + 2.0 * radius + 0.5 * radius * ((i + j) % 2) as f32;
            out.push(world.insert(
                RigidBodyBuilder::dynamic().translation(Vector::new(x, y, z)),
                ColliderBuilder::ball(radius),
            ));
        }
    }
    out
}

fn ground(world: &mut PhysicsWorld, y: f32) {
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, y - 0.5, 0.0)),
        ColliderBuilder::cuboid(20.0, 0.5, 20.0),
    );
}

fn measure(path: &Path, sizes: &Sizes) -> Result<Measured, String> {
    let (lo, hi) = rest_box(path)?;
    let extent = (hi - lo).max_element();
    if !(extent.is_finite() && extent > 0.0) {
        return Err("empty rest pose".into());
    }
    let scale = SIZE / extent;
    let (lo, hi) = (lo * scale, hi * scale);

    // Load: file to collider, median of the builds.
    let mut load = Vec::new();
    let mut built = None;
    for _ in 0..sizes.builds {
        let mut w = world();
        let t = Instant::now();
        let c = build(path, &mut w, scale, false)?;
        load.push(t.elapsed().as_secs_f64() * 1e3);
        built = Some((w, c));
    }
    let (mut w, mut c) = built.ok_or("no build")?;
    ground(&mut w, lo.y);
    let triangles = shape_of(&w, &c).triangle_count();
    let is_closed = closed(shape_of(&w, &c).tree().mesh().triangles());

    // The same character and rain without the hooks (contacts recycled, no surface velocity).
    let mut u = world();
    let mut cu = build(path, &mut u, scale, false)?;
    ground(&mut u, lo.y);
    // The same hooked character with swept contacts, where the skin allows them (closed, no
    // morph targets).
    let mut v = world();
    let mut swept = build(path, &mut v, scale, true).ok();
    ground(&mut v, lo.y);
    let mut swept_hooks = SurfaceVelocityHooks::new();
    if let Some(cs) = &swept {
        swept_hooks
            .track(&mut v.colliders, cs.collider())
            .map_err(|e| e.to_string())?;
    }
    // The same rain on a fixed TriMesh of the rest pose.
    let mut s = world();
    c.pose_rest(&mut w.colliders).map_err(|e| e.to_string())?;
    let rest = TriMesh::new(
        shape_of(&w, &c).deformed_vertices(),
        shape_of(&w, &c).tree().mesh().triangles().to_vec(),
    )
    .map_err(|e| e.to_string())?;
    let rest_kinematic = rest.clone();
    s.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::new(SharedShape::new(rest)),
    );
    ground(&mut s, lo.y);
    // The same fixed TriMesh on a kinematic body that never moves: what holding the character
    // rigid costs on the body type a character has (Rapier's solver treats contacts with a
    // kinematic body differently from contacts with a fixed one).
    let mut kin = world();
    kin.insert(
        RigidBodyBuilder::kinematic_position_based(),
        ColliderBuilder::new(SharedShape::new(rest_kinematic)),
    );
    ground(&mut kin, lo.y);
    let balls = rain(&mut w, lo, hi, sizes.balls_per_side);
    rain(&mut s, lo, hi, sizes.balls_per_side);
    rain(&mut kin, lo, hi, sizes.balls_per_side);
    let balls_unhooked = rain(&mut u, lo, hi, sizes.balls_per_side);
    let balls_swept = rain(&mut v, lo, hi, sizes.balls_per_side);
    let ball_colliders: Vec<ColliderHandle> = balls.iter().map(|b| b.1).collect();

    let mut hooks = SurfaceVelocityHooks::new();
    hooks
        .track(&mut w.colliders, c.collider())
        .map_err(|e| e.to_string())?;
    let dt = w.integration_parameters.dt;
    let clips = c.clip_names().count();
    let (mut pose_us, mut ms_character, mut ms_static) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ms_unhooked, mut ms_swept, mut ms_kinematic) = (Vec::new(), Vec::new(), Vec::new());
    let mut touched = vec![false; balls.len()];
    let mut contacts_ok = true;
    let mut inside = vec![false; balls.len()];
    let mut inside_unhooked = vec![false; balls.len()];
    let mut inside_swept = vec![false; balls.len()];
    let mut awake = (0usize, 0usize);
    for k in 1..=sizes.steps {
        let t0 = Instant::now();
        pose_at(&mut c, &mut w, clips, k, dt)?;
        hooks.update(&w.colliders, dt).map_err(|e| e.to_string())?;
        let posed = t0.elapsed().as_secs_f64();
        w.step_with_events(&hooks, &());
        hooks.apply_normal_velocities(&mut w);
        ms_character.push(t0.elapsed().as_secs_f64() * 1e3);
        pose_us.push(posed * 1e6);
        let t1 = Instant::now();
        s.step();
        ms_static.push(t1.elapsed().as_secs_f64() * 1e3);
        let t4 = Instant::now();
        kin.step();
        ms_kinematic.push(t4.elapsed().as_secs_f64() * 1e3);
        let t2 = Instant::now();
        pose_at(&mut cu, &mut u, clips, k, dt)?;
        u.step();
        ms_unhooked.push(t2.elapsed().as_secs_f64() * 1e3);
        if let Some(cs) = &mut swept {
            let t3 = Instant::now();
            pose_at(cs, &mut v, clips, k, dt)?;
            swept_hooks
                .update(&v.colliders, dt)
                .map_err(|e| e.to_string())?;
            v.step_with_events(&swept_hooks, &());
            swept_hooks.apply_normal_velocities(&mut v);
            ms_swept.push(t3.elapsed().as_secs_f64() * 1e3);
        }
        awake.0 += awake_bodies(&w);
        awake.1 += awake_bodies(&s);
        for pair in w.narrow_phase.contact_pairs_with(c.collider()) {
            if pair.has_any_active_contact() {
                for (i, &(_, b)) in balls.iter().enumerate() {
                    touched[i] |= pair.collider1 == b || pair.collider2 == b;
                }
            }
        }
        if k % sizes.sample_every == 0 {
            contacts_ok &= contacts_match(&w, &c, &ball_colliders);
            if is_closed {
                let co = &w.colliders[c.collider()];
                for (i, &(b, _)) in balls.iter().enumerate() {
                    inside[i] |=
                        inside_closed(co.shape(), co.position(), w.bodies[b].translation());
                }
                let co = &u.colliders[cu.collider()];
                for (i, &(b, _)) in balls_unhooked.iter().enumerate() {
                    inside_unhooked[i] |=
                        inside_closed(co.shape(), co.position(), u.bodies[b].translation());
                }
                if let Some(cs) = &swept {
                    let co = &v.colliders[cs.collider()];
                    for (i, &(b, _)) in balls_swept.iter().enumerate() {
                        inside_swept[i] |=
                            inside_closed(co.shape(), co.position(), v.bodies[b].translation());
                    }
                }
            }
        }
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    Ok(Measured {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default(),
        triangles,
        load_ms: median(&mut load),
        pose_us: median(&mut pose_us),
        contacts_match: contacts_ok,
        passed_through: is_closed.then(|| inside.iter().filter(|&&x| x).count()),
        passed_through_unhooked: is_closed.then(|| inside_unhooked.iter().filter(|&&x| x).count()),
        passed_through_swept: swept
            .is_some()
            .then(|| inside_swept.iter().filter(|&&x| x).count()),
        ms_swept: swept.is_some().then(|| mean(&ms_swept)),
        ms_character: mean(&ms_character),
        ms_static: mean(&ms_static),
        ms_kinematic: mean(&ms_kinematic),
        ms_unhooked: mean(&ms_unhooked),
        touched: touched.iter().filter(|&&x| x).count(),
        awake: (
            awake.0 as f64 / sizes.steps.max(1) as f64,
            awake.1 as f64 / sizes.steps.max(1) as f64,
        ),
    })
}

/// A metric name with the asset's name appended (the runner wants `'static` names; a bench
/// process runs once).
fn named(base: &str, asset: &str) -> &'static str {
    let asset: String = asset
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    Box::leak(format!("{base}_{asset}").into_boxed_str())
}

pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("characters");
    let mut section = Section {
        title: "characters: one SkinnedCollider per asset under a rain of balls".into(),
        header: [
            "asset",
            "triangles",
            "load ms",
            "pose µs",
            "contacts = TriMesh",
            "inside",
            "inside without hooks",
            "ms/step",
            "static TriMesh ms/step",
            "ratio",
            "ratio without hooks",
            "ratio swept",
            "inside swept",
            "balls touching",
            "awake balls (character / static)",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for path in assets() {
        let m = match measure(&path, &sizes) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("  {}: skipped ({e})", path.display());
                continue;
            }
        };
        let ratio = m.ms_character / m.ms_static.max(1e-9);
        eprintln!("  {}: {} triangles, ratio {ratio:.2}", m.name, m.triangles);
        report.metric(
            named("load_ms", &m.name),
            m.load_ms,
            format!("{} triangles", m.triangles),
        );
        report.metric(
            named("pose_us_per_step", &m.name),
            m.pose_us,
            "pose_clip + hooks.update",
        );
        report.metric(
            named("contacts_match_trimesh", &m.name),
            f64::from(u8::from(m.contacts_match)),
            "1: same points and deepest penetration as parry's TriMesh at every sampled step",
        );
        report.metric(
            named("balls_passed_through", &m.name),
            m.passed_through.map_or(-1.0, |n| n as f64),
            "balls found inside the posed mesh (-1: open mesh, not checked)",
        );
        report.metric(
            named("step_cost_vs_static_trimesh", &m.name),
            ratio,
            format!("{:.3} ms vs {:.3} ms", m.ms_character, m.ms_static),
        );
        report.metric(
            named("step_cost_vs_kinematic_trimesh", &m.name),
            m.ms_character / m.ms_kinematic.max(1e-9),
            format!(
                "{:.3} ms vs {:.3} ms: the rest-pose TriMesh on a kinematic body that never moves (report)",
                m.ms_character, m.ms_kinematic
            ),
        );
        report.metric(
            named("step_cost_vs_static_trimesh_without_hooks", &m.name),
            m.ms_unhooked / m.ms_static.max(1e-9),
            format!("{:.3} ms: posed, no SurfaceVelocityHooks", m.ms_unhooked),
        );
        report.metric(
            named("balls_passed_through_without_hooks", &m.name),
            m.passed_through_unhooked.map_or(-1.0, |n| n as f64),
            "the same, posed without SurfaceVelocityHooks",
        );
        report.metric(
            named("step_cost_swept_vs_static_trimesh", &m.name),
            m.ms_swept.map_or(f64::NAN, |ms| ms / m.ms_static.max(1e-9)),
            match m.ms_swept {
                Some(ms) => format!("{ms:.3} ms: hooked, with swept contacts"),
                None => "not measured: swept contacts need a closed skin".into(),
            },
        );
        report.metric(
            named("balls_passed_through_swept", &m.name),
            m.passed_through_swept.map_or(-1.0, |n| n as f64),
            "the same, hooked, with swept contacts (-1: not allowed on this skin)",
        );
        report.metric(
            named("balls_touching", &m.name),
            m.touched as f64,
            "balls that touched the character",
        );
        section.rows.push(vec![
            m.name.clone(),
            m.triangles.to_string(),
            format!("{:.2}", m.load_ms),
            format!("{:.1}", m.pose_us),
            m.contacts_match.to_string(),
            m.passed_through.map_or("open".into(), |n| n.to_string()),
            m.passed_through_unhooked
                .map_or("open".into(), |n| n.to_string()),
            format!("{:.3}", m.ms_character),
            format!("{:.3}", m.ms_static),
            format!("{ratio:.2}"),
            format!("{:.2}", m.ms_unhooked / m.ms_static.max(1e-9)),
            m.ms_swept.map_or("—".into(), |ms| {
                format!("{:.2}", ms / m.ms_static.max(1e-9))
            }),
            m.passed_through_swept.map_or("—".into(), |n| n.to_string()),
            m.touched.to_string(),
            format!("{:.1} / {:.1}", m.awake.0, m.awake.1),
        ]);
    }
    let flat = pose_cost_by_subdivision(if options.quick { 40 } else { 400 });
    for (name, (triangles, us)) in [
        "pose_us_per_step_fox_x1",
        "pose_us_per_step_fox_x4",
        "pose_us_per_step_fox_x16",
    ]
    .into_iter()
    .zip(&flat)
    {
        report.metric(name, *us, format!("{triangles} triangles, pose_bones"));
    }
    report.metric(
        "pose_cost_ratio_x16_vs_x1",
        flat[2].1 / flat[0].1.max(1e-9),
        "target: flat (O(bones))",
    );
    report.metric("steps", sizes.steps as f64, "");
    report.metric(
        "balls",
        (sizes.balls_per_side * sizes.balls_per_side) as f64,
        "per asset",
    );
    report.sections.push(section);
    report
}

/// The Fox Loop-subdivided 0, 1 and 2 times as one `SkinnedCollider`: (triangles, median µs of
/// `pose_bones`) over `calls` calls cycling through 30 frames of its Run clip.
fn pose_cost_by_subdivision(calls: usize) -> Vec<(usize, f64)> {
    (0..3)
        .map(|level| {
            let fox = rapier3d_deform_scenes::fox::SubdividedFox::load(
                rapier3d_deform_scenes::asset_path("skinned/Fox.glb"),
                level,
            )
            .unwrap_or_else(|e| panic!("loading the Fox failed: {e}"));
            let clip = fox
                .clip("Run")
                .unwrap_or_else(|| panic!("Fox.glb has no Run clip"))
                .clone();
            let frames: Vec<_> = (0..30)
                .map(|k| {
                    let t = clip.duration() * k as f32 / 30.0;
                    fox.asset()
                        .skeleton
                        .world_transforms(&clip, clip.looped_time(t))
                })
                .collect();
            let mut world = PhysicsWorld::new();
            world.narrow_phase = DeformDispatcher::narrow_phase();
            let mut collider =
                SkinnedColliderBuilder::new(fox.mesh().clone(), fox.skinning().clone())
                    .and_then(|b| b.build(&mut world))
                    .unwrap_or_else(|e| panic!("{e}"));
            let mut times: Vec<f64> = (0..calls)
                .map(|k| {
                    let start = Instant::now();
                    collider
                        .pose_bones(&mut world.colliders, &frames[k % frames.len()])
                        .unwrap_or_else(|e| panic!("{e}"));
                    start.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            (fox.mesh().triangle_count(), median(&mut times))
        })
        .collect()
}
