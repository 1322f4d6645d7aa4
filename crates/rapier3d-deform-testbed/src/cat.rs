//! The `self_collision` scene: the BN-Tree paper's cat (Schvartzman, Gascón & Otaduy 2009, §6) as one skinned collider running and jumping in place under falling balls; its self-collisions are found by its BN-Tree query every step.

use std::time::{Duration, Instant};

use rapier3d_deform::io::LoadError;
use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};

/// Time step of the scene (s).
pub const DT: f32 = 1.0 / 60.0;
/// The cat's gait: three gallop strides, a crouch, a leap with the tail curled onto the back
/// and a landing (pinching at knees, elbows, neck and tail).
pub const GAIT: Gait = Gait::RunJump;
/// Number of falling balls.
pub const BALL_COUNT: usize = 40;
/// Radius of the falling balls (m).
pub const BALL_RADIUS: f32 = 0.02;

/// The scene: the world, the cat (its rig poses the collider) and the balls.
pub struct CatScene {
    /// The Rapier world (`dt` = [`DT`], the crate's narrow phase).
    pub world: PhysicsWorld,
    /// The procedural cat: rig and rest mesh.
    pub cat: Cat,
    /// Its collider on a kinematic body at the origin (self-collisions on, conservative
    /// culling).
    pub collider: SkinnedCollider,
    /// The balls: body and collider.
    pub balls: Vec<(RigidBodyHandle, ColliderHandle)>,
    /// Steps taken.
    pub steps: usize,
}

impl std::fmt::Debug for CatScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatScene")
            .field("triangles", &self.cat.mesh().triangle_count())
            .field("steps", &self.steps)
            .finish()
    }
}

/// What one [`CatScene::step`] did and how long each phase took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CatStep {
    /// Posing the collider (O(bones)).
    pub pose: Duration,
    /// Rapier's step.
    pub step: Duration,
    /// The self-collision query.
    pub self_collisions: Duration,
    /// Self-colliding triangle pairs.
    pub pairs: usize,
}

impl CatScene {
    /// Builds the cat at `resolution` on a kinematic body, the ground and the balls above it.
    ///
    /// # Errors
    /// What [`Cat::build`] and [`SkinnedColliderBuilder::build`] reject.
    ///
    /// # Performance
    /// [`Cat::build`] (about a second at [`CatResolution::Coarse`]) plus the BN-Tree build.
    pub fn build(resolution: CatResolution) -> Result<Self, LoadError> {
        let cat = Cat::build(resolution)?;
        let mut world = PhysicsWorld::new();
        world.integration_parameters.dt = DT;
        world.narrow_phase = DeformDispatcher::narrow_phase();
        world.insert(
            RigidBodyBuilder::fixed(),
            ColliderBuilder::cuboid(5.0, 0.1, 5.0).translation(Vector::new(0.0, -0.1, 0.0)),
        );
        let collider = SkinnedColliderBuilder::new(cat.mesh().clone(), cat.skinning().clone())?
            .self_collisions(CullingMode::Conservative)
            .solid_contacts(true)
            .collider(ColliderBuilder::ball(1.0).friction(0.6))
            .build(&mut world)?;
        // Balls over the cat's back, seeded.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let balls = (0..BALL_COUNT)
            .map(|k| {
                let x = (next() - 0.5) * 0.5;
                let z = (next() - 0.5) * 0.1;
                let y = 0.45 + 0.05 * k as f32;
                world.insert(
                    RigidBodyBuilder::dynamic().translation(Vector::new(x, y, z)),
                    ColliderBuilder::ball(BALL_RADIUS)
                        .density(300.0)
                        .friction(0.6),
                )
            })
            .collect();
        Ok(Self {
            world,
            cat,
            collider,
            balls,
            steps: 0,
        })
    }

    /// The gait time of the next step (s).
    ///
    /// # Performance
    /// O(1).
    pub fn time(&self) -> f32 {
        self.steps as f32 * DT
    }

    /// One step: the collider posed from the gait at the current time (`pose_bones`, O(bones)),
    /// the world stepped, the self-collisions found.
    ///
    /// # Errors
    /// What [`SkinnedCollider::pose_bones`] and [`SkinnedCollider::find_self_collisions`]
    /// reject.
    ///
    /// # Performance
    /// O(bones) to pose, Rapier's step, one BN-Tree query.
    pub fn step(&mut self) -> DeformResult<CatStep> {
        let a = Instant::now();
        let bones = self.cat.pose(GAIT, self.time());
        self.collider
            .pose_bones(&mut self.world.colliders, &bones)?;
        let b = Instant::now();
        self.world.step();
        let c = Instant::now();
        let pairs = self.collider.find_self_collisions()?.len();
        let d = Instant::now();
        self.steps += 1;
        Ok(CatStep {
            pose: b - a,
            step: c - b,
            self_collisions: d - c,
            pairs,
        })
    }
}
