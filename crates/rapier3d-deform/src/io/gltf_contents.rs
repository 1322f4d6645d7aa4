//! What a glTF file holds (mesh nodes with their triangles, skins and morph targets; skins with their joints; clips), listed without reading geometry: [`GltfContents`], printable with `Display`.

use std::fmt;
use std::path::Path;

use gltf::mesh::Mode;

use super::LoadError;
use super::gltf_source::{GltfSource, read_path, read_slice};

/// One node with a mesh, as listed by [`GltfContents`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MeshNodeInfo {
    /// The node index.
    pub node: usize,
    /// The node's name.
    pub name: Option<String>,
    /// The mesh index.
    pub mesh: usize,
    /// Primitives of the mesh.
    pub primitives: usize,
    /// Render vertices (`POSITION` elements summed over the primitives).
    pub vertices: usize,
    /// Triangles as stored (lists: indices / 3; strips and fans: indices − 2; 0 for points and
    /// lines), summed over the primitives.
    pub triangles: usize,
    /// The skin index, when the node is skinned.
    pub skin: Option<usize>,
    /// Morph targets of the mesh (of its first primitive).
    pub morph_targets: usize,
    /// Whether the node is reachable from the scene's root nodes.
    pub in_scene: bool,
}

/// One skin, as listed by [`GltfContents`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkinInfo {
    /// The skin index.
    pub skin: usize,
    /// The skin's name.
    pub name: Option<String>,
    /// The joint nodes, in joint order.
    pub joints: Vec<usize>,
}

/// One animation, as listed by [`GltfContents`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ClipInfo {
    /// The animation index.
    pub clip: usize,
    /// Its name.
    pub name: Option<String>,
    /// Channels.
    pub channels: usize,
    /// Distinct nodes whose translation, rotation or scale it animates.
    pub animated_nodes: usize,
    /// Channels animating morph-target weights.
    pub morph_weight_channels: usize,
}

/// The mesh nodes, skins and clips of a glTF file (from its JSON: accessor counts, no buffer is
/// read), printable with `Display`:
///
/// ```text
/// 1 scene node(s) with a mesh, 24 nodes, 1 skin(s), 3 clip(s)
///   node 2 `fox`: mesh 0, 1 primitive(s), 1728 vertices, 576 triangles, skin 0
///   skin 0: 24 joints
///   clip 0 `Survey`: 24 channels (24 nodes, 0 morph-weight channels)
/// ```
///
/// # Performance
/// O(nodes + meshes + primitives + channels).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct GltfContents {
    /// Nodes in the file.
    pub nodes: usize,
    /// Every node with a mesh, depth first from the scene's roots, then those outside the scene.
    pub mesh_nodes: Vec<MeshNodeInfo>,
    /// Every skin.
    pub skins: Vec<SkinInfo>,
    /// Every animation.
    pub clips: Vec<ClipInfo>,
}

impl GltfContents {
    /// Lists a `.gltf` or `.glb` file's contents.
    ///
    /// # Errors
    /// As [`super::load_gltf`] for unreadable or invalid files.
    ///
    /// # Performance
    /// O(file size) to parse it and resolve its buffers.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        Ok(Self::of(&read_path(path.as_ref())?))
    }

    /// Lists the contents of a `.glb` or self-contained `.gltf` in memory.
    ///
    /// # Errors
    /// As [`super::load_gltf_slice`] for invalid files.
    ///
    /// # Performance
    /// As [`Self::read`].
    pub fn from_slice(bytes: &[u8]) -> Result<Self, LoadError> {
        Ok(Self::of(&read_slice(bytes, None)?))
    }

    pub(crate) fn of(src: &GltfSource) -> Self {
        let doc = &src.document;
        let (order, in_scene) = scene_order(doc);
        let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        let mut mesh_nodes: Vec<MeshNodeInfo> = Vec::new();
        let outside = doc.nodes().map(|n| n.index()).filter(|&i| !in_scene[i]);
        for i in order.iter().copied().chain(outside) {
            let node = &nodes[i];
            let Some(mesh) = node.mesh() else { continue };
            let mut vertices = 0;
            let mut triangles = 0;
            for p in mesh.primitives() {
                let n = p.get(&gltf::Semantic::Positions).map_or(0, |a| a.count());
                vertices += n;
                let k = p.indices().map_or(n, |a| a.count());
                triangles += match p.mode() {
                    Mode::Triangles => k / 3,
                    Mode::TriangleStrip | Mode::TriangleFan => k.saturating_sub(2),
                    _ => 0,
                };
            }
            mesh_nodes.push(MeshNodeInfo {
                node: i,
                name: node.name().map(str::to_owned),
                mesh: mesh.index(),
                primitives: mesh.primitives().len(),
                vertices,
                triangles,
                skin: node.skin().map(|s| s.index()),
                morph_targets: mesh
                    .primitives()
                    .next()
                    .map_or(0, |p| p.morph_targets().len()),
                in_scene: in_scene[i],
            });
        }
        let skins = doc
            .skins()
            .map(|s| SkinInfo {
                skin: s.index(),
                name: s.name().map(str::to_owned),
                joints: s.joints().map(|j| j.index()).collect(),
            })
            .collect();
        let json = doc.as_json();
        let clips = json
            .animations
            .iter()
            .enumerate()
            .map(|(a, anim)| {
                use gltf::json::animation::Property as P;
                use gltf::json::validation::Checked;
                let mut nodes: Vec<usize> = anim
                    .channels
                    .iter()
                    .filter(|c| !matches!(c.target.path, Checked::Valid(P::MorphTargetWeights)))
                    .map(|c| c.target.node.value())
                    .collect();
                nodes.sort_unstable();
                nodes.dedup();
                ClipInfo {
                    clip: a,
                    name: anim.name.clone(),
                    channels: anim.channels.len(),
                    animated_nodes: nodes.len(),
                    morph_weight_channels: anim
                        .channels
                        .iter()
                        .filter(|c| matches!(c.target.path, Checked::Valid(P::MorphTargetWeights)))
                        .count(),
                }
            })
            .collect();
        Self {
            nodes: doc.nodes().len(),
            mesh_nodes,
            skins,
            clips,
        }
    }

    /// Triangles of the mesh nodes in the scene.
    pub fn scene_triangles(&self) -> usize {
        self.mesh_nodes
            .iter()
            .filter(|m| m.in_scene)
            .map(|m| m.triangles)
            .sum()
    }
}

/// Nodes reachable from the default scene's roots (else the first scene's; else every node is
/// "in the scene"), depth first in child order, and a per-node flag. Cycles are cut (the loader
/// rejects them separately).
pub(crate) fn scene_order(doc: &gltf::Document) -> (Vec<usize>, Vec<bool>) {
    let n = doc.nodes().len();
    let Some(scene) = doc.default_scene().or_else(|| doc.scenes().next()) else {
        return ((0..n).collect(), vec![true; n]);
    };
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    let mut stack: Vec<gltf::Node<'_>> = scene.nodes().collect();
    stack.reverse();
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut seen[node.index()], true) {
            continue;
        }
        order.push(node.index());
        let mut children: Vec<_> = node.children().collect();
        children.reverse();
        stack.extend(children);
    }
    (order, seen)
}

fn name(n: &Option<String>) -> String {
    n.as_ref().map_or(String::new(), |s| format!(" `{s}`"))
}

impl fmt::Display for GltfContents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} scene node(s) with a mesh, {} nodes, {} skin(s), {} clip(s)",
            self.mesh_nodes.iter().filter(|m| m.in_scene).count(),
            self.nodes,
            self.skins.len(),
            self.clips.len()
        )?;
        for m in &self.mesh_nodes {
            write!(
                f,
                "  node {}{}: mesh {}, {} primitive(s), {} vertices, {} triangles",
                m.node,
                name(&m.name),
                m.mesh,
                m.primitives,
                m.vertices,
                m.triangles
            )?;
            if let Some(s) = m.skin {
                write!(f, ", skin {s}")?;
            }
            if m.morph_targets > 0 {
                write!(f, ", {} morph targets", m.morph_targets)?;
            }
            if !m.in_scene {
                write!(f, " (not in the scene)")?;
            }
            writeln!(f)?;
        }
        for s in &self.skins {
            writeln!(
                f,
                "  skin {}{}: {} joints",
                s.skin,
                name(&s.name),
                s.joints.len()
            )?;
        }
        for c in &self.clips {
            writeln!(
                f,
                "  clip {}{}: {} channels ({} nodes, {} morph-weight channels)",
                c.clip,
                name(&c.name),
                c.channels,
                c.animated_nodes,
                c.morph_weight_channels
            )?;
        }
        Ok(())
    }
}
