//! Criterion micro-benchmarks of single O(m) bound queries on the 40-bone cat: root AABB, node normal bound and cone, the limited-convex LP.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rapier3d_deform::bounds::{
    BoundsWorkspace, LimitedConvexWorkspace, PatchBounds, PatchHierarchy, limited_convex_bound,
};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::math::Interval;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
use std::hint::black_box;

/// The cat posed mid-walk, its hierarchy (16 triangles per leaf) and the skinning transforms.
struct Setup {
    cat: Cat,
    hierarchy: PatchHierarchy,
    governors: Vec<Affine>,
}

fn setup(resolution: CatResolution) -> Setup {
    let mut cat = Cat::build(resolution)
        .unwrap_or_else(|e| panic!("building the {resolution:?} cat failed: {e}"));
    let world = cat.pose(Gait::Walk, 0.3 * Gait::Walk.period());
    cat.skinning_mut()
        .set_bone_transforms(&world)
        .unwrap_or_else(|e| panic!("invalid cat pose: {e}"));
    let governors = cat.skinning().governors().to_vec();
    let hierarchy = PatchHierarchy::build(cat.mesh(), 16);
    Setup {
        cat,
        hierarchy,
        governors,
    }
}

fn bounds_of(s: &Setup, node: usize) -> PatchBounds {
    let skin = s.cat.skinning();
    PatchBounds::new(
        skin.rest_positions(),
        skin.weights(),
        s.cat.mesh(),
        s.hierarchy.node_triangles(node),
    )
}

/// First node at `depth` (the hierarchy stores children after their parents).
fn node_at_depth(s: &Setup, depth: u32) -> usize {
    s.hierarchy
        .nodes()
        .iter()
        .position(|n| n.depth == depth)
        .unwrap_or(0)
}

fn root_aabb(c: &mut Criterion) {
    let mut group = c.benchmark_group("root_aabb");
    for resolution in [CatResolution::Tiny, CatResolution::Full] {
        let s = setup(resolution);
        let root = bounds_of(&s, 0);
        let mut ws = BoundsWorkspace::default();
        let id = BenchmarkId::from_parameter(s.cat.mesh().triangle_count());
        group.bench_function(id, |b| {
            b.iter(|| root.aabb(black_box(&s.governors), &mut ws))
        });
    }
    group.finish();
}

fn node_normal_bound(c: &mut Criterion) {
    let s = setup(CatResolution::Full);
    let mut ws = BoundsWorkspace::default();
    let mut group = c.benchmark_group("node_normal_bound");
    for depth in [0, 4, 8, 12] {
        let node = node_at_depth(&s, depth);
        let bounds = bounds_of(&s, node);
        let id = BenchmarkId::new(format!("depth{depth}"), bounds.governor_count());
        group.bench_function(id, |b| {
            b.iter(|| bounds.normal_bound(black_box(&s.governors), &mut ws))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("node_normal_cone");
    for depth in [0, 8] {
        let bounds = bounds_of(&s, node_at_depth(&s, depth));
        let id = BenchmarkId::new(format!("depth{depth}"), bounds.governor_count());
        group.bench_function(id, |b| {
            b.iter(|| bounds.normal_cone(black_box(&s.governors), &mut ws))
        });
    }
    group.finish();
}

fn limited_convex_lp(c: &mut Criterion) {
    let mut group = c.benchmark_group("limited_convex_lp");
    for m in [4usize, 9, 40] {
        // Deterministic terms: weight ranges with Σ lo < 1 < Σ hi, spread values.
        let terms: Vec<(Interval, f32)> = (0..m)
            .map(|k| {
                let lo = 0.5 / m as f32 * ((k % 3) as f32 / 2.0);
                let hi = (lo + 2.0 / m as f32).min(1.0);
                let value = ((k * 7919) % 101) as f32 / 10.0 - 5.0;
                (Interval::new(lo, hi), value)
            })
            .collect();
        let mut ws = LimitedConvexWorkspace::default();
        group.bench_function(BenchmarkId::from_parameter(m), |b| {
            b.iter(|| limited_convex_bound(black_box(&terms).iter().copied(), &mut ws))
        });
    }
    group.finish();
}

criterion_group!(benches, root_aabb, node_normal_bound, limited_convex_lp);
criterion_main!(benches);
