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
    /// Writing (or reading) a file failed; `message` is the operating system's or encoder's reason.
    #[error("cannot write `{path}`: {message}")]
    FileWrite {
        /// The file.
        path: String,
        /// Why it failed.
        message: String,
    },
    /// An edge is shared by more than two triangles.
    #[error(
        "edge ({a}, {b}) is shared by {triangles} triangles (a manifold mesh allows at most 2)"
    )]
    NonManifoldEdge {
        /// One end of the edge.
        a: u32,
        /// The other end.
        b: u32,
        /// How many triangles share it.
        triangles: usize,
    },
    /// Two triangles traverse their shared edge in the same direction (inconsistent orientation).
    #[error("edge ({a}, {b}) is traversed in the same direction by both of its triangles")]
    InconsistentOrientation {
        /// One end of the edge.
        a: u32,
        /// The other end.
        b: u32,
    },
    /// An index passed to a method is out of range.
    #[error("{what} index {index} out of range (length {len})")]
    IndexOutOfRange {
        /// What is indexed ("vertex", "example", ...).
        what: &'static str,
        /// The bad index.
        index: usize,
        /// The valid length.
        len: usize,
    },
    /// A vertex lies outside the support of every particle's kernel.
    #[error("vertex {vertex} is farther than the support radius {radius} from every particle")]
    UncoveredVertex {
        /// The vertex.
        vertex: usize,
        /// The kernel support radius.
        radius: f32,
    },
    /// A global (not per-vertex) weight vector is invalid.
    #[error("global {what} weights: {reason} (slot {slot}, value {value})")]
    InvalidGlobalWeight {
        /// Which weights ("example", "morph target").
        what: &'static str,
        /// The offending slot (the slot count when the problem is the sum).
        slot: usize,
        /// The offending value (the sum when the problem is the sum).
        value: f32,
        /// What is wrong.
        reason: &'static str,
    },
    /// A mesh that must be closed has boundary edges beyond the tolerance.
    #[error(
        "mesh is open: {boundary_edges} boundary edges (first: ({a}, {b})) of total length {length}, more than the tolerated {tolerance}"
    )]
    OpenMesh {
        /// Number of edges used by exactly one triangle.
        boundary_edges: usize,
        /// One end of the first boundary edge.
        a: u32,
        /// The other end.
        b: u32,
        /// Total length of the boundary edges.
        length: f32,
        /// The tolerated length.
        tolerance: f32,
    },
    /// A closed mesh's generalized winding number leaves {0, 1}: it self-intersects or is inside out.
    #[error(
        "mesh self-intersects or is inside out: winding number {winding} at grid point {grid_point} ({x}, {y}, {z})"
    )]
    SelfIntersectingMesh {
        /// The grid point where it was found.
        grid_point: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
        /// Its z coordinate.
        z: f32,
        /// The winding number there.
        winding: f32,
    },
    /// An example pose does not have one position per rest vertex.
    #[error("example {example} has {actual} vertices, the rest mesh has {expected}")]
    ExampleVertexCount {
        /// The example.
        example: usize,
        /// Rest vertex count.
        expected: usize,
        /// The example's vertex count.
        actual: usize,
    },
    /// A Rapier handle (rigid body, collider) given to the crate no longer exists in its set.
    #[error("{what} handle {index} does not exist in its Rapier set (removed?)")]
    UnknownHandle {
        /// What the handle refers to ("rigid body", "collider", "deformable body").
        what: &'static str,
        /// The handle's index.
        index: u32,
    },
    /// An example pose has a NaN or infinite position.
    #[error("example {example}: vertex {vertex} is not finite")]
    NonFiniteExamplePosition {
        /// The example.
        example: usize,
        /// The vertex.
        vertex: usize,
    },
    /// A count (governors, influences, vertices, triangles, spheres) exceeds the crate's
    /// documented limit (see [`crate::limits`]).
    #[error("{what}: {value} exceeds the limit of {max} (see rapier3d_deform::limits)")]
    LimitExceeded {
        /// What is counted.
        what: &'static str,
        /// The count asked for.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// A finite position (vertex, point, radius) is farther from the origin than
    /// [`crate::limits::MAX_COORDINATE`].
    #[error("{what} {index}: coordinate {value} is beyond ±{max} (see rapier3d_deform::limits)")]
    PositionOutOfRange {
        /// What kind of position.
        what: &'static str,
        /// Its index.
        index: usize,
        /// The offending coordinate.
        value: f32,
        /// The limit.
        max: f32,
    },
    /// A mesh's bounding-box diagonal is below [`crate::limits::MIN_MESH_EXTENT`].
    #[error(
        "mesh is {extent} across, less than the smallest supported {min} (see rapier3d_deform::limits)"
    )]
    MeshTooSmall {
        /// The bounding-box diagonal.
        extent: f32,
        /// The limit.
        min: f32,
    },
    /// A governor transform's linear part or translation is beyond
    /// [`crate::limits::MAX_LINEAR`] or [`crate::limits::MAX_COORDINATE`].
    #[error(
        "governor {governor}: {field} entry {value} is beyond ±{max} (see rapier3d_deform::limits)"
    )]
    TransformOutOfRange {
        /// The governor.
        governor: usize,
        /// `"linear"` or `"translation"`.
        field: &'static str,
        /// The offending entry.
        value: f32,
        /// The limit.
        max: f32,
    },
    /// A governor transform's linear part is nonzero but its largest entry is below
    /// [`crate::limits::MIN_LINEAR`]: the deformed mesh would fall into `f32`'s subnormal range.
    /// An exactly zero linear part (a part collapsed onto its translation) is accepted.
    #[error(
        "governor {governor}: the largest entry of its linear part, {largest}, is nonzero but below {min} (use an exact zero to collapse a part; see rapier3d_deform::limits)"
    )]
    TransformTooSmall {
        /// The governor.
        governor: usize,
        /// The largest absolute entry of the linear part.
        largest: f32,
        /// The limit.
        min: f32,
    },
    /// One element of an array (a sphere radius, ...) is outside its documented range.
    #[error("{what} {index} = {value} is invalid: {reason}")]
    InvalidElement {
        /// What the array holds ("sphere radius", ...).
        what: &'static str,
        /// The element's index.
        index: usize,
        /// Its value.
        value: f32,
        /// What the valid range is.
        reason: &'static str,
    },
    /// A contact handed to the plasticity model has a non-finite or out-of-range field.
    #[error("contact {contact}: {field} is {reason}")]
    InvalidContact {
        /// The contact's index in the list.
        contact: usize,
        /// `"point"` or `"displacement"`.
        field: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A name (of a clip, a node...) matches nothing.
    #[error("no {what} named `{name}`")]
    UnknownName {
        /// What was looked up ("clip", ...).
        what: &'static str,
        /// The name asked for.
        name: String,
    },
    /// A vertex lies on the boundary of a mesh that must be closed (limit-surface patches have no
    /// boundary rules).
    #[error("vertex {vertex} lies on the mesh boundary; limit-surface patches need a closed mesh")]
    BoundaryVertex {
        /// The vertex.
        vertex: u32,
    },
    /// A vertex's triangles do not form one fan around it (two fans meet at the vertex).
    #[error("vertex {vertex} is non-manifold: its {triangles} triangles do not form one fan")]
    NonManifoldVertex {
        /// The vertex.
        vertex: u32,
        /// How many triangles use it.
        triangles: usize,
    },
    /// A vertex's valence is outside the tabulated range.
    #[error("vertex {vertex} has valence {valence}, outside the supported {min}..={max}")]
    UnsupportedValence {
        /// The vertex.
        vertex: u32,
        /// Its valence (number of edges).
        valence: usize,
        /// The smallest supported valence.
        min: usize,
        /// The largest supported valence.
        max: usize,
    },
    /// A triangle has more than one irregular corner (subdivide the control mesh once first).
    #[error(
        "triangle {triangle} has {irregular} corners of valence other than 6; at most one is supported (subdivide once)"
    )]
    TooManyIrregularCorners {
        /// The triangle.
        triangle: usize,
        /// How many of its corners are irregular.
        irregular: usize,
    },
    /// An operation needs something the object was not built with.
    #[error("{what}: {reason}")]
    NotAvailable {
        /// The operation.
        what: &'static str,
        /// What is missing and how to provide it.
        reason: &'static str,
    },
}

/// Shorthand for `Result<T, DeformError>`.
pub type Result<T, E = DeformError> = core::result::Result<T, E>;
