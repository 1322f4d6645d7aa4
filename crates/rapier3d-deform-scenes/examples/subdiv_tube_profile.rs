//! Runs the `subdiv_tube` benchmark's limit-surface query on one bend angle, repeatedly, through one `#[inline(never)]` function, for `valgrind --tool=callgrind` instruction counts and `perf` profiles per frame class (flat frames before the legs meet, folded frames after).
//!
//! `cargo run --release --example subdiv_tube_profile [angle_deg] [queries] [all]` (defaults 60°
//! and 20): poses the capsule cage of the benchmark at `angle_deg` and at `angle_deg + 0.5°`, runs
//! one untimed query (eigen tables), then `queries` queries alternating between the two poses,
//! each `set_control_points` + `detect_self` with the benchmark's oracle (refine while a control
//! edge exceeds 0.03, at most 4 steps), through `limit_query`, and prints the wall time per query
//! and the last query's counters. As in the benchmark, the bend leaves the control points before
//! the bend (`x ≤ 1.6`) in place; with `all`, the second pose is also shifted by 10⁻⁴ along `z`,
//! so that every control point moves every query. With `level_k`, the same queries run the
//! benchmark's other route instead (the BN-Tree self-collision query on the level-4 Loop mesh,
//! `SelfCollisionQuery::run_by_mesh_size`, conservative, posing included) through
//! `level_k_query`. Under callgrind:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no \
//!   --toggle-collect='subdiv_tube_profile::limit_query' \
//!   target/release/examples/subdiv_tube_profile 60 3
//! ```
//!
//! gives the instructions per query as the inclusive cost of `limit_query` (or `level_k_query`)
//! divided by the count.

use rapier3d_deform::limit_surface::{LimitHierarchy, LimitInterferenceQuery, SubPatchView};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::subdiv::{LevelKRoute, bend, tube_cage};
use std::time::Instant;

const RADIUS: f32 = 0.5;
const TOLERANCE: f64 = 0.03;
const LEVEL: u32 = 4;

fn edge_above(points: &[[f64; 3]], tolerance: f64) -> bool {
    (0..3).any(|c| {
        let (a, b) = (points[c], points[(c + 1) % 3]);
        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() > tolerance
    })
}

/// The BN-Tree route of the benchmark (posing included); returns the pair count.
#[inline(never)]
fn level_k_query(route: &mut LevelKRoute, pairs: &mut Vec<[u32; 2]>, posed: &[Vec3]) -> usize {
    route.detect(posed, pairs).unwrap_or_else(|e| panic!("{e}"));
    pairs.len()
}

/// The untimed first query (eigen tables), outside the profiled function.
#[inline(never)]
fn warm_up(hierarchy: &mut LimitHierarchy, query: &mut LimitInterferenceQuery, posed: &[Vec3]) {
    run(hierarchy, query, posed);
}

#[inline(never)]
fn limit_query(
    hierarchy: &mut LimitHierarchy,
    query: &mut LimitInterferenceQuery,
    posed: &[Vec3],
) -> usize {
    run(hierarchy, query, posed)
}

#[inline(always)]
fn run(
    hierarchy: &mut LimitHierarchy,
    query: &mut LimitInterferenceQuery,
    posed: &[Vec3],
) -> usize {
    let mut oracle = |a: &SubPatchView<'_>, b: &SubPatchView<'_>| {
        a.sub.depth < LEVEL
            && (edge_above(a.control_points, TOLERANCE) || edge_above(b.control_points, TOLERANCE))
    };
    hierarchy
        .set_control_points(posed)
        .unwrap_or_else(|e| panic!("{e}"));
    query
        .detect_self(hierarchy, &mut oracle)
        .unwrap_or_else(|e| panic!("{e}"))
        .regions
        .len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let angle: f32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(60.0);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let rest: Vec<String> = args.collect();
    let all = rest.iter().any(|a| a == "all");
    let level_k = rest.iter().any(|a| a == "level_k");
    let cage = tube_cage(8, 8, RADIUS, 4.0);
    let pose = |deg: f32| {
        bend(
            cage.positions(),
            1.6,
            0.8 * RADIUS * std::f32::consts::PI,
            deg.to_radians(),
        )
    };
    let mut second = pose(angle + 0.5);
    if all {
        for p in &mut second {
            p.z += 1e-4;
        }
    }
    let poses = [pose(angle), second];
    if level_k {
        let mut route = LevelKRoute::new(&cage, LEVEL).unwrap_or_else(|e| panic!("{e}"));
        let mut pairs = Vec::new();
        let start = Instant::now();
        let mut count = 0;
        for q in 0..queries {
            count = level_k_query(&mut route, &mut pairs, &poses[q % 2]);
        }
        let ms = start.elapsed().as_secs_f64() * 1e3 / queries.max(1) as f64;
        println!("bend {angle}°: level-{LEVEL} BN-Tree {ms:.3} ms/query, {count} pairs");
        return;
    }
    let mut hierarchy = LimitHierarchy::new(&cage).unwrap_or_else(|e| panic!("{e}"));
    let mut query = LimitInterferenceQuery::new();
    warm_up(&mut hierarchy, &mut query, &poses[1]);
    let start = Instant::now();
    let mut regions = 0;
    for q in 0..queries {
        regions = limit_query(&mut hierarchy, &mut query, &poses[q % 2]);
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / queries.max(1) as f64;
    let s = query.result().stats;
    println!(
        "bend {angle}°{}: {ms:.3} ms/query, {regions} regions, {} interfering, {} unresolved self; \
         nodes tested {}, pair tests {}, patch bounds {}, patches entered {}, sub-patches {}",
        if all { " (every point moves)" } else { "" },
        query.result().interfering().count(),
        query.result().unresolved_self.len(),
        s.nodes_tested,
        s.pair_tests,
        s.patch_bounds_computed,
        s.patches_entered,
        s.subpatches_created
    );
}
