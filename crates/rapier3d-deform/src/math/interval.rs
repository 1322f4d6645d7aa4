//! Scalar intervals over `f32` with outward rounding: every operation's result contains the exact real result.

use core::ops::{Add, Mul, Neg, Sub};

/// A closed interval `[lo, hi]` of `f32` values.
///
/// Every arithmetic operation rounds its result outward by one unit in the last place, so the
/// interval always contains the exact real-number result of the same operation applied to any
/// members of the operands (IEEE round-to-nearest is off by at most half an ulp).
///
/// # Performance
/// O(1) per operation; a multiplication costs four products plus two `next_up/next_down`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Interval {
    /// Lower end (inclusive).
    pub lo: f32,
    /// Upper end (inclusive).
    pub hi: f32,
}

impl Interval {
    /// The interval `[0, 0]`.
    pub const ZERO: Self = Self { lo: 0.0, hi: 0.0 };
    /// The empty interval (`lo = +inf`, `hi = -inf`); `hull` with it is the identity.
    pub const EMPTY: Self = Self {
        lo: f32::INFINITY,
        hi: f32::NEG_INFINITY,
    };

    /// The interval `[lo, hi]`. `lo > hi` is allowed only for the empty interval.
    #[inline]
    pub const fn new(lo: f32, hi: f32) -> Self {
        Self { lo, hi }
    }

    /// The degenerate interval `[x, x]`.
    #[inline]
    pub const fn point(x: f32) -> Self {
        Self { lo: x, hi: x }
    }

    /// True when the interval holds no value.
    #[inline]
    pub fn is_empty(self) -> bool {
        // Also true when an end is NaN.
        self.lo
            .partial_cmp(&self.hi)
            .is_none_or(|o| o == core::cmp::Ordering::Greater)
    }

    /// True when `x` lies in the interval.
    #[inline]
    pub fn contains(self, x: f32) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// The smallest interval containing both.
    #[inline]
    pub fn hull(self, other: Self) -> Self {
        Self::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    /// The intersection (empty when disjoint).
    #[inline]
    pub fn intersect(self, other: Self) -> Self {
        Self::new(self.lo.max(other.lo), self.hi.min(other.hi))
    }

    /// The smallest interval containing `self` and `x`.
    #[inline]
    pub fn hull_point(self, x: f32) -> Self {
        Self::new(self.lo.min(x), self.hi.max(x))
    }

    /// Width `hi - lo` (rounded up).
    #[inline]
    pub fn width(self) -> f32 {
        (self.hi - self.lo).next_up()
    }

    /// The midpoint (not rounded outward: a representative value, not a bound).
    #[inline]
    pub fn mid(self) -> f32 {
        0.5 * (self.lo + self.hi)
    }

    /// The largest absolute value of the interval's members.
    #[inline]
    pub fn mag(self) -> f32 {
        self.lo.abs().max(self.hi.abs())
    }

    /// Widens the ends outward by one ulp, turning a rounded-to-nearest result into a bound.
    #[inline]
    pub fn round_out(self) -> Self {
        Self::new(self.lo.next_down(), self.hi.next_up())
    }

    /// Widens by `margin ≥ 0` on both sides.
    #[inline]
    pub fn loosened(self, margin: f32) -> Self {
        Self::new((self.lo - margin).next_down(), (self.hi + margin).next_up())
    }

    /// `self * s` for an exact scalar `s`.
    #[inline]
    pub fn scale(self, s: f32) -> Self {
        if s >= 0.0 {
            Self::new(self.lo * s, self.hi * s).round_out()
        } else {
            Self::new(self.hi * s, self.lo * s).round_out()
        }
    }

    /// `self + x` for an exact scalar `x`.
    #[inline]
    pub fn add_scalar(self, x: f32) -> Self {
        Self::new(self.lo + x, self.hi + x).round_out()
    }
}

impl Add for Interval {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self::new(self.lo + rhs.lo, self.hi + rhs.hi).round_out()
    }
}

impl Sub for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self::new(self.lo - rhs.hi, self.hi - rhs.lo).round_out()
    }
}

impl Neg for Interval {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.hi, -self.lo)
    }
}

impl Mul for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        let a = self.lo * rhs.lo;
        let b = self.lo * rhs.hi;
        let c = self.hi * rhs.lo;
        let d = self.hi * rhs.hi;
        Self::new(a.min(b).min(c.min(d)), a.max(b).max(c.max(d))).round_out()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_contains_all_member_products_in_f64() {
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 20.0 - 10.0
        };
        for _ in 0..10_000 {
            let (a, b, c, d) = (next(), next(), next(), next());
            let x = Interval::new(a.min(b), a.max(b));
            let y = Interval::new(c.min(d), c.max(d));
            let p = x * y;
            let s = x + y;
            let dd = x - y;
            for xv in [x.lo, x.hi, x.mid()] {
                for yv in [y.lo, y.hi, y.mid()] {
                    let exact = xv as f64 * yv as f64;
                    assert!(p.lo as f64 <= exact && exact <= p.hi as f64);
                    let sum = xv as f64 + yv as f64;
                    assert!(s.lo as f64 <= sum && sum <= s.hi as f64);
                    let diff = xv as f64 - yv as f64;
                    assert!(dd.lo as f64 <= diff && diff <= dd.hi as f64);
                }
            }
        }
    }

    #[test]
    fn rounding_is_strictly_outward() {
        // 0.1 + 0.2 is not representable: the bound must straddle the exact sum.
        let s = Interval::point(0.1) + Interval::point(0.2);
        let exact = 0.1f32 as f64 + 0.2f32 as f64;
        assert!((s.lo as f64) < exact && exact < (s.hi as f64));
    }

    #[test]
    fn empty_is_identity_of_hull() {
        let x = Interval::new(-1.0, 2.0);
        assert_eq!(Interval::EMPTY.hull(x), x);
        assert!(Interval::EMPTY.is_empty());
        assert!(!x.is_empty());
    }
}
