//! Whole-scene glTF loading: every mesh node of a scene (skinned, rigidly attached to a joint or an animated node, static) in one governed mesh, with morph targets applied before the skin.
//!
//! glTF 2.0 sections implemented here: §3.5 "Scenes" and §3.5.2 "Transformations" (world
//! transforms composed down the node hierarchy), §3.7.2.1 "Overview" of primitives, §3.7.2.2
//! "Morph Targets" (`p = base + Σ wᵢ Δᵢ`, default weights from the node, else the mesh),
//! §3.7.3 "Skins" (joint matrix `world(joint) · inverseBind`; the skinned node's own transform is
//! ignored) and §3.11 "Animations" (TRS and `weights` channels). Morphing comes before skinning,
//! as §3.7.2.2 and §3.7.3 order them.

use std::collections::HashMap;
use std::path::Path;

use rapier3d::parry::glamx::DMat4;

use super::gltf_animation::{AnimationClip, Property, read_clips};
use super::gltf_contents::{GltfContents, scene_order};
use super::gltf_load::RenderMesh;
use super::gltf_mesh::Merged;
use super::gltf_skin::{Skeleton, build_weights, read_inverse_binds};
use super::gltf_source::{GltfSource, read_path, read_slice};
use super::weld::weld;
use super::{LoadError, LoadOptions, LoadReport, NodeRef, NodeSelection};
use crate::deformation::{LinearBlendSkinning, MorphDeltas};
use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights};
use crate::math::{Mat3, Vec3};
use crate::mesh::TriangleMesh;

/// What drives one governor of a [`GltfScene`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum BoneKind {
    /// Joint `joint` of skin `skin`: the offset is its inverse bind matrix.
    Joint {
        /// The skin index.
        skin: usize,
        /// The joint index within the skin.
        joint: usize,
    },
    /// A node that rigid parts hang from (a joint or an animated node): the offset is the
    /// inverse of its rest world transform.
    Node,
    /// Parts under no joint and no animated node: identity, whatever the pose.
    Static,
}

/// One governor of a [`GltfScene`]: `world(node) · offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct SceneBone {
    /// The node whose world transform drives it (`None` for [`BoneKind::Static`]).
    pub node: Option<usize>,
    /// What it is.
    pub kind: BoneKind,
    /// Applied before the node's world transform.
    pub offset: Affine,
}

/// One loaded mesh node of a [`GltfScene`] and where its data lies.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ScenePart {
    /// The node index.
    pub node: usize,
    /// The node's name.
    pub name: Option<String>,
    /// The mesh index.
    pub mesh: usize,
    /// The skin index, when the node is skinned.
    pub skin: Option<usize>,
    /// The bone of a rigid part (`None` when skinned).
    pub bone: Option<usize>,
    /// Its collision (welded) vertices in [`GltfScene::mesh`].
    pub vertices: std::ops::Range<usize>,
    /// Its collision triangles in [`GltfScene::mesh`].
    pub triangles: std::ops::Range<usize>,
    /// Its render vertices in [`GltfScene::render`].
    pub render_vertices: std::ops::Range<usize>,
    /// Its morph targets' weights in [`MorphDeltas::weights`] (empty without morph targets).
    pub morph_weights: std::ops::Range<usize>,
    /// The node's `weights`, else the mesh's, else zeros (one per morph target).
    pub default_morph_weights: Vec<f32>,
}

/// A glTF scene loaded whole ([`load_gltf_scene`]): every selected mesh node in one governed
/// mesh.
///
/// # Governors
/// Every vertex is `Σ_k w_k G_k p0` where each governor `G_k = world(node_k) · offset_k`
/// ([`SceneBone`]):
///
/// | part | rest position `p0` | governors |
/// |---|---|---|
/// | skinned primitive | bind-space position | one per skin joint: `world(joint) · inverseBind` |
/// | primitive on a node under a joint or an animated node | scene position in the rest pose | its nearest such ancestor (or itself) `n`: `world(n) · world_rest(n)⁻¹`, weight 1 |
/// | primitive under nothing animated | scene position in the rest pose | one static governor (identity), weight 1 |
///
/// so a rigid part is a vertex set with weight 1 on its node, and the mesh is one
/// [`LinearBlendSkinning`] whose bones are [`GltfScene::bones`]. Each part is welded on its
/// own (vertices of different parts never merge), then the parts are concatenated.
///
/// Pose it with [`Self::bone_transforms`] (a clip time, the rest pose), [`Self::bind_bone_transforms`]
/// or [`Self::bone_transforms_from_nodes`] (the game's own node transforms), and
/// [`Self::morph_weights`]; or hand it to
/// [`SkinnedColliderBuilder::from_scene`](crate::character::SkinnedColliderBuilder::from_scene).
///
/// # Performance
/// Memory O(render vertices + welded vertices · (influences + morph targets of their part) +
/// nodes + keyframes).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GltfScene {
    /// The collision mesh over welded vertices (rest positions: base shape, morph weights 0).
    pub mesh: TriangleMesh,
    /// The render mesh (every part, vertices split at seams) and its render → welded map.
    pub render: RenderMesh,
    /// The skinning over the welded vertices: bone `k` is [`Self::bones`]`[k]`, its inverse bind
    /// the bone's offset.
    pub skinning: LinearBlendSkinning,
    /// The governors.
    pub bones: Vec<SceneBone>,
    /// The morph targets of every morphed part (weights: the defaults), applied before the skin.
    pub morph: Option<MorphDeltas>,
    /// The loaded mesh nodes.
    pub parts: Vec<ScenePart>,
    /// The node hierarchy (every node of the file; no skin joints are selected on it).
    pub skeleton: Skeleton,
    /// Every animation of the file.
    pub clips: Vec<AnimationClip>,
}

/// Loads every mesh node of a glTF scene (or those of [`LoadOptions::nodes`]) into one
/// [`GltfScene`].
///
/// # Errors
/// As [`super::load_gltf`]; in addition [`LoadError::UnknownNode`] for a selected node that does
/// not exist, has no mesh or is not in the scene; [`LoadError::JointNotInScene`] for a skin of a
/// loaded node whose joint is not in the scene; [`LoadError::MorphTargets`] when the primitives
/// of a mesh disagree on their morph targets or a node's or mesh's default `weights` do not have
/// one entry per target.
///
/// # Performance
/// O(file size + V + T + nodes · depth) expected.
pub fn load_gltf_scene(
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<(GltfScene, LoadReport), LoadError> {
    build_scene(&read_path(path.as_ref())?, options)
}

/// [`load_gltf_scene`] from memory: a `.glb`, or a `.gltf` whose buffers are data URIs.
///
/// # Errors
/// As [`load_gltf_scene`].
///
/// # Performance
/// As [`load_gltf_scene`].
pub fn load_gltf_scene_slice(
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<(GltfScene, LoadReport), LoadError> {
    build_scene(&read_slice(bytes, None)?, options)
}

fn affine_f64(m: &DMat4) -> Affine {
    Affine::new(
        Mat3::from_cols(
            m.x_axis.truncate().as_vec3(),
            m.y_axis.truncate().as_vec3(),
            m.z_axis.truncate().as_vec3(),
        ),
        m.w_axis.truncate().as_vec3(),
    )
}

fn dmat4(a: &Affine) -> DMat4 {
    DMat4::from_cols(
        a.linear.x_axis.as_dvec3().extend(0.0),
        a.linear.y_axis.as_dvec3().extend(0.0),
        a.linear.z_axis.as_dvec3().extend(0.0),
        a.translation.as_dvec3().extend(1.0),
    )
}

/// The inverse of `m` when it is invertible, else `None`.
fn inverse(m: &DMat4) -> Option<DMat4> {
    let d = m.determinant();
    (d.is_finite() && d.abs() > 1e-300).then(|| m.inverse())
}

/// The skin's root joint (joint index): its `skeleton` node when that is a joint, else the first
/// joint without a joint ancestor.
fn root_joint(skeleton: &Skeleton, joints: &[usize], skin_root: Option<usize>) -> usize {
    skin_root
        .and_then(|r| joints.iter().position(|&j| j == r))
        .or_else(|| {
            joints.iter().position(|&j| {
                let mut p = skeleton.parent(j);
                while let Some(q) = p {
                    if joints.contains(&q) {
                        return false;
                    }
                    p = skeleton.parent(q);
                }
                true
            })
        })
        .unwrap_or(0)
}

fn resolve(
    wanted: &NodeRef,
    nodes: &[gltf::Node<'_>],
    in_scene: &[bool],
) -> Result<usize, LoadError> {
    let unknown = |reason: &str| LoadError::UnknownNode {
        node: wanted.to_string(),
        reason: reason.to_owned(),
    };
    let i = match wanted {
        NodeRef::Index(i) => *i,
        NodeRef::Name(n) => nodes
            .iter()
            .position(|x| x.name() == Some(n.as_str()))
            .ok_or_else(|| unknown("no node has this name"))?,
    };
    let node = nodes.get(i).ok_or_else(|| unknown("no such node"))?;
    if node.mesh().is_none() {
        return Err(unknown("has no mesh"));
    }
    if !in_scene[i] {
        return Err(unknown("is not in the scene"));
    }
    Ok(i)
}

/// One part before concatenation.
struct PartData {
    part: ScenePart,
    merged: Merged,
    welded: super::weld::Welded,
    rows: Vec<Vec<(u32, f32)>>,
    deltas: Option<Vec<Vec<Vec3>>>,
    kept_render_triangles: Vec<usize>,
}

fn build_scene(
    src: &GltfSource,
    options: &LoadOptions,
) -> Result<(GltfScene, LoadReport), LoadError> {
    let mut report = LoadReport::default();
    let skeleton = Skeleton::from_document(src)?;
    let doc = &src.document;
    let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
    let (order, in_scene) = scene_order(doc);

    // Which nodes.
    let scene_mesh_nodes: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| nodes[i].mesh().is_some())
        .collect();
    let selected: Vec<usize> = match &options.nodes {
        NodeSelection::All => scene_mesh_nodes.clone(),
        NodeSelection::Only(list) => {
            let mut out = Vec::with_capacity(list.len());
            for r in list {
                let i = resolve(r, &nodes, &in_scene)?;
                if !out.contains(&i) {
                    out.push(i);
                }
            }
            out
        }
    };
    if selected.is_empty() {
        return Err(LoadError::NoMesh {
            reason: "the scene has no node with a mesh".into(),
        });
    }
    let outside: Vec<usize> = nodes
        .iter()
        .filter(|n| n.mesh().is_some() && !in_scene[n.index()])
        .map(|n| n.index())
        .collect();
    if !outside.is_empty() {
        report.warnings.push(format!(
            "mesh nodes {outside:?} are not in the scene and are not loaded"
        ));
    }

    // Skins of the loaded nodes: joints must be in the scene.
    for &i in &selected {
        if let Some(skin) = nodes[i].skin() {
            for (j, joint) in skin.joints().enumerate() {
                if !in_scene[joint.index()] {
                    return Err(LoadError::JointNotInScene {
                        skin: skin.index(),
                        joint: j,
                        node: joint.index(),
                    });
                }
            }
        }
    }

    // Clips, and the nodes they move.
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
    let mut moving = vec![false; nodes.len()];
    for c in &clips {
        for ch in c.channels() {
            if ch.property != Property::MorphWeights {
                moving[ch.node] = true;
            }
        }
    }
    for skin in doc.skins() {
        for j in skin.joints() {
            moving[j.index()] = true;
        }
    }

    // Parts.
    let rest_world = skeleton.rest_world_f64();
    let mut bones: Vec<SceneBone> = Vec::new();
    let mut joint_bones: HashMap<(usize, usize), u32> = HashMap::new();
    let mut node_bones: HashMap<Option<usize>, u32> = HashMap::new();
    let mut inverse_binds: HashMap<usize, Vec<Affine>> = HashMap::new();
    let mut parts: Vec<PartData> = Vec::new();
    let mut skins_used: Vec<usize> = Vec::new();
    let (mut render_offset, mut triangle_offset) = (0usize, 0usize);
    for &i in &selected {
        let node = &nodes[i];
        let Some(mesh) = node.mesh() else { continue };
        let skin = node.skin();
        let mut merged = Merged::default();
        let bake = skin.is_none().then(|| rest_world[i]);
        merged.append_mesh(src, &mesh, bake, true, &mut report)?;
        let welded = match weld(&merged.positions, &merged.triangles, options.weld_tolerance) {
            Ok(w) => w,
            Err(DeformError::EmptyMesh { .. }) => {
                report.warnings.push(format!(
                    "node {i}: no triangle of mesh {} has an area; the node is not loaded",
                    mesh.index()
                ));
                continue;
            }
            Err(e) => return Err(e.into()),
        };

        // Weights.
        let (rows, bone): (Vec<Vec<(u32, f32)>>, Option<usize>) = match &skin {
            Some(skin) => {
                let s = skin.index();
                if !skins_used.contains(&s) {
                    skins_used.push(s);
                }
                let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
                let ibm = match inverse_binds.get(&s) {
                    Some(m) => m.clone(),
                    None => {
                        let m = read_inverse_binds(src, skin, options, &mut report)?;
                        inverse_binds.insert(s, m.clone());
                        m
                    }
                };
                let root = root_joint(&skeleton, &joints, skin.skeleton().map(|n| n.index()));
                let zero_before = report.zero_weight_vertices.len();
                let w =
                    build_weights(&merged.influences, joints.len(), root, options, &mut report)?;
                for v in &mut report.zero_weight_vertices[zero_before..] {
                    *v += render_offset;
                }
                report.welded_attribute_conflicts += super::gltf_load::weight_conflicts(
                    &w,
                    &welded.render_to_welded,
                    &welded.representative,
                );
                // Every joint of a skin is a bone, in joint order, from the skin's first use.
                for (j, &node) in joints.iter().enumerate() {
                    joint_bones.entry((s, j)).or_insert_with(|| {
                        bones.push(SceneBone {
                            node: Some(node),
                            kind: BoneKind::Joint { skin: s, joint: j },
                            offset: ibm[j],
                        });
                        (bones.len() - 1) as u32
                    });
                }
                let bone_of = |j: u32| joint_bones[&(s, j as usize)];
                let rows = welded
                    .representative
                    .iter()
                    .map(|&r| {
                        w.iter_row(r as usize)
                            .map(|(j, x)| (bone_of(j), x))
                            .collect()
                    })
                    .collect();
                (rows, None)
            }
            None => {
                if merged.any_skin_attributes {
                    report.warnings.push(format!(
                        "node {i}: JOINTS/WEIGHTS attributes are ignored: the node has no skin"
                    ));
                }
                let mut governing = Some(i);
                while let Some(n) = governing {
                    if moving[n] {
                        break;
                    }
                    governing = skeleton.parent(n);
                }
                let b = match node_bones.get(&governing) {
                    Some(&b) => b,
                    None => {
                        let (kind, offset) = match governing {
                            Some(n) => {
                                let offset = match inverse(&rest_world[n]) {
                                    Some(m) => affine_f64(&m),
                                    None => {
                                        report.warnings.push(format!(
                                            "node {n}: rest world transform is not invertible; \
                                             the parts under it follow it with an identity offset"
                                        ));
                                        Affine::IDENTITY
                                    }
                                };
                                (BoneKind::Node, offset)
                            }
                            None => (BoneKind::Static, Affine::IDENTITY),
                        };
                        bones.push(SceneBone {
                            node: governing,
                            kind,
                            offset,
                        });
                        let b = (bones.len() - 1) as u32;
                        node_bones.insert(governing, b);
                        b
                    }
                };
                (
                    vec![vec![(b, 1.0)]; welded.mesh.vertex_count()],
                    Some(b as usize),
                )
            }
        };

        // Morph targets.
        let mut default_morph_weights = Vec::new();
        let deltas = match &merged.morphs {
            Some(mm) => {
                let targets = mm.position_deltas.len();
                default_morph_weights = node
                    .weights()
                    .or_else(|| mesh.weights())
                    .map_or_else(|| vec![0.0; targets], <[f32]>::to_vec);
                if default_morph_weights.len() != targets {
                    return Err(LoadError::MorphTargets {
                        mesh: mesh.index(),
                        primitive: 0,
                        reason: format!(
                            "node {i}: {} default weights for {targets} morph targets",
                            default_morph_weights.len()
                        ),
                    });
                }
                if let Some(k) = default_morph_weights.iter().position(|w| !w.is_finite()) {
                    return Err(LoadError::MorphTargets {
                        mesh: mesh.index(),
                        primitive: 0,
                        reason: format!("node {i}: default weight {k} is not finite"),
                    });
                }
                report.welded_attribute_conflicts += super::gltf_load::delta_conflicts(
                    &mm.position_deltas,
                    &welded.render_to_welded,
                    &welded.representative,
                );
                Some(
                    mm.position_deltas
                        .iter()
                        .map(|d| {
                            welded
                                .representative
                                .iter()
                                .map(|&r| d[r as usize])
                                .collect()
                        })
                        .collect::<Vec<Vec<Vec3>>>(),
                )
            }
            None => None,
        };
        let dropped: std::collections::HashSet<usize> = welded.dropped.iter().copied().collect();
        report
            .dropped_triangles
            .extend(welded.dropped.iter().map(|t| t + triangle_offset));
        let kept_render_triangles = (0..merged.triangles.len())
            .filter(|t| !dropped.contains(t))
            .map(|t| t + triangle_offset)
            .collect();
        render_offset += merged.positions.len();
        triangle_offset += merged.triangles.len();
        parts.push(PartData {
            part: ScenePart {
                node: i,
                name: node.name().map(str::to_owned),
                mesh: mesh.index(),
                skin: skin.as_ref().map(|s| s.index()),
                bone,
                vertices: 0..0,
                triangles: 0..0,
                render_vertices: 0..0,
                morph_weights: 0..0,
                default_morph_weights,
            },
            merged,
            welded,
            rows,
            deltas,
            kept_render_triangles,
        });
    }
    if parts.is_empty() {
        return Err(LoadError::NoMesh {
            reason: "no selected mesh node has a triangle with an area".into(),
        });
    }

    // Concatenate.
    let mut positions: Vec<Vec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut kept_render: Vec<usize> = Vec::new();
    let mut rows: Vec<Vec<(u32, f32)>> = Vec::new();
    let mut render = RenderMesh {
        positions: Vec::new(),
        normals: Some(Vec::new()),
        uvs: Some(Vec::new()),
        triangles: Vec::new(),
        to_welded: Vec::new(),
    };
    for p in &mut parts {
        let v0 = positions.len();
        let t0 = triangles.len();
        let r0 = render.positions.len();
        positions.extend_from_slice(p.welded.mesh.positions());
        triangles.extend(
            p.welded
                .mesh
                .triangles()
                .iter()
                .map(|t| t.map(|i| i + v0 as u32)),
        );
        kept_render.extend_from_slice(&p.kept_render_triangles);
        rows.append(&mut p.rows);
        render.positions.extend_from_slice(&p.merged.positions);
        render.normals = match (render.normals.take(), &p.merged.normals) {
            (Some(mut all), Some(n)) => {
                all.extend_from_slice(n);
                Some(all)
            }
            _ => None,
        };
        render.uvs = match (render.uvs.take(), &p.merged.uvs) {
            (Some(mut all), Some(n)) => {
                all.extend_from_slice(n);
                Some(all)
            }
            _ => None,
        };
        render
            .triangles
            .extend(p.merged.triangles.iter().map(|t| t.map(|i| i + r0 as u32)));
        render
            .to_welded
            .extend(p.welded.render_to_welded.iter().map(|&w| w + v0 as u32));
        p.part.vertices = v0..positions.len();
        p.part.triangles = t0..triangles.len();
        p.part.render_vertices = r0..render.positions.len();
    }
    // A triangle can be degenerate relative to the whole scene while it is not relative to its
    // part (the rule scales with the bounding box): drop those too.
    let (lo, hi) = positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    let diag2 = (hi - lo).length_squared().max(f32::MIN_POSITIVE);
    let mut kept = Vec::with_capacity(triangles.len());
    let mut part_end = Vec::with_capacity(parts.len());
    for p in &parts {
        for t in p.part.triangles.clone() {
            let tri = triangles[t];
            let [a, b, c] = tri.map(|i| positions[i as usize]);
            if (b - a).cross(c - a).length() <= 1e-12 * diag2 {
                report.dropped_triangles.push(kept_render[t]);
            } else {
                kept.push(tri);
            }
        }
        part_end.push(kept.len());
    }
    report.dropped_triangles.sort_unstable();
    let mut start = 0;
    for (p, &end) in parts.iter_mut().zip(&part_end) {
        p.part.triangles = start..end;
        start = end;
    }
    let mesh = TriangleMesh::new(positions, kept)?;
    let n = mesh.vertex_count();

    // Morph targets.
    let mut morph = None;
    if parts.iter().any(|p| p.deltas.is_some()) {
        let mut m = MorphDeltas::new(n);
        let mut defaults = Vec::new();
        for p in &mut parts {
            if let Some(d) = p.deltas.take() {
                let first = m.add_group(p.part.vertices.start, d)?;
                p.part.morph_weights = first..first + p.part.default_morph_weights.len();
                defaults.extend_from_slice(&p.part.default_morph_weights);
            }
        }
        m.set_weights(&defaults)?;
        morph = Some(m);
    }

    let weights = ConvexWeights::from_rows(rows, bones.len())?;
    let offsets: Vec<Affine> = bones.iter().map(|b| b.offset).collect();
    let skinning = LinearBlendSkinning::new(mesh.positions().to_vec(), weights, offsets)?;

    report.render_vertices = render.positions.len();
    report.welded_vertices = n;
    report.render_triangles = render.triangles.len();
    report.mesh_nodes = parts.iter().map(|p| p.part.node).collect();
    report.joints = skins_used
        .iter()
        .map(|&s| doc.skins().nth(s).map_or(0, |k| k.joints().len()))
        .sum();
    report.governors = bones.len();
    report.morph_targets = morph.as_ref().map_or(0, MorphDeltas::target_count);
    report.contents = Some(GltfContents::of(src));

    let scene = GltfScene {
        mesh,
        render,
        skinning,
        bones,
        morph,
        parts: parts.into_iter().map(|p| p.part).collect(),
        skeleton,
        clips,
    };
    Ok((scene, report))
}

impl GltfScene {
    /// The first clip called `name`.
    ///
    /// # Performance
    /// O(clips).
    pub fn clip(&self, name: &str) -> Option<&AnimationClip> {
        self.clips.iter().find(|c| c.name() == Some(name))
    }

    /// The world transform of every bone's node at time `t` of `clip` (`None`: the rest pose,
    /// the nodes' own transforms); identity for the static bone. What
    /// [`LinearBlendSkinning::set_bone_transforms`] of [`Self::skinning`] takes. Times outside
    /// the clip clamp to its ends ([`AnimationClip::looped_time`] loops).
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes + bones).
    pub fn bone_transforms(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<Affine> {
        let world = self.skeleton.node_world_transforms(clip, t);
        self.bones
            .iter()
            .map(|b| {
                b.node
                    .and_then(|n| world.get(n).copied())
                    .unwrap_or(Affine::IDENTITY)
            })
            .collect()
    }

    /// The bind pose: every bone's node where its offset undoes it (joints at the inverse of
    /// their inverse bind matrix, nodes at their rest world transform), so every governor is the
    /// identity and the mesh has its rest positions.
    ///
    /// # Performance
    /// O(bones).
    pub fn bind_bone_transforms(&self) -> Vec<Affine> {
        self.bones
            .iter()
            .map(|b| match b.kind {
                BoneKind::Static => Affine::IDENTITY,
                _ => inverse(&dmat4(&b.offset)).map_or(Affine::IDENTITY, |m| affine_f64(&m)),
            })
            .collect()
    }

    /// Bone transforms from the world transform of every node of the file (indexed by node, as
    /// [`Skeleton::node_world_transforms`] gives them): how a game's own animation system poses
    /// the scene.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `node_world` has not one entry per node.
    ///
    /// # Performance
    /// O(bones).
    pub fn bone_transforms_from_nodes(&self, node_world: &[Affine]) -> Result<Vec<Affine>> {
        if node_world.len() != self.skeleton.node_count() {
            return Err(DeformError::LengthMismatch {
                what: "node world transforms",
                expected: self.skeleton.node_count(),
                actual: node_world.len(),
            });
        }
        Ok(self
            .bones
            .iter()
            .map(|b| {
                b.node
                    .and_then(|n| node_world.get(n).copied())
                    .unwrap_or(Affine::IDENTITY)
            })
            .collect())
    }

    /// The morph weights (one per target of [`Self::morph`]) at time `t` of `clip`: each part's
    /// animated weights where the clip animates its node, else its defaults (`None`: every
    /// part's defaults). Empty without morph targets.
    ///
    /// # Performance
    /// O(morph targets + morphed parts · channels).
    pub fn morph_weights(&self, clip: Option<&AnimationClip>, t: f32, out: &mut Vec<f32>) {
        out.clear();
        let mut scratch = Vec::new();
        for p in &self.parts {
            if p.morph_weights.is_empty() {
                continue;
            }
            let animated = clip.is_some_and(|c| c.morph_weights_into(p.node, t, &mut scratch))
                && scratch.len() == p.default_morph_weights.len();
            if animated {
                out.extend_from_slice(&scratch);
            } else {
                out.extend_from_slice(&p.default_morph_weights);
            }
        }
    }

    /// Every collision vertex at time `t` of `clip` (`None`: rest pose with default morph
    /// weights): morph, then skin. The O(n) reference for drawing and tests.
    ///
    /// # Performance
    /// O(nodes + vertices · (influences + targets of their part)).
    pub fn posed_positions(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<Vec3> {
        let mut skin = self.skinning.clone();
        // Bone transforms come from finite node transforms: `set_bone_transforms` accepts them.
        let _ = skin.set_bone_transforms(&self.bone_transforms(clip, t));
        let mut weights = Vec::new();
        self.morph_weights(clip, t, &mut weights);
        let governors = crate::governor::GovernedDeformation::governors(&skin);
        let w = crate::governor::GovernedDeformation::weights(&skin);
        let rest = self.mesh.positions();
        (0..rest.len())
            .map(|v| {
                let p0 = match &self.morph {
                    Some(m) => m.displace_with(&weights, v, rest[v]),
                    None => rest[v],
                };
                let mut p = Vec3::ZERO;
                for (g, x) in w.iter_row(v) {
                    p += x * governors[g as usize].transform_point(p0);
                }
                p
            })
            .collect()
    }
}
