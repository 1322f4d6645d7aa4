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
use super::subdiv_limit::{Route, check_bounds, report_checks};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform_scenes::subdiv::{bend, tube_cage};

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
    let mut route = Route::new(&cage, TOLERANCE, &pose(&cage, std::f32::consts::PI));
    let k = route.k;
    eprintln!(
        "  tube cage: {} control points, {} patches; level {k} resolves {TOLERANCE}",
        cage.vertex_count(),
        cage.triangle_count()
    );
    let mut rows = Vec::new();
    let mut violations = 0usize;
    let mut slack = Vec::new();
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
        let (t_limit, t_level) = route.frame(&posed, f % 2 == 0);
        let res = route.query.result();
        let pairs = &route.pairs;
        if f == 0 || f == frames / 2 || f == frames - 1 {
            let c = check_bounds(&cage, &posed, &mut route.hierarchy);
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
            route.level.fine.mesh().triangle_count()
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
    let (ml, mk) = (median(&mut route.ms_limit), median(&mut route.ms_level));
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
        median(&mut route.visited),
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
            route.level.fine.mesh().triangle_count()
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
            &mut route.apart,
            "frames before the legs meet (no level-k crossing)",
        ),
        (
            [
                "frames_folded",
                "ms_per_query_limit_folded",
                "ms_per_query_level_k_folded",
                "speedup_vs_level_k_folded",
            ],
            &mut route.crossing,
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
    report_checks(
        &mut report,
        violations,
        &mut slack,
        route.uncovered,
        load_before,
    );
    report
}
