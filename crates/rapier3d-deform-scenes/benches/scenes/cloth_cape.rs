//! Scene `cloth_cape`: an XPBD cape on the running Fox, its collision stage through the per-bone avatar boxes against a deforming `TriMesh`, the BN-Tree mesh shape and brute force on the same cloth state, and its self-collision.
//!
//! The avatar is the Khronos Fox in metres ([`RunningFox`]) Loop-subdivided once, twice and
//! three times (2,304, 9,216 and 36,864 triangles; once with `--quick`) playing its Run clip in
//! place. The cape is a 24 × 32 cloth rectangle laid over its back and pinned along the
//! shoulders ([`FoxCape`]: each pinned vertex carried by the skin weights of its nearest skin
//! vertex), stepped at 60 Hz with 8 substeps. The avatar's cells hold 4 triangles, as the
//! skirt's. What each frame measures is [`super::garment`]'s.

use super::garment::{self, Garment, Labels};
use super::runner::{RunOptions, SceneReport};
use rapier3d_deform::avatar::AvatarOptions;
use rapier3d_deform::cloth::ClothOptions;
use rapier3d_deform_scenes::cape::{FoxCape, RunningFox};

/// Vertices across and along the cape.
const ACROSS: usize = 24;
const ALONG: usize = 32;
/// Cells of 4 triangles, as for the skirt.
const AVATAR_OPTIONS: AvatarOptions = AvatarOptions {
    triangles_per_slab: 4,
    min_slabs: 1,
    max_slabs: 256,
};

fn build(level: u32) -> Garment {
    let mut fox = RunningFox::load(level).unwrap_or_else(|e| panic!("{e}"));
    let g0 = fox.governors_at(0.0).unwrap_or_else(|e| panic!("{e}"));
    let cape = FoxCape::new(&fox, &g0, ACROSS, ALONG, ClothOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    Garment {
        mesh: fox.mesh().clone(),
        rest: fox.rest_positions().to_vec(),
        weights: fox.weights().clone(),
        cloth: cape.cloth,
        carriers: cape.carriers,
        governors_at: Box::new(move |t| fox.governors_at(t).unwrap_or_else(|e| panic!("{e}"))),
        avatar_options: AVATAR_OPTIONS,
        thresholds: FoxCape::thresholds(),
    }
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let (levels, frames): (&[u32], usize) = if options.quick {
        (&[1], 24)
    } else {
        (&[1, 2, 3], 72)
    };
    let labels = Labels {
        scene: "cloth_cape",
        cloth: format!("{}-vertex cape", ACROSS * ALONG),
        layout: format!("{ACROSS} across x {ALONG} along"),
        avatar: "the running Fox".into(),
        progress: "Fox, Loop x".into(),
    };
    garment::run(levels, frames, &labels, build)
}
