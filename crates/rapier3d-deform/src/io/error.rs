//! Typed loader errors: each names the glTF object (buffer, accessor, mesh, primitive, node, skin, animation) or file at fault.

use std::path::PathBuf;

use thiserror::Error;

use crate::error::DeformError;

/// Why an asset could not be loaded.
///
/// Messages name the offending glTF object by its index in the file (the index a glTF viewer or
/// `gltf-validator` shows), so a user can find it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A file (the asset itself or an external buffer) could not be read.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The glTF JSON or GLB container is malformed or fails the glTF schema validation.
    #[error("invalid glTF: {message}")]
    Gltf {
        /// The parser's message.
        message: String,
    },
    /// The OBJ text could not be parsed.
    #[error("invalid OBJ: {message}")]
    Obj {
        /// The parser's message.
        message: String,
    },
    /// A buffer cannot be resolved: unsupported URI, bad base64, external file referenced from a
    /// slice, missing GLB binary chunk, or fewer bytes than its declared `byteLength`.
    #[error("buffer {buffer}: {reason}")]
    Buffer {
        /// The buffer index.
        buffer: usize,
        /// What is wrong.
        reason: String,
    },
    /// An accessor cannot be read: its bytes lie outside its buffer view or buffer, its stride is
    /// smaller than an element, or its type does not fit its use.
    #[error("accessor {accessor} ({what}): {reason}")]
    Accessor {
        /// The accessor index.
        accessor: usize,
        /// What the accessor was read for (e.g. `mesh 0 primitive 1 POSITION`).
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// An accessor's element count does not match the count its use requires (e.g. a `NORMAL`
    /// accessor shorter than `POSITION`, fewer inverse bind matrices than joints).
    #[error("accessor {accessor} ({what}): {actual} elements, expected {expected}")]
    MismatchedAccessorCount {
        /// The accessor index.
        accessor: usize,
        /// What the accessor was read for.
        what: String,
        /// Required count.
        expected: usize,
        /// Actual count.
        actual: usize,
    },
    /// An accessor holds a NaN or infinite value.
    #[error("accessor {accessor} ({what}): element {element} is not finite")]
    NonFiniteData {
        /// The accessor index.
        accessor: usize,
        /// What the accessor was read for.
        what: String,
        /// The element (not component) index.
        element: usize,
    },
    /// A node's `matrix`, `translation`, `rotation` or `scale` holds a NaN or infinite value.
    #[error("node {node}: transform is not finite")]
    NonFiniteNodeTransform {
        /// The node index.
        node: usize,
    },
    /// A primitive uses points or lines: only triangles, triangle strips and triangle fans
    /// describe a surface.
    #[error(
        "mesh {mesh} primitive {primitive}: mode {mode} is not supported (triangles, strips, fans)"
    )]
    UnsupportedPrimitiveMode {
        /// The mesh index.
        mesh: usize,
        /// The primitive index within the mesh.
        primitive: usize,
        /// The glTF mode name.
        mode: &'static str,
    },
    /// A primitive lacks a required attribute (`POSITION`, or the `JOINTS_n` partner of a
    /// `WEIGHTS_n` set and vice versa).
    #[error("mesh {mesh} primitive {primitive}: missing attribute {attribute}")]
    MissingAttribute {
        /// The mesh index.
        mesh: usize,
        /// The primitive index within the mesh.
        primitive: usize,
        /// The attribute name.
        attribute: String,
    },
    /// An index refers past the end of the primitive's vertices.
    #[error(
        "mesh {mesh} primitive {primitive}: index {index} out of range ({vertex_count} vertices)"
    )]
    IndexOutOfRange {
        /// The mesh index.
        mesh: usize,
        /// The primitive index within the mesh.
        primitive: usize,
        /// The bad index value.
        index: u32,
        /// Vertices of the primitive.
        vertex_count: usize,
    },
    /// The file has no mesh to load, or [`LoadOptions::mesh_node`](super::LoadOptions::mesh_node)
    /// names a node without a mesh.
    #[error("no mesh to load: {reason}")]
    NoMesh {
        /// Why.
        reason: String,
    },
    /// A skin has no `inverseBindMatrices` and [`LoadOptions::strict`](super::LoadOptions::strict)
    /// is set (otherwise identity matrices are used, as the glTF specification allows, and the
    /// skin is listed in the report).
    #[error("skin {skin} has no inverse bind matrices")]
    MissingInverseBindMatrices {
        /// The skin index.
        skin: usize,
    },
    /// A skinned vertex has weights summing to zero and
    /// [`LoadOptions::strict`](super::LoadOptions::strict) is set (otherwise it is bound to the
    /// skeleton root and listed in the report).
    #[error("render vertex {vertex}: skin weights sum to zero")]
    ZeroWeights {
        /// The render vertex (index in the merged primitives).
        vertex: usize,
    },
    /// A vertex with a non-zero weight names a joint the skin does not have.
    #[error("render vertex {vertex}: joint {joint} out of range ({joint_count} joints)")]
    JointIndexOutOfRange {
        /// The render vertex (index in the merged primitives).
        vertex: usize,
        /// The bad joint index.
        joint: u32,
        /// Number of joints of the skin.
        joint_count: usize,
    },
    /// The node graph is not a forest (a node with two parents, or a cycle).
    #[error("node {node}: {reason}")]
    InvalidHierarchy {
        /// The node index.
        node: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// An animation channel or sampler is invalid: keyframe times not strictly increasing or
    /// negative, an animated node that is given as a `matrix`, a weights channel on a node
    /// without morph targets.
    #[error("animation {animation} channel {channel}: {reason}")]
    InvalidAnimation {
        /// The animation index.
        animation: usize,
        /// The channel index within the animation.
        channel: usize,
        /// What is wrong.
        reason: String,
    },
    /// Primitives of the loaded mesh disagree on their morph targets (count or attributes).
    #[error("mesh {mesh} primitive {primitive}: {reason}")]
    MorphTargets {
        /// The mesh index.
        mesh: usize,
        /// The primitive index within the mesh.
        primitive: usize,
        /// What is wrong.
        reason: String,
    },
    /// A node selected with [`LoadOptions::nodes`](super::LoadOptions::nodes) does not exist,
    /// has no mesh or is not in the scene.
    #[error("{node}: {reason}")]
    UnknownNode {
        /// The node as it was asked for (index or name).
        node: String,
        /// What is wrong.
        reason: String,
    },
    /// A skin of a loaded node has a joint that is not reachable from the scene's root nodes.
    #[error("skin {skin} joint {joint}: node {node} is not in the scene")]
    JointNotInScene {
        /// The skin index.
        skin: usize,
        /// The joint index within the skin.
        joint: usize,
        /// The joint's node.
        node: usize,
    },
    /// The loaded data was rejected by a crate builder (mesh, weights, skinning).
    #[error(transparent)]
    Deform(#[from] DeformError),
}
