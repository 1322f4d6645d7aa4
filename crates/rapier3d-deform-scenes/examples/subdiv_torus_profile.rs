//! Runs the `subdiv_torus` benchmark's limit-surface query at one push and tolerance, repeatedly, through one `#[inline(never)]` function, for `perf` profiles and `valgrind --tool=callgrind` instruction counts.
//!
//! `cargo run --release --example subdiv_torus_profile [push] [tolerance] [queries]` (defaults 0,
//! 0.2 and 20): poses the genus-3 cage of the benchmark ([`torus_cage`], [`push_bridge`]) at
//! `push` and at `push + 0.01`, runs one untimed query (eigen tables), then `queries` queries
//! alternating between the two poses, each `set_control_points` + `detect_self` with the
//! benchmark's oracle ([`EdgeTolerance`] up to the level that resolves the tolerance), through
//! `limit_query`, and prints the wall time per query, the last query's counters and its regions by
//! topology. With
//! `level_k`, the same queries run the benchmark's other route instead (the BN-Tree
//! self-collision query on the level-k Loop mesh, conservative, posing included) through
//! `level_k_query`.

use rapier3d_deform::limit_surface::{LimitHierarchy, LimitInterferenceQuery, RegionTopology};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::subdiv::{
    EdgeTolerance, LevelKRoute, level_resolving, push_bridge, torus_cage,
};
use std::time::Instant;

/// The BN-Tree route of the benchmark (posing included); returns the pair count.
#[inline(never)]
fn level_k_query(route: &mut LevelKRoute, pairs: &mut Vec<[u32; 2]>, posed: &[Vec3]) -> usize {
    route.detect(posed, pairs).unwrap_or_else(|e| panic!("{e}"));
    pairs.len()
}

/// The untimed first query (eigen tables), outside the profiled function.
#[inline(never)]
fn warm_up(
    hierarchy: &mut LimitHierarchy,
    query: &mut LimitInterferenceQuery,
    oracle: &mut EdgeTolerance,
    posed: &[Vec3],
) {
    run(hierarchy, query, oracle, posed);
}

/// The limit route of the benchmark; returns the region count.
#[inline(never)]
fn limit_query(
    hierarchy: &mut LimitHierarchy,
    query: &mut LimitInterferenceQuery,
    oracle: &mut EdgeTolerance,
    posed: &[Vec3],
) -> usize {
    run(hierarchy, query, oracle, posed)
}

#[inline(always)]
fn run(
    hierarchy: &mut LimitHierarchy,
    query: &mut LimitInterferenceQuery,
    oracle: &mut EdgeTolerance,
    posed: &[Vec3],
) -> usize {
    hierarchy
        .set_control_points(posed)
        .unwrap_or_else(|e| panic!("{e}"));
    query
        .detect_self(hierarchy, oracle)
        .unwrap_or_else(|e| panic!("{e}"))
        .regions
        .len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let push: f32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0.0);
    let tolerance: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0.2);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let level_k = args.any(|a| a == "level_k");
    let cage = torus_cage();
    let k = level_resolving(&cage, tolerance, 5);
    let poses = [
        push_bridge(cage.positions(), push),
        push_bridge(cage.positions(), push + 0.01),
    ];
    if level_k {
        let mut route = LevelKRoute::new(&cage, k).unwrap_or_else(|e| panic!("{e}"));
        let mut pairs = Vec::new();
        let start = Instant::now();
        let mut count = 0;
        for q in 0..queries {
            count = level_k_query(&mut route, &mut pairs, &poses[q % 2]);
        }
        let ms = start.elapsed().as_secs_f64() * 1e3 / queries.max(1) as f64;
        println!("push {push}: level-{k} BN-Tree {ms:.3} ms/query, {count} pairs");
        return;
    }
    let mut hierarchy = LimitHierarchy::new(&cage).unwrap_or_else(|e| panic!("{e}"));
    let mut query = LimitInterferenceQuery::new();
    let mut oracle = EdgeTolerance {
        tolerance,
        max_depth: k,
    };
    warm_up(&mut hierarchy, &mut query, &mut oracle, &poses[1]);
    let start = Instant::now();
    let mut regions = 0;
    for q in 0..queries {
        regions = limit_query(&mut hierarchy, &mut query, &mut oracle, &poses[q % 2]);
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / queries.max(1) as f64;
    let s = query.result().stats;
    let count = |t: RegionTopology| {
        query
            .result()
            .regions
            .iter()
            .filter(|r| r.topology == t)
            .count()
    };
    println!(
        "regions by topology: {} adjacent, {} sharing a corner, {} disjoint",
        count(RegionTopology::Adjacent),
        count(RegionTopology::SharedCorner),
        count(RegionTopology::Disjoint)
    );
    println!(
        "push {push}, tolerance {tolerance} (level {k}): {ms:.3} ms/query, {regions} regions, {} \
         interfering, {} unresolved self; nodes tested {}, pair tests {}, patch bounds {}, \
         patches entered {}, sub-patches {}",
        query.result().interfering().count(),
        query.result().unresolved_self.len(),
        s.nodes_tested,
        s.pair_tests,
        s.patch_bounds_computed,
        s.patches_entered,
        s.subpatches_created
    );
}
