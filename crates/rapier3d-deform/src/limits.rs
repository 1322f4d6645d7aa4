//! The documented resource and range limits every constructor checks before it allocates or computes.
//!
//! Each limit keeps the crate's arithmetic finite in `f32` or bounds an allocation by a size the
//! caller can see. A value beyond a limit is rejected with [`DeformError::LimitExceeded`] (counts)
//! or [`DeformError::PositionOutOfRange`] / [`DeformError::TransformOutOfRange`] /
//! [`DeformError::TransformTooSmall`] /
//! [`DeformError::MeshTooSmall`] (magnitudes),
//! naming the field and, where there is one, the index.
//!
//! | limit | value | why |
//! |---|---|---|
//! | [`MAX_COORDINATE`] | 1e7 | squared lengths, areas and ball inertias of meshes this large stay finite in `f32` (a radius of 1e7 has `r⁵ ≈ 1e35`) |
//! | [`MIN_MESH_EXTENT`] | 1e-6 | the volume and inertia of a mesh's bounding box stay normal `f32` numbers (a mesh 1e-20 across would weigh exactly 0) |
//! | [`MAX_LINEAR`] | 1e4 | a governor's linear part (scale, shear): the deformed position `A p₀ + t` of a rest point within [`MAX_COORDINATE`] stays below 1e12, so products of two such coordinates stay finite |
//! | [`MIN_LINEAR`] | 1e-12 | a governor's linear part is exactly zero (a collapsed part) or has a largest entry at least this: a mesh of [`MIN_MESH_EXTENT`] then deforms to at least 1e-18 across, far from `f32`'s subnormal range, where rounding is absolute rather than relative and the normal bounds' relative margin no longer covers the rounding of deformed vertices |
//! | [`MAX_GOVERNORS`] | 2²⁰ | per-governor buffers (a patch's bound data is 72 bytes per governor) stay below 100 MiB |
//! | [`MAX_INFLUENCES`] | 256 | influences of one vertex (glTF uses 4 per `JOINTS_n` set) |
//! | [`MAX_VERTICES`], [`MAX_TRIANGLES`] | 2²⁸ | indices fit in `u32` with room for the trees' node numbering |
//! | [`MAX_SPHERES`] | 2¹⁶ | spheres of one sphere-union proxy |
//! | [`MAX_GRID_POINTS`] | 2²⁵ | points of a signed-distance grid (128 MiB of `f32`) |

use crate::error::{DeformError, Result};

/// Largest absolute coordinate of a position, a translation, a contact point or a radius.
pub const MAX_COORDINATE: f32 = 1e7;
/// Smallest bounding-box diagonal of a mesh.
pub const MIN_MESH_EXTENT: f32 = 1e-6;
/// Largest absolute entry of a governor's linear part.
pub const MAX_LINEAR: f32 = 1e4;
/// Smallest largest-entry of a governor's nonzero linear part (an all-zero linear part is allowed).
pub const MIN_LINEAR: f32 = 1e-12;
/// Largest number of governors of one deformation.
pub const MAX_GOVERNORS: usize = 1 << 20;
/// Largest number of influences of one vertex.
pub const MAX_INFLUENCES: usize = 256;
/// Largest number of vertices of one mesh.
pub const MAX_VERTICES: usize = 1 << 28;
/// Largest number of triangles of one mesh.
pub const MAX_TRIANGLES: usize = 1 << 28;
/// Largest number of spheres of one proxy.
pub const MAX_SPHERES: usize = 1 << 16;
/// Largest number of points of a signed-distance grid.
pub const MAX_GRID_POINTS: usize = 1 << 25;

/// Rejects a count above `max`.
///
/// # Errors
/// [`DeformError::LimitExceeded`] naming `what`.
#[inline]
pub fn check_count(what: &'static str, count: usize, max: usize) -> Result<()> {
    if count > max {
        return Err(DeformError::LimitExceeded {
            what,
            value: count as u64,
            max: max as u64,
        });
    }
    Ok(())
}

/// True when `x` is finite and `|x| ≤ MAX_COORDINATE`.
#[inline]
pub fn coordinate_in_range(x: f32) -> bool {
    x.abs() <= MAX_COORDINATE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_above_the_limit_name_the_field() {
        assert_eq!(check_count("governors", 5, 5), Ok(()));
        assert_eq!(
            check_count("governors", 6, 5),
            Err(DeformError::LimitExceeded {
                what: "governors",
                value: 6,
                max: 5
            })
        );
    }

    #[test]
    fn nan_and_infinite_coordinates_are_out_of_range() {
        assert!(coordinate_in_range(-MAX_COORDINATE));
        assert!(!coordinate_in_range(f32::NAN));
        assert!(!coordinate_in_range(f32::INFINITY));
        assert!(!coordinate_in_range(MAX_COORDINATE * 1.01));
    }
}
