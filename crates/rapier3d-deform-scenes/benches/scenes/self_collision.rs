//! Scenes `self_walk`, `self_run`, `self_fox`, `self_cloth`, `self_teddy`: BN-Tree self-collision against the HSC baseline and the deform-all + BVH-refit route, frame by frame.
//!
//! Every frame of an animated mesh is given to four methods in the same process, interleaved
//! (the order rotates from frame to frame), each with its own persistent state:
//!
//! * **BN-Tree** (`SelfCollisionQuery::run`, `RefitPolicy::OnDemand`, `CullingMode::Conservative`):
//!   bounds on demand from the governors, front caching, normal + contour tests;
//! * **BN-Tree fast** (same, `CullingMode::Fast`: the seed paper's normal test only);
//! * **HSC** (`RefitPolicy::BottomUpEveryFrame`, conservative): Volino & Magnenat-Thalmann's
//!   bottom-up refit of every cone and box from the deformed vertices, same traversal;
//! * **HSC fast** (same, normal test only): the comparison of the seed paper's Fig. 2–4, where
//!   neither method runs the contour test;
//! * **BVH refit** (`self_collision::BvhRefitSelfCollision`): deform every vertex, refit parry's
//!   `Bvh`, self-overlap traversal, exact tests, no normal culling.
//!
//! The whole sequence runs `passes` times (front caching keeps its temporal coherence within a
//! pass); a method's time for a frame is the median over passes, and `ms_per_frame_*` is the mean
//! of those over the frames (the paper's per-frame averages). Correctness is checked on the first
//! pass against the reference: the brute-force oracle with `--quick`, the BVH route (itself exact,
//! and checked against brute force in the crate's tests) at full size.
//!
//! With `--features parallel`, `self_walk` also reports `parallel_speedup`: the conservative
//! BN-Tree query in a one-thread and a two-thread rayon pool, interleaved frame by frame, the
//! ratio of the medians over passes of their mean ms/frame; the pairs and counters of every frame
//! must match (`parallel_mismatched_frames`). The methods above run in a one-thread pool then,
//! so their figures stay one thread's.

use super::runner::{FrameTable, PlotSpec, RunOptions, SceneReport, Section, median};
use super::softbody_spot;
use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery,
};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::{TriangleMesh, VertexOrder};
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::BvhRefitSelfCollision;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use rapier3d_deform_scenes::cloth::ClothAnimation;
use rapier3d_deform_scenes::fox::SubdividedFox;
use rapier3d_deform_scenes::teddy::Teddy;
use std::path::Path;
use std::time::Instant;

/// An animated mesh: what every method needs, and the governors of every frame.
struct Animation {
    /// Short name for tables (e.g. `walk`, `level 3`).
    label: String,
    mesh: TriangleMesh,
    rest: Vec<Vec3>,
    weights: ConvexWeights,
    frames: Vec<Vec<Affine>>,
    /// Rest positions of point governors (subdivision control points), if the governors are
    /// points: the BN-Tree then uses the per-patch best-fit affine (BN-Tree §5).
    point_rest: Option<Vec<Vec3>>,
}

/// Per-frame results of one animation.
#[derive(Clone, Debug, Default)]
struct FrameResult {
    /// Median over passes, milliseconds: BN-Tree, BN-Tree fast, HSC, BVH refit (incl. deforming).
    bntree_ms: f64,
    bntree_fast_ms: f64,
    hsc_ms: f64,
    hsc_fast_ms: f64,
    bvh_ms: f64,
    /// Contour-test time of the BN-Tree (median over passes, ms).
    contour_ms: f64,
    /// First pass: reference pairs, BN-Tree pairs, and the differences.
    reference_pairs: usize,
    bntree_pairs: usize,
    false_negatives: usize,
    false_positives: usize,
    fast_misses: usize,
    hsc_mismatches: usize,
    bvh_mismatches: usize,
    /// BN-Tree counters (first pass).
    tasks: u64,
    vertices_deformed: u64,
    triangle_tests: u64,
}

/// Everything measured on one animation.
struct Measured {
    label: String,
    triangles: usize,
    governors: usize,
    frames: Vec<FrameResult>,
    contour_share: f64,
    bntree_bytes: usize,
    /// Deformed vertices + the parry tree (what the route adds to the deformation model).
    bvh_route_bytes: usize,
    /// The deformation model both routes need: mesh (positions, triangles), rest positions,
    /// weights (CSR).
    model_bytes: usize,
    build_s: f64,
}

impl Measured {
    fn mean(&self, f: impl Fn(&FrameResult) -> f64) -> f64 {
        self.frames.iter().map(f).sum::<f64>() / self.frames.len().max(1) as f64
    }
    fn total(&self, f: impl Fn(&FrameResult) -> usize) -> usize {
        self.frames.iter().map(f).sum()
    }
}

/// Bytes of the deformation model: the mesh (positions and triangles), the rest positions and
/// the CSR weights (governor index and weight per influence, one offset per vertex).
fn model_bytes(anim: &Animation) -> usize {
    anim.mesh.vertex_count() * 12
        + anim.mesh.triangle_count() * 12
        + anim.rest.len() * 12
        + anim.weights.influence_count() * 8
        + (anim.weights.vertex_count() + 1) * 4
}

/// `|a \ b|` for sorted, deduplicated pair lists.
fn missing(a: &[[u32; 2]], b: &[[u32; 2]]) -> usize {
    a.iter().filter(|p| b.binary_search(p).is_err()).count()
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// `anim` with its vertices in spatial order, as an asset pipeline would number them
/// (subdivision numbers them level by level, scattering each patch over memory). Triangle
/// indices, hence the pairs, do not change (a no-op for the cat: `Cat::build` orders it).
fn spatially_ordered(anim: &Animation) -> Animation {
    let order = VertexOrder::spatial(&anim.rest).unwrap_or_else(|e| panic!("{e}"));
    Animation {
        label: anim.label.clone(),
        mesh: order.mesh(&anim.mesh).unwrap_or_else(|e| panic!("{e}")),
        rest: order.reorder(&anim.rest).unwrap_or_else(|e| panic!("{e}")),
        weights: order
            .weights(&anim.weights)
            .unwrap_or_else(|e| panic!("{e}")),
        frames: anim.frames.clone(),
        point_rest: anim.point_rest.clone(),
    }
}

/// The BN-Tree of `anim` with the self-collision options (and its point governors, if any).
fn build_tree(anim: &Animation) -> BnTree {
    let mut tree = BnTree::build_with(
        &anim.mesh,
        &anim.rest,
        &anim.weights,
        BnTreeOptions::SELF_COLLISION,
    )
    .unwrap_or_else(|e| panic!("BN-Tree build failed on {}: {e}", anim.label));
    if let Some(points) = &anim.point_rest {
        tree = tree
            .with_point_governors(points.clone())
            .unwrap_or_else(|e| panic!("point governors of {}: {e}", anim.label));
    }
    tree
}

/// Runs the four methods over every frame of `anim`, `passes` times, on one thread (with the
/// `parallel` feature, in a one-thread rayon pool).
fn measure(anim: &Animation, passes: usize, brute_force_reference: bool) -> Measured {
    #[cfg(feature = "parallel")]
    {
        super::runner::rayon_pool(1).install(|| measure_here(anim, passes, brute_force_reference))
    }
    #[cfg(not(feature = "parallel"))]
    measure_here(anim, passes, brute_force_reference)
}

/// [`measure`] on the calling thread.
fn measure_here(anim: &Animation, passes: usize, brute_force_reference: bool) -> Measured {
    let ordered = spatially_ordered(anim);
    let anim = &ordered;
    eprintln!(
        "  {}: {} triangles, {} governors, {} frames",
        anim.label,
        anim.mesh.triangle_count(),
        anim.frames[0].len(),
        anim.frames.len()
    );
    let start = Instant::now();
    let tree = build_tree(anim);
    let build_s = start.elapsed().as_secs_f64();
    let mut bvh = BvhRefitSelfCollision::new(&anim.mesh, &anim.rest)
        .unwrap_or_else(|e| panic!("BVH build failed on {}: {e}", anim.label));
    let mut deformed: Vec<Vec3> = Vec::with_capacity(anim.rest.len());
    let (mut out_c, mut out_f, mut out_h, mut out_b) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());

    let n = anim.frames.len();
    // BN-Tree, BN-Tree fast, HSC, BVH, BN-Tree contour time, HSC fast.
    let mut times = vec![std::array::from_fn::<Vec<f64>, 6, _>(|_| Vec::new()); n];
    let mut results = vec![FrameResult::default(); n];
    let (mut contour_ns, mut total_ns) = (0u64, 0u64);
    let mut bntree_bytes = 0;
    for pass in 0..passes {
        // Fresh per-frame state each pass: each pass is a playback of the animation.
        let mut query_c = SelfCollisionQuery::new(&tree);
        let mut query_f = SelfCollisionQuery::new(&tree);
        let mut query_h = SelfCollisionQuery::new(&tree);
        let mut query_hf = SelfCollisionQuery::new(&tree);
        let mut out_hf = Vec::new();
        for (f, governors) in anim.frames.iter().enumerate() {
            let t = &mut times[f];
            for k in 0..5 {
                match (k + f + pass) % 5 {
                    0 => {
                        let s = Instant::now();
                        let stats = query_c
                            .run(
                                &tree,
                                governors,
                                RefitPolicy::OnDemand,
                                CullingMode::Conservative,
                                &mut out_c,
                            )
                            .expect("the governors match the tree");
                        t[0].push(ms(s));
                        t[4].push(stats.contour_nanos as f64 * 1e-6);
                        contour_ns += stats.contour_nanos;
                        total_ns += stats.nanos;
                        if pass == 0 {
                            let r = &mut results[f];
                            r.tasks = stats.tasks;
                            r.vertices_deformed = stats.vertices_deformed;
                            r.triangle_tests = stats.triangle_tests;
                        }
                    }
                    1 => {
                        let s = Instant::now();
                        query_f
                            .run(
                                &tree,
                                governors,
                                RefitPolicy::OnDemand,
                                CullingMode::Fast,
                                &mut out_f,
                            )
                            .expect("the governors match the tree");
                        t[1].push(ms(s));
                    }
                    2 => {
                        let s = Instant::now();
                        query_h
                            .run(
                                &tree,
                                governors,
                                RefitPolicy::BottomUpEveryFrame,
                                CullingMode::Conservative,
                                &mut out_h,
                            )
                            .expect("the governors match the tree");
                        t[2].push(ms(s));
                    }
                    3 => {
                        let s = Instant::now();
                        query_hf
                            .run(
                                &tree,
                                governors,
                                RefitPolicy::BottomUpEveryFrame,
                                CullingMode::Fast,
                                &mut out_hf,
                            )
                            .expect("the governors match the tree");
                        t[5].push(ms(s));
                    }
                    _ => {
                        let s = Instant::now();
                        deform_vertices(&anim.rest, &anim.weights, governors, &mut deformed);
                        bvh.detect(&anim.mesh, &deformed, &mut out_b)
                            .unwrap_or_else(|e| panic!("BVH route failed: {e}"));
                        t[3].push(ms(s));
                    }
                }
            }
            if pass == 0 {
                let reference = if brute_force_reference {
                    deform_vertices(&anim.rest, &anim.weights, governors, &mut deformed);
                    self_collisions_brute_force(&anim.mesh, &deformed)
                        .unwrap_or_else(|e| panic!("brute force failed: {e}"))
                } else {
                    out_b.clone()
                };
                let r = &mut results[f];
                r.reference_pairs = reference.len();
                r.bntree_pairs = out_c.len();
                r.false_negatives = missing(&reference, &out_c);
                r.false_positives = missing(&out_c, &reference);
                r.fast_misses = missing(&reference, &out_f);
                r.hsc_mismatches = missing(&reference, &out_h) + missing(&out_h, &reference);
                r.bvh_mismatches = missing(&reference, &out_b) + missing(&out_b, &reference);
            }
        }
        bntree_bytes = bntree_bytes.max(tree.heap_bytes() + query_c.heap_bytes());
    }
    for (r, t) in results.iter_mut().zip(&mut times) {
        r.bntree_ms = median(&mut t[0]);
        r.bntree_fast_ms = median(&mut t[1]);
        r.hsc_ms = median(&mut t[2]);
        r.hsc_fast_ms = median(&mut t[5]);
        r.bvh_ms = median(&mut t[3]);
        r.contour_ms = median(&mut t[4]);
    }
    Measured {
        label: anim.label.clone(),
        triangles: anim.mesh.triangle_count(),
        governors: anim.frames[0].len(),
        frames: results,
        contour_share: contour_ns as f64 / total_ns.max(1) as f64,
        bntree_bytes,
        bvh_route_bytes: bvh.heap_bytes() + anim.rest.len() * core::mem::size_of::<Vec3>(),
        model_bytes: model_bytes(anim),
        build_s,
    }
}

/// Per-frame columns of one animation (suffix distinguishes animations sharing a table).
const FRAME_COLUMNS: [&str; 13] = [
    "bntree_ms",
    "hsc_ms",
    "bvh_refit_ms",
    "bntree_fast_ms",
    "contour_ms",
    "reference_pairs",
    "bntree_pairs",
    "false_negatives",
    "fast_mode_misses",
    "bntree_tasks",
    "bntree_vertices_deformed",
    "bntree_triangle_tests",
    "hsc_fast_ms",
];

fn frame_values(r: &FrameResult) -> [f64; 13] {
    [
        r.bntree_ms,
        r.hsc_ms,
        r.bvh_ms,
        r.bntree_fast_ms,
        r.contour_ms,
        r.reference_pairs as f64,
        r.bntree_pairs as f64,
        r.false_negatives as f64,
        r.fast_misses as f64,
        r.tasks as f64,
        r.vertices_deformed as f64,
        r.triangle_tests as f64,
        r.hsc_fast_ms,
    ]
}

/// The stdout table: one row per animation.
fn summary_section(all: &[Measured]) -> Section {
    let header = [
        "animation",
        "triangles",
        "frames",
        "build s",
        "BN ms",
        "BN fast ms",
        "HSC ms",
        "HSC fast ms",
        "BVH ms",
        "x HSC",
        "x BVH",
        "pairs/frame",
        "false neg",
        "fast misses",
        "B/tri BN",
        "B/tri BVH",
    ];
    let rows = all
        .iter()
        .map(|m| {
            let (bn, hsc, bvh) = (
                m.mean(|r| r.bntree_ms),
                m.mean(|r| r.hsc_ms),
                m.mean(|r| r.bvh_ms),
            );
            vec![
                m.label.clone(),
                m.triangles.to_string(),
                m.frames.len().to_string(),
                format!("{:.2}", m.build_s),
                format!("{bn:.3}"),
                format!("{:.3}", m.mean(|r| r.bntree_fast_ms)),
                format!("{hsc:.3}"),
                format!("{:.3}", m.mean(|r| r.hsc_fast_ms)),
                format!("{bvh:.3}"),
                format!("{:.2}", hsc / bn),
                format!("{:.2}", bvh / bn),
                format!("{:.1}", m.mean(|r| r.reference_pairs as f64)),
                m.total(|r| r.false_negatives).to_string(),
                m.total(|r| r.fast_misses).to_string(),
                format!("{:.1}", m.bntree_bytes as f64 / m.triangles as f64),
                format!(
                    "{:.1}",
                    (m.bvh_route_bytes + m.model_bytes) as f64 / m.triangles as f64
                ),
            ]
        })
        .collect();
    Section {
        title: "per animation (times: mean over frames of the per-frame median over passes)".into(),
        header: header.map(String::from).to_vec(),
        rows,
    }
}

/// Fills the metrics from `headline` (times, bytes, contour share) and `all` (counts
/// summed over every animation of the scene).
fn report_metrics(
    report: &mut SceneReport,
    headline: &Measured,
    all: &[Measured],
    reference: &str,
) {
    let (bn, hsc, bvh) = (
        headline.mean(|r| r.bntree_ms),
        headline.mean(|r| r.hsc_ms),
        headline.mean(|r| r.bvh_ms),
    );
    let sum =
        |f: &dyn Fn(&FrameResult) -> usize| all.iter().map(|m| m.total(f)).sum::<usize>() as f64;
    report.metric(
        "triangles",
        headline.triangles as f64,
        format!("triangles of the mesh ({})", headline.label),
    );
    report.metric(
        "governors",
        headline.governors as f64,
        "governors of the deformation (bones, particles, control points)",
    );
    report.metric(
        "frames",
        headline.frames.len() as f64,
        "frames of the animation measured",
    );
    report.metric("false_negatives", sum(&|r| r.false_negatives), format!("pairs of the reference ({reference}) the conservative BN-Tree missed, all frames and animations (must be 0)"));
    report.metric(
        "false_positives",
        sum(&|r| r.false_positives),
        "pairs the conservative BN-Tree reported that the reference does not have (must be 0)",
    );
    report.metric(
        "fast_mode_misses",
        sum(&|r| r.fast_misses),
        "reference pairs missed by the fast mode (normal test only, the seed paper's), all frames",
    );
    report.metric(
        "hsc_mismatches",
        sum(&|r| r.hsc_mismatches),
        "pairs where the HSC baseline differs from the reference (must be 0)",
    );
    report.metric("bvh_refit_mismatches", sum(&|r| r.bvh_mismatches), "pairs where the BVH route differs from the reference (0; always 0 when it is the reference)");
    report.metric(
        "ms_per_frame_bntree",
        bn,
        "BN-Tree, conservative: mean over frames of the median over passes (ms)",
    );
    report.metric(
        "ms_per_frame_bntree_fast",
        headline.mean(|r| r.bntree_fast_ms),
        "BN-Tree, fast mode (ms)",
    );
    report.metric(
        "ms_per_frame_hsc",
        hsc,
        "HSC: bottom-up refit of every box and cone, same traversal, conservative (ms)",
    );
    let (bn_fast, hsc_fast) = (
        headline.mean(|r| r.bntree_fast_ms),
        headline.mean(|r| r.hsc_fast_ms),
    );
    report.metric(
        "ms_per_frame_hsc_fast",
        hsc_fast,
        "HSC, normal test only (the seed paper's HSC: no contour test) (ms)",
    );
    report.metric(
        "speedup_vs_hsc_fast",
        hsc_fast / bn_fast,
        "ms_per_frame_hsc_fast / ms_per_frame_bntree_fast: the seed paper's comparison (Fig. 2-4), \
         neither method running the contour test",
    );
    report.metric(
        "ms_per_frame_bvh_refit",
        bvh,
        "deform every vertex + refit parry Bvh + self-BVTT + exact tests (ms)",
    );
    report.metric(
        "speedup_vs_hsc",
        hsc / bn,
        "ms_per_frame_hsc / ms_per_frame_bntree",
    );
    report.metric(
        "speedup_vs_bvh_refit",
        bvh / bn,
        "ms_per_frame_bvh_refit / ms_per_frame_bntree",
    );
    report.metric(
        "contour_test_share",
        headline.contour_share,
        "fraction of the conservative BN-Tree's query time spent in contour tests",
    );
    report.metric(
        "bytes_per_triangle",
        headline.bntree_bytes as f64 / headline.triangles as f64,
        "BN-Tree memory per triangle: tree (with its copies of the mesh and weights) + per-frame \
         query state",
    );
    report.metric(
        "bytes_per_triangle_bvh_refit",
        (headline.bvh_route_bytes + headline.model_bytes) as f64 / headline.triangles as f64,
        "the BVH route's memory per triangle: deformed vertices + parry Bvh + the deformation \
         model (mesh, rest positions, weights) it deforms from",
    );
    report.metric(
        "bytes_per_triangle_model",
        headline.model_bytes as f64 / headline.triangles as f64,
        "of which the deformation model (mesh, rest positions, weights), needed by every route",
    );
    report.metric(
        "reference_pairs_per_frame",
        headline.mean(|r| r.reference_pairs as f64),
        "mean self-colliding pairs per frame (reference)",
    );
}

/// Builds the frame table of one or several animations of equal frame count; the plot draws the
/// BN-Tree, HSC and BVH columns of `plotted`.
fn frame_table(
    all: &[Measured],
    extra: &[(&str, Vec<f64>)],
    plotted: usize,
) -> (FrameTable, Vec<usize>) {
    let mut columns = vec!["frame".to_string()];
    columns.extend(extra.iter().map(|(name, _)| name.to_string()));
    for m in all {
        let suffix = if all.len() > 1 {
            format!("_{}", m.label.replace(' ', ""))
        } else {
            String::new()
        };
        columns.extend(FRAME_COLUMNS.iter().map(|c| format!("{c}{suffix}")));
    }
    let n = all.iter().map(|m| m.frames.len()).max().unwrap_or(0);
    let rows = (0..n)
        .map(|f| {
            let mut row = vec![f as f64];
            row.extend(
                extra
                    .iter()
                    .map(|(_, v)| v.get(f).copied().unwrap_or(f64::NAN)),
            );
            for m in all {
                match m.frames.get(f) {
                    Some(r) => row.extend(frame_values(r)),
                    None => row.extend([f64::NAN; 13]),
                }
            }
            row
        })
        .collect();
    let base = 1 + extra.len() + plotted * FRAME_COLUMNS.len();
    (FrameTable { columns, rows }, vec![base, base + 1, base + 2])
}

fn plot(title: &str, series: Vec<usize>) -> PlotSpec {
    PlotSpec {
        title: title.to_string(),
        y_label: "ms per frame".to_string(),
        series,
        log_y: false,
    }
}

fn passes(quick: bool) -> usize {
    if quick { 1 } else { 3 }
}

fn reference_name(quick: bool) -> &'static str {
    if quick {
        "brute force"
    } else {
        "BVH refit route"
    }
}

/// Asset path inside this repository.
fn asset(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

// ---------------------------------------------------------------------------------------------
// The procedural cat.

fn cat_animation(gait: Gait, quick: bool) -> Animation {
    let resolution = if quick {
        CatResolution::Tiny
    } else {
        CatResolution::Full
    };
    let count = match (quick, gait) {
        (true, _) => 8,
        (false, Gait::Walk) => 120,
        (false, Gait::RunJump) => 144,
    };
    let mut cat = Cat::build(resolution).unwrap_or_else(|e| panic!("building the cat failed: {e}"));
    let poses = cat.frames(gait, count);
    let frames = poses
        .iter()
        .map(|world| {
            cat.skinning_mut()
                .set_bone_transforms(world)
                .unwrap_or_else(|e| panic!("invalid cat pose: {e}"));
            cat.skinning().governors().to_vec()
        })
        .collect();
    Animation {
        label: format!("{gait:?}").to_lowercase(),
        mesh: cat.mesh().clone(),
        rest: cat.skinning().rest_positions().to_vec(),
        weights: cat.skinning().weights().clone(),
        frames,
        point_rest: None,
    }
}

/// The report of a scene that measures one animation: the metrics, the summary table,
/// the per-frame table (with `extra` columns) and its chart titled `title`.
fn single_animation_report(
    scene: &'static str,
    m: &Measured,
    quick: bool,
    extra: &[(&str, Vec<f64>)],
    title: String,
) -> SceneReport {
    let mut report = SceneReport::new(scene);
    report_metrics(
        &mut report,
        m,
        std::slice::from_ref(m),
        reference_name(quick),
    );
    report
        .sections
        .push(summary_section(std::slice::from_ref(m)));
    let (table, series) = frame_table(std::slice::from_ref(m), extra, 0);
    report.frames = table;
    report.plot = Some(plot(&title, series));
    report
}

fn run_cat(scene: &'static str, gait: Gait, options: &RunOptions) -> SceneReport {
    let anim = cat_animation(gait, options.quick);
    let m = measure(&anim, passes(options.quick), options.quick);
    #[cfg(feature = "parallel")]
    if gait == Gait::Walk {
        let mut report = run_cat_report(scene, &anim, &m, options);
        parallel_speedup(&mut report, &anim, passes(options.quick));
        return report;
    }
    run_cat_report(scene, &anim, &m, options)
}

fn run_cat_report(
    scene: &'static str,
    anim: &Animation,
    m: &Measured,
    options: &RunOptions,
) -> SceneReport {
    single_animation_report(
        scene,
        m,
        options.quick,
        &[],
        format!(
            "cat {} ({} triangles, 40 bones): self-collision per frame",
            anim.label, m.triangles
        ),
    )
}

/// `parallel_speedup` (`parallel` feature): the conservative BN-Tree query of `anim` in a
/// one-thread and a two-thread rayon pool, one query each, interleaved frame by frame (the
/// order alternates), `passes` playbacks of the animation; the ratio of the medians over passes
/// of the mean ms/frame, with both pools' min–max in the note. Every frame's pairs and counters
/// (all but timings) must be equal: `parallel_mismatched_frames` counts those that are not.
#[cfg(feature = "parallel")]
fn parallel_speedup(report: &mut SceneReport, anim: &Animation, passes: usize) {
    use super::output::load_average;
    let anim = spatially_ordered(anim);
    let tree = build_tree(&anim);
    let pools = [1, 2].map(super::runner::rayon_pool);
    let load_before = load_average();
    let mut per_pass = [Vec::new(), Vec::new()];
    let (mut mismatched, mut parallel_frames, mut frames) = (0, 0, 0);
    let mut outs = [Vec::new(), Vec::new()];
    for pass in 0..passes {
        let mut queries = [
            SelfCollisionQuery::new(&tree),
            SelfCollisionQuery::new(&tree),
        ];
        let mut totals = [0.0f64; 2];
        for (f, governors) in anim.frames.iter().enumerate() {
            let mut stats = [None, None];
            for j in 0..2 {
                let k = (j + f + pass) % 2;
                let (query, out) = (&mut queries[k], &mut outs[k]);
                let s = Instant::now();
                let st = pools[k].install(|| {
                    query
                        .run(
                            &tree,
                            governors,
                            RefitPolicy::OnDemand,
                            CullingMode::Conservative,
                            out,
                        )
                        .expect("the governors match the tree")
                });
                totals[k] += ms(s);
                stats[k] = Some(st);
            }
            let [Some(one), Some(two)] = stats else {
                unreachable!("both pools ran")
            };
            let counters = |mut s: rapier3d_deform::bn_tree::SelfCollisionStats| {
                s.nanos = 0;
                s.contour_nanos = 0;
                s.refit_nanos = 0;
                s.parallel_tasks = 0;
                s
            };
            mismatched += (outs[0] != outs[1] || counters(one) != counters(two)) as usize;
            parallel_frames += (two.parallel_tasks > 0) as usize;
            frames += 1;
        }
        for (k, total) in totals.into_iter().enumerate() {
            per_pass[k].push(total / anim.frames.len().max(1) as f64);
        }
        eprintln!("  parallel pass {pass}: 1 thread vs 2 threads");
    }
    let load_after = load_average();
    let range = |v: &[f64]| {
        v.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            })
    };
    let (range_one, range_two) = (range(&per_pass[0]), range(&per_pass[1]));
    let [mut one, mut two] = per_pass;
    let (one, two) = (median(&mut one), median(&mut two));
    let load = match (load_before, load_after) {
        (Some(a), Some(b)) => format!("; 1-minute load {a:.2} before, {b:.2} after"),
        _ => String::new(),
    };
    report.metric(
        "parallel_speedup",
        one / two,
        format!(
            "conservative BN-Tree, ms/frame in a 1-thread rayon pool ({one:.3}, min–max {:.3}–{:.3}) / in a 2-thread pool ({two:.3}, {:.3}–{:.3}); medians over {passes} pass(es) of the mean over {} frames{load}",
            range_one.0,
            range_one.1,
            range_two.0,
            range_two.1,
            anim.frames.len()
        ),
    );
    report.metric(
        "parallel_mismatched_frames",
        mismatched as f64,
        "frames whose pairs or counters (all but timings) differ between the 1- and 2-thread pools (must be 0)",
    );
    report.metric(
        "parallel_route_share",
        parallel_frames as f64 / frames.max(1) as f64,
        "frames on which the 2-thread query handed tasks to rayon (those that refit every bound first; the others refit lazily on one thread)",
    );
}

/// `self_walk`: the procedural cat (~250k triangles, 40 bones) over one walk cycle; with the
/// `parallel` feature, also `parallel_speedup` (2 rayon threads over 1).
pub fn run_walk(options: &RunOptions) -> SceneReport {
    run_cat("self_walk", Gait::Walk, options)
}

/// `self_run`: the procedural cat over one run-and-jump cycle.
pub fn run_run(options: &RunOptions) -> SceneReport {
    run_cat("self_run", Gait::RunJump, options)
}

// ---------------------------------------------------------------------------------------------
// The Fox.

/// `self_fox`: the Khronos Fox, Loop-subdivided 4 times (147,456 triangles; 2 with `--quick`),
/// its Walk clip then its Run clip, sampled evenly over one cycle each.
pub fn run_fox(options: &RunOptions) -> SceneReport {
    let (levels, per_clip) = if options.quick { (2, 6) } else { (4, 60) };
    let mut fox = SubdividedFox::load(asset("skinned/Fox.glb"), levels)
        .unwrap_or_else(|e| panic!("loading the Fox failed: {e}"));
    let mut frames = Vec::new();
    let mut clip_column = Vec::new();
    for (c, name) in ["Walk", "Run"].iter().enumerate() {
        let clip = fox
            .clip(name)
            .unwrap_or_else(|| panic!("Fox.glb has no {name} clip"))
            .clone();
        for k in 0..per_clip {
            let t = clip.duration() * k as f32 / per_clip as f32;
            frames.push(fox.governors_at(&clip, t).unwrap_or_else(|e| panic!("{e}")));
            clip_column.push(c as f64);
        }
    }
    let anim = Animation {
        label: "walk+run".into(),
        mesh: fox.mesh().clone(),
        rest: fox.skinning().rest_positions().to_vec(),
        weights: fox.skinning().weights().clone(),
        frames,
        point_rest: None,
    };
    let m = measure(&anim, passes(options.quick), options.quick);
    single_animation_report(
        "self_fox",
        &m,
        options.quick,
        &[("clip", clip_column)],
        format!(
            "Fox, Loop x{levels} ({} triangles, 24 joints): Walk then Run",
            m.triangles
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// The cloth.

/// `self_cloth`: the 231-vertex mass-spring cloth, Loop-subdivided 2, 3 and 4 times (level 2
/// only, every 6th frame, with `--quick`). Headline metrics are those of the finest level; the
/// speed-ups of every level are reported too (the paper's Fig. 2-right).
pub fn run_cloth(options: &RunOptions) -> SceneReport {
    let (levels, stride): (&[u32], usize) = if options.quick {
        (&[2], 6)
    } else {
        (&[2, 3, 4], 1)
    };
    let anim =
        ClothAnimation::simulate(1, 180).unwrap_or_else(|e| panic!("cloth simulation failed: {e}"));
    let control_frames: Vec<&Vec<Vec3>> = anim.frames().iter().step_by(stride).collect();
    let mut all = Vec::new();
    for &level in levels {
        let mut fine = anim
            .subdivided(level)
            .unwrap_or_else(|e| panic!("subdividing the cloth failed: {e}"));
        let frames = control_frames
            .iter()
            .map(|points| {
                fine.set_control_points(points)
                    .unwrap_or_else(|e| panic!("{e}"));
                fine.governors().to_vec()
            })
            .collect();
        let a = Animation {
            label: format!("level {level}"),
            mesh: fine.mesh().clone(),
            rest: fine.rest_positions().to_vec(),
            weights: fine.weights().clone(),
            frames,
            point_rest: Some(fine.control_mesh().positions().to_vec()),
        };
        all.push(measure(&a, passes(options.quick), options.quick));
    }
    let headline = all.len() - 1;
    let mut report = SceneReport::new("self_cloth");
    report_metrics(
        &mut report,
        &all[headline],
        &all,
        reference_name(options.quick),
    );
    for m in &all {
        let (bn, hsc, bvh) = (
            m.mean(|r| r.bntree_ms),
            m.mean(|r| r.hsc_ms),
            m.mean(|r| r.bvh_ms),
        );
        let level = m.label.trim_start_matches("level ");
        let (name_hsc, name_bvh): (&'static str, &'static str) = match level {
            "2" => ("speedup_vs_hsc_level2", "speedup_vs_bvh_refit_level2"),
            "3" => ("speedup_vs_hsc_level3", "speedup_vs_bvh_refit_level3"),
            _ => ("speedup_vs_hsc_level4", "speedup_vs_bvh_refit_level4"),
        };
        report.metric(
            name_hsc,
            hsc / bn,
            format!("{}: {} triangles", m.label, m.triangles),
        );
        report.metric(
            name_bvh,
            bvh / bn,
            format!("{}: {} triangles", m.label, m.triangles),
        );
    }
    report.sections.push(summary_section(&all));
    let (table, series) = frame_table(&all, &[], headline);
    report.frames = table;
    report.plot = Some(plot(
        &format!(
            "cloth, Loop x{} ({} triangles, 231 control points)",
            levels[headline], all[headline].triangles
        ),
        series,
    ));
    report
}

// ---------------------------------------------------------------------------------------------
// The point-based teddy.

/// `self_teddy`: Spot subdivided once (23,424 triangles; not subdivided with `--quick`) under
/// point-based animation with 24 particles, one squash-and-head-back cycle.
pub fn run_teddy(options: &RunOptions) -> SceneReport {
    let (levels, count) = if options.quick { (0, 12) } else { (1, 120) };
    let mut teddy = Teddy::from_obj_file(asset("closed/spot.obj"), levels)
        .unwrap_or_else(|e| panic!("loading spot.obj failed: {e}"));
    let frames = (0..count)
        .map(|k| {
            teddy
                .pose(k as f32 / count as f32)
                .unwrap_or_else(|e| panic!("{e}"));
            teddy.animation().governors().to_vec()
        })
        .collect();
    let anim = Animation {
        label: "squash+head back".into(),
        mesh: teddy.mesh().clone(),
        rest: teddy.animation().rest_positions().to_vec(),
        weights: teddy.animation().weights().clone(),
        frames,
        point_rest: None,
    };
    let m = measure(&anim, passes(options.quick), options.quick);
    single_animation_report(
        "self_teddy",
        &m,
        options.quick,
        &[],
        format!("point-based Spot ({} triangles, 24 particles)", m.triangles),
    )
}

// ---------------------------------------------------------------------------------------------
// Rapier's soft-body self contacts as a peer.

/// `self_softbody`: Spot (5,856 triangles) as a Rapier 0.36 soft body, its surface embedded in
/// tetrahedra and squashed under a plate, stepped with and without Rapier's self contacts; the
/// self-contact world's frames go to the four routes above (the crate's governors: the tet
/// particles, the embedding's barycentric weights). `--quick`: fewer steps and frames.
pub fn run_softbody(options: &RunOptions) -> SceneReport {
    let (steps, record_every, cell) = if options.quick {
        (4, 2, 0.16)
    } else {
        (120, 2, 0.1)
    };
    let teddy = Teddy::from_obj_file(asset("closed/spot.obj"), 0)
        .unwrap_or_else(|e| panic!("loading spot.obj failed: {e}"));
    // Feet on the ground, 1 m tall.
    let mesh = teddy.mesh();
    let (lo, hi) = mesh
        .positions()
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let scale = 1.0 / (hi.y - lo.y);
    let lift = Vec3::new(-(lo.x + hi.x) * 0.5, -lo.y, -(lo.z + hi.z) * 0.5);
    let placed: Vec<Vec3> = mesh
        .positions()
        .iter()
        .map(|p| (*p + lift) * scale + Vec3::new(0.0, 0.01, 0.0))
        .collect();
    let placed =
        TriangleMesh::new(placed, mesh.triangles().to_vec()).unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let run = softbody_spot::simulate(&placed, 1.0, cell, steps, record_every);
    let simulated_s = start.elapsed().as_secs_f64();
    eprintln!(
        "  soft Spot: {} particles, {} steps in {simulated_s:.1} s, {} frames recorded",
        run.particles,
        steps,
        run.frames.len()
    );
    let anim = Animation {
        label: "soft Spot squashed".into(),
        mesh: run.mesh.clone(),
        rest: run.rest.clone(),
        weights: run.weights.clone(),
        frames: run.frames.clone(),
        point_rest: Some(run.particle_rest.clone()),
    };
    let m = measure(&anim, passes(options.quick), options.quick);
    let mut report = single_animation_report(
        "self_softbody",
        &m,
        options.quick,
        &[],
        format!(
            "soft-body Spot ({} triangles, {} particles)",
            m.triangles, run.particles
        ),
    );
    let mut on: Vec<f64> = run.step_ms.iter().map(|s| s.0).collect();
    let mut off: Vec<f64> = run.step_ms.iter().map(|s| s.1).collect();
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let (mean_on, mean_off) = (mean(&on), mean(&off));
    let rapier_self = mean_on - mean_off;
    let bn = m.mean(|r| r.bntree_ms);
    report.metric(
        "particles",
        run.particles as f64,
        format!(
            "soft body particles (tetrahedra of {} cm in a 1 m Spot)",
            cell * 100.0
        ),
    );
    report.metric(
        "ms_per_step_softbody_self_contacts",
        mean_on,
        format!(
            "Rapier step with self contacts, mean over {steps} steps (median {:.3})",
            median(&mut on)
        ),
    );
    report.metric(
        "ms_per_step_softbody_no_self_contacts",
        mean_off,
        format!(
            "the same body without self contacts (median {:.3})",
            median(&mut off)
        ),
    );
    report.metric(
        "ms_rapier_self_contacts",
        rapier_self,
        "the difference: Rapier's self-contact passes per step (with their solver work once the surface folds)",
    );
    report.metric(
        "speedup_vs_rapier_self_contacts",
        rapier_self / bn,
        "ms_rapier_self_contacts / ms_per_frame_bntree (the crate's conservative query on the same surface and motion)",
    );
    report.metric(
        "embedding_clamped_vertices",
        run.clamped_vertices as f64,
        "skin vertices with a negative barycentric weight, clamped for the crate's convex weights",
    );
    report.metric(
        "embedding_max_error",
        run.max_embedding_error as f64,
        "largest distance (m) between Rapier's skin vertex and the crate's convex re-embedding, over the recorded frames",
    );
    report
}
