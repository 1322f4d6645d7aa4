//! A cape on the running Fox: XPBD cloth pinned at the shoulders with the avatar's per-vertex collision stage and the garment's self-collision, pictures with the seed's colour code (green: in no bone box, blue: in a box but no contact, red: contact) in `out/cloth_cape/`.
//!
//! ```text
//! cargo run --release --example cloth_cape -- [seconds]
//! ```
//!
//! The Fox (Loop ×2, 9,216 triangles, in metres) plays its Run clip in place; the 24 × 32 cape is
//! pinned along the shoulders (each pinned vertex carried by the skin weights of its nearest skin
//! vertex) and stepped at 60 Hz ([`rapier3d_deform::cloth::Cloth::step_with_self_collision`], then
//! [`SkinCollision::resolve`], then [`ClothSelfCollision::resolve`] and [`SkinCollision::push_out`]
//! of the vertices it reverted). Two views per picture (side, from behind above), with the bone
//! boxes the skin stage's queries tested drawn by the crate's debug renderer
//! (`DeformDebugRenderer::render_avatar_boxes`). The summary reports contacts, repositioned
//! vertices, continuous hits, the garment's crossing pairs and the per-frame cost of each stage.

use std::error::Error;

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{ClothOptions, SelfCollisionOptions};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::cape::{FoxCape, RunningFox};
use rapier3d_deform_scenes::garment::{ExampleNames, ExampleRun, GarmentStages};

const DT: f32 = 1.0 / 60.0;
const PICTURE_EVERY: usize = 12;
const OUT: &str = "out/cloth_cape";
const VIEW: (usize, usize) = (640, 720);

fn main() -> Result<(), Box<dyn Error>> {
    let seconds: f32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2.0);
    let steps = (seconds / DT).round() as usize;
    let mut fox = RunningFox::load(2)?;
    let weights = fox.weights().clone();
    let mesh = fox.mesh().clone();
    let avatar = AvatarBoxes::build(&mesh, mesh.positions(), &weights, AvatarOptions::default())?;
    let g0 = fox.governors_at(0.0)?;
    let mut cape = FoxCape::new(&fox, &g0, 24, 32, ClothOptions::default())?;
    let mut stages = GarmentStages::new(
        &cape.cloth,
        &avatar,
        FoxCape::thresholds(),
        SelfCollisionOptions::default(),
    )?;
    println!(
        "Fox Loop x2: {} triangles, {} boxes; cape: {} vertices, {} pinned",
        mesh.triangle_count(),
        avatar.box_count(),
        cape.cloth.positions().len(),
        cape.cloth.pinned().len()
    );
    let run = ExampleRun {
        names: ExampleNames {
            out: OUT,
            title: "cloth_cape: XPBD cape on the running Fox",
            garment: "cape",
            sequence: "run",
        },
        view: VIEW,
        directions: [Vec3::new(-1.0, -0.2, 0.0), Vec3::new(0.5, -0.8, 1.0)],
        mesh: &mesh,
        weights: &weights,
        avatar: &avatar,
        dt: DT,
        steps,
        picture_every: PICTURE_EVERY,
    };
    let carriers = cape.carriers.clone();
    run.run(&mut stages, &mut cape.cloth, g0, |t| {
        let g = fox.governors_at(t)?;
        let targets = carriers.targets(&weights, &g);
        Ok((g, targets))
    })?;
    Ok(())
}
