//! A skirt on the walking RiggedFigure: XPBD cloth with the avatar's per-vertex collision stage, pictures with the seed's colour code (green: in no bone box, blue: in a box but no contact, red: contact) in `out/cloth_skirt/`.
//!
//! ```text
//! cargo run --release --example cloth_skirt -- [seconds]
//! ```
//!
//! The figure (Loop ×2, 4,096 triangles) walks in place; the 64 × 24 skirt is pinned at the
//! waist and stepped at 60 Hz ([`rapier3d_deform::cloth::Cloth::step_with_self_collision`], then
//! [`SkinCollision::resolve`], then the skirt's own self-collision, [`ClothSelfCollision::resolve`]
//! and [`SkinCollision::push_out`] of the vertices it reverted). Two views per picture (front,
//! side). The summary reports contacts, repositioned vertices, continuous hits, the skirt's
//! crossing pairs and the per-frame cost of each stage.

use std::error::Error;
use std::time::{Duration, Instant};

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{
    ClothOptions, ClothSelfCollision, ContactThresholds, SelfCollisionOptions, SkinCollision,
    VertexState,
};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, Legend, LegendEntry, MeshColours, Rgb, Shading, WrittenFiles,
    clear_outputs, frame_file_name,
};
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};

const DT: f32 = 1.0 / 60.0;
const PICTURE_EVERY: usize = 20;
const OUT: &str = "out/cloth_skirt";
const SKIN: Rgb = Rgb::new(0.80, 0.72, 0.62);
const NO_BOX: Rgb = Rgb::new(0.20, 0.70, 0.25);
const BOX_ONLY: Rgb = Rgb::new(0.20, 0.35, 0.85);
const CONTACT: Rgb = Rgb::new(0.85, 0.15, 0.12);
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
    let mut collision = SkinCollision::new(&avatar, ContactThresholds::default())?;
    let mut self_collision =
        ClothSelfCollision::new(&skirt.cloth, SelfCollisionOptions::default())?;
    println!(
        "RiggedFigure Loop x2: {} triangles, {} boxes; skirt: {} vertices, {} pinned",
        mesh.triangle_count(),
        avatar.box_count(),
        skirt.cloth.positions().len(),
        skirt.cloth.pinned().len()
    );
    let legend = Legend::new("cloth vertices (Pelechano 2002, Fig. 20)")
        .with(LegendEntry::swatch(NO_BOX, "in no bone box"))
        .with(LegendEntry::swatch(
            BOX_ONLY,
            "in a bone box, no skin within 2 cm",
        ))
        .with(LegendEntry::swatch(CONTACT, "skin within 2 cm, or crossed"))
        .with(LegendEntry::swatch(SKIN, "skin"));
    let mut posed = Vec::new();
    deform_vertices(&rest, &weights, &g0, &mut posed);
    let (w, h) = VIEW;
    let header = Canvas::header_height(2 * w, true) + 20.0;
    let insets = [
        header / h as f32,
        0.0,
        (Canvas::legend_size(2 * w, &legend).1 + 16.0) / h as f32,
        0.0,
    ];
    let cameras = [
        Camera::fit_points(
            &posed,
            Vec3::new(0.0, -0.15, -1.0),
            0.6,
            w as f32 / h as f32,
            0.05,
            insets,
        )?,
        Camera::fit_points(
            &posed,
            Vec3::new(-1.0, -0.15, -0.3),
            0.6,
            w as f32 / h as f32,
            0.05,
            insets,
        )?,
    ];
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    let (mut cloth_time, mut stage_time, mut self_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut contacts, mut repositioned, mut continuous) = (0usize, 0usize, 0usize);
    let (mut crossing, mut reverted) = (0usize, 0usize);
    let mut previous = g0;
    for step in 1..=steps {
        let t = step as f32 * DT;
        let g = figure.governors_at(t)?;
        let targets = skirt.pin_targets(&figure, &g);
        let t0 = Instant::now();
        skirt.cloth.set_pin_targets(&targets)?;
        skirt
            .cloth
            .step_with_self_collision(DT, &mut self_collision)?;
        let t1 = Instant::now();
        collision.resolve(&mut skirt.cloth, &avatar, &previous, &g, DT)?;
        let t2 = Instant::now();
        let self_stats = self_collision.resolve(&mut skirt.cloth)?;
        collision.push_out(&mut skirt.cloth, &avatar, self_collision.reverted(), DT)?;
        let t3 = Instant::now();
        cloth_time += t1 - t0;
        stage_time += t2 - t1;
        self_time += t3 - t2;
        crossing += self_stats.crossing_pairs;
        reverted += self_stats.reverted;
        let s = collision.stats();
        contacts += s.contacts;
        repositioned += s.repositioned;
        continuous += s.continuous_hits;
        if step % PICTURE_EVERY == 0 {
            deform_vertices(&rest, &weights, &g, &mut posed);
            let colours: Vec<Rgb> = collision
                .states()
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if skirt.cloth.is_pinned(i) {
                        Rgb::new(0.3, 0.3, 0.3)
                    } else {
                        match s {
                            VertexState::NoBox => NO_BOX,
                            VertexState::BoxOnly => BOX_ONLY,
                            VertexState::Contact => CONTACT,
                        }
                    }
                })
                .collect();
            let mut canvas = Canvas::new(2 * w, h, Rgb::WHITE)?;
            for (k, camera) in cameras.iter().enumerate() {
                let mut view = Canvas::new(w, h, Rgb::WHITE)?;
                view.draw_mesh(
                    camera,
                    &posed,
                    mesh.triangles(),
                    MeshColours::Uniform(SKIN),
                    Shading::Smooth,
                )?;
                view.draw_mesh(
                    camera,
                    skirt.cloth.positions(),
                    skirt.cloth.mesh().triangles(),
                    MeshColours::PerVertex(&colours),
                    Shading::Flat,
                )?;
                canvas.blit(&view, k * w, 0);
            }
            let count = |state| collision.states().iter().filter(|s| **s == state).count();
            canvas.draw_header(
                "cloth_skirt: XPBD skirt, per-bone box collision stage",
                &format!(
                    "{} skin triangles; {} cloth vertices: {} in no box, {} in a box only, {} in contact; {} repositioned, {} crossing skirt pairs this step",
                    mesh.triangle_count(),
                    skirt.cloth.positions().len(),
                    count(VertexState::NoBox),
                    count(VertexState::BoxOnly),
                    count(VertexState::Contact),
                    s.repositioned,
                    self_stats.crossing_pairs
                ),
                &format!("t = {t:.2} s · step {step}/{steps}"),
            );
            canvas.draw_legend(&legend, Corner::BottomLeft);
            written.save_png(
                &canvas,
                format!("{OUT}/{}", frame_file_name("walk", step / PICTURE_EVERY, t)),
                format!("t = {t:.2} s: {} contacts", count(VertexState::Contact)),
            )?;
        }
        previous = g;
    }
    let n = steps.max(1) as u32;
    println!("{steps} steps of {DT:.4} s:");
    println!(
        "  per step: {:.1} contacts, {:.2} repositioned; continuous hits in all: {continuous}",
        contacts as f64 / steps.max(1) as f64,
        repositioned as f64 / steps.max(1) as f64
    );
    println!(
        "  skirt crossing pairs found in all: {crossing}; vertices reverted in all: {reverted}"
    );
    println!(
        "  per step: cloth (with proximity constraints) {:.2?}, collision stage {:.2?}, self-collision stage {:.2?}",
        cloth_time / n,
        stage_time / n,
        self_time / n
    );
    println!();
    written.print_summary();
    Ok(())
}
