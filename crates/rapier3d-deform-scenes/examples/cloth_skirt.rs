//! A skirt on the walking RiggedFigure: XPBD cloth with the avatar's per-vertex collision stage, pictures with the seed's colour code (green: in no bone box, blue: in a box but no contact, red: contact) in `out/cloth_skirt/`.
//!
//! ```text
//! cargo run --release --example cloth_skirt -- [seconds]
//! ```
//!
//! The figure (Loop ×2, 4,096 triangles) walks in place; the 64 × 24 skirt is pinned at the waist
//! and stepped at 60 Hz ([`rapier3d_deform::cloth::Cloth::step_with_self_collision`], then
//! [`SkinCollision::resolve`], then the skirt's own self-collision, [`ClothSelfCollision::resolve`]
//! and [`SkinCollision::push_out`] of the vertices it reverted). Two views per picture (front,
//! side), with the bone boxes the skin stage's queries tested drawn by the crate's debug renderer
//! (`DeformDebugRenderer::render_avatar_boxes`). The summary reports contacts, repositioned
//! vertices, continuous hits, the skirt's crossing pairs and the per-frame cost of each stage.

use std::error::Error;

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{ClothOptions, ContactThresholds, SelfCollisionOptions};
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::garment::{ExampleNames, ExampleRun, GarmentStages};
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};

const DT: f32 = 1.0 / 60.0;
const PICTURE_EVERY: usize = 20;
const OUT: &str = "out/cloth_skirt";
const VIEW: (usize, usize) = (640, 720);

fn main() -> Result<(), Box<dyn Error>> {
    let seconds: f32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2.4);
    let steps = (seconds / DT).round() as usize;
    let mut figure = WalkingFigure::load(2)?;
    let rest = figure.skinning().rest_positions().to_vec();
    let weights = figure.skinning().weights().clone();
    let mesh = figure.mesh().clone();
    let avatar = AvatarBoxes::build(&mesh, &rest, &weights, AvatarOptions::default())?;
    let g0 = figure.governors_at(0.0)?;
    let mut skirt = SkirtCloth::new(&figure, &g0, 64, 24, ClothOptions::default())?;
    let mut stages = GarmentStages::new(
        &skirt.cloth,
        &avatar,
        ContactThresholds::default(),
        SelfCollisionOptions::default(),
    )?;
    println!(
        "RiggedFigure Loop x2: {} triangles, {} boxes; skirt: {} vertices, {} pinned",
        mesh.triangle_count(),
        avatar.box_count(),
        skirt.cloth.positions().len(),
        skirt.cloth.pinned().len()
    );
    let run = ExampleRun {
        names: ExampleNames {
            out: OUT,
            title: "cloth_skirt: XPBD skirt, per-bone box collision stage",
            garment: "skirt",
            sequence: "walk",
        },
        view: VIEW,
        directions: [Vec3::new(0.0, -0.15, -1.0), Vec3::new(-1.0, -0.15, -0.3)],
        mesh: &mesh,
        weights: &weights,
        avatar: &avatar,
        dt: DT,
        steps,
        picture_every: PICTURE_EVERY,
    };
    let carriers = skirt.carriers.clone();
    run.run(&mut stages, &mut skirt.cloth, g0, |t| {
        let g = figure.governors_at(t)?;
        let targets = carriers.targets(&weights, &g);
        Ok((g, targets))
    })?;
    Ok(())
}
