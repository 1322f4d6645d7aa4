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
use rapier3d_deform_scenes::render::{Camera, Canvas, MeshColours, Rgb, Shading};

const DT: f32 = 1.0 / 60.0;
const SCALE: f32 = 0.01;
const WALK_SPEED: f32 = 0.6;
const BALL_RADIUS: f32 = 0.06;
const PICTURE_EVERY: usize = 30;

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

    // One fixed camera for the whole sequence, framing the path.
    let camera = Camera::framing(
        Vec3::new(-0.8, 0.0, -1.0),
        Vec3::new(0.8, 1.2, path_length + 1.0),
        Vec3::new(-1.0, -0.45, 0.35),
        0.6,
    )?;
    let out_dir = std::path::Path::new("out/skinned_character");
    std::fs::create_dir_all(out_dir)?;

    let mut touched = vec![false; balls.len()];
    let (mut pose_time, mut step_time, mut self_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut self_colliding_steps, mut max_pairs) = (0, 0);
    let mut written = Vec::new();
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
            let file = out_dir.join(format!("frame_{step:04}.png"));
            draw(&world, &fox, &balls, &touched, &camera, &asset.mesh, &file)?;
            written.push(file);
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
    for file in &written {
        println!("  wrote {}", file.display());
    }
    Ok(())
}

/// One picture: the Fox in its current pose (self-colliding triangles red), the balls (blue,
/// green once the Fox touched them) and the ground.
fn draw(
    world: &PhysicsWorld,
    fox: &SkinnedCollider,
    balls: &[(RigidBodyHandle, ColliderHandle)],
    touched: &[bool],
    camera: &Camera,
    mesh: &TriangleMesh,
    file: &std::path::Path,
) -> Result<(), Box<dyn Error>> {
    let pose = world.bodies[fox.body()].position();
    let mut model = Vec::new();
    fox.deformed_positions(&mut model);
    let posed: Vec<Vec3> = model.iter().map(|&p| pose.transform_point(p)).collect();
    let mut colours = vec![Rgb::ORANGE; mesh.triangle_count()];
    for &[a, b] in fox.last_self_collisions() {
        colours[a as usize] = Rgb::RED;
        colours[b as usize] = Rgb::RED;
    }
    let mut canvas = Canvas::new(960, 540, Rgb::WHITE)?;
    let ground = [
        Vec3::new(-1.5, 0.0, -1.5),
        Vec3::new(1.5, 0.0, -1.5),
        Vec3::new(1.5, 0.0, 4.5),
        Vec3::new(-1.5, 0.0, 4.5),
    ];
    canvas.draw_mesh(
        camera,
        &ground,
        &[[0, 2, 1], [0, 3, 2]],
        MeshColours::Uniform(Rgb::GREY.lerp(Rgb::WHITE, 0.6)),
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
        let colour = if touched[k] { Rgb::GREEN } else { Rgb::BLUE };
        canvas.draw_sphere(
            camera,
            world.bodies[body].translation(),
            BALL_RADIUS,
            colour,
        )?;
    }
    canvas.save_png(file)?;
    Ok(())
}
