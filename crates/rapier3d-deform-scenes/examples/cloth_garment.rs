//! The MakeHuman sportsuit on a walking body derived from it: XPBD cloth pinned along its openings with the avatar's per-vertex collision stage and the garment's self-collision, pictures with the seed's colour code (green: in no bone box, blue: in a box but no contact, red: contact) in `out/cloth_garment/`.
//!
//! ```text
//! cargo run --release --example cloth_garment -- [seconds]
//! ```
//!
//! The body (the suit moved 12 mm inward and closed, Loop ×1, 14,656 triangles, in metres)
//! walks in place; the suit (1,797 vertices, 3,436 triangles) is pinned along its seven openings
//! (neckline, sleeve and ankle cuffs, the top's hem, the waistband; each pinned vertex carried by
//! the skin weights of its nearest skin vertex) and stepped at 60 Hz
//! ([`rapier3d_deform::cloth::Cloth::step_with_self_collision`], then
//! [`rapier3d_deform::cloth::SkinCollision::resolve`], then
//! [`rapier3d_deform::cloth::ClothSelfCollision::resolve`] and
//! [`rapier3d_deform::cloth::SkinCollision::push_out`] of the vertices it reverted). Two views per
//! picture (front, side). The summary reports contacts, repositioned vertices, continuous hits,
//! the garment's crossing pairs and the per-frame cost of each stage.

use std::error::Error;

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{ClothOptions, SelfCollisionOptions};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::garment::{ExampleNames, ExampleRun, GarmentStages};
use rapier3d_deform_scenes::sportsuit::{Sportsuit, SuitBody};

const DT: f32 = 1.0 / 60.0;

fn main() -> Result<(), Box<dyn Error>> {
    let seconds: f32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2.4);
    let body = SuitBody::load(1)?;
    let avatar = AvatarBoxes::build(
        body.mesh(),
        body.rest_positions(),
        body.weights(),
        AvatarOptions::default(),
    )?;
    let g0 = body.governors_at(0.0);
    let mut suit = Sportsuit::new(&body, &g0, ClothOptions::default())?;
    let mut stages = GarmentStages::new(
        &suit.cloth,
        &avatar,
        Sportsuit::thresholds(),
        SelfCollisionOptions::default(),
    )?;
    println!(
        "sportsuit body Loop x1: {} triangles, {} boxes; suit: {} vertices, {} pinned",
        body.mesh().triangle_count(),
        avatar.box_count(),
        suit.cloth.positions().len(),
        suit.cloth.pinned().len()
    );
    let run = ExampleRun {
        names: ExampleNames {
            out: "out/cloth_garment",
            title: "cloth_garment: the MakeHuman sportsuit on a walking body fitted to it",
            garment: "suit",
            sequence: "walk",
        },
        view: (640, 720),
        directions: [Vec3::new(0.0, -0.15, -1.0), Vec3::new(-1.0, -0.15, -0.3)],
        mesh: body.mesh(),
        weights: body.weights(),
        avatar: &avatar,
        dt: DT,
        steps: (seconds / DT).round() as usize,
        picture_every: 18,
    };
    let carriers = suit.carriers.clone();
    run.run(&mut stages, &mut suit.cloth, g0, |t| {
        let g = body.governors_at(t);
        let targets = carriers.targets(body.weights(), &g);
        Ok((g, targets))
    })?;
    Ok(())
}
