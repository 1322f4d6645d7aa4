//! Math: conservative interval arithmetic over `f32`, the glam types shared with Rapier, and finiteness checks of positions.
//!
//! Everything in [`crate::bounds`] is built from these types. Each operation rounds outward by one
//! ulp, so a computed interval contains the exact real result (see [`Interval`]).

mod interval;
mod interval_linalg;
mod validate;

pub use interval::Interval;
pub use interval_linalg::{IMat3, IVec3};
pub use validate::validate_positions;

/// Rapier's rigid pose (rotation + translation).
pub use rapier3d::math::Pose;
/// Rapier's scalar type (`f32`).
pub use rapier3d::math::Real;
/// Rapier's vector type (`glam::Vec3`); parry uses it for points too.
pub use rapier3d::math::Vector as Vec3;
/// parry's axis-aligned bounding box.
pub use rapier3d::parry::bounding_volume::Aabb;
/// glam's 3×3 matrix (column-major), the type of a governor's linear part.
pub use rapier3d::parry::glamx::Mat3;
/// glam's 4×4 matrix, used for bone transforms read from assets.
pub use rapier3d::parry::glamx::Mat4;
/// glam's quaternion (Rapier's `Rotation`).
pub use rapier3d::parry::glamx::Quat;

/// The Frobenius norm of `m`, a bound on its operator norm (its entries squared and summed in
/// column order).
///
/// # Performance
/// O(1): nine multiplications and a square root.
#[inline]
pub(crate) fn frobenius(m: &Mat3) -> f32 {
    m.to_cols_array().iter().map(|x| x * x).sum::<f32>().sqrt()
}
