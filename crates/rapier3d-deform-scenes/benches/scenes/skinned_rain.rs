//! Scene `skinned_rain`: the 250k-triangle walking cat and the Loop-subdivided Fox as kinematic skinned colliders, with hundreds of balls and boxes raining on them; BN-Tree `DeformableMeshShape` (O(m) pose per step) against the deforming parry `TriMesh` a user writes today.
//!
//! Three weathers (see [`weathers`]), each run on four worlds with the same bodies stepped in
//! lockstep (the order rotates every step): **drizzle** (the headline metrics: drops one after
//! another from 2–6 cm, each removed 15 steps after it spawned, a few touching a character at a
//! time — sparse contact), **rain** (suffix `_rain`: from 15–45 cm, each alive 40 steps) and
//! **pile** (suffix `_pile`: 400 bodies dropped at once and never removed, most ending at rest on
//! the characters — dense contact, where the contact points of hundreds of resting bodies on
//! 3 mm triangles dominate both routes).
//!
//! The worlds:
//!
//! * **bntree**: both characters are `DeformableMeshShape` colliders posed every step with
//!   `pipeline::pose_deformable_mesh` (O(m), Rapier's `SHAPE` flag); the `DeformDispatcher`
//!   refits the nodes the contact queries reach;
//! * **trimesh_deformable**: both are parry `TriMesh`es with `TriMeshFlags::DEFORMABLE` (the flag
//!   parry requires for vertices that move between queries; `ORIENTED` or `FIX_INTERNAL_EDGES`
//!   would add an O(T) pseudo-normal pass per update, about 15× the refit), updated every step
//!   by skinning every vertex and `set_vertices` (a full leaf-box pass and BVH refit). Both
//!   routes get explicit collider mass properties (kinematic bodies do not need them; without
//!   them Rapier would recompute `MassProperties::from_trimesh`, O(T), at every `SHAPE` change);
//! * **frozen** and **frozen_flag**: the BN-Tree world with the characters frozen in their first
//!   pose, the second calling `shape_mut()` every step without changing anything: the difference
//!   is what Rapier's `SHAPE` flag itself costs per step (broad-phase refresh, workspace resets,
//!   no contact recycling, wake-ups, mass recompute).
//!
//! A step's time is the update of both characters plus `world.step()`. Outside the timed region
//! each step reads the BN-Tree refit counters (`nodes_refit_fraction`: nodes whose box was
//! computed in the step over all nodes of both trees), the contact points of the character pairs
//! and their deepest penetration; every few steps, the bodies whose centre is inside a character
//! (ray parity against the collider itself: a body that tunnelled in) and below the ground.

use super::runner::{PlotSpec, RunOptions, SceneReport, Section, median};
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::character::pose_deformable_mesh;
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle};
use rapier3d_deform::rapier3d::geometry::{
    ColliderBuilder, ColliderHandle, NarrowPhase, SharedShape, TriMeshFlags,
};
use rapier3d_deform::rapier3d::math::Pose;
use rapier3d_deform::rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d_deform::rapier3d::parry::mass_properties::MassProperties;
use rapier3d_deform::rapier3d::parry::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, QueryDispatcher,
};
use rapier3d_deform::rapier3d::parry::shape::Shape;
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use rapier3d_deform_scenes::fox::SubdividedFox;
use rapier3d_deform_scenes::ray_parity::{TILTED_DIRECTIONS, odd_crossings};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Rapier's `length_unit`: about the size of the dynamic bodies (1–2 cm balls and boxes), as
/// Rapier's documentation asks. It scales the contact prediction distance (2 cm at the default
/// 1 m, 1 mm here): with a 1 m unit every body would pair with every triangle within 2 cm,
/// hundreds of 3 mm triangles per resting body, in both routes.
///
/// Contact points scale with a body's contact area over the triangle area in both routes (one
/// manifold per triangle, as parry's `TriMesh` does): a 4 cm box lying on the cat's 3 mm
/// triangles makes about 500. The bodies are marble-sized so that a few touching bodies stay a
/// few hundred points (the sparse contact of the drizzle).
const LENGTH_UNIT: f32 = 0.05;

/// Rapier's soft CCD on the drops of the rain and the pile (both routes): while a body approaches
/// a surface faster than the prediction distance per step, its contacts are predicted up to
/// `dt · speed` ahead (up to this distance), so a 2 cm body falling at 3 m/s (5 cm per step) is
/// caught by speculative contacts instead of appearing inside the mesh; at rest the prediction
/// is the usual 1 mm. The price is more contact points while bodies approach (every triangle
/// within `dt · speed`), in both routes.
const SOFT_CCD: f32 = 0.2;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    cat: CatResolution,
    fox_levels: u32,
    steps: usize,
    /// Inside/below checks every this many steps.
    check_every: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                cat: CatResolution::Tiny,
                fox_levels: 1,
                steps: 60,
                check_every: 5,
            }
        } else {
            Self {
                cat: CatResolution::Full,
                fox_levels: 4,
                steps: 360,
                check_every: 10,
            }
        }
    }
}

/// Tree options of the characters: the crate's defaults (tuned for self-collision: leaves of 16
/// triangles, O(m) data where a node has 64 triangles per governor). Smaller leaves and more O(m)
/// nodes suit a collider better (BENCHMARKS.md: 8 and 8 refit a third of the nodes and
/// vertices); the headline uses what a user gets without tuning.
fn tree_options() -> BnTreeOptions {
    BnTreeOptions::default()
}

/// An animated character: rest mesh, skin weights, tree, and its governors at every step
/// (already placed in the world: scaled and moved).
struct Character {
    triangles: Vec<[u32; 3]>,
    rest: Vec<Vec3>,
    weights: ConvexWeights,
    tree: Arc<BnTree>,
    frames: Vec<Vec<Affine>>,
}

/// `g ↦ place ∘ g` for every governor.
fn placed(place: &Affine, governors: &[Affine]) -> Vec<Affine> {
    governors.iter().map(|g| place.compose(g)).collect()
}

fn cat_character(resolution: CatResolution, steps: usize, dt: f32) -> Character {
    let t = Instant::now();
    let mut cat = Cat::build(resolution).unwrap_or_else(|e| panic!("cat: {e}"));
    let frames = (0..steps)
        .map(|s| {
            let world = cat.pose(Gait::Walk, s as f32 * dt);
            cat.skinning_mut()
                .set_bone_transforms(&world)
                .unwrap_or_else(|e| panic!("{e}"));
            cat.skinning().governors().to_vec()
        })
        .collect();
    let tree = Arc::new(
        BnTree::build_with(
            cat.mesh(),
            cat.skinning().rest_positions(),
            cat.skinning().weights(),
            tree_options(),
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    eprintln!(
        "  cat: {} triangles, tree of {} nodes ({:.1} s)",
        cat.mesh().triangle_count(),
        tree.nodes().len(),
        t.elapsed().as_secs_f64()
    );
    Character {
        triangles: cat.mesh().triangles().to_vec(),
        rest: cat.skinning().rest_positions().to_vec(),
        weights: cat.skinning().weights().clone(),
        tree,
        frames,
    }
}

/// The Fox scaled to `length` along its longest axis, its rest feet on `y = 0`, centred at
/// `centre` (x, z).
fn fox_character(levels: u32, steps: usize, dt: f32, length: f32, centre: Vec3) -> Character {
    let t = Instant::now();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/skinned/Fox.glb");
    let mut fox = SubdividedFox::load(path, levels).unwrap_or_else(|e| panic!("fox: {e}"));
    let clip = fox
        .clip("Walk")
        .unwrap_or_else(|| panic!("the Fox has a Walk clip"))
        .clone();
    let skin: &LinearBlendSkinning = fox.skinning();
    let rest = skin.rest_positions().to_vec();
    let weights = skin.weights().clone();
    // Place from the first posed frame (the clip's bind differs from the mesh's rest).
    let first = fox
        .governors_at(&clip, 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut posed = Vec::new();
    deform_vertices(&rest, &weights, &first, &mut posed);
    let (lo, hi) = posed
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let scale = length / (hi - lo).max_element();
    let mid = 0.5 * (lo + hi);
    let place = Affine::new(
        Mat3::from_diagonal(Vec3::splat(scale)),
        Vec3::new(
            centre.x - scale * mid.x,
            -scale * lo.y,
            centre.z - scale * mid.z,
        ),
    );
    let frames = (0..steps)
        .map(|s| {
            let g = fox
                .governors_at(&clip, s as f32 * dt)
                .unwrap_or_else(|e| panic!("{e}"));
            placed(&place, &g)
        })
        .collect();
    let tree = Arc::new(
        BnTree::build_with(fox.mesh(), &rest, &weights, tree_options())
            .unwrap_or_else(|e| panic!("{e}")),
    );
    eprintln!(
        "  fox: {} triangles, tree of {} nodes, scale {scale:.4} ({:.1} s)",
        fox.mesh().triangle_count(),
        tree.nodes().len(),
        t.elapsed().as_secs_f64()
    );
    Character {
        triangles: fox.mesh().triangles().to_vec(),
        rest,
        weights,
        tree,
        frames,
    }
}

/// A SplitMix64 stream in `[0, 1)`.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// One falling body: ball (`half.x` = radius) or box, inserted at step `spawn` and removed
/// `lifetime` steps later (never, for `None`).
#[derive(Clone, Copy)]
struct Drop {
    position: Vec3,
    ball: bool,
    half: Vec3,
    spawn: usize,
    lifetime: Option<usize>,
    /// Rapier's soft-CCD prediction distance of the body (0: off).
    soft_ccd: f32,
}

/// How bodies fall in one configuration (a "weather").
#[derive(Clone, Copy, Debug, PartialEq)]
struct Weather {
    /// Name in tables; metric suffix (`""` for the headline weather).
    name: &'static str,
    suffix: &'static str,
    /// Bodies.
    count: usize,
    /// Steps a body lives after it spawned (`None`: all spawn at once and stay).
    lifetime: Option<usize>,
    /// Drop height above the character's box: `lo + (hi − lo) · u`.
    height: (f32, f32),
    /// Soft CCD of the bodies (see [`SOFT_CCD`]; 0 when they fall too slowly to tunnel).
    soft_ccd: f32,
}

/// The three weathers of a run, sparsest first (the first gives the headline metrics).
///
/// * **drizzle**: drops spawned one after another over the whole run, 2–6 cm above the
///   characters, each removed 15 steps after it spawned (it has hit a character or the ground
///   and bounced by then): about a dozen bodies alive, a few touching a character at a time —
///   sparse contact. They land at under 1.1 m/s (1.8 cm per step, about their size), slowly
///   enough without soft CCD (`bodies_inside_mesh` checks it);
/// * **rain**: the same from 15–45 cm, each alive 40 steps (a few dozen alive, about ten
///   touching or resting at a time);
/// * **pile**: every body dropped at once (staggered over 1.5 m) and never removed, most ending
///   at rest on the characters: dense contact.
fn weathers(quick: bool) -> [Weather; 3] {
    let (drizzle, rain, pile) = if quick { (40, 48, 48) } else { (300, 400, 400) };
    [
        Weather {
            name: "drizzle",
            suffix: "",
            count: drizzle,
            lifetime: Some(if quick { 10 } else { 15 }),
            height: (0.02, 0.06),
            soft_ccd: 0.0,
        },
        Weather {
            name: "rain",
            suffix: "_rain",
            count: rain,
            lifetime: Some(if quick { 24 } else { 40 }),
            height: (0.15, 0.45),
            soft_ccd: SOFT_CCD,
        },
        Weather {
            name: "pile",
            suffix: "_pile",
            count: pile,
            lifetime: None,
            height: (0.1, 1.6),
            soft_ccd: SOFT_CCD,
        },
    ]
}

/// The bodies of `weather`: balls (radius 1–2 cm) and boxes (half extents 1–2 cm) above the characters' boxes (widened by
/// a quarter of their size on each side, so some miss and land on the ground).
fn drops(boxes: &[(Vec3, Vec3)], weather: &Weather, steps: usize) -> Vec<Drop> {
    let mut j = Jitter(2016);
    let count = weather.count;
    (0..count)
        .map(|k| {
            let (lo, hi) = boxes[k % boxes.len()];
            let margin = 0.25 * (hi - lo);
            let x = lo.x - margin.x + (hi.x - lo.x + 2.0 * margin.x) * j.next();
            let z = lo.z - margin.z + (hi.z - lo.z + 2.0 * margin.z) * j.next();
            let ball = k % 2 == 0;
            let s = 0.01 + 0.01 * j.next();
            let (h0, h1) = weather.height;
            let (y, spawn) = match weather.lifetime {
                Some(lifetime) => (
                    hi.y + h0 + (h1 - h0) * j.next(),
                    k * steps.saturating_sub(lifetime) / count,
                ),
                None => (
                    hi.y + h0 + (h1 - h0) * (k as f32 / count as f32) + 0.05 * j.next(),
                    0,
                ),
            };
            Drop {
                position: Vec3::new(x, y, z),
                ball,
                half: if ball {
                    Vec3::splat(s)
                } else {
                    Vec3::new(s, 0.8 * s, 0.9 * s)
                },
                spawn,
                lifetime: weather.lifetime,
                soft_ccd: weather.soft_ccd,
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    BnTree,
    TriMesh,
    Frozen,
    FrozenFlag,
}

const ROUTES: [Route; 4] = [
    Route::BnTree,
    Route::TriMesh,
    Route::Frozen,
    Route::FrozenFlag,
];

impl Route {
    fn name(self) -> &'static str {
        match self {
            Route::BnTree => "bntree",
            Route::TriMesh => "trimesh_deformable",
            Route::Frozen => "frozen",
            Route::FrozenFlag => "frozen_flag",
        }
    }
}

/// One world of the comparison.
struct Run {
    route: Route,
    world: PhysicsWorld,
    /// Per character: its collider.
    meshes: Vec<ColliderHandle>,
    /// Per drop: its body while alive.
    bodies: Vec<Option<RigidBodyHandle>>,
    /// Skinning buffer of the TriMesh route.
    buffer: Vec<Vec3>,
}

impl Run {
    fn new(route: Route, characters: &[Character], drops: usize) -> Self {
        let mut world = PhysicsWorld::new();
        world.integration_parameters.length_unit = LENGTH_UNIT;
        if route != Route::TriMesh {
            world.narrow_phase =
                NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
        }
        let ground = world.insert_body(RigidBodyBuilder::fixed());
        world.insert_collider(
            ColliderBuilder::cuboid(20.0, 0.1, 20.0).translation(Vec3::new(0.0, -0.1, 0.0)),
            Some(ground),
        );
        let mass = MassProperties::from_ball(1000.0, 0.3);
        let mut meshes = Vec::new();
        for c in characters {
            let body = world.insert_body(RigidBodyBuilder::kinematic_position_based());
            let shape = match route {
                Route::TriMesh => {
                    let mut v = Vec::new();
                    deform_vertices(&c.rest, &c.weights, &c.frames[0], &mut v);
                    SharedShape::trimesh_with_flags(
                        v,
                        c.triangles.clone(),
                        TriMeshFlags::DEFORMABLE,
                    )
                    .unwrap_or_else(|e| panic!("{e:?}"))
                }
                _ => SharedShape::new(
                    DeformableMeshShape::new(c.tree.clone(), &c.frames[0])
                        .unwrap_or_else(|e| panic!("{e}")),
                ),
            };
            meshes.push(
                world.insert_collider(
                    ColliderBuilder::new(shape)
                        .mass_properties(mass)
                        .friction(0.6),
                    Some(body),
                ),
            );
        }
        Self {
            route,
            world,
            meshes,
            bodies: vec![None; drops],
            buffer: Vec::new(),
        }
    }

    /// Spawns and removes the drops scheduled at step `s` (outside the timed region).
    fn weather(&mut self, drops: &[Drop], s: usize) {
        for (k, d) in drops.iter().enumerate() {
            if d.spawn == s && self.bodies[k].is_none() {
                let h = self.world.insert_body(
                    RigidBodyBuilder::dynamic()
                        .translation(d.position)
                        .soft_ccd_prediction(d.soft_ccd),
                );
                let co = if d.ball {
                    ColliderBuilder::ball(d.half.x)
                } else {
                    ColliderBuilder::cuboid(d.half.x, d.half.y, d.half.z)
                };
                self.world
                    .insert_collider(co.friction(0.6).restitution(0.1), Some(h));
                self.bodies[k] = Some(h);
            }
            if d.lifetime.is_some_and(|l| d.spawn + l == s)
                && let Some(h) = self.bodies[k].take()
            {
                let w = &mut self.world;
                w.bodies.remove(
                    h,
                    &mut w.islands,
                    &mut w.colliders,
                    &mut w.impulse_joints,
                    &mut w.multibody_joints,
                    &mut w.soft_bodies,
                    true,
                );
            }
        }
    }

    /// Updates the characters for step `s` and steps; returns (update ms, total ms).
    fn step(&mut self, characters: &[Character], s: usize) -> (f64, f64) {
        let t = Instant::now();
        for (c, &h) in characters.iter().zip(&self.meshes) {
            match self.route {
                Route::BnTree => {
                    pose_deformable_mesh(&mut self.world.colliders, h, &c.frames[s])
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                Route::TriMesh => {
                    deform_vertices(&c.rest, &c.weights, &c.frames[s], &mut self.buffer);
                    self.world.colliders[h]
                        .shape_mut()
                        .as_trimesh_mut()
                        .unwrap_or_else(|| panic!("a TriMesh"))
                        .set_vertices(&self.buffer);
                }
                Route::Frozen => {}
                Route::FrozenFlag => {
                    let _ = self.world.colliders[h].shape_mut();
                }
            }
        }
        let update = t.elapsed().as_secs_f64() * 1e3;
        self.world.step();
        (update, t.elapsed().as_secs_f64() * 1e3)
    }

    /// Contact points between the characters and the bodies, and the deepest penetration.
    fn contacts(&self) -> (usize, f32) {
        let mut points = 0;
        let mut deepest = 0.0f32;
        for &h in &self.meshes {
            for pair in self.world.narrow_phase.contact_pairs_with(h) {
                for m in pair.manifolds() {
                    points += m.points.len();
                    for p in &m.points {
                        deepest = deepest.max(-p.dist);
                    }
                }
            }
        }
        (points, deepest)
    }

    /// BN-Tree node and vertex refits of the last step, over both trees.
    fn refits(&self) -> (u64, u64) {
        let mut out = (0, 0);
        for &h in &self.meshes {
            if let Some(s) = self.world.colliders[h]
                .shape()
                .as_shape::<DeformableMeshShape>()
            {
                let r = s.refit_stats();
                out.0 += r.node_refits;
                out.1 += r.vertices_deformed;
            }
        }
        out
    }

    /// Bodies whose centre is inside a character (ray parity against its collider), and bodies
    /// below the ground.
    fn tunnelled(&self) -> (usize, usize) {
        let mut inside = 0;
        let mut below = 0;
        for &b in self.bodies.iter().flatten() {
            let p = self.world.bodies[b].translation();
            if p.y < -0.05 {
                below += 1;
            }
            if self.meshes.iter().any(|&h| {
                let co = &self.world.colliders[h];
                inside_closed(co.shape(), co.position(), p)
            }) {
                inside += 1;
            }
        }
        (inside, below)
    }
}

/// Contact points and deepest penetration of every body of `tri`'s world against the characters,
/// computed on that same state by both routes' dispatchers: parry's on `tri`'s `TriMesh`es, the
/// crate's on `bn`'s `DeformableMeshShape`s posed identically (same governors, same vertices).
/// Returns `[(points, deepest); 2]` for (bntree, trimesh).
fn same_state_contacts(bn: &Run, tri: &Run) -> [(usize, f32); 2] {
    let prediction = tri.world.integration_parameters.prediction_distance();
    let dispatchers: [&dyn PersistentQueryDispatcher<(), ()>; 2] =
        [&DeformDispatcher, &DefaultQueryDispatcher];
    let mut out = [(0usize, 0.0f32); 2];
    for (&hb, &ht) in bn.meshes.iter().zip(&tri.meshes) {
        // Per-triangle points, as the `TriMesh` reports them (merging coincident points is
        // checked against parry by the `mesh_collider::queries` tests).
        let per_triangle = bn.world.colliders[hb]
            .shape()
            .as_shape::<DeformableMeshShape>()
            .map(|s| s.clone().with_contact_points_per_triangle());
        let shapes: [&dyn Shape; 2] = [
            per_triangle
                .as_ref()
                .map_or(bn.world.colliders[hb].shape(), |s| s as &dyn Shape),
            tri.world.colliders[ht].shape(),
        ];
        let mesh_pose = *tri.world.colliders[ht].position();
        let aabb = tri.world.colliders[ht].compute_aabb();
        for &b in tri.bodies.iter().flatten() {
            let body = &tri.world.bodies[b];
            let Some(&c) = body.colliders().first() else {
                continue;
            };
            let co = &tri.world.colliders[c];
            if !co.compute_aabb().loosened(prediction).intersects(&aabb) {
                continue;
            }
            let pos12 = mesh_pose.inv_mul(co.position());
            for (k, (d, shape)) in dispatchers.iter().zip(shapes).enumerate() {
                let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
                let mut workspace = None;
                let _ = d.contact_manifolds(
                    &pos12,
                    shape,
                    co.shape(),
                    prediction,
                    &mut manifolds,
                    &mut workspace,
                );
                for m in &manifolds {
                    out[k].0 += m.points.len();
                    for p in &m.points {
                        out[k].1 = out[k].1.max(-p.dist);
                    }
                }
            }
        }
    }
    out
}

/// Ray parity: an odd number of surface crossings along a fixed, slightly tilted direction.
fn inside_closed(shape: &dyn Shape, pose: &Pose, point: Vec3) -> bool {
    let local = pose.inverse_transform_point(point);
    if !shape.compute_local_aabb().contains_local_point(local) {
        return false;
    }
    odd_crossings(shape, local, TILTED_DIRECTIONS[0].normalize())
}

/// What one route measured.
#[derive(Default)]
struct Tally {
    total_ms: Vec<f64>,
    update_ms: Vec<f64>,
    contacts: Vec<f64>,
    penetration: Vec<f64>,
    inside: usize,
    below: usize,
}

/// What one weather measured.
struct Outcome {
    tallies: Vec<Tally>,
    node_fraction: Vec<f64>,
    vertex_fraction: Vec<f64>,
    same_state: [(usize, f32); 2],
    alive_mean: f64,
}

/// Runs the four worlds in lockstep under one weather.
fn simulate(characters: &[Character], drops: &[Drop], sizes: &Sizes) -> Outcome {
    let nodes: usize = characters.iter().map(|c| c.tree.nodes().len()).sum();
    let vertices: usize = characters.iter().map(|c| c.rest.len()).sum();
    let mut runs: Vec<Run> = ROUTES
        .iter()
        .map(|&r| Run::new(r, characters, drops.len()))
        .collect();
    let mut out = Outcome {
        tallies: ROUTES.iter().map(|_| Tally::default()).collect(),
        node_fraction: Vec::new(),
        vertex_fraction: Vec::new(),
        same_state: [(0, 0.0); 2],
        alive_mean: 0.0,
    };
    let started = Instant::now();
    for s in 0..sizes.steps {
        for run in &mut runs {
            run.weather(drops, s);
        }
        out.alive_mean += runs[0].bodies.iter().flatten().count() as f64 / sizes.steps as f64;
        for k in 0..runs.len() {
            let i = (s + k) % runs.len();
            let (update, total) = runs[i].step(characters, s);
            out.tallies[i].update_ms.push(update);
            out.tallies[i].total_ms.push(total);
        }
        let check = (s + 1) % sizes.check_every == 0 || s + 1 == sizes.steps;
        if check {
            let (bn, tri) = (&runs[0], &runs[1]);
            for (acc, (points, deepest)) in
                out.same_state.iter_mut().zip(same_state_contacts(bn, tri))
            {
                acc.0 += points;
                acc.1 = acc.1.max(deepest);
            }
        }
        for (run, tally) in runs.iter().zip(&mut out.tallies) {
            let (points, deepest) = run.contacts();
            tally.contacts.push(points as f64);
            tally.penetration.push(deepest as f64);
            if run.route == Route::BnTree {
                let (n, v) = run.refits();
                out.node_fraction.push(n as f64 / nodes as f64);
                out.vertex_fraction.push(v as f64 / vertices as f64);
            }
            if check {
                let (inside, below) = run.tunnelled();
                tally.inside = tally.inside.max(inside);
                tally.below = tally.below.max(below);
            }
        }
    }
    eprintln!("  stepped in {:.1} s", started.elapsed().as_secs_f64());
    out
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(0.0, f64::max)
}

/// A metric name with a suffix (the runner wants `'static` names; a bench process runs once).
fn named(base: &str, suffix: &str) -> &'static str {
    Box::leak(format!("{base}{suffix}").into_boxed_str())
}

/// Writes the metrics of one weather (`suffix` appended to every name).
fn report_outcome(
    report: &mut SceneReport,
    o: &Outcome,
    weather: &Weather,
    label: &str,
    sizes: &Sizes,
    nodes: usize,
    vertices: usize,
) {
    let suffix = weather.suffix;
    let tally = |r: Route| tally(o, r);
    let ms = |r: Route| mean(&tally(r).total_ms);
    report.metric(
        named("ms_per_step_bntree", suffix),
        ms(Route::BnTree),
        format!(
            "{label}: DeformableMeshShape, pose_deformable_mesh (O(m)) + step; mean over steps"
        ),
    );
    report.metric(
        named("ms_per_step_trimesh_deformable", suffix),
        ms(Route::TriMesh),
        format!("{label}: TriMesh DEFORMABLE, skin every vertex + set_vertices + step"),
    );
    report.metric(
        named("speedup_vs_trimesh", suffix),
        ms(Route::TriMesh) / ms(Route::BnTree),
        "trimesh_deformable / bntree (target ≥ 10 at ~250k triangles with sparse contact)",
    );
    report.metric(
        named("ms_update_bntree", suffix),
        mean(&tally(Route::BnTree).update_ms),
        "the pose update alone (both characters)",
    );
    report.metric(
        named("ms_update_trimesh_deformable", suffix),
        mean(&tally(Route::TriMesh).update_ms),
        "skinning every vertex + set_vertices alone (both characters)",
    );
    report.metric(
        named("nodes_refit_fraction", suffix),
        mean(&o.node_fraction),
        format!("BN-Tree node boxes computed per step / all {nodes} nodes (mean over steps)"),
    );
    report.metric(
        named("nodes_refit_fraction_max", suffix),
        max(&o.node_fraction),
        "largest per-step fraction",
    );
    report.metric(
        named("vertices_deformed_fraction", suffix),
        mean(&o.vertex_fraction),
        format!("vertices deformed per step / all {vertices} (mean over steps)"),
    );
    for (r, name) in [
        (Route::BnTree, "max_penetration_bntree"),
        (Route::TriMesh, "max_penetration_trimesh_deformable"),
    ] {
        report.metric(
            named(name, suffix),
            max(&tally(r).penetration),
            "deepest contact of a body into a character (m), over all steps",
        );
    }
    for (r, name) in [
        (Route::BnTree, "bodies_inside_mesh_bntree"),
        (Route::TriMesh, "bodies_inside_mesh_trimesh_deformable"),
    ] {
        report.metric(
            named(name, suffix),
            tally(r).inside as f64,
            format!(
                "bodies whose centre is inside a character (tunnelled), most at any check (every {} steps)",
                sizes.check_every
            ),
        );
    }
    for (r, name) in [
        (Route::BnTree, "bodies_below_ground_bntree"),
        (Route::TriMesh, "bodies_below_ground_trimesh_deformable"),
    ] {
        report.metric(
            named(name, suffix),
            tally(r).below as f64,
            "bodies below y = −5 cm",
        );
    }
    let (cb, ct) = (
        mean(&tally(Route::BnTree).contacts),
        mean(&tally(Route::TriMesh).contacts),
    );
    report.metric(
        named("contacts_mean_bntree", suffix),
        cb,
        "contact points of the character pairs per step",
    );
    report.metric(
        named("contacts_mean_trimesh_deformable", suffix),
        ct,
        "contact points of the character pairs per step",
    );
    report.metric(
        named("contacts_ratio", suffix),
        cb / ct,
        "bntree / trimesh_deformable (each world's own state; the bodies' paths diverge; the BN-Tree \
         shapes keep one copy of a point the triangles around a vertex share)",
    );
    report.metric(
        named("contacts_same_state_ratio", suffix),
        o.same_state[0].0 as f64 / o.same_state[1].0 as f64,
        format!(
            "contact points of both dispatchers on the same states (the TriMesh world's, every {} steps; \
             the BN-Tree shapes with per-triangle points): {} vs {}",
            sizes.check_every, o.same_state[0].0, o.same_state[1].0
        ),
    );
    report.metric(
        named("max_penetration_same_state_bntree", suffix),
        o.same_state[0].1 as f64,
        "deepest contact on those states, BN-Tree dispatcher (m)",
    );
    report.metric(
        named("max_penetration_same_state_trimesh", suffix),
        o.same_state[1].1 as f64,
        "deepest contact on those states, parry TriMesh (m)",
    );
    report.metric(
        named("ms_per_step_frozen", suffix),
        ms(Route::Frozen),
        "BN-Tree world, characters frozen in their first pose, no update",
    );
    report.metric(
        named("ms_per_step_frozen_flag", suffix),
        ms(Route::FrozenFlag),
        "the same with shape_mut() (Rapier's SHAPE flag) every step, nothing changed",
    );
    report.metric(
        named("step_cost_vs_frozen", suffix),
        ms(Route::BnTree) / ms(Route::Frozen),
        "bntree / frozen: a posed BN-Tree collider's step over the same collider frozen in its first pose (target ≤ 1.2)",
    );
    report.metric(
        named("shape_flag_ms_per_step", suffix),
        ms(Route::FrozenFlag) - ms(Route::Frozen),
        "what the SHAPE flag costs per step (frozen_flag − frozen)",
    );
    report.metric(
        named("bodies_alive_mean", suffix),
        o.alive_mean,
        "bodies in the world per step (mean)",
    );
    let mut section = Section {
        title: format!("per-route step times (ms), {}", weather.name),
        header: [
            "route",
            "mean",
            "median",
            "max",
            "update mean",
            "contacts mean",
            "ms per 1k contacts",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (r, t) in ROUTES.iter().zip(&o.tallies) {
        let mut xs = t.total_ms.clone();
        section.rows.push(vec![
            r.name().to_string(),
            format!("{:.3}", mean(&t.total_ms)),
            format!("{:.3}", median(&mut xs)),
            format!("{:.3}", max(&t.total_ms)),
            format!("{:.3}", mean(&t.update_ms)),
            format!("{:.0}", mean(&t.contacts)),
            format!(
                "{:.3}",
                1e3 * mean(&t.total_ms) / mean(&t.contacts).max(1.0)
            ),
        ]);
    }
    report.sections.push(section);
}

/// The tally of route `r`.
fn tally(o: &Outcome, r: Route) -> &Tally {
    &o.tallies[ROUTES.iter().position(|x| *x == r).unwrap_or(0)]
}

/// Per-step total times of route `r`.
fn column(o: &Outcome, r: Route) -> &[f64] {
    &tally(o, r).total_ms
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let dt = PhysicsWorld::new().integration_parameters.dt;
    let t0 = Instant::now();
    let cat = cat_character(sizes.cat, sizes.steps, dt);
    let (cat_lo, cat_hi) = cat
        .rest
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let cat_length = (cat_hi - cat_lo).max_element();
    let fox = fox_character(
        sizes.fox_levels,
        sizes.steps,
        dt,
        cat_length,
        Vec3::new(0.0, 0.0, cat_hi.z + 0.6 * cat_length),
    );
    let characters = vec![cat, fox];
    // Drop zones: each character's posed box in its first frame.
    let boxes: Vec<(Vec3, Vec3)> = characters
        .iter()
        .map(|c| {
            let mut v = Vec::new();
            deform_vertices(&c.rest, &c.weights, &c.frames[0], &mut v);
            v.iter()
                .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)))
        })
        .collect();
    let nodes: usize = characters.iter().map(|c| c.tree.nodes().len()).sum();
    let vertices: usize = characters.iter().map(|c| c.rest.len()).sum();
    let triangles: Vec<usize> = characters.iter().map(|c| c.triangles.len()).collect();
    eprintln!(
        "  {} steps at {:.0} Hz; assets built in {:.1} s",
        sizes.steps,
        1.0 / dt,
        t0.elapsed().as_secs_f64()
    );
    let weathers = weathers(options.quick);
    let mut outcomes = Vec::new();
    for w in &weathers {
        let bodies = drops(&boxes, w, sizes.steps);
        eprintln!("  {}: {} bodies", w.name, bodies.len());
        outcomes.push(simulate(&characters, &bodies, &sizes));
    }

    let mut report = SceneReport::new("skinned_rain");
    for (w, o) in weathers.iter().zip(&outcomes) {
        let label = format!(
            "cat {} + fox {} triangles, {} of {} bodies",
            triangles[0], triangles[1], w.name, w.count
        );
        report_outcome(&mut report, o, w, &label, &sizes, nodes, vertices);
    }
    report.metric("triangles_cat", triangles[0] as f64, "");
    report.metric("triangles_fox", triangles[1] as f64, "");
    report.metric(
        "bodies",
        weathers[0].count as f64,
        format!(
            "balls and boxes of the headline weather ({}: each alive {:?} steps)",
            weathers[0].name, weathers[0].lifetime
        ),
    );
    report.metric(
        "steps",
        sizes.steps as f64,
        format!("dt = 1/{:.0} s, length_unit {LENGTH_UNIT} m", 1.0 / dt),
    );

    let mut columns = vec!["step".to_string()];
    for w in &weathers {
        for r in [Route::BnTree, Route::TriMesh] {
            columns.push(format!("ms_{}_{}", r.name(), w.name));
        }
    }
    for w in &weathers {
        columns.push(format!("nodes_refit_percent_{}", w.name));
    }
    for w in &weathers {
        columns.push(format!("contacts_bntree_{}", w.name));
        columns.push(format!("contacts_trimesh_{}", w.name));
    }
    columns.extend(
        [
            "ms_frozen_drizzle",
            "ms_frozen_flag_drizzle",
            "penetration_mm_bntree_drizzle",
            "penetration_mm_trimesh_drizzle",
        ]
        .map(String::from),
    );
    report.frames.columns = columns;
    let head = &outcomes[0];
    for s in 0..sizes.steps {
        let mut row = vec![s as f64];
        for o in &outcomes {
            row.push(column(o, Route::BnTree)[s]);
            row.push(column(o, Route::TriMesh)[s]);
        }
        for o in &outcomes {
            row.push(100.0 * o.node_fraction[s]);
        }
        for o in &outcomes {
            row.push(tally(o, Route::BnTree).contacts[s]);
            row.push(tally(o, Route::TriMesh).contacts[s]);
        }
        row.push(column(head, Route::Frozen)[s]);
        row.push(column(head, Route::FrozenFlag)[s]);
        row.push(1e3 * tally(head, Route::BnTree).penetration[s]);
        row.push(1e3 * tally(head, Route::TriMesh).penetration[s]);
        report.frames.rows.push(row);
    }
    report.plot = Some(PlotSpec {
        title: format!(
            "skinned_rain ({}k + {}k triangles): ms per step, % nodes refit",
            triangles[0] / 1000,
            triangles[1] / 1000
        ),
        y_label: "ms per step / % nodes refit".to_string(),
        // Drizzle and pile (the rain is in the CSV), and the drizzle's refit percentage.
        series: vec![1, 2, 5, 6, 7],
        log_y: true,
    });
    report
}
