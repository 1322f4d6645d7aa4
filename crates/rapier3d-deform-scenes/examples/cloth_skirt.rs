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
use std::time::Duration;

use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{ClothOptions, ContactThresholds, SelfCollisionOptions, VertexState};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::garment::{self, GarmentStages};
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, WrittenFiles, clear_outputs, frame_file_name,
};
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
    let legend = garment::legend();
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
        let times = stages.step(&mut skirt.cloth, &avatar, &targets, &previous, &g, DT)?;
        cloth_time += times.cloth;
        stage_time += times.skin;
        self_time += times.self_collision;
        let self_stats = stages.self_collision.stats();
        crossing += self_stats.crossing_pairs;
        reverted += self_stats.reverted;
        let s = stages.collision.stats();
        contacts += s.contacts;
        repositioned += s.repositioned;
        continuous += s.continuous_hits;
        if step % PICTURE_EVERY == 0 {
            deform_vertices(&rest, &weights, &g, &mut posed);
            let states = stages.collision.states();
            let mut canvas = garment::draw_views(
                &cameras,
                VIEW,
                &posed,
                mesh.triangles(),
                &skirt.cloth,
                states,
            )?;
            let count = |state| states.iter().filter(|s| **s == state).count();
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
