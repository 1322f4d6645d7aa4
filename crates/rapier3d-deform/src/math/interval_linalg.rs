//! Interval 3-vectors and 3×3 matrices: the products, cross products and cofactors the normal bounds need.

use super::Interval;
use crate::math::{Mat3, Vec3};
use core::ops::{Add, Mul, Sub};

/// A 3-vector of [`Interval`]s: an axis-aligned box of vectors.
///
/// # Performance
/// O(1) per operation.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct IVec3 {
    /// x component.
    pub x: Interval,
    /// y component.
    pub y: Interval,
    /// z component.
    pub z: Interval,
}

impl IVec3 {
    /// The zero vector.
    pub const ZERO: Self = Self {
        x: Interval::ZERO,
        y: Interval::ZERO,
        z: Interval::ZERO,
    };
    /// The empty box (identity of [`IVec3::hull`]).
    pub const EMPTY: Self = Self {
        x: Interval::EMPTY,
        y: Interval::EMPTY,
        z: Interval::EMPTY,
    };

    /// From three intervals.
    #[inline]
    pub const fn new(x: Interval, y: Interval, z: Interval) -> Self {
        Self { x, y, z }
    }

    /// The degenerate box around one vector.
    #[inline]
    pub fn point(v: Vec3) -> Self {
        Self::new(
            Interval::point(v.x),
            Interval::point(v.y),
            Interval::point(v.z),
        )
    }

    /// The box `[mins, maxs]`.
    #[inline]
    pub fn from_bounds(mins: Vec3, maxs: Vec3) -> Self {
        Self::new(
            Interval::new(mins.x, maxs.x),
            Interval::new(mins.y, maxs.y),
            Interval::new(mins.z, maxs.z),
        )
    }

    /// Lower corner.
    #[inline]
    pub fn mins(&self) -> Vec3 {
        Vec3::new(self.x.lo, self.y.lo, self.z.lo)
    }

    /// Upper corner.
    #[inline]
    pub fn maxs(&self) -> Vec3 {
        Vec3::new(self.x.hi, self.y.hi, self.z.hi)
    }

    /// Component `i` (0, 1 or 2).
    #[inline]
    pub fn get(&self, i: usize) -> Interval {
        match i {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }

    /// Mutable component `i` (0, 1 or 2).
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Interval {
        match i {
            0 => &mut self.x,
            1 => &mut self.y,
            _ => &mut self.z,
        }
    }

    /// Componentwise hull.
    #[inline]
    pub fn hull(self, o: Self) -> Self {
        Self::new(self.x.hull(o.x), self.y.hull(o.y), self.z.hull(o.z))
    }

    /// Componentwise intersection (use when both boxes are known to contain the same value).
    #[inline]
    pub fn intersect(self, o: Self) -> Self {
        Self::new(
            self.x.intersect(o.x),
            self.y.intersect(o.y),
            self.z.intersect(o.z),
        )
    }

    /// Componentwise hull with a point.
    #[inline]
    pub fn hull_point(self, p: Vec3) -> Self {
        Self::new(
            self.x.hull_point(p.x),
            self.y.hull_point(p.y),
            self.z.hull_point(p.z),
        )
    }

    /// True when `p` lies in the box.
    #[inline]
    pub fn contains(&self, p: Vec3) -> bool {
        self.x.contains(p.x) && self.y.contains(p.y) && self.z.contains(p.z)
    }

    /// Bound of the cross product of any members.
    #[inline]
    pub fn cross(self, o: Self) -> Self {
        Self::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    /// Bound of `d · v` for an exact direction `d` and any member `v`.
    #[inline]
    pub fn dot_exact(self, d: Vec3) -> Interval {
        self.x.scale(d.x) + self.y.scale(d.y) + self.z.scale(d.z)
    }

    /// `self * s` for an interval scalar.
    #[inline]
    pub fn scale(self, s: Interval) -> Self {
        Self::new(self.x * s, self.y * s, self.z * s)
    }

    /// `self * s` for an exact scalar.
    #[inline]
    pub fn scale_exact(self, s: f32) -> Self {
        Self::new(self.x.scale(s), self.y.scale(s), self.z.scale(s))
    }
}

impl Add for IVec3 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl Sub for IVec3 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

/// A 3×3 matrix of [`Interval`]s, stored by columns like `glam::Mat3`.
///
/// # Performance
/// O(1) per operation (27 interval products for a matrix product).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct IMat3 {
    /// The three columns.
    pub cols: [IVec3; 3],
}

impl IMat3 {
    /// The zero matrix.
    pub const ZERO: Self = Self {
        cols: [IVec3::ZERO; 3],
    };
    /// The empty matrix box (identity of [`IMat3::hull`]).
    pub const EMPTY: Self = Self {
        cols: [IVec3::EMPTY; 3],
    };

    /// The degenerate box around an exact matrix.
    #[inline]
    pub fn point(m: Mat3) -> Self {
        Self {
            cols: [
                IVec3::point(m.x_axis),
                IVec3::point(m.y_axis),
                IVec3::point(m.z_axis),
            ],
        }
    }

    /// Entry at row `r`, column `c`.
    #[inline]
    pub fn get(&self, r: usize, c: usize) -> Interval {
        self.cols[c].get(r)
    }

    /// Mutable entry at row `r`, column `c`.
    #[inline]
    pub fn get_mut(&mut self, r: usize, c: usize) -> &mut Interval {
        self.cols[c].get_mut(r)
    }

    /// Entrywise hull.
    #[inline]
    pub fn hull(self, o: Self) -> Self {
        Self {
            cols: [
                self.cols[0].hull(o.cols[0]),
                self.cols[1].hull(o.cols[1]),
                self.cols[2].hull(o.cols[2]),
            ],
        }
    }

    /// Entrywise hull with an exact matrix.
    #[inline]
    pub fn hull_point(self, m: Mat3) -> Self {
        self.hull(Self::point(m))
    }

    /// True when every entry of `m` lies in the corresponding interval.
    pub fn contains(&self, m: Mat3) -> bool {
        self.cols[0].contains(m.x_axis)
            && self.cols[1].contains(m.y_axis)
            && self.cols[2].contains(m.z_axis)
    }

    /// Bound of `M v` for any member `M` and any member `v`.
    #[inline]
    pub fn mul_vec(&self, v: IVec3) -> IVec3 {
        self.cols[0].scale(v.x) + self.cols[1].scale(v.y) + self.cols[2].scale(v.z)
    }

    /// The outer product `u vᵀ` (column `c` is `u · v_c`).
    #[inline]
    pub fn outer(u: IVec3, v: IVec3) -> Self {
        Self {
            cols: [u.scale(v.x), u.scale(v.y), u.scale(v.z)],
        }
    }

    /// Bound of `A M` for an exact matrix `A` and any member `M`.
    #[inline]
    pub fn exact_mul(a: Mat3, m: &Self) -> Self {
        let ia = Self::point(a);
        ia * *m
    }

    /// The cofactor-columns matrix of BN-Tree eq. (2): `(j2×j3, j3×j1, j1×j2)`, which maps a rest
    /// normal `n0` to the deformed (unnormalised) normal `det J · J⁻ᵀ n0`.
    #[inline]
    pub fn normal_transform(&self) -> Self {
        let [j1, j2, j3] = self.cols;
        Self {
            cols: [j2.cross(j3), j3.cross(j1), j1.cross(j2)],
        }
    }
}

impl Add for IMat3 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self {
            cols: [
                self.cols[0] + o.cols[0],
                self.cols[1] + o.cols[1],
                self.cols[2] + o.cols[2],
            ],
        }
    }
}

impl Sub for IMat3 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self {
            cols: [
                self.cols[0] - o.cols[0],
                self.cols[1] - o.cols[1],
                self.cols[2] - o.cols[2],
            ],
        }
    }
}

impl Mul for IMat3 {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Self {
            cols: [
                self.mul_vec(o.cols[0]),
                self.mul_vec(o.cols[1]),
                self.mul_vec(o.cols[2]),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        }
    }

    #[test]
    fn matrix_product_and_normal_transform_contain_exact_members() {
        let mut r = rng(7);
        for _ in 0..2000 {
            let a = Mat3::from_cols_array(&core::array::from_fn(|_| r()));
            let b = Mat3::from_cols_array(&core::array::from_fn(|_| r()));
            let a2 = Mat3::from_cols_array(&core::array::from_fn(|_| r()));
            let ia = IMat3::point(a).hull_point(a2);
            let ib = IMat3::point(b);
            let prod = ia * ib;
            for m in [a, a2, 0.5 * (a + a2)] {
                // Compare against an f64 product to avoid trusting f32 rounding.
                for rr in 0..3 {
                    for c in 0..3 {
                        let exact: f64 = (0..3)
                            .map(|k| m.col(k)[rr] as f64 * b.col(c)[k] as f64)
                            .sum();
                        let iv = prod.get(rr, c);
                        // Midpoint matrix entries are themselves rounded; allow that tiny slack.
                        let slack = if m == a || m == a2 { 0.0 } else { 1e-5 };
                        assert!(iv.lo as f64 - slack <= exact && exact <= iv.hi as f64 + slack);
                    }
                }
                let nt = IMat3::point(m).normal_transform();
                let cof = [
                    m.y_axis.cross(m.z_axis),
                    m.z_axis.cross(m.x_axis),
                    m.x_axis.cross(m.y_axis),
                ];
                if m == a || m == a2 {
                    assert!(
                        ia.normal_transform()
                            .contains(Mat3::from_cols(cof[0], cof[1], cof[2]))
                    );
                }
                assert!(nt.contains(Mat3::from_cols(cof[0], cof[1], cof[2])));
            }
        }
    }

    #[test]
    fn normal_transform_maps_rest_normal_to_deformed_normal() {
        // A triangle's deformation gradient J (eq. 3) maps its rest normal through M = cof columns
        // onto a positive multiple of the deformed normal.
        let a0 = Vec3::new(0.0, 0.0, 0.0);
        let b0 = Vec3::new(1.0, 0.0, 0.0);
        let c0 = Vec3::new(0.0, 1.0, 0.0);
        let n0 = (b0 - a0).cross(c0 - a0).normalize();
        let g = Mat3::from_cols(Vec3::X, Vec3::Y, Vec3::new(-1.0, -1.0, 0.0)).transpose()
            * Mat3::from_cols(a0 - c0, b0 - c0, n0).inverse();
        let rot = Mat3::from_rotation_y(0.7) * Mat3::from_diagonal(Vec3::new(1.5, 0.5, 2.0));
        let (a, b, c) = (rot * a0, rot * b0 + Vec3::Z * 0.3, rot * c0);
        let j = Mat3::from_cols(a, b, c) * g;
        let n = IMat3::point(j).normal_transform().mul_vec(IVec3::point(n0));
        let exact = (b - a).cross(c - a);
        let mid = Vec3::new(n.x.mid(), n.y.mid(), n.z.mid());
        assert!(
            mid.normalize().dot(exact.normalize()) > 0.9999,
            "{mid:?} vs {exact:?}"
        );
    }
}
