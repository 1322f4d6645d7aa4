//! One cloth step: XPBD substeps (predict, stretch constraints and bending links, velocity update, damping) with pinned vertices moved to their targets.

use super::build::Cloth;
use super::self_collision::ClothSelfCollision;
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
        self.advance(dt, None)
    }

    /// [`Self::step`] with the garment's proximity constraints ([`ClothSelfCollision`]): the
    /// vertex–triangle pairs within reach of each substep are gathered at its start and
    /// projected after its stretch and bending constraints. Crossings the step
    /// still leaves are for [`ClothSelfCollision::resolve`], after the skin's stage.
    ///
    /// # Errors
    /// As [`Self::step`]; [`DeformError::LengthMismatch`] for a `self_collision` built for
    /// another cloth (vertex or triangle count).
    ///
    /// # Performance
    /// [`Self::step`] plus, per substep, O(V log V + T k + P) to gather P pairs of T triangles
    /// and V vertices (k vertices in a triangle's slab along the sweep axis) and O(P) to project
    /// them.
    pub fn step_with_self_collision(
        &mut self,
        dt: f32,
        self_collision: &mut ClothSelfCollision,
    ) -> Result<()> {
        let tree = self_collision.tree();
        if tree.rest_positions().len() != self.positions.len()
            || tree.mesh().triangle_count() != self.mesh.triangle_count()
        {
            return Err(DeformError::LengthMismatch {
                what: "cloth of the self-collision stage (not the cloth it was built for)",
                expected: tree.rest_positions().len(),
                actual: self.positions.len(),
            });
        }
        self.advance(dt, Some(self_collision))
    }

    fn advance(
        &mut self,
        dt: f32,
        mut self_collision: Option<&mut ClothSelfCollision>,
    ) -> Result<()> {
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
            if let Some(sc) = self_collision.as_deref_mut() {
                sc.begin_substep(self, h, s == 0);
            }
            self.substep_start.copy_from_slice(&self.positions);
            for (i, x) in self.positions.iter_mut().enumerate() {
                if self.inverse_mass[i] > 0.0 {
                    let v = &mut self.velocities[i];
                    *v += h * (gravity + self.external[i]);
                    *x += h * *v;
                }
            }
            for (k, &p) in self.pinned.iter().enumerate() {
                // `from + (to − from) f`: exact when the target does not move (glam's lerp is not).
                let (from, to) = (self.pin_from[k], self.pin_to[k]);
                self.positions[p as usize] = from + (to - from) * f;
            }
            self.solve_stretch(stretch_alpha);
            self.solve_bending(bend_alpha);
            if let Some(sc) = self_collision.as_deref_mut() {
                sc.project(self);
            }
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

    /// One pass over the bending links `C = |x_a − x_b| − L` (the vertices opposite each
    /// interior edge).
    fn solve_bending(&mut self, alpha: f32) {
        for b in &self.bends {
            let (a, c) = (b.a as usize, b.b as usize);
            let (wa, wc) = (self.inverse_mass[a], self.inverse_mass[c]);
            let d = self.positions[a] - self.positions[c];
            let len = d.length();
            if wa + wc == 0.0 || len <= 1e-12 {
                continue;
            }
            let n = d / len;
            let lambda = -(len - b.rest) / (wa + wc + alpha);
            self.positions[a] += wa * lambda * n;
            self.positions[c] -= wc * lambda * n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::build::{Cloth, ClothOptions};
    use crate::math::Vec3;

    /// A flared tube (a skirt): `around × along` vertices, 2 cm rows, top ring pinned.
    fn tube(around: usize, along: usize, options: ClothOptions) -> Cloth {
        let mut p = Vec::new();
        for j in 0..along {
            for i in 0..around {
                let a = core::f32::consts::TAU * i as f32 / around as f32;
                let r = 0.1 * (1.0 + 0.7 * j as f32 / along as f32);
                p.push(Vec3::new(r * a.cos(), 0.8 - 0.02 * j as f32, r * a.sin()));
            }
        }
        let id = |i: usize, j: usize| (j * around + i % around) as u32;
        let mut t = Vec::new();
        for j in 0..along - 1 {
            for i in 0..around {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let pinned: Vec<u32> = (0..around).map(|i| id(i, 0)).collect();
        Cloth::new(p, t, &pinned, options).unwrap()
    }

    fn fastest(c: &Cloth) -> f32 {
        c.velocities().iter().fold(0f32, |m, v| m.max(v.length()))
    }

    #[test]
    fn a_tube_at_rest_without_gravity_stays_exactly_at_rest() {
        for substeps in [1, 8, 32] {
            for around in [16, 64, 160] {
                let options = ClothOptions {
                    substeps,
                    gravity: Vec3::ZERO,
                    ..ClothOptions::default()
                };
                let mut c = tube(around, 20, options);
                let rest = c.positions().to_vec();
                for _ in 0..60 {
                    c.step(1.0 / 60.0).unwrap();
                }
                // Pinned targets that do not move are exact, and satisfied constraints move nothing.
                assert_eq!(
                    c.positions(),
                    &rest[..],
                    "{substeps} substeps, {around} around"
                );
                assert_eq!(fastest(&c), 0.0);
            }
        }
    }

    #[test]
    fn a_hanging_tube_settles_and_keeps_its_edge_lengths() {
        for substeps in [8, 16] {
            let options = ClothOptions {
                substeps,
                ..ClothOptions::default()
            };
            let mut c = tube(64, 24, options);
            for _ in 0..180 {
                c.step(1.0 / 60.0).unwrap();
            }
            assert!(fastest(&c) < 0.5, "{substeps}: {}", fastest(&c));
            let worst = c
                .edges
                .iter()
                .map(|e| {
                    let l = (c.positions[e.a as usize] - c.positions[e.b as usize]).length();
                    (l - e.rest).abs() / e.rest
                })
                .fold(0f32, f32::max);
            assert!(worst < 0.15, "{substeps}: edge strain {worst}");
            // Pinned vertices did not move; the hem hangs below where it started.
            assert!(c.pinned().iter().all(|&p| c.positions[p as usize].y == 0.8));
            assert!(c.positions().iter().all(|x| x.is_finite()));
        }
    }
}
