//! Loader options and the load report that counts every repair a loader made to its input.

use super::GltfContents;

/// How loaders treat imperfect assets.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadOptions {
    /// When `true`, vertices whose skin weights sum to zero and skins without inverse bind
    /// matrices are errors ([`LoadError::ZeroWeights`](super::LoadError::ZeroWeights),
    /// [`LoadError::MissingInverseBindMatrices`](super::LoadError::MissingInverseBindMatrices));
    /// when `false` (default) they are repaired (bound to the skeleton root; identity inverse
    /// binds, as the glTF specification allows) and listed in the [`LoadReport`].
    /// Weight rows with a positive sum other than one are renormalised in both modes.
    pub strict: bool,
    /// Render vertices closer than this distance, relative to the bounding-box diagonal, are welded
    /// into one collision vertex. `0` welds only bit-identical positions; negative or NaN values
    /// are rejected. Default `1e-6`.
    pub weld_tolerance: f32,
    /// glTF only, [`load_gltf`](super::load_gltf): the node whose mesh is loaded. `None`
    /// (default): the first node with a mesh and a skin, else the only node with a mesh, else
    /// all mesh nodes of the default scene merged.
    pub mesh_node: Option<usize>,
    /// glTF only, [`load_gltf_scene`](super::load_gltf_scene): which mesh nodes of the scene are
    /// loaded (default: all).
    pub nodes: NodeSelection,
}

/// A node named by its index in the file or by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRef {
    /// The node index (as a glTF viewer shows it).
    Index(usize),
    /// The node's `name` (the first node with it).
    Name(String),
}

impl From<usize> for NodeRef {
    fn from(i: usize) -> Self {
        Self::Index(i)
    }
}

impl From<&str> for NodeRef {
    fn from(name: &str) -> Self {
        Self::Name(name.to_owned())
    }
}

impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Index(i) => write!(f, "node {i}"),
            Self::Name(n) => write!(f, "node `{n}`"),
        }
    }
}

/// Which mesh nodes [`load_gltf_scene`](super::load_gltf_scene) loads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum NodeSelection {
    /// Every node with a mesh reachable from the scene's roots.
    #[default]
    All,
    /// Only these nodes (each must have a mesh and be in the scene), in this order.
    Only(Vec<NodeRef>),
}

impl NodeSelection {
    /// Only the nodes given by index or name: `NodeSelection::only(["body", "head"])`.
    pub fn only<I, N>(nodes: I) -> Self
    where
        I: IntoIterator<Item = N>,
        N: Into<NodeRef>,
    {
        Self::Only(nodes.into_iter().map(Into::into).collect())
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            strict: false,
            weld_tolerance: 1e-6,
            mesh_node: None,
            nodes: NodeSelection::All,
        }
    }
}

impl LoadOptions {
    /// Default options with [`LoadOptions::strict`] set.
    pub fn strict() -> Self {
        Self {
            strict: true,
            ..Self::default()
        }
    }
}

/// What a loader repaired or ignored. An empty report ([`LoadReport::is_clean`]) means the asset
/// was used exactly as stored (apart from welding seams).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct LoadReport {
    /// Render vertices as stored (sum over merged primitives).
    pub render_vertices: usize,
    /// Collision vertices after welding.
    pub welded_vertices: usize,
    /// Skin weight rows whose sum was off 1 by more than
    /// [`ConvexWeights::SUM_TOLERANCE`](crate::governor::ConvexWeights::SUM_TOLERANCE) and
    /// were renormalised.
    pub renormalised_weight_rows: usize,
    /// Render vertices whose skin weights summed to zero, bound to the skeleton root joint with
    /// weight 1.
    pub zero_weight_vertices: Vec<usize>,
    /// Render triangles (index in the merged triangle list) that are degenerate after welding and
    /// are left out of the collision mesh.
    pub dropped_triangles: Vec<usize>,
    /// Skins without inverse bind matrices, loaded with identity matrices.
    pub skins_without_inverse_bind: Vec<usize>,
    /// Render vertices welded onto a collision vertex whose skin weights or morph deltas differ
    /// from theirs by more than `1e-4`: the collision vertex follows its first render vertex.
    pub welded_attribute_conflicts: usize,
    /// Anything else that was ignored, one sentence each (mesh nodes not loaded, extensions used
    /// but not interpreted, ...).
    pub warnings: Vec<String>,
    /// glTF: the mesh nodes loaded, in load order.
    pub mesh_nodes: Vec<usize>,
    /// glTF: render triangles as stored in the loaded primitives (before welding).
    pub render_triangles: usize,
    /// glTF: joints of the skins of the loaded nodes (summed over distinct skins).
    pub joints: usize,
    /// glTF: governors of the loaded mesh (skin joints, animated nodes, a static governor).
    pub governors: usize,
    /// glTF: morph targets of the loaded mesh (summed over mesh nodes).
    pub morph_targets: usize,
    /// glTF: what the file holds (mesh nodes, skins, clips), loaded or not.
    pub contents: Option<GltfContents>,
}

impl std::fmt::Display for LoadReport {
    /// A summary (what was loaded, then every repair and warning, then the file's contents).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "loaded {} mesh node(s) {:?}: {} render vertices -> {} welded, {} triangles, {} joints, \
             {} governors, {} morph targets",
            self.mesh_nodes.len(),
            self.mesh_nodes,
            self.render_vertices,
            self.welded_vertices,
            self.render_triangles,
            self.joints,
            self.governors,
            self.morph_targets
        )?;
        if self.renormalised_weight_rows > 0 {
            writeln!(
                f,
                "  renormalised weight rows: {}",
                self.renormalised_weight_rows
            )?;
        }
        if !self.zero_weight_vertices.is_empty() {
            writeln!(
                f,
                "  vertices without weights (bound to the root joint): {}",
                self.zero_weight_vertices.len()
            )?;
        }
        if !self.dropped_triangles.is_empty() {
            writeln!(
                f,
                "  degenerate triangles left out of the collision mesh: {}",
                self.dropped_triangles.len()
            )?;
        }
        if !self.skins_without_inverse_bind.is_empty() {
            writeln!(
                f,
                "  skins without inverse bind matrices: {:?}",
                self.skins_without_inverse_bind
            )?;
        }
        if self.welded_attribute_conflicts > 0 {
            writeln!(
                f,
                "  welded vertices with conflicting weights or deltas: {}",
                self.welded_attribute_conflicts
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        if let Some(c) = &self.contents {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl LoadReport {
    /// True when nothing was repaired, dropped or ignored.
    pub fn is_clean(&self) -> bool {
        self.renormalised_weight_rows == 0
            && self.zero_weight_vertices.is_empty()
            && self.dropped_triangles.is_empty()
            && self.skins_without_inverse_bind.is_empty()
            && self.welded_attribute_conflicts == 0
            && self.warnings.is_empty()
    }
}
