//! The BN-Tree paper's cat: builds the ~250k-triangle skinned cat and renders walk and run-and-jump frames to `out/cat_walk_*.png`.
//!
//! ```text
//! cargo run --release --example cat_walk            # 250k cat, 6 walk + 6 run-jump frames
//! cargo run --release --example cat_walk -- --all   # also times the build of every resolution
//! ```
//!
//! Writes `out/cat_walk_walk_<k>.png`, `out/cat_walk_runjump_<k>.png` and a contact sheet
//! `out/cat_walk_sheet.png` (walk on the top row, run-jump below).

use std::time::Instant;

use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use rapier3d_deform_scenes::render::{Camera, Canvas, MeshColours, Rgb, Shading};

const FRAMES: usize = 6;
const SIDE: (usize, usize) = (640, 400);

/// A ginger tabby coat: darker stripes across the back, legs and tail, a pale belly.
fn coat(rest: Vec3) -> Rgb {
    let ginger = Rgb::new(0.93, 0.58, 0.26);
    let dark = Rgb::new(0.62, 0.3, 0.1);
    let cream = Rgb::new(0.98, 0.88, 0.72);
    let stripe = (0.5 + 0.5 * (95.0 * rest.x + 25.0 * rest.y).sin()).powi(3);
    let back = ((rest.y - 0.2) / 0.08).clamp(0.0, 1.0);
    let base = ginger.lerp(dark, 0.75 * stripe * (0.35 + 0.65 * back));
    let under_torso = (-0.17..0.13).contains(&rest.x) && rest.z.abs() < 0.032;
    let belly = ((0.2 - rest.y) / 0.04).clamp(0.0, 1.0) * under_torso as u8 as f32;
    let paws = ((0.035 - rest.y) / 0.015).clamp(0.0, 1.0);
    base.lerp(cream, 0.8 * belly.max(paws))
}

fn render(
    camera: &Camera,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    colours: &[Rgb],
) -> rapier3d_deform::Result<Canvas> {
    let mut canvas = Canvas::new(SIDE.0, SIDE.1, Rgb::new(0.86, 0.9, 0.96))?;
    // The ground plane y = 0 (large enough that its far edge is beyond the horizon).
    let g = 20.0;
    let ground = [
        Vec3::new(-g, 0.0, -g),
        Vec3::new(g, 0.0, -g),
        Vec3::new(g, 0.0, g),
        Vec3::new(-g, 0.0, g),
    ];
    canvas.draw_mesh(
        camera,
        &ground,
        &[[0, 2, 1], [0, 3, 2]],
        MeshColours::Uniform(Rgb::new(0.72, 0.74, 0.7)),
        Shading::Flat,
    )?;
    canvas.draw_mesh(
        camera,
        positions,
        triangles,
        MeshColours::PerVertex(colours),
        Shading::Smooth,
    )?;
    Ok(canvas)
}

fn main() -> rapier3d_deform::Result<()> {
    if std::env::args().any(|a| a == "--all") {
        println!("resolution  triangles  vertices  max influences  build (s)");
        for res in CatResolution::ALL {
            let start = Instant::now();
            let cat = Cat::build(res)?;
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "{:<10}  {:>9}  {:>8}  {:>14}  {:>9.2}",
                format!("{res:?}"),
                cat.mesh().triangle_count(),
                cat.mesh().vertex_count(),
                cat.skinning().weights().max_influences(),
                seconds
            );
        }
    }

    let start = Instant::now();
    let mut cat = Cat::build(CatResolution::Full)?;
    println!(
        "cat: {} triangles, {} vertices, {} bones, up to {} influences; built in {:.2} s",
        cat.mesh().triangle_count(),
        cat.mesh().vertex_count(),
        cat.skinning().bone_count(),
        cat.skinning().weights().max_influences(),
        start.elapsed().as_secs_f64()
    );
    let triangles = cat.mesh().triangles().to_vec();
    let colours: Vec<Rgb> = cat.mesh().positions().iter().map(|&p| coat(p)).collect();
    let camera = Camera::look_at(Vec3::new(0.5, 0.5, 1.3), Vec3::new(0.0, 0.25, 0.0), 0.6)?;
    let mut sheet = Canvas::new(SIDE.0 * 3, SIDE.1 * 4, Rgb::WHITE)?;
    for (row, gait) in Gait::ALL.into_iter().enumerate() {
        let name = match gait {
            Gait::Walk => "walk",
            Gait::RunJump => "runjump",
        };
        // The walk evenly over its cycle; the run-jump at two gallop phases, the crouch, the
        // take-off, the tuck (tail curled onto the back) and the landing (neck bent).
        let times: [f32; FRAMES] = match gait {
            Gait::Walk => std::array::from_fn(|k| gait.period() * k as f32 / FRAMES as f32),
            Gait::RunJump => [0.1, 0.3, 1.45, 1.65, 1.88, 2.23],
        };
        for (k, t) in times.into_iter().enumerate() {
            let pose = cat.pose(gait, t);
            let skin_start = Instant::now();
            cat.skinning_mut().set_bone_transforms(&pose)?;
            let posed = cat.skinning().deformed_positions();
            let skin_ms = 1e3 * skin_start.elapsed().as_secs_f64();
            let canvas = render(&camera, &posed, &triangles, &colours)?;
            let path = format!("out/cat_walk_{name}_{k}.png");
            canvas.save_png(&path)?;
            println!("{path}: t = {t:.2} s (skinning {skin_ms:.1} ms)");
            sheet.blit(&canvas, (k % 3) * SIDE.0, (2 * row + k / 3) * SIDE.1);
        }
    }
    sheet.save_png("out/cat_walk_sheet.png")?;
    println!("out/cat_walk_sheet.png: walk (top two rows), run and jump (bottom two rows)");
    Ok(())
}
