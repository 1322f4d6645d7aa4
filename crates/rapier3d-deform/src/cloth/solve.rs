//! One cloth step: XPBD substeps (predict, stretch and bending constraints, velocity update, damping) with pinned vertices moved to their targets.

use super::build::{Cloth, dihedral};
use crate::error::{DeformError, Result};
use crate::math::Vec3;

impl Cloth {
    /// Advances the cloth by `dt` seconds: [`super::ClothOptions::substeps`] XPBD substeps, each
    /// predicting positions from velocities, gravity and the accelerations added since the last
    /// step, then one Gauss–Seidel pass over the stretch and bending constraints (compliance
    /// `α / h²`, multipliers reset per substep), then velocities from the position change,
    /// damped. Pinned vertices move linearly to their targets. Collisions are not handled here:
    /// the collision stage ([`super::SkinCollision::resolve`]) runs after the step.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a non-finite or non-positive `dt`.
    ///
    /// # Performance
    /// O(substeps · (V + E + B)) for V vertices, E edges, B bending pairs; no allocation.
    pub fn step(&mut self, dt: f32) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "dt",
                value: dt,
                reason: "must be finite and positive",
            });
        }
        let substeps = self.options.substeps;
        let h = dt / substeps as f32;
        let stretch_alpha = self.options.stretch_compliance / (h * h);
        let bend_alpha = self.options.bend_compliance / (h * h);
        let keep = (1.0 - self.options.damping * h).max(0.0);
        let gravity = self.options.gravity;
        self.step_start.copy_from_slice(&self.positions);
        for s in 0..substeps {
            let f = (s + 1) as f32 / substeps as f32;
            self.substep_start.copy_from_slice(&self.positions);
            for (i, x) in self.positions.iter_mut().enumerate() {
                if self.inverse_mass[i] > 0.0 {
                    let v = &mut self.velocities[i];
                    *v += h * (gravity + self.external[i]);
                    *x += h * *v;
                }
            }
            for (k, &p) in self.pinned.iter().enumerate() {
                self.positions[p as usize] = self.pin_from[k].lerp(self.pin_to[k], f);
            }
            self.solve_stretch(stretch_alpha);
            self.solve_bending(bend_alpha);
            for (i, v) in self.velocities.iter_mut().enumerate() {
                *v = (self.positions[i] - self.substep_start[i]) / h;
                if self.inverse_mass[i] > 0.0 {
                    *v *= keep;
                }
            }
        }
        self.pin_from.copy_from_slice(&self.pin_to);
        self.external.fill(Vec3::ZERO);
        Ok(())
    }

    /// One pass over the edge-length constraints `C = |x_a − x_b| − L`.
    fn solve_stretch(&mut self, alpha: f32) {
        for e in &self.edges {
            let (a, b) = (e.a as usize, e.b as usize);
            let (wa, wb) = (self.inverse_mass[a], self.inverse_mass[b]);
            let w = wa + wb;
            if w == 0.0 {
                continue;
            }
            let d = self.positions[a] - self.positions[b];
            let len = d.length();
            if len <= 1e-12 {
                continue;
            }
            let n = d / len;
            let c = len - e.rest;
            let lambda = -c / (w + alpha);
            self.positions[a] += wa * lambda * n;
            self.positions[b] -= wb * lambda * n;
        }
    }

    /// One pass over the dihedral-angle constraints `C = θ − θ₀` (angles wrapped to `(−π, π]`).
    fn solve_bending(&mut self, alpha: f32) {
        for b in &self.bends {
            let idx = b.v.map(|k| k as usize);
            let x = idx.map(|k| self.positions[k]);
            let Some((angle, grad)) = dihedral(x) else {
                continue;
            };
            let w = idx.map(|k| self.inverse_mass[k]);
            let denominator: f32 = (0..4).map(|k| w[k] * grad[k].length_squared()).sum();
            if denominator == 0.0 {
                continue;
            }
            let mut c = angle - b.rest;
            if c > core::f32::consts::PI {
                c -= core::f32::consts::TAU;
            } else if c < -core::f32::consts::PI {
                c += core::f32::consts::TAU;
            }
            let lambda = -c / (denominator + alpha);
            for k in 0..4 {
                self.positions[idx[k]] += w[k] * lambda * grad[k];
            }
        }
    }
}
