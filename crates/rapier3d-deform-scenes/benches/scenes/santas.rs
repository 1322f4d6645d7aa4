//! Scene `santas`: Steinemann & Otaduy's colliding point-based bodies: Spots with 24 spring-joined Rapier particles each fall into a pile, their surfaces crate `DeformableMeshShape`s against the same pile with deforming parry `TriMesh`es; pairs against brute force, pass-through checks.
//!
//! Both worlds are [`SantaPile`]s with the same bodies, seed and start (see
//! `rapier3d_deform_scenes::santas`): the particles are Rapier bodies joined by spring joints,
//! the surfaces sit on kinematic bodies, and the surfaces' contact manifolds drive the particles
//! through one contact velocity pass. They differ only in the surface collider:
//!
//! * **crate**: `DeformableMeshShape` over a BN-Tree with the particles' weights, posed by
//!   `pose_deformable_mesh` (O(particles)); contacts through `DeformDispatcher`; self-collisions by
//!   `DeformableMeshSelfCollisions` (one BN-Tree query per body);
//! * **trimesh_deformable**: parry `TriMesh` with `TriMeshFlags::DEFORMABLE`, every vertex deformed
//!   and written by `set_vertices` (leaf boxes and BVH refit); parry's dispatcher; self-collisions
//!   by the deform-all + BVH-refit baseline (`BvhRefitSelfCollision`).
//!
//! A step's time is the whole frame of its world (pose, `world.step()`, contact pass,
//! self-collision queries), one thread. The two worlds step in alternation (which one goes first
//! alternates each step), so machine noise hits both alike; they are different simulations after
//! the first contact (contacts found by different code), so their contact counts are reported.
//! Every `check_every` steps (every step with `--quick`) the crate world is checked against brute
//! force on its posed surfaces: inter-body triangle pairs that intersect exactly without a contact
//! manifold, self-intersecting pairs its self-collision query missed, vertices inside another body
//! (ray parity) and the lowest vertex.

use super::output::load_average;
use super::runner::{RunOptions, SceneReport, Section, median};
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::santas::{
    SantaAsset, SantaPile, StepStats, Surface, inter_body_collisions_brute_force,
};
use std::time::Instant;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    bodies: usize,
    steps: usize,
    check_every: usize,
    rounds: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                bodies: 8,
                steps: 45,
                check_every: 1,
                rounds: 1,
            }
        } else {
            Self {
                bodies: 32,
                steps: 240,
                check_every: 10,
                rounds: 2,
            }
        }
    }
}

/// What the checks of the crate world found.
#[derive(Default)]
struct Checks {
    frames: usize,
    inter_pairs: usize,
    inter_missed: usize,
    inter_pointless: usize,
    fallen: usize,
    self_pairs: usize,
    self_missed: usize,
    inside_max: usize,
    inside_deepest: f32,
    lowest: f32,
}

fn check(pile: &SantaPile, c: &mut Checks) {
    let mesh = pile.asset().mesh();
    let vertices: Vec<Vec<_>> = (0..pile.body_count())
        .filter_map(|i| pile.surface_vertices(i))
        .collect();
    let candidates = pile.contact_triangle_pairs(false);
    let found = pile.contact_triangle_pairs(true);
    for pair in inter_body_collisions_brute_force(mesh, &vertices) {
        c.inter_pairs += 1;
        c.inter_missed += candidates.binary_search(&pair).is_err() as usize;
        c.inter_pointless += found.binary_search(&pair).is_err() as usize;
    }
    for (i, v) in vertices.iter().enumerate() {
        let mut mine = pile.self_pairs(i).unwrap_or(&[]).to_vec();
        mine.sort_unstable();
        for pair in self_collisions_brute_force(mesh, v).unwrap_or_else(|e| panic!("{e}")) {
            c.self_pairs += 1;
            c.self_missed += mine.binary_search(&pair).is_err() as usize;
        }
    }
    let (inside, deepest) = pile.vertices_inside_others();
    c.inside_max = c.inside_max.max(inside);
    c.inside_deepest = c.inside_deepest.max(deepest);
    c.lowest = c.lowest.min(pile.lowest_vertex());
    let fallen = (0..pile.body_count())
        .filter(|&i| {
            pile.particle_positions(i)
                .is_some_and(|x| x.iter().map(|p| p.y).sum::<f32>() < 0.0)
        })
        .count();
    c.fallen = c.fallen.max(fallen);
    c.frames += 1;
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("santas");
    let load_start = load_average();
    let path = rapier3d_deform_scenes::asset_path("closed/spot.obj");
    let asset =
        SantaAsset::from_obj_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let surfaces = [Surface::Crate, Surface::TriMesh];
    let mut per_round: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut parts = [StepStats::default(); 2];
    let mut checks = Checks {
        lowest: f32::MAX,
        ..Checks::default()
    };
    let (mut bodies, mut particles, mut triangles) = (0, 0, 0);
    for round in 0..sizes.rounds {
        let started = Instant::now();
        let mut piles: Vec<SantaPile> = surfaces
            .iter()
            .map(|&s| SantaPile::new(&asset, sizes.bodies, s, 7).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        bodies = piles[0].body_count();
        particles = piles[0].particle_count();
        triangles = piles[0].triangle_count();
        let mut totals = [0.0f64; 2];
        for s in 0..sizes.steps {
            for k in 0..2 {
                let i = (s + k) % 2;
                let stats = piles[i].step().unwrap_or_else(|e| panic!("{e}"));
                totals[i] += stats.total_ms();
                if round == 0 {
                    let p = &mut parts[i];
                    p.pose_ms += stats.pose_ms;
                    p.physics_ms += stats.physics_ms;
                    p.contact_ms += stats.contact_ms;
                    p.self_ms += stats.self_ms;
                    p.contact_points += stats.contact_points;
                    p.self_pairs += stats.self_pairs;
                }
            }
            if round == 0 && (s + 1) % sizes.check_every == 0 {
                check(&piles[0], &mut checks);
            }
        }
        for i in 0..2 {
            per_round[i].push(totals[i] / sizes.steps as f64);
        }
        eprintln!(
            "  round {round}: {} bodies, {} steps × 2 surfaces, {:.1} s",
            sizes.bodies,
            sizes.steps,
            started.elapsed().as_secs_f64()
        );
    }
    let load_end = load_average();
    let crate_ms = median(&mut per_round[0].clone());
    let tri_ms = median(&mut per_round[1].clone());
    let n = sizes.steps as f64;
    report.metric(
        "ms_per_step_crate",
        crate_ms,
        format!(
            "crate DeformableMeshShape surfaces: pose + step + contact pass + self queries; \
             median of {} round(s) of the mean over steps",
            per_round[0].len()
        ),
    );
    report.metric(
        "ms_per_step_trimesh_deformable",
        tri_ms,
        "TriMesh DEFORMABLE surfaces: every vertex + set_vertices + step + contact pass + \
         deform-all BVH-refit self-collision",
    );
    report.metric(
        "speedup_vs_trimesh_deformable",
        tri_ms / crate_ms,
        "ms_per_step_trimesh_deformable / ms_per_step_crate (target ≥ 10)",
    );
    report.metric(
        "false_negatives_inter",
        checks.inter_missed as f64,
        "(body, triangle, body, triangle) pairs intersecting exactly that the crate's dispatcher \
         (broad phase on O(m) root boxes, dual BN-Tree traversal) did not pair, over the checked \
         frames (target 0)",
    );
    report.metric(
        "intersecting_pairs_without_points",
        checks.inter_pointless as f64,
        "intersecting pairs whose candidate manifold holds no contact point: parry's exact \
         triangle-triangle stage made none, or each of its points is kept once in another \
         triangle's manifold (not a miss of the bounds; reported for completeness)",
    );
    report.metric(
        "inter_pairs_brute_force",
        checks.inter_pairs as f64,
        "intersecting inter-body triangle pairs the brute force found over the checked frames",
    );
    report.metric(
        "false_negatives_self",
        checks.self_missed as f64,
        "self-intersecting triangle pairs the crate's self query missed (target 0)",
    );
    report.metric(
        "self_pairs_brute_force",
        checks.self_pairs as f64,
        "self-intersecting pairs the brute force found over the checked frames",
    );
    report.metric(
        "checked_frames",
        checks.frames as f64,
        format!(
            "frames checked against brute force (every {} steps)",
            sizes.check_every
        ),
    );
    report.metric(
        "vertices_inside_other_body_max",
        checks.inside_max as f64,
        "most vertices inside another closed body in a checked frame (ray parity voted over \
         three directions; contacts resolve penetrations over steps, so resting contact leaves \
         some)",
    );
    report.metric(
        "deepest_inside_mm",
        checks.inside_deepest as f64 * 1e3,
        "deepest such vertex: its distance to the other surface (mm; bodies are 1.5 m long)",
    );
    report.metric(
        "lowest_vertex_mm",
        checks.lowest as f64 * 1e3,
        "lowest surface vertex over the checked frames (mm; the ground's top is 0)",
    );
    report.metric(
        "bodies_below_ground",
        checks.fallen as f64,
        "most bodies whose particle centroid was below the ground's top in a checked frame \
         (fell through; target 0)",
    );
    report.metric("bodies", bodies as f64, "Spots (closed, 2,930 vertices)");
    report.metric(
        "particles",
        particles as f64,
        "particles over all bodies (24 each)",
    );
    report.metric(
        "triangles",
        triangles as f64,
        "surface triangles over all bodies",
    );
    report.metric("steps", n, "steps per round (60 Hz)");
    for (i, name) in ["crate", "trimesh_deformable"].into_iter().enumerate() {
        let p = &parts[i];
        let mut section = Section {
            title: format!("santas, {name}: mean ms per step (round 0)"),
            header: [
                "pose",
                "world.step",
                "contact pass",
                "self query",
                "contacts/step",
                "self pairs/step",
            ]
            .map(String::from)
            .to_vec(),
            rows: Vec::new(),
        };
        section.rows.push(vec![
            format!("{:.3}", p.pose_ms / n),
            format!("{:.3}", p.physics_ms / n),
            format!("{:.3}", p.contact_ms / n),
            format!("{:.3}", p.self_ms / n),
            format!("{:.0}", p.contact_points as f64 / n),
            format!("{:.1}", p.self_pairs as f64 / n),
        ]);
        report.sections.push(section);
    }
    report.metric(
        "contacts_mean_crate",
        parts[0].contact_points as f64 / n,
        "contact points per step, crate world (round 0)",
    );
    report.metric(
        "contacts_mean_trimesh_deformable",
        parts[1].contact_points as f64 / n,
        "contact points per step, TriMesh world (round 0)",
    );
    report.metric(
        "load_average_start",
        load_start.unwrap_or(f64::NAN),
        "1-minute load average before the first build (2 cores)",
    );
    report.metric(
        "load_average_end",
        load_end.unwrap_or(f64::NAN),
        "1-minute load average after the last round",
    );
    report
}
