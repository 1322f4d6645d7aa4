//! Barrels dropped on a loading dock and on each other dent where they land (Jones et al., MiG 2017, Fig. 4): example-based plasticity on sphere-proxy barrels.
//!
//! `cargo run --release --example barrel_drop [seed]` precomputes the barrel asset (progress
//! bar), drops 15 barrels, simulates 3 s at 240 Hz, prints a summary and writes to
//! `out/barrel_drop/`: `drop_<k>_t<t>s.png` at 0, 0.7, 1.2 and 3 s (one camera fitted to every
//! barrel over the whole sequence; title, time, barrel ids next to the barrels, a legend; dents
//! red by plastic displacement; the contacts as Rapier's `DebugRenderPipeline` draws them, normals
//! 0.4 m long, recorded when the frame is captured and drawn on top through `render::CanvasLines`) and
//! the final barrels as `barrel<i>.obj`.

use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rapier3d_deform::crash::PipelineParams;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::{DebugRenderMode, DebugRenderPipeline, DebugRenderStyle};
use rapier3d_deform_scenes::barrel::BarrelOptions;
use rapier3d_deform_scenes::crash::{self, DT, build_barrel_drop};
use rapier3d_deform_scenes::primitives::box_arrays;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, CanvasLines, Corner, Label, Legend, LegendEntry, MeshColours, RecordedLines,
    Rgb, Shading, WrittenFiles, clear_outputs, debug_lines::hsla_to_rgb, dent_tint,
    frame_file_name,
};

const BARRELS: usize = 15;
const SECONDS: f32 = 3.0;
const SNAPSHOTS: [f32; 4] = [0.0, 0.7, 1.2, SECONDS];
const OUT: &str = "out/barrel_drop";
/// Plastic displacement shown in full dent colour (metres).
const DENT_SCALE: f32 = 0.05;
/// Paint of the barrels (alternating by id, so that neighbours can be told apart).
const PAINTS: [Rgb; 2] = [Rgb::new(0.157, 0.431, 0.745), Rgb::new(0.92, 0.78, 0.24)];
const DOCK: Rgb = Rgb::new(0.47, 0.41, 0.35);
const GROUND: Rgb = Rgb::new(0.588, 0.588, 0.557);
/// The dock's box (the fixed collider of `build_barrel_drop`).
const DOCK_BOX: (Vec3, Vec3) = (Vec3::new(-2.0, 0.0, -1.5), Vec3::new(2.0, 1.2, 1.5));

/// Every barrel's world render-mesh positions and dent colours at one time.
struct Frame {
    step: usize,
    t: f32,
    barrels: Vec<(Vec<Vec3>, Vec<Rgb>)>,
    /// Rapier's contact lines at that time.
    contacts: RecordedLines,
}

/// Rapier's debug style for the contacts of the pictures: normals 0.4 m long in a magenta that
/// stands out against the paints and the dent red.
fn contact_style() -> DebugRenderStyle {
    DebugRenderStyle {
        contact_normal_length: 0.4,
        contact_normal_color: [300.0, 1.0, 0.45, 1.0],
        ..DebugRenderStyle::default()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2017);
    let started = Instant::now();
    let bar = ProgressBar::new(4);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )?);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    let asset = Arc::new(crash::barrel_asset(Some(BarrelOptions::FULL), &mut |m| {
        bar.set_message(format!("barrel: {m}"));
        bar.inc(1);
    })?);
    bar.finish_with_message(format!(
        "barrel ready: {} spheres, {} cage vertices, {} render triangles",
        asset.proxy().sphere_count(),
        asset.cage().vertex_count(),
        asset.render().map_or(0, |r| r.mesh().triangle_count())
    ));

    let mut scene = build_barrel_drop(&asset, BARRELS, seed, PipelineParams::default())?;
    let e0 = scene.mechanical_energy();
    let steps = (SECONDS / DT).round() as usize;
    let (mut dents, mut sim) = (0usize, 0.0f64);
    let mut frames = Vec::new();
    for step in 0..=steps {
        let t = step as f32 * DT;
        if frames.len() < SNAPSHOTS.len() && t + 0.5 * DT >= SNAPSHOTS[frames.len()] {
            frames.push(capture(&mut scene, step)?);
        }
        if step == steps {
            break;
        }
        let tick = Instant::now();
        scene.step()?;
        sim += tick.elapsed().as_secs_f64();
        dents += scene.pipeline.stats().dents;
    }
    let e1 = scene.mechanical_energy();
    println!();
    println!(
        "barrel drop: {BARRELS} barrels, seed {seed}, dt = 1/{:.0} s, {steps} steps",
        1.0 / DT
    );
    println!("{:>7} {:>10}", "barrel", "dent (cm)");
    let barrels = scene.barrels.clone();
    let mut deepest = 0.0f32;
    for (i, body) in barrels.iter().enumerate() {
        let d = scene.dent_depth(body)?;
        deepest = deepest.max(d);
        println!("{i:>7} {:>10.1}", 100.0 * d);
    }
    println!(
        "steps per second: {:.0} ({:.3} ms/step); dents: {dents}; deepest {:.1} cm",
        steps as f64 / sim,
        1e3 * sim / steps as f64,
        100.0 * deepest
    );
    println!(
        "mechanical energy absorbed: {:.1}%; total {:.1} s",
        100.0 * (1.0 - e1 / e0),
        started.elapsed().as_secs_f64()
    );
    // The folder holds exactly this run's files.
    clear_outputs(OUT, &["png", "obj"])?;
    let mut written = WrittenFiles::new();
    let triangles = asset.render().ok_or("no render mesh")?.mesh().triangles();
    render(&frames, triangles, steps, seed, &mut written)?;
    scene.write_render_meshes(&barrels, &asset, OUT, "barrel", &mut written)?;
    println!();
    written.print_summary();
    Ok(())
}

/// Records every barrel's world render mesh and dent colours at `step`.
fn capture(
    scene: &mut crash::CrashScene,
    step: usize,
) -> Result<Frame, Box<dyn std::error::Error>> {
    let barrels = scene.barrels.clone();
    let mut out = Vec::with_capacity(barrels.len());
    for (i, body) in barrels.iter().enumerate() {
        let handle = body.deformable.ok_or("barrel is not deformable")?;
        let asset = scene.pipeline.asset(handle)?.clone();
        let rest = asset.render().ok_or("no render mesh")?.mesh().positions();
        let mut positions = Vec::new();
        scene.world_render_mesh(body, &asset, &mut positions)?;
        let pose = *scene.world.bodies[body.rigid_body].position();
        let colours = positions
            .iter()
            .zip(rest)
            .map(|(p, q)| {
                dent_tint(
                    PAINTS[i % PAINTS.len()],
                    (*p - pose * *q).length(),
                    DENT_SCALE,
                )
            })
            .collect();
        out.push((positions, colours));
    }
    let mut contacts = RecordedLines::new();
    DebugRenderPipeline::new(contact_style(), DebugRenderMode::CONTACTS).render_contacts(
        &mut contacts,
        &scene.world.colliders,
        &scene.world.narrow_phase,
    );
    Ok(Frame {
        step,
        t: step as f32 * DT,
        barrels: out,
        contacts,
    })
}

/// The drop sequence: one camera fitted to the dock and every barrel over every frame.
fn render(
    frames: &[Frame],
    triangles: &[[u32; 3]],
    steps: usize,
    seed: u64,
    written: &mut WrittenFiles,
) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (1280, 900);
    let points: Vec<Vec3> = frames
        .iter()
        .flat_map(|f| &f.barrels)
        .flat_map(|(p, _)| p.iter().copied())
        .chain([DOCK_BOX.0, DOCK_BOX.1])
        .collect();
    let camera = Camera::fit_points(
        &points,
        Vec3::new(-4.5, -2.3, -6.0),
        0.75,
        w as f32 / h as f32,
        0.1,
        [
            (Canvas::header_height(w, true) + 30.0) / h as f32,
            0.0,
            0.0,
            0.0,
        ],
    )?;
    // Ground (tiled so that it clips near the camera) and the dock.
    let (mut ground, mut tris) = (Vec::new(), Vec::new());
    for i in -10..10 {
        for k in -10..10 {
            let (x, z) = (i as f32, k as f32);
            let b = ground.len() as u32;
            ground.extend([
                Vec3::new(x, 0.0, z),
                Vec3::new(x + 1.0, 0.0, z),
                Vec3::new(x + 1.0, 0.0, z + 1.0),
                Vec3::new(x, 0.0, z + 1.0),
            ]);
            tris.extend([[b, b + 2, b + 1], [b, b + 3, b + 2]]);
        }
    }
    let (dlo, dhi) = DOCK_BOX;
    let (corners, dock) = box_arrays(dlo, dhi);
    let legend = Legend::new("colours")
        .with(LegendEntry::dent_ramp(
            Rgb::new(0.62, 0.62, 0.66),
            DENT_SCALE,
            "paint → red by plastic displacement",
        ))
        .with(LegendEntry::swatch(PAINTS[0], "barrel paint, even ids"))
        .with(LegendEntry::swatch(PAINTS[1], "barrel paint, odd ids"))
        .with(LegendEntry::swatch(
            hsla_to_rgb(contact_style().contact_normal_color),
            "contact normal (Rapier's debug render)",
        ))
        .with(LegendEntry::swatch(DOCK, "loading dock (4 × 3 × 1.2 m)"))
        .with(LegendEntry::swatch(GROUND, "ground (1 m tiles)"));
    for (k, frame) in frames.iter().enumerate() {
        let mut canvas = Canvas::new(w, h, Rgb::from_u8(205, 218, 235))?;
        canvas.draw_mesh(
            &camera,
            &ground,
            &tris,
            MeshColours::Uniform(GROUND),
            Shading::Flat,
        )?;
        canvas.draw_mesh(
            &camera,
            &corners,
            &dock,
            MeshColours::Uniform(DOCK),
            Shading::Flat,
        )?;
        for (positions, colours) in &frame.barrels {
            canvas.draw_mesh(
                &camera,
                positions,
                triangles,
                MeshColours::PerVertex(colours),
                Shading::Smooth,
            )?;
        }
        let mut lines = CanvasLines::new(&mut canvas, &camera).on_top();
        lines.replay(&frame.contacts);
        if let Some(e) = lines.error() {
            return Err(e.into());
        }
        canvas.draw_header(
            "barrel_drop",
            &format!(
                "{BARRELS} barrels (labels b0–b{}: barrel ids) dropped onto a loading dock; sphere-proxy plastic colliders, seed {seed}",
                BARRELS - 1
            ),
            &format!("t = {:.3} s · step {}/{steps}", frame.t, frame.step),
        );
        canvas.draw_legend(&legend, Corner::TopRight);
        let labels: Vec<Label> = frame
            .barrels
            .iter()
            .enumerate()
            .map(|(i, (p, _))| {
                Label::above(p, format!("b{i}")).with_swatch(PAINTS[i % PAINTS.len()])
            })
            .collect();
        canvas.draw_labels(&camera, &labels);
        let path = format!("{OUT}/{}", frame_file_name("drop", k, frame.t));
        written.save_png(
            &canvas,
            path,
            format!(
                "all {BARRELS} barrels at t = {:.3} s (fixed camera, ids next to barrels)",
                frame.t
            ),
        )?;
    }
    Ok(())
}
