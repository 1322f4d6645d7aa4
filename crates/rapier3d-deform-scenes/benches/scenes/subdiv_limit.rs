//! What the limit-surface scenes share (Grinspun & Schröder 2001): dense limit samples of a posed cage and the bound checks against them, and the frame loop of a scene resolved at several tolerances, each against the BN-Tree on the level-k mesh that resolves it.

use super::output::load_average;
use super::runner::{FrameTable, PlotSpec, SceneReport, Section, median};
use rapier3d_deform::limit_surface::{
    LimitHierarchy, LimitInterferenceQuery, LimitPatches, NormalBound,
};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform_scenes::subdiv::{EdgeTolerance, LevelKRoute, level_resolving};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Level of the dense limit-surface samples for the bound checks.
const SAMPLE_LEVEL: u32 = 3;
/// At most this many tolerances per scene (metric names are static).
pub const MAX_TOLERANCES: usize = 3;
/// Deepest level-k mesh a tolerance may ask for.
const MAX_LEVEL: u32 = 5;

const PER_TOLERANCE: [[&str; 12]; MAX_TOLERANCES] = [
    [
        "tolerance_tol0",
        "level_k_tol0",
        "limit_patches_visited_tol0",
        "ms_per_query_limit_tol0",
        "ms_per_query_level_k_tol0",
        "speedup_vs_level_k_tol0",
        "speedup_vs_level_k_apart_tol0",
        "speedup_vs_level_k_crossing_tol0",
        "max_depth_last_tol0",
        "interfering_regions_last_tol0",
        "level_k_pairs_last_tol0",
        "frames_crossing_tol0",
    ],
    [
        "tolerance_tol1",
        "level_k_tol1",
        "limit_patches_visited_tol1",
        "ms_per_query_limit_tol1",
        "ms_per_query_level_k_tol1",
        "speedup_vs_level_k_tol1",
        "speedup_vs_level_k_apart_tol1",
        "speedup_vs_level_k_crossing_tol1",
        "max_depth_last_tol1",
        "interfering_regions_last_tol1",
        "level_k_pairs_last_tol1",
        "frames_crossing_tol1",
    ],
    [
        "tolerance_tol2",
        "level_k_tol2",
        "limit_patches_visited_tol2",
        "ms_per_query_limit_tol2",
        "ms_per_query_level_k_tol2",
        "speedup_vs_level_k_tol2",
        "speedup_vs_level_k_apart_tol2",
        "speedup_vs_level_k_crossing_tol2",
        "max_depth_last_tol2",
        "interfering_regions_last_tol2",
        "level_k_pairs_last_tol2",
        "frames_crossing_tol2",
    ],
];

fn loop_beta(n: usize) -> f64 {
    let c = 0.375 + 0.25 * (std::f64::consts::TAU / n as f64).cos();
    (0.625 - c * c) / n as f64
}

/// One Loop step of a closed mesh in f64 (Loop's original β; children of triangle `t` at
/// `4t..4t+4` in `LoopSubdivision`'s order), an independent reference for the bound checks.
fn loop_step(p: &[[f64; 3]], tris: &[[u32; 3]]) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let n = p.len();
    let mut opposite: HashMap<(u32, u32), u32> = HashMap::new();
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in tris {
        for c in 0..3 {
            let (a, b) = (t[c], t[(c + 1) % 3]);
            opposite.insert((a, b), t[(c + 2) % 3]);
            neighbours[a as usize].push(b);
        }
    }
    let mut out: Vec<[f64; 3]> = (0..n)
        .map(|v| {
            let k = neighbours[v].len();
            let beta = loop_beta(k);
            let mut q = p[v].map(|x| (1.0 - k as f64 * beta) * x);
            for &w in &neighbours[v] {
                for d in 0..3 {
                    q[d] += beta * p[w as usize][d];
                }
            }
            q
        })
        .collect();
    let mut edge_id: HashMap<(u32, u32), u32> = HashMap::new();
    let mut mid = |a: u32, b: u32, out: &mut Vec<[f64; 3]>| -> u32 {
        let key = (a.min(b), a.max(b));
        *edge_id.entry(key).or_insert_with(|| {
            let (c, d) = (opposite[&(a, b)], opposite[&(b, a)]);
            let q = [0, 1, 2].map(|i| {
                0.375 * (p[a as usize][i] + p[b as usize][i])
                    + 0.125 * (p[c as usize][i] + p[d as usize][i])
            });
            out.push(q);
            (out.len() - 1) as u32
        })
    };
    let mut fine = Vec::with_capacity(4 * tris.len());
    for &[a, b, c] in tris {
        let (ab, bc, ca) = (
            mid(a, b, &mut out),
            mid(b, c, &mut out),
            mid(c, a, &mut out),
        );
        fine.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
    }
    (out, fine)
}

/// Limit position and limit normal of every vertex of a closed mesh (Loop's limit and tangent
/// masks over the counter-clockwise 1-ring).
fn limit_samples(p: &[[f64; 3]], tris: &[[u32; 3]]) -> Vec<([f64; 3], [f64; 3])> {
    let mut next: HashMap<(u32, u32), u32> = HashMap::new();
    let mut any = vec![u32::MAX; p.len()];
    for t in tris {
        for c in 0..3 {
            next.insert((t[c], t[(c + 1) % 3]), t[(c + 2) % 3]);
            any[t[c] as usize] = t[(c + 1) % 3];
        }
    }
    (0..p.len() as u32)
        .map(|v| {
            let mut ring = vec![any[v as usize]];
            loop {
                let r = next[&(v, *ring.last().unwrap_or(&0))];
                if r == ring[0] {
                    break;
                }
                ring.push(r);
            }
            let n = ring.len();
            let chi = 1.0 / (3.0 / (8.0 * loop_beta(n)) + n as f64);
            let mut pos = p[v as usize].map(|x| (1.0 - n as f64 * chi) * x);
            let (mut t1, mut t2) = ([0.0; 3], [0.0; 3]);
            for (i, &r) in ring.iter().enumerate() {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                for d in 0..3 {
                    pos[d] += chi * p[r as usize][d];
                    t1[d] += a.cos() * p[r as usize][d];
                    t2[d] += a.sin() * p[r as usize][d];
                }
            }
            let normal = [
                t1[1] * t2[2] - t1[2] * t2[1],
                t1[2] * t2[0] - t1[0] * t2[2],
                t1[0] * t2[1] - t1[1] * t2[0],
            ];
            (pos, normal)
        })
        .collect()
}

/// What [`check_bounds`] found.
pub struct Checks {
    /// Limit points and normals outside their patch's box or cone.
    pub violations: usize,
    /// Per patch with a cone: its half-angle minus the widest sampled normal's angle (degrees).
    pub slack_deg: Vec<f64>,
}

/// Boxes and cones of every patch against the dense samples of `posed`.
pub fn check_bounds(cage: &TriangleMesh, posed: &[Vec3], hierarchy: &mut LimitHierarchy) -> Checks {
    let patches = LimitPatches::new(cage).unwrap_or_else(|e| panic!("{e}"));
    let cones = patches
        .normal_bounds(posed)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut p: Vec<[f64; 3]> = posed
        .iter()
        .map(|v| [v.x as f64, v.y as f64, v.z as f64])
        .collect();
    let mut tris = cage.triangles().to_vec();
    for _ in 0..SAMPLE_LEVEL {
        (p, tris) = loop_step(&p, &tris);
    }
    let samples = limit_samples(&p, &tris);
    let mut widest = vec![0.0f64; cones.len()];
    let mut violations = 0;
    for (f, tri) in tris.iter().enumerate() {
        let t = f >> (2 * SAMPLE_LEVEL);
        let (lo, hi) = hierarchy.patch_aabb(t).unwrap_or_else(|e| panic!("{e}"));
        for &v in tri {
            let (pos, normal) = samples[v as usize];
            if (0..3).any(|d| pos[d] < lo[d] || pos[d] > hi[d]) {
                violations += 1;
            }
            match &cones[t] {
                NormalBound::Cone(c) => {
                    let a = c.angle_to(normal);
                    widest[t] = widest[t].max(a);
                    if a > c.half_angle() {
                        violations += 1;
                    }
                }
                NormalBound::Unbounded => {}
            }
        }
    }
    let slack_deg = cones
        .iter()
        .zip(&widest)
        .filter_map(|(c, &w)| c.cone().map(|c| (c.half_angle() - w).to_degrees()))
        .collect();
    Checks {
        violations,
        slack_deg,
    }
}

/// A limit-surface scene resolved at several tolerances: a cage, a prescribed deformation of its
/// control points by a push parameter, and the tolerances (coarse to fine).
pub struct ToleranceScene<'a> {
    /// The scene's name.
    pub name: &'static str,
    /// What the cage is, for titles.
    pub what: &'a str,
    /// How the cage is built, for the `control_vertices` note.
    pub cage_note: &'a str,
    /// The control mesh at rest.
    pub cage: TriangleMesh,
    /// The control points at push `s` (`0` = rest).
    pub pose: &'a dyn Fn(&[Vec3], f32) -> Vec<Vec3>,
    /// The push of the last frame.
    pub max_push: f32,
    /// Frames from rest to `max_push`, and with `--quick`.
    pub frames: (usize, usize),
    /// The tolerances, coarse to fine (at most [`MAX_TOLERANCES`]).
    pub tolerances: &'a [f64],
    /// How many of them `--quick` runs (the coarsest ones).
    pub quick_tolerances: usize,
}

/// One tolerance's two routes and what they measured.
pub struct Route {
    /// The tolerance.
    pub tolerance: f64,
    /// The level that resolves it.
    pub k: u32,
    /// The level-k route: the Loop mesh, its BN-Tree and query.
    pub level: LevelKRoute,
    /// The level-k crossing pairs of the last frame.
    pub pairs: Vec<[u32; 2]>,
    /// The limit route: hierarchy, query, oracle.
    pub hierarchy: LimitHierarchy,
    /// The limit query (its last result).
    pub query: LimitInterferenceQuery,
    oracle: EdgeTolerance,
    /// Per frame: limit ms.
    pub ms_limit: Vec<f64>,
    /// Per frame: level-k ms.
    pub ms_level: Vec<f64>,
    /// (limit ms, level-k ms) of the frames without level-k crossings.
    pub apart: (Vec<f64>, Vec<f64>),
    /// (limit ms, level-k ms) of the frames with level-k crossings.
    pub crossing: (Vec<f64>, Vec<f64>),
    /// Per frame: limit patches visited.
    pub visited: Vec<f64>,
    /// Level-k crossings not paired by the limit result, summed over frames.
    pub uncovered: usize,
    /// The last frame's deepest sub-patch, interfering regions and level-k pairs.
    pub last: [f64; 3],
}

impl Route {
    /// Both routes for `tolerance` on `cage`, warmed up untimed at `warm_up`.
    pub fn new(cage: &TriangleMesh, tolerance: f64, warm_up: &[Vec3]) -> Self {
        let k = level_resolving(cage, tolerance, MAX_LEVEL);
        let level = LevelKRoute::new(cage, k).unwrap_or_else(|e| panic!("{e}"));
        let mut hierarchy = LimitHierarchy::new(cage).unwrap_or_else(|e| panic!("{e}"));
        let mut query = LimitInterferenceQuery::new();
        let mut oracle = EdgeTolerance {
            tolerance,
            max_depth: k,
        };
        // Warm-up, untimed: the eigen tables of the cage's valences are built on first use;
        // posed at the last frame so that the first timed frame refits what it moves.
        hierarchy
            .set_control_points(warm_up)
            .unwrap_or_else(|e| panic!("{e}"));
        query
            .detect_self(&mut hierarchy, &mut oracle)
            .unwrap_or_else(|e| panic!("{e}"));
        Self {
            tolerance,
            k,
            level,
            pairs: Vec::new(),
            hierarchy,
            query,
            oracle,
            ms_limit: Vec::new(),
            ms_level: Vec::new(),
            apart: (Vec::new(), Vec::new()),
            crossing: (Vec::new(), Vec::new()),
            visited: Vec::new(),
            uncovered: 0,
            last: [0.0; 3],
        }
    }

    /// Both routes on one pose, in the order `limit_first`; returns (limit ms, level-k ms).
    pub fn frame(&mut self, posed: &[Vec3], limit_first: bool) -> (f64, f64) {
        let (mut t_limit, mut t_level) = (0.0, 0.0);
        for limit in [limit_first, !limit_first] {
            let start = Instant::now();
            if limit {
                self.hierarchy
                    .set_control_points(posed)
                    .unwrap_or_else(|e| panic!("{e}"));
                self.query
                    .detect_self(&mut self.hierarchy, &mut self.oracle)
                    .unwrap_or_else(|e| panic!("{e}"));
                t_limit = start.elapsed().as_secs_f64() * 1e3;
            } else {
                self.level
                    .detect(posed, &mut self.pairs)
                    .unwrap_or_else(|e| panic!("{e}"));
                t_level = start.elapsed().as_secs_f64() * 1e3;
            }
        }
        self.ms_limit.push(t_limit);
        self.ms_level.push(t_level);
        let class = if self.pairs.is_empty() {
            &mut self.apart
        } else {
            &mut self.crossing
        };
        class.0.push(t_limit);
        class.1.push(t_level);
        let res = self.query.result();
        self.visited.push(res.stats.limit_patches_visited() as f64);
        // Coverage: every level-k crossing in a reported pair of control patches.
        let reported: HashSet<(usize, usize)> = res
            .regions
            .iter()
            .flat_map(|r| [(r.a.patch, r.b.patch), (r.b.patch, r.a.patch)])
            .chain(res.unresolved_self.iter().map(|s| (s.patch, s.patch)))
            .collect();
        let k = self.k;
        self.uncovered += self
            .pairs
            .iter()
            .filter(|[a, b]| {
                let (ta, tb) = ((*a as usize) >> (2 * k), (*b as usize) >> (2 * k));
                !reported.contains(&(ta, tb))
            })
            .count();
        let deepest = self.query.subpatches().map(|s| s.depth).max().unwrap_or(0);
        self.last = [
            deepest as f64,
            res.interfering().count() as f64,
            self.pairs.len() as f64,
        ];
        (t_limit, t_level)
    }
}

/// Runs a [`ToleranceScene`]: per frame and tolerance, the limit route
/// (`set_control_points` + `detect_self` with [`EdgeTolerance`] up to the level `k` that
/// resolves the tolerance) and the level-k route (the BN-Tree on `LoopSubdivision` at level `k`,
/// point governors, `run_by_mesh_size`, conservative), in alternating order; the bound checks on
/// the first, middle and last frames; the coverage of every level-k crossing.
pub fn run_tolerances(scene: &ToleranceScene<'_>, quick: bool) -> SceneReport {
    let load_before = load_average();
    let cage = &scene.cage;
    let frames = if quick {
        scene.frames.1
    } else {
        scene.frames.0
    }
    .max(2);
    let count = if quick {
        scene.quick_tolerances
    } else {
        scene.tolerances.len()
    }
    .clamp(1, MAX_TOLERANCES.min(scene.tolerances.len()));
    let last_pose = (scene.pose)(cage.positions(), scene.max_push);
    let mut routes: Vec<Route> = scene.tolerances[..count]
        .iter()
        .map(|&t| Route::new(cage, t, &last_pose))
        .collect();
    for r in &routes {
        eprintln!(
            "  {}: {} control points, {} patches; tolerance {} → level {} ({} triangles)",
            scene.name,
            cage.vertex_count(),
            cage.triangle_count(),
            r.tolerance,
            r.k,
            r.level.fine.mesh().triangle_count()
        );
    }
    let mut violations = 0usize;
    let mut slack = Vec::new();
    let mut rows = Vec::new();
    let mut columns = vec!["push".to_string()];
    for i in 0..count {
        for c in [
            "ms_limit",
            "ms_level_k",
            "limit_patches_visited",
            "interfering",
            "level_k_pairs",
        ] {
            columns.push(format!("{c}_tol{i}"));
        }
    }
    let mut table = FrameTable {
        columns,
        rows: Vec::new(),
    };
    for f in 0..frames {
        let push = scene.max_push * f as f32 / (frames - 1) as f32;
        let posed = (scene.pose)(cage.positions(), push);
        let mut row = vec![push as f64];
        for (i, r) in routes.iter_mut().enumerate() {
            let (t_limit, t_level) = r.frame(&posed, (f + i) % 2 == 0);
            let res = r.query.result();
            let visited = res.stats.limit_patches_visited();
            let interfering = res.interfering().count();
            row.extend([
                t_limit,
                t_level,
                visited as f64,
                interfering as f64,
                r.pairs.len() as f64,
            ]);
            rows.push(vec![
                format!("{push:.2}"),
                format!("{}", r.tolerance),
                format!("{t_limit:.2}"),
                format!("{t_level:.2}"),
                visited.to_string(),
                res.regions.len().to_string(),
                interfering.to_string(),
                r.last[0].to_string(),
                r.pairs.len().to_string(),
            ]);
        }
        table.rows.push(row);
        if f == 0 || f == frames / 2 || f == frames - 1 {
            let c = check_bounds(cage, &posed, &mut routes[0].hierarchy);
            violations += c.violations;
            slack.extend(c.slack_deg);
        }
    }
    let mut report = SceneReport::new(scene.name);
    report.sections.push(Section {
        title: format!(
            "{}, {} control points, tolerances {}",
            scene.what,
            cage.vertex_count(),
            routes
                .iter()
                .map(|r| format!(
                    "{} (level {}: {} triangles)",
                    r.tolerance,
                    r.k,
                    r.level.fine.mesh().triangle_count()
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        header: [
            "push",
            "tolerance",
            "limit ms",
            "level-k ms",
            "patches visited",
            "regions",
            "interfering",
            "deepest",
            "level-k pairs",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    report.frames = table;
    report.plot = Some(PlotSpec {
        title: format!(
            "{} ({} control points): limit surface vs level-k BN-Tree per frame and tolerance",
            scene.what,
            cage.vertex_count()
        ),
        y_label: "ms per frame".to_string(),
        series: (0..count).flat_map(|i| [1 + 5 * i, 2 + 5 * i]).collect(),
        log_y: true,
    });
    report.metric(
        "control_vertices",
        cage.vertex_count() as f64,
        scene.cage_note.to_string(),
    );
    report.metric(
        "limit_patches",
        cage.triangle_count() as f64,
        "control triangles",
    );
    report.metric("frames", frames as f64, "from rest to the last push");
    for (i, r) in routes.iter_mut().enumerate() {
        let n = PER_TOLERANCE[i];
        let (ml, mk) = (median(&mut r.ms_limit), median(&mut r.ms_level));
        report.metric(n[0], r.tolerance, format!("tolerance {i} (coarse to fine)"));
        report.metric(
            n[1],
            r.k as f64,
            "smallest level whose rest edges are below the tolerance",
        );
        report.metric(
            n[2],
            median(&mut r.visited),
            "median per frame: limit patches bounded or entered plus sub-patches created",
        );
        report.metric(n[3], ml, "median per frame, set_control_points included");
        report.metric(
            n[4],
            mk,
            format!(
                "BN-Tree run_by_mesh_size on {} triangles, median per frame, pose included",
                r.level.fine.mesh().triangle_count()
            ),
        );
        report.metric(n[5], mk / ml, "of the two medians; target ≥ 3");
        for (name, class, meaning) in [
            (n[6], &mut r.apart, "frames without level-k crossings"),
            (n[7], &mut r.crossing, "frames with level-k crossings"),
        ] {
            if !class.0.is_empty() {
                let (l, k) = (median(&mut class.0), median(&mut class.1));
                report.metric(name, k / l, format!("of the medians over the {meaning}"));
            }
        }
        report.metric(
            n[8],
            r.last[0],
            "deepest sub-patch the last frame's query created",
        );
        report.metric(
            n[9],
            r.last[1],
            "regions with interfering polygons, last frame",
        );
        report.metric(n[10], r.last[2], "level-k crossing pairs, last frame");
        report.metric(
            n[11],
            r.crossing.0.len() as f64,
            "frames with level-k crossings",
        );
    }
    let finest = routes.len() - 1;
    let (ml, mk) = (
        median(&mut routes[finest].ms_limit.clone()),
        median(&mut routes[finest].ms_level.clone()),
    );
    report.metric(
        "speedup_vs_level_k",
        mk / ml,
        format!(
            "at the finest tolerance run ({}); target ≥ 3",
            routes[finest].tolerance
        ),
    );
    report_checks(
        &mut report,
        violations,
        &mut slack,
        routes.iter().map(|r| r.uncovered).sum(),
        load_before,
    );
    report
}

/// The checks' metrics every limit-surface scene reports, and the load average.
pub fn report_checks(
    report: &mut SceneReport,
    violations: usize,
    slack: &mut [f64],
    uncovered: usize,
    load_before: Option<f64>,
) {
    report.metric(
        "bound_violations",
        violations as f64,
        "level-3 limit points/normals outside their patch's box/cone, 3 frames; target 0",
    );
    report.metric(
        "normal_bound_halfangle_slack_deg",
        median(slack),
        "median over patches and checked frames: half-angle minus the widest sampled normal",
    );
    report.metric(
        "level_k_pairs_uncovered",
        uncovered as f64,
        "level-k crossings whose control patches the limit result does not pair (every \
         tolerance and frame); target 0",
    );
    if let (Some(a), Some(b)) = (load_before, load_average()) {
        report.metric("load_average", 0.5 * (a + b), "1-minute, before and after");
    }
}
