//! Scene `bounds`: O(m) patch AABBs and normal cones of the 40-bone LBS cat against skinning every vertex.
//!
//! Over a walk and a run-and-jump cycle of the cat, for every node of a patch hierarchy:
//! containment of every skinned vertex in the node's O(m) AABB and of every deformed triangle
//! normal in its O(m) normal cone (counted as violations), tightness of the AABB against the exact
//! box of the skinned vertices, and agreement of the O(m) cone with the exact bottom-up cone.
//! Timings: the root AABB over a ~1k- and a ~1M-triangle mesh with the same rig (the cost must
//! not depend on the vertex count), and big nodes bounded in O(m) against skinning their
//! vertices and boxing them. Methods are timed interleaved, round by round, and medians reported.

use super::runner::{self, PlotSpec, RunOptions, SceneReport, Section, median, percentile};
use rapier3d_deform::bounds::{BoundsWorkspace, NormalCone, PatchBounds, PatchHierarchy};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation};
use rapier3d_deform::math::{Aabb, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::rapier3d::parry::glamx::{DMat3, DVec3};
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use std::hint::black_box;
use std::time::Instant;

/// Triangles per leaf of the patch hierarchy.
const LEAF_TRIANGLES: usize = 16;
/// Nodes with at least this many vertices are timed against skinning (issue 2).
const BIG_NODE_VERTICES: usize = 10_000;
/// Depths whose nodes enter the AABB volume ratio (issue 2: 3–10).
const VOLUME_DEPTHS: std::ops::RangeInclusive<u32> = 3..=10;
/// Timed samples of each root method per frame (the per-frame figure is their median).
const ROOT_FRAME_SAMPLES: usize = 9;
/// Target duration of one timed batch, in nanoseconds.
const BATCH_NS: f64 = 200_000.0;

/// Sizes of a run (`--quick` shrinks them).
struct Sizes {
    /// Cat checked node by node.
    main: CatResolution,
    /// Poses per gait cycle.
    frames_per_gait: usize,
    /// Timing rounds (each round times every method once, interleaved).
    rounds: usize,
    /// The small and the large mesh of the root-AABB cost comparison.
    small: CatResolution,
    large: CatResolution,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                main: CatResolution::Tiny,
                frames_per_gait: 3,
                rounds: 9,
                small: CatResolution::Tiny,
                large: CatResolution::Coarse,
            }
        } else {
            Self {
                main: CatResolution::Full,
                frames_per_gait: 32,
                rounds: 41,
                small: CatResolution::Tiny,
                large: CatResolution::Huge,
            }
        }
    }
}

/// Builds the cat (a failure here is a bug of the procedural asset, not of the bench input).
fn build_cat(resolution: CatResolution) -> Cat {
    Cat::build(resolution).unwrap_or_else(|e| panic!("building the {resolution:?} cat failed: {e}"))
}

/// A cat (mesh + skin), its hierarchy and the O(m) bound data of every node.
struct Patched {
    cat: Cat,
    hierarchy: PatchHierarchy,
    bounds: Vec<PatchBounds>,
}

impl Patched {
    fn new(resolution: CatResolution) -> Self {
        let cat = build_cat(resolution);
        let skin = cat.skinning();
        let mesh = cat.mesh();
        let hierarchy = PatchHierarchy::build(mesh, LEAF_TRIANGLES);
        let bounds = (0..hierarchy.nodes().len())
            .map(|i| {
                PatchBounds::new(
                    skin.rest_positions(),
                    skin.weights(),
                    mesh,
                    hierarchy.node_triangles(i),
                )
            })
            .collect();
        Self {
            cat,
            hierarchy,
            bounds,
        }
    }

    fn mesh(&self) -> &TriangleMesh {
        self.cat.mesh()
    }

    fn rest(&self) -> &[Vec3] {
        self.cat.skinning().rest_positions()
    }

    fn weights(&self) -> &ConvexWeights {
        self.cat.skinning().weights()
    }
}

/// The governors (skinning transforms) of the cat at phase `phase` ∈ [0, 1) of `gait`.
fn pose(cat: &mut Cat, gait: Gait, phase: f32) -> Vec<Affine> {
    let world = cat.pose(gait, phase * gait.period());
    if let Err(e) = cat.skinning_mut().set_bone_transforms(&world) {
        panic!("the cat rig produced an invalid pose ({e})");
    }
    cat.skinning().governors().to_vec()
}

/// Root AABB of one mesh: bound data over every triangle.
fn root_bounds(cat: &Cat) -> PatchBounds {
    let all: Vec<u32> = (0..cat.mesh().triangle_count() as u32).collect();
    let skin = cat.skinning();
    PatchBounds::new(skin.rest_positions(), skin.weights(), cat.mesh(), &all)
}

/// The reference the O(m) AABB replaces: skin every vertex of the patch and box it.
#[inline(never)]
fn skin_and_box(
    rest: &[Vec3],
    weights: &ConvexWeights,
    governors: &[Affine],
    vertices: &[u32],
) -> Aabb {
    let mut mins = Vec3::splat(f32::MAX);
    let mut maxs = Vec3::splat(f32::MIN);
    for &v in vertices {
        let p0 = rest[v as usize];
        let (gs, ws) = weights.row(v as usize);
        let mut p = Vec3::ZERO;
        for (&g, &w) in gs.iter().zip(ws) {
            p += w * governors[g as usize].transform_point(p0);
        }
        mins = mins.min(p);
        maxs = maxs.max(p);
    }
    Aabb::new(mins, maxs)
}

/// `p = Σ w (A p0 + t)` in f64 from the f32 inputs: the exact-arithmetic reference (to ~1e-16).
fn deform_f64(rest: &[Vec3], weights: &ConvexWeights, governors: &[Affine], out: &mut Vec<DVec3>) {
    let g64: Vec<(DMat3, DVec3)> = governors
        .iter()
        .map(|g| (g.linear.as_dmat3(), g.translation.as_dvec3()))
        .collect();
    out.clear();
    out.extend(rest.iter().enumerate().map(|(v, p0)| {
        let p0 = p0.as_dvec3();
        weights
            .iter_row(v)
            .map(|(g, w)| {
                let (a, t) = g64[g as usize];
                (a * p0 + t) * w as f64
            })
            .sum::<DVec3>()
    }));
}

fn volume(b: &Aabb) -> f64 {
    let e = (b.maxs - b.mins).as_dvec3();
    e.x * e.y * e.z
}

fn inside(b: &Aabb, p: DVec3) -> bool {
    let (lo, hi) = (b.mins.as_dvec3(), b.maxs.as_dvec3());
    lo.cmple(p).all() && p.cmple(hi).all()
}

/// Bits of the directions with a strictly positive dot product with `n`.
fn positive_bits(n: DVec3) -> u16 {
    let mut bits = 0u16;
    for (i, d) in NormalCone::DIRECTIONS.iter().enumerate() {
        if d.as_dvec3().dot(n) > 0.0 {
            bits |= 1 << i;
        }
    }
    bits
}

/// Per-depth statistics of the node-by-node checks.
#[derive(Default, Clone)]
struct DepthStats {
    nodes: usize,
    vertices: Vec<f64>,
    governors: Vec<f64>,
    volume_ratio: Vec<f64>,
    exact_nonempty: usize,
    bound_nonempty_too: usize,
    exact_dirs: f64,
    bound_dirs: f64,
}

/// One frame of the node-by-node checks.
struct FrameCheck {
    aabb_violations: u64,
    normal_violations: u64,
    all_nodes_bound_ns: f64,
    skin_all_ns: f64,
    volume_ratios: Vec<f64>,
    exact_nonempty: usize,
    agree: usize,
}

/// Checks every node of `p` under `governors`, accumulating per-depth figures.
fn check_frame(
    p: &Patched,
    governors: &[Affine],
    collect_volume: bool,
    depth_stats: &mut [DepthStats],
    scratch: &mut Scratch,
) -> FrameCheck {
    let mesh = p.mesh();
    let rest = p.rest();
    let weights = p.weights();
    // The two vertex evaluations the bounds must contain: the crate's f32 skinning and the f64
    // reference.
    let start = Instant::now();
    rapier3d_deform::governor::deform_vertices(rest, weights, governors, &mut scratch.p32);
    let skin_all_ns = start.elapsed().as_nanos() as f64;
    deform_f64(rest, weights, governors, &mut scratch.p64);
    // Per triangle, the directions strictly positive with its normal: f64 cross products of the
    // f32 skinned positions (the exact cone of the triangle as the crate evaluates it) and of the
    // f64 reference positions; a cone direction must be positive for both.
    scratch.ok_bits.clear();
    scratch.exact_bits.clear();
    for tri in mesh.triangles() {
        let [a, b, c] = tri.map(|v| scratch.p64[v as usize]);
        let n64 = (b - a).cross(c - a);
        let [a, b, c] = tri.map(|v| scratch.p32[v as usize].as_dvec3());
        let n32 = (b - a).cross(c - a);
        let exact = positive_bits(n32);
        scratch.exact_bits.push(exact);
        scratch.ok_bits.push(exact & positive_bits(n64));
    }

    let mut ws = BoundsWorkspace::default();
    let start = Instant::now();
    scratch.boxes.clear();
    scratch.cones.clear();
    for b in &p.bounds {
        scratch.boxes.push(b.aabb(governors, &mut ws));
        scratch.cones.push(b.normal_cone(governors, &mut ws));
    }
    let all_nodes_bound_ns = start.elapsed().as_nanos() as f64;

    let mut out = FrameCheck {
        aabb_violations: 0,
        normal_violations: 0,
        all_nodes_bound_ns,
        skin_all_ns,
        volume_ratios: Vec::new(),
        exact_nonempty: 0,
        agree: 0,
    };
    for (i, node) in p.hierarchy.nodes().iter().enumerate() {
        let bound = &scratch.boxes[i];
        let cone = scratch.cones[i];
        let stats = &mut depth_stats[node.depth as usize];
        let vertices = p.hierarchy.node_vertices(i);
        let mut mins = Vec3::splat(f32::MAX);
        let mut maxs = Vec3::splat(f32::MIN);
        for &v in vertices {
            let (q32, q64) = (scratch.p32[v as usize], scratch.p64[v as usize]);
            if !inside(bound, q32.as_dvec3()) || !inside(bound, q64) {
                out.aabb_violations += 1;
            }
            mins = mins.min(q32);
            maxs = maxs.max(q32);
        }
        if collect_volume && VOLUME_DEPTHS.contains(&node.depth) {
            let exact = volume(&Aabb::new(mins, maxs));
            if exact > 0.0 {
                let r = volume(bound) / exact;
                out.volume_ratios.push(r);
                stats.volume_ratio.push(r);
            }
        }
        let mut exact = NormalCone::ALL.0;
        for &t in p.hierarchy.node_triangles(i) {
            if cone.0 & !scratch.ok_bits[t as usize] != 0 {
                out.normal_violations += 1;
            }
            exact &= scratch.exact_bits[t as usize];
        }
        let exact = NormalCone(exact);
        stats.nodes += 1;
        stats.vertices.push(vertices.len() as f64);
        stats.governors.push(p.bounds[i].governor_count() as f64);
        stats.exact_dirs += exact.count() as f64;
        stats.bound_dirs += cone.count() as f64;
        if !exact.is_empty() {
            out.exact_nonempty += 1;
            stats.exact_nonempty += 1;
            if !cone.is_empty() {
                out.agree += 1;
                stats.bound_nonempty_too += 1;
            }
        }
    }
    out
}

/// Reused per-frame buffers.
#[derive(Default)]
struct Scratch {
    p32: Vec<Vec3>,
    p64: Vec<DVec3>,
    ok_bits: Vec<u16>,
    exact_bits: Vec<u16>,
    boxes: Vec<Aabb>,
    cones: Vec<NormalCone>,
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let sizes = Sizes::new(options.quick);
    let mut report = SceneReport::new("bounds");

    // ---- Node-by-node checks on the main cat, over both gaits. ----
    let t0 = Instant::now();
    let mut main = Patched::new(sizes.main);
    eprintln!(
        "  main cat: {} triangles, {} vertices, {} bones, {} nodes (built in {:.1} s)",
        main.mesh().triangle_count(),
        main.mesh().vertex_count(),
        main.cat.skinning().bone_count(),
        main.hierarchy.nodes().len(),
        t0.elapsed().as_secs_f64()
    );
    let max_depth = main
        .hierarchy
        .nodes()
        .iter()
        .map(|n| n.depth)
        .max()
        .unwrap_or(0);
    let mut depth_stats = vec![DepthStats::default(); max_depth as usize + 1];
    let mut scratch = Scratch::default();
    let mut aabb_violations = 0u64;
    let mut normal_violations = 0u64;
    let mut volume_ratios = Vec::new();
    let (mut exact_nonempty, mut agree) = (0usize, 0usize);
    let mut poses: Vec<(Gait, f32, Vec<Affine>)> = Vec::new();
    for gait in [Gait::Walk, Gait::RunJump] {
        for f in 0..sizes.frames_per_gait {
            let t = f as f32 / sizes.frames_per_gait as f32;
            let governors = pose(&mut main.cat, gait, t);
            poses.push((gait, t, governors));
        }
    }

    // Root of the main cat: O(m) bound against skinning every vertex, per frame (the chart).
    let root = &main.bounds[0];
    let all_vertices: Vec<u32> = (0..main.mesh().vertex_count() as u32).collect();
    let mut ws = BoundsWorkspace::default();
    let root_reps = runner::calibrate(BATCH_NS, || root.aabb(&poses[0].2, &mut ws));

    report.frames.columns = [
        "frame",
        "gait",
        "phase",
        "root_aabb_ns",
        "root_skin_and_box_ns",
        "all_nodes_aabb_and_cone_ns",
        "skin_all_vertices_ns",
        "aabb_violations",
        "normal_violations",
        "aabb_volume_ratio_median",
        "normal_cone_agreement",
    ]
    .map(String::from)
    .to_vec();
    for (frame, (gait, t, governors)) in poses.iter().enumerate() {
        let walk = matches!(gait, Gait::Walk);
        let check = check_frame(&main, governors, walk, &mut depth_stats, &mut scratch);
        let mut bound_ns = Vec::new();
        let mut skin_ns = Vec::new();
        for _ in 0..ROOT_FRAME_SAMPLES {
            bound_ns.push(runner::time_per_call(root_reps, || {
                root.aabb(black_box(governors), &mut ws)
            }));
            skin_ns.push(runner::time_per_call(1, || {
                skin_and_box(
                    main.rest(),
                    main.weights(),
                    black_box(governors),
                    &all_vertices,
                )
            }));
        }
        aabb_violations += check.aabb_violations;
        normal_violations += check.normal_violations;
        exact_nonempty += check.exact_nonempty;
        agree += check.agree;
        let mut frame_ratios = check.volume_ratios.clone();
        volume_ratios.extend_from_slice(&check.volume_ratios);
        report.frames.rows.push(vec![
            frame as f64,
            if walk { 0.0 } else { 1.0 },
            *t as f64,
            median(&mut bound_ns),
            median(&mut skin_ns),
            check.all_nodes_bound_ns,
            check.skin_all_ns,
            check.aabb_violations as f64,
            check.normal_violations as f64,
            median(&mut frame_ratios),
            check.agree as f64 / check.exact_nonempty.max(1) as f64,
        ]);
    }

    // ---- Big nodes: O(m) AABB against skinning their vertices and boxing them. ----
    let big: Vec<usize> = (0..main.hierarchy.nodes().len())
        .filter(|&i| main.hierarchy.node_vertices(i).len() >= BIG_NODE_VERTICES)
        .collect();
    let mut speedups = Vec::new();
    let mut big_bound_ns = Vec::new();
    let mut big_skin_ns = Vec::new();
    for &i in &big {
        let vertices = main.hierarchy.node_vertices(i);
        let b = &main.bounds[i];
        let reps = runner::calibrate(BATCH_NS, || b.aabb(&poses[0].2, &mut ws));
        let skin_reps = runner::calibrate(BATCH_NS, || {
            skin_and_box(main.rest(), main.weights(), &poses[0].2, vertices)
        });
        let (mut bn, mut sn) = (Vec::new(), Vec::new());
        for r in 0..sizes.rounds {
            let governors = &poses[r % poses.len()].2;
            bn.push(runner::time_per_call(reps, || {
                b.aabb(black_box(governors), &mut ws)
            }));
            sn.push(runner::time_per_call(skin_reps, || {
                skin_and_box(main.rest(), main.weights(), black_box(governors), vertices)
            }));
        }
        let (bm, sm) = (median(&mut bn), median(&mut sn));
        speedups.push(sm / bm);
        big_bound_ns.push(bm);
        big_skin_ns.push(sm);
    }

    // ---- Root AABB cost over a ~1k- and a ~1M-triangle mesh with the same rig. ----
    let t0 = Instant::now();
    let mut small_cat = build_cat(sizes.small);
    let small_root = root_bounds(&small_cat);
    let mut large_cat = build_cat(sizes.large);
    let large_root = root_bounds(&large_cat);
    eprintln!(
        "  root-cost meshes: {} and {} triangles (built in {:.1} s)",
        small_cat.mesh().triangle_count(),
        large_cat.mesh().triangle_count(),
        t0.elapsed().as_secs_f64()
    );
    let small_poses: Vec<Vec<Affine>> = poses
        .iter()
        .map(|(g, t, _)| pose(&mut small_cat, *g, *t))
        .collect();
    let large_poses: Vec<Vec<Affine>> = poses
        .iter()
        .map(|(g, t, _)| pose(&mut large_cat, *g, *t))
        .collect();
    let reps = runner::calibrate(BATCH_NS, || small_root.aabb(&small_poses[0], &mut ws));
    let (mut ns_small, mut ns_large) = (Vec::new(), Vec::new());
    for r in 0..sizes.rounds * 4 {
        let k = r % poses.len();
        ns_small.push(runner::time_per_call(reps, || {
            small_root.aabb(black_box(&small_poses[k]), &mut ws)
        }));
        ns_large.push(runner::time_per_call(reps, || {
            large_root.aabb(black_box(&large_poses[k]), &mut ws)
        }));
    }
    let root_1k = median(&mut ns_small);
    let root_1m = median(&mut ns_large);

    // ---- Metrics. ----
    let frames = poses.len();
    report.metric(
        "aabb_violations",
        aabb_violations as f64,
        "vertices (f32 skinned or f64 exact) outside their node's O(m) AABB, all nodes, all poses",
    );
    report.metric(
        "normal_violations",
        normal_violations as f64,
        "(node, triangle) pairs whose deformed normal has dot <= 0 with a direction of the O(m) cone",
    );
    report.metric(
        "root_aabb_ns_1k",
        root_1k,
        format!(
            "root AABB, {} triangles, {} governors",
            small_cat.mesh().triangle_count(),
            small_root.governor_count()
        ),
    );
    report.metric(
        "root_aabb_ns_1m",
        root_1m,
        format!(
            "root AABB, {} triangles, {} governors",
            large_cat.mesh().triangle_count(),
            large_root.governor_count()
        ),
    );
    report.metric(
        "root_aabb_ratio_1m_1k",
        root_1m / root_1k,
        "root_aabb_ns_1m / root_aabb_ns_1k (should be <= 1.5)",
    );
    report.metric(
        "root_aabb_triangles_1k",
        small_cat.mesh().triangle_count() as f64,
        "triangles of the small mesh",
    );
    report.metric(
        "root_aabb_triangles_1m",
        large_cat.mesh().triangle_count() as f64,
        "triangles of the large mesh",
    );
    let (mut sp, mut bb, mut sk) = (speedups.clone(), big_bound_ns.clone(), big_skin_ns.clone());
    report.metric(
        "node_aabb_speedup_vs_skinning",
        median(&mut sp),
        format!("median over {} nodes of >= {BIG_NODE_VERTICES} vertices: skin+box time / O(m) AABB time", big.len()),
    );
    report.metric(
        "node_aabb_big_nodes",
        big.len() as f64,
        "nodes timed for the speed-up",
    );
    report.metric(
        "node_aabb_ns_median",
        median(&mut bb),
        "O(m) AABB of those nodes (ns)",
    );
    report.metric(
        "node_skinning_ns_median",
        median(&mut sk),
        "skin + box of those nodes (ns)",
    );
    let mut vr = volume_ratios.clone();
    report.metric(
        "aabb_volume_ratio_median",
        median(&mut vr),
        format!(
            "bound / exact AABB volume, depths {}-{}, walk poses",
            VOLUME_DEPTHS.start(),
            VOLUME_DEPTHS.end()
        ),
    );
    report.metric(
        "aabb_volume_ratio_p90",
        percentile(&mut vr, 0.9),
        "90th percentile of the same",
    );
    report.metric(
        "normal_cone_agreement",
        agree as f64 / exact_nonempty.max(1) as f64,
        "fraction of nodes with a non-empty exact cone whose O(m) cone is non-empty",
    );
    report.metric(
        "triangles",
        main.mesh().triangle_count() as f64,
        "triangles of the checked cat",
    );
    report.metric(
        "governors",
        main.cat.skinning().bone_count() as f64,
        "bones (governors) of the rig",
    );
    report.metric(
        "frames",
        frames as f64,
        "poses checked (walk + run-and-jump)",
    );
    report.metric(
        "hierarchy_nodes",
        main.hierarchy.nodes().len() as f64,
        format!("nodes, {LEAF_TRIANGLES} triangles per leaf"),
    );

    // ---- Per-depth breakdown. ----
    let mut section = Section {
        title: "per depth (all poses)".to_string(),
        header: [
            "depth",
            "nodes",
            "vertices (median)",
            "governors (median)",
            "volume ratio (median)",
            "exact cone non-empty",
            "O(m) cone non-empty too",
            "directions exact/O(m)",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (d, s) in depth_stats.iter_mut().enumerate() {
        if s.nodes == 0 {
            continue;
        }
        let n = s.nodes as f64;
        section.rows.push(vec![
            d.to_string(),
            (s.nodes / frames.max(1)).to_string(),
            format!("{:.0}", median(&mut s.vertices)),
            format!("{:.0}", median(&mut s.governors)),
            if s.volume_ratio.is_empty() {
                "-".to_string()
            } else {
                format!("{:.3}", median(&mut s.volume_ratio))
            },
            format!("{:.3}", s.exact_nonempty as f64 / n),
            if s.exact_nonempty == 0 {
                "-".to_string()
            } else {
                format!(
                    "{:.3}",
                    s.bound_nonempty_too as f64 / s.exact_nonempty as f64
                )
            },
            format!("{:.2}/{:.2}", s.exact_dirs / n, s.bound_dirs / n),
        ]);
    }
    report.sections.push(section);

    report.plot = Some(PlotSpec {
        title: format!(
            "Root AABB of the {}-triangle cat: O(m) bound vs skinning every vertex",
            main.mesh().triangle_count()
        ),
        y_label: "time per frame (ns, log)".to_string(),
        series: vec![3, 4],
        log_y: true,
    });
    report
}
