//! The crate's typed errors: every bad input names the index or field at fault.

use thiserror::Error;

/// Errors raised by builders and loaders when their input is invalid.
///
/// Messages name the offending index or field so that a user can find it in their asset.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum DeformError {
    /// The mesh has no vertices or no triangles.
    #[error("empty mesh: {vertices} vertices, {triangles} triangles")]
    EmptyMesh {
        /// Vertex count.
        vertices: usize,
        /// Triangle count.
        triangles: usize,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle} refers to vertex {index}, but the mesh has {vertex_count} vertices"
    )]
    VertexIndexOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The bad index.
        index: u32,
        /// Number of vertices.
        vertex_count: usize,
    },
    /// A triangle has (near-)zero area or repeats a vertex.
    #[error("triangle {triangle} is degenerate (zero area or repeated vertex)")]
    DegenerateTriangle {
        /// The triangle.
        triangle: usize,
    },
    /// A position is NaN or infinite.
    #[error("{what} {index} is not finite")]
    NonFinitePosition {
        /// What kind of position ("vertex", "particle", "control point", ...).
        what: &'static str,
        /// Its index.
        index: usize,
    },
    /// A governor transform (bone, particle, example bone) has a NaN or infinite entry.
    #[error("governor {governor} has a non-finite transform")]
    NonFiniteTransform {
        /// The governor.
        governor: usize,
    },
    /// A weight is NaN or infinite.
    #[error("vertex {vertex}: weight {slot} is not finite")]
    NonFiniteWeight {
        /// The vertex.
        vertex: usize,
        /// The influence slot.
        slot: usize,
    },
    /// A weight is negative.
    #[error("vertex {vertex}: weight {slot} is negative ({value})")]
    NegativeWeight {
        /// The vertex.
        vertex: usize,
        /// The influence slot.
        slot: usize,
        /// The value.
        value: f32,
    },
    /// A vertex's weights do not sum to one within the tolerance.
    #[error("vertex {vertex}: weights sum to {sum}, more than {tolerance} away from 1")]
    WeightSumOff {
        /// The vertex.
        vertex: usize,
        /// Their sum.
        sum: f32,
        /// The tolerance that was exceeded.
        tolerance: f32,
    },
    /// A vertex refers to a governor that does not exist.
    #[error("vertex {vertex}: governor index {governor} out of range ({governor_count} governors)")]
    GovernorIndexOutOfRange {
        /// The vertex.
        vertex: usize,
        /// The bad governor index.
        governor: u32,
        /// Number of governors.
        governor_count: usize,
    },
    /// Two arrays that must have the same length do not.
    #[error("{what}: expected {expected} entries, got {actual}")]
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        actual: usize,
    },
    /// A vertex has more influences than the caller allows.
    #[error("vertex {vertex} has {count} influences, more than the supported {max}")]
    TooManyInfluences {
        /// The vertex.
        vertex: usize,
        /// Its influence count.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A parameter is outside its documented range.
    #[error("parameter `{name}` = {value} is invalid: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Its value.
        value: f32,
        /// What the valid range is.
        reason: &'static str,
    },
    /// A vertex or patch list is empty where at least one entry is required.
    #[error("{what} is empty")]
    Empty {
        /// What is empty.
        what: &'static str,
    },
}

/// Shorthand for `Result<T, DeformError>`.
pub type Result<T, E = DeformError> = core::result::Result<T, E>;
