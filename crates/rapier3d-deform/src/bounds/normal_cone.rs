//! Discrete normal cones: which of 14 fixed directions see every normal of a patch from the positive side.

use crate::math::{IVec3, Vec3};

/// A discrete normal cone over the 14 directions `±x, ±y, ±z` and `(±1, ±1, ±1)`.
///
/// Bit `i` is set when direction [`NormalCone::DIRECTIONS`]`[i]` has a strictly positive dot
/// product with every normal of the patch (BN-Tree §4.1, condition 1: the patch is then a height
/// field over the plane orthogonal to that direction). The empty cone (no bit) means no direction
/// is known to work. The cone of a union of patches is the intersection of their cones.
///
/// # Performance
/// O(1) per operation; 2 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct NormalCone(pub u16);

impl NormalCone {
    /// All 14 directions.
    pub const ALL: Self = Self((1 << 14) - 1);
    /// No direction.
    pub const EMPTY: Self = Self(0);
    /// The 14 directions (not normalised: every component is exactly -1, 0 or 1).
    pub const DIRECTIONS: [Vec3; 14] = [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(1.0, 1.0, 1.0),
        Vec3::new(1.0, 1.0, -1.0),
        Vec3::new(1.0, -1.0, 1.0),
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(-1.0, 1.0, 1.0),
        Vec3::new(-1.0, 1.0, -1.0),
        Vec3::new(-1.0, -1.0, 1.0),
        Vec3::new(-1.0, -1.0, -1.0),
    ];

    /// Relative margin for [`NormalCone::from_normal_bound`]: a direction is set only when the
    /// lower bound of `d·[n]` exceeds this fraction of the bound's magnitude, so a normal evaluated
    /// from rounded `f32` vertex positions cannot fall on the wrong side.
    pub const BOUND_MARGIN: f32 = 1e-5;

    /// The cone of a single exact normal: every direction with `d·n > 0`.
    #[inline]
    pub fn from_normal(n: Vec3) -> Self {
        let mut bits = 0u16;
        for (i, d) in Self::DIRECTIONS.iter().enumerate() {
            if d.dot(n) > 0.0 {
                bits |= 1 << i;
            }
        }
        Self(bits)
    }

    /// The cone of a normal bound `[n]` (an interval box containing every deformed normal):
    /// bit `i` set iff the lower bound of `dᵢ·[n]` is positive (beyond [`Self::BOUND_MARGIN`]).
    #[inline]
    pub fn from_normal_bound(n: &IVec3) -> Self {
        let scale = n.x.mag() + n.y.mag() + n.z.mag();
        let margin = Self::BOUND_MARGIN * scale;
        let mut bits = 0u16;
        for (i, d) in Self::DIRECTIONS.iter().enumerate() {
            if n.dot_exact(*d).lo > margin {
                bits |= 1 << i;
            }
        }
        Self(bits)
    }

    /// Directions in both cones.
    #[inline]
    pub fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// True when no direction is set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when direction `i` is set.
    #[inline]
    pub fn contains_direction(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }

    /// The set directions.
    pub fn directions(self) -> impl Iterator<Item = Vec3> {
        (0..14)
            .filter(move |&i| self.contains_direction(i))
            .map(|i| Self::DIRECTIONS[i])
    }

    /// Number of set directions.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Interval;

    #[test]
    fn single_normal_cone_and_bound_agree_on_points() {
        let n = Vec3::new(0.3, 0.9, -0.1);
        let exact = NormalCone::from_normal(n);
        let bound = NormalCone::from_normal_bound(&IVec3::point(n));
        assert_eq!(exact, bound);
        assert!(exact.contains_direction(2)); // +y
        assert!(!exact.contains_direction(3));
    }

    #[test]
    fn a_wide_bound_sets_fewer_directions() {
        let n = IVec3::new(
            Interval::new(-1.0, 1.0),
            Interval::new(0.5, 1.0),
            Interval::new(-1.0, 1.0),
        );
        let c = NormalCone::from_normal_bound(&n);
        assert_eq!(c, NormalCone(1 << 2));
    }
}
