//! Scene `avatar_contacts`: the collision stage of cloth on a walking avatar — garment-like points near the Fox's skin against per-bone boxes, a deforming `TriMesh`, the BN-Tree mesh shape and brute force.
//!
//! The avatar is the Khronos Fox (24 joints) Loop-subdivided once, twice and three times (2,304,
//! 9,216 and 36,864 triangles; once only with `--quick`), playing its Walk then Run clips. The
//! "cloth" is 2,000 points that hug the posed skin: each rides a skin vertex, offset along the
//! vertex normal by a fixed distance in `[-t, 3t]` (`t` the cloth thickness, 1.5 cm on a Fox
//! authored in centimetres), so some points sit inside the skin, most within reach of it and some
//! beyond, as garment vertices do. Each frame, every route finds each point's closest skin
//! triangle within `t`:
//!
//! * **obb**: [`AvatarBoxes`] / [`AvatarQuery`] (per-bone boxes cut into slab cells of 4
//!   triangles ([`AVATAR_OPTIONS`]) under a hierarchy, bounded in the bone's frame on first use
//!   in a frame; Pelechano 2002 made conservative);
//! * **trimesh_deformable**: a parry `TriMesh` with `TriMeshFlags::DEFORMABLE`, every vertex
//!   skinned and `set_vertices` (leaf boxes and BVH refit) each frame, then
//!   `project_local_point_with_max_dist` per point (what a Rapier user does today);
//! * **bntree**: the crate's `DeformableMeshShape` posed in O(m), then
//!   `project_local_point_with_max_dist` (refits only the nodes the points reach);
//! * **brute_force**: skin every vertex, then every point against every triangle (the oracle).
//!
//! The routes run interleaved within each frame (rotating order). Times are medians over frames
//! of each route's whole frame (pose + all points). `false_negatives` counts points whose
//! brute-force distance is within `t` but whose route found nothing or a farther triangle;
//! `seed_tolerance_misses` counts posed skin vertices outside the seed's boxes (rest box carried
//! by the bone, enlarged by 5 %), summed over frames. The seed's §5.2 statistics (triangles per
//! slab) are in a section. No cloth dynamics run here: the figures are those of the collision
//! stage a cloth solver calls each step.

use super::output::load_average;
use super::runner::{FrameTable, PlotSpec, RunOptions, SceneReport, Section, median};
use rapier3d::geometry::{SharedShape, TriMeshFlags};
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery, SkinContact};
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform_scenes::fox::SubdividedFox;
use std::sync::Arc;
use std::time::Instant;

/// Cloth thickness on the Fox (centimetres).
const THICKNESS: f32 = 1.5;
/// Garment points.
const POINTS: usize = 2000;
/// Cells of 4 triangles, as in `cloth_skirt`: under the boxes' hierarchies small cells cost a
/// few more node tests and save triangle tests (on the Fox x1: 24 instead of 81 triangles read
/// per point, and 20 % less time, than the default 32).
const AVATAR_OPTIONS: AvatarOptions = AvatarOptions {
    triangles_per_slab: 4,
    min_slabs: 1,
    max_slabs: 256,
};
/// The seed's relative box enlargement.
const SEED_TOLERANCE: f32 = 0.05;

/// One route's closest-triangle answer per point: (triangle, distance) or none.
type Answers = Vec<Option<(u32, f32)>>;

/// Everything measured at one subdivision level.
struct Level {
    triangles: usize,
    ms: [Vec<f64>; 4],
    false_negatives: [usize; 3],
    candidates: u64,
    points_queried: u64,
    seed_misses: usize,
    stats: rapier3d_deform::avatar::SlabStatistics,
    frames: usize,
}

/// Per-vertex normals of the posed skin (area-weighted).
fn vertex_normals(triangles: &[[u32; 3]], posed: &[Vec3]) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; posed.len()];
    for t in triangles {
        let [a, b, c] = t.map(|v| posed[v as usize]);
        let face = (b - a).cross(c - a);
        for v in t {
            n[*v as usize] += face;
        }
    }
    n.iter().map(|x| x.normalize_or_zero()).collect()
}

/// Brute force: the closest triangle within the thickness per point.
fn brute_force(triangles: &[[u32; 3]], posed: &[Vec3], points: &[Vec3]) -> Answers {
    points
        .iter()
        .map(|&p| {
            let mut best: Option<(u32, f32)> = None;
            for (t, tri) in triangles.iter().enumerate() {
                let [a, b, c] = tri.map(|v| posed[v as usize]);
                let d = (Triangle::new(a, b, c).project_local_point(p, false).point - p).length();
                if d <= THICKNESS && best.is_none_or(|b| d < b.1) {
                    best = Some((t as u32, d));
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
            (Some(r), Some(a)) => a.1 > r.1 * (1.0 + 1e-4) + 1e-5,
            (Some(_), None) => true,
            _ => false,
        })
        .count()
}

fn measure(levels: u32, per_clip: usize) -> Level {
    let mut fox = SubdividedFox::load(
        rapier3d_deform_scenes::asset_path("skinned/Fox.glb"),
        levels,
    )
    .unwrap_or_else(|e| panic!("loading the Fox failed: {e}"));
    let mesh = fox.mesh().clone();
    let rest = fox.skinning().rest_positions().to_vec();
    let weights = fox.skinning().weights().clone();
    let triangles = mesh.triangles().to_vec();
    let avatar = AvatarBoxes::build(&mesh, &rest, &weights, AVATAR_OPTIONS)
        .unwrap_or_else(|e| panic!("{e}"));
    let tree = Arc::new(
        BnTree::build_with(&mesh, &rest, &weights, BnTreeOptions::COLLIDER)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let frames = fox
        .clip_frames(&["Walk", "Run"], per_clip)
        .unwrap_or_else(|e| panic!("{e}"));
    // The garment: fixed skin vertices and offsets, spread over the whole skin.
    let anchors: Vec<(usize, f32)> = (0..POINTS)
        .map(|i| {
            let v = (i * 7919) % rest.len();
            let offset = -THICKNESS + 4.0 * THICKNESS * ((i * 37) % 100) as f32 / 100.0;
            (v, offset)
        })
        .collect();
    let mut posed = Vec::new();
    deform_vertices(&rest, &weights, &frames[0], &mut posed);
    let mut trimesh =
        SharedShape::trimesh_with_flags(posed.clone(), triangles.clone(), TriMeshFlags::DEFORMABLE)
            .unwrap_or_else(|e| panic!("{e:?}"));
    let mut shape =
        DeformableMeshShape::new(tree.clone(), &frames[0]).unwrap_or_else(|e| panic!("{e}"));
    let mut query = AvatarQuery::new();
    let (mut scratch, mut contacts): (Vec<u32>, Vec<(u32, SkinContact)>) = (Vec::new(), Vec::new());
    let mut buffer = Vec::new();
    let mut level = Level {
        triangles: triangles.len(),
        ms: Default::default(),
        false_negatives: [0; 3],
        candidates: 0,
        points_queried: 0,
        seed_misses: 0,
        stats: avatar.slab_statistics(),
        frames: frames.len(),
    };
    for (f, governors) in frames.iter().enumerate() {
        deform_vertices(&rest, &weights, governors, &mut posed);
        let normals = vertex_normals(&triangles, &posed);
        let points: Vec<Vec3> = anchors
            .iter()
            .map(|&(v, offset)| posed[v] + normals[v] * offset)
            .collect();
        let mut answers: [Answers; 4] = Default::default();
        for k in 0..4 {
            let route = (k + f) % 4;
            let start = Instant::now();
            answers[route] = match route {
                0 => {
                    query
                        .begin_frame(&avatar, governors)
                        .unwrap_or_else(|e| panic!("{e}"));
                    query
                        .contacts(&avatar, &points, THICKNESS, &mut scratch, &mut contacts)
                        .unwrap_or_else(|e| panic!("{e}"));
                    let mut out = vec![None; points.len()];
                    for (i, c) in &contacts {
                        out[*i as usize] = Some((c.triangle, c.distance));
                    }
                    out
                }
                1 => {
                    deform_vertices(&rest, &weights, governors, &mut buffer);
                    let mesh = trimesh
                        .make_mut()
                        .as_trimesh_mut()
                        .unwrap_or_else(|| panic!("a TriMesh"));
                    mesh.set_vertices(&buffer);
                    points
                        .iter()
                        .map(|&p| {
                            mesh.project_local_point_with_max_dist(p, false, THICKNESS)
                                .map(|proj| (u32::MAX, (proj.point - p).length()))
                        })
                        .collect()
                }
                2 => {
                    shape
                        .set_governors(governors)
                        .unwrap_or_else(|e| panic!("{e}"));
                    points
                        .iter()
                        .map(|&p| {
                            shape
                                .project_local_point_with_max_dist(p, false, THICKNESS)
                                .map(|proj| (u32::MAX, (proj.point - p).length()))
                        })
                        .collect()
                }
                _ => {
                    deform_vertices(&rest, &weights, governors, &mut buffer);
                    brute_force(&triangles, &buffer, &points)
                }
            };
            level.ms[route].push(start.elapsed().as_secs_f64() * 1e3);
        }
        let stats = query.stats();
        level.candidates += stats.candidate_triangles;
        level.points_queried += stats.points;
        for route in 0..3 {
            level.false_negatives[route] += false_negatives(&answers[3], &answers[route]);
        }
        level.seed_misses += query
            .seed_tolerance_misses(&avatar, SEED_TOLERANCE)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    level
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let (levels, per_clip): (&[u32], usize) = if options.quick {
        (&[1], 2)
    } else {
        (&[1, 2, 3], 8)
    };
    let load_before = load_average();
    let measured: Vec<Level> = levels
        .iter()
        .map(|&l| {
            eprintln!("  Fox, Loop x{l}");
            measure(l, per_clip)
        })
        .collect();
    let mut report = SceneReport::new("avatar_contacts");
    let mut section = Section {
        title: format!(
            "{POINTS} garment points within {THICKNESS} cm of the walking and running Fox: ms per \
             frame (median over frames, min–max)"
        ),
        header: [
            "triangles",
            "obb",
            "trimesh_deformable",
            "bntree",
            "brute_force",
            "tri/point",
            "cells",
            "tri/cell mean",
            "tri/cell max",
            "seed misses",
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
        section.rows.push(vec![
            l.triangles.to_string(),
            cells[0].1.clone(),
            cells[1].1.clone(),
            cells[2].1.clone(),
            cells[3].1.clone(),
            format!(
                "{:.1}",
                l.candidates as f64 / l.points_queried.max(1) as f64
            ),
            l.stats.slabs.to_string(),
            format!("{:.1}", l.stats.mean_triangles),
            l.stats.max_triangles.to_string(),
            l.seed_misses.to_string(),
            format!(
                "{}/{}/{}",
                l.false_negatives[0], l.false_negatives[1], l.false_negatives[2]
            ),
        ]);
    }
    report.sections.push(section);
    // Per frame, the finest level: each route's ms.
    let finest = &measured[measured.len() - 1];
    report.frames = FrameTable {
        columns: [
            "frame",
            "obb_ms",
            "trimesh_deformable_ms",
            "bntree_ms",
            "brute_force_ms",
        ]
        .map(String::from)
        .to_vec(),
        rows: (0..finest.frames)
            .map(|f| {
                let mut row = vec![f as f64];
                row.extend(finest.ms.iter().map(|m| m[f]));
                row
            })
            .collect(),
    };
    report.plot = Some(PlotSpec {
        title: format!(
            "{POINTS} garment points on the Fox ({} triangles): collision stage per frame",
            finest.triangles
        ),
        y_label: "ms per frame".into(),
        series: vec![1, 2, 3, 4],
        log_y: true,
    });
    // Headline: the finest level measured.
    let last = measured.len() - 1;
    let (l, m) = (&measured[last], &medians[last]);
    report.metric("triangles_skin", l.triangles as f64, "finest level");
    report.metric("cloth_vertices", POINTS as f64, "garment points per frame");
    report.metric("frames", l.frames as f64, "Walk then Run");
    super::garment::report_route_comparison(
        &mut report,
        [m[0], m[1], m[2], m[3]],
        "per-bone boxes, whole frame",
        measured.iter().map(|l| l.seed_misses).sum(),
        [0, 1, 2].map(|k| measured.iter().map(|l| l.false_negatives[k]).sum()),
    );
    report.metric(
        "triangles_tested_per_cloth_vertex",
        l.candidates as f64 / l.points_queried.max(1) as f64,
        "obb candidates per point",
    );
    if measured.len() > 1 {
        report.metric(
            "obb_cost_ratio_finest_vs_coarsest",
            m[0] / medians[0][0],
            format!(
                "{} vs {} triangles (flat within 1.5x is the target)",
                l.triangles, measured[0].triangles
            ),
        );
    }
    if let (Some(a), Some(b)) = (load_before, load_average()) {
        report.metric("load_average", 0.5 * (a + b), "1-minute, before and after");
    }
    report
}
