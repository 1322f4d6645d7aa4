//! Phase 1: a contact impulse becomes a yielded displacement in the body's rest frame (`d = j dt / M`, minus the yield).

use crate::math::{Quat, Vec3};

/// One contact of a deformable body after a step, in the body's rest frame (its local frame).
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSample {
    /// The contact point on the body, mapped to the rest pose (body-local coordinates).
    pub point: Vec3,
    /// The impulse-derived displacement `d = j dt / M` of the body at the contact (body-local;
    /// it points into the body, along the impulse the body received), before the yield.
    pub displacement: Vec3,
}

/// The displacement `d = R⁻¹ (j dt / M)` that a per-step contact impulse `j` (world frame, the
/// impulse *received* by the body) implies for a body of mass `M` whose rotation is `R`: the
/// velocity change `j / M` integrated over one step, expressed in the body's local (rest) frame.
/// Returns zero for a non-positive or non-finite mass.
///
/// Jones et al. use Bullet's per-step `m_appliedImpulse`; Rapier 0.36's contact impulses are
/// per-step totals too, so the same yield values apply at a similar `dt`.
///
/// # Performance
/// O(1).
#[inline]
pub fn impulse_displacement(impulse_world: Vec3, dt: f32, mass: f32, rotation: Quat) -> Vec3 {
    if !(mass.is_finite() && mass > 0.0) {
        return Vec3::ZERO;
    }
    rotation.inverse() * (impulse_world * (dt / mass))
}

/// Perfect plasticity with a yield threshold: `None` when `|d| ≤ yield` (or `d` is not finite),
/// otherwise the excess `d − yield · d̂`.
///
/// # Performance
/// O(1).
#[inline]
pub fn yielded_displacement(d: Vec3, yield_displacement: f32) -> Option<Vec3> {
    let len = d.length();
    if !len.is_finite() || len <= yield_displacement {
        return None;
    }
    Some(d * ((len - yield_displacement) / len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displacement_is_velocity_change_times_dt_in_the_local_frame() {
        let r = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let j = Vec3::new(0.0, 0.0, -600.0);
        let d = impulse_displacement(j, 0.01, 1200.0, r);
        // Δv = 0.5 m/s along −z in the world; the body's local x axis points along −z.
        assert!((d - Vec3::new(0.005, 0.0, 0.0)).length() < 1e-7, "{d}");
        assert_eq!(impulse_displacement(j, 0.01, 0.0, r), Vec3::ZERO);
        assert_eq!(impulse_displacement(j, 0.01, f32::NAN, r), Vec3::ZERO);
    }

    #[test]
    fn yield_removes_exactly_the_threshold() {
        assert_eq!(yielded_displacement(Vec3::new(0.0, 0.01, 0.0), 0.01), None);
        let d = yielded_displacement(Vec3::new(0.03, 0.04, 0.0), 0.01).unwrap();
        assert!((d.length() - 0.04).abs() < 1e-7);
        assert!((d.normalize() - Vec3::new(0.6, 0.8, 0.0)).length() < 1e-6);
        assert_eq!(yielded_displacement(Vec3::NAN, 0.0), None);
        assert!(yielded_displacement(Vec3::X, 0.0).is_some());
    }
}
