//! The viewer: every scene of [`rapier3d_deform_testbed::SceneId`] in Rapier's testbed window, stepped with the crate's updates, its deformable meshes drawn shaded and rewritten every frame.
//!
//! `cargo run --release -p rapier3d-deform-testbed` opens the window (pick a scene in the
//! panel; T runs or pauses, S steps once, R restarts). `-- --screenshots <dir>` instead steps
//! every scene to its moment of interest ([`screenshot_time`]), draws it, writes
//! `<dir>/<scene>.png` and exits (what `scripts/screenshots.sh` runs under Xvfb).

mod draw;

use std::error::Error;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use rapier_testbed3d::{ExampleEntry, TestbedViewer};
use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer, MeshWireframe};
use rapier3d_deform::prelude::DebugRenderObject;
use rapier3d_deform_testbed::{Demo, DemoOptions, SceneId};

use draw::{KissLines, MeshNodes};

/// The group the scenes are listed under.
const GROUP: &str = "rapier3d-deform";
/// Setting: draw each plastic body's sphere proxy (its collider) as wire spheres.
const PROXY_SPHERES: &str = "proxy spheres (collider)";
/// Setting: draw the self-colliding triangle pairs in red.
const PAIRS: &str = "self-collision pairs (red)";
/// Setting: draw the normal cones of the skinned colliders' BN-Tree nodes down to
/// [`CONE_DEPTH`].
const CONES: &str = "BN-Tree normal cones (purple)";
/// Setting: draw the avatar's per-bone boxes (and their cells) as the cloth's queries test
/// them.
const AVATAR_BOXES: &str = "avatar boxes and cells (blue)";
/// Depth of the BN-Tree nodes whose cones are drawn (the root is 0).
const CONE_DEPTH: u32 = 4;
/// Frames drawn before a screenshot is taken (the testbed creates its collider nodes on the
/// first).
const SCREENSHOT_FRAMES: usize = 3;

/// The scene time a screenshot shows (s): just after the impacts, the barrels landed, the
/// characters halfway, the cat tucked in its leap.
fn screenshot_time(id: SceneId) -> f32 {
    match id {
        SceneId::CarCrash => 1.1,
        SceneId::BarrelDrop => 1.5,
        SceneId::SkinnedCharacter => 2.0,
        SceneId::SelfCollision => 1.88,
        SceneId::CrashMany => 0.5,
        SceneId::ClothCape => 1.0,
        SceneId::ClothSkirt => 1.2,
        SceneId::ClothGarment => 1.5,
    }
}

type SceneFn =
    for<'a> fn(&'a mut TestbedViewer) -> Pin<Box<dyn Future<Output = Result<(), String>> + 'a>>;

/// The registered scenes: one entry and one function per [`SceneId`].
fn registry() -> Vec<(ExampleEntry, SceneFn)> {
    macro_rules! scene {
        ($id:expr) => {
            (
                ExampleEntry::new(GROUP, $id.name()),
                (|v| Box::pin(run(v, $id, None))) as SceneFn,
            )
        };
    }
    vec![
        scene!(SceneId::CarCrash),
        scene!(SceneId::BarrelDrop),
        scene!(SceneId::SkinnedCharacter),
        scene!(SceneId::SelfCollision),
        scene!(SceneId::CrashMany),
        scene!(SceneId::ClothCape),
        scene!(SceneId::ClothSkirt),
        scene!(SceneId::ClothGarment),
    ]
}

#[kiss3d::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let screenshots = args
        .iter()
        .position(|a| a == "--screenshots")
        .map(|i| PathBuf::from(args.get(i + 1).map_or("out/testbed", String::as_str)));
    let (entries, runs): (Vec<_>, Vec<SceneFn>) = registry().into_iter().unzip();
    let mut viewer = TestbedViewer::new(entries).await;
    if let Some(dir) = screenshots {
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("cannot create {}: {e}", dir.display());
            return;
        }
        for id in SceneId::ALL {
            viewer.clear_scene();
            if let Err(e) = run(
                &mut viewer,
                id,
                Some(dir.join(format!("{}.png", id.name()))),
            )
            .await
            {
                eprintln!("{}: {e}", id.name());
            }
        }
        return;
    }
    // The scene owns its world and loop; this loop (re)dispatches the one the panel selected.
    loop {
        viewer.clear_scene();
        let index = viewer.selected();
        if let Err(e) = runs[index](&mut viewer).await {
            eprintln!("scene #{index} failed: {e}");
        }
        if viewer.quitting() {
            break;
        }
    }
}

/// Builds scene `id`, registers its world with the viewer and runs it until the viewer asks for
/// another scene (or, with `screenshot`, steps it to [`screenshot_time`], draws
/// [`SCREENSHOT_FRAMES`] frames and writes the PNG).
async fn run(
    viewer: &mut TestbedViewer,
    id: SceneId,
    screenshot: Option<PathBuf>,
) -> Result<(), String> {
    run_scene(viewer, id, screenshot)
        .await
        .map_err(|e| e.to_string())
}

async fn run_scene(
    viewer: &mut TestbedViewer,
    id: SceneId,
    screenshot: Option<PathBuf>,
) -> Result<(), Box<dyn Error>> {
    let mut demo = Demo::build(id, &DemoOptions::default())?;
    viewer.set_world(demo.world_mut());
    let (eye, at) = demo.camera();
    viewer.look_at(eye, at);
    {
        let settings = viewer.example_settings_mut();
        settings.get_or_set_bool(PROXY_SPHERES, false);
        settings.set_restart_on_change(PROXY_SPHERES, false);
        settings.get_or_set_bool(PAIRS, true);
        settings.set_restart_on_change(PAIRS, false);
        settings.get_or_set_bool(CONES, false);
        settings.set_restart_on_change(CONES, false);
        settings.get_or_set_bool(AVATAR_BOXES, false);
        settings.set_restart_on_change(AVATAR_BOXES, false);
    }
    let mut nodes = MeshNodes::new(viewer.graphics_mut().scene_mut(), &mut demo)?;
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions {
        mesh_wireframe: MeshWireframe::Off,
        ..DeformDebugRenderOptions::default()
    });
    if screenshot.is_some() {
        let dt = demo.world().integration_parameters.dt;
        let steps = (screenshot_time(id) / dt).round() as usize;
        for _ in 0..steps {
            demo.step()?;
        }
    }
    let mut frames = 0usize;
    while viewer.render_frame(demo.world_mut()).await {
        if let Some(path) = &screenshot
            && frames == SCREENSHOT_FRAMES
        {
            draw::save_png(viewer.window(), path)?;
            break;
        }
        if screenshot.is_none() && viewer.simulating() {
            for _ in 0..id.steps_per_frame() {
                demo.step()?;
            }
        }
        frames += 1;
        nodes.update(&mut demo)?;
        let settings = viewer.example_settings();
        let (proxies, pairs, cones, boxes) = (
            settings.get_bool(PROXY_SPHERES).unwrap_or(false),
            settings.get_bool(PAIRS).unwrap_or(true),
            settings.get_bool(CONES).unwrap_or(false),
            settings.get_bool(AVATAR_BOXES).unwrap_or(false),
        );
        let mut lines = KissLines::new(viewer.window_mut());
        renderer.options.proxy_spheres = proxies;
        renderer.options.normal_cone_depth = cones.then_some(CONE_DEPTH);
        if proxies || cones {
            let world = demo.world();
            for collider in demo.meshes().iter().filter_map(|m| m.collider) {
                renderer.render_collider(
                    &mut lines,
                    &world.bodies,
                    collider,
                    &world.colliders[collider],
                );
            }
        }
        if boxes && let Some(g) = demo.garment_scene_mut() {
            let object = DebugRenderObject::Collider(
                g.ground_collider,
                &g.world.colliders[g.ground_collider],
            );
            renderer.render_avatar_boxes(
                &mut lines,
                object,
                &g.avatar,
                g.stages.collision.query_mut(),
            )?;
        }
        if pairs {
            for (collider, found) in demo.self_collisions() {
                renderer.render_triangle_pairs(
                    &mut lines,
                    &demo.world().colliders,
                    collider,
                    found,
                )?;
            }
        }
        let settings = viewer.example_settings_mut();
        settings.set_label("scene", id.name());
        settings.set_label("steps", demo.steps().to_string());
        for (label, value) in demo.stats() {
            settings.set_label(label, value.clone());
        }
    }
    Ok(())
}
