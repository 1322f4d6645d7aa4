//! Scene `subdiv_sphere`: a Loop sphere cage whose north cap is pushed down through its southern hemisphere, a partially everted sphere (Grinspun & Schröder 2001, Fig. 12); self-interference on the limit surface at three tolerances, each against the BN-Tree on the level-k mesh that resolves it.
//!
//! Per frame (push 0 → 2.4, 10 frames; 3 frames and the two coarser tolerances with `--quick`)
//! and tolerance, interleaved in alternating order, the two routes of
//! `subdiv_limit::run_tolerances`; the bound checks on the first, middle and last frames; every
//! level-k crossing covered by a reported pair of control patches (`level_k_pairs_uncovered`).

use super::runner::{RunOptions, SceneReport};
use super::subdiv_limit::{ToleranceScene, run_tolerances};
use rapier3d_deform_scenes::subdiv::{SPHERE_PUSH, SPHERE_TOLERANCES, evert_cap, sphere_cage};

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let scene = ToleranceScene {
        name: "subdiv_sphere",
        what: "partially everted sphere, north cap pushed through the south",
        cage_note: "an octahedron Loop-subdivided 3 times, projected to the unit sphere",
        cage: sphere_cage(3, 0.0),
        pose: &evert_cap,
        max_push: SPHERE_PUSH,
        frames: (10, 3),
        tolerances: &SPHERE_TOLERANCES,
        quick_tolerances: 2,
    };
    run_tolerances(&scene, options.quick)
}
