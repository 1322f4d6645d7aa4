//! Barrels dropped on a loading dock and on each other dent where they land (Jones et al., MiG 2017, Fig. 4): example-based plasticity on sphere-proxy barrels.
//!
//! `cargo run --release --example barrel_drop [seed]` precomputes the barrel asset (progress
//! bar), drops 15 barrels, simulates 3 s at 240 Hz, prints a summary and writes to
//! `out/barrel_drop/`: PNG snapshots (dented regions tinted) and the final barrels as OBJ.

use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rapier3d_deform::crash::PipelineParams;
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::barrel::BarrelOptions;
use rapier3d_deform_scenes::crash::{self, DT, build_barrel_drop, write_obj};
use rapier3d_deform_scenes::render::{Camera, Canvas, MeshColours, Rgb, Shading};

const BARRELS: usize = 15;
const SECONDS: f32 = 3.0;
const SNAPSHOTS: [f32; 4] = [0.0, 0.7, 1.2, SECONDS];
const OUT: &str = "out/barrel_drop";

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
    let (mut snapshot, mut dents, mut sim) = (0, 0usize, 0.0f64);
    std::fs::create_dir_all(OUT)?;
    for step in 0..=steps {
        let t = step as f32 * DT;
        if snapshot < SNAPSHOTS.len() && t + 0.5 * DT >= SNAPSHOTS[snapshot] {
            let path = format!("{OUT}/drop_{:.2}s.png", SNAPSHOTS[snapshot]);
            render(&mut scene, &path)?;
            println!("wrote {path}");
            snapshot += 1;
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
    let mut positions = Vec::new();
    for (i, body) in barrels.iter().enumerate() {
        let triangles = scene.world_render_mesh(body, &asset, &mut positions)?;
        write_obj(format!("{OUT}/barrel{i}.obj"), &positions, &triangles)?;
    }
    println!("wrote {OUT}/barrel*.obj");
    Ok(())
}

fn render(scene: &mut crash::CrashScene, path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let camera = Camera::look_at(Vec3::new(4.5, 3.6, 6.0), Vec3::new(0.0, 1.3, 0.0), 0.75)?;
    let mut canvas = Canvas::new(1024, 720, Rgb::from_u8(205, 218, 235))?;
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
    canvas.draw_mesh(
        &camera,
        &ground,
        &tris,
        MeshColours::Uniform(Rgb::from_u8(150, 150, 142)),
        Shading::Flat,
    )?;
    let (lo, hi) = (Vec3::new(-2.0, 0.0, -1.5), Vec3::new(2.0, 1.2, 1.5));
    let corners: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let dock: Vec<[u32; 3]> = faces
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    canvas.draw_mesh(
        &camera,
        &corners,
        &dock,
        MeshColours::Uniform(Rgb::from_u8(120, 105, 90)),
        Shading::Flat,
    )?;
    let asset = scene
        .pipeline
        .asset(
            scene.barrels[0]
                .deformable
                .ok_or("barrel is not deformable")?,
        )?
        .clone();
    let render = asset.render().ok_or("no render mesh")?;
    let mut positions = Vec::new();
    let barrels = scene.barrels.clone();
    for (i, body) in barrels.iter().enumerate() {
        let triangles = scene.world_render_mesh(body, &asset, &mut positions)?;
        let pose = *scene.world.bodies[body.rigid_body].position();
        let paint = if i % 2 == 0 {
            Rgb::from_u8(220, 110, 30)
        } else {
            Rgb::from_u8(40, 105, 185)
        };
        let hot = Rgb::from_u8(235, 40, 210);
        let colours: Vec<Rgb> = positions
            .iter()
            .zip(render.mesh().positions())
            .map(|(p, q)| paint.lerp(hot, ((*p - pose * *q).length() / 0.05).clamp(0.0, 1.0)))
            .collect();
        canvas.draw_mesh(
            &camera,
            &positions,
            &triangles,
            MeshColours::PerVertex(&colours),
            Shading::Smooth,
        )?;
    }
    canvas.save_png(path)?;
    Ok(())
}
