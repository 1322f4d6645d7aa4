//! Asset loading: glTF 2.0 (skins, animations, morph targets) and Wavefront OBJ into the crate's deformers and meshes.
//!
//! | entry point | gives |
//! |---|---|
//! | [`load_gltf_scene`], [`load_gltf_scene_slice`] | a [`GltfScene`]: every mesh node of a scene (skinned, rigidly attached to a joint or an animated node, static) in one welded mesh governed by the joints and animated nodes, with morph targets ([`MorphDeltas`](crate::deformation::MorphDeltas)) applied before the skin |
//! | [`GltfContents::read`] | what a file holds: mesh nodes (triangles, skin, morph targets), skins, clips; printable |
//! | [`load_gltf`], [`load_gltf_slice`] | a [`GltfAsset`] (one mesh node): welded collision [`TriangleMesh`](crate::mesh::TriangleMesh), render mesh with its render-vertex → welded-vertex map, [`Skeleton`], [`LinearBlendSkinning`](crate::deformation::LinearBlendSkinning), [`MorphTargets`](crate::deformation::MorphTargets), [`AnimationClip`]s |
//! | [`load_obj`], [`load_obj_slice`] | an [`ObjAsset`]: welded [`TriangleMesh`](crate::mesh::TriangleMesh) and the OBJ-vertex → welded-vertex map |
//!
//! Every loader returns a [`LoadReport`] beside the asset (printable with `Display`: what was
//! loaded, every repair and warning, the file's [`GltfContents`]): it counts what was repaired
//! (renormalised weight rows, vertices bound to the skeleton root, dropped degenerate triangles,
//! skins without inverse bind matrices). Nothing is dropped or changed without being counted there.
//! [`LoadOptions::strict`] turns the repairs that change the artist's intent (zero-weight vertices,
//! missing inverse bind matrices) into errors.
//!
//! # Seams and welding
//! glTF (like every GPU format) splits a vertex wherever its normal or UV changes. The collision
//! mesh must not have those cracks, so render vertices are welded by position
//! ([`LoadOptions::weld_tolerance`]), triangles are re-indexed onto the welded vertices, and the
//! map render vertex → welded vertex is kept so that a renderer can read deformed positions back.
//! Triangles that become degenerate after welding (a repeated welded vertex, or an area below
//! `1e-12` times the squared bounding-box diagonal, the rule of
//! [`TriangleMesh::new`](crate::mesh::TriangleMesh::new)) are dropped from the collision mesh and
//! listed in [`LoadReport::dropped_triangles`]; the render triangles keep them.
//!
//! # Skins, animations, morph targets
//! Every `JOINTS_n`/`WEIGHTS_n` set is read (any number of influences; float or normalized
//! `u8`/`u16` weights). Governor `j` of the skinning is joint `j` of the skin and its transform is
//! `joint world × inverse bind` (glTF §3.7.3); [`Skeleton::world_transforms`] gives the joint
//! world transforms at any time of a clip, composed in `f64` from raw node TRS and keyframes
//! (LINEAR with slerp, STEP, CUBICSPLINE). Morph targets become
//! [`MorphTargets`](crate::deformation::MorphTargets) (`base + Σ wᵢ Δᵢ`, position deltas) with the
//! node's or mesh's default weights; animated weights come from
//! [`AnimationClip::morph_weights_into`].
//!
//! # Which glTF mesh is loaded
//! [`load_gltf_scene`] loads every mesh node of the default scene (else the first scene), or
//! those of [`LoadOptions::nodes`] (by index or name); [`GltfScene`] documents the governor
//! of each kind of part. A character made of several meshes, a node-animated model
//! (wheels on a truck, a Kenney character) and a morph-only mesh all load this way.
//!
//! [`load_gltf`] loads one mesh: [`LoadOptions::mesh_node`] picks a node; by default the first
//! node with a mesh and a skin, otherwise the only node with a mesh, otherwise every mesh node
//! of the default scene merged in scene space, unanimated. All primitives of the chosen mesh(es)
//! are merged into one mesh. See [`MeshSpace`].
//!
//! # glTF 2.0 sections
//! §3.5 scenes and node hierarchy (§3.5.2 transformations, composed in f64), §3.7.2 meshes and
//! primitive modes (§3.7.2.1), §3.7.2.2 morph targets, §3.7.3 skins (joint matrices, weights
//! normalised), §3.11 animations, appendix C interpolation (LINEAR with slerp, STEP,
//! CUBICSPLINE).

mod error;
mod gltf_accessor;
mod gltf_animation;
mod gltf_contents;
mod gltf_load;
mod gltf_mesh;
mod gltf_scene;
mod gltf_skin;
mod gltf_source;
mod obj;
mod report;
mod weld;

pub use error::LoadError;
pub use gltf_animation::{AnimationClip, Channel, Interpolation, Property, Sampler};
pub use gltf_contents::{ClipInfo, GltfContents, MeshNodeInfo, SkinInfo};
pub use gltf_load::{GltfAsset, MeshSpace, RenderMesh, load_gltf, load_gltf_slice};
pub use gltf_scene::{
    BoneKind, GltfScene, SceneBone, ScenePart, load_gltf_scene, load_gltf_scene_slice,
};
pub use gltf_skin::{NodeTransform, Skeleton, SkeletonScratch, Trs};
pub use obj::{ObjAsset, load_obj, load_obj_slice};
pub use report::{LoadOptions, LoadReport, NodeRef, NodeSelection};
