//! The registered scenes ([`SceneId`]) and a built one ([`Demo`]): its world, its per-step update with the crate's updates, the meshes the viewer draws (posed or dented, in body frame), the self-collision pairs it highlights and the per-step statistics it shows.

use std::time::Instant;

use rapier3d_deform::crash::{DeformableHandle, PipelineParams, StepStats};
use rapier3d_deform::io::LoadError;
use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::cat::CatResolution;
use rapier3d_deform_scenes::characters::CharacterScene;
use rapier3d_deform_scenes::crash::{
    self, CarCollider, CrashGridOptions, CrashOptions, CrashScene, build_barrel_drop, build_crash,
    build_crash_grid,
};

use crate::assets;
use crate::cat::CatScene;

/// A scene registered with the testbed.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SceneId {
    /// Eight plastic cars crash at 35 m/s in four crash sites, one of them into a barrel
    /// pyramid (`crash::build_crash`, the `car_crash` example).
    CarCrash,
    /// Fifteen plastic barrels dropped on a loading dock (`crash::build_barrel_drop`).
    BarrelDrop,
    /// The Fox and Kenney's platformer character walk through falling balls
    /// (`characters::CharacterScene`, the `skinned_character` example).
    SkinnedCharacter,
    /// The BN-Tree paper's cat runs and jumps, its self-collisions in red ([`CatScene`]).
    SelfCollision,
    /// Plastic cars in head-on pairs on a grid (`crash::build_crash_grid`, the `crash_many`
    /// benchmark's layout).
    CrashMany,
}

impl SceneId {
    /// Every scene, in the order the testbed lists them.
    pub const ALL: [Self; 5] = [
        Self::CarCrash,
        Self::BarrelDrop,
        Self::SkinnedCharacter,
        Self::SelfCollision,
        Self::CrashMany,
    ];

    /// The scene's name in the testbed's list.
    ///
    /// # Performance
    /// O(1).
    pub fn name(self) -> &'static str {
        match self {
            Self::CarCrash => "car_crash",
            Self::BarrelDrop => "barrel_drop",
            Self::SkinnedCharacter => "skinned_character",
            Self::SelfCollision => "self_collision",
            Self::CrashMany => "crash_many",
        }
    }

    /// Physics steps per drawn frame: the crash scenes step at 240 Hz, the others at 60 Hz, so
    /// that at 60 frames per second each plays in real time when the machine keeps up.
    ///
    /// # Performance
    /// O(1).
    pub fn steps_per_frame(self) -> usize {
        match self {
            Self::CarCrash | Self::BarrelDrop | Self::CrashMany => 4,
            Self::SkinnedCharacter | Self::SelfCollision => 1,
        }
    }
}

/// Settings of the scenes (the testbed uses [`DemoOptions::default`]).
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemoOptions {
    /// Distance each car of `car_crash` travels before its crash (m).
    pub crash_run_up: f32,
    /// Cars of `crash_many` (even, 2 to 1024).
    pub crash_many_cars: usize,
    /// Barrels of `barrel_drop`.
    pub barrels: usize,
    /// Resolution of the cat of `self_collision`.
    pub cat: CatResolution,
}

impl Default for DemoOptions {
    /// The examples' layouts: a 30 m run-up, 16 grid cars, 15 barrels, the 15k-triangle cat.
    fn default() -> Self {
        Self {
            crash_run_up: crash::RUN_UP,
            crash_many_cars: 16,
            barrels: 15,
            cat: CatResolution::Coarse,
        }
    }
}

/// Where a drawn mesh's vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The render mesh of a plastic body, dented by its example weights.
    Plastic(DeformableHandle),
    /// The Fox's posed skin.
    Fox,
    /// The Kenney character's posed skin.
    Figure,
    /// The cat's posed skin.
    Cat,
}

/// A mesh the viewer draws shaded, following one rigid body: its triangles and colour; its
/// vertices, in the body's frame, come from [`Demo::mesh_positions`].
///
/// # Performance
/// Plain data (the triangles are copied once at build).
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnMesh {
    /// The body the mesh follows.
    pub body: RigidBodyHandle,
    /// The collider the mesh is the surface of (its `SphereProxyShape` or
    /// `DeformableMeshShape`).
    pub collider: ColliderHandle,
    /// The triangles.
    pub triangles: Vec<[u32; 3]>,
    /// Linear RGB.
    pub colour: [f32; 3],
    source: Source,
}

/// The scene behind a [`Demo`] (boxed: the scenes are large and of different sizes).
#[derive(Debug)]
enum Scene {
    Crash(Box<CrashScene>),
    Characters(Box<CharacterScene>),
    Cat(Box<CatScene>),
}

/// A built scene: its world, the crate's per-step updates, what the viewer draws.
#[derive(Debug)]
pub struct Demo {
    id: SceneId,
    scene: Scene,
    meshes: Vec<DrawnMesh>,
    stats: Vec<(&'static str, String)>,
    dent_events: usize,
    steps: usize,
}

const CAR_PAINT: [[f32; 3]; 8] = [
    [0.16, 0.35, 0.78],
    [0.12, 0.59, 0.27],
    [0.78, 0.78, 0.82],
    [0.24, 0.24, 0.27],
    [0.47, 0.24, 0.67],
    [0.08, 0.59, 0.63],
    [0.82, 0.71, 0.16],
    [0.55, 0.39, 0.24],
];
const BARREL_PAINT: [[f32; 3]; 2] = [[0.16, 0.43, 0.75], [0.92, 0.78, 0.24]];

impl Demo {
    /// Builds scene `id` with `options`, through the scene crate's builders.
    ///
    /// # Errors
    /// What the builders reject (asset construction, glTF loading, invalid options).
    ///
    /// # Performance
    /// Seconds the first time a plastic asset is needed ([`assets`]), a fraction of a second
    /// otherwise.
    pub fn build(id: SceneId, options: &DemoOptions) -> Result<Self, LoadError> {
        let mut meshes = Vec::new();
        let scene = match id {
            SceneId::CarCrash | SceneId::BarrelDrop | SceneId::CrashMany => {
                let scene = match id {
                    SceneId::CarCrash => build_crash(
                        &assets::car()?,
                        Some(&assets::barrel()?),
                        &CarCollider::Deformable(DeformableCollider::SphereProxy),
                        &CrashOptions {
                            run_up: options.crash_run_up,
                            ..CrashOptions::default()
                        },
                    )?,
                    SceneId::BarrelDrop => build_barrel_drop(
                        &assets::barrel()?,
                        options.barrels,
                        2017,
                        PipelineParams::default(),
                    )?,
                    _ => build_crash_grid(
                        &assets::car()?,
                        &CarCollider::Deformable(DeformableCollider::SphereProxy),
                        &CrashGridOptions {
                            cars: options.crash_many_cars,
                            ..CrashGridOptions::default()
                        },
                    )?,
                };
                let paints = scene
                    .cars
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (b, CAR_PAINT[i % CAR_PAINT.len()]))
                    .chain(
                        scene
                            .barrels
                            .iter()
                            .enumerate()
                            .map(|(i, b)| (b, BARREL_PAINT[i % BARREL_PAINT.len()])),
                    );
                for (body, colour) in paints {
                    let Some(h) = body.deformable else { continue };
                    let asset = scene.pipeline.asset(h)?;
                    let triangles = match asset.render() {
                        Some(r) => r.mesh().triangles().to_vec(),
                        None => asset.cage().triangles().to_vec(),
                    };
                    meshes.push(DrawnMesh {
                        body: body.rigid_body,
                        collider: body.collider,
                        triangles,
                        colour,
                        source: Source::Plastic(h),
                    });
                }
                Scene::Crash(Box::new(scene))
            }
            SceneId::SkinnedCharacter => {
                let scene = CharacterScene::build(4.0)?;
                meshes.push(DrawnMesh {
                    body: scene.fox.body(),
                    collider: scene.fox.collider(),
                    triangles: scene.fox_mesh.triangles().to_vec(),
                    colour: [0.95, 0.55, 0.2],
                    source: Source::Fox,
                });
                meshes.push(DrawnMesh {
                    body: scene.figure.body(),
                    collider: scene.figure.collider(),
                    triangles: scene.figure_mesh.triangles().to_vec(),
                    colour: [0.55, 0.45, 0.85],
                    source: Source::Figure,
                });
                Scene::Characters(Box::new(scene))
            }
            SceneId::SelfCollision => {
                let scene = CatScene::build(options.cat)?;
                meshes.push(DrawnMesh {
                    body: scene.collider.body(),
                    collider: scene.collider.collider(),
                    triangles: scene.cat.mesh().triangles().to_vec(),
                    colour: [0.93, 0.58, 0.26],
                    source: Source::Cat,
                });
                Scene::Cat(Box::new(scene))
            }
        };
        Ok(Self {
            id,
            scene,
            meshes,
            stats: Vec::new(),
            dent_events: 0,
            steps: 0,
        })
    }

    /// Which scene this is.
    ///
    /// # Performance
    /// O(1).
    pub fn id(&self) -> SceneId {
        self.id
    }

    /// The Rapier world.
    ///
    /// # Performance
    /// O(1).
    pub fn world(&self) -> &PhysicsWorld {
        match &self.scene {
            Scene::Crash(s) => &s.world,
            Scene::Characters(s) => &s.world,
            Scene::Cat(s) => &s.world,
        }
    }

    /// The Rapier world, mutably (the testbed's `set_world` and `render_frame` take it).
    ///
    /// # Performance
    /// O(1).
    pub fn world_mut(&mut self) -> &mut PhysicsWorld {
        match &mut self.scene {
            Scene::Crash(s) => &mut s.world,
            Scene::Characters(s) => &mut s.world,
            Scene::Cat(s) => &mut s.world,
        }
    }

    /// The crash scene behind `car_crash`, `barrel_drop` and `crash_many` (its pipeline, cars
    /// and barrels, dent measurements), `None` for the others.
    ///
    /// # Performance
    /// O(1).
    pub fn crash_scene(&mut self) -> Option<&mut CrashScene> {
        match &mut self.scene {
            Scene::Crash(s) => Some(&mut **s),
            _ => None,
        }
    }

    /// The skinned-character scene behind `skinned_character`, `None` for the others.
    ///
    /// # Performance
    /// O(1).
    pub fn character_scene(&self) -> Option<&CharacterScene> {
        match &self.scene {
            Scene::Characters(s) => Some(&**s),
            _ => None,
        }
    }

    /// The cat scene behind `self_collision`, `None` for the others.
    ///
    /// # Performance
    /// O(1).
    pub fn cat_scene(&self) -> Option<&CatScene> {
        match &self.scene {
            Scene::Cat(s) => Some(&**s),
            _ => None,
        }
    }

    /// Physics steps taken.
    ///
    /// # Performance
    /// O(1).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// One physics step with the crate's updates: for the crash scenes Rapier's step then
    /// `PlasticPipeline::update` (contact impulses → dents, proxy rewrites through
    /// `shape_mut`); for the skinned scenes the colliders posed from their clips (O(bones)),
    /// the step, and the self-collision query. The statistics of [`Self::stats`] are those of
    /// this step.
    ///
    /// # Errors
    /// What the scene's update rejects.
    ///
    /// # Performance
    /// The scene's step; the statistics cost O(1).
    pub fn step(&mut self) -> DeformResult<()> {
        self.stats.clear();
        let ms = |d: std::time::Duration| format!("{:.2} ms", 1e3 * d.as_secs_f64());
        match &mut self.scene {
            Scene::Crash(s) => {
                let a = Instant::now();
                s.step()?;
                let total = a.elapsed();
                let stats: StepStats = s.pipeline.stats();
                self.dent_events += s.pipeline.events().len();
                // Rapier's own timer (its counters are on once the testbed registered the
                // world; 0 otherwise).
                let rapier_ms = s.world.physics_pipeline.counters.step_time_ms();
                self.stats.extend([
                    ("step + plasticity", ms(total)),
                    ("Rapier step", format!("{rapier_ms:.2} ms")),
                    ("solver contacts", stats.contacts.to_string()),
                    ("impulses", stats.impulses.to_string()),
                    ("dented vertices", stats.dents.to_string()),
                    ("spheres rewritten (shapes)", stats.shape_writes.to_string()),
                    ("mass updates", stats.mass_writes.to_string()),
                    ("dent events so far", self.dent_events.to_string()),
                ]);
            }
            Scene::Characters(s) => {
                let refits_before = node_refits(&s.world, s.fox.collider());
                let step = s.step()?;
                let refits = node_refits(&s.world, s.fox.collider()) - refits_before;
                self.stats.extend([
                    ("pose (O(bones))", ms(step.pose)),
                    ("Rapier step", ms(step.step)),
                    ("self-collision query", ms(step.self_collisions)),
                    ("Fox collider nodes refit", refits.to_string()),
                    ("Fox self-colliding pairs", step.pairs.to_string()),
                    ("balls pushed (normal velocity)", step.pushed.to_string()),
                ]);
            }
            Scene::Cat(s) => {
                let refits_before = node_refits(&s.world, s.collider.collider());
                let step = s.step()?;
                let refits = node_refits(&s.world, s.collider.collider()) - refits_before;
                let query = s.collider.self_collision_stats().unwrap_or_default();
                self.stats.extend([
                    ("pose (O(bones))", ms(step.pose)),
                    ("Rapier step", ms(step.step)),
                    ("self-collision query", ms(step.self_collisions)),
                    ("collider nodes refit", refits.to_string()),
                    ("query: tasks", query.tasks.to_string()),
                    (
                        "query: pruned by normals",
                        query.pruned_by_normals.to_string(),
                    ),
                    ("self-colliding pairs", step.pairs.to_string()),
                ]);
            }
        }
        self.steps += 1;
        Ok(())
    }

    /// The statistics of the last [`Self::step`], as label and value.
    ///
    /// # Performance
    /// O(1).
    pub fn stats(&self) -> &[(&'static str, String)] {
        &self.stats
    }

    /// The meshes the viewer draws shaded.
    ///
    /// # Performance
    /// O(1).
    pub fn meshes(&self) -> &[DrawnMesh] {
        &self.meshes
    }

    /// Writes the current vertices of mesh `index` of [`Self::meshes`], in its body's frame:
    /// a plastic body's render mesh under its current (dented) example weights, a skinned
    /// collider's posed skin.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a mesh index past [`Self::meshes`]; what
    /// `PlasticPipeline::render_positions` rejects.
    ///
    /// # Performance
    /// O(vertices · influences).
    pub fn mesh_positions(&mut self, index: usize, out: &mut Vec<Vec3>) -> DeformResult<()> {
        let mesh = self.meshes.get(index).ok_or(DeformError::IndexOutOfRange {
            what: "drawn mesh",
            index,
            len: self.meshes.len(),
        })?;
        match (&mut self.scene, mesh.source) {
            (Scene::Crash(s), Source::Plastic(h)) => s.pipeline.render_positions(h, out)?,
            (Scene::Characters(s), Source::Fox) => s.fox.deformed_positions(out),
            (Scene::Characters(s), Source::Figure) => s.figure.deformed_positions(out),
            (Scene::Cat(s), Source::Cat) => s.collider.deformed_positions(out),
            // A drawn mesh's source belongs to its scene (built together in `build`).
            _ => {
                return Err(DeformError::IndexOutOfRange {
                    what: "drawn mesh of this scene",
                    index,
                    len: self.meshes.len(),
                });
            }
        }
        Ok(())
    }

    /// The self-colliding triangle pairs found by the last step, per collider (the Fox, the
    /// cat), for drawing in red.
    ///
    /// # Performance
    /// O(1).
    pub fn self_collisions(&self) -> Vec<(ColliderHandle, &[[u32; 2]])> {
        match &self.scene {
            Scene::Characters(s) => vec![(s.fox.collider(), s.fox.last_self_collisions())],
            Scene::Cat(s) => vec![(s.collider.collider(), s.collider.last_self_collisions())],
            Scene::Crash(_) => Vec::new(),
        }
    }

    /// The camera's eye and target when the scene opens.
    ///
    /// # Performance
    /// O(1).
    pub fn camera(&self) -> (Vec3, Vec3) {
        match self.id {
            SceneId::CarCrash => (Vec3::new(-24.0, 17.0, 26.0), Vec3::new(0.0, 0.0, 0.0)),
            SceneId::BarrelDrop => (Vec3::new(6.0, 5.0, 7.0), Vec3::new(0.0, 1.0, 0.0)),
            SceneId::SkinnedCharacter => (Vec3::new(-2.2, 1.5, -0.6), Vec3::new(0.5, 0.3, 1.3)),
            SceneId::SelfCollision => (Vec3::new(-1.0, 0.7, 1.4), Vec3::new(0.1, 0.2, 0.0)),
            SceneId::CrashMany => (Vec3::new(-24.0, 22.0, 30.0), Vec3::ZERO),
        }
    }
}

/// Node boxes the collider's `DeformableMeshShape` has computed so far (0 for another shape).
fn node_refits(world: &PhysicsWorld, collider: ColliderHandle) -> u64 {
    DeformableMeshShape::of_collider(&world.colliders, collider)
        .map_or(0, |shape| shape.refit_stats().node_refits)
}
