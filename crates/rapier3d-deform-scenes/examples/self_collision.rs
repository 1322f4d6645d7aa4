//! The BN-Tree paper's cat: builds the ~250k-triangle skinned cat, finds its self-collisions with the BN-Tree and renders walk and run-and-jump frames to `out/self_collision/`.
//!
//! ```text
//! cargo run --release --example self_collision            # 250k cat, 6 walk + 6 run-jump frames
//! cargo run --release --example self_collision -- --quick # the 15k-triangle cat (seconds)
//! cargo run --release --example self_collision -- --all   # also times the build of every resolution
//! ```
//!
//! Writes `out/self_collision/walk_<k>_t<t>s.png`, `out/self_collision/runjump_<k>_t<t>s.png` (one camera
//! fitted to the cat over all twelve frames; title, gait time and frame, legend) and a contact
//! sheet `out/self_collision/sheet.png` (walk on the top two rows, run-jump below). Self-colliding
//! triangles (BN-Tree query, conservative culling) are drawn in the self-collision colour, their
//! edges outlined by the crate's debug renderer (`DeformDebugRenderer::render_triangle_pairs` on a
//! `DeformableMeshShape` collider over the same tree, through `render::CanvasLines`).

use std::sync::Arc;
use std::time::Instant;

use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery,
};
use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::{ColliderBuilder, ColliderSet, SharedShape};
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use rapier3d_deform_scenes::render::{
    Camera, Canvas, CanvasLines, Corner, Legend, LegendEntry, MeshColours, Rgb,
    SELF_COLLISION_COLOUR, Shading, WrittenFiles, clear_outputs, debug_lines::hsla_to_rgb,
    frame_file_name,
};

const FRAMES: usize = 6;
const SIDE: (usize, usize) = (640, 420);
const OUT: &str = "out/self_collision";
const SKY: Rgb = Rgb::new(0.86, 0.9, 0.96);
const GROUND: Rgb = Rgb::new(0.72, 0.74, 0.7);
/// Rapier colour (HSLA) of the self-colliding triangles' edges: a dark magenta around the fill.
const PAIR_EDGES: [f32; 4] = [300.0, 1.0, 0.25, 1.0];

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
    let mut canvas = Canvas::new(SIDE.0, SIDE.1, SKY)?;
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
        MeshColours::Uniform(GROUND),
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

/// One frame: gait, index in its sequence, gait time, posed positions, self-colliding pairs.
struct Frame {
    gait: Gait,
    index: usize,
    t: f32,
    positions: Vec<Vec3>,
    pairs: usize,
    colliding: Vec<u32>,
    /// The skin matrices of the pose.
    governors: Vec<Affine>,
    /// The self-colliding triangle pairs.
    pair_list: Vec<[u32; 2]>,
}

/// `244480` → `"244,480"`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn gait_name(gait: Gait) -> &'static str {
    match gait {
        Gait::Walk => "walk",
        Gait::RunJump => "runjump",
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = std::env::args().any(|a| a == "--quick");
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

    let resolution = if quick {
        CatResolution::Coarse
    } else {
        CatResolution::Full
    };
    let start = Instant::now();
    let mut cat = Cat::build(resolution)?;
    println!(
        "cat: {} triangles, {} vertices, {} bones, up to {} influences; built in {:.2} s",
        cat.mesh().triangle_count(),
        cat.mesh().vertex_count(),
        cat.skinning().bone_count(),
        cat.skinning().weights().max_influences(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let tree = Arc::new(BnTree::build_with(
        cat.mesh(),
        cat.skinning().rest_positions(),
        cat.skinning().weights(),
        BnTreeOptions::SELF_COLLISION,
    )?);
    let mut query = SelfCollisionQuery::new(&tree);
    let mut pairs = Vec::new();
    println!(
        "BN-Tree: {} nodes, built in {:.2} s",
        tree.nodes().len(),
        start.elapsed().as_secs_f64()
    );
    let triangles = cat.mesh().triangles().to_vec();
    let coat_colours: Vec<Rgb> = cat.mesh().positions().iter().map(|&p| coat(p)).collect();

    // Pose every frame first, so that one camera can frame them all.
    let mut frames = Vec::new();
    for gait in Gait::ALL {
        // The walk evenly over its cycle; the run-jump at two gallop phases, the crouch, the
        // take-off, the tuck (tail curled onto the back) and the landing (neck bent).
        let times: [f32; FRAMES] = match gait {
            Gait::Walk => std::array::from_fn(|k| gait.period() * k as f32 / FRAMES as f32),
            Gait::RunJump => [0.1, 0.3, 1.45, 1.65, 1.88, 2.23],
        };
        for (index, t) in times.into_iter().enumerate() {
            let pose = cat.pose(gait, t);
            let skin_start = Instant::now();
            cat.skinning_mut().set_bone_transforms(&pose)?;
            let positions = cat.skinning().deformed_positions();
            let skin_ms = 1e3 * skin_start.elapsed().as_secs_f64();
            let stats = query.run(
                &tree,
                cat.skinning().governors(),
                RefitPolicy::OnDemand,
                CullingMode::Conservative,
                &mut pairs,
            )?;
            let colliding: Vec<u32> = pairs.iter().flat_map(|p| [p[0], p[1]]).collect();
            println!(
                "{} t = {t:.2} s: skinning {skin_ms:.1} ms, self-collision {:.1} ms, {} pairs",
                gait_name(gait),
                stats.nanos as f64 / 1e6,
                pairs.len()
            );
            frames.push(Frame {
                gait,
                index,
                t,
                positions,
                pairs: pairs.len(),
                colliding,
                governors: cat.skinning().governors().to_vec(),
                pair_list: pairs.clone(),
            });
        }
    }
    let points: Vec<Vec3> = frames
        .iter()
        .flat_map(|f| f.positions.iter().copied())
        .collect();
    let legend = Legend::new("colours")
        .with(LegendEntry::swatch(
            SELF_COLLISION_COLOUR,
            "self-colliding triangle (BN-Tree)",
        ))
        .with(LegendEntry::swatch(
            hsla_to_rgb(PAIR_EDGES),
            "their edges (the crate's debug render)",
        ))
        .with(LegendEntry::swatch(
            coat(Vec3::new(0.0, 0.25, 0.0)),
            "fur pattern (no data)",
        ))
        .with(LegendEntry::swatch(GROUND, "ground"));
    // Below the header band, above the strip of the legend.
    let camera = Camera::fit_points(
        &points,
        Vec3::new(-0.5, -0.25, -1.3),
        0.6,
        SIDE.0 as f32 / SIDE.1 as f32,
        0.08,
        [
            Canvas::header_height(SIDE.0, true) / SIDE.1 as f32,
            0.0,
            (Canvas::legend_size(SIDE.0, &legend).1 + 12.0) / SIDE.1 as f32,
            0.0,
        ],
    )?;

    // A collider over the same tree, for the debug renderer (at the origin: the frames are in
    // the cat's space).
    let mut colliders = ColliderSet::new();
    let shape = DeformableMeshShape::new(tree.clone(), &frames[0].governors)?;
    let outline = colliders.insert(ColliderBuilder::new(SharedShape::new(shape)).build());
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions {
        pair_color: PAIR_EDGES,
        ..DeformDebugRenderOptions::default()
    });
    let band = Canvas::header_height(SIDE.0 * 3, true).ceil() as usize;
    let mut sheet = Canvas::new(SIDE.0 * 3, band + SIDE.1 * 4, Rgb::WHITE)?;
    // The folder holds exactly this run's files.
    clear_outputs(OUT, &["png", "obj"])?;
    let mut written = WrittenFiles::new();
    for (row, gait) in Gait::ALL.into_iter().enumerate() {
        let name = gait_name(gait);
        let sequence: Vec<&Frame> = frames.iter().filter(|f| f.gait == gait).collect();
        for frame in sequence {
            let mut colours = coat_colours.clone();
            for &t in &frame.colliding {
                for &v in &triangles[t as usize] {
                    colours[v as usize] = SELF_COLLISION_COLOUR;
                }
            }
            let mut canvas = render(&camera, &frame.positions, &triangles, &colours)?;
            // The pairs' edges through the debug renderer, on the collider posed like the frame.
            colliders[outline]
                .shape_mut()
                .as_shape_mut::<DeformableMeshShape>()
                .ok_or("the outline collider is a DeformableMeshShape")?
                .set_governors(&frame.governors)?;
            let mut lines = CanvasLines::new(&mut canvas, &camera);
            renderer.render_triangle_pairs(&mut lines, &colliders, outline, &frame.pair_list)?;
            if let Some(e) = lines.error() {
                return Err(e.into());
            }
            canvas.draw_header(
                &format!("self_collision: {name}"),
                &format!(
                    "{} triangles, {} self-colliding pairs",
                    thousands(triangles.len()),
                    frame.pairs
                ),
                &format!("t = {:.2} s · frame {}/{FRAMES}", frame.t, frame.index + 1),
            );
            canvas.draw_legend(&legend, Corner::BottomRight);
            let path = format!("{OUT}/{}", frame_file_name(name, frame.index, frame.t));
            written.save_png(
                &canvas,
                path,
                format!(
                    "{name} at gait time {:.2} s ({} self-colliding pairs)",
                    frame.t, frame.pairs
                ),
            )?;
            let k = frame.index;
            canvas.stroke_rect(0.0, 0.0, SIDE.0 as f32, SIDE.1 as f32, Rgb::GREY);
            sheet.blit(&canvas, (k % 3) * SIDE.0, band + (2 * row + k / 3) * SIDE.1);
        }
    }
    sheet.draw_header(
        "self_collision: contact sheet",
        &format!(
            "{} triangles; walk (top two rows) and run-and-jump (bottom two rows), one camera",
            thousands(triangles.len())
        ),
        "gait time in each panel",
    );
    let path = format!("{OUT}/sheet.png");
    written.save_png(
        &sheet,
        path,
        "contact sheet: walk (top two rows), run and jump (bottom two rows)",
    )?;
    println!();
    written.print_summary();
    Ok(())
}
