//! The skinned-character scene of the `skinned_character` example and the testbed: the Khronos Fox and Kenney's platformer character walk through seeded falling balls, each one `SkinnedCollider` posed from its clip every step.
//!
//! Each character is one collider on a kinematic body that walks forward (`+z`) while its walk
//! clip plays; balls rain on both paths. [`CharacterScene::step`] is the per-step update of the
//! skinned route (ARCHITECTURE.md, "a skinned mesh collider in Rapier"): both colliders posed in
//! O(bones), [`SurfaceVelocityHooks`] updated so contacts on a moving limb carry the limb's
//! velocity, the world stepped with the hooks, the surface's normal velocity given to the balls
//! it touches, and the Fox's self-collisions found by its BN-Tree query.

use std::time::{Duration, Instant};

use rapier3d_deform::io::LoadError;
use rapier3d_deform::prelude::*;

use crate::asset_path;

/// Time step of the scene (s).
pub const DT: f32 = 1.0 / 60.0;
/// The Fox is authored in centimetres.
pub const FOX_SCALE: f32 = 0.01;
/// Walking speed of both kinematic bodies (m/s).
pub const WALK_SPEED: f32 = 0.6;
/// Radius of the falling balls (m).
pub const BALL_RADIUS: f32 = 0.06;
/// Number of falling balls.
pub const BALL_COUNT: usize = 240;
/// Where the second character walks (x, m).
pub const FIGURE_X: f32 = 1.0;
/// The second character's height after scaling (m).
pub const FIGURE_HEIGHT: f32 = 0.8;
/// The Fox's clip.
pub const FOX_CLIP: &str = "Walk";
/// The Kenney character's clip.
pub const FIGURE_CLIP: &str = "walk";

/// The scene: the world, both characters, the hooks and the balls.
pub struct CharacterScene {
    /// The Rapier world (`dt` = [`DT`], the crate's narrow phase).
    pub world: PhysicsWorld,
    /// The Fox (self-collisions on, conservative culling; swept contacts).
    pub fox: SkinnedCollider,
    /// Its rest mesh in the collider's frame before scaling (triangles for drawing).
    pub fox_mesh: TriangleMesh,
    /// Kenney's platformer character: every mesh node of the file in one collider.
    pub figure: SkinnedCollider,
    /// Its rest mesh (triangles for drawing).
    pub figure_mesh: TriangleMesh,
    /// Number of mesh nodes the figure's file holds.
    pub figure_mesh_nodes: usize,
    /// Height of the figure's body frame above the ground (its feet at `y = 0`).
    pub figure_floor: f32,
    /// Contact surface velocities of both characters.
    pub hooks: SurfaceVelocityHooks,
    /// The balls: body and collider.
    pub balls: Vec<(RigidBodyHandle, ColliderHandle)>,
    /// Steps taken.
    pub steps: usize,
}

impl std::fmt::Debug for CharacterScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CharacterScene")
            .field("balls", &self.balls.len())
            .field("steps", &self.steps)
            .finish()
    }
}

/// What one [`CharacterScene::step`] did and how long each phase took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CharacterStep {
    /// Posing both colliders and updating the hooks.
    pub pose: Duration,
    /// Rapier's step with the hooks, and the normal velocities applied after it.
    pub step: Duration,
    /// The Fox's self-collision query.
    pub self_collisions: Duration,
    /// Ball contacts given the surface's normal velocity.
    pub pushed: usize,
    /// Self-colliding triangle pairs of the Fox.
    pub pairs: usize,
}

impl CharacterScene {
    /// Builds the scene with the balls spread over the path walked in `seconds` (the example's
    /// run length; the testbed uses the same default).
    ///
    /// # Errors
    /// What [`load_gltf`], [`load_gltf_scene`] and [`SkinnedColliderBuilder::build`] reject;
    /// [`DeformError::InvalidParameter`] for a non-finite or negative `seconds`.
    ///
    /// # Performance
    /// Loading both files and building two BN-Trees: a fraction of a second.
    pub fn build(seconds: f32) -> Result<Self, LoadError> {
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "seconds",
                value: seconds,
                reason: "the walk lasts a finite, non-negative time",
            }
            .into());
        }
        let mut world = PhysicsWorld::new();
        world.integration_parameters.dt = DT;
        world.narrow_phase = DeformDispatcher::narrow_phase();
        world.insert(
            RigidBodyBuilder::fixed(),
            ColliderBuilder::cuboid(20.0, 0.1, 20.0).translation(Vector::new(0.0, -0.1, 0.0)),
        );

        // The Fox: its skin is closed, so contacts treat it as a solid that follows its motion
        // between poses: a ball a fast leg sweeps past is pushed out on the side the leg met it
        // from.
        let (asset, _) = load_gltf(asset_path("skinned/Fox.glb"), &LoadOptions::default())?;
        let fox = SkinnedColliderBuilder::from_gltf(&asset)?
            .scale(FOX_SCALE)
            .self_collisions(CullingMode::Conservative)
            .swept_contacts(true)
            .collider(ColliderBuilder::ball(1.0).friction(0.6))
            .build(&mut world)?;

        // The second character: every mesh node of the file in one collider (parts follow
        // their animated nodes with weight 1).
        let (scene, report) = load_gltf_scene(
            asset_path("skinned/kenney_platformer_character.glb"),
            &LoadOptions::default(),
        )?;
        let (lo, hi) = scene
            .mesh
            .positions()
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
        let figure_scale = FIGURE_HEIGHT / (hi.y - lo.y).max(1e-6);
        let figure_floor = -lo.y * figure_scale;
        let figure = SkinnedColliderBuilder::from_scene(&scene)?
            .scale(figure_scale)
            .body(
                RigidBodyBuilder::kinematic_position_based().translation(Vector::new(
                    FIGURE_X,
                    figure_floor,
                    0.0,
                )),
            )
            .collider(ColliderBuilder::ball(1.0).friction(0.6))
            .build(&mut world)?;
        let mut hooks = SurfaceVelocityHooks::new();
        hooks.track(&mut world.colliders, fox.collider())?;
        hooks.track(&mut world.colliders, figure.collider())?;

        // Balls rain on both paths (seeded, so every run is the same).
        let path_length = WALK_SPEED * seconds;
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut balls = Vec::with_capacity(BALL_COUNT);
        for k in 0..BALL_COUNT {
            let lane = if k % 3 == 2 { FIGURE_X } else { 0.0 };
            let x = lane + (next() - 0.5) * 0.5;
            let z = -0.6 + next() * (path_length + 1.4);
            let y = 1.0 + 0.04 * k as f32;
            balls.push(
                world.insert(
                    RigidBodyBuilder::dynamic().translation(Vector::new(x, y, z)),
                    ColliderBuilder::ball(BALL_RADIUS)
                        .density(200.0)
                        .friction(0.6),
                ),
            );
        }
        Ok(Self {
            world,
            fox,
            fox_mesh: asset.mesh,
            figure,
            figure_mesh: scene.mesh,
            figure_mesh_nodes: report.mesh_nodes.len(),
            figure_floor,
            hooks,
            balls,
            steps: 0,
        })
    }

    /// The scene time of the next step (s).
    ///
    /// # Performance
    /// O(1).
    pub fn time(&self) -> f32 {
        self.steps as f32 * DT
    }

    /// One step: [`Self::move_bodies`], [`Self::pose`], [`Self::step_world`] and the Fox's
    /// self-collision query, each timed.
    ///
    /// # Errors
    /// What [`Self::pose`] and [`SkinnedCollider::find_self_collisions`] reject.
    ///
    /// # Performance
    /// O(bones) to pose, Rapier's step, one BN-Tree query.
    pub fn step(&mut self) -> DeformResult<CharacterStep> {
        let a = Instant::now();
        self.move_bodies();
        self.pose()?;
        let b = Instant::now();
        let pushed = self.step_world();
        let c = Instant::now();
        let pairs = self.fox.find_self_collisions()?.len();
        let d = Instant::now();
        Ok(CharacterStep {
            pose: b - a,
            step: c - b,
            self_collisions: d - c,
            pushed,
            pairs,
        })
    }

    /// Gives both kinematic bodies their positions at the end of the coming step (the walk).
    ///
    /// # Performance
    /// O(1).
    pub fn move_bodies(&mut self) {
        let z = WALK_SPEED * (self.time() + DT);
        self.world.bodies[self.fox.body()].set_next_kinematic_translation(Vector::new(0.0, 0.0, z));
        self.world.bodies[self.figure.body()].set_next_kinematic_translation(Vector::new(
            FIGURE_X,
            self.figure_floor,
            z,
        ));
    }

    /// Both colliders posed from their clips at the current time, then the hooks updated.
    ///
    /// # Errors
    /// What [`SkinnedCollider::play`] and [`SurfaceVelocityHooks::update`] reject.
    ///
    /// # Performance
    /// O(bones) per collider; the hooks O(governors) per tracked collider.
    pub fn pose(&mut self) -> DeformResult<()> {
        let t = self.time();
        self.fox.play(&mut self.world.colliders, FOX_CLIP, t)?;
        self.figure
            .play(&mut self.world.colliders, FIGURE_CLIP, t)?;
        self.hooks.update(&self.world.colliders, DT)
    }

    /// Rapier's step with the hooks, then the surface's normal
    /// velocity given to the balls it touches; the scene's time advances. Returns the number of
    /// ball contacts given it.
    ///
    /// # Performance
    /// Rapier's step, then O(contacts of the characters).
    pub fn step_world(&mut self) -> usize {
        self.world.step_with_events(&self.hooks, &());
        self.steps += 1;
        self.hooks.apply_normal_velocities(&mut self.world)
    }
}
