//! Finiteness and range checks of position arrays, shared by every builder and evaluator that takes positions from the user.

use crate::error::{DeformError, Result};
use crate::limits::MAX_COORDINATE;
use crate::math::Vec3;

/// Rejects non-finite positions and coordinates beyond [`MAX_COORDINATE`].
///
/// # Errors
/// [`DeformError::NonFinitePosition`] or [`DeformError::PositionOutOfRange`] naming the first
/// bad index.
///
/// # Performance
/// O(positions).
pub fn validate_positions(what: &'static str, positions: &[Vec3]) -> Result<()> {
    for (index, p) in positions.iter().enumerate() {
        if !p.is_finite() {
            return Err(DeformError::NonFinitePosition { what, index });
        }
        let value = p.abs().max_element();
        if value > MAX_COORDINATE {
            return Err(DeformError::PositionOutOfRange {
                what,
                index,
                value: p.to_array().into_iter().fold(
                    0.0,
                    |a: f32, x| {
                        if x.abs() > a.abs() { x } else { a }
                    },
                ),
                max: MAX_COORDINATE,
            });
        }
    }
    Ok(())
}
