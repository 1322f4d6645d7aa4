//! What the garment scenes (`cloth_skirt`, `cloth_cape`, `cloth_garment`) share: one cloth on one animated avatar measured frame by frame — the collision routes on the same cloth state, the collision stage, the garment's self-collision — and the report with the same keys.
//!
//! Each frame, after the cloth step (XPBD with the garment's proximity constraints,
//! [`Cloth::step_with_self_collision`]) and before the response, every route finds each free
//! cloth vertex's closest skin triangle within the OUTSIDE threshold (2 cm), on the same
//! positions, in rotating order:
//!
//! * **obb**: [`AvatarQuery::begin_frame`] + [`AvatarQuery::closest_with_hint`] per vertex,
//!   starting from the triangle the vertex found in the previous frame (per-bone boxes, slab
//!   cells under a hierarchy bounded in the bone's frame on first use, closest triangle);
//! * **trimesh_deformable**: skin every vertex, `TriMesh::set_vertices` (DEFORMABLE flag: leaf
//!   boxes and BVH refit), `project_local_point_with_max_dist` per vertex;
//! * **bntree**: `DeformableMeshShape::set_governors` (O(m)) and the same projection;
//! * **brute_force**: skin every vertex, every vertex against every triangle (the oracle).
//!
//! Then the collision stage itself runs ([`SkinCollision::resolve`]: the continuous test over
//! the step, the discrete test with the seed's thresholds, feedback and repositioning), timed as
//! `ms_collision_stage`. The garment's crossing pairs are found by the BN-Tree with point
//! governors ([`ClothSelfCollision::find`], `ms_self_collision_bntree`) and by the brute-force
//! oracle (`ms_self_collision_brute_force`) on the same positions, in rotating order; then the
//! self-collision stage reverts crossing vertices and tests them against the skin again
//! (`ms_self_collision`). Times are medians over frames. `false_negatives` counts vertices whose
//! brute-force distance is within the threshold but the obb route found nothing or a farther
//! triangle; `max_penetration` is the deepest a cloth vertex ends inside the skin after the
//! frame, by a winding-number oracle every 6th frame (0 when none);
//! `skin_crossing_triangles_per_frame` counts, on the same frames, unpinned cloth triangles that
//! intersect the posed skin, and `skin_crossings_without_inside_vertex_per_frame` those with all
//! three vertices outside it (the skin passes between the vertices: only the stage's face pass,
//! vertex–face and edge–edge, resolves it; `face_contacts_per_frame` counts its pushes).
//! `ms_per_frame_total` is cloth
//! step plus collision stage plus self-collision stage.

use super::output::load_average;
use super::runner::{FrameTable, PlotSpec, SceneReport, Section, median};
use rapier3d::geometry::{SharedShape, TriMeshFlags};
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery, SlabStatistics};
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::cloth::{
    Cloth, ClothSelfCollision, ContactThresholds, SelfCollisionOptions, SkinCollision,
};
use rapier3d_deform::governor::{Affine, ConvexWeights, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::garment::PinCarriers;
use rapier3d_deform_scenes::skin_crossings::skin_crossings;
use std::sync::Arc;
use std::time::Instant;

/// Frame time (s).
const DT: f32 = 1.0 / 60.0;

/// One garment scene at one avatar resolution: the skin, the cloth laid on it at time 0, what
/// carries its pinned vertices, and the skin matrices at any time.
pub struct Garment {
    /// The skin mesh (rest positions in `rest`).
    pub mesh: TriangleMesh,
    /// Rest positions of the skin.
    pub rest: Vec<Vec3>,
    /// Skin weights.
    pub weights: ConvexWeights,
    /// The cloth.
    pub cloth: Cloth,
    /// What carries its pinned vertices.
    pub carriers: PinCarriers,
    /// Skin matrices at time `t` (s).
    pub governors_at: Box<dyn FnMut(f32) -> Vec<Affine>>,
    /// The avatar's box and cell options.
    pub avatar_options: AvatarOptions,
    /// The collision stage's thresholds.
    pub thresholds: ContactThresholds,
}

/// What a scene's report calls things.
pub struct Labels {
    /// Scene name (`cloth_skirt`).
    pub scene: &'static str,
    /// The cloth, for titles (`1536-vertex skirt`).
    pub cloth: String,
    /// The cloth's layout, for the `cloth_vertices` note (`64 around x 24 along`).
    pub layout: String,
    /// The avatar and its motion, for titles (`the walking RiggedFigure`).
    pub avatar: String,
    /// Printed before each level is measured (`RiggedFigure, Loop x`).
    pub progress: String,
}
/// The seed's relative box enlargement.
const SEED_TOLERANCE: f32 = 0.05;

/// One route's answer per cloth vertex: the distance to the closest triangle within reach.
type Answers = Vec<Option<f32>>;

/// Everything measured at one subdivision level.
pub struct Level {
    triangles: usize,
    /// Per frame: cloth step, obb, trimesh, bntree, brute force, collision stage, self-collision
    /// BN-Tree query, self-collision brute force, self-collision stage (ms).
    ms: [Vec<f64>; 9],
    /// Garment crossing pairs per frame (brute force), BN-Tree pairs missed, vertices reverted.
    self_pairs: usize,
    self_missed: usize,
    self_reverted: usize,
    false_negatives: [usize; 3],
    candidates: u64,
    points: u64,
    seed_misses: usize,
    stats: SlabStatistics,
    contacts: usize,
    repositioned: usize,
    continuous_hits: usize,
    deepest_before: f32,
    max_penetration: f32,
    ccd_triangles: u64,
    /// Summed over the checked frames: cloth triangles crossing the skin, those with no vertex
    /// inside it, checked frames.
    crossings: (usize, usize, usize),
    /// Face-pass pushes (skin vertex–cloth face, skin edge–cloth edge), summed over frames.
    face_contacts: usize,
}

/// Brute force: the closest triangle within `radius` per point.
fn brute_force(triangles: &[[u32; 3]], posed: &[Vec3], points: &[Vec3], radius: f32) -> Answers {
    points
        .iter()
        .map(|&p| {
            let mut best: Option<f32> = None;
            for tri in triangles {
                let [a, b, c] = tri.map(|v| posed[v as usize]);
                let d = (Triangle::new(a, b, c).project_local_point(p, false).point - p).length();
                if d <= radius && best.is_none_or(|b| d < b) {
                    best = Some(d);
                }
            }
            best
        })
        .collect()
}

/// Points a route missed or answered with a farther triangle than brute force.
fn false_negatives(reference: &Answers, route: &Answers) -> usize {
    reference
        .iter()
        .zip(route)
        .filter(|(r, a)| match (r, a) {
            (Some(r), Some(a)) => *a > r * (1.0 + 1e-4) + 1e-6,
            (Some(_), None) => true,
            _ => false,
        })
        .count()
}

fn free_points(cloth: &Cloth) -> Vec<Vec3> {
    cloth
        .positions()
        .iter()
        .enumerate()
        .filter(|(i, _)| !cloth.is_pinned(*i))
        .map(|(_, p)| *p)
        .collect()
}

/// Measures `frames` frames of `garment` (see the module docs).
fn measure(garment: Garment, frames: usize) -> Level {
    let Garment {
        mesh,
        rest,
        weights,
        cloth,
        carriers,
        mut governors_at,
        avatar_options,
        thresholds,
    } = garment;
    let mut worn = Worn { cloth, carriers };
    let triangles = mesh.triangles().to_vec();
    let avatar = AvatarBoxes::build(&mesh, &rest, &weights, avatar_options)
        .unwrap_or_else(|e| panic!("{e}"));
    let tree = Arc::new(
        BnTree::build_with(&mesh, &rest, &weights, BnTreeOptions::COLLIDER)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let g0 = governors_at(0.0);
    let radius = thresholds.outside;
    let mut collision = SkinCollision::new(&avatar, thresholds).unwrap_or_else(|e| panic!("{e}"));
    let mut self_collision = ClothSelfCollision::new(&worn.cloth, SelfCollisionOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let cloth_mesh = worn.cloth.mesh().clone();
    let mut posed = Vec::new();
    deform_vertices(&rest, &weights, &g0, &mut posed);
    let mut trimesh =
        SharedShape::trimesh_with_flags(posed.clone(), triangles.clone(), TriMeshFlags::DEFORMABLE)
            .unwrap_or_else(|e| panic!("{e:?}"));
    let mut shape = DeformableMeshShape::new(tree, &g0).unwrap_or_else(|e| panic!("{e}"));
    let mut query = AvatarQuery::new();
    let mut hints: Vec<Option<u32>> = Vec::new();
    let mut buffer = Vec::new();
    let mut level = Level {
        triangles: triangles.len(),
        ms: Default::default(),
        false_negatives: [0; 3],
        candidates: 0,
        points: 0,
        seed_misses: 0,
        stats: avatar.slab_statistics(),
        contacts: 0,
        repositioned: 0,
        continuous_hits: 0,
        deepest_before: 0.0,
        max_penetration: 0.0,
        ccd_triangles: 0,
        self_pairs: 0,
        self_missed: 0,
        self_reverted: 0,
        crossings: (0, 0, 0),
        face_contacts: 0,
    };
    let mut previous = g0;
    for f in 0..frames {
        let governors = governors_at((f + 1) as f32 * DT);
        let targets = worn.carriers.targets(&weights, &governors);
        let start = Instant::now();
        worn.cloth
            .set_pin_targets(&targets)
            .unwrap_or_else(|e| panic!("{e}"));
        worn.cloth
            .step_with_self_collision(DT, &mut self_collision)
            .unwrap_or_else(|e| panic!("{e}"));
        level.ms[0].push(start.elapsed().as_secs_f64() * 1e3);
        let points = free_points(&worn.cloth);
        let mut answers: [Answers; 4] = Default::default();
        for k in 0..4 {
            let route = (k + f) % 4;
            let start = Instant::now();
            answers[route] = match route {
                0 => {
                    query
                        .begin_frame(&avatar, &governors)
                        .unwrap_or_else(|e| panic!("{e}"));
                    hints.resize(points.len(), None);
                    points
                        .iter()
                        .zip(hints.iter_mut())
                        .map(|(&p, hint)| {
                            let contact = query
                                .closest_with_hint(&avatar, p, radius, *hint)
                                .unwrap_or_else(|e| panic!("{e}"));
                            *hint = contact.map(|c| c.triangle).or(*hint);
                            contact.map(|c| c.distance)
                        })
                        .collect()
                }
                1 => {
                    deform_vertices(&rest, &weights, &governors, &mut buffer);
                    let m = trimesh
                        .make_mut()
                        .as_trimesh_mut()
                        .unwrap_or_else(|| panic!("a TriMesh"));
                    m.set_vertices(&buffer);
                    points
                        .iter()
                        .map(|&p| {
                            m.project_local_point_with_max_dist(p, false, radius)
                                .map(|proj| (proj.point - p).length())
                        })
                        .collect()
                }
                2 => {
                    shape
                        .set_governors(&governors)
                        .unwrap_or_else(|e| panic!("{e}"));
                    points
                        .iter()
                        .map(|&p| {
                            shape
                                .project_local_point_with_max_dist(p, false, radius)
                                .map(|proj| (proj.point - p).length())
                        })
                        .collect()
                }
                _ => {
                    deform_vertices(&rest, &weights, &governors, &mut buffer);
                    brute_force(&triangles, &buffer, &points, radius)
                }
            };
            level.ms[route + 1].push(start.elapsed().as_secs_f64() * 1e3);
        }
        let stats = query.stats();
        level.candidates += stats.candidate_triangles;
        level.points += stats.points;
        for route in 0..3 {
            level.false_negatives[route] += false_negatives(&answers[3], &answers[route]);
        }
        // The collision stage proper.
        let start = Instant::now();
        collision
            .resolve(&mut worn.cloth, &avatar, &previous, &governors, DT)
            .unwrap_or_else(|e| panic!("{e}"));
        level.ms[5].push(start.elapsed().as_secs_f64() * 1e3);
        let s = collision.stats();
        level.contacts += s.contacts;
        level.repositioned += s.repositioned;
        level.continuous_hits += s.continuous_hits;
        level.face_contacts += s.face_contacts;
        level.ccd_triangles += s.triangles_continuous;
        level.deepest_before = level.deepest_before.min(s.deepest);
        // Garment self-collision: the BN-Tree query and brute force on the same positions (in
        // rotating order), then the stage itself (query, reverting, the skin test again).
        let mut pairs: [Vec<[u32; 2]>; 2] = Default::default();
        for k in 0..2 {
            let route = (k + f) % 2;
            let start = Instant::now();
            pairs[route] = if route == 0 {
                self_collision
                    .find(worn.cloth.positions())
                    .unwrap_or_else(|e| panic!("{e}"))
                    .to_vec()
            } else {
                self_collisions_brute_force(&cloth_mesh, worn.cloth.positions())
                    .unwrap_or_else(|e| panic!("{e}"))
            };
            level.ms[6 + route].push(start.elapsed().as_secs_f64() * 1e3);
        }
        level.self_pairs += pairs[1].len();
        level.self_missed += pairs[1]
            .iter()
            .filter(|p| pairs[0].binary_search(p).is_err())
            .count();
        let start = Instant::now();
        let s = self_collision
            .resolve(&mut worn.cloth)
            .unwrap_or_else(|e| panic!("{e}"));
        collision
            .push_out(&mut worn.cloth, &avatar, self_collision.reverted(), DT)
            .unwrap_or_else(|e| panic!("{e}"));
        level.ms[8].push(start.elapsed().as_secs_f64() * 1e3);
        level.self_reverted += s.reverted;
        level.seed_misses += collision
            .query_mut()
            .seed_tolerance_misses(&avatar, SEED_TOLERANCE)
            .unwrap_or_else(|e| panic!("{e}"));
        if f % 6 == 5 {
            deform_vertices(&rest, &weights, &governors, &mut posed);
            let mut inside = Vec::with_capacity(worn.cloth.positions().len());
            for &x in worn.cloth.positions() {
                let d =
                    rapier3d_deform_scenes::skin_distance::signed_distance(&triangles, &posed, x);
                level.max_penetration = level.max_penetration.max(-d);
                inside.push(d < 0.0);
            }
            let pinned: Vec<bool> = (0..inside.len()).map(|v| worn.cloth.is_pinned(v)).collect();
            let c = skin_crossings(
                &triangles,
                &posed,
                cloth_mesh.triangles(),
                worn.cloth.positions(),
                &pinned,
                &inside,
            );
            level.crossings.0 += c.crossing_triangles;
            level.crossings.1 += c.without_inside_vertex;
            level.crossings.2 += 1;
        }
        previous = governors;
    }
    level
}

/// The cloth and its carriers while measured.
struct Worn {
    cloth: Cloth,
    carriers: PinCarriers,
}

/// Runs a garment scene: `build(level)` at each of `levels`, `frames` frames each, and the report.
pub fn run(
    levels: &[u32],
    frames: usize,
    labels: &Labels,
    mut build: impl FnMut(u32) -> Garment,
) -> SceneReport {
    let load_before = load_average();
    let mut vertices = 0;
    let measured: Vec<Level> = levels
        .iter()
        .map(|&l| {
            eprintln!("  {}{l}", labels.progress);
            let garment = build(l);
            vertices = garment.cloth.positions().len();
            measure(garment, frames)
        })
        .collect();
    let mut report = SceneReport::new(labels.scene);
    let mut section = Section {
        title: format!(
            "{} on {}: ms per frame (median over frames, min–max); closest skin triangle \
             within 2 cm per free vertex",
            labels.cloth, labels.avatar
        ),
        header: [
            "triangles",
            "cloth",
            "obb",
            "trimesh_deformable",
            "bntree",
            "brute_force",
            "stage (ccd+response)",
            "self bntree",
            "self brute force",
            "self stage",
            "tri/vertex",
            "ccd tri/vertex",
            "false neg obb/tri/bn",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    let mut medians = Vec::new();
    for l in &measured {
        let mut ms = l.ms.clone();
        let cell = |xs: &mut Vec<f64>| {
            let lo = xs.iter().copied().fold(f64::MAX, f64::min);
            let hi = xs.iter().copied().fold(f64::MIN, f64::max);
            let m = median(xs);
            (m, format!("{m:.3} ({lo:.3}–{hi:.3})"))
        };
        let cells: Vec<(f64, String)> = ms.iter_mut().map(cell).collect();
        medians.push(cells.iter().map(|c| c.0).collect::<Vec<_>>());
        let mut row = vec![l.triangles.to_string()];
        row.extend(cells.iter().map(|c| c.1.clone()));
        row.push(format!(
            "{:.1}",
            l.candidates as f64 / l.points.max(1) as f64
        ));
        row.push(format!(
            "{:.1}",
            l.ccd_triangles as f64 / l.points.max(1) as f64
        ));
        row.push(format!(
            "{}/{}/{}",
            l.false_negatives[0], l.false_negatives[1], l.false_negatives[2]
        ));
        section.rows.push(row);
    }
    report.sections.push(section);
    report.sections.push(Section {
        title: "Triangles per slab cell (the seed's §5.2 table)".into(),
        header: ["triangles", "boxes", "cells", "mean", "max", "duplication"]
            .map(String::from)
            .to_vec(),
        rows: measured
            .iter()
            .map(|l| {
                vec![
                    l.triangles.to_string(),
                    l.stats.boxes.to_string(),
                    l.stats.slabs.to_string(),
                    format!("{:.1}", l.stats.mean_triangles),
                    l.stats.max_triangles.to_string(),
                    format!("{:.2}", l.stats.duplication),
                ]
            })
            .collect(),
    });
    let finest = &measured[measured.len() - 1];
    report.frames = FrameTable {
        columns: [
            "frame",
            "cloth_ms",
            "obb_ms",
            "trimesh_deformable_ms",
            "bntree_ms",
            "brute_force_ms",
            "stage_ms",
            "self_collision_bntree_ms",
            "self_collision_brute_force_ms",
            "self_collision_stage_ms",
        ]
        .map(String::from)
        .to_vec(),
        rows: (0..finest.ms[0].len())
            .map(|f| {
                let mut row = vec![f as f64];
                row.extend(finest.ms.iter().map(|m| m[f]));
                row
            })
            .collect(),
    };
    report.plot = Some(PlotSpec {
        title: format!(
            "{} on {} ({} triangles): ms per frame",
            labels.cloth, labels.avatar, finest.triangles
        ),
        y_label: "ms per frame".into(),
        series: vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
        log_y: true,
    });
    let last = measured.len() - 1;
    let (l, m) = (&measured[last], &medians[last]);
    report.metric("triangles_skin", l.triangles as f64, "finest level");
    report.metric("cloth_vertices", vertices as f64, labels.layout.clone());
    report.metric("frames", frames as f64, "60 Hz");
    report.metric("ms_cloth_step", m[0], "XPBD, 8 substeps");
    report_route_comparison(
        &mut report,
        [m[1], m[2], m[3], m[4]],
        "begin_frame + closest per free vertex",
        measured.iter().map(|l| l.seed_misses).sum(),
        [0, 1, 2].map(|k| measured.iter().map(|l| l.false_negatives[k]).sum()),
    );
    report.metric(
        "ms_collision_stage",
        m[5],
        "SkinCollision::resolve: continuous test + discrete test + response",
    );
    report.metric(
        "triangles_tested_per_cloth_vertex",
        l.candidates as f64 / l.points.max(1) as f64,
        "closest-triangle search, triangles read per vertex",
    );
    report.metric(
        "ccd_triangles_per_cloth_vertex",
        l.ccd_triangles as f64 / l.points.max(1) as f64,
        "continuous test, triangles swept per vertex",
    );
    report.metric(
        "max_penetration",
        measured
            .iter()
            .map(|l| l.max_penetration)
            .fold(0f32, f32::max) as f64,
        "m inside the skin after the stage (winding-number oracle, every 6th frame)",
    );
    let (crossing, vertex_free, checked) = measured.iter().fold((0, 0, 0), |a, l| {
        (
            a.0 + l.crossings.0,
            a.1 + l.crossings.1,
            a.2 + l.crossings.2,
        )
    });
    report.metric(
        "skin_crossing_triangles_per_frame",
        crossing as f64 / checked.max(1) as f64,
        "unpinned cloth triangles intersecting the skin after the stage (every 6th frame)",
    );
    report.metric(
        "face_contacts_per_frame",
        l.face_contacts as f64 / frames as f64,
        "face-pass pushes: skin vertices through cloth faces, skin edges through cloth edges",
    );
    report.metric(
        "skin_crossings_without_inside_vertex_per_frame",
        vertex_free as f64 / checked.max(1) as f64,
        "of those, with every vertex outside the skin: what only the face pass (vertex–face, edge–edge) catches",
    );
    report.metric(
        "max_depth_before_response",
        -measured
            .iter()
            .map(|l| l.deepest_before)
            .fold(0f32, f32::min) as f64,
        "m inside the skin after the cloth step, before the stage",
    );
    report.metric(
        "contacts_per_frame",
        l.contacts as f64 / frames as f64,
        "free vertices within 2 cm or crossing",
    );
    report.metric(
        "repositioned_per_frame",
        l.repositioned as f64 / frames as f64,
        "",
    );
    report.metric(
        "continuous_hits",
        measured.iter().map(|l| l.continuous_hits).sum::<usize>() as f64,
        "trajectories that crossed the moving skin, all levels and frames",
    );
    report.metric(
        "ms_self_collision_bntree",
        m[6],
        "garment crossing pairs: BN-Tree with point governors (run_by_mesh_size)",
    );
    report.metric(
        "ms_self_collision_brute_force",
        m[7],
        "garment crossing pairs: the brute-force oracle",
    );
    report.metric(
        "ms_self_collision",
        m[8],
        "self-collision stage: query, reverting, skin test of reverted vertices",
    );
    report.metric(
        "self_collision_pairs_mean",
        l.self_pairs as f64 / frames as f64,
        "crossing garment pairs per frame before the stage (brute force)",
    );
    report.metric(
        "self_collision_missed_pairs",
        measured.iter().map(|l| l.self_missed).sum::<usize>() as f64,
        "BN-Tree vs brute force, all levels and frames",
    );
    report.metric(
        "self_collision_reverted",
        measured.iter().map(|l| l.self_reverted).sum::<usize>() as f64,
        "vertices reverted to the step's start, all levels and frames",
    );
    report.metric(
        "ms_per_frame_total",
        m[0] + m[5] + m[8],
        "cloth step (with proximity constraints) + collision stage + self-collision stage",
    );
    if measured.len() > 1 {
        report.metric(
            "obb_cost_ratio_finest_vs_coarsest",
            m[1] / medians[0][1],
            format!(
                "{} vs {} triangles (flat within 1.5x is the target)",
                l.triangles, measured[0].triangles
            ),
        );
        report.metric(
            "stage_cost_ratio_finest_vs_coarsest",
            m[5] / medians[0][5],
            "",
        );
    }
    if let (Some(a), Some(b)) = (load_before, load_average()) {
        report.metric("load_average", 0.5 * (a + b), "1-minute, before and after");
    }
    report
}

/// The metrics both garment scenes and `avatar_contacts` report for the four closest-triangle
/// routes: each route's ms per frame (`ms`: boxes, deforming `TriMesh`, BN-Tree, brute force;
/// `obb_note` says what the boxes' time covers), the boxes' speed-ups over the others, the
/// seed's tolerance misses and each route's false negatives (boxes, `TriMesh`, BN-Tree) against
/// brute force.
pub(super) fn report_route_comparison(
    report: &mut SceneReport,
    ms: [f64; 4],
    obb_note: &str,
    seed_misses: usize,
    false_negatives: [usize; 3],
) {
    report.metric("ms_collision_obb", ms[0], obb_note);
    report.metric(
        "ms_collision_trimesh_deformable",
        ms[1],
        "skin all + set_vertices + max-dist projections",
    );
    report.metric(
        "ms_collision_bntree",
        ms[2],
        "O(m) pose + max-dist projections",
    );
    report.metric(
        "ms_collision_brute_force",
        ms[3],
        "skin all + every triangle",
    );
    report.metric(
        "speedup_vs_trimesh_deformable",
        ms[1] / ms[0],
        "target ≥ 10",
    );
    report.metric("speedup_vs_brute_force", ms[3] / ms[0], "target ≥ 50");
    report.metric("speedup_vs_bntree", ms[2] / ms[0], "report");
    report.metric(
        "seed_tolerance_misses",
        seed_misses as f64,
        "posed skin vertices outside the seed's 5 % boxes, all levels and frames",
    );
    report.metric(
        "false_negatives",
        false_negatives[0] as f64,
        "obb vs brute force, all levels and frames",
    );
    report.metric(
        "false_negatives_trimesh_deformable",
        false_negatives[1] as f64,
        "",
    );
    report.metric("false_negatives_bntree", false_negatives[2] as f64, "");
}
