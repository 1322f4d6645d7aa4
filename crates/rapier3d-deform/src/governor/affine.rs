//! A governor: the affine transform `p ↦ A p + t` that a bone, example bone, particle or control point applies.

use crate::math::{Mat3, Mat4, Vec3};

/// An affine transform `p ↦ linear · p + translation`, the governor of BN-Tree eq. (4).
///
/// Bones (skinning), example bones (example blend), particles (point-based animation) and control
/// points of a subdivision surface (`linear = 0`, `translation = point`) are all governors.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Affine {
    /// The linear part `A`.
    pub linear: Mat3,
    /// The translation `t`.
    pub translation: Vec3,
}

impl Default for Affine {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Affine {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        linear: Mat3::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// From a linear part and a translation.
    #[inline]
    pub const fn new(linear: Mat3, translation: Vec3) -> Self {
        Self {
            linear,
            translation,
        }
    }

    /// The constant map to `point` (`A = 0`): how a control point governs a subdivision surface.
    #[inline]
    pub const fn constant(point: Vec3) -> Self {
        Self {
            linear: Mat3::ZERO,
            translation: point,
        }
    }

    /// The affine part of a 4×4 matrix (its last row is ignored).
    #[inline]
    pub fn from_mat4(m: &Mat4) -> Self {
        Self {
            linear: Mat3::from_mat4(*m),
            translation: m.w_axis.truncate(),
        }
    }

    /// `A p + t`.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.linear * p + self.translation
    }

    /// `self ∘ other`: first `other`, then `self`.
    #[inline]
    pub fn compose(&self, other: &Self) -> Self {
        Self {
            linear: self.linear * other.linear,
            translation: self.linear * other.translation + self.translation,
        }
    }

    /// True when every entry is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.linear.is_finite() && self.translation.is_finite()
    }

    /// `Σ wᵢ Tᵢ` entrywise (a linear blend of matrices, as linear blend skinning does).
    pub fn weighted_sum(items: impl IntoIterator<Item = (f32, Affine)>) -> Self {
        let mut out = Self::new(Mat3::ZERO, Vec3::ZERO);
        for (w, t) in items {
            out.linear += t.linear * w;
            out.translation += t.translation * w;
        }
        out
    }
}
