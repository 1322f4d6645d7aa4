//! Loader options and the load report that counts every repair a loader made to its input.

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
    /// glTF only: the node whose mesh is loaded. `None` (default): the first node with a mesh and
    /// a skin, else the only node with a mesh, else all mesh nodes of the default scene merged.
    pub mesh_node: Option<usize>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            strict: false,
            weld_tolerance: 1e-6,
            mesh_node: None,
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
