//! The registered scenes ([`SceneId`]) and a built one ([`Demo`]): its world, its per-step update with the crate's updates, the meshes the viewer draws (posed, dented or simulated, in body frame, with per-vertex palette colours: dents by depth, cloth by the seed's colour code), the self-collision pairs it highlights and the per-step statistics it shows.

use std::time::Instant;

use rapier3d_deform::cloth::VertexState;
use rapier3d_deform::crash::{DeformableHandle, PipelineParams, StepStats};
use rapier3d_deform::io::LoadError;
use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::cat::CatResolution;
use rapier3d_deform_scenes::characters::CharacterScene;
use rapier3d_deform_scenes::crash::{
    self, BARREL_DENT_SCALE, CAR_DENT_SCALE, CarCollider, CrashGridOptions, CrashOptions,
    CrashScene, build_barrel_drop, build_crash, build_crash_grid,
};
use rapier3d_deform_scenes::garment as colours;
use rapier3d_deform_scenes::render::{Rgb, dent_tint};

use crate::assets;
use crate::cat::CatScene;
use crate::garment::{Garment, GarmentScene, ms};

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
    /// A cape on the running Fox ([`GarmentScene`], the `cloth_cape` example).
    ClothCape,
    /// A skirt on the walking RiggedFigure ([`GarmentScene`], the `cloth_skirt` example).
    ClothSkirt,
    /// The MakeHuman sportsuit on its walking body ([`GarmentScene`], the `cloth_garment`
    /// example).
    ClothGarment,
}

impl SceneId {
    /// Every scene, in the order the testbed lists them.
    pub const ALL: [Self; 8] = [
        Self::CarCrash,
        Self::BarrelDrop,
        Self::SkinnedCharacter,
        Self::SelfCollision,
        Self::CrashMany,
        Self::ClothCape,
        Self::ClothSkirt,
        Self::ClothGarment,
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
            Self::ClothCape => "cloth_cape",
            Self::ClothSkirt => "cloth_skirt",
            Self::ClothGarment => "cloth_garment",
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
            Self::SkinnedCharacter
            | Self::SelfCollision
            | Self::ClothCape
            | Self::ClothSkirt
            | Self::ClothGarment => 1,
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
    /// Loop subdivisions of the avatars of `cloth_cape` and `cloth_skirt` (the examples use 2).
    pub garment_subdivision: u32,
}

impl Default for DemoOptions {
    /// The examples' layouts: a 30 m run-up, 16 grid cars, 15 barrels, the 15k-triangle cat,
    /// avatars subdivided twice.
    fn default() -> Self {
        Self {
            crash_run_up: crash::RUN_UP,
            crash_many_cars: 16,
            barrels: 15,
            cat: CatResolution::Coarse,
            garment_subdivision: 2,
        }
    }
}

/// Where a drawn mesh's vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The render mesh of a plastic body, dented by its example weights; whether it is a car
    /// (else a barrel: the dent ramp's full scale).
    Plastic(DeformableHandle, bool),
    /// The Fox's posed skin.
    Fox,
    /// The Kenney character's posed skin.
    Figure,
    /// The cat's posed skin.
    Cat,
    /// A garment scene's posed avatar skin.
    Skin,
    /// A garment scene's cloth.
    Cloth,
}

/// Steps of a dented mesh's palette, from its paint to the full dent colour.
pub const DENT_STEPS: usize = 16;

/// A mesh the viewer draws shaded, following one rigid body: its triangles and colours; its
/// vertices, in the body's frame, come from [`Demo::mesh_positions`], their colours (indices
/// into [`Self::palette`]) from [`Demo::mesh_colours`].
///
/// # Performance
/// Plain data (the triangles are copied once at build).
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnMesh {
    /// The body the mesh follows.
    pub body: RigidBodyHandle,
    /// The collider the mesh is the surface of (its `SphereProxyShape` or
    /// `DeformableMeshShape`); `None` for meshes the crate simulates outside Rapier (a garment
    /// and its avatar's skin, drawn in the frame of the ground's body).
    pub collider: Option<ColliderHandle>,
    /// The triangles.
    pub triangles: Vec<[u32; 3]>,
    /// Linear RGB of the whole mesh when [`Self::palette`] is empty.
    pub colour: [f32; 3],
    /// Per-vertex colours (linear RGB) the vertices pick from: a plastic body's dent ramp
    /// ([`DENT_STEPS`] steps of `dent_tint` from its paint), a cloth's seed colour code (in no
    /// box, in a box only, in contact, pinned); empty for a uniformly coloured mesh.
    pub palette: Vec<[f32; 3]>,
    source: Source,
}

/// The scene behind a [`Demo`] (boxed: the scenes are large and of different sizes).
#[derive(Debug)]
enum Scene {
    Crash(Box<CrashScene>),
    Characters(Box<CharacterScene>),
    Cat(Box<CatScene>),
    Garment(Box<GarmentScene>),
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
                    .map(|(i, b)| (b, CAR_PAINT[i % CAR_PAINT.len()], true))
                    .chain(
                        scene
                            .barrels
                            .iter()
                            .enumerate()
                            .map(|(i, b)| (b, BARREL_PAINT[i % BARREL_PAINT.len()], false)),
                    );
                for (body, colour, car) in paints {
                    let Some(h) = body.deformable else { continue };
                    let asset = scene.pipeline.asset(h)?;
                    let triangles = match asset.render() {
                        Some(r) => r.mesh().triangles().to_vec(),
                        None => asset.cage().triangles().to_vec(),
                    };
                    meshes.push(DrawnMesh {
                        body: body.rigid_body,
                        collider: Some(body.collider),
                        triangles,
                        colour,
                        palette: dent_palette(colour),
                        source: Source::Plastic(h, car),
                    });
                }
                Scene::Crash(Box::new(scene))
            }
            SceneId::SkinnedCharacter => {
                let scene = CharacterScene::build(4.0)?;
                meshes.push(DrawnMesh {
                    body: scene.fox.body(),
                    collider: Some(scene.fox.collider()),
                    triangles: scene.fox_mesh.triangles().to_vec(),
                    colour: [0.95, 0.55, 0.2],
                    palette: Vec::new(),
                    source: Source::Fox,
                });
                meshes.push(DrawnMesh {
                    body: scene.figure.body(),
                    collider: Some(scene.figure.collider()),
                    triangles: scene.figure_mesh.triangles().to_vec(),
                    colour: [0.55, 0.45, 0.85],
                    palette: Vec::new(),
                    source: Source::Figure,
                });
                Scene::Characters(Box::new(scene))
            }
            SceneId::SelfCollision => {
                let scene = CatScene::build(options.cat)?;
                meshes.push(DrawnMesh {
                    body: scene.collider.body(),
                    collider: Some(scene.collider.collider()),
                    triangles: scene.cat.mesh().triangles().to_vec(),
                    colour: [0.93, 0.58, 0.26],
                    palette: Vec::new(),
                    source: Source::Cat,
                });
                Scene::Cat(Box::new(scene))
            }
            SceneId::ClothCape | SceneId::ClothSkirt | SceneId::ClothGarment => {
                let garment = match id {
                    SceneId::ClothCape => Garment::Cape,
                    SceneId::ClothSkirt => Garment::Skirt,
                    _ => Garment::Suit,
                };
                let scene = GarmentScene::build(garment, options.garment_subdivision)?;
                let rgb = |c: Rgb| [c.r, c.g, c.b];
                meshes.push(DrawnMesh {
                    body: scene.ground,
                    collider: None,
                    triangles: scene.avatar.mesh().triangles().to_vec(),
                    colour: rgb(colours::SKIN),
                    palette: Vec::new(),
                    source: Source::Skin,
                });
                meshes.push(DrawnMesh {
                    body: scene.ground,
                    collider: None,
                    triangles: scene.cloth.mesh().triangles().to_vec(),
                    colour: rgb(colours::NO_BOX),
                    palette: CLOTH_PALETTE.map(rgb).to_vec(),
                    source: Source::Cloth,
                });
                Scene::Garment(Box::new(scene))
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
            Scene::Garment(s) => &s.world,
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
            Scene::Garment(s) => &mut s.world,
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

    /// The garment scene behind `cloth_cape` and `cloth_skirt`, `None` for the others.
    ///
    /// # Performance
    /// O(1).
    pub fn garment_scene(&self) -> Option<&GarmentScene> {
        match &self.scene {
            Scene::Garment(s) => Some(&**s),
            _ => None,
        }
    }

    /// The garment scene, mutably (the avatar boxes are drawn through its collision stage's
    /// query), `None` for the other scenes.
    ///
    /// # Performance
    /// O(1).
    pub fn garment_scene_mut(&mut self) -> Option<&mut GarmentScene> {
        match &mut self.scene {
            Scene::Garment(s) => Some(&mut **s),
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
    /// the step, and the self-collision query; for the garment scenes one frame of the cloth's
    /// stages ([`GarmentScene::step`]). The statistics of [`Self::stats`] are those of this
    /// step.
    ///
    /// # Errors
    /// What the scene's update rejects.
    ///
    /// # Performance
    /// The scene's step; the statistics cost O(1).
    pub fn step(&mut self) -> DeformResult<()> {
        self.stats.clear();
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
            Scene::Garment(s) => {
                let times = s.step()?;
                let skin = s.stages.collision.stats();
                let own = s.stages.self_collision.stats();
                let (no_box, box_only, contact) = s.state_counts();
                self.stats.extend([
                    ("cloth (XPBD, proximity)", ms(times.cloth)),
                    ("skin collision stage", ms(times.skin)),
                    ("garment self-collision stage", ms(times.self_collision)),
                    ("avatar boxes", s.avatar.box_count().to_string()),
                    ("vertices in no box (green)", no_box.to_string()),
                    ("vertices in a box only (blue)", box_only.to_string()),
                    ("vertices in contact (red)", contact.to_string()),
                    ("repositioned", skin.repositioned.to_string()),
                    ("continuous hits", skin.continuous_hits.to_string()),
                    ("garment crossing pairs", own.crossing_pairs.to_string()),
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
    /// collider's posed skin, a garment scene's posed avatar skin or cloth (world frame, the
    /// ground's body at the origin).
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
            (Scene::Crash(s), Source::Plastic(h, _)) => s.pipeline.render_positions(h, out)?,
            (Scene::Characters(s), Source::Fox) => s.fox.deformed_positions(out),
            (Scene::Characters(s), Source::Figure) => s.figure.deformed_positions(out),
            (Scene::Cat(s), Source::Cat) => s.collider.deformed_positions(out),
            (Scene::Garment(s), Source::Skin) => s.posed_skin(out),
            (Scene::Garment(s), Source::Cloth) => {
                out.clear();
                out.extend_from_slice(s.cloth.positions());
            }
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

    /// Writes the palette colour of every vertex of mesh `index` of [`Self::meshes`] to `out`
    /// (indices into its [`DrawnMesh::palette`]); leaves `out` empty for a uniformly coloured
    /// mesh. A plastic body's vertex takes the dent ramp's step nearest its displacement from
    /// the rest mesh (full colour at `crash::CAR_DENT_SCALE` for a car,
    /// `crash::BARREL_DENT_SCALE` for a barrel); a cloth vertex the seed's code of the last
    /// step's skin stage (pinned vertices grey).
    ///
    /// # Errors
    /// As [`Self::mesh_positions`].
    ///
    /// # Performance
    /// O(vertices · influences) for a plastic body, O(vertices) for a cloth.
    pub fn mesh_colours(&mut self, index: usize, out: &mut Vec<u32>) -> DeformResult<()> {
        out.clear();
        let Some(mesh) = self.meshes.get(index) else {
            return Err(DeformError::IndexOutOfRange {
                what: "drawn mesh",
                index,
                len: self.meshes.len(),
            });
        };
        match (&mut self.scene, mesh.source) {
            (Scene::Crash(s), Source::Plastic(h, car)) => {
                let mut positions = Vec::new();
                s.pipeline.render_positions(h, &mut positions)?;
                let asset = s.pipeline.asset(h)?;
                let rest = match asset.render() {
                    Some(r) => r.mesh().positions(),
                    None => asset.cage().positions(),
                };
                let scale = if car {
                    CAR_DENT_SCALE
                } else {
                    BARREL_DENT_SCALE
                };
                out.extend(
                    positions
                        .iter()
                        .zip(rest)
                        .map(|(p, q)| dent_step((*p - *q).length(), scale)),
                );
            }
            (Scene::Garment(s), Source::Cloth) => {
                let states = s.stages.collision.states();
                out.extend((0..s.cloth.positions().len()).map(|i| {
                    if s.cloth.is_pinned(i) {
                        3
                    } else {
                        match states.get(i).copied().unwrap_or_default() {
                            VertexState::NoBox => 0,
                            VertexState::BoxOnly => 1,
                            VertexState::Contact => 2,
                        }
                    }
                }));
            }
            _ => {}
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
            Scene::Crash(_) | Scene::Garment(_) => Vec::new(),
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
            SceneId::ClothCape => (Vec3::new(1.7, 1.0, -1.2), Vec3::new(-0.1, 0.3, 0.1)),
            SceneId::ClothSkirt => (Vec3::new(0.9, 1.2, 2.0), Vec3::new(0.0, 0.7, 0.0)),
            SceneId::ClothGarment => (Vec3::new(1.2, 1.3, 2.4), Vec3::new(0.0, 0.9, 0.0)),
        }
    }
}

/// The cloth palette: the seed's colour code (Pelechano 2002, Fig. 20) and pinned grey, as the
/// `cloth_cape` and `cloth_skirt` pictures colour their vertices.
const CLOTH_PALETTE: [Rgb; 4] = [
    colours::NO_BOX,
    colours::BOX_ONLY,
    colours::CONTACT,
    colours::PINNED,
];

/// The dent ramp of a body painted `paint`: [`DENT_STEPS`] colours of `dent_tint`, from no dent
/// to the full dent colour.
fn dent_palette(paint: [f32; 3]) -> Vec<[f32; 3]> {
    let [r, g, b] = paint;
    (0..DENT_STEPS)
        .map(|k| {
            let c = dent_tint(Rgb::new(r, g, b), k as f32, (DENT_STEPS - 1) as f32);
            [c.r, c.g, c.b]
        })
        .collect()
}

/// The step of the dent ramp nearest a displacement of `d` with full colour at `scale`.
///
/// # Performance
/// O(1).
pub fn dent_step(d: f32, scale: f32) -> u32 {
    let t = (d / scale).clamp(0.0, 1.0);
    let t = if t.is_nan() { 0.0 } else { t };
    (t * (DENT_STEPS - 1) as f32).round() as u32
}

/// Node boxes the collider's `DeformableMeshShape` has computed so far (0 for another shape).
fn node_refits(world: &PhysicsWorld, collider: ColliderHandle) -> u64 {
    DeformableMeshShape::of_collider(&world.colliders, collider)
        .map_or(0, |shape| shape.refit_stats().node_refits)
}
