//! A real rig for self-collision: the Khronos Fox (`assets/skinned/Fox.glb`, 24 joints, Walk and Run clips) Loop-subdivided and skinned through the stencils.
//!
//! The Fox's welded collision mesh (576 triangles, closed) is Loop-subdivided (4 levels give
//! 147,456 triangles); its skin weights are pushed through the subdivision stencils
//! ([`LoopSubdivision::push_weights`]) and truncated to [`FOX_MAX_INFLUENCES`] per vertex, so the
//! fine mesh is skinned by the asset's own skeleton and animated by its own clips.

use std::path::Path;

use rapier3d_deform::deformation::{LinearBlendSkinning, LoopSubdivision};
use rapier3d_deform::error::DeformError;
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::io::{AnimationClip, GltfAsset, LoadError, LoadOptions, load_gltf};
use rapier3d_deform::mesh::TriangleMesh;

/// Largest number of bones influencing one vertex of the subdivided Fox.
pub const FOX_MAX_INFLUENCES: usize = 8;

/// The subdivided, skinned Fox and its loaded asset (skeleton and clips).
///
/// # Performance
/// [`SubdividedFox::governors_at`] is O(nodes + channels · log keyframes).
#[derive(Clone, Debug)]
pub struct SubdividedFox {
    asset: GltfAsset,
    mesh: TriangleMesh,
    skin: LinearBlendSkinning,
}

impl SubdividedFox {
    /// Loads a skinned glTF (the Fox: `assets/skinned/Fox.glb`) and subdivides its collision
    /// mesh `levels` times.
    ///
    /// # Errors
    /// The loader's [`LoadError`]s; [`LoadError::Deform`] wrapping
    /// [`DeformError::InvalidParameter`] when the file has no skin, or the errors of
    /// [`LoopSubdivision::new`] (non-manifold or inconsistently oriented mesh).
    ///
    /// # Performance
    /// Loading plus O(fine vertices · stencil width).
    pub fn load(path: impl AsRef<Path>, levels: u32) -> Result<Self, LoadError> {
        let (asset, _report) = load_gltf(path, &LoadOptions::default())?;
        let Some(coarse_skin) = asset.skinning.clone() else {
            return Err(DeformError::InvalidParameter {
                name: "skin",
                value: 0.0,
                reason: "the glTF node has no skin to push through the subdivision",
            }
            .into());
        };
        let subdivision = LoopSubdivision::new(asset.mesh.clone(), levels)?;
        let weights = subdivision
            .push_weights(coarse_skin.weights())?
            .truncated(FOX_MAX_INFLUENCES)?;
        let mesh = subdivision.mesh().clone();
        let skin = LinearBlendSkinning::new(
            mesh.positions().to_vec(),
            weights,
            coarse_skin.inverse_bind().to_vec(),
        )?;
        Ok(Self { asset, mesh, skin })
    }

    /// The subdivided rest mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The skin of the subdivided mesh (governors = the asset's joints).
    pub fn skinning(&self) -> &LinearBlendSkinning {
        &self.skin
    }

    /// The loaded asset (skeleton, clips, coarse mesh).
    pub fn asset(&self) -> &GltfAsset {
        &self.asset
    }

    /// The clip called `name` (the Fox has `Survey`, `Walk` and `Run`).
    pub fn clip(&self, name: &str) -> Option<&AnimationClip> {
        self.asset.clip(name)
    }

    /// The skinning governors (joint world · inverse bind) at time `t` of `clip`, looped.
    ///
    /// # Errors
    /// Not expected for a loaded asset; see [`LinearBlendSkinning::set_bone_transforms`].
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn governors_at(
        &mut self,
        clip: &AnimationClip,
        t: f32,
    ) -> rapier3d_deform::Result<Vec<Affine>> {
        let world = self
            .asset
            .skeleton
            .world_transforms(clip, clip.looped_time(t));
        self.skin.set_bone_transforms(&world)?;
        Ok(self.skin.governors().to_vec())
    }

    /// The governors of `per_clip` evenly spaced times over each clip of `clips` in turn (one
    /// cycle each, starting at 0): the frames of a benchmark or test animation.
    ///
    /// # Errors
    /// [`rapier3d_deform::DeformError::UnknownName`] for a clip the asset lacks; as
    /// [`Self::governors_at`].
    ///
    /// # Performance
    /// `clips.len() · per_clip` calls of [`Self::governors_at`].
    pub fn clip_frames(
        &mut self,
        clips: &[&str],
        per_clip: usize,
    ) -> rapier3d_deform::Result<Vec<Vec<Affine>>> {
        let mut frames = Vec::with_capacity(clips.len() * per_clip);
        for name in clips {
            let clip = self
                .clip(name)
                .ok_or_else(|| rapier3d_deform::DeformError::UnknownName {
                    what: "clip",
                    name: (*name).to_owned(),
                })?
                .clone();
            for k in 0..per_clip {
                let t = clip.duration() * k as f32 / per_clip as f32;
                frames.push(self.governors_at(&clip, t)?);
            }
        }
        Ok(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdf_mesh::ManifoldReport;
    use rapier3d_deform::governor::deform_vertices;

    fn fox(levels: u32) -> SubdividedFox {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/skinned/Fox.glb");
        SubdividedFox::load(path, levels).unwrap()
    }

    #[test]
    fn subdivided_fox_is_closed_skinned_and_animates() {
        let mut fox = fox(1);
        assert_eq!(fox.mesh().triangle_count(), 4 * 576);
        let report = ManifoldReport::of(fox.mesh().vertex_count(), fox.mesh().triangles()).unwrap();
        assert_eq!(
            (
                report.boundary_edges,
                report.non_manifold_edges,
                report.inconsistent_edges
            ),
            (0, 0, 0)
        );
        assert!(fox.skinning().weights().max_influences() <= FOX_MAX_INFLUENCES);
        assert_eq!(fox.skinning().bone_count(), 24);
        let (mins, maxs) = fox.mesh().bounds();
        let size = (maxs - mins).length();
        let mut moved = 0.0f32;
        for name in ["Walk", "Run"] {
            let clip = fox.clip(name).unwrap().clone();
            let governors = fox.governors_at(&clip, 0.3 * clip.duration()).unwrap();
            let mut posed = Vec::new();
            deform_vertices(
                fox.skinning().rest_positions(),
                fox.skinning().weights(),
                &governors,
                &mut posed,
            );
            assert!(posed.iter().all(|p| p.is_finite()));
            // The posed fox stays about its size (a sane rig), and differs from the rest pose.
            let (pmin, pmax) = posed
                .iter()
                .fold((posed[0], posed[0]), |(a, b), p| (a.min(*p), b.max(*p)));
            assert!((pmax - pmin).length() < 2.0 * size);
            moved = moved.max(
                posed
                    .iter()
                    .zip(fox.mesh().positions())
                    .map(|(p, r)| (*p - *r).length())
                    .fold(0.0, f32::max),
            );
        }
        assert!(moved > 0.01 * size);
    }
}
