//! Contract (`parallel` feature): a self-collision query run in rayon pools of 2 and 3 threads (and in rayon's global pool) reports, frame after frame, exactly the pairs and counters (all but timings) of the same query in a one-thread pool, in every policy and culling mode, on a crumpled 20k-triangle tube and on the 61k-triangle cat walking; the pairs equal the brute-force oracle's in conservative mode; the multi-threaded route really runs (tasks handed to rayon), and never on a mesh below `PARALLEL_MIN_TRIANGLES`.

use crate::common;

use common::*;
use rapier3d_deform::bn_tree::{
    BnTree, CullingMode, PARALLEL_MIN_TRIANGLES, RefitPolicy, SelfCollisionQuery,
    SelfCollisionStats,
};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};

const METHODS: [(RefitPolicy, CullingMode); 3] = [
    (RefitPolicy::OnDemand, CullingMode::Conservative),
    (RefitPolicy::OnDemand, CullingMode::Fast),
    (RefitPolicy::BottomUpEveryFrame, CullingMode::Conservative),
];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The counters, without the timings and the count of tasks handed to rayon.
fn counters(mut s: SelfCollisionStats) -> SelfCollisionStats {
    s.nanos = 0;
    s.contour_nanos = 0;
    s.refit_nanos = 0;
    s.parallel_tasks = 0;
    s
}

/// Where a query runs: a rayon pool of that many threads, or the global pool (`None`).
type Runner = Option<rayon::ThreadPool>;

fn on<R: Send>(runner: &Runner, f: impl FnOnce() -> R + Send) -> R {
    match runner {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Runs every method over `frames` with one query per runner (one-thread pool first) and
/// compares each runner's pairs and counters with the one-thread pool's, and the conservative
/// pairs with brute force. Returns the reference pairs in total and, per runner, the tasks
/// handed to rayon.
fn check_frames(
    name: &str,
    mesh: &TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
    frames: &[Vec<Affine>],
) -> (usize, [u64; 4]) {
    let tree = BnTree::build(mesh, rest, weights).unwrap();
    assert!(
        mesh.triangle_count() >= PARALLEL_MIN_TRIANGLES,
        "{name}: the mesh must be large enough for the parallel route"
    );
    let runners: [Runner; 4] = [Some(pool(1)), Some(pool(2)), Some(pool(3)), None];
    let mut total = 0;
    let mut handed = [0; 4];
    let mut positions = Vec::new();
    let expected: Vec<Vec<[u32; 2]>> = frames
        .iter()
        .map(|g| {
            deform_vertices(rest, weights, g, &mut positions);
            self_collisions_brute_force(mesh, &positions).unwrap()
        })
        .collect();
    for (policy, mode) in METHODS {
        let mut queries: Vec<SelfCollisionQuery> = runners
            .iter()
            .map(|_| SelfCollisionQuery::new(&tree))
            .collect();
        let mut outs = vec![Vec::new(); runners.len()];
        for (f, governors) in frames.iter().enumerate() {
            let mut reference = None;
            for (k, runner) in runners.iter().enumerate() {
                let (query, out) = (&mut queries[k], &mut outs[k]);
                let stats = on(runner, || {
                    query.run(&tree, governors, policy, mode, out).unwrap()
                });
                handed[k] += stats.parallel_tasks;
                match &reference {
                    None => reference = Some((counters(stats), out.clone())),
                    Some((s, pairs)) => {
                        assert_eq!(
                            out, pairs,
                            "{name} {policy:?} {mode:?} frame {f}: pairs of runner {k}"
                        );
                        assert_eq!(
                            counters(stats),
                            *s,
                            "{name} {policy:?} {mode:?} frame {f}: counters of runner {k}"
                        );
                    }
                }
            }
            if mode == CullingMode::Conservative {
                assert_eq!(outs[0], expected[f], "{name} {policy:?} frame {f}: oracle");
                total += expected[f].len();
            } else {
                assert!(
                    outs[0].iter().all(|p| expected[f].binary_search(p).is_ok()),
                    "{name}: fast mode reported a false pair"
                );
            }
        }
    }
    (total, handed)
}

/// A 20,560-triangle tube crumpled by 10 strongly posed bones: every frame after the first
/// reaches most of the mesh, so the query refits every bound first and may use every thread.
#[test]
fn crumpled_tube_equals_one_thread_and_brute_force() {
    let (length, bones) = (10.0, 10);
    let mesh = tube(length, 256, 40);
    let weights = tube_weights(&mesh, bones, length, 4);
    let mut r = rng(23);
    let frames: Vec<Vec<Affine>> = (0..10)
        .map(|_| {
            (0..bones)
                .map(|_| random_governor(&mut r, 0.6, 0.8))
                .collect()
        })
        .collect();
    let (pairs, handed) = check_frames("tube", &mesh, mesh.positions(), &weights, &frames);
    assert!(pairs > 1000, "the tube must self-intersect ({pairs} pairs)");
    assert_eq!(handed[0], 0, "a one-thread pool handed tasks to rayon");
    assert!(
        handed[1] > 0 && handed[2] > 0,
        "the 2- and 3-thread pools never took the parallel route: {handed:?}"
    );
}

/// The cat at 61k triangles (two Loop levels) over six frames of its walk and of its run and
/// jump.
#[test]
fn walking_cat_equals_one_thread_and_brute_force() {
    let mut cat = Cat::build(CatResolution::Medium).unwrap();
    let mut frames = Vec::new();
    for gait in Gait::ALL {
        for world in cat.frames(gait, 6) {
            cat.skinning_mut().set_bone_transforms(&world).unwrap();
            frames.push(cat.skinning().governors().to_vec());
        }
    }
    let skin = cat.skinning();
    let (pairs, handed) = check_frames(
        "cat",
        cat.mesh(),
        skin.rest_positions(),
        skin.weights(),
        &frames,
    );
    assert!(pairs > 0, "the cat should self-collide somewhere");
    assert_eq!(handed[0], 0, "a one-thread pool handed tasks to rayon");
    assert!(
        handed[1] > 0,
        "the 2-thread pool never took the parallel route"
    );
}

/// Below `PARALLEL_MIN_TRIANGLES` a query stays on its thread whatever the pool.
#[test]
fn small_meshes_stay_on_one_thread() {
    let (length, bones) = (10.0, 10);
    let mesh = tube(length, 40, 16);
    assert!(mesh.triangle_count() < PARALLEL_MIN_TRIANGLES);
    let weights = tube_weights(&mesh, bones, length, 4);
    let tree = BnTree::build(&mesh, mesh.positions(), &weights).unwrap();
    let mut r = rng(5);
    let two = pool(2);
    let mut query = SelfCollisionQuery::new(&tree);
    let mut out = Vec::new();
    let mut total = 0;
    for _ in 0..6 {
        let governors: Vec<Affine> = (0..bones)
            .map(|_| random_governor(&mut r, 0.6, 0.8))
            .collect();
        for (policy, mode) in METHODS {
            let stats = two.install(|| {
                query
                    .run(&tree, &governors, policy, mode, &mut out)
                    .unwrap()
            });
            assert_eq!(stats.parallel_tasks, 0, "{policy:?} {mode:?}");
            total += stats.tasks;
        }
    }
    assert!(total > 0);
}
