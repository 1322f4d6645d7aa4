//! Phase 5: centre of mass and inertia of the deformed body, and velocities that keep its motion continuous (no jump of the world geometry, no energy created).

use rapier3d::parry::mass_properties::MassProperties;

use crate::error::{DeformError, Result};
use crate::limits::MAX_COORDINATE;
use crate::math::{Mat3, Vec3};

/// Mass properties of a body whose collision proxy deforms: exact rest mass properties (e.g.
/// those of the closed rest mesh) corrected by the motion of point masses at the proxy's
/// sphere centres.
///
/// Each sphere carries the fixed fraction `m_s ∝ r_s³` of the body's mass (its rest ball
/// volume; overlaps counted twice, as in Jones et al.'s sphere version). For blended centres
/// `c_s` with point centre `p(c) = Σ m_s c_s` and point inertia
/// `P(c) = M Σ m_s (|c_s − p|² 𝟙 − (c_s − p)(c_s − p)ᵀ)`:
///
/// ```text
/// com  = com_rest + p(c) − p(c_rest)
/// I    = I_rest + P(c) − P(c_rest)        (both about their own centre)
/// ```
///
/// so the rest pose gives the exact rest properties back, and a dent shifts the centre and the
/// inertia by what the moved material shifts them. The mass stays constant (volume changes are
/// ignored, as in the authors' code). If the corrected inertia loses definiteness (its
/// smallest principal moment below 5 % of the rest one), the rest inertia is kept.
///
/// # Performance
/// [`SphereMassModel::deformed`] is O(S) plus a 3 × 3 eigen-decomposition.
#[derive(Clone, Debug)]
pub struct SphereMassModel {
    rest: MassProperties,
    rest_inertia: Mat3,
    fractions: Vec<f32>,
    rest_point_com: Vec3,
    rest_point_inertia: Mat3,
    min_principal: f32,
}

impl SphereMassModel {
    /// The model for a body with mass properties `rest` (mass included) whose proxy has these
    /// rest spheres.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no sphere, [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFinitePosition`], [`DeformError::PositionOutOfRange`],
    /// [`DeformError::InvalidElement`] for a negative, non-finite or too large radius,
    /// [`DeformError::InvalidParameter`] for all-zero radii or a non-positive mass.
    ///
    /// # Performance
    /// O(S).
    pub fn new(rest: MassProperties, centres: &[Vec3], radii: &[f32]) -> Result<Self> {
        if centres.is_empty() {
            return Err(DeformError::Empty {
                what: "mass model spheres",
            });
        }
        if centres.len() != radii.len() {
            return Err(DeformError::LengthMismatch {
                what: "mass model radii (one per centre)",
                expected: centres.len(),
                actual: radii.len(),
            });
        }
        crate::math::validate_positions("sphere centre", centres)?;
        if let Some((index, &r)) = radii
            .iter()
            .enumerate()
            .find(|(_, r)| !(r.is_finite() && (0.0..=MAX_COORDINATE).contains(*r)))
        {
            return Err(DeformError::InvalidElement {
                what: "sphere radius",
                index,
                value: r,
                reason: "must be finite, non-negative and at most limits::MAX_COORDINATE",
            });
        }
        let mass = rest.mass();
        if !(mass.is_finite() && mass > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "mass",
                value: mass,
                reason: "the body's mass must be finite and positive",
            });
        }
        let total: f64 = radii.iter().map(|r| (*r as f64).powi(3)).sum();
        if total <= 0.0 {
            return Err(DeformError::InvalidParameter {
                name: "sphere radius",
                value: 0.0,
                reason: "at least one sphere must have a positive radius",
            });
        }
        let fractions: Vec<f32> = radii
            .iter()
            .map(|r| ((*r as f64).powi(3) / total) as f32)
            .collect();
        let (rest_point_com, rest_point_inertia) = point_moments(mass, &fractions, centres);
        let principal = rest.principal_inertia();
        Ok(Self {
            rest,
            rest_inertia: rest.reconstruct_inertia_matrix(),
            fractions,
            rest_point_com,
            rest_point_inertia,
            min_principal: principal.min_element(),
        })
    }

    /// The rest mass properties.
    pub fn rest(&self) -> MassProperties {
        self.rest
    }

    /// Number of spheres.
    pub fn sphere_count(&self) -> usize {
        self.fractions.len()
    }

    /// The mass properties for the current (blended) sphere centres.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] for a wrong number of centres,
    /// [`DeformError::NonFinitePosition`] for a non-finite one.
    ///
    /// # Performance
    /// O(S).
    pub fn deformed(&self, centres: &[Vec3]) -> Result<MassProperties> {
        if centres.len() != self.fractions.len() {
            return Err(DeformError::LengthMismatch {
                what: "sphere centres of the mass model",
                expected: self.fractions.len(),
                actual: centres.len(),
            });
        }
        crate::math::validate_positions("sphere centre", centres)?;
        let mass = self.rest.mass();
        let (com, inertia) = point_moments(mass, &self.fractions, centres);
        let local_com = self.rest.local_com + (com - self.rest_point_com);
        let corrected = self.rest_inertia + (inertia - self.rest_point_inertia);
        let candidate = MassProperties::with_inertia_matrix(local_com, mass, corrected);
        if candidate.principal_inertia().min_element() >= 0.05 * self.min_principal {
            Ok(candidate)
        } else {
            Ok(MassProperties::with_principal_inertia_frame(
                local_com,
                mass,
                self.rest.principal_inertia(),
                self.rest.principal_inertia_local_frame,
            ))
        }
    }
}

/// Centre and inertia (about that centre) of point masses `mass · fractions[s]` at `centres`.
fn point_moments(mass: f32, fractions: &[f32], centres: &[Vec3]) -> (Vec3, Mat3) {
    let com = fractions
        .iter()
        .zip(centres)
        .map(|(f, c)| c.as_dvec3() * *f as f64)
        .sum::<rapier3d::parry::glamx::DVec3>();
    let mut m = [[0.0f64; 3]; 3];
    for (f, c) in fractions.iter().zip(centres) {
        let r = (c.as_dvec3() - com).to_array();
        let r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        let w = mass as f64 * *f as f64;
        for (a, row) in m.iter_mut().enumerate() {
            for (b, x) in row.iter_mut().enumerate() {
                *x += w * (if a == b { r2 } else { 0.0 } - r[a] * r[b]);
            }
        }
    }
    (
        com.as_vec3(),
        Mat3::from_cols_array_2d(&m.map(|row| row.map(|x| x as f32))),
    )
}

/// The rigid motion of a body: velocity of its centre of mass and angular velocity (world).
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyMotion {
    /// Linear velocity of the centre of mass.
    pub linvel: Vec3,
    /// Angular velocity.
    pub angvel: Vec3,
}

/// Kinetic energy `½ m |v|² + ½ ωᵀ I ω` (world inertia `I` about the centre of mass).
///
/// # Performance
/// O(1).
#[inline]
pub fn kinetic_energy(mass: f32, inertia_world: Mat3, motion: BodyMotion) -> f32 {
    0.5 * mass * motion.linvel.length_squared()
        + 0.5 * motion.angvel.dot(inertia_world * motion.angvel)
}

/// The motion after a mass-property update that moves the centre of mass from `old_com` to
/// `new_com` and changes the world inertia about it, while the body's pose, hence its world
/// geometry, stays put.
///
/// A plastic change is the work of internal forces, which conserve momentum: the centre of
/// mass keeps its velocity (`v′ = v`) and the angular momentum is kept (`ω′ = I′⁻¹ I ω`). A
/// smaller inertia would then spin the body faster and raise its kinetic energy (the skater
/// pulling in her arms, work that a dent does not do): in that case both velocities are scaled
/// back to the old energy, so a plastic update never creates energy.
///
/// # Performance
/// O(1).
pub fn continue_motion(
    mass: f32,
    motion: BodyMotion,
    old_inertia_world: Mat3,
    new_inertia_world: Mat3,
) -> BodyMotion {
    let momentum = old_inertia_world * motion.angvel;
    let det = new_inertia_world.determinant();
    let angvel = if det.is_finite() && det > 0.0 {
        new_inertia_world.inverse() * momentum
    } else {
        motion.angvel
    };
    let next = BodyMotion {
        linvel: motion.linvel,
        angvel: if angvel.is_finite() {
            angvel
        } else {
            motion.angvel
        },
    };
    let before = kinetic_energy(mass, old_inertia_world, motion);
    let after = kinetic_energy(mass, new_inertia_world, next);
    if after > before && after > 0.0 {
        let s = (before.max(0.0) / after).sqrt();
        BodyMotion {
            linvel: next.linvel * s,
            angvel: next.angvel * s,
        }
    } else {
        next
    }
}

/// The world inertia matrix `R I Rᵀ` of mass properties under rotation `rotation`.
///
/// # Performance
/// O(1).
pub fn world_inertia(mp: &MassProperties, rotation: crate::math::Quat) -> Mat3 {
    let r = Mat3::from_quat(rotation);
    r * mp.reconstruct_inertia_matrix() * r.transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_inertia(mass: f32, half: Vec3) -> Vec3 {
        let s = half * 2.0;
        mass / 12.0
            * Vec3::new(
                s.y * s.y + s.z * s.z,
                s.x * s.x + s.z * s.z,
                s.x * s.x + s.y * s.y,
            )
    }

    fn model() -> (SphereMassModel, Vec<Vec3>) {
        let rest = MassProperties::new(
            Vec3::new(0.1, 0.0, 0.0),
            100.0,
            box_inertia(100.0, Vec3::new(2.0, 0.5, 0.8)),
        );
        let centres: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new(-1.75 + 0.5 * i as f32, 0.0, 0.0))
            .collect();
        (
            SphereMassModel::new(rest, &centres, &[0.3; 8]).unwrap(),
            centres,
        )
    }

    #[test]
    fn rest_centres_give_the_rest_properties() {
        let (m, centres) = model();
        let mp = m.deformed(&centres).unwrap();
        assert!((mp.local_com - m.rest().local_com).length() < 1e-6);
        let a = mp.reconstruct_inertia_matrix();
        let b = m.rest().reconstruct_inertia_matrix();
        for c in 0..3 {
            assert!((a.col(c) - b.col(c)).length() < 1e-3 * b.col(c).length().max(1.0));
        }
    }

    #[test]
    fn moving_one_sphere_shifts_the_centre_by_its_share() {
        let (m, mut centres) = model();
        centres[7].x -= 0.4;
        let mp = m.deformed(&centres).unwrap();
        // Equal radii: each sphere carries 1/8 of the mass.
        assert!(
            (mp.local_com.x - (0.1 - 0.05)).abs() < 1e-5,
            "{}",
            mp.local_com
        );
        assert_eq!(mp.mass(), 100.0);
        // Pulling mass towards the centre lowers the moments about y and z (closed form for
        // point masses: Δ = Σ m_i (x_i − x̄)² before and after).
        let xs_before: Vec<f32> = model().1.iter().map(|c| c.x).collect();
        let xs_after: Vec<f32> = centres.iter().map(|c| c.x).collect();
        let spread = |xs: &[f32]| {
            let mean = xs.iter().sum::<f32>() / 8.0;
            xs.iter().map(|x| 12.5 * (x - mean).powi(2)).sum::<f32>()
        };
        let expected =
            m.rest().reconstruct_inertia_matrix().y_axis.y + spread(&xs_after) - spread(&xs_before);
        let got = mp.reconstruct_inertia_matrix().y_axis.y;
        assert!((got - expected).abs() < 1e-2 * expected, "{got} {expected}");
    }

    #[test]
    fn motion_keeps_momentum_and_never_gains_energy() {
        let inertia = Mat3::from_diagonal(Vec3::new(10.0, 20.0, 30.0));
        let motion = BodyMotion {
            linvel: Vec3::new(3.0, 0.0, 0.0),
            angvel: Vec3::new(0.0, 1.0, 2.0),
        };
        let e0 = kinetic_energy(50.0, inertia, motion);
        // Same inertia: nothing changes.
        let same = continue_motion(50.0, motion, inertia, inertia);
        assert!((same.angvel - motion.angvel).length() < 1e-6 && same.linvel == motion.linvel);
        // Heavier: angular momentum kept, energy lost.
        let heavier = inertia * 2.0;
        let next = continue_motion(50.0, motion, inertia, heavier);
        assert!((next.angvel - motion.angvel * 0.5).length() < 1e-6);
        assert_eq!(next.linvel, motion.linvel);
        assert!(kinetic_energy(50.0, heavier, next) < e0);
        // Lighter about z: momentum would spin it up; capped at the old energy instead.
        let lighter = Mat3::from_diagonal(Vec3::new(10.0, 20.0, 10.0));
        let next = continue_motion(50.0, motion, inertia, lighter);
        let e1 = kinetic_energy(50.0, lighter, next);
        assert!(
            e1 <= e0 * (1.0 + 1e-6) && e1 >= e0 * (1.0 - 1e-4),
            "{e0} {e1}"
        );
        // A singular inertia keeps ω.
        let next = continue_motion(50.0, motion, inertia, Mat3::ZERO);
        assert!(next.angvel.normalize().dot(motion.angvel.normalize()) > 0.9999);
    }

    #[test]
    fn bad_input_is_typed() {
        let rest = MassProperties::new(Vec3::ZERO, 1.0, Vec3::ONE);
        assert!(SphereMassModel::new(rest, &[], &[]).is_err());
        assert!(SphereMassModel::new(rest, &[Vec3::ZERO], &[]).is_err());
        assert!(SphereMassModel::new(rest, &[Vec3::ZERO], &[-1.0]).is_err());
        assert!(SphereMassModel::new(rest, &[Vec3::ZERO], &[0.0]).is_err());
        let zero = MassProperties::new(Vec3::ZERO, 0.0, Vec3::ONE);
        assert!(SphereMassModel::new(zero, &[Vec3::ZERO], &[1.0]).is_err());
        let (m, _) = model();
        assert!(m.deformed(&[Vec3::ZERO]).is_err());
        assert!(m.deformed(&[Vec3::NAN; 8]).is_err());
    }
}
