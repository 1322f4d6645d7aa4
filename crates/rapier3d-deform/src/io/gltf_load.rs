//! The glTF loader: picks the mesh node(s), merges primitives, welds seams, builds the skinning and reads the clips.

use std::path::Path;

use super::gltf_animation::{AnimationClip, read_clips};
use super::gltf_mesh::Merged;
use super::gltf_skin::{Skeleton, build_weights, read_inverse_binds};
use super::gltf_source::{GltfSource, read_path, read_slice};
use super::weld::weld;
use super::{LoadError, LoadOptions, LoadReport};
use crate::deformation::{LinearBlendSkinning, MorphTargets};
use crate::governor::ConvexWeights;
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// The space the loaded vertex positions live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshSpace {
    /// The skin's bind space. Skinning with joint world transforms
    /// ([`super::Skeleton::world_transforms`]) gives world positions; the mesh node's own
    /// transform is ignored, as the glTF specification requires for skinned meshes.
    Skinned,
    /// The local space of this node (an unskinned single mesh): world positions are its world
    /// transform ([`super::Skeleton::node_world_transforms`]) applied to them, e.g. as a
    /// collider's pose.
    Node(usize),
    /// Several mesh nodes merged, each baked with its rest world transform.
    Scene,
}

/// The render mesh as stored (vertices split at UV/normal seams), with its map onto the welded
/// collision mesh.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RenderMesh {
    /// Render vertex positions (merged primitives, in [`GltfAsset::space`]).
    pub positions: Vec<Vec3>,
    /// Render normals, when every merged primitive has them.
    pub normals: Option<Vec<Vec3>>,
    /// `TEXCOORD_0`, when every merged primitive has it.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// All render triangles (including those dropped from the collision mesh).
    pub triangles: Vec<[u32; 3]>,
    /// Render vertex → collision (welded) vertex.
    pub to_welded: Vec<u32>,
}

impl RenderMesh {
    /// Render-vertex positions read from deformed collision-vertex positions.
    ///
    /// # Errors
    /// [`crate::DeformError::LengthMismatch`] when a render vertex maps past `welded`.
    ///
    /// # Performance
    /// O(render vertices).
    pub fn gather_positions(&self, welded: &[Vec3], out: &mut Vec<Vec3>) -> crate::Result<()> {
        let needed = self
            .to_welded
            .iter()
            .map(|&w| w as usize + 1)
            .max()
            .unwrap_or(0);
        if welded.len() < needed {
            return Err(crate::DeformError::LengthMismatch {
                what: "welded positions",
                expected: needed,
                actual: welded.len(),
            });
        }
        out.clear();
        out.extend(self.to_welded.iter().map(|&w| welded[w as usize]));
        Ok(())
    }
}

/// A loaded glTF asset.
///
/// # Performance
/// Memory O(render vertices + welded vertices · (influences + morph targets) + keyframes).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GltfAsset {
    /// The collision mesh over welded vertices (rest pose).
    pub mesh: TriangleMesh,
    /// The render mesh and its render → welded map.
    pub render: RenderMesh,
    /// Where the positions live.
    pub space: MeshSpace,
    /// The node hierarchy and the skin's joints.
    pub skeleton: Skeleton,
    /// The node whose mesh was loaded (`None` when several were merged): the target of its
    /// animated morph weights ([`AnimationClip::morph_weights_into`]).
    pub mesh_node: Option<usize>,
    /// Linear blend skinning over the welded vertices (one governor per joint), when the loaded
    /// node has a skin. Its rest positions are the base shape (morph weights 0).
    pub skinning: Option<LinearBlendSkinning>,
    /// Morph targets over the welded vertices (`base + Σ wᵢ Δᵢ`), when the loaded mesh has them,
    /// with its weights set to [`GltfAsset::default_morph_weights`]. The base is
    /// [`GltfAsset::mesh`]'s positions. For a mesh that is both morphed and skinned, glTF applies
    /// the morph first; the crate's [`LinearBlendSkinning`] skins the base shape.
    pub morph: Option<MorphTargets>,
    /// The node's `weights`, else the mesh's, else zeros (one per morph target).
    pub default_morph_weights: Vec<f32>,
    /// Every animation of the file.
    pub clips: Vec<AnimationClip>,
}

impl GltfAsset {
    /// The first clip called `name`.
    ///
    /// # Performance
    /// O(clips).
    pub fn clip(&self, name: &str) -> Option<&AnimationClip> {
        self.clips.iter().find(|c| c.name() == Some(name))
    }
}

/// Loads a `.gltf` (with external or embedded buffers) or `.glb` file.
///
/// # Errors
/// Any [`LoadError`]: unreadable files, invalid glTF, buffers or accessors out of bounds,
/// mismatched accessor counts, non-finite data, unsupported primitive modes, missing inverse bind
/// matrices or zero-sum weights when strict, invalid hierarchies or animations.
///
/// # Performance
/// O(file size + V + T) expected (welding uses a hash grid).
pub fn load_gltf(
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<(GltfAsset, LoadReport), LoadError> {
    let src = read_path(path.as_ref())?;
    build(&src, options)
}

/// Loads a glTF from memory: a `.glb`, or a `.gltf` whose buffers are embedded as data URIs
/// (external files are an error).
///
/// # Errors
/// As [`load_gltf`].
///
/// # Performance
/// As [`load_gltf`].
pub fn load_gltf_slice(
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<(GltfAsset, LoadReport), LoadError> {
    let src = read_slice(bytes, None)?;
    build(&src, options)
}

/// Mesh nodes of the default scene (else the first scene, else every node), depth first.
fn scene_mesh_nodes(src: &GltfSource) -> Vec<usize> {
    let doc = &src.document;
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let mut out = Vec::new();
    match scene {
        Some(scene) => {
            let mut stack: Vec<gltf::Node<'_>> = scene.nodes().collect();
            stack.reverse();
            let mut seen = vec![false; doc.nodes().len()];
            while let Some(n) = stack.pop() {
                if std::mem::replace(&mut seen[n.index()], true) {
                    continue;
                }
                if n.mesh().is_some() {
                    out.push(n.index());
                }
                let mut children: Vec<_> = n.children().collect();
                children.reverse();
                stack.extend(children);
            }
        }
        None => out.extend(
            doc.nodes()
                .filter(|n| n.mesh().is_some())
                .map(|n| n.index()),
        ),
    }
    out
}

fn build(src: &GltfSource, options: &LoadOptions) -> Result<(GltfAsset, LoadReport), LoadError> {
    let mut report = LoadReport::default();
    let mut skeleton = Skeleton::from_document(src)?;
    let doc = &src.document;
    let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();

    // Which node(s).
    let all_mesh_nodes: Vec<usize> = nodes
        .iter()
        .filter(|n| n.mesh().is_some())
        .map(|n| n.index())
        .collect();
    let (selected, space) = match options.mesh_node {
        Some(i) => match nodes.get(i) {
            Some(n) if n.mesh().is_some() => (
                vec![i],
                if n.skin().is_some() {
                    MeshSpace::Skinned
                } else {
                    MeshSpace::Node(i)
                },
            ),
            _ => {
                return Err(LoadError::NoMesh {
                    reason: format!("node {i} does not exist or has no mesh"),
                });
            }
        },
        None => {
            if let Some(n) = nodes
                .iter()
                .find(|n| n.mesh().is_some() && n.skin().is_some())
            {
                (vec![n.index()], MeshSpace::Skinned)
            } else if all_mesh_nodes.len() == 1 {
                (all_mesh_nodes.clone(), MeshSpace::Node(all_mesh_nodes[0]))
            } else if all_mesh_nodes.is_empty() {
                return Err(LoadError::NoMesh {
                    reason: "the file has no node with a mesh".into(),
                });
            } else {
                let mut s = scene_mesh_nodes(src);
                if s.is_empty() {
                    s = all_mesh_nodes.clone();
                }
                (s, MeshSpace::Scene)
            }
        }
    };
    let ignored: Vec<usize> = all_mesh_nodes
        .iter()
        .copied()
        .filter(|i| !selected.contains(i))
        .collect();
    if !ignored.is_empty() {
        report.warnings.push(format!(
            "mesh nodes {ignored:?} are not loaded (select one with LoadOptions::mesh_node, or \
             load every mesh node with load_gltf_scene)"
        ));
    }

    // Merge primitives.
    let mut merged = Merged::default();
    let baked = space == MeshSpace::Scene;
    let rest_world = if baked {
        skeleton.rest_world_f64()
    } else {
        Vec::new()
    };
    let with_morphs = selected.len() == 1;
    for &i in &selected {
        let Some(mesh) = nodes[i].mesh() else {
            continue;
        };
        if !with_morphs && mesh.primitives().any(|p| p.morph_targets().len() > 0) {
            report.warnings.push(format!(
                "morph targets of mesh {} are not loaded: several mesh nodes are merged",
                mesh.index()
            ));
        }
        merged.append_mesh(
            src,
            &mesh,
            baked.then(|| rest_world[i]),
            with_morphs,
            &mut report,
        )?;
    }
    report.render_vertices = merged.positions.len();

    // Weld.
    let welded = weld(&merged.positions, &merged.triangles, options.weld_tolerance)?;
    report.welded_vertices = welded.mesh.vertex_count();
    report.dropped_triangles = welded.dropped.clone();

    // Skin.
    let mut skinning = None;
    if space == MeshSpace::Skinned {
        let node = &nodes[selected[0]];
        if let Some(skin) = node.skin() {
            let joints: Vec<u32> = skin.joints().map(|j| j.index() as u32).collect();
            skeleton.set_joints(joints, skin.skeleton().map(|s| s.index()));
            let inverse_bind = read_inverse_binds(src, &skin, options, &mut report)?;
            let render_weights = build_weights(
                &merged.influences,
                skeleton.joints().len(),
                skeleton.root_joint(),
                options,
                &mut report,
            )?;
            report.welded_attribute_conflicts += weight_conflicts(
                &render_weights,
                &welded.render_to_welded,
                &welded.representative,
            );
            let weights = ConvexWeights::from_rows(
                welded
                    .representative
                    .iter()
                    .map(|&r| render_weights.iter_row(r as usize)),
                skeleton.joints().len(),
            )?;
            skinning = Some(LinearBlendSkinning::new(
                welded.mesh.positions().to_vec(),
                weights,
                inverse_bind,
            )?);
        }
    } else if merged.any_skin_attributes {
        report
            .warnings
            .push("JOINTS/WEIGHTS attributes are ignored: the loaded node has no skin".to_owned());
    }

    // Morph targets.
    let mut morph = None;
    let mut default_morph_weights = Vec::new();
    if let Some(mm) = &merged.morphs {
        let node = &nodes[selected[0]];
        let targets = mm.position_deltas.len();
        let mesh_index = node.mesh().map_or(0, |m| m.index());
        default_morph_weights = node
            .weights()
            .or_else(|| node.mesh().and_then(|m| m.weights()))
            .map_or_else(|| vec![0.0; targets], <[f32]>::to_vec);
        if default_morph_weights.len() != targets {
            return Err(LoadError::MorphTargets {
                mesh: mesh_index,
                primitive: 0,
                reason: format!(
                    "{} default weights for {targets} morph targets",
                    default_morph_weights.len()
                ),
            });
        }
        report.welded_attribute_conflicts += delta_conflicts(
            &mm.position_deltas,
            &welded.render_to_welded,
            &welded.representative,
        );
        let deltas = mm
            .position_deltas
            .iter()
            .map(|d| {
                welded
                    .representative
                    .iter()
                    .map(|&r| d[r as usize])
                    .collect()
            })
            .collect();
        let mut m = MorphTargets::new(welded.mesh.positions().to_vec(), deltas)?;
        m.set_weights(&default_morph_weights)?;
        morph = Some(m);
    }

    // Animations.
    let morph_counts: Vec<usize> = nodes
        .iter()
        .map(|n| {
            n.mesh()
                .and_then(|m| m.primitives().next())
                .map_or(0, |p| p.morph_targets().len())
        })
        .collect();
    let matrix_nodes: Vec<bool> = nodes
        .iter()
        .map(|n| matches!(n.transform(), gltf::scene::Transform::Matrix { .. }))
        .collect();
    let clips = read_clips(src, &morph_counts, &matrix_nodes, options, &mut report)?;
    report.mesh_nodes = selected.clone();
    report.render_triangles = merged.triangles.len();
    report.joints = skeleton.joints().len();
    report.governors = skinning.as_ref().map_or(0, |s| s.bone_count());
    report.morph_targets = morph.as_ref().map_or(0, MorphTargets::target_count);
    report.contents = Some(super::GltfContents::of(src));

    let asset = GltfAsset {
        mesh: welded.mesh,
        render: RenderMesh {
            positions: merged.positions,
            normals: merged.normals,
            uvs: merged.uvs,
            triangles: merged.triangles,
            to_welded: welded.render_to_welded,
        },
        space,
        skeleton,
        mesh_node: (selected.len() == 1).then(|| selected[0]),
        skinning,
        morph,
        default_morph_weights,
        clips,
    };
    Ok((asset, report))
}

/// Render vertices whose weights differ by more than `1e-4` from those of the render vertex
/// their welded vertex follows.
pub(crate) fn weight_conflicts(
    w: &ConvexWeights,
    to_welded: &[u32],
    representative: &[u32],
) -> usize {
    (0..to_welded.len())
        .filter(|&r| {
            let rep = representative[to_welded[r] as usize] as usize;
            rep != r
                && (w
                    .iter_row(r)
                    .any(|(g, x)| (x - w.weight(rep, g)).abs() > 1e-4)
                    || w.iter_row(rep)
                        .any(|(g, x)| (x - w.weight(r, g)).abs() > 1e-4))
        })
        .count()
}

/// Render vertices whose morph deltas differ by more than `1e-4` from those of the render vertex
/// their welded vertex follows.
pub(crate) fn delta_conflicts(
    deltas: &[Vec<Vec3>],
    to_welded: &[u32],
    representative: &[u32],
) -> usize {
    (0..to_welded.len())
        .filter(|&r| {
            let rep = representative[to_welded[r] as usize] as usize;
            rep != r
                && deltas
                    .iter()
                    .any(|d| (d[r] - d[rep]).abs().max_element() > 1e-4)
        })
        .count()
}
