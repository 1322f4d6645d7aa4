//! What the garment scenes share: pinned cloth vertices carried by the skin weights of the nearest skin vertex, the per-frame stages, and the pictures with the seed's colour code.

use crate::render::{Camera, Canvas, Legend, LegendEntry, MeshColours, Rgb, Shading};
use rapier3d_deform::avatar::AvatarBoxes;
use rapier3d_deform::cloth::{
    Cloth, ClothSelfCollision, ContactThresholds, SelfCollisionOptions, SkinCollision, VertexState,
};
use rapier3d_deform::error::Result;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use std::time::{Duration, Instant};

/// Per pinned cloth vertex, its bind-space position and the skin vertex whose weights carry it:
/// the vertex follows `Σ w_k G_k` of that skin vertex, as if it were a point of the skin.
#[derive(Clone, Debug, Default)]
pub struct PinCarriers {
    carriers: Vec<(Vec3, usize)>,
}

impl PinCarriers {
    /// Carriers for the cloth vertices at `pinned` (world positions, in [`rapier3d_deform::cloth::Cloth::pinned`]
    /// order) on the skin posed at `posed` by `governors`: each is attached to its nearest posed
    /// skin vertex.
    ///
    /// # Performance
    /// O(pinned · skin vertices), once.
    pub fn nearest(
        pinned: &[Vec3],
        posed: &[Vec3],
        weights: &ConvexWeights,
        governors: &[Affine],
    ) -> Self {
        let carriers = pinned
            .iter()
            .map(|&x| {
                let (v, _) = posed
                    .iter()
                    .enumerate()
                    .fold((0, f32::MAX), |best, (v, q)| {
                        let d = (*q - x).length_squared();
                        if d < best.1 { (v, d) } else { best }
                    });
                let (linear, translation) = blend(weights, governors, v);
                (linear.inverse() * (x - translation), v)
            })
            .collect();
        Self { carriers }
    }

    /// Where the pinned vertices are under the skin matrices `governors`.
    ///
    /// # Performance
    /// O(pinned · influences).
    pub fn targets(&self, weights: &ConvexWeights, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers
            .iter()
            .map(|&(bind, v)| {
                let (linear, translation) = blend(weights, governors, v);
                linear * bind + translation
            })
            .collect()
    }
}

/// `Σ w_k G_k` over the influences of skin vertex `v`.
fn blend(weights: &ConvexWeights, governors: &[Affine], v: usize) -> (Mat3, Vec3) {
    let mut linear = Mat3::ZERO;
    let mut translation = Vec3::ZERO;
    for (g, w) in weights.iter_row(v) {
        let a = governors[g as usize];
        linear += a.linear * w;
        translation += a.translation * w;
    }
    (linear, translation)
}

/// Wall-clock time of each stage of one [`GarmentStages::step`].
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    /// Pins set and the cloth stepped with its proximity constraints.
    pub cloth: Duration,
    /// The skin's collision stage.
    pub skin: Duration,
    /// The garment's self-collision stage and the skin test of the vertices it reverted.
    pub self_collision: Duration,
}

/// The per-frame stages of a garment on a skinned avatar, in the order the examples run them:
/// pins to their targets, [`Cloth::step_with_self_collision`], [`SkinCollision::resolve`],
/// [`ClothSelfCollision::resolve`], [`SkinCollision::push_out`] of the reverted vertices.
pub struct GarmentStages {
    /// The skin's collision stage (its states and counters describe the last step).
    pub collision: SkinCollision,
    /// The garment's self-collision stage.
    pub self_collision: ClothSelfCollision,
}

impl GarmentStages {
    /// The stages for `cloth` on `avatar`.
    ///
    /// # Errors
    /// What [`SkinCollision::new`] and [`ClothSelfCollision::new`] reject.
    pub fn new(
        cloth: &Cloth,
        avatar: &AvatarBoxes,
        thresholds: ContactThresholds,
        self_options: SelfCollisionOptions,
    ) -> Result<Self> {
        Ok(Self {
            collision: SkinCollision::new(avatar, thresholds)?,
            self_collision: ClothSelfCollision::new(cloth, self_options)?,
        })
    }

    /// One frame of `dt` seconds in which the skin moves from the skin matrices `previous` to
    /// `current` and the pinned vertices to `targets`.
    ///
    /// # Errors
    /// The stages' errors (wrong counts, non-finite input).
    pub fn step(
        &mut self,
        cloth: &mut Cloth,
        avatar: &AvatarBoxes,
        targets: &[Vec3],
        previous: &[Affine],
        current: &[Affine],
        dt: f32,
    ) -> Result<StageTimes> {
        let t0 = Instant::now();
        cloth.set_pin_targets(targets)?;
        cloth.step_with_self_collision(dt, &mut self.self_collision)?;
        let t1 = Instant::now();
        self.collision
            .resolve(cloth, avatar, previous, current, dt)?;
        let t2 = Instant::now();
        self.self_collision.resolve(cloth)?;
        self.collision
            .push_out(cloth, avatar, self.self_collision.reverted(), dt)?;
        let t3 = Instant::now();
        Ok(StageTimes {
            cloth: t1 - t0,
            skin: t2 - t1,
            self_collision: t3 - t2,
        })
    }
}

/// Skin colour of the garment pictures.
pub const SKIN: Rgb = Rgb::new(0.80, 0.72, 0.62);
/// The seed's green: a cloth vertex in no bone box.
pub const NO_BOX: Rgb = Rgb::new(0.20, 0.70, 0.25);
/// The seed's blue: in a bone box, no skin within the OUTSIDE threshold.
pub const BOX_ONLY: Rgb = Rgb::new(0.20, 0.35, 0.85);
/// The seed's red: skin within the OUTSIDE threshold, or crossed.
pub const CONTACT: Rgb = Rgb::new(0.85, 0.15, 0.12);
/// Pinned cloth vertices.
pub const PINNED: Rgb = Rgb::new(0.3, 0.3, 0.3);

/// The legend of the seed's colour code (Pelechano 2002, Fig. 20).
pub fn legend() -> Legend {
    Legend::new("cloth vertices (Pelechano 2002, Fig. 20)")
        .with(LegendEntry::swatch(NO_BOX, "in no bone box"))
        .with(LegendEntry::swatch(
            BOX_ONLY,
            "in a bone box, no skin within 2 cm",
        ))
        .with(LegendEntry::swatch(CONTACT, "skin within 2 cm, or crossed"))
        .with(LegendEntry::swatch(SKIN, "skin"))
}

/// The skin and the cloth (coloured by `states`, pinned vertices grey) seen by each camera,
/// side by side, each view `size` pixels.
///
/// # Errors
/// The renderer's ([`Canvas::new`], [`Canvas::draw_mesh`]).
pub fn draw_views(
    cameras: &[Camera],
    size: (usize, usize),
    posed_skin: &[Vec3],
    skin_triangles: &[[u32; 3]],
    cloth: &Cloth,
    states: &[VertexState],
) -> Result<Canvas> {
    let colours: Vec<Rgb> = (0..cloth.positions().len())
        .map(|i| {
            if cloth.is_pinned(i) {
                PINNED
            } else {
                match states.get(i).copied().unwrap_or_default() {
                    VertexState::NoBox => NO_BOX,
                    VertexState::BoxOnly => BOX_ONLY,
                    VertexState::Contact => CONTACT,
                }
            }
        })
        .collect();
    let (w, h) = size;
    let mut canvas = Canvas::new(cameras.len() * w, h, Rgb::WHITE)?;
    for (k, camera) in cameras.iter().enumerate() {
        let mut view = Canvas::new(w, h, Rgb::WHITE)?;
        view.draw_mesh(
            camera,
            posed_skin,
            skin_triangles,
            MeshColours::Uniform(SKIN),
            Shading::Smooth,
        )?;
        view.draw_mesh(
            camera,
            cloth.positions(),
            cloth.mesh().triangles(),
            MeshColours::PerVertex(&colours),
            Shading::Flat,
        )?;
        canvas.blit(&view, k * w, 0);
    }
    Ok(canvas)
}
