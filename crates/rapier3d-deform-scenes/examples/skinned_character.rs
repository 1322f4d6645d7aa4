//! Two glTF characters walk through falling balls in a Rapier world: the skinned Khronos Fox and Kenney's platformer character (a multi-mesh model whose parts hang rigidly from animated nodes), each one `SkinnedCollider` posed from its clip every step, pushing what they touch with their surface's velocity; labelled pictures with contact-velocity arrows in `out/skinned_character/`.
//!
//! ```text
//! cargo run --release --example skinned_character -- [seconds]
//! ```
//!
//! Each character is one collider on a kinematic body that walks forward while its walk clip
//! plays; balls rain on both paths. Every step the colliders are posed in O(bones),
//! `SurfaceVelocityHooks` give every contact on a moving limb the limb's velocity, the world
//! steps, and the BN-Tree finds the Fox's self-collisions. The pictures draw, at every contact
//! between a character and a ball, an arrow along the surface's velocity there (body motion plus
//! deformation, 0.2 s of travel). The summary reports balls hit by each character, balls below
//! the ground, self-colliding frames and the per-step cost of each part.

use std::error::Error;
use std::time::{Duration, Instant};

use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::characters::{BALL_RADIUS, CharacterScene, DT, FIGURE_X, WALK_SPEED};
use rapier3d_deform_scenes::render::{
    Camera, Canvas, CanvasLines, Corner, Label, Legend, LegendEntry, MeshColours, Rgb,
    SELF_COLLISION_COLOUR, Shading, WrittenFiles, clear_outputs, frame_file_name,
};

const PICTURE_EVERY: usize = 30;
const OUT: &str = "out/skinned_character";
const SKIN: Rgb = Rgb::ORANGE;
const BALL: Rgb = Rgb::BLUE;
const BALL_HIT: Rgb = Rgb::GREEN;
const FIGURE: Rgb = Rgb::new(0.55, 0.45, 0.85);
const ARROW: Rgb = Rgb::RED;
/// Seconds of surface motion an arrow shows.
const ARROW_SECONDS: f32 = 0.2;
const GROUND: Rgb = Rgb::new(0.78, 0.78, 0.76);
const PICTURE_SIZE: (usize, usize) = (1200, 700);

fn main() -> Result<(), Box<dyn Error>> {
    let seconds: f32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(4.0);
    let steps = (seconds / DT).round() as usize;

    // The scene (world, both characters, hooks, balls): `rapier3d_deform_scenes::characters`,
    // shared with the testbed.
    let t0 = Instant::now();
    let mut scene = CharacterScene::build(seconds)?;
    println!(
        "Fox: {} triangles, {} bones, clips {:?}; Kenney platformer character: {} triangles from {} mesh nodes, {} bones; scene built in {:.2?}",
        scene.fox_mesh.triangle_count(),
        scene.fox.skin().bone_count(),
        scene.fox.clip_names().collect::<Vec<_>>(),
        scene.figure_mesh.triangle_count(),
        scene.figure_mesh_nodes,
        scene.figure.skin().bone_count(),
        t0.elapsed()
    );
    let path_length = WALK_SPEED * seconds;

    // One fixed camera for the whole sequence, framing the Fox's path and the rain.
    let (w, h) = PICTURE_SIZE;
    let legend = legend();
    let framed = [
        Vec3::new(-0.7, 0.0, -1.0),
        Vec3::new(FIGURE_X + 0.7, 0.0, -1.0),
        Vec3::new(-0.7, 0.0, path_length + 0.9),
        Vec3::new(FIGURE_X + 0.7, 0.0, path_length + 0.9),
        Vec3::new(0.0, 1.2, -1.0),
        Vec3::new(0.0, 1.2, path_length + 0.9),
    ];
    let camera = Camera::fit_points(
        &framed,
        Vec3::new(-1.0, -0.45, 0.35),
        0.6,
        w as f32 / h as f32,
        0.05,
        [
            (Canvas::header_height(w, true) + 30.0) / h as f32,
            0.0,
            (Canvas::legend_size(w, &legend).1 + 16.0) / h as f32,
            0.0,
        ],
    )?;
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    let mut touched = vec![false; scene.balls.len()];
    let mut touched_figure = vec![false; scene.balls.len()];
    let mut pushed = 0usize;
    let (mut pose_time, mut step_time, mut self_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut self_colliding_steps, mut max_pairs) = (0, 0);
    for step in 0..=steps {
        let t = scene.time();
        let timing = scene.step()?;
        let pairs = timing.pairs;
        pushed += timing.pushed;
        pose_time += timing.pose;
        step_time += timing.step;
        self_time += timing.self_collisions;
        if pairs > 0 {
            self_colliding_steps += 1;
        }
        max_pairs = max_pairs.max(pairs);
        let CharacterScene {
            world,
            fox,
            fox_mesh,
            figure,
            figure_mesh,
            figure_mesh_nodes,
            hooks,
            balls,
            ..
        } = &scene;
        for (character, hits) in [
            (fox.collider(), &mut touched),
            (figure.collider(), &mut touched_figure),
        ] {
            for pair in world.narrow_phase.contact_pairs_with(character) {
                if pair.has_any_active_contact() {
                    let other = if pair.collider1 == character {
                        pair.collider2
                    } else {
                        pair.collider1
                    };
                    if let Some(k) = balls.iter().position(|&(_, c)| c == other) {
                        hits[k] = true;
                    }
                }
            }
        }
        if step % PICTURE_EVERY == 0 {
            let hit_by: Vec<bool> = touched
                .iter()
                .zip(&touched_figure)
                .map(|(a, b)| *a || *b)
                .collect();
            let mut canvas = draw(
                world,
                [
                    (fox, fox_mesh, SKIN, "Fox"),
                    (figure, figure_mesh, FIGURE, "Kenney character"),
                ],
                balls,
                &hit_by,
                &camera,
                &legend,
            )?;
            let arrows =
                draw_contact_velocities(&mut canvas, &camera, world, hooks, [fox, figure])?;
            let hit = hit_by.iter().filter(|&&t| t).count();
            canvas.draw_header(
                "skinned_character: two glTF characters walk through falling balls",
                &format!(
                    "Fox: {} triangles, {} bones; Kenney: {} mesh nodes; one SkinnedCollider each · {hit} of {} balls hit · {arrows} contact velocities · Fox self-contacts {pairs}",
                    fox_mesh.triangle_count(),
                    fox.skin().bone_count(),
                    figure_mesh_nodes,
                    balls.len(),
                ),
                &format!("t = {t:.2} s · step {step}/{steps}"),
            );
            let k = step / PICTURE_EVERY;
            written.save_png(
                &canvas,
                format!("{OUT}/{}", frame_file_name("walk", k, t)),
                format!("t = {t:.2} s: {hit} balls hit, {pairs} self-colliding pairs"),
            )?;
        }
    }

    let fallen = scene
        .balls
        .iter()
        .filter(|&&(b, _)| scene.world.bodies[b].translation().y < -BALL_RADIUS)
        .count();
    let n = (steps + 1) as u32;
    println!("{} steps of {DT:.4} s:", steps + 1);
    println!(
        "  balls touched by the Fox: {} of {}",
        touched.iter().filter(|&&t| t).count(),
        scene.balls.len()
    );
    println!(
        "  balls touched by the Kenney character: {} of {}",
        touched_figure.iter().filter(|&&t| t).count(),
        scene.balls.len()
    );
    println!("  ball contacts given the surface's normal velocity: {pushed}");
    println!("  balls below the ground: {fallen}");
    println!("  steps with self-collisions: {self_colliding_steps} (at most {max_pairs} pairs)");
    println!(
        "  per step: pose {:.1?}, Rapier step {:.1?}, self-collision query {:.1?}",
        pose_time / n,
        step_time / n,
        self_time / n
    );
    println!();
    written.print_summary();
    Ok(())
}

/// What the colours mean.
fn legend() -> Legend {
    Legend::new("colours")
        .with(LegendEntry::swatch(SKIN, "Fox (one SkinnedCollider)"))
        .with(LegendEntry::swatch(
            FIGURE,
            "Kenney character (its mesh nodes in one SkinnedCollider)",
        ))
        .with(LegendEntry::swatch(
            ARROW,
            "surface velocity at a ball contact (0.2 s of travel)",
        ))
        .with(LegendEntry::swatch(
            SELF_COLLISION_COLOUR,
            "self-colliding triangle (BN-Tree, conservative)",
        ))
        .with(LegendEntry::swatch(BALL, "ball not yet touched"))
        .with(LegendEntry::swatch(
            BALL_HIT,
            "ball a character has touched",
        ))
        .with(LegendEntry::swatch(GROUND, "ground"))
}

/// One picture: both characters in their current pose (the Fox's self-colliding triangles
/// marked), the balls and the ground, with the legend and a label on each character.
fn draw(
    world: &PhysicsWorld,
    characters: [(&SkinnedCollider, &TriangleMesh, Rgb, &str); 2],
    balls: &[(RigidBodyHandle, ColliderHandle)],
    touched: &[bool],
    camera: &Camera,
    legend: &Legend,
) -> Result<Canvas, Box<dyn Error>> {
    let (w, h) = PICTURE_SIZE;
    let mut canvas = Canvas::new(w, h, Rgb::WHITE)?;
    let ground = [
        Vec3::new(-3.0, 0.0, -3.0),
        Vec3::new(3.0, 0.0, -3.0),
        Vec3::new(3.0, 0.0, 6.0),
        Vec3::new(-3.0, 0.0, 6.0),
    ];
    canvas.draw_mesh(
        camera,
        &ground,
        &[[0, 2, 1], [0, 3, 2]],
        MeshColours::Uniform(GROUND),
        Shading::Flat,
    )?;
    let mut labels = Vec::new();
    for (character, mesh, colour, name) in characters {
        let pose = world.bodies[character.body()].position();
        let mut model = Vec::new();
        character.deformed_positions(&mut model);
        let posed: Vec<Vec3> = model.iter().map(|&p| pose.transform_point(p)).collect();
        let mut colours = vec![colour; mesh.triangle_count()];
        for &[a, b] in character.last_self_collisions() {
            colours[a as usize] = SELF_COLLISION_COLOUR;
            colours[b as usize] = SELF_COLLISION_COLOUR;
        }
        canvas.draw_mesh(
            camera,
            &posed,
            mesh.triangles(),
            MeshColours::PerTriangle(&colours),
            Shading::Smooth,
        )?;
        labels.push(Label::above(&posed, name).with_swatch(colour));
    }
    for (k, &(body, _)) in balls.iter().enumerate() {
        let colour = if touched[k] { BALL_HIT } else { BALL };
        canvas.draw_sphere(
            camera,
            world.bodies[body].translation(),
            BALL_RADIUS,
            colour,
        )?;
    }
    canvas.draw_legend(legend, Corner::BottomLeft);
    canvas.draw_labels(camera, &labels);
    Ok(canvas)
}

/// An arrow at every active contact between a character and another collider, along the
/// character's surface velocity there (its body's velocity plus the deformation velocity the
/// hooks give the solver), `ARROW_SECONDS` of travel: drawn by the crate's debug renderer
/// (`DeformDebugRenderer::render_contact_velocities`) through a Rapier debug-render backend that
/// paints the canvas. Returns how many were drawn.
fn draw_contact_velocities(
    canvas: &mut Canvas,
    camera: &Camera,
    world: &PhysicsWorld,
    hooks: &SurfaceVelocityHooks,
    characters: [&SkinnedCollider; 2],
) -> Result<usize, Box<dyn Error>> {
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
    let mut lines = CanvasLines::new(canvas, camera).with_colour(ARROW);
    let mut drawn = 0;
    for character in characters {
        drawn += renderer.render_contact_velocities(
            &mut lines,
            world,
            hooks,
            character.collider(),
            ARROW_SECONDS,
        )?;
    }
    match lines.error() {
        Some(e) => Err(e.into()),
        None => Ok(drawn),
    }
}
