//! Scenes `crash` and `crash_mesh`: eight cars crash at 35 m/s with example-based plasticity; sphere proxies against a static compound, a compound rebuilt every step, deforming triangle meshes and Rapier's own soft bodies (`crash`), and BN-Tree mesh colliders against the proxy and the deforming triangle mesh (`crash_mesh`).
//!
//! Every variant runs the same crash (the car layout of `scenes::crash` with a shorter run-up,
//! cars only) with the same plasticity model, except the static compound (no plasticity: the
//! floor a deforming proxy cannot beat) and the soft bodies (Rapier's own plasticity). All the
//! variants of a round live side by side and are stepped in lockstep, one step each in turn, so
//! machine noise hits them alike; the cheap variants run several rounds and report the median
//! of their mean ms/step, the triangle meshes (`TriMesh` and BN-Tree alike) fewer rounds, the
//! soft bodies one.
//!
//! CCD is off in every variant but the `*_ccd` ones, and every ratio compares variants with
//! the same CCD setting (reported both ways): Rapier sweeps a body moving more than half its
//! `ccd_thickness` per step, which is a compound's smallest ball (the compound and naive cars
//! are swept at every step) but a sphere proxy's largest (never, at 35 m/s and 240 Hz), so
//! with CCD on the compounds pay Rapier's sweeps and the proxies do not. `proxy_high_ccd`,
//! `static_compound_high_ccd` and `naive_compound_high_ccd` keep Rapier's CCD on
//! (`DeformDispatcher` installed, as in the crash scene).
//!
//! A step's time is Rapier's `step()` plus the pipeline's update (impulses, plasticity, shape
//! and mass updates) — everything a game pays per frame for the bodies. Penetration is measured
//! outside the timed region every few steps, over the car length: `max_penetration_rel_*` is the
//! deepest overlap of two cars' colliders (`r_a + r_b − |c_a − c_b|` over their spheres; for
//! triangle meshes and soft bodies the deepest vertex of one surface inside another), and
//! `max_mesh_overlap_rel_*` the deepest overlap of the visible surfaces of sphere-collider cars
//! (their cages blended with the current weights), which adds the proxy's fit error.
//!
//! `crash_mesh` runs the same crash with `DeformableCollider::Mesh` cars: a
//! `DeformableMeshShape` of the car rigged like the cage (seven examples × 32 bones), whose
//! vertices are re-weighted only where the cage's example weights change (a dent), with the
//! self-intersection guard on; at the 14k tessellation of the `TriMesh` variant and at the
//! render mesh's (`CarOptions::FULL`). With `--quick` every mesh is small (1.5k and 3.5k
//! triangles).

use super::runner::{PlotSpec, RunOptions, SceneReport, Section, median};
use rapier3d_deform::crash::{DeformableCollider, PlasticAsset, StepStats};
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::rapier3d::dynamics::{SoftBodyBuilder, SoftBodyHandle, SoftBodyMaterial};
use rapier3d_deform::rapier3d::math::Pose;
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::car::{CAR_LENGTH, CarOptions};
use rapier3d_deform_scenes::crash::{
    self, CAR_MASS, CarCollider, CrashOptions, CrashScene, DT, bound_car_mesh, build_crash,
    car_example_mesh, car_launches, deepest_overlap,
};
use std::sync::Arc;
use std::time::Instant;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    /// Steps per run.
    steps: usize,
    /// Run-up of the cars (m).
    run_up: f32,
    /// Rounds of the cheap variants (proxies, compounds).
    rounds: usize,
    /// Rounds of the triangle-mesh variants (`TriMesh` and BN-Tree meshes).
    rounds_meshes: usize,
    /// Penetration measured every this many steps.
    penetration_every: usize,
    /// Tessellation of the `TriMesh` 14k and BN-Tree `mesh_14k` variants.
    large: CarOptions,
    /// Tessellation of the `mesh_render` variant.
    render: CarOptions,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                steps: 72,
                run_up: 4.0,
                rounds: 1,
                rounds_meshes: 1,
                penetration_every: 6,
                large: SMALL,
                render: CarOptions::COARSE,
            }
        } else {
            Self {
                steps: 240,
                run_up: 12.0,
                rounds: 5,
                rounds_meshes: 2,
                penetration_every: 4,
                large: LARGE,
                render: CarOptions::FULL,
            }
        }
    }
}

/// The variants, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    ProxyLow,
    ProxyMid,
    ProxyHigh,
    ProxyHighCcd,
    StaticCompoundHigh,
    StaticCompoundHighCcd,
    NaiveCompoundHigh,
    NaiveCompoundHighCcd,
    TriMesh1k5,
    TriMesh14k,
    SoftBody,
    /// BN-Tree `DeformableMeshShape` of the car at the 14k tessellation (scene `crash_mesh`).
    Mesh14k,
    /// BN-Tree `DeformableMeshShape` of the car render mesh (`CarOptions::FULL`).
    MeshRender,
    /// `Mesh14k` with the self-intersection guard off (what the guard costs).
    Mesh14kUnguarded,
}

/// The variants of scene `crash_mesh`, in report order.
const MESH_VARIANTS: [Variant; 5] = [
    Variant::ProxyHigh,
    Variant::TriMesh14k,
    Variant::Mesh14k,
    Variant::MeshRender,
    Variant::Mesh14kUnguarded,
];

const VARIANTS: [Variant; 11] = [
    Variant::ProxyLow,
    Variant::ProxyMid,
    Variant::ProxyHigh,
    Variant::ProxyHighCcd,
    Variant::StaticCompoundHigh,
    Variant::StaticCompoundHighCcd,
    Variant::NaiveCompoundHigh,
    Variant::NaiveCompoundHighCcd,
    Variant::TriMesh1k5,
    Variant::TriMesh14k,
    Variant::SoftBody,
];

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::ProxyLow => "proxy_low",
            Variant::ProxyMid => "proxy_mid",
            Variant::ProxyHigh => "proxy_high",
            Variant::ProxyHighCcd => "proxy_high_ccd",
            Variant::StaticCompoundHigh => "static_compound_high",
            Variant::StaticCompoundHighCcd => "static_compound_high_ccd",
            Variant::NaiveCompoundHigh => "naive_compound_high",
            Variant::NaiveCompoundHighCcd => "naive_compound_high_ccd",
            Variant::TriMesh1k5 => "trimesh_1k5",
            Variant::TriMesh14k => "trimesh_14k",
            Variant::SoftBody => "softbody",
            Variant::Mesh14k => "mesh_14k",
            Variant::MeshRender => "mesh_render",
            Variant::Mesh14kUnguarded => "mesh_14k_unguarded",
        }
    }

    /// Does it keep Rapier's CCD on?
    fn ccd(self) -> bool {
        matches!(
            self,
            Variant::ProxyHighCcd | Variant::StaticCompoundHighCcd | Variant::NaiveCompoundHighCcd
        )
    }

    /// Does it run in round `r`?
    fn in_round(self, r: usize, sizes: &Sizes) -> bool {
        match self {
            Variant::SoftBody => r == 0,
            // The 14k `TriMesh` steps in the rounds of the BN-Tree meshes it is compared with
            // (`speedup_mesh_14k_vs_trimesh_14k`), interleaved with them.
            Variant::TriMesh14k
            | Variant::TriMesh1k5
            | Variant::Mesh14k
            | Variant::MeshRender
            | Variant::Mesh14kUnguarded => r < sizes.rounds_meshes,
            _ => true,
        }
    }
}

/// The car's shared inputs (only those the chosen variants need are built).
struct Assets {
    low: Option<Arc<PlasticAsset>>,
    mid: Option<Arc<PlasticAsset>>,
    high: Arc<PlasticAsset>,
    trimesh_small: Option<(DeformableCollider, usize)>,
    trimesh_large: Option<(DeformableCollider, usize)>,
    mesh_14k: Option<(DeformableCollider, usize)>,
    mesh_render: Option<(DeformableCollider, usize)>,
}

/// The 14k-triangle tessellation of the `TriMesh` and BN-Tree mesh variants (2 · rings ·
/// segments triangles, rings = stations + 8).
const LARGE: CarOptions = CarOptions {
    stations: 80,
    segments: 80,
};

/// The 1.5k-triangle tessellation (`trimesh_1k5`; the large variants with `--quick`).
const SMALL: CarOptions = CarOptions {
    stations: 17,
    segments: 30,
};

fn build_assets(variants: &[Variant], sizes: &Sizes) -> Assets {
    let asset = |res: &str| {
        let t = Instant::now();
        let a = crash::car_asset(res, None, &mut |_| {})
            .unwrap_or_else(|e| panic!("car asset {res}: {e}"));
        eprintln!(
            "  car asset {res}: {} spheres on a {}-vertex cage ({:.1} s)",
            a.proxy().sphere_count(),
            a.cage().vertex_count(),
            t.elapsed().as_secs_f64()
        );
        Arc::new(a)
    };
    let needs = |v: Variant| {
        variants.contains(&v)
            || (v == Variant::Mesh14k && variants.contains(&Variant::Mesh14kUnguarded))
    };
    let high = asset("high");
    let trimesh = |options: CarOptions| {
        let m = bound_car_mesh(&high, options).unwrap_or_else(|e| panic!("{e}"));
        let n = m.mesh().triangle_count();
        (DeformableCollider::TriMesh(Arc::new(m)), n)
    };
    let mesh = |options: CarOptions| {
        let t = Instant::now();
        let m = car_example_mesh(&high, options).unwrap_or_else(|e| panic!("{e}"));
        let n = m.tree().mesh().triangle_count();
        eprintln!(
            "  BN-Tree car mesh: {n} triangles, {} nodes, {} with O(m) data ({:.1} s)",
            m.tree().nodes().len(),
            m.tree().governor_bounded_nodes(),
            t.elapsed().as_secs_f64()
        );
        (DeformableCollider::Mesh(Arc::new(m)), n)
    };
    Assets {
        low: needs(Variant::ProxyLow).then(|| asset("low")),
        mid: needs(Variant::ProxyMid).then(|| asset("mid")),
        trimesh_small: needs(Variant::TriMesh1k5).then(|| trimesh(SMALL)),
        trimesh_large: needs(Variant::TriMesh14k).then(|| trimesh(sizes.large)),
        mesh_14k: needs(Variant::Mesh14k).then(|| mesh(sizes.large)),
        mesh_render: needs(Variant::MeshRender).then(|| mesh(sizes.render)),
        high,
    }
}

/// A running variant.
enum Run {
    Scene(Box<CrashScene>),
    Soft {
        world: Box<PhysicsWorld>,
        /// Each car and its boundary triangles (the tet fill differs with the car's heading).
        bodies: Vec<(SoftBodyHandle, Vec<[u32; 3]>)>,
    },
}

/// Soft-body cars: the plastic cage filled with tetrahedra of 0.5 m (about 360 particles and
/// 1,240 cells per car), Rapier's default volume cells and edges with plastic flow (edge yield 2 %,
/// creep 60/s), the car's mass and launch. The cheapest sensible setting: corotational cells
/// (needed for cell plasticity) cost about 1.6× more, 0.35 m cells about 2.5× more.
fn soft_crash(cage: &TriangleMesh, options: &CrashOptions) -> Run {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = DT;
    world.integration_parameters.max_ccd_substeps = 0;
    crash::insert_ground(&mut world);
    let material = SoftBodyMaterial {
        edge_plastic_yield: 0.02,
        edge_plastic_creep: 60.0,
        ..SoftBodyMaterial::default()
    };
    let mut bodies = Vec::new();
    for launch in car_launches(options.seed, options.speed, options.run_up)
        .into_iter()
        .take(options.cars)
    {
        let rotation = Quat::from_rotation_y(launch.yaw);
        let pose = Pose::from_parts(launch.position, rotation);
        let positions: Vec<Vec3> = cage.positions().iter().map(|p| pose * *p).collect();
        let builder = SoftBodyBuilder::volumetric(&positions, cage.triangles(), 0.5)
            .unwrap_or_else(|| panic!("the car cage could not be tetrahedralised"))
            .mass(CAR_MASS)
            .material(material);
        let handle = world.insert_soft_body(builder);
        let velocity = rotation * Vec3::X * launch.speed;
        if let Some(body) = world.soft_bodies.get_mut(handle) {
            for i in 0..body.num_particles() {
                body.set_particle_velocity(i, velocity);
            }
            bodies.push((handle, body.boundary().to_vec()));
        }
    }
    Run::Soft {
        world: Box::new(world),
        bodies,
    }
}

impl Run {
    fn new(variant: Variant, assets: &Assets, options: &CrashOptions) -> Self {
        let proxy = CarCollider::Deformable(DeformableCollider::SphereProxy);
        let of = |a: &Option<(DeformableCollider, usize)>| {
            CarCollider::Deformable(a.as_ref().expect("asset built for the variant").0.clone())
        };
        let expect = |a: &Option<Arc<PlasticAsset>>| a.clone().expect("asset built");
        let (asset, collider) = match variant {
            Variant::ProxyLow => (expect(&assets.low), proxy),
            Variant::ProxyMid => (expect(&assets.mid), proxy),
            Variant::ProxyHigh | Variant::ProxyHighCcd => (assets.high.clone(), proxy),
            Variant::StaticCompoundHigh | Variant::StaticCompoundHighCcd => {
                (assets.high.clone(), CarCollider::StaticCompound)
            }
            Variant::NaiveCompoundHigh | Variant::NaiveCompoundHighCcd => (
                assets.high.clone(),
                CarCollider::Deformable(DeformableCollider::RebuiltCompound),
            ),
            Variant::TriMesh1k5 => (assets.high.clone(), of(&assets.trimesh_small)),
            Variant::TriMesh14k => (assets.high.clone(), of(&assets.trimesh_large)),
            Variant::Mesh14k | Variant::Mesh14kUnguarded => {
                (assets.high.clone(), of(&assets.mesh_14k))
            }
            Variant::MeshRender => (assets.high.clone(), of(&assets.mesh_render)),
            Variant::SoftBody => return soft_crash(assets.high.cage(), options),
        };
        let mut options = *options;
        if variant == Variant::Mesh14kUnguarded {
            options.pipeline.self_intersection_guard = false;
        }
        let mut scene = build_crash(&asset, None, &collider, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", variant.name()));
        if !variant.ccd() {
            scene.world.integration_parameters.max_ccd_substeps = 0;
        }
        Run::Scene(Box::new(scene))
    }

    /// One step; returns its wall time in ms and the pipeline's statistics of the step.
    fn step(&mut self) -> (f64, StepStats) {
        let t = Instant::now();
        let stats = match self {
            Run::Scene(scene) => {
                scene
                    .step()
                    .unwrap_or_else(|e| panic!("pipeline update failed: {e}"));
                scene.pipeline.stats()
            }
            Run::Soft { world, .. } => {
                world.step();
                StepStats::default()
            }
        };
        (t.elapsed().as_secs_f64() * 1e3, stats)
    }

    /// Self-intersecting triangle pairs of the mesh colliders (BN-Tree variants), summed over
    /// the cars (brute-force oracle); `None` for other colliders.
    fn mesh_self_intersections(&self) -> Option<usize> {
        let Run::Scene(scene) = self else { return None };
        let mut total = 0;
        for b in &scene.cars {
            let shape = scene
                .world
                .colliders
                .get(b.collider)?
                .shape()
                .as_shape::<DeformableMeshShape>()?;
            total += self_collisions_brute_force(shape.tree().mesh(), &shape.deformed_vertices())
                .map_or(0, |p| p.len());
        }
        Some(total)
    }

    /// The world surfaces of the cars (for the visual overlap); static cars use `rest_cage`.
    fn surfaces(&mut self, rest_cage: &TriangleMesh) -> Vec<(Vec<Vec3>, TriangleMesh)> {
        match self {
            Run::Scene(scene) => {
                let cars = scene.cars.clone();
                cars.iter()
                    .filter_map(|b| {
                        let pose = *scene.world.bodies.get(b.rigid_body)?.position();
                        let co = scene.world.colliders.get(b.collider)?;
                        let (positions, mesh) =
                            if let Some(shape) = co.shape().as_shape::<DeformableMeshShape>() {
                                (shape.deformed_vertices(), shape.tree().mesh().clone())
                            } else if let Some(trimesh) = co.shape().as_trimesh() {
                                let mesh = TriangleMesh::new(
                                    trimesh.vertices().to_vec(),
                                    trimesh.indices().to_vec(),
                                )
                                .ok()?;
                                (trimesh.vertices().to_vec(), mesh)
                            } else {
                                match b.deformable {
                                    Some(h) => {
                                        let mut p = Vec::new();
                                        scene.pipeline.cage_positions(h, &mut p).ok()?;
                                        (p, scene.pipeline.asset(h).ok()?.cage().clone())
                                    }
                                    None => (rest_cage.positions().to_vec(), rest_cage.clone()),
                                }
                            };
                        Some((positions.iter().map(|p| pose * *p).collect(), mesh))
                    })
                    .collect()
            }
            Run::Soft { world, bodies } => bodies
                .iter()
                .filter_map(|(h, triangles)| {
                    let body = world.soft_bodies.get(*h)?;
                    let positions: Vec<Vec3> = body.particle_positions().collect();
                    let mesh = TriangleMesh::new(positions.clone(), triangles.clone()).ok()?;
                    Some((positions, mesh))
                })
                .collect(),
        }
    }

    /// The collision spheres of the cars (world frame), `None` for mesh and soft-body cars.
    fn spheres(&self, rest: &PlasticAsset) -> Option<Vec<Vec<(Vec3, f32)>>> {
        let Run::Scene(scene) = self else { return None };
        scene
            .cars
            .iter()
            .map(|b| {
                let pose = *scene.world.bodies.get(b.rigid_body)?.position();
                let co = scene.world.colliders.get(b.collider)?;
                if co.shape().as_trimesh().is_some()
                    || co.shape().as_shape::<DeformableMeshShape>().is_some()
                {
                    return None;
                }
                let (centres, radii): (Vec<Vec3>, Vec<f32>) = match b.deformable {
                    Some(h) => {
                        let (c, r) = scene.pipeline.collider_spheres(h).ok()?;
                        (c.to_vec(), r.to_vec())
                    }
                    None => (
                        rest.proxy().example_centres(0).to_vec(),
                        rest.proxy().example_radii(0).to_vec(),
                    ),
                };
                Some(
                    centres
                        .iter()
                        .zip(radii)
                        .map(|(c, r)| (pose * *c, r))
                        .collect(),
                )
            })
            .collect()
    }

    /// The deepest overlap of the cars' colliders (length unit): sphere against sphere for
    /// sphere colliders, surface against surface otherwise.
    fn collider_overlap(&mut self, rest: &PlasticAsset) -> f32 {
        if let Some(cars) = self.spheres(rest) {
            return deepest_sphere_overlap(&cars);
        }
        let surfaces = self.surfaces(rest.cage());
        let refs: Vec<(Vec<Vec3>, &TriangleMesh)> =
            surfaces.iter().map(|(p, m)| (p.clone(), m)).collect();
        deepest_overlap(&refs).unwrap_or(f32::NAN)
    }

    fn energy(&self) -> f64 {
        match self {
            Run::Scene(scene) => scene.mechanical_energy(),
            Run::Soft { .. } => f64::NAN,
        }
    }
}

/// The deepest overlap `r_a + r_b − |c_a − c_b|` between spheres of different cars (brute force
/// over the pairs of cars whose boxes overlap).
fn deepest_sphere_overlap(cars: &[Vec<(Vec3, f32)>]) -> f32 {
    let boxes: Vec<(Vec3, Vec3)> = cars
        .iter()
        .map(|s| {
            s.iter().fold((Vec3::MAX, Vec3::MIN), |(a, b), (c, r)| {
                (a.min(*c - Vec3::splat(*r)), b.max(*c + Vec3::splat(*r)))
            })
        })
        .collect();
    let mut deepest = 0.0f32;
    for a in 0..cars.len() {
        for b in a + 1..cars.len() {
            if boxes[a]
                .0
                .max(boxes[b].0)
                .cmpgt(boxes[a].1.min(boxes[b].1))
                .any()
            {
                continue;
            }
            for (ca, ra) in &cars[a] {
                for (cb, rb) in &cars[b] {
                    deepest = deepest.max(ra + rb - (*ca - *cb).length());
                }
            }
        }
    }
    deepest
}

/// What one variant measured over its rounds.
#[derive(Default)]
struct Tally {
    /// Mean ms/step of each round.
    per_round: Vec<f64>,
    /// Per-step ms of round 0.
    frames: Vec<f64>,
    /// Deepest collider overlap over the car length.
    penetration_rel: f64,
    /// Deepest overlap of the visible surfaces (cages) over the car length.
    mesh_overlap_rel: f64,
    energy_start: f64,
    energy_end: f64,
    dent_depth: f64,
    /// Self-intersecting triangle pairs of mesh colliders (summed over cars) at the start and
    /// at the end of round 0; `None` for other colliders.
    self_intersections_start: Option<usize>,
    self_intersections_end: Option<usize>,
    /// Pipeline statistics summed over round 0.
    self_intersections_prevented: usize,
    weight_changes_undone: usize,
    mesh_vertices_updated: usize,
}

/// Runs `variants` side by side (see the module documentation) and returns their tallies, in
/// the order of `variants`.
fn simulate(
    variants: &[Variant],
    assets: &Assets,
    sizes: &Sizes,
    crash_options: &CrashOptions,
) -> Vec<Tally> {
    let mut tallies: Vec<Tally> = variants.iter().map(|_| Tally::default()).collect();
    for round in 0..sizes.rounds.max(sizes.rounds_meshes).max(1) {
        let active: Vec<usize> = (0..variants.len())
            .filter(|&i| variants[i].in_round(round, sizes))
            .collect();
        let mut runs: Vec<(usize, Run)> = active
            .iter()
            .map(|&i| (i, Run::new(variants[i], assets, crash_options)))
            .collect();
        let mut totals = vec![0.0f64; runs.len()];
        for (i, run) in &runs {
            tallies[*i].energy_start = run.energy();
            if round == 0 {
                tallies[*i].self_intersections_start = run.mesh_self_intersections();
            }
        }
        let started = Instant::now();
        for step in 0..sizes.steps {
            for (k, (i, run)) in runs.iter_mut().enumerate() {
                let (ms, stats) = run.step();
                totals[k] += ms;
                if round == 0 {
                    let t = &mut tallies[*i];
                    t.frames.push(ms);
                    t.self_intersections_prevented += stats.self_intersections_prevented;
                    t.weight_changes_undone += stats.weight_changes_undone;
                    t.mesh_vertices_updated += stats.mesh_vertices_updated;
                }
            }
            if round == 0 && (step + 1) % sizes.penetration_every == 0 {
                for (i, run) in runs.iter_mut() {
                    let collider = run.collider_overlap(&assets.high) as f64 / CAR_LENGTH as f64;
                    let surfaces = run.surfaces(assets.high.cage());
                    let refs: Vec<(Vec<Vec3>, &TriangleMesh)> =
                        surfaces.iter().map(|(p, m)| (p.clone(), m)).collect();
                    let mesh =
                        deepest_overlap(&refs).unwrap_or(f32::NAN) as f64 / CAR_LENGTH as f64;
                    let t = &mut tallies[*i];
                    t.penetration_rel = t.penetration_rel.max(collider);
                    t.mesh_overlap_rel = t.mesh_overlap_rel.max(mesh);
                }
            }
        }
        for (k, (i, run)) in runs.iter_mut().enumerate() {
            tallies[*i].per_round.push(totals[k] / sizes.steps as f64);
            if round == 0 {
                tallies[*i].energy_end = run.energy();
                tallies[*i].self_intersections_end = run.mesh_self_intersections();
                if let Run::Scene(scene) = run {
                    let cars = scene.cars.clone();
                    let mut deepest = 0.0f32;
                    for b in &cars {
                        deepest = deepest.max(scene.dent_depth(b).unwrap_or(0.0));
                    }
                    tallies[*i].dent_depth = deepest as f64;
                }
            }
        }
        eprintln!(
            "  round {round}: {} variants, {} steps, {:.1} s",
            runs.len(),
            sizes.steps,
            started.elapsed().as_secs_f64()
        );
    }
    tallies
}

/// The crash options of the benchmark (cars only, the run-up of `sizes`).
fn bench_crash_options(sizes: &Sizes) -> CrashOptions {
    CrashOptions {
        barrels: false,
        run_up: sizes.run_up,
        ..CrashOptions::default()
    }
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("crash");
    let t0 = Instant::now();
    let assets = build_assets(&VARIANTS, &sizes);
    let triangles = |a: &Option<(DeformableCollider, usize)>| a.as_ref().map_or(0, |x| x.1);
    let (trimesh_small_triangles, trimesh_large_triangles) = (
        triangles(&assets.trimesh_small),
        triangles(&assets.trimesh_large),
    );
    eprintln!(
        "  triangle meshes: {trimesh_small_triangles} and {trimesh_large_triangles} triangles; assets built in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let tallies = simulate(&VARIANTS, &assets, &sizes, &bench_crash_options(&sizes));
    let ms = |v: Variant| {
        let i = VARIANTS.iter().position(|x| *x == v).unwrap_or(0);
        let mut xs = tallies[i].per_round.clone();
        median(&mut xs)
    };
    let tally = |v: Variant| &tallies[VARIANTS.iter().position(|x| *x == v).unwrap_or(0)];
    let high = assets.high.proxy().sphere_count();
    let notes = [
        (
            Variant::ProxyLow,
            "ms_per_step_proxy_low",
            format!(
                "{} spheres per car",
                assets.low.as_ref().map_or(0, |a| a.proxy().sphere_count())
            ),
        ),
        (
            Variant::ProxyMid,
            "ms_per_step_proxy_mid",
            format!(
                "{} spheres per car",
                assets.mid.as_ref().map_or(0, |a| a.proxy().sphere_count())
            ),
        ),
        (
            Variant::ProxyHigh,
            "ms_per_step_proxy_high",
            format!("{high} spheres per car"),
        ),
        (
            Variant::ProxyHighCcd,
            "ms_per_step_proxy_high_ccd",
            format!("{high} spheres per car, CCD on"),
        ),
        (
            Variant::StaticCompoundHigh,
            "ms_per_step_static_compound_high",
            format!("{high} balls, parry Compound never updated, no plasticity"),
        ),
        (
            Variant::StaticCompoundHighCcd,
            "ms_per_step_static_compound_high_ccd",
            format!("{high} balls, parry Compound never updated, no plasticity, CCD on"),
        ),
        (
            Variant::NaiveCompoundHigh,
            "ms_per_step_naive_compound_high",
            format!("{high} balls, Compound rebuilt with set_shape every step"),
        ),
        (
            Variant::NaiveCompoundHighCcd,
            "ms_per_step_naive_compound_high_ccd",
            format!("{high} balls, Compound rebuilt with set_shape every step, CCD on"),
        ),
        (
            Variant::TriMesh1k5,
            "ms_per_step_trimesh_1k5",
            format!(
                "{}-triangle DEFORMABLE TriMesh, set_vertices every step",
                trimesh_small_triangles
            ),
        ),
        (
            Variant::TriMesh14k,
            "ms_per_step_trimesh_14k",
            format!(
                "{}-triangle DEFORMABLE TriMesh, set_vertices every step",
                trimesh_large_triangles
            ),
        ),
        (
            Variant::SoftBody,
            "ms_per_step_softbody",
            "Rapier soft bodies (tet-filled cage, 0.5 m cells, volume cells, plastic edges)"
                .to_string(),
        ),
    ];
    for (v, name, note) in &notes {
        report.metric(
            name,
            ms(*v),
            format!("{note}; median of {} round(s)", tally(*v).per_round.len()),
        );
    }
    let ratio = |a: f64, b: f64| a / b;
    report.metric(
        "overhead_vs_static_high",
        ratio(ms(Variant::ProxyHigh), ms(Variant::StaticCompoundHigh)),
        "proxy_high / static_compound_high, CCD off (target ≤ 1.1)",
    );
    report.metric(
        "overhead_vs_static_high_ccd",
        ratio(ms(Variant::ProxyHighCcd), ms(Variant::StaticCompoundHighCcd)),
        "proxy_high_ccd / static_compound_high_ccd, CCD on (the compound is swept every step, the proxy never)",
    );
    report.metric(
        "ccd_overhead_proxy_high",
        ratio(ms(Variant::ProxyHighCcd), ms(Variant::ProxyHigh)),
        "proxy_high_ccd / proxy_high: Rapier's CCD with DeformDispatcher (cars 15 cm per step, under half their 0.45 m thickness: never swept)",
    );
    report.metric(
        "speedup_high_vs_naive_compound",
        ratio(ms(Variant::NaiveCompoundHigh), ms(Variant::ProxyHigh)),
        "naive_compound_high / proxy_high, CCD off (target ≥ 2.5)",
    );
    report.metric(
        "speedup_high_vs_naive_compound_ccd",
        ratio(ms(Variant::NaiveCompoundHighCcd), ms(Variant::ProxyHighCcd)),
        "naive_compound_high_ccd / proxy_high_ccd, CCD on",
    );
    report.metric(
        "speedup_proxy_low_vs_trimesh_14k",
        ratio(ms(Variant::TriMesh14k), ms(Variant::ProxyLow)),
        "trimesh_14k / proxy_low (target ≥ 200)",
    );
    report.metric(
        "speedup_proxy_high_vs_trimesh_14k",
        ratio(ms(Variant::TriMesh14k), ms(Variant::ProxyHigh)),
        "trimesh_14k / proxy_high (target ≥ 50)",
    );
    report.metric(
        "speedup_proxy_high_vs_softbody",
        ratio(ms(Variant::SoftBody), ms(Variant::ProxyHigh)),
        "softbody / proxy_high (target ≥ 20)",
    );
    let penetration_names = [
        (Variant::ProxyLow, "max_penetration_rel_proxy_low"),
        (Variant::ProxyMid, "max_penetration_rel_proxy_mid"),
        (Variant::ProxyHigh, "max_penetration_rel_proxy_high"),
        (
            Variant::StaticCompoundHigh,
            "max_penetration_rel_static_compound_high",
        ),
        (
            Variant::NaiveCompoundHigh,
            "max_penetration_rel_naive_compound_high",
        ),
        (Variant::TriMesh1k5, "max_penetration_rel_trimesh_1k5"),
        (Variant::TriMesh14k, "max_penetration_rel_trimesh_14k"),
        (Variant::SoftBody, "max_penetration_rel_softbody"),
    ];
    for (v, name) in penetration_names {
        report.metric(
            name,
            tally(v).penetration_rel,
            "deepest car–car overlap of the colliders (spheres, meshes, soft surfaces) over the car length (round 0)",
        );
    }
    let mesh_names = [
        (Variant::ProxyLow, "max_mesh_overlap_rel_proxy_low"),
        (Variant::ProxyMid, "max_mesh_overlap_rel_proxy_mid"),
        (Variant::ProxyHigh, "max_mesh_overlap_rel_proxy_high"),
        (
            Variant::StaticCompoundHigh,
            "max_mesh_overlap_rel_static_compound_high",
        ),
        (
            Variant::NaiveCompoundHigh,
            "max_mesh_overlap_rel_naive_compound_high",
        ),
    ];
    for (v, name) in mesh_names {
        report.metric(
            name,
            tally(v).mesh_overlap_rel,
            "deepest overlap of the visible surfaces (blended cages) over the car length: collider overlap plus the proxy's fit error",
        );
    }
    report.metric(
        "dent_depth_max_rel",
        tally(Variant::ProxyHigh).dent_depth / CAR_LENGTH as f64,
        "proxy_high: largest cage-vertex displacement from rest over the car length (target ≥ 0.03)",
    );
    let t = tally(Variant::ProxyHigh);
    report.metric(
        "energy_absorbed_fraction",
        1.0 - t.energy_end / t.energy_start,
        "proxy_high: 1 − mechanical energy after / before (crash, friction, plastic restitution)",
    );
    report.metric(
        "steps",
        sizes.steps as f64,
        format!("steps per run, dt = 1/{:.0} s", 1.0 / DT),
    );

    let mut section = Section {
        title: "per-variant round means (ms/step)".to_string(),
        header: vec![
            "variant".to_string(),
            "rounds".to_string(),
            "median".to_string(),
            "min".to_string(),
            "max".to_string(),
        ],
        rows: Vec::new(),
    };
    for (i, v) in VARIANTS.iter().enumerate() {
        let xs = &tallies[i].per_round;
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(0.0, f64::max);
        section.rows.push(vec![
            v.name().to_string(),
            xs.len().to_string(),
            format!("{:.3}", ms(*v)),
            format!("{lo:.3}"),
            format!("{hi:.3}"),
        ]);
    }
    report.sections.push(section);

    per_step_frames(&mut report, "crash", &VARIANTS, &tallies, sizes.steps);
    report
}

/// The per-step CSV (one `ms_<variant>` column per variant) and its log-scale chart.
fn per_step_frames(
    report: &mut SceneReport,
    scene: &str,
    variants: &[Variant],
    tallies: &[Tally],
    steps: usize,
) {
    report.frames.columns = std::iter::once("step".to_string())
        .chain(variants.iter().map(|v| format!("ms_{}", v.name())))
        .collect();
    for s in 0..steps {
        let mut row = vec![s as f64];
        row.extend(
            tallies
                .iter()
                .map(|t| t.frames.get(s).copied().unwrap_or(f64::NAN)),
        );
        report.frames.rows.push(row);
    }
    report.plot = Some(PlotSpec {
        title: format!("{scene}: ms per step (8 cars, 35 m/s, dt = 1/240 s)"),
        y_label: "ms per step".to_string(),
        series: (1..=variants.len()).collect(),
        log_y: true,
    });
}

/// Does the crate's dispatcher give contacts between two `DeformableMeshShape`s (car against
/// car)? Probed on two copies of `collider`'s mesh, half a car length apart.
fn mesh_vs_mesh_supported(collider: &DeformableCollider) -> bool {
    use rapier3d_deform::query::DeformDispatcher;
    use rapier3d_deform::rapier3d::parry::query::{ContactManifold, PersistentQueryDispatcher};
    let DeformableCollider::Mesh(mesh) = collider else {
        return false;
    };
    let Ok(shape) = mesh.shape() else {
        return false;
    };
    let pos12 = Pose::from_translation(Vec3::new(0.5 * CAR_LENGTH, 0.0, 0.0));
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    let mut workspace = None;
    DeformDispatcher
        .contact_manifolds(&pos12, &shape, &shape, 0.01, &mut manifolds, &mut workspace)
        .is_ok()
        && manifolds.iter().any(|m| !m.points.is_empty())
}

/// Scene `crash_mesh`: the crash with BN-Tree `DeformableMeshShape`s of the car (example-blend
/// rig, plasticity from the same cage, self-intersection guard on) as colliders, next to the
/// sphere proxy (high) and the deforming 14k-triangle `TriMesh`.
///
/// Car against ground uses the crate's mesh-vs-convex contacts (the ground is a cuboid). Car
/// against car needs mesh-vs-mesh contacts in the dispatcher: `mesh_vs_mesh_supported` reports
/// whether this build has them (without them the mesh cars pass through each other, and their
/// dent and penetration figures mean nothing).
pub fn run_mesh(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("crash_mesh");
    let t0 = Instant::now();
    let assets = build_assets(&MESH_VARIANTS, &sizes);
    eprintln!("  assets built in {:.1} s", t0.elapsed().as_secs_f64());
    let supported = assets
        .mesh_14k
        .as_ref()
        .is_some_and(|(c, _)| mesh_vs_mesh_supported(c));
    eprintln!(
        "  mesh-vs-mesh contacts: {}",
        if supported { "yes" } else { "NO" }
    );
    let tallies = simulate(
        &MESH_VARIANTS,
        &assets,
        &sizes,
        &bench_crash_options(&sizes),
    );
    let index = |v: Variant| MESH_VARIANTS.iter().position(|x| *x == v).unwrap_or(0);
    let ms = |v: Variant| {
        let mut xs = tallies[index(v)].per_round.clone();
        median(&mut xs)
    };
    let triangles = |a: &Option<(DeformableCollider, usize)>| a.as_ref().map_or(0, |x| x.1);
    let (t14, tr) = (triangles(&assets.mesh_14k), triangles(&assets.mesh_render));
    report.metric(
        "mesh_vs_mesh_supported",
        supported as u8 as f64,
        "1 when the dispatcher has DeformableMeshShape–DeformableMeshShape contacts (car against car)",
    );
    let names = [
        (
            Variant::ProxyHigh,
            "ms_per_step_proxy_high",
            format!("{} spheres per car", assets.high.proxy().sphere_count()),
        ),
        (
            Variant::TriMesh14k,
            "ms_per_step_trimesh_14k",
            format!(
                "{}-triangle DEFORMABLE TriMesh, set_vertices every step",
                triangles(&assets.trimesh_large)
            ),
        ),
        (
            Variant::Mesh14k,
            "ms_per_step_mesh_14k",
            format!("{t14}-triangle BN-Tree DeformableMeshShape, re-weighted where it dents"),
        ),
        (
            Variant::MeshRender,
            "ms_per_step_mesh_render",
            format!("{tr}-triangle render mesh as BN-Tree DeformableMeshShape"),
        ),
        (
            Variant::Mesh14kUnguarded,
            "ms_per_step_mesh_14k_unguarded",
            format!("mesh_14k ({t14} triangles) with the self-intersection guard off"),
        ),
    ];
    for (v, name, note) in &names {
        report.metric(
            name,
            ms(*v),
            format!(
                "{note}; median of {} round(s)",
                tallies[index(*v)].per_round.len()
            ),
        );
    }
    report.metric(
        "speedup_mesh_14k_vs_trimesh_14k",
        ms(Variant::TriMesh14k) / ms(Variant::Mesh14k),
        "trimesh_14k / mesh_14k (same tessellation)",
    );
    report.metric(
        "guard_overhead_mesh_14k",
        ms(Variant::Mesh14k) / ms(Variant::Mesh14kUnguarded),
        "mesh_14k / mesh_14k_unguarded: what the self-intersection guard costs",
    );
    report.metric(
        "mesh_render_over_proxy_high",
        ms(Variant::MeshRender) / ms(Variant::ProxyHigh),
        "mesh_render / proxy_high",
    );
    for v in MESH_VARIANTS {
        let t = &tallies[index(v)];
        let n = v.name();
        report.metric(
            Box::leak(format!("max_penetration_rel_{n}").into_boxed_str()),
            t.penetration_rel,
            "deepest car–car overlap of the colliders over the car length (round 0)",
        );
        report.metric(
            Box::leak(format!("dent_depth_max_rel_{n}").into_boxed_str()),
            t.dent_depth / CAR_LENGTH as f64,
            "largest cage-vertex displacement from rest over the car length",
        );
        report.metric(
            Box::leak(format!("energy_absorbed_fraction_{n}").into_boxed_str()),
            1.0 - t.energy_end / t.energy_start,
            "1 − mechanical energy after / before",
        );
    }
    for v in [
        Variant::Mesh14k,
        Variant::MeshRender,
        Variant::Mesh14kUnguarded,
    ] {
        let t = &tallies[index(v)];
        let n = v.name();
        report.metric(
            Box::leak(format!("self_intersections_start_{n}").into_boxed_str()),
            t.self_intersections_start.unwrap_or(0) as f64,
            "self-intersecting triangle pairs of the mesh colliders at launch (brute force, all cars)",
        );
        report.metric(
            Box::leak(format!("self_intersections_end_{n}").into_boxed_str()),
            t.self_intersections_end.unwrap_or(0) as f64,
            "the same after the crash",
        );
        report.metric(
            Box::leak(format!("self_intersections_prevented_{n}").into_boxed_str()),
            t.self_intersections_prevented as f64,
            "new self-intersecting pairs the guard refused, summed over steps",
        );
        report.metric(
            Box::leak(format!("weight_changes_undone_{n}").into_boxed_str()),
            t.weight_changes_undone as f64,
            "cage-vertex weight changes undone by the guard",
        );
        report.metric(
            Box::leak(format!("mesh_vertices_updated_{n}").into_boxed_str()),
            t.mesh_vertices_updated as f64,
            "mesh vertices re-weighted, summed over steps (O(changed), not O(n) per step)",
        );
    }
    report.metric(
        "steps",
        sizes.steps as f64,
        format!("steps per run, dt = 1/{:.0} s", 1.0 / DT),
    );
    per_step_frames(
        &mut report,
        "crash_mesh",
        &MESH_VARIANTS,
        &tallies,
        sizes.steps,
    );
    report
}
