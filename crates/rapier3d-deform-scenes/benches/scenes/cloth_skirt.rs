//! Scene `cloth_skirt`: an XPBD skirt on the walking RiggedFigure, its collision stage through the per-bone avatar boxes against a deforming `TriMesh`, the BN-Tree mesh shape and brute force on the same cloth state, and its self-collision.
//!
//! The avatar is Khronos' RiggedFigure Loop-subdivided twice, three and four times (4,096,
//! 16,384 and 65,536 triangles; once, 1,024, with `--quick`) walking in place (a procedural
//! clip on the legs, [`rapier3d_deform_scenes::skirt`]). The skirt is a flared cloth tube of
//! 64 × 24 vertices pinned at the waist ([`SkirtCloth`]), stepped at 60 Hz with 8 substeps. The
//! avatar's cells hold 4 triangles ([`AVATAR_OPTIONS`]). What each frame measures is
//! [`super::garment`]'s.

use super::garment::{self, Garment, Labels};
use super::runner::{RunOptions, SceneReport};
use rapier3d_deform::avatar::AvatarOptions;
use rapier3d_deform::cloth::{ClothOptions, ContactThresholds};
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};

/// Vertices around and along the skirt.
const AROUND: usize = 64;
const ALONG: usize = 24;
/// Cells of 4 triangles rather than the default 32 (tuned on the Fox): the skirt hugs the thighs,
/// and small cells keep the triangles read per cloth vertex low.
const AVATAR_OPTIONS: AvatarOptions = AvatarOptions {
    triangles_per_slab: 4,
    min_slabs: 1,
    max_slabs: 256,
};

fn build(level: u32) -> Garment {
    let mut figure = WalkingFigure::load(level).unwrap_or_else(|e| panic!("{e}"));
    let g0 = figure.governors_at(0.0).unwrap_or_else(|e| panic!("{e}"));
    let skirt = SkirtCloth::new(&figure, &g0, AROUND, ALONG, ClothOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    Garment {
        mesh: figure.mesh().clone(),
        rest: figure.skinning().rest_positions().to_vec(),
        weights: figure.skinning().weights().clone(),
        cloth: skirt.cloth,
        carriers: skirt.carriers,
        governors_at: Box::new(move |t| figure.governors_at(t).unwrap_or_else(|e| panic!("{e}"))),
        avatar_options: AVATAR_OPTIONS,
        thresholds: ContactThresholds::default(),
    }
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let (levels, frames): (&[u32], usize) = if options.quick {
        (&[1], 24)
    } else {
        (&[2, 3, 4], 72)
    };
    let labels = Labels {
        scene: "cloth_skirt",
        cloth: format!("{}-vertex skirt", AROUND * ALONG),
        layout: format!("{AROUND} around x {ALONG} along"),
        avatar: "the walking RiggedFigure".into(),
        progress: "RiggedFigure, Loop x".into(),
    };
    garment::run(levels, frames, &labels, build)
}
