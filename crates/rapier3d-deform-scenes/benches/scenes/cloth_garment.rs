//! Scene `cloth_garment`: the MakeHuman sportsuit on a walking body derived from it, its collision stage through the per-bone avatar boxes against a deforming `TriMesh`, the BN-Tree mesh shape and brute force on the same cloth state, and its self-collision.
//!
//! The avatar is the suit moved 12 mm inward and closed ([`SuitBody`]: the turned hems left
//! out, the midriff bridged, stubs at the neck, sleeves and ankles), Loop-subdivided zero, one
//! and two times (3,664, 14,656 and 58,624 triangles; zero with `--quick`), skinned to seven
//! procedural bones walking in place. The cloth is the suit itself (1,797 vertices, 3,436
//! triangles) pinned along its openings ([`Sportsuit`]: each pinned vertex carried by the skin
//! weights of its nearest skin vertex), stepped at 60 Hz with 8 substeps, friction 0.5 against
//! the skin. The avatar's cells hold 4 triangles, as the skirt's. What each frame measures is
//! [`super::garment`]'s.

use super::garment::{self, Garment, Labels};
use super::runner::{RunOptions, SceneReport};
use rapier3d_deform::avatar::AvatarOptions;
use rapier3d_deform::cloth::ClothOptions;
use rapier3d_deform_scenes::sportsuit::{Sportsuit, SuitBody};

/// Cells of 4 triangles, as for the skirt.
const AVATAR_OPTIONS: AvatarOptions = AvatarOptions {
    triangles_per_slab: 4,
    min_slabs: 1,
    max_slabs: 256,
};

fn build(level: u32) -> Garment {
    let body = SuitBody::load(level).unwrap_or_else(|e| panic!("{e}"));
    let g0 = body.governors_at(0.0);
    let suit =
        Sportsuit::new(&body, &g0, ClothOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    Garment {
        mesh: body.mesh().clone(),
        rest: body.rest_positions().to_vec(),
        weights: body.weights().clone(),
        cloth: suit.cloth,
        carriers: suit.carriers,
        governors_at: Box::new(move |t| body.governors_at(t)),
        avatar_options: AVATAR_OPTIONS,
        thresholds: Sportsuit::thresholds(),
    }
}

/// Runs the scene.
pub fn run(options: &RunOptions) -> SceneReport {
    let (levels, frames): (&[u32], usize) = if options.quick {
        (&[0], 24)
    } else {
        (&[0, 1, 2], 72)
    };
    let labels = Labels {
        scene: "cloth_garment",
        cloth: "1797-vertex sportsuit".into(),
        layout: "the MakeHuman female_sportsuit01, 3,436 triangles, pinned along its 7 openings"
            .into(),
        avatar: "the walking body derived from it".into(),
        progress: "sportsuit body, Loop x".into(),
    };
    garment::run(levels, frames, &labels, build)
}
