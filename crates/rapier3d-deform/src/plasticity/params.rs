//! The parameters of the plasticity model, their presets and their validation (typed errors naming the bad field).

use crate::error::{DeformError, Result};

/// Parameters of the example-based plasticity model (Jones, Thuerey, Shinar & Bargteil 2016).
///
/// The names follow the model in the module documentation; the authors' names are given for
/// each field. All lengths are in the body's length unit (metres in the presets).
///
/// # Performance
/// Plain data; [`PlasticityParams::validate`] is O(examples).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct PlasticityParams {
    /// Yield threshold on the impulse-derived displacement `|d| = |j| dt / M` (authors:
    /// `plasticityImpulseYield`). Contacts below it do not deform the body; above it only the
    /// excess `|d| − yield` does (perfect plasticity). Finite, `≥ 0`.
    pub yield_displacement: f32,
    /// Example-weight change per unit of yielded displacement (`plasticityImpulseScale`).
    /// Finite, `> 0`.
    pub impulse_scale: f32,
    /// Geodesic radius of the falloff kernel (`1 / plasticityKernelScale`). Finite, `> 0`.
    pub kernel_radius: f32,
    /// Fraction of the pending weight change applied per step (`plasticityRate`): a dent is
    /// spread over about `1 / rate` steps. In `(0, 1]`.
    pub rate: f32,
    /// Per-example multiplier of the applied change (`perExampleScale`); empty means 1 for every
    /// example. Each entry finite and `≥ 0` (0 disables an example).
    pub example_scale: Vec<f32>,
    /// A contact whose vertex no example moves by at least this much along the displacement
    /// direction is ignored (its Jacobian has no usable direction). Finite, `≥ 0`.
    pub min_example_motion: f32,
    /// A vertex's pending change is dropped once its largest entry falls below this. Finite,
    /// `> 0`.
    pub settle_threshold: f32,
    /// Per-second recovery of the restitution coefficient after deforming
    /// (`restitutionAddition`). Finite, `≥ 0`.
    pub restitution_recovery: f32,
    /// How strongly pending deformation lowers restitution (`restitutionExponent`): the
    /// coefficient is at most `exp(−exponent · pending / vertices) · e₀`, `pending` being the
    /// decayed sum of the deposited `|δβ|` (see [`super::PlasticState::pending_magnitude`]).
    /// Finite, `≥ 0`.
    pub restitution_exponent: f32,
}

/// Below this sum a row of example weights is degenerate and resets to the rest pose (the
/// authors' constant).
pub const DEGENERATE_ROW_SUM: f32 = 1e-4;

impl PlasticityParams {
    /// The car parameters of the authors' `adamsCarLaunchPlastic` scene (10 cars at 34–35 m/s,
    /// `dt = 0.004` s): yield 1.1 cm, scale 80, kernel radius 1/0.3 m, rate 0.025.
    pub fn jones_car() -> Self {
        Self {
            yield_displacement: 1.1e-2,
            impulse_scale: 80.0,
            kernel_radius: 1.0 / 0.3,
            rate: 0.025,
            example_scale: Vec::new(),
            min_example_motion: 1e-3,
            settle_threshold: 1e-5,
            restitution_recovery: 1.0,
            restitution_exponent: 12.0,
        }
    }

    /// The barrel parameters of the authors' `barrelStackParams` scene: yield 3 mm, scale 90,
    /// kernel radius 1/0.02 (every vertex of a barrel), rate 0.3.
    pub fn jones_barrel() -> Self {
        Self {
            yield_displacement: 3e-3,
            impulse_scale: 90.0,
            kernel_radius: 1.0 / 0.02,
            rate: 0.3,
            example_scale: Vec::new(),
            min_example_motion: 1e-3,
            settle_threshold: 1e-5,
            restitution_recovery: 1.0,
            restitution_exponent: 12.0,
        }
    }

    /// The multiplier of example `e` (1 when [`Self::example_scale`] is empty or too short).
    #[inline]
    pub fn example_multiplier(&self, e: usize) -> f32 {
        self.example_scale.get(e).copied().unwrap_or(1.0)
    }

    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] naming the field (`yield_displacement`,
    /// `impulse_scale`, `kernel_radius`, `rate`, `min_example_motion`, `settle_threshold`,
    /// `restitution_recovery`, `restitution_exponent`);
    /// [`DeformError::InvalidGlobalWeight`] with `what = "example scale"` and the slot for a
    /// bad per-example multiplier.
    ///
    /// # Performance
    /// O(examples).
    pub fn validate(&self) -> Result<()> {
        non_negative("yield_displacement", self.yield_displacement)?;
        positive("impulse_scale", self.impulse_scale)?;
        positive("kernel_radius", self.kernel_radius)?;
        if !(self.rate > 0.0 && self.rate <= 1.0) {
            return Err(DeformError::InvalidParameter {
                name: "rate",
                value: self.rate,
                reason: "must be in (0, 1]",
            });
        }
        non_negative("min_example_motion", self.min_example_motion)?;
        positive("settle_threshold", self.settle_threshold)?;
        non_negative("restitution_recovery", self.restitution_recovery)?;
        non_negative("restitution_exponent", self.restitution_exponent)?;
        for (slot, &value) in self.example_scale.iter().enumerate() {
            if !(value.is_finite() && value >= 0.0) {
                return Err(DeformError::InvalidGlobalWeight {
                    what: "example scale",
                    slot,
                    value,
                    reason: "per-example scales must be finite and non-negative",
                });
            }
        }
        Ok(())
    }
}

fn non_negative(name: &'static str, value: f32) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(DeformError::InvalidParameter {
            name,
            value,
            reason: "must be finite and non-negative",
        })
    }
}

fn positive(name: &'static str, value: f32) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(DeformError::InvalidParameter {
            name,
            value,
            reason: "must be finite and positive",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid() {
        PlasticityParams::jones_car().validate().unwrap();
        PlasticityParams::jones_barrel().validate().unwrap();
    }

    #[test]
    fn example_multiplier_defaults_to_one() {
        let mut p = PlasticityParams::jones_car();
        assert_eq!(p.example_multiplier(3), 1.0);
        p.example_scale = vec![1.0, 0.5];
        assert_eq!(p.example_multiplier(1), 0.5);
        assert_eq!(p.example_multiplier(2), 1.0);
    }
}
