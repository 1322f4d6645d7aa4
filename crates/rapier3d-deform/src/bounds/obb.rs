//! Oriented bounding boxes fitted by principal component analysis (Pelechano 2002's per-bone boxes).

use crate::math::{Mat3, Vec3};
use rapier3d::parry::glamx::SymmetricEigen3;

/// An oriented bounding box: `center + axes · u` for `|u_i| ≤ half_extents_i`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Obb {
    /// Centre.
    pub center: Vec3,
    /// Orthonormal axes (columns), sorted by decreasing spread of the fitted points.
    pub axes: Mat3,
    /// Half extents along each axis.
    pub half_extents: Vec3,
}

impl Obb {
    /// The PCA box of `points`: axes are the eigenvectors of the points' covariance, extents the
    /// points' projections (so every point is inside). `None` for an empty or non-finite input.
    ///
    /// # Performance
    /// O(n) (two passes) plus a 3×3 symmetric eigendecomposition.
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        if points.is_empty() || points.iter().any(|p| !p.is_finite()) {
            return None;
        }
        let n = points.len() as f64;
        let mean64 = points.iter().fold([0f64; 3], |acc, p| {
            [
                acc[0] + p.x as f64,
                acc[1] + p.y as f64,
                acc[2] + p.z as f64,
            ]
        });
        let mean = Vec3::new(
            (mean64[0] / n) as f32,
            (mean64[1] / n) as f32,
            (mean64[2] / n) as f32,
        );
        let mut cov = [[0f64; 3]; 3];
        for p in points {
            let d = *p - mean;
            let d = [d.x as f64, d.y as f64, d.z as f64];
            for (r, row) in cov.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v += d[r] * d[c];
                }
            }
        }
        let cov = Mat3::from_cols_array(&core::array::from_fn(|i| (cov[i / 3][i % 3] / n) as f32));
        let eig = SymmetricEigen3::new(cov);
        let mut order = [0usize, 1, 2];
        order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
        let mut a0 = eig.eigenvectors.col(order[0]).normalize_or(Vec3::X);
        let mut a1 = eig.eigenvectors.col(order[1]);
        a1 = (a1 - a0 * a0.dot(a1)).normalize_or(a0.any_orthonormal_vector());
        let a2 = a0.cross(a1);
        if !a2.is_finite() {
            a0 = Vec3::X;
            a1 = Vec3::Y;
        }
        let axes = Mat3::from_cols(a0, a1, a0.cross(a1));
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for p in points {
            let u = axes.transpose() * (*p - mean);
            lo = lo.min(u);
            hi = hi.max(u);
        }
        let mid = 0.5 * (lo + hi);
        // Projection and back-projection round: pad by a relative epsilon so every input point
        // tests inside.
        let pad = 4.0
            * f32::EPSILON
            * (hi - lo)
                .max_element()
                .max(mean.abs().max_element())
                .max(1e-30);
        Some(Self {
            center: mean + axes * mid,
            axes,
            half_extents: 0.5 * (hi - lo) + Vec3::splat(pad),
        })
    }

    /// True when `p` lies inside (with a relative tolerance of a few ulps).
    pub fn contains(&self, p: Vec3) -> bool {
        let u = self.axes.transpose() * (p - self.center);
        let tol = 8.0
            * f32::EPSILON
            * (self.half_extents.max_element() + self.center.abs().max_element());
        u.abs().cmple(self.half_extents + Vec3::splat(tol)).all()
    }

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        core::array::from_fn(|i| {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            self.center + self.axes * (s * self.half_extents)
        })
    }

    /// Volume.
    pub fn volume(&self) -> f32 {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pca_box_of_a_rotated_slab_is_tight_and_contains_all() {
        let rot = Mat3::from_euler(rapier3d::parry::glamx::EulerRot::XYZ, 0.3, 1.1, -0.4);
        let mut s = 99u64;
        let mut r = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let pts: Vec<Vec3> = (0..2000)
            .map(|_| rot * Vec3::new(4.0 * r(), 1.0 * r(), 0.2 * r()) + Vec3::new(5.0, -2.0, 1.0))
            .collect();
        let obb = Obb::from_points(&pts).unwrap();
        assert!(pts.iter().all(|p| obb.contains(*p)));
        // The slab's own box has volume 8·4·1·0.2 = 6.4; PCA axes of 2,000 samples are off by a
        // degree or so, which costs a few percent. The AABB of the rotated slab is far bigger.
        assert!(obb.volume() < 1.1 * 6.4, "volume {}", obb.volume());
        let (lo, hi) = pts.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(l, h), p| (l.min(*p), h.max(*p)),
        );
        let aabb_volume = (hi - lo).x * (hi - lo).y * (hi - lo).z;
        assert!(
            obb.volume() < 0.3 * aabb_volume,
            "{} vs AABB {aabb_volume}",
            obb.volume()
        );
        assert!(obb.axes.col(0).dot(rot.col(0)).abs() > 0.99);
    }

    #[test]
    fn empty_or_nan_input_gives_none() {
        assert!(Obb::from_points(&[]).is_none());
        assert!(Obb::from_points(&[Vec3::NAN]).is_none());
    }
}
