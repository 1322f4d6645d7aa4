//! Loads a skinned glTF character (default: the Fox), plays a clip, reports per-frame timing and writes PNG snapshots to `out/gltf_character/`.
//!
//! ```text
//! cargo run --release --example gltf_character -- [file.glb] [clip] [frames]
//! ```
//!
//! Per frame: sample the clip's joint world transforms (`Skeleton::world_transforms`), pose the
//! linear blend skinning loaded from the file, evaluate every welded collision vertex, and run the
//! BN-Tree self-collision query (conservative mode) on the welded mesh. Six snapshots of one
//! cycle are rendered with the crate's software renderer (one camera fitted to all six; title,
//! clip time and frame, the character's name, a legend), self-colliding triangles in the
//! self-collision colour, to `out/gltf_character/<clip>_<k>_t<t>s.png`.

use std::error::Error;
use std::time::{Duration, Instant};

use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery,
};
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::{LoadOptions, load_gltf};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, Label, Legend, LegendEntry, MeshColours, Rgb, SELF_COLLISION_COLOUR,
    Shading, WrittenFiles, clear_outputs, frame_file_name,
};

const FPS: f32 = 30.0;
const SNAPSHOTS: usize = 6;
const OUT: &str = "out/gltf_character";
/// The skin colour of the character.
const SKIN: Rgb = Rgb::ORANGE;

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/skinned/Fox.glb").to_owned()
    });
    let clip_name = args.next().unwrap_or_else(|| "Walk".to_owned());
    let frames: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(300);

    let t0 = Instant::now();
    let (asset, report) = load_gltf(&path, &LoadOptions::default())?;
    println!("loaded {path} in {:.2?}", t0.elapsed());
    println!(
        "  {} render vertices → {} welded vertices, {} triangles, {} joints, clips: {:?}",
        report.render_vertices,
        report.welded_vertices,
        asset.mesh.triangle_count(),
        asset.skeleton.joints().len(),
        asset
            .clips
            .iter()
            .map(|c| c.name().unwrap_or("(unnamed)"))
            .collect::<Vec<_>>()
    );
    println!(
        "  report: {} renormalised weight rows, {} zero-weight vertices, {} dropped triangles, {} warnings",
        report.renormalised_weight_rows,
        report.zero_weight_vertices.len(),
        report.dropped_triangles.len(),
        report.warnings.len()
    );
    for w in &report.warnings {
        println!("  warning: {w}");
    }
    let clip = asset
        .clip(&clip_name)
        .or_else(|| asset.clips.first())
        .ok_or("the file has no animation")?;
    let mut skin = asset
        .skinning
        .clone()
        .ok_or("the loaded mesh is not skinned")?;
    println!(
        "playing {:?} ({:.3} s) for {frames} frames at {FPS} fps",
        clip.name(),
        clip.duration()
    );

    let t0 = Instant::now();
    let tree = BnTree::build_with(
        &asset.mesh,
        skin.rest_positions(),
        skin.weights(),
        BnTreeOptions::SELF_COLLISION,
    )?;
    let mut query = SelfCollisionQuery::new(&tree);
    let mut pairs = Vec::new();
    println!(
        "BN-Tree: {} nodes ({} with O(m) bounds), built in {:.2?}",
        tree.nodes().len(),
        tree.governor_bounded_nodes(),
        t0.elapsed()
    );

    // Timed playback.
    let mut self_times = Vec::with_capacity(frames);
    let mut pair_counts = Vec::with_capacity(frames);
    let mut pose_times = Vec::with_capacity(frames);
    let mut skin_times = Vec::with_capacity(frames);
    let mut positions = Vec::new();
    for k in 0..frames {
        let t = clip.looped_time(k as f32 / FPS);
        let a = Instant::now();
        let world = asset.skeleton.world_transforms(clip, t);
        skin.set_bone_transforms(&world)?;
        let b = Instant::now();
        skin.deform_into(&mut positions);
        let c = Instant::now();
        let stats = query.run(
            &tree,
            skin.governors(),
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut pairs,
        )?;
        pose_times.push(b - a);
        skin_times.push(c - b);
        self_times.push(Duration::from_nanos(stats.nanos));
        pair_counts.push(pairs.len());
    }
    let colliding_frames = pair_counts.iter().filter(|&&c| c > 0).count();
    println!(
        "  self-collisions: {} of {frames} frames have some, max {} pairs in a frame",
        colliding_frames,
        pair_counts.iter().max().copied().unwrap_or(0)
    );
    self_times.sort_unstable();
    pose_times.sort_unstable();
    skin_times.sort_unstable();
    for (name, times) in [
        ("pose (clip → joint world transforms)", &pose_times),
        ("skin (all welded vertices)", &skin_times),
        ("BN-Tree self-collision query", &self_times),
    ] {
        println!(
            "  {name}: median {:.1?}, p95 {:.1?}, max {:.1?}",
            percentile(times, 0.5),
            percentile(times, 0.95),
            percentile(times, 1.0)
        );
    }

    // Snapshots of one cycle, framed on the union of their bounds.
    let shots = (0..SNAPSHOTS)
        .map(|k| {
            let t = clip.duration() * k as f32 / SNAPSHOTS as f32;
            let world = asset.skeleton.world_transforms(clip, t);
            skin.set_bone_transforms(&world)?;
            Ok((t, skin.deformed_positions(), skin.governors().to_vec()))
        })
        .collect::<rapier3d_deform::Result<Vec<_>>>()?;
    let (w, h) = (900, 640);
    let points: Vec<Vec3> = shots
        .iter()
        .flat_map(|(_, p, _)| p.iter().copied())
        .collect();
    let name = std::path::Path::new(&path).file_stem().map_or_else(
        || "character".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let clip_label = clip.name().unwrap_or("clip").to_owned();
    let legend = Legend::new("colours")
        .with(LegendEntry::swatch(SKIN, "skin (welded collision mesh)"))
        .with(LegendEntry::swatch(
            SELF_COLLISION_COLOUR,
            "self-colliding triangle (BN-Tree, conservative)",
        ));
    // Below the header band and the label above the character, above the legend's strip.
    let camera = Camera::fit_points(
        &points,
        Vec3::new(-1.0, -0.35, -0.8),
        0.6,
        w as f32 / h as f32,
        0.1,
        [
            (Canvas::header_height(w, true) + 40.0) / h as f32,
            0.0,
            (Canvas::legend_size(w, &legend).1 + 16.0) / h as f32,
            0.0,
        ],
    )?;
    // The folder holds exactly this run's files.
    clear_outputs(OUT, &["png", "obj"])?;
    let mut written = WrittenFiles::new();
    for (k, (t, p, governors)) in shots.iter().enumerate() {
        query.run(
            &tree,
            governors,
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
            &mut pairs,
        )?;
        let mut colours = vec![SKIN; asset.mesh.triangle_count()];
        for pair in &pairs {
            colours[pair[0] as usize] = SELF_COLLISION_COLOUR;
            colours[pair[1] as usize] = SELF_COLLISION_COLOUR;
        }
        let mut canvas = Canvas::new(w, h, Rgb::WHITE)?;
        canvas.draw_mesh(
            &camera,
            p,
            asset.mesh.triangles(),
            MeshColours::PerTriangle(&colours),
            Shading::Smooth,
        )?;
        canvas.draw_header(
            &format!("gltf_character: {name}, clip {clip_label}"),
            &format!(
                "{} triangles, {} joints; {} self-colliding pairs",
                asset.mesh.triangle_count(),
                asset.skeleton.joints().len(),
                pairs.len()
            ),
            &format!("t = {t:.3} s · frame {}/{SNAPSHOTS}", k + 1),
        );
        canvas.draw_legend(&legend, Corner::BottomLeft);
        canvas.draw_labels(&camera, &[Label::above(p, name.clone()).with_swatch(SKIN)]);
        let file = format!(
            "{OUT}/{}",
            frame_file_name(&clip_label.to_lowercase(), k, *t)
        );
        written.save_png(
            &canvas,
            file,
            format!(
                "{name} {clip_label} at t = {t:.3} s ({} self-colliding pairs)",
                pairs.len()
            ),
        )?;
    }
    println!();
    written.print_summary();
    Ok(())
}
