//! Runs the `self_fox_game` benchmark's BN-Tree query (conservative, `SELF_COLLISION` tree) on the Fox at one Loop level, repeatedly, through one `#[inline(never)]` function, for `valgrind --tool=callgrind` instruction counts and `perf` profiles; first prints how much of the mesh moves rigidly (one governor per vertex).
//!
//! `cargo run --release --example fox_game_profile [levels] [rounds]` (defaults 2 and 5): loads
//! the Fox Loop-subdivided `levels` times, prints the share of vertices, triangles and tree
//! nodes governed by one governor alone, then runs `rounds` passes over the 60 frames of the
//! Walk and Run clips (30 samples each) and prints the wall time per query and the summed
//! counters. Under callgrind:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no \
//!   --toggle-collect='fox_game_profile::query' \
//!   target/release/examples/fox_game_profile 2 1
//! ```
//!
//! gives the instructions per query as the inclusive cost of `query` divided by 60.

use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery, SelfCollisionStats,
};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform_scenes::fox::SubdividedFox;
use std::time::Instant;

#[inline(never)]
fn query(
    tree: &BnTree,
    q: &mut SelfCollisionQuery,
    governors: &[Affine],
    out: &mut Vec<[u32; 2]>,
) -> SelfCollisionStats {
    q.run(
        tree,
        governors,
        RefitPolicy::OnDemand,
        CullingMode::Conservative,
        out,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let levels: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mut fox = SubdividedFox::load(
        rapier3d_deform_scenes::asset_path("skinned/Fox.glb"),
        levels,
    )
    .unwrap_or_else(|e| panic!("loading the Fox failed: {e}"));
    let mesh = fox.mesh().clone();
    let rest = fox.skinning().rest_positions().to_vec();
    let weights = fox.skinning().weights().clone();
    let tree = BnTree::build_with(&mesh, &rest, &weights, BnTreeOptions::SELF_COLLISION)
        .unwrap_or_else(|e| panic!("{e}"));
    // One governor per vertex: `Some(g)` when the row's only positive weight is on `g`.
    let single: Vec<Option<u32>> = (0..rest.len())
        .map(|v| {
            let (g, w) = weights.row(v);
            let mut it = g.iter().zip(w).filter(|(_, w)| **w > 0.0);
            match (it.next(), it.next()) {
                (Some((&g, _)), None) => Some(g),
                _ => None,
            }
        })
        .collect();
    let rigid_vertices = single.iter().filter(|s| s.is_some()).count();
    let triangle_governor = |t: u32| {
        let [a, b, c] = mesh.triangles()[t as usize].map(|v| single[v as usize]);
        match (a, b, c) {
            (Some(a), Some(b), Some(c)) if a == b && b == c => Some(a),
            _ => None,
        }
    };
    let rigid_triangles = (0..mesh.triangle_count() as u32)
        .filter(|&t| triangle_governor(t).is_some())
        .count();
    let node_governor = |i: usize| {
        let tris = tree.node_triangles(i);
        let g = triangle_governor(tris[0])?;
        tris.iter()
            .all(|&t| triangle_governor(t) == Some(g))
            .then_some(g)
    };
    let nodes = tree.nodes();
    let rigid_nodes: Vec<bool> = (0..nodes.len())
        .map(|i| node_governor(i).is_some())
        .collect();
    let rigid_node_triangles: u32 = (0..nodes.len())
        .filter(|&i| {
            rigid_nodes[i]
                && (nodes[i].parent == u32::MAX || !rigid_nodes[nodes[i].parent as usize])
        })
        .map(|i| nodes[i].count)
        .sum();
    println!(
        "Fox x{levels}: {} triangles, {} vertices, {} governors, max influences {}",
        mesh.triangle_count(),
        rest.len(),
        weights.governor_count(),
        weights.max_influences()
    );
    println!(
        "  one-governor vertices {:.1} %, triangles {:.1} %, nodes {} of {} ({:.1} % of triangles under a maximal one-governor node)",
        100.0 * rigid_vertices as f64 / rest.len() as f64,
        100.0 * rigid_triangles as f64 / mesh.triangle_count() as f64,
        rigid_nodes.iter().filter(|r| **r).count(),
        nodes.len(),
        100.0 * rigid_node_triangles as f64 / mesh.triangle_count() as f64,
    );
    let frames = fox
        .clip_frames(&["Walk", "Run"], 30)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut q = SelfCollisionQuery::new(&tree);
    let mut out = Vec::new();
    let mut sum = SelfCollisionStats::default();
    let start = Instant::now();
    let mut queries = 0;
    for _ in 0..rounds {
        for g in &frames {
            let s = query(&tree, &mut q, g, &mut out);
            queries += 1;
            sum.tasks += s.tasks;
            sum.self_tasks += s.self_tasks;
            sum.adjacent_tasks += s.adjacent_tasks;
            sum.disjoint_tasks += s.disjoint_tasks;
            sum.pruned_by_normals += s.pruned_by_normals;
            sum.pruned_by_boxes += s.pruned_by_boxes;
            sum.governor_cones += s.governor_cones;
            sum.governor_aabbs += s.governor_aabbs;
            sum.vertices_deformed += s.vertices_deformed;
            sum.triangles_refit += s.triangles_refit;
            sum.contour_tests += s.contour_tests;
            sum.contour_failures += s.contour_failures;
            sum.contour_pinched += s.contour_pinched;
            sum.contour_nanos += s.contour_nanos;
            sum.triangle_tests += s.triangle_tests;
            sum.pairs += s.pairs;
            sum.refit_nanos += s.refit_nanos;
        }
    }
    let n = queries.max(1) as f64;
    println!(
        "  {:.3} ms per query over {queries} queries",
        start.elapsed().as_secs_f64() * 1e3 / n
    );
    println!(
        "  per query: tasks {:.0} (self {:.0}, adjacent {:.0}, disjoint {:.0}), pruned by normals {:.0}, by boxes {:.0}, O(m) cones {:.1}, O(m) boxes {:.1}, vertices deformed {:.0}, triangles refit {:.0}, contour tests {:.1} ({:.1} failed, {:.1} pinched, {:.3} ms), triangle tests {:.0}, pairs {:.1}",
        sum.tasks as f64 / n,
        sum.self_tasks as f64 / n,
        sum.adjacent_tasks as f64 / n,
        sum.disjoint_tasks as f64 / n,
        sum.pruned_by_normals as f64 / n,
        sum.pruned_by_boxes as f64 / n,
        sum.governor_cones as f64 / n,
        sum.governor_aabbs as f64 / n,
        sum.vertices_deformed as f64 / n,
        sum.triangles_refit as f64 / n,
        sum.contour_tests as f64 / n,
        sum.contour_failures as f64 / n,
        sum.contour_pinched as f64 / n,
        sum.contour_nanos as f64 / n / 1e6,
        sum.triangle_tests as f64 / n,
        sum.pairs as f64 / n,
    );
}
