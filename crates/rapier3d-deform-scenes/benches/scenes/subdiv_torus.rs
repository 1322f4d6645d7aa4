//! Scene `subdiv_torus`: a genus-3 Loop control mesh (a frame, a cross bar and a bridge over it) whose bridge is pushed down through the bar until the two tubes cross in the centre (Grinspun & Schröder 2001, Fig. 11); self-interference on the limit surface at three tolerances, each against the BN-Tree on the level-k mesh that resolves it.
//!
//! Per frame (push 0 → 1, 10 frames; 3 frames and the two coarser tolerances with `--quick`) and
//! tolerance, interleaved in alternating order, the two routes of `subdiv_limit::run_tolerances`;
//! the bound checks on the first, middle and last frames; every level-k crossing covered by a
//! reported pair of control patches (`level_k_pairs_uncovered`).

use super::runner::{RunOptions, SceneReport};
use super::subdiv_limit::{ToleranceScene, run_tolerances};
use rapier3d_deform_scenes::subdiv::{TORUS_TOLERANCES, push_bridge, torus_cage};

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let scene = ToleranceScene {
        name: "subdiv_torus",
        what: "three-handled torus, bridge pushed through the cross bar",
        cage_note: "one Loop step of the voxel boundary of a 7 × 7 frame, a cross bar and a \
                    bridge (genus 3, cells 0.5)",
        cage: torus_cage(),
        pose: &push_bridge,
        max_push: 1.0,
        frames: (10, 3),
        tolerances: &TORUS_TOLERANCES,
        quick_tolerances: 2,
    };
    run_tolerances(&scene, options.quick)
}
