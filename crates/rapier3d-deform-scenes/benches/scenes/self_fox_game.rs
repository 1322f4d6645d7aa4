//! Scene `self_fox_game`: self-collision of a game-size character — the Fox as shipped (576 triangles) and Loop-subdivided once and twice (2,304 and 9,216) — BN-Tree presets against brute force, frame by frame.
//!
//! Every frame of the Fox's Walk and Run clips (30 samples each; 6 with `--quick`) runs, interleaved
//! in rotating order: the conservative BN-Tree query on a tree built with
//! `BnTreeOptions::SELF_COLLISION` and with `BnTreeOptions::COLLIDER`, the HSC baseline
//! (bottom-up refit every frame), and brute force (skin every vertex, then a sort-and-sweep over
//! triangle boxes with exact triangle tests: `validation::self_collisions_brute_force`), and the
//! query's own sweep route (`SelfCollisionQuery::run_sweep`, allocation-free). Times are
//! medians over frames of each route's frame, pose included. Every route's pairs are compared with
//! brute force on every frame. Pairs that intersect in the bind pose (the Fox's ears and legs
//! touch its body at rest) are counted apart as `rest_pairs`.

use super::output::load_average;
use super::runner::{RunOptions, SceneReport, Section, median};
use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery,
};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::fox::SubdividedFox;
use std::time::Instant;

/// Route names, in column order.
const ROUTES: [&str; 5] = [
    "bntree_self",
    "bntree_collider",
    "hsc",
    "brute_force",
    "sweep",
];

struct Level {
    triangles: usize,
    ms: [Vec<f64>; 5],
    false_negatives: [usize; 4],
    pairs: usize,
    rest_pairs: usize,
    frames: usize,
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
    let trees = [BnTreeOptions::SELF_COLLISION, BnTreeOptions::COLLIDER].map(|options| {
        BnTree::build_with(&mesh, &rest, &weights, options).unwrap_or_else(|e| panic!("{e}"))
    });
    let frames = fox
        .clip_frames(&["Walk", "Run"], per_clip)
        .unwrap_or_else(|e| panic!("{e}"));
    let rest_pairs = self_collisions_brute_force(&mesh, &rest)
        .unwrap_or_else(|e| panic!("{e}"))
        .len();
    let mut queries = [
        SelfCollisionQuery::new(&trees[0]),
        SelfCollisionQuery::new(&trees[1]),
        SelfCollisionQuery::new(&trees[0]),
    ];
    let mut sweep_query = SelfCollisionQuery::new(&trees[1]);
    let mut outs: [Vec<[u32; 2]>; 5] = Default::default();
    let mut posed = Vec::new();
    let mut level = Level {
        triangles: mesh.triangle_count(),
        ms: Default::default(),
        false_negatives: [0; 4],
        pairs: 0,
        rest_pairs,
        frames: frames.len(),
    };
    for (f, governors) in frames.iter().enumerate() {
        for k in 0..5 {
            let route = (k + f) % 5;
            let start = Instant::now();
            match route {
                0..=2 => {
                    let (tree, policy) = match route {
                        0 => (&trees[0], RefitPolicy::OnDemand),
                        1 => (&trees[1], RefitPolicy::OnDemand),
                        _ => (&trees[0], RefitPolicy::BottomUpEveryFrame),
                    };
                    queries[route]
                        .run(
                            tree,
                            governors,
                            policy,
                            CullingMode::Conservative,
                            &mut outs[route],
                        )
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                4 => {
                    sweep_query
                        .run_sweep(&trees[1], governors, &mut outs[4])
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                _ => {
                    deform_vertices(&rest, &weights, governors, &mut posed);
                    outs[3] = self_collisions_brute_force(&mesh, &posed)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
            level.ms[route].push(start.elapsed().as_secs_f64() * 1e3);
        }
        level.pairs += outs[3].len();
        for (slot, route) in [0, 1, 2, 4].into_iter().enumerate() {
            level.false_negatives[slot] += outs[3]
                .iter()
                .filter(|p| outs[route].binary_search(p).is_err())
                .count();
        }
    }
    level
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let per_clip = if options.quick { 6 } else { 30 };
    let load_before = load_average();
    let measured: Vec<Level> = [0u32, 1, 2]
        .iter()
        .map(|&l| {
            eprintln!("  Fox, Loop x{l}");
            measure(l, per_clip)
        })
        .collect();
    let mut report = SceneReport::new("self_fox_game");
    let mut header = vec!["triangles".to_string()];
    header.extend(ROUTES.iter().map(|r| format!("{r} ms")));
    header.extend(
        [
            "x brute (self)",
            "pairs/frame",
            "rest pairs",
            "false neg self/collider/hsc/sweep",
        ]
        .map(String::from),
    );
    let mut section = Section {
        title: "Fox Walk + Run, conservative queries: ms per frame (median over frames, min–max)"
            .into(),
        header,
        rows: Vec::new(),
    };
    let mut medians = Vec::new();
    for l in &measured {
        let mut ms = l.ms.clone();
        let cells: Vec<(f64, String)> = ms
            .iter_mut()
            .map(|xs| {
                let lo = xs.iter().copied().fold(f64::MAX, f64::min);
                let hi = xs.iter().copied().fold(f64::MIN, f64::max);
                let m = median(xs);
                (m, format!("{m:.3} ({lo:.3}–{hi:.3})"))
            })
            .collect();
        let m: Vec<f64> = cells.iter().map(|c| c.0).collect();
        let mut row = vec![l.triangles.to_string()];
        row.extend(cells.into_iter().map(|c| c.1));
        row.push(format!("{:.2}", m[3] / m[0]));
        row.push(format!("{:.1}", l.pairs as f64 / l.frames as f64));
        row.push(l.rest_pairs.to_string());
        row.push(
            l.false_negatives
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("/"),
        );
        section.rows.push(row);
        medians.push(m);
    }
    report.sections.push(section);
    let names: [(&'static str, &'static str); 3] = [
        ("ms_per_frame_bntree_576", "speedup_vs_brute_force_576"),
        ("ms_per_frame_bntree_2k", "speedup_vs_brute_force_2k"),
        ("ms_per_frame_bntree", "speedup_vs_brute_force"),
    ];
    for ((ms_name, speedup_name), (l, m)) in names.iter().zip(measured.iter().zip(&medians)) {
        let target = if l.triangles > 5000 {
            "target ≤ 0.3"
        } else {
            "report"
        };
        report.metric(
            ms_name,
            m[0],
            format!("{} triangles, SELF_COLLISION preset; {target}", l.triangles),
        );
        report.metric(
            speedup_name,
            m[3] / m[0],
            format!("{} triangles; target ≥ 5 at 2.3k and 9.2k", l.triangles),
        );
    }
    let last = &medians[medians.len() - 1];
    report.metric("ms_per_frame_collider_preset", last[1], "9.2k triangles");
    report.metric("ms_per_frame_hsc", last[2], "9.2k triangles");
    report.metric("ms_per_frame_brute_force", last[3], "9.2k triangles");
    let first = &medians[0];
    report.metric(
        "ms_per_frame_sweep_576",
        first[4],
        "576 triangles: SelfCollisionQuery::run_sweep, the route below SWEEP_BELOW_TRIANGLES",
    );
    report.metric(
        "speedup_sweep_vs_bntree_576",
        first[0] / first[4],
        "576 triangles",
    );
    report.metric(
        "false_negatives",
        measured
            .iter()
            .map(|l| l.false_negatives.iter().sum::<usize>())
            .sum::<usize>() as f64,
        "every route, level and frame vs brute force",
    );
    report.metric(
        "rest_pairs",
        measured[measured.len() - 1].rest_pairs as f64,
        "pairs intersecting in the bind pose, 9.2k triangles",
    );
    if let (Some(a), Some(b)) = (load_before, load_average()) {
        report.metric("load_average", 0.5 * (a + b), "1-minute, before and after");
    }
    report
}
