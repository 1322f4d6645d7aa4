//! Scene `subdiv_tube`: a capped-tube Loop control mesh bent until it folds onto itself (Grinspun & Schröder 2001, Fig. 1); self-interference on the limit surface to a tolerance against the BN-Tree on the level-k mesh that resolves the same tolerance.
//!
//! Per frame (bend angle 0 → π; 12 frames, 4 with `--quick`), interleaved in alternating order:
//! * `limit`: `LimitHierarchy::set_control_points` then `LimitInterferenceQuery::detect_self`
//!   with an oracle that refines a pair while either sub-patch's control triangle has an edge
//!   longer than the tolerance (at most `k` steps);
//! * `level_k`: the BN-Tree self-collision query (`SelfCollisionQuery::run_by_mesh_size`,
//!   conservative) on `LoopSubdivision` of the cage at level `k`, the smallest level whose rest
//!   triangles have every edge below the tolerance (point governors = control points).
//!
//! Frame classes: *flat* frames are those before the legs meet (the level-k query finds no
//! crossing pair), *folded* frames the others; each class reports its medians and
//! `speedup_vs_level_k_<class>` beside the overall medians.
//!
//! Checks (not timed), on the first, middle and last frames: every limit position and limit
//! normal of the level-3 mesh's vertices (subdivided here in f64; Loop's limit and tangent masks:
//! dense limit-surface samples) lies in the box and the normal cone of every limit patch holding it
//! (`bound_violations`); the slack of each patch cone's half-angle over the largest sampled angle
//! to its axis (median over patches); and every crossing pair of the level-k mesh lies in a pair
//! of control patches the limit result reports (`level_k_pairs_uncovered`).

use super::output::load_average;
use super::runner::{FrameTable, PlotSpec, RunOptions, SceneReport, Section, median};
use super::subdiv_limit::check_bounds;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions, CullingMode, SelfCollisionQuery};
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::limit_surface::{LimitHierarchy, LimitInterferenceQuery};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform_scenes::subdiv::{EdgeTolerance, bend, level_resolving, tube_cage};
use std::time::Instant;

const RADIUS: f32 = 0.5;
const LENGTH: f32 = 4.0;
const TOLERANCE: f64 = 0.03;

fn pose(cage: &TriangleMesh, angle: f32) -> Vec<Vec3> {
    bend(
        cage.positions(),
        1.6,
        0.8 * RADIUS * std::f32::consts::PI,
        angle,
    )
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let frames = if options.quick { 4 } else { 12 };
    let load_before = load_average();
    let cage = tube_cage(8, 8, RADIUS, LENGTH);
    let k = level_resolving(&cage, TOLERANCE, 8);
    eprintln!(
        "  tube cage: {} control points, {} patches; level {k} resolves {TOLERANCE}",
        cage.vertex_count(),
        cage.triangle_count()
    );
    let mut fine = LoopSubdivision::new(cage.clone(), k).unwrap_or_else(|e| panic!("{e}"));
    let tree = BnTree::build_with(
        fine.mesh(),
        fine.rest_positions(),
        fine.weights(),
        BnTreeOptions::SELF_COLLISION,
    )
    .and_then(|t| t.with_point_governors(cage.positions().to_vec()))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut bn_query = SelfCollisionQuery::new(&tree);
    let mut hierarchy = LimitHierarchy::new(&cage).unwrap_or_else(|e| panic!("{e}"));
    let mut query = LimitInterferenceQuery::new();
    let mut oracle = EdgeTolerance {
        tolerance: TOLERANCE,
        max_depth: k,
    };
    // Warm-up, untimed: the eigen tables of the cage's valences are built on first use. Posed
    // at the last frame's bend, so that the first timed frame refits the control points it moves
    // like every other frame (bounds of unmoved patches are kept between queries).
    hierarchy
        .set_control_points(&pose(&cage, std::f32::consts::PI))
        .unwrap_or_else(|e| panic!("{e}"));
    query
        .detect_self(&mut hierarchy, &mut oracle)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut ms_limit = Vec::new();
    let mut ms_level = Vec::new();
    // Per frame class: (limit ms, level-k ms) of the frames before the legs meet (no level-k
    // crossing: the surface is flat or bent without contact) and of the folded frames.
    let mut flat: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut folded: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut visited = Vec::new();
    let mut rows = Vec::new();
    let mut violations = 0usize;
    let mut slack = Vec::new();
    let mut uncovered = 0usize;
    let mut pairs = Vec::new();
    let mut table = FrameTable {
        columns: [
            "bend_deg",
            "ms_limit",
            "ms_level_k",
            "limit_patches_visited",
            "regions",
            "interfering",
            "level_k_pairs",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for f in 0..frames {
        let angle = std::f32::consts::PI * f as f32 / (frames - 1) as f32;
        let posed = pose(&cage, angle);
        let mut t_limit = 0.0;
        let mut t_level = 0.0;
        for route in [f % 2, 1 - f % 2] {
            let start = Instant::now();
            if route == 0 {
                hierarchy
                    .set_control_points(&posed)
                    .unwrap_or_else(|e| panic!("{e}"));
                query
                    .detect_self(&mut hierarchy, &mut oracle)
                    .unwrap_or_else(|e| panic!("{e}"));
                t_limit = start.elapsed().as_secs_f64() * 1e3;
            } else {
                fine.set_control_points(&posed)
                    .unwrap_or_else(|e| panic!("{e}"));
                bn_query
                    .run_by_mesh_size(
                        &tree,
                        fine.governors(),
                        CullingMode::Conservative,
                        &mut pairs,
                    )
                    .unwrap_or_else(|e| panic!("{e}"));
                t_level = start.elapsed().as_secs_f64() * 1e3;
            }
        }
        let res = query.result();
        ms_limit.push(t_limit);
        ms_level.push(t_level);
        let class = if pairs.is_empty() {
            &mut flat
        } else {
            &mut folded
        };
        class.0.push(t_limit);
        class.1.push(t_level);
        visited.push(res.stats.limit_patches_visited() as f64);
        // Coverage: every level-k crossing in a reported pair of control patches.
        let reported: std::collections::HashSet<(usize, usize)> = res
            .regions
            .iter()
            .flat_map(|r| [(r.a.patch, r.b.patch), (r.b.patch, r.a.patch)])
            .chain(res.unresolved_self.iter().map(|s| (s.patch, s.patch)))
            .collect();
        uncovered += pairs
            .iter()
            .filter(|[a, b]| {
                let (ta, tb) = ((*a as usize) >> (2 * k), (*b as usize) >> (2 * k));
                !reported.contains(&(ta, tb))
            })
            .count();
        if f == 0 || f == frames / 2 || f == frames - 1 {
            let c = check_bounds(&cage, &posed, &mut hierarchy);
            violations += c.violations;
            slack.extend(c.slack_deg);
        }
        table.rows.push(vec![
            angle.to_degrees() as f64,
            t_limit,
            t_level,
            res.stats.limit_patches_visited() as f64,
            res.regions.len() as f64,
            res.interfering().count() as f64,
            pairs.len() as f64,
        ]);
        rows.push(vec![
            format!("{:.0}", angle.to_degrees()),
            format!("{t_limit:.2}"),
            format!("{t_level:.2}"),
            res.stats.limit_patches_visited().to_string(),
            res.regions.len().to_string(),
            res.interfering().count().to_string(),
            pairs.len().to_string(),
        ]);
    }
    let mut report = SceneReport::new("subdiv_tube");
    report.sections.push(Section {
        title: format!(
            "bent tube, {} control points, tolerance {TOLERANCE} (level {k}: {} triangles)",
            cage.vertex_count(),
            fine.mesh().triangle_count()
        ),
        header: [
            "bend °",
            "limit ms",
            "level-k ms",
            "patches visited",
            "regions",
            "interfering",
            "level-k pairs",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    report.frames = table;
    report.plot = Some(PlotSpec {
        title: format!(
            "bent tube ({} control points): limit surface vs level-{k} BN-Tree per frame",
            cage.vertex_count()
        ),
        y_label: "ms per frame".to_string(),
        series: vec![1, 2],
        log_y: false,
    });
    let (ml, mk) = (median(&mut ms_limit), median(&mut ms_level));
    report.metric(
        "control_vertices",
        cage.vertex_count() as f64,
        "capsule cage: one Loop step of an 8-around, 8-row tube with hemispherical ends",
    );
    report.metric("tolerance", TOLERANCE, "tube radius 0.5");
    report.metric(
        "level_k",
        k as f64,
        "smallest level whose rest edges are below the tolerance",
    );
    report.metric(
        "limit_patches_visited",
        median(&mut visited),
        "median per frame: limit patches bounded or entered plus sub-patches created",
    );
    report.metric(
        "ms_per_query_limit",
        ml,
        "median per frame, set_control_points included",
    );
    report.metric(
        "ms_per_query_level_k",
        mk,
        format!(
            "BN-Tree run_by_mesh_size on {} triangles, median per frame, pose included",
            fine.mesh().triangle_count()
        ),
    );
    report.metric("speedup_vs_level_k", mk / ml, "target ≥ 3");
    for (names, (limit, level), meaning) in [
        (
            [
                "frames_flat",
                "ms_per_query_limit_flat",
                "ms_per_query_level_k_flat",
                "speedup_vs_level_k_flat",
            ],
            &mut flat,
            "frames before the legs meet (no level-k crossing)",
        ),
        (
            [
                "frames_folded",
                "ms_per_query_limit_folded",
                "ms_per_query_level_k_folded",
                "speedup_vs_level_k_folded",
            ],
            &mut folded,
            "frames with level-k crossings (the legs interpenetrate)",
        ),
    ] {
        report.metric(names[0], limit.len() as f64, meaning);
        if !limit.is_empty() {
            let (l, k) = (median(limit), median(level));
            report.metric(names[1], l, format!("median over the {meaning}"));
            report.metric(names[2], k, format!("median over the {meaning}"));
            report.metric(
                names[3],
                k / l,
                "of the two medians; target ≥ 3 on the flat frames",
            );
        }
    }
    report.metric(
        "bound_violations",
        violations as f64,
        "level-3 limit points/normals outside their patch's box/cone, 3 frames; target 0",
    );
    report.metric(
        "normal_bound_halfangle_slack_deg",
        median(&mut slack),
        "median over patches and checked frames: half-angle minus the widest sampled normal",
    );
    report.metric(
        "level_k_pairs_uncovered",
        uncovered as f64,
        "level-k crossings whose control patches the limit result does not pair; target 0",
    );
    if let (Some(a), Some(b)) = (load_before, load_average()) {
        report.metric("load_average", 0.5 * (a + b), "1-minute, before and after");
    }
    report
}
