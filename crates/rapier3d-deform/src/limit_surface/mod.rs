//! Normal bounds of Loop subdivision limit surfaces (Grinspun & Schröder 2001): eigenanalysis of the local subdivision matrix, eigenbasis derivative bounds, patch normal cones.
//!
//! The limit surface of a Loop control mesh is parameterised over its triangles, one *limit
//! patch* each (seed §2). A patch with three valence-6 corners is a quartic box spline; a patch
//! with one irregular corner of valence `n` is determined by `n + 6` control points
//! ([`neighbourhood_size`]) and is bounded through the eigenstructure of the local subdivision
//! matrix `S` (seed §3):
//!
//! 1. [`local_matrix`](subdivision_matrix): `S` and the picking matrices `S₁, S₂, S₃` of the three
//!    regular children after one step (§3.2, Fig. 8), built from Loop's stencils (Loop's
//!    original β, as in [`crate::deformation::LoopSubdivision`]).
//! 2. [`LoopEigen`] ([`loop_eigen`]): eigenvalues, right and left eigenvectors of `S` per valence
//!    3..=12 in closed form (discrete Fourier modes around the vertex), with the valence-3 Jordan
//!    block, tabulated once; [`LoopEigen::advance`] subdivides in the eigenbasis (eq. 1).
//! 3. [`EigenBounds`] ([`eigen_bounds`]): interval bounds `Φᵤⁱ`, `Φᵥⁱ`, `Φ₁ₓ₂` on the scaled
//!    eigenbasis derivatives over the domain (§3.4, eqs. 4–5), via the Bézier form of the regular
//!    children.
//! 4. [`eigen_normal_bound`] (eq. 3 with the rotation of §3.5), [`tightened_normal_bound`] (§4:
//!    regular subpatches split off until the bound is within 1° of theirs),
//!    [`regular_normal_bound`] (Bézier coefficients of `s_u × s_v`).
//! 5. [`LimitPatches`]: per control triangle of a closed mesh, its control points and its
//!    [`NormalBound`].
//! 6. [`LimitHierarchy`] (seed §2.2, Fig. 5): a binary tree of patches over the control triangles
//!    with lazily refit boxes (convex hull property) and merged normal cones, the boundary loop of
//!    every node that is a disc; the control points move with
//!    [`LimitHierarchy::set_control_points`].
//! 7. [`LimitInterferenceQuery`] (seed Fig. 6, §2.4, §3.6): `DetectSelfInterference` /
//!    `DetectPairwiseInterference` with the adjacency rule (union test for edge-adjacent regions,
//!    boxes otherwise), the contour condition as a tangent-wedge and box test on the projected
//!    boundary, refinement by one Loop step of the control neighbourhoods where a
//!    [`ToleranceOracle`] asks; results are [`InterferenceRegion`]s (sub-patches with their
//!    parametric domains and flat polygons). A query keeps the sub-patches (and their self-test
//!    and pair outcomes) of the limit patches whose control points did not move for the next
//!    query; the answer is the same as a fresh query's.
//!
//! Bounds are conservative up to the documented table margin ([`TABLE_MARGIN`]) and f64
//! rounding of the projection (about 1e-15 relative); interval operations round outward.

mod bezier;
mod cone;
mod contour;
mod control_mesh;
mod detect;
mod eigen;
mod eigen_bounds;
mod hierarchy;
mod interval;
mod local_matrix;
mod patch_bound;
mod refine;

pub use cone::{NormalBound, NormalCone};
pub use control_mesh::{LimitPatches, PatchKind};
pub use detect::{
    DEFAULT_SUBPATCH_BUDGET, DetectStats, InterferenceRegion, LimitInterference,
    LimitInterferenceQuery, MAX_REFINE_DEPTH, RegionTopology, SizeTolerance, SubPatch,
    SubPatchView, ToleranceOracle,
};
pub use eigen::{LoopEigen, loop_eigen};
pub use eigen_bounds::{CELL_DEPTH, EigenBounds, TABLE_MARGIN, eigen_bounds};
pub use hierarchy::LimitHierarchy;
pub use interval::Interval64;
pub use local_matrix::{
    MAX_VALENCE, MIN_VALENCE, REGULAR_POINTS, REGULAR_VALENCE, neighbourhood_size,
    subdivision_matrix,
};
pub use patch_bound::{
    MAX_TIGHTENING_STEPS, TIGHTENING_TOLERANCE, eigen_normal_bound, regular_normal_bound,
    tightened_normal_bound,
};
