//! A skinned glTF character (the Khronos Fox) walks through falling balls in a Rapier world: one `SkinnedCollider`, posed from its clip every step; labelled pictures in `out/skinned_character/`.
//!
//! ```text
//! cargo run --release --example skinned_character -- [seconds]
//! ```
//!
//! The Fox is one collider on a kinematic body that walks forward while its `Walk` clip plays;
//! balls rain on its path. Every step the collider is posed in O(bones), the world steps, and the
//! BN-Tree finds the mesh's self-collisions. The summary reports balls hit by the Fox, balls that
//! ended inside it (should be 0), self-colliding frames and the per-step cost of each part.

use std::error::Error;
use std::time::{Duration, Instant};

use rapier3d_deform::prelude::*;
use rapier3d_deform_scenes::asset_path;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, Label, Legend, LegendEntry, MeshColours, Rgb, SELF_COLLISION_COLOUR,
    Shading, WrittenFiles, clear_outputs, frame_file_name,
};

const DT: f32 = 1.0 / 60.0;
const SCALE: f32 = 0.01;
const WALK_SPEED: f32 = 0.6;
const BALL_RADIUS: f32 = 0.06;
const PICTURE_EVERY: usize = 30;
const OUT: &str = "out/skinned_character";
const SKIN: Rgb = Rgb::ORANGE;
const BALL: Rgb = Rgb::BLUE;
const BALL_HIT: Rgb = Rgb::GREEN;
const GROUND: Rgb = Rgb::new(0.78, 0.78, 0.76);
const PICTURE_SIZE: (usize, usize) = (1200, 700);

fn main() -> Result<(), Box<dyn Error>> {
    let seconds: f32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(4.0);
    let steps = (seconds / DT).round() as usize;

    // The world: Rapier's, with the crate's narrow phase.
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = DT;
    world.narrow_phase = DeformDispatcher::narrow_phase();
    world.insert(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::cuboid(20.0, 0.1, 20.0).translation(Vector::new(0.0, -0.1, 0.0)),
    );

    // The character: one call from the glTF file.
    let t0 = Instant::now();
    let (asset, _report) = load_gltf(asset_path("skinned/Fox.glb"), &LoadOptions::default())?;
    let mut fox = SkinnedColliderBuilder::from_gltf(&asset)?
        .scale(SCALE)
        .self_collisions(CullingMode::Conservative)
        .collider(ColliderBuilder::ball(1.0).friction(0.6))
        .build(&mut world)?;
    println!(
        "Fox: {} triangles, {} bones, clips {:?}; collider built in {:.2?}",
        asset.mesh.triangle_count(),
        fox.skin().bone_count(),
        fox.clip_names().collect::<Vec<_>>(),
        t0.elapsed()
    );

    // Balls rain on the Fox's path (seeded, so every run is the same).
    let path_length = WALK_SPEED * seconds;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut balls = Vec::new();
    for k in 0..160 {
        let x = (next() - 0.5) * 0.5;
        let z = -0.6 + next() * (path_length + 1.4);
        let y = 1.0 + 0.04 * k as f32;
        let (body, collider) = world.insert(
            RigidBodyBuilder::dynamic().translation(Vector::new(x, y, z)),
            ColliderBuilder::ball(BALL_RADIUS)
                .density(200.0)
                .friction(0.6),
        );
        balls.push((body, collider));
    }

    // One fixed camera for the whole sequence, framing the Fox's path and the rain.
    let (w, h) = PICTURE_SIZE;
    let legend = legend();
    let framed = [
        Vec3::new(-0.7, 0.0, -1.0),
        Vec3::new(0.7, 0.0, -1.0),
        Vec3::new(-0.7, 0.0, path_length + 0.9),
        Vec3::new(0.7, 0.0, path_length + 0.9),
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
    let mut touched = vec![false; balls.len()];
    let (mut pose_time, mut step_time, mut self_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut self_colliding_steps, mut max_pairs) = (0, 0);
    for step in 0..=steps {
        let t = step as f32 * DT;
        let a = Instant::now();
        fox.play(&mut world.colliders, "Walk", t)?;
        let fox_body = &mut world.bodies[fox.body()];
        fox_body.set_next_kinematic_translation(Vector::new(0.0, 0.0, WALK_SPEED * (t + DT)));
        let b = Instant::now();
        world.step();
        let c = Instant::now();
        let pairs = fox.find_self_collisions()?.len();
        let d = Instant::now();
        pose_time += b - a;
        step_time += c - b;
        self_time += d - c;
        if pairs > 0 {
            self_colliding_steps += 1;
        }
        max_pairs = max_pairs.max(pairs);
        for pair in world.narrow_phase.contact_pairs_with(fox.collider()) {
            if pair.has_any_active_contact() {
                let other = if pair.collider1 == fox.collider() {
                    pair.collider2
                } else {
                    pair.collider1
                };
                if let Some(k) = balls.iter().position(|&(_, c)| c == other) {
                    touched[k] = true;
                }
            }
        }
        if step % PICTURE_EVERY == 0 {
            let mut canvas = draw(
                &world,
                &fox,
                &balls,
                &touched,
                &camera,
                &legend,
                &asset.mesh,
            )?;
            let hit = touched.iter().filter(|&&t| t).count();
            canvas.draw_header(
                "skinned_character: the Fox walks through falling balls",
                &format!(
                    "one SkinnedCollider ({} triangles, {} bones) posed from its Walk clip each step; {} balls, {hit} hit so far; {pairs} self-colliding pairs",
                    asset.mesh.triangle_count(),
                    fox.skin().bone_count(),
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

    let fallen = balls
        .iter()
        .filter(|&&(b, _)| world.bodies[b].translation().y < -BALL_RADIUS)
        .count();
    let n = (steps + 1) as u32;
    println!("{} steps of {DT:.4} s:", steps + 1);
    println!(
        "  balls touched by the Fox: {} of {}",
        touched.iter().filter(|&&t| t).count(),
        balls.len()
    );
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
            SELF_COLLISION_COLOUR,
            "self-colliding triangle (BN-Tree, conservative)",
        ))
        .with(LegendEntry::swatch(BALL, "ball not yet touched by the Fox"))
        .with(LegendEntry::swatch(BALL_HIT, "ball the Fox has touched"))
        .with(LegendEntry::swatch(GROUND, "ground"))
}

/// One picture: the Fox in its current pose (self-colliding triangles marked), the balls and
/// the ground, with the legend and a label on the Fox.
#[allow(clippy::too_many_arguments)]
fn draw(
    world: &PhysicsWorld,
    fox: &SkinnedCollider,
    balls: &[(RigidBodyHandle, ColliderHandle)],
    touched: &[bool],
    camera: &Camera,
    legend: &Legend,
    mesh: &TriangleMesh,
) -> Result<Canvas, Box<dyn Error>> {
    let pose = world.bodies[fox.body()].position();
    let mut model = Vec::new();
    fox.deformed_positions(&mut model);
    let posed: Vec<Vec3> = model.iter().map(|&p| pose.transform_point(p)).collect();
    let mut colours = vec![SKIN; mesh.triangle_count()];
    for &[a, b] in fox.last_self_collisions() {
        colours[a as usize] = SELF_COLLISION_COLOUR;
        colours[b as usize] = SELF_COLLISION_COLOUR;
    }
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
    canvas.draw_mesh(
        camera,
        &posed,
        mesh.triangles(),
        MeshColours::PerTriangle(&colours),
        Shading::Smooth,
    )?;
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
    canvas.draw_labels(camera, &[Label::above(&posed, "Fox").with_swatch(SKIN)]);
    Ok(canvas)
}
