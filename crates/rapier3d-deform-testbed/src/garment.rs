//! The garment scenes: a cape on the running Fox (`cloth_cape`), a skirt on the walking RiggedFigure (`cloth_skirt`) and the MakeHuman sportsuit on its walking body (`cloth_garment`), XPBD cloth against the avatar's per-bone boxes (Pelechano 2002) with the garment's own self-collision, stepped frame by frame as the scene crate's examples step them.

use std::time::Duration;

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{
    Cloth, ClothOptions, ContactThresholds, SelfCollisionOptions, VertexState,
};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::io::LoadError;
use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::cape::{FoxCape, RunningFox};
use rapier3d_deform_scenes::garment::{GarmentStages, PinCarriers, StageTimes};
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};
use rapier3d_deform_scenes::sportsuit::{Sportsuit, SuitBody};

/// Time step of the garment scenes (s), the examples' 60 Hz.
pub const DT: f32 = 1.0 / 60.0;
/// The cape's vertices across and along (the `cloth_cape` example's).
pub const CAPE_VERTICES: (usize, usize) = (24, 32);
/// The skirt's vertices around and down (the `cloth_skirt` example's).
pub const SKIRT_VERTICES: (usize, usize) = (64, 24);

/// Which garment.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Garment {
    /// A cape pinned at the shoulders of the running Fox.
    Cape,
    /// A skirt pinned at the waist of the walking RiggedFigure.
    Skirt,
    /// The MakeHuman sportsuit pinned along its openings on the body derived from it.
    Suit,
}

/// The animated avatar wearing the garment.
enum Wearer {
    Fox(Box<RunningFox>),
    Figure(Box<WalkingFigure>),
    Suit(Box<SuitBody>),
}

impl Wearer {
    fn governors_at(&mut self, t: f32) -> DeformResult<Vec<Affine>> {
        match self {
            Self::Fox(f) => f.governors_at(t),
            Self::Figure(f) => f.governors_at(t),
            Self::Suit(b) => Ok(b.governors_at(t)),
        }
    }
}

/// A garment on its avatar: the skin's boxes, the cloth and what carries its pinned vertices, the
/// per-frame stages, and the Rapier world the testbed shows (the ground only: the cloth is
/// simulated by the crate, not by Rapier).
pub struct GarmentScene {
    /// Which garment.
    pub garment: Garment,
    /// The Rapier world: a fixed ground box whose top is at `y = 0`.
    pub world: PhysicsWorld,
    /// The ground's body (at the origin; the skin and cloth meshes are drawn in its frame).
    pub ground: RigidBodyHandle,
    /// The ground's collider (the object the avatar's debug lines are drawn for).
    pub ground_collider: ColliderHandle,
    wearer: Wearer,
    /// The avatar's per-bone boxes (rest skin, weights).
    pub avatar: AvatarBoxes,
    /// The cloth.
    pub cloth: Cloth,
    carriers: PinCarriers,
    /// The skin and self-collision stages (their states and counters describe the last step).
    pub stages: GarmentStages,
    /// The skin stage's thresholds.
    pub thresholds: ContactThresholds,
    governors: Vec<Affine>,
    /// Steps taken.
    pub steps: usize,
}

impl std::fmt::Debug for GarmentScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GarmentScene")
            .field("garment", &self.garment)
            .field("skin triangles", &self.avatar.mesh().triangle_count())
            .field("cloth vertices", &self.cloth.positions().len())
            .field("steps", &self.steps)
            .finish()
    }
}

impl GarmentScene {
    /// Builds `garment` on its avatar Loop-subdivided `levels` times (the examples use 2): the
    /// avatar posed at time 0, the cloth laid on it, its boxes, the stages, a ground box.
    ///
    /// # Errors
    /// What the scene crate's loaders and the cloth and box builders reject.
    ///
    /// # Performance
    /// Loading and subdividing the avatar, O(cloth vertices · skin triangles) to lay the cloth,
    /// the boxes' build.
    pub fn build(garment: Garment, levels: u32) -> Result<Self, LoadError> {
        let (wearer, cloth, carriers, avatar, thresholds, governors) = match garment {
            Garment::Cape => {
                let mut fox = RunningFox::load(levels)?;
                let avatar = AvatarBoxes::build(
                    fox.mesh(),
                    fox.rest_positions(),
                    fox.weights(),
                    AvatarOptions::default(),
                )?;
                let g0 = fox.governors_at(0.0)?;
                let (across, along) = CAPE_VERTICES;
                let cape = FoxCape::new(&fox, &g0, across, along, ClothOptions::default())?;
                let wearer = Wearer::Fox(Box::new(fox));
                (
                    wearer,
                    cape.cloth,
                    cape.carriers,
                    avatar,
                    FoxCape::thresholds(),
                    g0,
                )
            }
            Garment::Skirt => {
                let mut figure = WalkingFigure::load(levels)?;
                let skin = figure.skinning();
                let avatar = AvatarBoxes::build(
                    figure.mesh(),
                    skin.rest_positions(),
                    skin.weights(),
                    AvatarOptions::default(),
                )?;
                let g0 = figure.governors_at(0.0)?;
                let (around, down) = SKIRT_VERTICES;
                let skirt = SkirtCloth::new(&figure, &g0, around, down, ClothOptions::default())?;
                let wearer = Wearer::Figure(Box::new(figure));
                (
                    wearer,
                    skirt.cloth,
                    skirt.carriers,
                    avatar,
                    ContactThresholds::default(),
                    g0,
                )
            }
            Garment::Suit => {
                let body = SuitBody::load(levels)?;
                let avatar = AvatarBoxes::build(
                    body.mesh(),
                    body.rest_positions(),
                    body.weights(),
                    AvatarOptions::default(),
                )?;
                let g0 = body.governors_at(0.0);
                let suit = Sportsuit::new(&body, &g0, ClothOptions::default())?;
                (
                    Wearer::Suit(Box::new(body)),
                    suit.cloth,
                    suit.carriers,
                    avatar,
                    Sportsuit::thresholds(),
                    g0,
                )
            }
        };
        let stages =
            GarmentStages::new(&cloth, &avatar, thresholds, SelfCollisionOptions::default())?;
        let mut world = PhysicsWorld::new();
        world.integration_parameters.dt = DT;
        let (ground, ground_collider) = world.insert(
            RigidBodyBuilder::fixed(),
            ColliderBuilder::cuboid(3.0, 0.05, 3.0).translation(Vector::new(0.0, -0.05, 0.0)),
        );
        Ok(Self {
            garment,
            world,
            ground,
            ground_collider,
            wearer,
            avatar,
            cloth,
            carriers,
            stages,
            thresholds,
            governors,
            steps: 0,
        })
    }

    /// The scene time of the last step (s).
    ///
    /// # Performance
    /// O(1).
    pub fn time(&self) -> f32 {
        self.steps as f32 * DT
    }

    /// The skin matrices of the current pose (the last step's end).
    ///
    /// # Performance
    /// O(1).
    pub fn governors(&self) -> &[Affine] {
        &self.governors
    }

    /// The skin weights (governors = the avatar's joints).
    ///
    /// # Performance
    /// O(1).
    pub fn weights(&self) -> &ConvexWeights {
        self.avatar.weights()
    }

    /// Where the pinned cloth vertices go under the skin matrices `governors` (in
    /// [`Cloth::pinned`] order): each carried by the skin weights of its nearest skin vertex.
    ///
    /// # Performance
    /// O(pinned · influences).
    pub fn pin_targets(&self, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers.targets(self.avatar.weights(), governors)
    }

    /// The posed skin of the current pose into `out`.
    ///
    /// # Performance
    /// O(skin vertices · influences).
    pub fn posed_skin(&self, out: &mut Vec<Vec3>) {
        deform_vertices(
            self.avatar.rest_positions(),
            self.avatar.weights(),
            &self.governors,
            out,
        );
    }

    /// One frame: the avatar posed at the next time, the pins moved with it, the cloth stepped
    /// with its proximity constraints, the skin stage, the garment's self-collision stage and the
    /// skin test of the vertices it reverted ([`GarmentStages::step`]).
    ///
    /// # Errors
    /// The stages' errors.
    ///
    /// # Performance
    /// The stages' costs (see the `cloth_cape` and `cloth_skirt` benchmarks).
    pub fn step(&mut self) -> DeformResult<StageTimes> {
        let t = (self.steps + 1) as f32 * DT;
        let g = self.wearer.governors_at(t)?;
        let targets = self.pin_targets(&g);
        let times = self.stages.step(
            &mut self.cloth,
            &self.avatar,
            &targets,
            &self.governors,
            &g,
            DT,
        )?;
        self.governors = g;
        self.steps += 1;
        Ok(times)
    }

    /// The cloth's vertex states of the last step counted: (in no box, in a box only, in
    /// contact).
    ///
    /// # Performance
    /// O(cloth vertices).
    pub fn state_counts(&self) -> (usize, usize, usize) {
        let states = self.stages.collision.states();
        let count = |s| states.iter().filter(|x| **x == s).count();
        (
            count(VertexState::NoBox),
            count(VertexState::BoxOnly),
            count(VertexState::Contact),
        )
    }
}

/// Milliseconds, for the statistics panel.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2} ms", 1e3 * d.as_secs_f64())
}
