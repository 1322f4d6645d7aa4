//! Eight cars crash at 35 m/s and stay dented where they were hit: example-based plasticity on sphere-proxy colliders in Rapier.
//!
//! `cargo run --release --example car_crash` (no arguments) precomputes the car and barrel
//! assets (progress bar), simulates 2.5 s at 240 Hz, prints a summary table and writes to
//! `out/car_crash/`:
//!
//! * `layout_000_t0.000s.png`: every car at its launch point;
//! * `overview_<k>_t<t>s.png`: the crash zone at 0.85, 1.0, 1.25 and 2.5 s, one camera;
//! * `site<s>_<k>_t<t>s.png`: each of the four crash sites at 0.85, 0.95, 1.05 and 1.25 s, one
//!   camera per site;
//! * `dents_t2.500s.png`: every car alone, seen from its most dented side;
//! * `car<i>.obj`, `barrel<i>.obj`: the final deformed render meshes.
//!
//! Every picture has a title, the simulation time, car and barrel ids next to the bodies and a
//! legend; dents are `render::DENT_COLOUR` (red) by plastic displacement. The overview and site
//! pictures overlay the contacts between bodies (their normals, 0.5 m long) as Rapier's
//! `DebugRenderPipeline` draws them, recorded when the frame is captured and drawn on top through
//! `render::CanvasLines`. Deterministic for a seed: `car_crash [seed]`.

use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rapier3d_deform::crash::DeformableCollider;
use rapier3d_deform::crash::PlasticAsset;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::{
    DebugRenderMode, DebugRenderObject, DebugRenderPipeline, DebugRenderStyle, ShapeType,
};
use rapier3d_deform_scenes::barrel::BarrelOptions;
use rapier3d_deform_scenes::car::CarOptions;
use rapier3d_deform_scenes::crash::{
    self, BARREL_DENT_SCALE, CAR_DENT_SCALE, CarCollider, CrashOptions, CrashScene, DT, SceneBody,
    build_crash,
};
use rapier3d_deform_scenes::render::{
    Camera, Canvas, CanvasLines, Corner, Label, Legend, LegendEntry, MeshColours, RecordedLines,
    Rgb, Shading, WrittenFiles, clear_outputs, debug_lines::hsla_to_rgb, dent_tint,
    frame_file_name,
};

const SECONDS: f32 = 2.5;
/// Time of the layout picture (every car at its launch point, 30 m from its crash site).
const LAYOUT: [f32; 1] = [0.0];
/// Times of the overview sequence: the crash zone just before the impacts, during, after, and
/// at the end.
const SNAPSHOTS: [f32; 4] = [0.85, 1.0, 1.25, SECONDS];
/// Times of the close-up sequences of each crash site: just before the impacts, during, and
/// shortly after (later, the T-boned cars slide out of a close-up; the overview and the dent
/// gallery show the end).
const SITE_TIMES: [f32; 4] = [0.85, 0.95, 1.05, 1.25];
const OUT: &str = "out/car_crash";
const SKY: Rgb = Rgb::new(0.784, 0.843, 0.922);
const GROUND: Rgb = Rgb::new(0.588, 0.588, 0.549);
/// Paint of the cars, by id (none of them red, the dent colour).
const CAR_COLOURS: [(u8, u8, u8); 8] = [
    (40, 90, 200),
    (30, 150, 70),
    (200, 200, 210),
    (60, 60, 70),
    (120, 60, 170),
    (20, 150, 160),
    (210, 180, 40),
    (140, 100, 60),
];
/// Paint of the barrels (alternating by id, so that neighbours can be told apart).
const BARREL_COLOURS: [(u8, u8, u8); 2] = [(40, 110, 190), (235, 200, 60)];
/// The neutral paint of the legend's dent ramps.
const LEGEND_PAINT: Rgb = Rgb::new(0.62, 0.62, 0.66);

fn paint(is_car: bool, id: usize) -> Rgb {
    let (r, g, b) = if is_car {
        CAR_COLOURS[id % CAR_COLOURS.len()]
    } else {
        BARREL_COLOURS[id % BARREL_COLOURS.len()]
    };
    Rgb::from_u8(r, g, b)
}

/// One body at one snapshot: world render-mesh positions and dent-tinted vertex colours.
struct Shot {
    is_car: bool,
    id: usize,
    positions: Vec<Vec3>,
    colours: Vec<Rgb>,
}

impl Shot {
    /// "car 3", "barrel 5", or "b5" when `short` (the overview has many small barrels).
    fn label(&self, short: bool) -> Label {
        let name = match (self.is_car, short) {
            (true, _) => format!("car {}", self.id),
            (false, false) => format!("barrel {}", self.id),
            (false, true) => format!("b{}", self.id),
        };
        Label::above(&self.positions, name).with_swatch(paint(self.is_car, self.id))
    }
}

/// Every body at one time.
struct Frame {
    step: usize,
    t: f32,
    shots: Vec<Shot>,
    /// Rapier's contact lines between two bodies at that time.
    contacts: RecordedLines,
}

/// Rapier's debug style for the contacts of the pictures: normals 0.5 m long in a magenta that
/// stands out against the paints and the dent red.
fn contact_style() -> DebugRenderStyle {
    DebugRenderStyle {
        contact_normal_length: 0.5,
        contact_normal_color: [300.0, 1.0, 0.45, 1.0],
        ..DebugRenderStyle::default()
    }
}

/// Contacts between two bodies (both colliders the crate's sphere proxies), not with the ground.
fn between_bodies(object: &DebugRenderObject) -> bool {
    matches!(object, DebugRenderObject::ContactPair(_, a, b)
        if a.shape().shape_type() == ShapeType::Custom && b.shape().shape_type() == ShapeType::Custom)
}

/// What the pictures draw: the frames and the triangles of the two assets.
struct Pictures {
    frames: Vec<Frame>,
    car_triangles: Vec<[u32; 3]>,
    barrel_triangles: Vec<[u32; 3]>,
    steps: usize,
    seed: u64,
}

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
    // Every time any sequence shows, in order.
    let mut times: Vec<f32> = LAYOUT
        .iter()
        .chain(&SNAPSHOTS)
        .chain(&SITE_TIMES)
        .copied()
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut pictures = Pictures {
        frames: Vec::new(),
        car_triangles: Vec::new(),
        barrel_triangles: Vec::new(),
        steps,
        seed,
    };
    let (mut contacts, mut dents, mut shape_writes, mut max_jump) =
        (0usize, 0usize, 0usize, 0.0f32);
    let mut sim_seconds = 0.0;
    for step in 0..=steps {
        let t = step as f32 * DT;
        if pictures.frames.len() < times.len() && t + 0.5 * DT >= times[pictures.frames.len()] {
            capture(&mut scene, &car, &barrel, step, &mut pictures)?;
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

    // Pictures, each sequence with one camera.
    // The folder holds exactly this run's files.
    clear_outputs(OUT, &["png", "obj"])?;
    let mut written = WrittenFiles::new();
    render_overview(
        &pictures,
        "layout",
        &LAYOUT,
        "every car at its launch point, 30 m from its crash site",
        &mut written,
    )?;
    render_overview(
        &pictures,
        "overview",
        &SNAPSHOTS,
        "the crash zone, fixed camera over the sequence",
        &mut written,
    )?;
    for site in 0..crash::CRASH_SITES.len() {
        render_site(&pictures, site, &mut written)?;
    }
    render_dent_gallery(&mut scene, &pictures, &mut written)?;

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
    scene.write_render_meshes(&cars, &car, OUT, "car", &mut written)?;
    let barrels = scene.barrels.clone();
    scene.write_render_meshes(&barrels, &barrel, OUT, "barrel", &mut written)?;
    println!();
    written.print_summary();
    Ok(())
}

/// Records every body's world render mesh and dent colours at `step`.
fn capture(
    scene: &mut CrashScene,
    car: &PlasticAsset,
    barrel: &PlasticAsset,
    step: usize,
    pictures: &mut Pictures,
) -> Result<(), Box<dyn std::error::Error>> {
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
    let mut shots = Vec::with_capacity(bodies.len());
    for (body, is_car, id) in bodies {
        let asset = if is_car { car } else { barrel };
        let mut positions = Vec::new();
        let triangles = scene.world_render_mesh(&body, asset, &mut positions)?;
        let slot = if is_car {
            &mut pictures.car_triangles
        } else {
            &mut pictures.barrel_triangles
        };
        if slot.is_empty() {
            *slot = triangles;
        }
        let pose = *scene.world.bodies[body.rigid_body].position();
        let rest = asset
            .render()
            .map_or(asset.cage().positions(), |r| r.mesh().positions());
        let scale = if is_car {
            CAR_DENT_SCALE
        } else {
            BARREL_DENT_SCALE
        };
        let colours = positions
            .iter()
            .zip(rest)
            .map(|(p, q)| dent_tint(paint(is_car, id), (*p - pose * *q).length(), scale))
            .collect();
        shots.push(Shot {
            is_car,
            id,
            positions,
            colours,
        });
    }
    let mut contacts = RecordedLines::filtered(between_bodies);
    DebugRenderPipeline::new(contact_style(), DebugRenderMode::CONTACTS).render_contacts(
        &mut contacts,
        &scene.world.colliders,
        &scene.world.narrow_phase,
    );
    pictures.frames.push(Frame {
        step,
        t: step as f32 * DT,
        shots,
        contacts,
    });
    Ok(())
}

/// The frame taken at time `t` (the first at or after it).
fn frame_at(pictures: &Pictures, t: f32) -> &Frame {
    pictures
        .frames
        .iter()
        .find(|f| f.t + 0.5 * DT >= t)
        .unwrap_or_else(|| pictures.frames.last().expect("frames were captured"))
}

/// Bounding box of points.
fn bounds<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> (Vec3, Vec3) {
    points
        .into_iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)))
}

/// The insets of a `w × h` picture that the camera keeps clear: the header band (with a
/// subtitle) and a little more for the labels of the bodies nearest the top; the strip of the
/// legend at the bottom.
fn insets(w: usize, h: usize) -> [f32; 4] {
    let top = (Canvas::header_height(w, true) + 30.0) / h as f32;
    let bottom = (Canvas::legend_size(w, &legend()).1 + 20.0) / h as f32;
    [top, 0.0, bottom, 0.0]
}

fn stamp(pictures: &Pictures, frame: &Frame) -> String {
    format!(
        "t = {:.3} s · step {}/{}",
        frame.t, frame.step, pictures.steps
    )
}

fn legend() -> Legend {
    Legend::new("colours")
        .with(LegendEntry::dent_ramp(
            LEGEND_PAINT,
            CAR_DENT_SCALE,
            "car: paint → red by plastic displacement",
        ))
        .with(LegendEntry::dent_ramp(
            LEGEND_PAINT,
            BARREL_DENT_SCALE,
            "barrel: paint → red by plastic displacement",
        ))
        .with(LegendEntry::swatch(
            hsla_to_rgb(contact_style().contact_normal_color),
            "contact normal between bodies (Rapier's debug render)",
        ))
        .with(LegendEntry::swatch(GROUND, "ground (grid lines every 4 m)"))
        .with(LegendEntry::swatch(
            LEGEND_PAINT,
            "body paint: the swatch in each label",
        ))
}

/// Draws the ground and every body of `frame`.
fn draw_frame(
    pictures: &Pictures,
    frame: &Frame,
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
        MeshColours::Uniform(GROUND),
        Shading::Flat,
    )?;
    let line = Rgb::from_u8(90, 90, 84);
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
    for shot in &frame.shots {
        let triangles = if shot.is_car {
            &pictures.car_triangles
        } else {
            &pictures.barrel_triangles
        };
        canvas.draw_mesh(
            camera,
            &shot.positions,
            triangles,
            MeshColours::PerVertex(&shot.colours),
            Shading::Smooth,
        )?;
    }
    let mut lines = CanvasLines::new(canvas, camera).on_top();
    lines.replay(&frame.contacts);
    if let Some(e) = lines.error() {
        return Err(e.into());
    }
    Ok(())
}

/// An overview sequence: every body at `times`, one camera fitted to every body over every frame.
fn render_overview(
    pictures: &Pictures,
    sequence: &str,
    times: &[f32],
    what: &str,
    written: &mut WrittenFiles,
) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (1600, 900);
    let frames: Vec<&Frame> = times.iter().map(|&t| frame_at(pictures, t)).collect();
    let points: Vec<Vec3> = frames
        .iter()
        .flat_map(|f| &f.shots)
        .flat_map(|s| s.positions.iter().copied())
        .collect();
    // Below the header band, clear of the legend, with room around for the labels.
    let camera = Camera::fit_points(
        &points,
        Vec3::new(0.3, -0.8, -0.55),
        0.6,
        w as f32 / h as f32,
        0.1,
        insets(w, h),
    )?;
    for (k, frame) in frames.iter().enumerate() {
        let mut canvas = Canvas::new(w, h, SKY)?;
        draw_frame(pictures, frame, &camera, &mut canvas)?;
        canvas.draw_header(
            &format!("car_crash: {sequence}"),
            &format!(
                "{what}; 8 cars at 35 m/s into 4 crash sites, 10 barrels (b0–b9) in car 0's lane, seed {}",
                pictures.seed
            ),
            &stamp(pictures, frame),
        );
        canvas.draw_legend(&legend(), Corner::BottomLeft);
        let labels: Vec<Label> = frame.shots.iter().map(|s| s.label(true)).collect();
        canvas.draw_labels(&camera, &labels);
        let path = format!("{OUT}/{}", frame_file_name(sequence, k, frame.t));
        written.save_png(
            &canvas,
            path,
            format!("{sequence} at t = {:.3} s: {what}", frame.t),
        )?;
    }
    Ok(())
}

/// The close-up sequence of one crash site: its two cars (and what comes near them), one camera
/// fitted to the two cars over every frame of the sequence.
fn render_site(
    pictures: &Pictures,
    site: usize,
    written: &mut WrittenFiles,
) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (1200, 900);
    let pair = [2 * site, 2 * site + 1];
    let frames: Vec<&Frame> = SITE_TIMES.iter().map(|&t| frame_at(pictures, t)).collect();
    let in_pair = |s: &&Shot| s.is_car && pair.contains(&s.id);
    let points: Vec<Vec3> = frames
        .iter()
        .flat_map(|f| f.shots.iter().filter(in_pair))
        .flat_map(|s| s.positions.iter().copied())
        .collect();
    let camera = Camera::fit_points(
        &points,
        Vec3::new(-0.45, -0.55, -0.7),
        0.55,
        w as f32 / h as f32,
        0.15,
        insets(w, h),
    )?;
    let kind = [
        "head-on",
        "T-bone",
        "offset head-on",
        "T-bone from the other side",
    ][site % 4];
    for (k, frame) in frames.iter().enumerate() {
        let mut canvas = Canvas::new(w, h, SKY)?;
        draw_frame(pictures, frame, &camera, &mut canvas)?;
        canvas.draw_header(
            &format!("car_crash: crash site {site}"),
            &format!(
                "{kind}: car {} and car {}, fixed camera over the sequence",
                pair[0], pair[1]
            ),
            &stamp(pictures, frame),
        );
        canvas.draw_legend(&legend(), Corner::BottomLeft);
        let labels: Vec<Label> = frame.shots.iter().map(|s| s.label(false)).collect();
        canvas.draw_labels(&camera, &labels);
        let path = format!(
            "{OUT}/{}",
            frame_file_name(&format!("site{site}"), k, frame.t)
        );
        written.save_png(
            &canvas,
            path,
            format!(
                "crash site {site} ({kind}, cars {} and {}) at t = {:.3} s",
                pair[0], pair[1], frame.t
            ),
        )?;
    }
    Ok(())
}

/// Every car alone in its own panel, seen from its most dented side: a 4 × 2 gallery at the end.
fn render_dent_gallery(
    scene: &mut CrashScene,
    pictures: &Pictures,
    written: &mut WrittenFiles,
) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (480, 340);
    let band = Canvas::header_height(4 * w, true).ceil() as usize;
    let legend = Legend::new("colours").with(LegendEntry::dent_ramp(
        LEGEND_PAINT,
        CAR_DENT_SCALE,
        "paint → red by plastic displacement",
    ));
    // A strip below the panels for the legend.
    let footer = Canvas::legend_size(4 * w, &legend).1.ceil() as usize + 24;
    let mut gallery = Canvas::new(4 * w, band + 2 * h + footer, Rgb::WHITE)?;
    let last = pictures.frames.last().ok_or("no frame captured")?;
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
        let (lo, hi) = bounds(rest);
        let centre = 0.5 * (lo + hi);
        // Look at the car from the side of its deepest dent, a little from above.
        let (dent, depth) = positions
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
        let camera = Camera::fit_points(
            rest,
            direction,
            0.6,
            w as f32 / h as f32,
            0.15,
            [Canvas::header_height(w, false) / h as f32, 0.0, 0.0, 0.0],
        )?;
        let mut canvas = Canvas::new(w, h, Rgb::from_u8(235, 238, 242))?;
        let colours: Vec<Rgb> = positions
            .iter()
            .zip(rest)
            .map(|(p, q)| dent_tint(paint(true, i), (*p - *q).length(), CAR_DENT_SCALE))
            .collect();
        canvas.draw_mesh(
            &camera,
            &positions,
            render.mesh().triangles(),
            MeshColours::PerVertex(&colours),
            Shading::Smooth,
        )?;
        canvas.draw_header(
            &format!("car {i}"),
            "",
            &format!("deepest dent {:.1} cm", 100.0 * depth),
        );
        canvas.stroke_rect(0.0, 0.0, w as f32, h as f32, Rgb::GREY);
        gallery.blit(&canvas, (i % 4) * w, band + (i / 4) * h);
    }
    gallery.draw_header(
        "car_crash: dents after the crash",
        "each car alone in its body frame, seen from its most dented side; paint → red by plastic displacement",
        &stamp(pictures, last),
    );
    gallery.draw_legend(&legend, Corner::BottomRight);
    let path = format!("{OUT}/dents_t{:.3}s.png", last.t);
    written.save_png(
        &gallery,
        path,
        format!(
            "dent gallery at t = {:.3} s: each car from its most dented side",
            last.t
        ),
    )?;
    Ok(())
}
