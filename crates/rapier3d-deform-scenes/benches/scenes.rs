//! The scene benchmark runner: `cargo bench --bench scenes -- <scene>... [--quick] [--json PATH] [--csv PATH] [--plot PATH]`.
//!
//! Each scene runs every method it compares in the same process, interleaved, and reports medians
//! and ratios (see `benches/README.md` and the "Scene benchmark contract" of the design notes).
//! `--list` lists the scenes; `all` runs every scene. Flags the runner does not know (cargo passes
//! `--bench`) are ignored with a note on stderr.

#[path = "scenes/avatar_contacts.rs"]
mod avatar_contacts;
#[path = "scenes/bounds.rs"]
mod bounds;
#[path = "scenes/characters.rs"]
mod characters;
#[path = "scenes/cloth_cape.rs"]
mod cloth_cape;
#[path = "scenes/cloth_garment.rs"]
mod cloth_garment;
#[path = "scenes/cloth_skirt.rs"]
mod cloth_skirt;
#[path = "scenes/crash.rs"]
mod crash;
#[path = "scenes/crash_many.rs"]
mod crash_many;
#[path = "scenes/crowd.rs"]
mod crowd;
#[path = "scenes/garment.rs"]
mod garment;
#[path = "scenes/output.rs"]
mod output;
#[path = "scenes/proxy_fit.rs"]
mod proxy_fit;
#[path = "scenes/runner.rs"]
mod runner;
#[path = "scenes/santas.rs"]
mod santas;
#[path = "scenes/self_collision.rs"]
mod self_collision;
#[path = "scenes/self_fox_game.rs"]
mod self_fox_game;
#[path = "scenes/skinned_rain.rs"]
mod skinned_rain;
#[path = "scenes/softbody_spot.rs"]
mod softbody_spot;
#[path = "scenes/subdiv_limit.rs"]
mod subdiv_limit;
#[path = "scenes/subdiv_sphere.rs"]
mod subdiv_sphere;
#[path = "scenes/subdiv_torus.rs"]
mod subdiv_torus;
#[path = "scenes/subdiv_tube.rs"]
mod subdiv_tube;

use runner::{RunOptions, Scene};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Every scene, in `--list` order.
const SCENES: &[Scene] = &[
    Scene {
        name: "bounds",
        description: "O(m) patch AABBs and normal cones on the 40-bone LBS cat: violations, \
                      cost vs vertex count, speed-up over skinning, tightness, cone agreement",
        run: bounds::run,
    },
    Scene {
        name: "self_walk",
        description: "BN-Tree self-collision vs HSC vs deform-all + BVH refit on the 250k-triangle, \
                      40-bone cat walking (the paper's Fig. 3)",
        run: self_collision::run_walk,
    },
    Scene {
        name: "self_run",
        description: "the same on the cat's run-and-jump cycle (dense self-contact, pinching)",
        run: self_collision::run_run,
    },
    Scene {
        name: "self_fox",
        description: "the same on the Khronos Fox rig Loop-subdivided to 147k triangles, Walk and \
                      Run clips",
        run: self_collision::run_fox,
    },
    Scene {
        name: "self_fox_game",
        description: "the Fox as shipped (576 triangles) and Loop-subdivided to 2.3k and 9.2k: \
                      BN-Tree presets and HSC against brute force, per frame",
        run: self_fox_game::run,
    },
    Scene {
        name: "self_cloth",
        description: "the same on the 231-vertex mass-spring cloth Loop-subdivided 2, 3 and 4 \
                      times (the paper's Fig. 1-2)",
        run: self_collision::run_cloth,
    },
    Scene {
        name: "subdiv_tube",
        description: "a Loop tube cage bent until it folds onto itself: self-interference on the \
                      limit surface to a tolerance (Grinspun & Schröder 2001) vs the BN-Tree on \
                      the level-k mesh",
        run: subdiv_tube::run,
    },
    Scene {
        name: "subdiv_torus",
        description: "a genus-3 Loop cage whose bridge is pushed through its cross bar (seed \
                      Fig. 11): limit-surface self-interference at three tolerances vs the \
                      BN-Tree on each level-k mesh",
        run: subdiv_torus::run,
    },
    Scene {
        name: "subdiv_sphere",
        description: "a Loop sphere cage partially everted, its cap pushed through its far side \
                      (seed Fig. 12): limit-surface self-interference at three tolerances vs \
                      the BN-Tree on each level-k mesh",
        run: subdiv_sphere::run,
    },
    Scene {
        name: "self_teddy",
        description: "the same on Spot (23k triangles) under point-based animation with 24 \
                      particles (the paper's Fig. 4)",
        run: self_collision::run_teddy,
    },
    Scene {
        name: "self_softbody",
        description: "Spot as a Rapier 0.36 soft body (its surface embedded in tetrahedra) \
                      squashed under a plate, with and without Rapier's self contacts; the \
                      BN-Tree (tet particles as point governors), HSC and BVH routes on the same \
                      surface and motion",
        run: self_collision::run_softbody,
    },
    Scene {
        name: "santas",
        description: "8 (quick) or 32 Spots under point-based animation, 24 spring-joined Rapier \
                      particles each, falling into a pile: crate DeformableMeshShapes (O(m) \
                      pose) vs deforming TriMeshes (every vertex + set_vertices), inter-body and \
                      self pairs vs brute force, vertices inside other bodies",
        run: santas::run,
    },
    Scene {
        name: "proxy_fit",
        description: "sphere-union proxies of the car at ~66, 114 and 320 spheres: median and max \
                      error over every example and 100 random blends, packing time",
        run: proxy_fit::run,
    },
    Scene {
        name: "crash",
        description: "8 cars at 35 m/s with example-based plasticity: sphere proxies (low/mid/high) \
                      vs static and rebuilt compounds, deforming TriMeshes (1.5k, 14k) and Rapier \
                      soft bodies",
        run: crash::run,
    },
    Scene {
        name: "skinned_rain",
        description: "the 250k-triangle walking cat and the subdivided Fox as kinematic skinned \
                      colliders under a rain of balls and boxes: BN-Tree DeformableMeshShape \
                      (O(m) pose) vs deforming TriMesh (skin + set_vertices every step)",
        run: skinned_rain::run,
    },
    Scene {
        name: "characters",
        description: "every glTF asset under assets/ as one SkinnedCollider playing its first clip \
                      under a rain of balls with SurfaceVelocityHooks: load, pose cost, contacts \
                      vs TriMesh, balls inside, step cost vs a static rest-pose TriMesh",
        run: characters::run,
    },
    Scene {
        name: "crash_mesh",
        description: "the crash with BN-Tree DeformableMeshShapes of the car (example-blend rig, \
                      plasticity, self-intersection guard) as colliders, next to the sphere \
                      proxy and the deforming 14k-triangle TriMesh",
        run: crash::run_mesh,
    },
    Scene {
        name: "crash_many",
        description: "8, 32 and 128 plastic cars in head-on pairs on a grid: sphere proxies with \
                      plasticity vs the same spheres as static compounds, CCD off and on; ms per \
                      step per body, overhead, cars per 60 Hz step on one core",
        run: crash_many::run,
    },
    Scene {
        name: "crowd",
        description: "1, 8 and 32 walking Foxes as SkinnedColliders with surface velocity under \
                      waves of falling balls vs the same crowd as static rest-pose TriMeshes; \
                      ms per step per character, overhead, characters per 60 Hz step on one core",
        run: crowd::run,
    },
    Scene {
        name: "avatar_contacts",
        description: "2,000 garment points on the walking Fox (Loop x1-x3, 2.3k-37k triangles): \
                      per-bone boxes (Pelechano, conservative) vs deforming TriMesh vs BN-Tree \
                      mesh shape vs brute force, closest skin triangle within the thickness",
        run: avatar_contacts::run,
    },
    Scene {
        name: "cloth_skirt",
        description: "a 1,536-vertex XPBD skirt on the walking RiggedFigure (Loop x2-x4, x1 quick, \
                      4k-65k triangles): per-bone boxes (Pelechano, conservative) vs deforming \
                      TriMesh vs BN-Tree mesh shape vs brute force on the same cloth state, then \
                      the collision stage (continuous test, thresholds, repositioning) and the \
                      skirt's self-collision (BN-Tree with point governors vs brute force)",
        run: cloth_skirt::run,
    },
    Scene {
        name: "cloth_cape",
        description: "a 768-vertex XPBD cape on the running Fox (Loop x1-x3, 2.3k-37k triangles): \
                      per-bone boxes (Pelechano, conservative) vs deforming TriMesh vs BN-Tree \
                      mesh shape vs brute force on the same cloth state, the collision stage, and \
                      the cape's self-collision (BN-Tree with point governors vs brute force)",
        run: cloth_cape::run,
    },
    Scene {
        name: "cloth_garment",
        description: "the 1,797-vertex MakeHuman sportsuit on a walking body derived from it \
                      (Loop x0-x2, 3.7k-59k triangles): per-bone boxes (Pelechano, conservative) \
                      vs deforming TriMesh vs BN-Tree mesh shape vs brute force on the same cloth \
                      state, the collision stage, and the suit's self-collision (BN-Tree with \
                      point governors vs brute force)",
        run: cloth_garment::run,
    },
];

const USAGE: &str = "usage: cargo bench --bench scenes -- <scene>... | all \
                     [--quick] [--json PATH] [--csv PATH] [--plot PATH]\n       \
                     cargo bench --bench scenes -- --list";

fn print_list() {
    println!("scenes:");
    let width = SCENES.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in SCENES {
        println!("  {:<width$}  {}", s.name, s.description);
    }
}

/// With several scenes (or `all`), `out.json` becomes `out.<scene>.json` so that runs do not
/// overwrite each other; with one named scene the path is used as given.
fn output_path(path: &Path, scene: &str, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or_else(|| "out".to_string(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{scene}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{scene}"),
    };
    path.with_file_name(name)
}

fn main() -> ExitCode {
    let cmd = match runner::parse_args(std::env::args().skip(1)) {
        Ok(cmd) => cmd,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    for flag in &cmd.ignored {
        if flag != "--bench" {
            eprintln!("note: ignoring unknown flag {flag}");
        }
    }
    if cmd.help {
        println!("{USAGE}");
        print_list();
        return ExitCode::SUCCESS;
    }
    if cmd.list {
        print_list();
        return ExitCode::SUCCESS;
    }
    if cmd.scenes.is_empty() {
        // `cargo bench` with no arguments runs every bench target: do not fail it, say how to
        // run a scene.
        println!("no scene given; {USAGE}");
        print_list();
        return ExitCode::SUCCESS;
    }

    let mut chosen: Vec<&Scene> = Vec::new();
    for name in &cmd.scenes {
        if name == "all" {
            chosen.extend(SCENES.iter());
        } else if let Some(s) = SCENES.iter().find(|s| s.name == name) {
            chosen.push(s);
        } else {
            eprintln!("error: unknown scene `{name}`");
            print_list();
            return ExitCode::from(2);
        }
    }
    let mut seen = Vec::new();
    chosen.retain(|s| {
        let fresh = !seen.contains(&s.name);
        seen.push(s.name);
        fresh
    });

    // `all` always suffixes, so scripts get the same file names whatever the scene count.
    let several = chosen.len() > 1 || cmd.scenes.iter().any(|s| s == "all");
    let mut failed = false;
    for scene in chosen {
        let options = RunOptions {
            quick: cmd.options.quick,
            json: cmd
                .options
                .json
                .as_deref()
                .map(|p| output_path(p, scene.name, several)),
            csv: cmd
                .options
                .csv
                .as_deref()
                .map(|p| output_path(p, scene.name, several)),
            plot: cmd
                .options
                .plot
                .as_deref()
                .map(|p| output_path(p, scene.name, several)),
        };
        eprintln!(
            "running scene `{}`{} (load average {})",
            scene.name,
            if options.quick { " (--quick)" } else { "" },
            output::load_average().map_or_else(|| "unknown".to_string(), |l| format!("{l:.2}"))
        );
        let report = (scene.run)(&options);
        output::print_report(&report, options.quick);
        let mut outputs: Vec<(&Path, Result<(), String>)> = Vec::new();
        if let Some(p) = &options.json {
            let json = output::to_json(&report, options.quick);
            outputs.push((p, output::write_file(p, json.as_bytes())));
        }
        if let Some(p) = &options.csv {
            let csv = output::to_csv(&report.frames);
            outputs.push((p, output::write_file(p, csv.as_bytes())));
        }
        if let Some(p) = &options.plot {
            let result = match &report.plot {
                Some(spec) => output::write_plot(p, &report.frames, spec),
                None => Err(format!("scene `{}` has no chart", scene.name)),
            };
            outputs.push((p, result));
        }
        for (path, result) in outputs {
            match result {
                Ok(()) => println!("wrote {}", path.display()),
                Err(e) => {
                    eprintln!("error: {e}");
                    failed = true;
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
