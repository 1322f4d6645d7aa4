//! The car-crash and barrel-drop scenes of the plasticity examples, tests and the `crash` and `crash_many` benchmarks: plastic assets, launch layouts, energy and dent measurements, OBJ output.
//!
//! **Car crash.** Eight cars at about 35 m/s on a flat ground, in four crash sites side by side
//! ([`CRASH_SITES`]): a head-on crash with a barrel pyramid in one car's path, an offset head-on
//! crash and two T-bone crashes. Cars are 4.5 m, 1500 kg bodies whose plastic cage is the car body at about 3.5k
//! triangles; the sphere proxy is packed on the cage and a 20k-triangle render mesh is bound to
//! it. The layout is deterministic for a seed (small perturbations of speed, lane and heading).
//!
//! **Crash grid** ([`build_crash_grid`]). Any even number of cars (up to [`MAX_GRID_CARS`]) in
//! head-on pairs on a grid, cars only: the layout of the `crash_many` benchmark, where the cost
//! per body is measured as the car count grows.
//!
//! **Barrel drop.** Barrels dropped on a loading dock and on each other (MiG 2017, Fig. 4).
//!
//! **Calibration** ([`car_params`], [`barrel_params`]). Rapier's per-step impulse totals play
//! the role of Bullet's `m_appliedImpulse` in Jones et al.'s code, at `dt = 1/240` s (theirs:
//! 0.004 s), so their yield thresholds carry over; the kernel radius and rate are chosen for
//! this car's examples, whose damage is local to a few lattice stations.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle};
use rapier3d::geometry::{ColliderBuilder, ColliderHandle, NarrowPhase, SharedShape};
use rapier3d::math::{Pose, Rotation};
use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d::pipeline::PhysicsWorld;

use super::barrel::{BARREL_HEIGHT, BARREL_RADIUS, BarrelOptions, barrel, barrel_proxy_options};
use super::car::{CAR_LENGTH, CarOptions, ExampleAsset, car, car_proxy_options};
use rapier3d_deform::bn_tree::BnTreeOptions;
use rapier3d_deform::crash::{
    BoundMesh, DeformableCollider, DeformableDesc, DeformableHandle, ExampleMesh, PipelineParams,
    PlasticAsset, PlasticPipeline,
};
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::PlasticityParams;
use rapier3d_deform::proxy::{MeshDistance, SphereProxy};
use rapier3d_deform::query::DeformDispatcher;

/// Car mass (kg).
pub const CAR_MASS: f32 = 1500.0;
/// Barrel mass (kg).
pub const BARREL_MASS: f32 = 60.0;
/// Restitution of the cars: a crushing car hardly bounces (the pipeline lowers it further while
/// a dent is forming, but the first contact of an impact is solved before any plasticity).
pub const CAR_RESTITUTION: f32 = 0.1;
/// Launch speed of the cars (m/s).
pub const CAR_SPEED: f32 = 35.0;
/// Time step of the scenes (s).
pub const DT: f32 = 1.0 / 240.0;
/// Plastic displacement a car's picture shows in full dent colour (m), in the `car_crash`
/// example and the testbed ([`crate::render::dent_tint`]).
pub const CAR_DENT_SCALE: f32 = 0.35;
/// Plastic displacement a barrel of the crash scenes shows in full dent colour (m).
pub const BARREL_DENT_SCALE: f32 = 0.08;
/// The plastic cage of the car: about 3.5k triangles, 1.7k vertices.
pub const CAR_CAGE: CarOptions = CarOptions {
    stations: 40,
    segments: 36,
};
/// The plastic cage of the barrel.
pub const BARREL_CAGE: BarrelOptions = BarrelOptions::COARSE;

/// Plasticity of the cars: the authors' yield (1.1 cm); scale 60, a 1.6 m kernel and rate 0.1
/// (theirs: 80, 3.3 m, 0.025 at 250 Hz). A crush then forms over about ten steps (40 ms), and
/// the example damage, local to a few lattice stations, stays where the car was hit. Pending
/// changes below 1e-4 (a tenth of a millimetre on the deepest example) are dropped.
pub fn car_params() -> PlasticityParams {
    PlasticityParams {
        yield_displacement: 1.1e-2,
        impulse_scale: 60.0,
        kernel_radius: 1.6,
        rate: 0.1,
        settle_threshold: 1e-4,
        ..PlasticityParams::jones_car()
    }
}

/// Plasticity of the barrels: the authors' barrel values (yield 3 mm, scale 90, rate 0.3) with a
/// kernel radius of half the barrel's height.
pub fn barrel_params() -> PlasticityParams {
    PlasticityParams {
        kernel_radius: 0.5 * BARREL_HEIGHT,
        ..PlasticityParams::jones_barrel()
    }
}

/// Builds a plastic asset from a rigged example asset: the cage's example poses, the proxy
/// packed on the cage, and optionally a render mesh with the same rig.
///
/// # Errors
/// What [`SphereProxy::build`] and [`PlasticAsset::new`] reject.
///
/// # Performance
/// Seconds (the proxy packing dominates).
pub fn plastic_asset(
    cage: &ExampleAsset,
    proxy_options: &rapier3d_deform::proxy::ProxyOptions,
    params: PlasticityParams,
    render: Option<&ExampleAsset>,
    progress: &mut dyn FnMut(&str),
) -> Result<PlasticAsset> {
    progress("example poses of the cage");
    let examples = cage.example_positions()?;
    progress("sphere proxy (distance grid, packing, example fit)");
    let (proxy, _) = SphereProxy::build(&cage.mesh, &examples, proxy_options)?;
    progress("plasticity model");
    let mut asset = PlasticAsset::new(cage.mesh.clone(), &examples, proxy, params)?;
    if let Some(render) = render {
        progress("render mesh binding");
        let render_examples = render.example_positions()?;
        asset = asset.with_render_mesh(render.mesh.clone(), &render_examples)?;
    }
    Ok(asset)
}

/// The car asset: cage [`CAR_CAGE`], proxy at `resolution` (`"low"`, `"mid"`, `"high"`),
/// optional render mesh at `render` tessellation.
///
/// # Errors
/// As [`plastic_asset`]; an unknown resolution.
///
/// # Performance
/// Seconds.
pub fn car_asset(
    resolution: &str,
    render: Option<CarOptions>,
    progress: &mut dyn FnMut(&str),
) -> Result<PlasticAsset> {
    let cage = car(&CAR_CAGE)?;
    let render = render.map(|r| car(&r)).transpose()?;
    plastic_asset(
        &cage,
        &car_proxy_options(resolution)?,
        car_params(),
        render.as_ref(),
        progress,
    )
}

/// The barrel asset (cage [`BARREL_CAGE`], optional render mesh).
///
/// # Errors
/// As [`plastic_asset`].
///
/// # Performance
/// Seconds.
pub fn barrel_asset(
    render: Option<BarrelOptions>,
    progress: &mut dyn FnMut(&str),
) -> Result<PlasticAsset> {
    let cage = barrel(&BARREL_CAGE)?;
    let render = render.map(|r| barrel(&r)).transpose()?;
    plastic_asset(
        &cage,
        &barrel_proxy_options(),
        barrel_params(),
        render.as_ref(),
        progress,
    )
}

/// A triangle mesh of the car with the same rig at another tessellation, bound to the car
/// asset's cage (the `TriMesh` baselines): `segments` around, `stations` along.
///
/// # Errors
/// As [`car`] and [`PlasticAsset::bind`].
///
/// # Performance
/// O(V log T_cage + V · E).
pub fn bound_car_mesh(asset: &PlasticAsset, options: CarOptions) -> Result<BoundMesh> {
    let rig = car(&options)?;
    let examples = rig.example_positions()?;
    asset.bind(rig.mesh, &examples)
}

/// The car rigged at another tessellation (`segments` around, `stations` along) as the BN-Tree
/// mesh collider of a plastic car ([`DeformableCollider::Mesh`]): the same 32 bones and seven
/// examples as the cage, bound to the asset's cage.
///
/// # Errors
/// As [`car`] and [`ExampleMesh::new`].
///
/// # Performance
/// O(V log T_cage + V · E · influences + T log T).
pub fn car_example_mesh(asset: &PlasticAsset, options: CarOptions) -> Result<ExampleMesh> {
    let rig = car(&options)?;
    let blend = rig.example_blend()?;
    ExampleMesh::new(asset.cage(), rig.mesh, &blend, BnTreeOptions::default())
}

/// How the cars of a scene collide.
#[derive(Clone, Debug)]
pub enum CarCollider {
    /// A deformable collider maintained by the pipeline.
    Deformable(DeformableCollider),
    /// The rest spheres as a parry `Compound` that never changes, no plasticity (the floor of
    /// what a deforming proxy can cost).
    StaticCompound,
}

/// Options of [`build_crash`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrashOptions {
    /// Seed of the launch perturbations.
    pub seed: u64,
    /// Number of cars (1–8, in the order of the crash sites).
    pub cars: usize,
    /// Put the barrel pyramid in the first car's path (needs a barrel asset).
    pub barrels: bool,
    /// Launch speed (m/s).
    pub speed: f32,
    /// Distance each car travels before its crash (m).
    pub run_up: f32,
    /// Pipeline settings.
    pub pipeline: PipelineParams,
}

impl Default for CrashOptions {
    /// Seed 2016, 8 cars at 35 m/s after a 30 m run-up, barrels, default pipeline.
    fn default() -> Self {
        Self {
            seed: 2016,
            cars: 8,
            barrels: true,
            speed: CAR_SPEED,
            run_up: RUN_UP,
            pipeline: PipelineParams::default(),
        }
    }
}

/// A body of a scene: its Rapier handle and, if deformable, its pipeline handle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneBody {
    /// The rigid body.
    pub rigid_body: RigidBodyHandle,
    /// Its (only) collider.
    pub collider: ColliderHandle,
    /// The pipeline handle of a deformable body.
    pub deformable: Option<DeformableHandle>,
}

/// A built scene: the Rapier world, the plasticity pipeline, and its bodies.
pub struct CrashScene {
    /// The Rapier world (`dt` = [`DT`]).
    pub world: PhysicsWorld,
    /// The plasticity loop.
    pub pipeline: PlasticPipeline,
    /// The cars.
    pub cars: Vec<SceneBody>,
    /// The barrels.
    pub barrels: Vec<SceneBody>,
    /// The ground's collider.
    pub ground: ColliderHandle,
}

impl std::fmt::Debug for CrashScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrashScene")
            .field("cars", &self.cars.len())
            .field("barrels", &self.barrels.len())
            .finish()
    }
}

/// One car's launch: pose and velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launch {
    /// Position of the car's frame (its underside centre).
    pub position: Vec3,
    /// Heading: rotation about `+Y` of the car's `+X` (forward).
    pub yaw: f32,
    /// Speed along the heading.
    pub speed: f32,
}

/// A SplitMix64 stream in `[-1, 1)`.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// The crash sites (centres) of [`car_launches`]: four lanes along `x`, 12 m apart, all crashing
/// near `x = 0` at about the same time. The T-bone strikers come from outside the outer lanes, so
/// no car crosses another site's lane before its own crash.
pub const CRASH_SITES: [Vec3; 4] = [
    Vec3::new(0.0, 0.0, -6.0),
    Vec3::new(0.0, 0.0, -18.0),
    Vec3::new(0.0, 0.0, 6.0),
    Vec3::new(0.0, 0.0, 18.0),
];

/// Distance each car travels to its crash (default of [`CrashOptions::run_up`]).
pub const RUN_UP: f32 = 30.0;
/// Ground clearance at launch.
const CLEARANCE: f32 = 0.02;

/// The launches of the eight cars, two per crash site ([`CRASH_SITES`]): a head-on crash (with
/// the barrel pyramid in the first car's path), a T-bone, an offset head-on crash and a T-bone
/// from the other side. Deterministic for a seed.
///
/// # Performance
/// O(1).
pub fn car_launches(seed: u64, speed: f32, run_up: f32) -> Vec<Launch> {
    let mut j = Jitter(seed);
    let half = 0.5 * CAR_LENGTH;
    let yaw_of = |forward: Vec3| (-forward.z).atan2(forward.x);
    let mut out = Vec::with_capacity(8);
    let mut push = |position: Vec3, forward: Vec3, lateral: f32, j: &mut Jitter| {
        let side = Vec3::new(-forward.z, 0.0, forward.x);
        out.push(Launch {
            position: position + side * (lateral + 0.1 * j.next()) + Vec3::Y * CLEARANCE,
            yaw: yaw_of(forward) + 0.01 * j.next(),
            speed: speed + 0.5 * j.next(),
        });
    };
    // Site 0: head-on.
    let c = CRASH_SITES[0];
    push(c - Vec3::X * (run_up + half), Vec3::X, 0.0, &mut j);
    push(c + Vec3::X * (run_up + half), -Vec3::X, 0.0, &mut j);
    // Site 1: T-bone, the striker's front into the side of a car crossing along +x.
    let c = CRASH_SITES[1];
    push(c - Vec3::X * run_up, Vec3::X, 0.0, &mut j);
    push(c - Vec3::Z * (run_up + 0.9 + half), Vec3::Z, 0.0, &mut j);
    // Site 2: offset head-on.
    let c = CRASH_SITES[2];
    push(c - Vec3::X * (run_up + half), Vec3::X, 0.6, &mut j);
    push(c + Vec3::X * (run_up + half), -Vec3::X, 0.6, &mut j);
    // Site 3: T-bone from the other side, into a car crossing along −x.
    let c = CRASH_SITES[3];
    push(c + Vec3::X * run_up, -Vec3::X, 0.0, &mut j);
    push(c + Vec3::Z * (run_up + 0.9 + half), -Vec3::Z, 0.0, &mut j);
    out
}

/// Positions of the barrel pyramid in the first car's path: upright barrels in rows of 4, 3, 2
/// and 1 across the lane, a third of the run-up before the head-on crash point.
///
/// # Performance
/// O(1).
pub fn barrel_pyramid(run_up: f32) -> Vec<Vec3> {
    let base = CRASH_SITES[0] - Vec3::X * (run_up / 3.0);
    let pitch = 2.0 * BARREL_RADIUS + 0.03;
    let mut out = Vec::new();
    for row in 0..4 {
        let n = 4 - row;
        for k in 0..n {
            let z = (k as f32 - 0.5 * (n - 1) as f32) * pitch;
            out.push(base + Vec3::new(0.0, row as f32 * (BARREL_HEIGHT + 0.005) + 0.005, z));
        }
    }
    out
}

/// A world at [`DT`] with [`DeformDispatcher`] first in the narrow phase's dispatcher chain and
/// Rapier's CCD on (its default).
///
/// Rapier sweeps every body that moves more than half its `ccd_thickness` per step against fixed
/// colliders. A sphere proxy reports its largest radius (0.65 m for the car), so a car at
/// 35 m/s (15 cm per step) is not swept; a barrel thrown by a car is. The sweep of a custom shape
/// is a nonlinear cast through the dispatcher: `DeformDispatcher`'s ignores contacts that cannot
/// tunnel, where parry's composite cast (the default dispatcher's) stops a body sliding on the
/// ground at the first grazing ball and clamps its motion.
fn new_world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = DT;
    world.narrow_phase =
        NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
    world
}

/// The ground: a 0.2 m slab, 120 × 120 m, whose top is `y = 0` (all the cars stay on it).
///
/// A cuboid, as in Rapier's own examples. A flat triangle mesh is cheaper for sphere unions
/// (parry then pairs only the spheres near each triangle, while a cuboid's box seen from a
/// slightly tilted car reaches most of the car's spheres), but balls sliding at 35 m/s over its
/// internal edges get launched (ghost contacts), and `TriMeshFlags::FIX_INTERNAL_EDGES` costs as
/// much as the slab. Every variant of the `crash` benchmark stands on the same ground.
pub fn insert_ground(world: &mut PhysicsWorld) -> ColliderHandle {
    let body = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(
        ColliderBuilder::cuboid(60.0, 0.1, 60.0)
            .translation(Vec3::new(0.0, -0.1, 0.0))
            .friction(0.5)
            .restitution(0.0),
        Some(body),
    )
}

/// Inserts one body with an asset's collider; returns its handles.
#[allow(clippy::too_many_arguments)]
fn insert_body(
    world: &mut PhysicsWorld,
    pipeline: &mut PlasticPipeline,
    asset: &Arc<PlasticAsset>,
    collider: &CarCollider,
    pose: Pose,
    linvel: Vec3,
    mass: f32,
    friction: f32,
    restitution: f32,
) -> Result<SceneBody> {
    let rb = world.insert_body(RigidBodyBuilder::dynamic().pose(pose).linvel(linvel));
    let density = mass / asset.proxy().unit_mass_properties().mass();
    let configure = |b: ColliderBuilder| b.friction(friction).restitution(restitution);
    match collider {
        CarCollider::Deformable(kind) => {
            let desc = DeformableDesc {
                asset: asset.clone(),
                collider: kind.clone(),
                density,
            };
            let h =
                pipeline.insert(&mut world.bodies, &mut world.colliders, rb, desc, configure)?;
            let (_, co) = pipeline.handles(h)?;
            Ok(SceneBody {
                rigid_body: rb,
                collider: co,
                deformable: Some(h),
            })
        }
        CarCollider::StaticCompound => {
            let unit = asset.proxy().unit_mass_properties();
            let mp = rapier3d::parry::mass_properties::MassProperties::with_principal_inertia_frame(
                unit.local_com,
                unit.mass() * density,
                unit.principal_inertia() * density,
                unit.principal_inertia_local_frame,
            );
            let shape = SharedShape::compound(
                asset
                    .proxy()
                    .rest_spheres()
                    .iter()
                    .map(|s| {
                        (
                            Pose::from_translation(s.centre),
                            SharedShape::ball(s.radius.max(1e-4)),
                        )
                    })
                    .collect(),
            );
            let co = world.insert_collider(
                configure(ColliderBuilder::new(shape)).mass_properties(mp),
                Some(rb),
            );
            Ok(SceneBody {
                rigid_body: rb,
                collider: co,
                deformable: None,
            })
        }
    }
}

/// Builds the car crash: ground, cars ([`car_launches`]) with `collider`, and the barrel
/// pyramid when `options.barrels` and a barrel asset are given (barrels always get sphere
/// proxies, or static compounds when the cars do).
///
/// # Errors
/// [`DeformError::InvalidParameter`] for 0 or more than 8 cars; what
/// [`PlasticPipeline::new`] and [`PlasticPipeline::insert`] reject.
///
/// # Performance
/// O(cars · (S log S + V · E)).
pub fn build_crash(
    car: &Arc<PlasticAsset>,
    barrel: Option<&Arc<PlasticAsset>>,
    collider: &CarCollider,
    options: &CrashOptions,
) -> Result<CrashScene> {
    if !(1..=8).contains(&options.cars) {
        return Err(DeformError::InvalidParameter {
            name: "cars",
            value: options.cars as f32,
            reason: "the crash has 1 to 8 cars",
        });
    }
    let mut world = new_world();
    let mut pipeline = PlasticPipeline::new(options.pipeline)?;
    let ground = insert_ground(&mut world);
    let mut cars = Vec::new();
    for launch in car_launches(options.seed, options.speed, options.run_up)
        .into_iter()
        .take(options.cars)
    {
        let rotation = Quat::from_rotation_y(launch.yaw);
        let pose = Pose::from_parts(launch.position, rotation);
        let velocity = rotation * Vec3::X * launch.speed;
        cars.push(insert_body(
            &mut world,
            &mut pipeline,
            car,
            collider,
            pose,
            velocity,
            CAR_MASS,
            0.5,
            CAR_RESTITUTION,
        )?);
    }
    let mut barrels = Vec::new();
    if let (true, Some(asset)) = (options.barrels, barrel) {
        let kind = match collider {
            CarCollider::StaticCompound => CarCollider::StaticCompound,
            _ => CarCollider::Deformable(DeformableCollider::SphereProxy),
        };
        for p in barrel_pyramid(options.run_up) {
            let pose = Pose::from_parts(p, Rotation::IDENTITY);
            barrels.push(insert_body(
                &mut world,
                &mut pipeline,
                asset,
                &kind,
                pose,
                Vec3::ZERO,
                BARREL_MASS,
                0.6,
                0.2,
            )?);
        }
    }
    Ok(CrashScene {
        world,
        pipeline,
        cars,
        barrels,
        ground,
    })
}

/// Most cars [`build_crash_grid`] accepts.
pub const MAX_GRID_CARS: usize = 1024;
/// Distance between the lanes of [`crash_grid_launches`] (m): 4.4 car widths, so a pair's
/// wreck rarely reaches the next lane's.
pub const GRID_LANE_PITCH: f32 = 8.0;
/// Gap between the run-ups of two pairs in the same lane (m).
const GRID_PAIR_GAP: f32 = 6.0;

/// Options of [`build_crash_grid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrashGridOptions {
    /// Seed of the launch perturbations.
    pub seed: u64,
    /// Number of cars: even, 2 to [`MAX_GRID_CARS`].
    pub cars: usize,
    /// Launch speed (m/s).
    pub speed: f32,
    /// Distance each car travels before its crash (m).
    pub run_up: f32,
    /// Pipeline settings.
    pub pipeline: PipelineParams,
}

impl Default for CrashGridOptions {
    /// Seed 2016, 8 cars at 35 m/s after a 3 m run-up, default pipeline.
    fn default() -> Self {
        Self {
            seed: 2016,
            cars: 8,
            speed: CAR_SPEED,
            run_up: 3.0,
            pipeline: PipelineParams::default(),
        }
    }
}

impl CrashGridOptions {
    /// Checks the car count, speed and run-up.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] naming `cars` (odd, 0 or above [`MAX_GRID_CARS`]),
    /// `speed` or `run_up` (negative or not finite).
    pub fn validate(&self) -> Result<()> {
        if self.cars == 0 || !self.cars.is_multiple_of(2) || self.cars > MAX_GRID_CARS {
            return Err(DeformError::InvalidParameter {
                name: "cars",
                value: self.cars as f32,
                reason: "the crash grid has an even number of cars, 2 to 1024",
            });
        }
        if !(self.speed.is_finite() && self.speed >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "speed",
                value: self.speed,
                reason: "the launch speed is finite and non-negative",
            });
        }
        if !(self.run_up.is_finite() && self.run_up >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "run_up",
                value: self.run_up,
                reason: "the run-up is finite and non-negative",
            });
        }
        Ok(())
    }

    /// Columns and lanes of the grid: the most nearly square arrangement of the pairs given
    /// that a pair takes `2 · (run_up + CAR_LENGTH) + 6` m along `x` and [`GRID_LANE_PITCH`]
    /// across.
    fn layout(&self) -> (usize, usize, f32) {
        let pairs = self.cars / 2;
        let pitch_x = 2.0 * (self.run_up + CAR_LENGTH) + GRID_PAIR_GAP;
        let columns =
            ((pairs as f32 * GRID_LANE_PITCH / pitch_x).sqrt().ceil() as usize).clamp(1, pairs);
        (columns, pairs.div_ceil(columns), pitch_x)
    }
}

/// The launches of [`build_crash_grid`]: `cars / 2` head-on pairs on a grid centred at the
/// origin, lanes along `x` [`GRID_LANE_PITCH`] apart, each pair's two cars `run_up` from their
/// crash point and heading at each other, with the small perturbations of [`car_launches`]
/// (lane ±0.1 m, heading ±0.01 rad, speed ±0.5 m/s). Pair `k` is cars `2k` and `2k + 1`.
/// Deterministic for a seed.
///
/// # Errors
/// As [`CrashGridOptions::validate`].
///
/// # Performance
/// O(cars).
pub fn crash_grid_launches(options: &CrashGridOptions) -> Result<Vec<Launch>> {
    options.validate()?;
    let (columns, lanes, pitch_x) = options.layout();
    let mut j = Jitter(options.seed);
    let half = 0.5 * CAR_LENGTH;
    let mut out = Vec::with_capacity(options.cars);
    for pair in 0..options.cars / 2 {
        let (column, lane) = (pair % columns, pair / columns);
        let site = Vec3::new(
            (column as f32 - 0.5 * (columns - 1) as f32) * pitch_x,
            0.0,
            (lane as f32 - 0.5 * (lanes - 1) as f32) * GRID_LANE_PITCH,
        );
        for (forward, yaw) in [(Vec3::X, 0.0), (-Vec3::X, std::f32::consts::PI)] {
            let side = Vec3::new(-forward.z, 0.0, forward.x);
            out.push(Launch {
                position: site - forward * (options.run_up + half)
                    + side * (0.1 * j.next())
                    + Vec3::Y * CLEARANCE,
                yaw: yaw + 0.01 * j.next(),
                speed: options.speed + 0.5 * j.next(),
            });
        }
    }
    Ok(out)
}

/// Builds the crash grid: [`crash_grid_launches`] with `collider` (every car the same kind:
/// sphere proxies with plasticity, or [`CarCollider::StaticCompound`] for the rigid baseline),
/// on a ground slab 30 m wider than the grid on every side. Cars only.
///
/// # Errors
/// As [`CrashGridOptions::validate`]; what [`PlasticPipeline::new`] and
/// [`PlasticPipeline::insert`] reject.
///
/// # Performance
/// O(cars · (S log S + V · E)).
pub fn build_crash_grid(
    car: &Arc<PlasticAsset>,
    collider: &CarCollider,
    options: &CrashGridOptions,
) -> Result<CrashScene> {
    let launches = crash_grid_launches(options)?;
    let mut world = new_world();
    let mut pipeline = PlasticPipeline::new(options.pipeline)?;
    let (columns, lanes, pitch_x) = options.layout();
    let ground_body = world.insert_body(RigidBodyBuilder::fixed());
    let ground = world.insert_collider(
        ColliderBuilder::cuboid(
            0.5 * columns as f32 * pitch_x + 30.0,
            0.1,
            0.5 * lanes as f32 * GRID_LANE_PITCH + 30.0,
        )
        .translation(Vec3::new(0.0, -0.1, 0.0))
        .friction(0.5)
        .restitution(0.0),
        Some(ground_body),
    );
    let mut cars = Vec::with_capacity(launches.len());
    for launch in launches {
        let rotation = Quat::from_rotation_y(launch.yaw);
        let pose = Pose::from_parts(launch.position, rotation);
        let velocity = rotation * Vec3::X * launch.speed;
        cars.push(insert_body(
            &mut world,
            &mut pipeline,
            car,
            collider,
            pose,
            velocity,
            CAR_MASS,
            0.5,
            CAR_RESTITUTION,
        )?);
    }
    Ok(CrashScene {
        world,
        pipeline,
        cars,
        barrels: Vec::new(),
        ground,
    })
}

/// Builds the barrel drop: a loading dock (a raised platform with a ramp face) and `count`
/// barrels dropped from 2–6 m onto it and onto each other, some tilted, deterministic for a
/// seed.
///
/// # Errors
/// What [`PlasticPipeline::insert`] rejects.
///
/// # Performance
/// O(count · (S log S + V · E)).
pub fn build_barrel_drop(
    barrel: &Arc<PlasticAsset>,
    count: usize,
    seed: u64,
    pipeline: PipelineParams,
) -> Result<CrashScene> {
    let mut world = new_world();
    let mut pl = PlasticPipeline::new(pipeline)?;
    let ground = insert_ground(&mut world);
    let dock = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(
        ColliderBuilder::cuboid(2.0, 0.6, 1.5)
            .translation(Vec3::new(0.0, 0.6, 0.0))
            .friction(0.6),
        Some(dock),
    );
    let mut j = Jitter(seed);
    let mut barrels = Vec::new();
    for i in 0..count {
        let column = (i % 3) as f32 - 1.0;
        let layer = (i / 3) as f32;
        let position = Vec3::new(
            0.9 * column + 0.15 * j.next(),
            1.2 + 2.0 + 1.1 * layer + 0.3 * j.next(),
            0.5 * j.next(),
        );
        let tilt = Quat::from_rotation_z(0.6 * j.next()) * Quat::from_rotation_x(0.6 * j.next());
        let pose = Pose::from_parts(position, tilt);
        let velocity = Vec3::new(0.0, -2.0 * (1.0 + j.next()), 0.0);
        barrels.push(insert_body(
            &mut world,
            &mut pl,
            barrel,
            &CarCollider::Deformable(DeformableCollider::SphereProxy),
            pose,
            velocity,
            BARREL_MASS,
            0.6,
            0.3,
        )?);
    }
    Ok(CrashScene {
        world,
        pipeline: pl,
        cars: Vec::new(),
        barrels,
        ground,
    })
}

impl CrashScene {
    /// One Rapier step followed by the pipeline's update.
    ///
    /// # Errors
    /// What [`PlasticPipeline::update`] reports.
    ///
    /// # Performance
    /// One Rapier step plus the pipeline's update.
    pub fn step(&mut self) -> Result<()> {
        self.step_timed().map(|_| ())
    }

    /// [`Self::step`], returning the wall time of Rapier's step and of the pipeline's update.
    ///
    /// # Errors
    /// What [`PlasticPipeline::update`] reports.
    ///
    /// # Performance
    /// As [`Self::step`], plus three clock reads.
    pub fn step_timed(&mut self) -> Result<(Duration, Duration)> {
        let start = Instant::now();
        self.world.step();
        let stepped = Instant::now();
        self.pipeline.update(&mut self.world)?;
        Ok((stepped - start, stepped.elapsed()))
    }

    /// Every body of the scene (cars first).
    pub fn bodies(&self) -> impl Iterator<Item = &SceneBody> {
        self.cars.iter().chain(&self.barrels)
    }

    /// Total kinetic energy of the cars and barrels (J).
    ///
    /// # Performance
    /// O(bodies).
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies()
            .filter_map(|b| self.world.bodies.get(b.rigid_body))
            .map(|rb| rb.kinetic_energy() as f64)
            .sum()
    }

    /// Kinetic plus gravitational potential energy (`m g y` of the centres of mass) (J).
    ///
    /// # Performance
    /// O(bodies).
    pub fn mechanical_energy(&self) -> f64 {
        let g = -self.world.gravity.y as f64;
        self.kinetic_energy()
            + self
                .bodies()
                .filter_map(|b| self.world.bodies.get(b.rigid_body))
                .map(|rb| rb.mass() as f64 * g * rb.center_of_mass().y as f64)
                .sum::<f64>()
    }

    /// World positions of a body's render mesh (its asset's render mesh, else the cage; the
    /// rest spheres' asset cage for static bodies) and its triangles.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    ///
    /// # Performance
    /// O(V · E).
    pub fn world_render_mesh(
        &mut self,
        body: &SceneBody,
        asset: &PlasticAsset,
        out: &mut Vec<Vec3>,
    ) -> Result<Vec<[u32; 3]>> {
        let pose = *self
            .world
            .bodies
            .get(body.rigid_body)
            .ok_or(DeformError::UnknownHandle {
                what: "rigid body",
                index: body.rigid_body.into_raw_parts().0,
            })?
            .position();
        let triangles = match body.deformable {
            Some(h) => {
                self.pipeline.render_positions(h, out)?;
                match self.pipeline.asset(h)?.render() {
                    Some(r) => r.mesh().triangles().to_vec(),
                    None => asset.cage().triangles().to_vec(),
                }
            }
            None => {
                out.clear();
                match asset.render() {
                    Some(r) => {
                        out.extend_from_slice(r.mesh().positions());
                        r.mesh().triangles().to_vec()
                    }
                    None => {
                        out.extend_from_slice(asset.cage().positions());
                        asset.cage().triangles().to_vec()
                    }
                }
            }
        };
        for p in out.iter_mut() {
            *p = pose * *p;
        }
        Ok(triangles)
    }

    /// Writes the final world render mesh of each of `bodies` to `{dir}/{name}{i}.obj` and
    /// records it in `written` ("`{name} {i}`: final deformed render mesh").
    ///
    /// # Errors
    /// What [`Self::world_render_mesh`] and [`write_obj`] reject.
    ///
    /// # Performance
    /// O(V · E) per body, plus the file writes.
    pub fn write_render_meshes(
        &mut self,
        bodies: &[SceneBody],
        asset: &PlasticAsset,
        dir: &str,
        name: &str,
        written: &mut crate::render::WrittenFiles,
    ) -> Result<()> {
        let mut positions = Vec::new();
        for (i, body) in bodies.iter().enumerate() {
            let triangles = self.world_render_mesh(body, asset, &mut positions)?;
            let path = format!("{dir}/{name}{i}.obj");
            write_obj(&path, &positions, &triangles)?;
            written.record(
                path,
                format!("{name} {i}: final deformed render mesh (world frame)"),
            );
        }
        Ok(())
    }

    /// The deepest dent of a deformable body: the largest distance of a render-mesh vertex from
    /// its rest position (body frame); 0 for static bodies.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    ///
    /// # Performance
    /// O(V · E).
    pub fn dent_depth(&mut self, body: &SceneBody) -> Result<f32> {
        let Some(h) = body.deformable else {
            return Ok(0.0);
        };
        let mut positions = Vec::new();
        self.pipeline.render_positions(h, &mut positions)?;
        let asset = self.pipeline.asset(h)?;
        let rest = match asset.render() {
            Some(r) => r.mesh().positions(),
            None => asset.cage().positions(),
        };
        Ok(positions
            .iter()
            .zip(rest)
            .map(|(p, q)| (*p - *q).length())
            .fold(0.0, f32::max))
    }
}

/// The deepest overlap between closed meshes (world positions): the largest depth of a vertex
/// of one mesh inside another (signed distance < 0), over all pairs whose boxes overlap.
///
/// # Errors
/// What [`MeshDistance::new`] rejects.
///
/// # Performance
/// O(pairs · (T log T + V log T)) for overlapping boxes.
pub fn deepest_overlap(meshes: &[(Vec<Vec3>, &TriangleMesh)]) -> Result<f32> {
    let boxes: Vec<(Vec3, Vec3)> = meshes
        .iter()
        .map(|(p, _)| {
            p.iter()
                .fold((Vec3::MAX, Vec3::MIN), |(a, b), q| (a.min(*q), b.max(*q)))
        })
        .collect();
    let mut trees: Vec<Option<MeshDistance>> = (0..meshes.len()).map(|_| None).collect();
    let mut deepest = 0.0f32;
    for a in 0..meshes.len() {
        for b in 0..meshes.len() {
            if a == b {
                continue;
            }
            let (lo, hi) = (boxes[a].0.max(boxes[b].0), boxes[a].1.min(boxes[b].1));
            if lo.cmpgt(hi).any() {
                continue;
            }
            if trees[b].is_none() {
                trees[b] = Some(MeshDistance::new(meshes[b].1, &meshes[b].0)?);
            }
            let Some(tree) = trees[b].as_ref() else {
                continue;
            };
            for p in &meshes[a].0 {
                if p.cmplt(lo).any() || p.cmpgt(hi).any() {
                    continue;
                }
                let d = tree.signed_distance(*p);
                if d < 0.0 {
                    deepest = deepest.max(-d);
                }
            }
        }
    }
    Ok(deepest)
}

/// Writes a triangle mesh as Wavefront OBJ (positions and faces), creating parent directories.
///
/// # Errors
/// [`DeformError::FileWrite`] naming the path.
///
/// # Performance
/// O(V + T).
pub fn write_obj(path: impl AsRef<Path>, positions: &[Vec3], triangles: &[[u32; 3]]) -> Result<()> {
    let path = path.as_ref();
    let fail = |e: std::io::Error| DeformError::FileWrite {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    for p in positions {
        writeln!(w, "v {} {} {}", p.x, p.y, p.z).map_err(fail)?;
    }
    for t in triangles {
        writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).map_err(fail)?;
    }
    w.flush().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_are_deterministic_and_aimed_at_their_sites() {
        let a = car_launches(7, CAR_SPEED, RUN_UP);
        assert_eq!(a, car_launches(7, CAR_SPEED, RUN_UP));
        assert_ne!(a, car_launches(8, CAR_SPEED, RUN_UP));
        assert_eq!(a.len(), 8);
        for (i, l) in a.iter().enumerate() {
            let site = CRASH_SITES[i / 2];
            let forward = Quat::from_rotation_y(l.yaw) * Vec3::X;
            let to_site = (site - l.position).normalize();
            // Heading at the site (within the offset lanes and jitter).
            assert!(forward.dot(to_site) > 0.99, "car {i}");
            assert!((l.speed - CAR_SPEED).abs() <= 0.5);
        }
    }

    #[test]
    fn overlap_of_two_boxes_is_their_penetration() {
        let cube = |shift: Vec3| {
            let p: Vec<Vec3> = (0..8)
                .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32) + shift)
                .collect();
            p
        };
        let t = vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ];
        let mesh = TriangleMesh::new(cube(Vec3::ZERO), t).unwrap();
        let d = deepest_overlap(&[
            (cube(Vec3::ZERO), &mesh),
            (cube(Vec3::new(0.7, 0.1, 0.1)), &mesh),
        ])
        .unwrap();
        // Corner (0.7, 0.1, 0.1) of the second cube lies 0.1 inside the first (faces y, z = 0),
        // corner (1, 1, 1) of the first 0.1 inside the second.
        assert!((d - 0.1).abs() < 1e-4, "{d}");
        let apart = deepest_overlap(&[
            (cube(Vec3::ZERO), &mesh),
            (cube(Vec3::new(1.5, 0.0, 0.0)), &mesh),
        ])
        .unwrap();
        assert_eq!(apart, 0.0);
    }

    #[test]
    fn pyramid_rows_shrink() {
        let p = barrel_pyramid(RUN_UP);
        assert_eq!(p.len(), 10);
        assert!(p.iter().all(|q| q.y >= 0.0));
    }
}
