//! Eight cars crash at 35 m/s and stay dented where they were hit: example-based plasticity on sphere-proxy colliders in Rapier.
//!
//! `cargo run --release --example car_crash` (no arguments) precomputes the car and barrel
//! assets (progress bar), simulates 2.5 s at 240 Hz, prints a summary table and writes to
//! `out/car_crash/`: PNG snapshots (overview at several times, close-ups of the four crash
//! sites; dented regions tinted by how far they moved) and the final deformed render meshes
//! as OBJ. Deterministic for a seed: `car_crash [seed]`.

use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rapier3d_deform::crash::DeformableCollider;
use rapier3d_deform::crash::PlasticAsset;
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::barrel::BarrelOptions;
use rapier3d_deform_scenes::car::CarOptions;
use rapier3d_deform_scenes::crash::{
    self, CarCollider, CrashOptions, CrashScene, DT, SceneBody, build_crash, write_obj,
};
use rapier3d_deform_scenes::render::{Camera, Canvas, MeshColours, Rgb, Shading};

const SECONDS: f32 = 2.5;
const SNAPSHOTS: [f32; 5] = [0.0, 0.85, 1.0, 1.25, SECONDS];
/// Time of the close-ups of each crash site (shortly after the impacts, before the cars slide apart).
const CLOSEUP: f32 = 1.25;
const OUT: &str = "out/car_crash";
const CAR_COLOURS: [(u8, u8, u8); 8] = [
    (40, 90, 200),
    (30, 150, 70),
    (200, 200, 210),
    (60, 60, 70),
    (120, 60, 170),
    (20, 150, 160),
    (210, 180, 40),
    (160, 40, 60),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2016);
    let started = Instant::now();

    // Precomputation, with a progress bar.
    let bar = ProgressBar::new(9);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )?);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    let progress = |what: &str| {
        bar.set_message(what.to_string());
        bar.inc(1);
    };
    progress("car: rig and cage");
    let car = Arc::new(crash::car_asset(
        "high",
        Some(CarOptions::FULL),
        &mut |m| progress(&format!("car: {m}")),
    )?);
    let barrel = Arc::new(crash::barrel_asset(Some(BarrelOptions::FULL), &mut |m| {
        progress(&format!("barrel: {m}"))
    })?);
    bar.finish_with_message(format!(
        "assets ready: car {} spheres ({} cage vertices, {} render triangles), barrel {} spheres",
        car.proxy().sphere_count(),
        car.cage().vertex_count(),
        car.render().map_or(0, |r| r.mesh().triangle_count()),
        barrel.proxy().sphere_count()
    ));
    let precompute = started.elapsed().as_secs_f64();

    let options = CrashOptions {
        seed,
        ..CrashOptions::default()
    };
    let mut scene = build_crash(
        &car,
        Some(&barrel),
        &CarCollider::Deformable(DeformableCollider::SphereProxy),
        &options,
    )?;
    let initial: Vec<f64> = scene
        .cars
        .iter()
        .map(|b| scene.world.bodies[b.rigid_body].kinetic_energy() as f64)
        .collect();
    let e0 = scene.mechanical_energy();
    let steps = (SECONDS / DT).round() as usize;
    let mut snapshot = 0;
    let (mut contacts, mut dents, mut shape_writes, mut max_jump) =
        (0usize, 0usize, 0usize, 0.0f32);
    let mut sim_seconds = 0.0;
    std::fs::create_dir_all(OUT)?;
    for step in 0..=steps {
        let t = step as f32 * DT;
        if snapshot < SNAPSHOTS.len() && t + 0.5 * DT >= SNAPSHOTS[snapshot] {
            let path = format!("{OUT}/overview_{:.2}s.png", SNAPSHOTS[snapshot]);
            render_overview(&mut scene, &car, &barrel, step == 0, &path)?;
            println!("wrote {path}");
            snapshot += 1;
        }
        if (t - CLOSEUP).abs() < 0.5 * DT {
            for site in 0..4 {
                let path = format!("{OUT}/site{site}_{CLOSEUP:.2}s.png");
                render_site(&mut scene, &car, &barrel, site, &path)?;
                println!("wrote {path}");
            }
        }
        if step == steps {
            break;
        }
        let tick = Instant::now();
        scene.step()?;
        sim_seconds += tick.elapsed().as_secs_f64();
        let stats = scene.pipeline.stats();
        contacts += stats.contacts;
        dents += stats.dents;
        shape_writes += stats.shape_writes;
        max_jump = max_jump.max(stats.max_com_jump);
    }
    let path = format!("{OUT}/dents.png");
    render_dent_gallery(&mut scene, &path)?;
    println!("wrote {path}");

    // Summary.
    let e1 = scene.mechanical_energy();
    println!();
    println!(
        "car crash: {} cars, {} barrels, seed {seed}, dt = 1/{:.0} s, {steps} steps",
        scene.cars.len(),
        scene.barrels.len(),
        1.0 / DT
    );
    println!(
        "{:>4} {:>12} {:>14} {:>14} {:>10}",
        "car", "dent (m)", "KE start (kJ)", "KE end (kJ)", "absorbed"
    );
    let cars = scene.cars.clone();
    let mut deepest = 0.0f32;
    for (i, body) in cars.iter().enumerate() {
        let depth = scene.dent_depth(body)?;
        deepest = deepest.max(depth);
        let ke = scene.world.bodies[body.rigid_body].kinetic_energy() as f64;
        println!(
            "{:>4} {:>12.3} {:>14.1} {:>14.1} {:>9.1}%",
            i,
            depth,
            initial[i] / 1e3,
            ke / 1e3,
            100.0 * (1.0 - ke / initial[i])
        );
    }
    println!();
    println!(
        "steps per second (Rapier step + plasticity): {:.0}  ({:.3} ms/step)",
        steps as f64 / sim_seconds,
        1e3 * sim_seconds / steps as f64
    );
    println!(
        "solver contacts inspected per step:          {:.1}",
        contacts as f64 / steps as f64
    );
    println!("dents (yielded contact vertices):            {dents}");
    println!(
        "proxy shape writes:                          {shape_writes} ({:.2} per body-step)",
        shape_writes as f64 / (steps * (cars.len() + scene.barrels.len())) as f64
    );
    println!(
        "deepest dent:                                {deepest:.3} m ({:.1}% of the car length)",
        100.0 * deepest / rapier3d_deform_scenes::car::CAR_LENGTH
    );
    println!(
        "mechanical energy absorbed:                  {:.1}% ({:.0} kJ of {:.0} kJ)",
        100.0 * (1.0 - e1 / e0),
        (e0 - e1) / 1e3,
        e0 / 1e3
    );
    println!(
        "largest centre-of-mass jump from a mass update: {:.2} mm",
        1e3 * max_jump
    );
    println!(
        "precomputation {precompute:.1} s, total {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Final meshes.
    let mut positions = Vec::new();
    for (i, body) in cars.iter().enumerate() {
        let triangles = scene.world_render_mesh(body, &car, &mut positions)?;
        write_obj(format!("{OUT}/car{i}.obj"), &positions, &triangles)?;
    }
    let barrels = scene.barrels.clone();
    for (i, body) in barrels.iter().enumerate() {
        let triangles = scene.world_render_mesh(body, &barrel, &mut positions)?;
        write_obj(format!("{OUT}/barrel{i}.obj"), &positions, &triangles)?;
    }
    println!("wrote {OUT}/car*.obj, {OUT}/barrel*.obj");
    Ok(())
}

/// Colours a body's vertices: its paint, tinted towards red where the mesh moved from rest.
fn dent_colours(paint: Rgb, world: &[Vec3], rest_world: &[Vec3], scale: f32) -> Vec<Rgb> {
    let hot = Rgb::from_u8(255, 60, 20);
    world
        .iter()
        .zip(rest_world)
        .map(|(p, q)| paint.lerp(hot, ((*p - *q).length() / scale).clamp(0.0, 1.0)))
        .collect()
}

fn draw_scene(
    scene: &mut CrashScene,
    car: &PlasticAsset,
    barrel: &PlasticAsset,
    camera: &Camera,
    canvas: &mut Canvas,
) -> Result<(), Box<dyn std::error::Error>> {
    // Ground in 4 m tiles (so that the rasterizer can clip them near the camera), a 4 m grid.
    let tile = 4.0;
    let (mut ground, mut tris) = (Vec::new(), Vec::new());
    for i in -25..25 {
        for k in -15..15 {
            let (x, z) = (i as f32 * tile, k as f32 * tile);
            let base = ground.len() as u32;
            ground.extend([
                Vec3::new(x, 0.0, z),
                Vec3::new(x + tile, 0.0, z),
                Vec3::new(x + tile, 0.0, z + tile),
                Vec3::new(x, 0.0, z + tile),
            ]);
            tris.extend([[base, base + 2, base + 1], [base, base + 3, base + 2]]);
        }
    }
    canvas.draw_mesh(
        camera,
        &ground,
        &tris,
        MeshColours::Uniform(Rgb::from_u8(150, 150, 140)),
        Shading::Flat,
    )?;
    let line = Rgb::from_u8(128, 128, 120);
    for k in -25..=25 {
        let x = tile * k as f32;
        canvas.draw_line3(
            camera,
            Vec3::new(x, 0.005, -60.0),
            Vec3::new(x, 0.005, 60.0),
            line,
        )?;
    }
    for k in -15..=15 {
        let z = tile * k as f32;
        canvas.draw_line3(
            camera,
            Vec3::new(-100.0, 0.005, z),
            Vec3::new(100.0, 0.005, z),
            line,
        )?;
    }
    let bodies: Vec<(SceneBody, bool, usize)> = scene
        .cars
        .iter()
        .enumerate()
        .map(|(i, b)| (*b, true, i))
        .chain(
            scene
                .barrels
                .iter()
                .enumerate()
                .map(|(i, b)| (*b, false, i)),
        )
        .collect();
    let mut positions = Vec::new();
    for (body, is_car, i) in bodies {
        let asset = if is_car { car } else { barrel };
        let triangles = scene.world_render_mesh(&body, asset, &mut positions)?;
        let pose = *scene.world.bodies[body.rigid_body].position();
        let rest: Vec<Vec3> = asset
            .render()
            .map_or(asset.cage().positions(), |r| r.mesh().positions())
            .iter()
            .map(|p| pose * *p)
            .collect();
        let (paint, scale) = if is_car {
            let (r, g, b) = CAR_COLOURS[i % CAR_COLOURS.len()];
            (Rgb::from_u8(r, g, b), 0.35)
        } else {
            (
                if i % 2 == 0 {
                    Rgb::from_u8(230, 120, 30)
                } else {
                    Rgb::from_u8(40, 110, 190)
                },
                0.08,
            )
        };
        let colours = dent_colours(paint, &positions, &rest, scale);
        canvas.draw_mesh(
            camera,
            &positions,
            &triangles,
            MeshColours::PerVertex(&colours),
            Shading::Smooth,
        )?;
    }
    Ok(())
}

/// Bounding box of points.
fn bounds(points: impl IntoIterator<Item = Vec3>) -> (Vec3, Vec3) {
    points
        .into_iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(p), b.max(p)))
}

fn render_overview(
    scene: &mut CrashScene,
    car: &PlasticAsset,
    barrel: &PlasticAsset,
    launch: bool,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    // At launch, frame every car; afterwards, the crash sites around the origin.
    let camera = if launch {
        let (lo, hi) = bounds(
            scene
                .cars
                .iter()
                .map(|b| scene.world.bodies[b.rigid_body].translation()),
        );
        let margin = Vec3::new(3.0, 0.0, 3.0);
        Camera::framing(
            lo - margin,
            hi + margin + Vec3::Y * 1.5,
            Vec3::new(0.3, -0.75, -0.6),
            0.6,
        )?
    } else {
        Camera::look_at(Vec3::new(-6.0, 21.0, 31.0), Vec3::new(0.0, 0.0, 1.0), 0.8)?
    };
    let mut canvas = Canvas::new(1280, 720, Rgb::from_u8(200, 215, 235))?;
    draw_scene(scene, car, barrel, &camera, &mut canvas)?;
    canvas.save_png(path)?;
    Ok(())
}

fn render_site(
    scene: &mut CrashScene,
    car: &PlasticAsset,
    barrel: &PlasticAsset,
    site: usize,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let pair: Vec<SceneBody> = scene.cars.iter().skip(2 * site).take(2).copied().collect();
    if pair.is_empty() {
        return Ok(());
    }
    let mut points = Vec::new();
    let mut positions = Vec::new();
    for body in &pair {
        scene.world_render_mesh(body, car, &mut positions)?;
        points.extend_from_slice(&positions);
    }
    let (lo, hi) = bounds(points);
    let camera = Camera::framing(lo, hi, Vec3::new(-0.45, -0.55, -0.7), 0.55)?;
    let mut canvas = Canvas::new(960, 640, Rgb::from_u8(200, 215, 235))?;
    draw_scene(scene, car, barrel, &camera, &mut canvas)?;
    canvas.save_png(path)?;
    Ok(())
}

/// Every car alone in its own frame, seen from its most dented side: a 4 × 2 gallery.
fn render_dent_gallery(
    scene: &mut CrashScene,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (480, 320);
    let mut gallery = Canvas::new(4 * w, 2 * h, Rgb::WHITE)?;
    let cars = scene.cars.clone();
    for (i, body) in cars.iter().enumerate() {
        let Some(handle) = body.deformable else {
            continue;
        };
        let mut positions = Vec::new();
        scene.pipeline.render_positions(handle, &mut positions)?;
        let asset = scene.pipeline.asset(handle)?.clone();
        let Some(render) = asset.render() else {
            continue;
        };
        let rest = render.mesh().positions();
        let (lo, hi) = bounds(rest.iter().copied());
        let centre = 0.5 * (lo + hi);
        // Look at the car from the side of its deepest dent, a little from above.
        let (dent, _) = positions
            .iter()
            .zip(rest)
            .map(|(p, q)| (*q, (*p - *q).length()))
            .fold((centre, 0.0), |best, c| if c.1 > best.1 { c } else { best });
        let mut side = dent - centre;
        side.y = 0.0;
        let side = if side.length() > 1e-3 {
            side.normalize()
        } else {
            Vec3::X
        };
        let direction = -(side + Vec3::new(0.0, 0.55, 0.0) + side.cross(Vec3::Y) * 0.6);
        let camera = Camera::framing(lo, hi, direction, 0.6)?;
        let mut canvas = Canvas::new(w, h, Rgb::from_u8(235, 238, 242))?;
        let (r, g, b) = CAR_COLOURS[i % CAR_COLOURS.len()];
        let colours = dent_colours(Rgb::from_u8(r, g, b), &positions, rest, 0.35);
        canvas.draw_mesh(
            &camera,
            &positions,
            render.mesh().triangles(),
            MeshColours::PerVertex(&colours),
            Shading::Smooth,
        )?;
        gallery.blit(&canvas, (i % 4) * w, (i / 4) * h);
    }
    gallery.save_png(path)?;
    Ok(())
}
