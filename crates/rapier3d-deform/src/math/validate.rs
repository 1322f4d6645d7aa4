//! Finiteness checks of position arrays, shared by every builder and evaluator that takes positions from the user.

use crate::error::{DeformError, Result};
use crate::math::Vec3;

/// Rejects non-finite positions.
///
/// # Errors
/// [`DeformError::NonFinitePosition`] naming the first bad index.
///
/// # Performance
/// O(positions).
pub fn validate_positions(what: &'static str, positions: &[Vec3]) -> Result<()> {
    match positions.iter().position(|p| !p.is_finite()) {
        Some(index) => Err(DeformError::NonFinitePosition { what, index }),
        None => Ok(()),
    }
}
