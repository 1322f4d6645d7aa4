//! [`SurfaceVelocityHooks`]: the velocity of a posed deformable surface at each of its contacts, from two consecutive poses in O(influences) per contact, handed to Rapier's solver through `PhysicsHooks::modify_solver_contacts`.
//!
//! A vertex of a governed mesh is `p = Σ_k w_k (A_k p0 + t_k)` (BN-Tree, Schvartzman et al. 2009, eq. 4). Between two
//! consecutive poses `t` and `t + dt` the material point at barycentric coordinates `β` of
//! triangle `(i, j, l)` moves with
//!
//! ```text
//! v = Σ_{v ∈ {i,j,l}} β_v Σ_k w_vk (Ȧ_k q0_v' + ṫ_k + A_k (q0_v' − q0_v) / dt)
//! Ȧ_k = (A_k(t+dt) − A_k(t)) / dt,   ṫ_k = (t_k(t+dt) − t_k(t)) / dt
//! ```
//!
//! where `q0_v` is the vertex's morphed rest position at `t` (its rest position without morph
//! targets, where the last term vanishes) and `q0_v'` the one at `t + dt`: the governors'
//! velocities `(Ȧ_k, ṫ_k)` are computed once per step in O(m), a contact then costs the
//! influences of three vertices (plus their morph targets), never a difference over the mesh.
//! The result is the exact finite difference of the material point's two positions.
//!
//! # What Rapier 0.36.1 offers, and what is used
//!
//! A pair with a collider flagged `ActiveHooks::MODIFY_SOLVER_CONTACTS` reaches
//! `PhysicsHooks::modify_solver_contacts` after every full narrow-phase update (such pairs are
//! never recycled). The hook sees the manifold (its `subshape1`/`subshape2` name the mesh
//! triangle: the [`crate::query::DeformDispatcher`] keys manifolds by triangle) and, per solver
//! contact, the world-space points `anchor1`/`anchor2` on each surface, the separation `dist`
//! and `tangent_velocity`; the manifold's `normal` (from collider 1 towards collider 2),
//! `friction` and `restitution` are writable too. How the solver reads them:
//!
//! | field | how Rapier's contact solver uses it |
//! |---|---|
//! | `tangent_velocity` | velocity target of the friction rows, `tangent_velocity·t_j` in both the biased and the unbiased pass: body 2's surface is driven to slide at that velocity relative to body 1's (within the friction cone). Its *full* vector also moves body 1's contact point by `tangent_velocity · τ` in the separation the solver re-derives at substep time `τ`. |
//! | `dist` | the separation at the step start; the hook's change is baked into the anchors. The normal row's target is `max(dist_τ, 0)/dt` (a speculative allowance, never a demanded separation speed) plus, in the biased pass only, a penetration bias `clamp(dist_τ · erp/dt, −max_corrective_velocity, 0)`. |
//! | `restitution` | per manifold; its end-of-step bounce is `restitution ×` the bodies' approach speed at the step start: the surface's deformation velocity is not part of it. |
//!
//! So Rapier has **no velocity target along the normal**: a separation speed can only come from
//! the penetration bias, which the unbiased (relax) pass of every substep removes again (a body
//! hit by a moving surface is pushed out of it but keeps no velocity; a thin fast surface
//! overtakes it). The bias is soft (`erp/dt` about 9 to 17 per second at Rapier's defaults): a
//! body that a surface keeps pressing at speed `s` is pushed out only once `erp/dt` times its
//! depth exceeds what it already moves at, so a body held back by anything else (ground
//! friction under a ball wedged against an advancing face) sinks a little deeper every step.
//! The module therefore splits the surface velocity:
//!
//! * **In the solver** (the hooks): `tangent_velocity = v₁ − v₂`, the full relative deformation
//!   velocity of the two surfaces at the solver contact (this module's `v`, rotated to world;
//!   zero for a side that is not tracked). Its tangential part is the friction target: a body on
//!   a moving surface is carried, within the friction cone. Its normal part only advances the
//!   surface in the solver's substep separation.
//! * **The penetration lead** (the hooks): where the surfaces close in along the manifold normal
//!   (`s = (v₁ − v₂)·n > 0`) at a solver contact that already penetrates (`dist < 0`), `dist` is
//!   lowered by `s / (erp/dt)`, so that the biased pass pushes at `s` plus Rapier's own
//!   correction of the depth: the body keeps pace with the surface inside the step instead of
//!   lagging behind it. `erp/dt` is the smaller of Rapier's static and dynamic contact settings
//!   at the substep length ([`SurfaceVelocityHooks::set_integration_parameters`]; Rapier's
//!   defaults until called), so the lead is at least `s` whichever the solver applies, and the
//!   push stays capped by `max_corrective_velocity`. Separated (speculative) contacts are left
//!   alone: the surface is posed for the step's end before the narrow phase, so their allowance
//!   is already exact. The relax pass removes the bias velocity as usual; the body's velocity
//!   comes from the step below. `normal`, `friction` and `restitution` are left as Rapier
//!   computed them.
//! * **After the step** ([`SurfaceVelocityHooks::apply_normal_velocities`]): the normal part, as
//!   a velocity projection with Rapier's public body API. Every dynamic body that the surface
//!   catches during the step (its deepest contact points) gets at least the surface's normal
//!   velocity there, by one impulse along the surface's face normal per point. It only pushes
//!   (never pulls) and runs once per step; a body pushed into a third body meets it through the
//!   next step's contacts.
//!
//! The triangle of a solver contact is the manifold's `subshape1`/`subshape2` on the mesh side.
//! Rapier's contact clustering (`IntegrationParameters::contact_clustering`) merges manifolds
//! whose normals agree within ~5° into one whose subshape is the first merged triangle; the other
//! points of such a cluster get that triangle's velocity field extrapolated (exact where the
//! merged triangles have the same governor weights, e.g. one rigid part).
//! [`SurfaceVelocityHooks::apply_normal_velocities`] reads the per-triangle manifolds, which
//! clustering leaves untouched.
//!
//! Usage, each step (`dt = world.integration_parameters.dt`):
//!
//! ```text
//! character.play(&mut world.colliders, "Walk", t)?;              // pose at t + dt
//! hooks.update(&world.colliders, dt)?;                           // governor velocities, O(m)
//! world.step_with_events(&hooks, &());                           // tangential part
//! hooks.apply_normal_velocities(&mut world);                     // normal part
//! ```
//!
//! The velocity is the time derivative of the reduced deformation of BN-Tree eq. (4)
//! (Schvartzman et al. 2009, governors `(A_k, t_k)`), taken as the finite difference of two
//! poses: O(m) per step plus O(influences) per contact, as the paper's bounds are.

use rapier3d::dynamics::{IntegrationParameters, SpringCoefficients};
use rapier3d::geometry::{ColliderHandle, ColliderSet};
use rapier3d::math::{Pose, Real};
use rapier3d::pipeline::{ActiveHooks, ContactModificationContext, PhysicsHooks, PhysicsWorld};

use crate::deformation::MorphDeltas;
use crate::error::{DeformError, Result};
use crate::governor::{Affine, WideAffine, widen_governors};
use crate::math::{Mat3, Vec3};
use crate::shape::DeformableMeshShape;
use rapier3d::parry::glamx::Vec3A;

/// The two poses of one tracked collider: its governors and morph weights at the previous
/// [`SurfaceVelocityHooks::update`] and their rates of change.
#[derive(Clone, Debug)]
struct Tracked {
    collider: ColliderHandle,
    /// Governors at the previous update (`A_k(t)`, `t_k(t)`).
    before: Vec<Affine>,
    /// Governors at the last update (`t + dt`).
    after: Vec<Affine>,
    /// `(after − before) / dt` per governor.
    rate: Vec<Affine>,
    /// `rate` as 4-lane columns, for the per-contact blend.
    rate_wide: Vec<WideAffine>,
    /// Morph weights at the last update.
    morph_after: Vec<f32>,
    /// `(morph weights(t + dt) − morph weights(t)) / dt`.
    morph_rate: Vec<f32>,
}

/// Surface velocities of posed deformable colliders, as Rapier physics hooks: pass it to
/// `world.step_with_events(&hooks, &())`.
///
/// [`Self::track`] registers a collider (a [`DeformableMeshShape`], e.g. a
/// [`crate::character::SkinnedCollider`]'s) and sets its `MODIFY_SOLVER_CONTACTS` hook flag;
/// [`Self::update`] after each pose records the new pose and the governors' velocities;
/// [`Self::surface_velocity`] evaluates the velocity of a surface point; the
/// `PhysicsHooks` implementation writes it into the solver contacts (module docs).
///
/// # Performance
/// [`Self::update`]: O(m + morph targets) per tracked collider. Per solver contact: O(1) to find
/// the tracked collider plus O(3 · (influences + morph targets)).
#[derive(Clone, Debug)]
pub struct SurfaceVelocityHooks {
    tracked: Vec<Tracked>,
    /// Per collider handle index, the position of its entry in `tracked` ([`NOT_TRACKED`]
    /// without one); sized by the largest tracked index, which the collider set bounds.
    slot_of: Vec<u32>,
    dt: Real,
    /// The contact softness and substep count of the world the hooks serve
    /// ([`Self::set_integration_parameters`]; Rapier's defaults otherwise).
    softness: SolverSoftness,
    /// `erp/dt` of the solver's penetration bias at the last [`Self::update`]'s `dt`, the smaller
    /// of Rapier's static and dynamic contact settings (module docs).
    erp_inv_dt: Real,
}

/// What the hooks need of the world's `IntegrationParameters` to lead the solver's penetration
/// bias by the surface's normal speed.
#[derive(Clone, Copy, Debug)]
struct SolverSoftness {
    static_contacts: SpringCoefficients<Real>,
    dynamic_contacts: SpringCoefficients<Real>,
    substeps: usize,
}

impl SolverSoftness {
    fn of(params: &IntegrationParameters) -> Self {
        Self {
            static_contacts: params.static_contact_softness,
            dynamic_contacts: params.contact_softness,
            substeps: params.num_solver_iterations.max(1),
        }
    }

    /// The softer (smaller) `erp/dt` of static and dynamic contact pairs at step `dt` (Rapier
    /// evaluates it per substep): the lead then reaches the surface's speed whichever setting the
    /// solver applies to a pair.
    fn erp_inv_dt(&self, dt: Real) -> Real {
        let h = dt / self.substeps as Real;
        self.static_contacts
            .erp_inv_dt(h)
            .min(self.dynamic_contacts.erp_inv_dt(h))
    }
}

impl Default for SurfaceVelocityHooks {
    fn default() -> Self {
        Self {
            tracked: Vec::new(),
            slot_of: Vec::new(),
            dt: 0.0,
            softness: SolverSoftness::of(&IntegrationParameters::default()),
            erp_inv_dt: 0.0,
        }
    }
}

impl SurfaceVelocityHooks {
    /// No tracked collider.
    ///
    /// # Performance
    /// O(1), no allocation.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tracks the deformable collider `collider`: its current pose is the first of the pair of
    /// poses, its surface velocity zero until the next [`Self::update`]. Adds
    /// `ActiveHooks::MODIFY_SOLVER_CONTACTS` to the collider's hook flags (which also keeps its
    /// contact pairs out of Rapier's contact recycling). Tracking a tracked collider restarts it.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] for a collider not in `colliders`;
    /// [`DeformError::InvalidParameter`] when its shape is not a [`DeformableMeshShape`].
    ///
    /// # Performance
    /// O(m + morph targets).
    pub fn track(&mut self, colliders: &mut ColliderSet, collider: ColliderHandle) -> Result<()> {
        let shape = DeformableMeshShape::of_collider(colliders, collider)?;
        let entry = Tracked {
            collider,
            before: shape.governors().to_vec(),
            after: shape.governors().to_vec(),
            rate: vec![ZERO_AFFINE; shape.governors().len()],
            rate_wide: vec![[Vec3A::ZERO; 4]; shape.governors().len()],
            morph_after: shape.morph_weights().to_vec(),
            morph_rate: vec![0.0; shape.morph_weights().len()],
        };
        self.tracked.retain(|t| t.collider != collider);
        self.tracked.push(entry);
        self.reindex();
        if let Some(co) = colliders.get_mut(collider) {
            co.set_active_hooks(co.active_hooks() | ActiveHooks::MODIFY_SOLVER_CONTACTS);
        }
        Ok(())
    }

    /// Stops tracking `collider` (its hook flag is left as it is). Returns whether it was
    /// tracked.
    ///
    /// # Performance
    /// O(tracked colliders).
    pub fn untrack(&mut self, collider: ColliderHandle) -> bool {
        let before = self.tracked.len();
        self.tracked.retain(|t| t.collider != collider);
        self.reindex();
        self.tracked.len() != before
    }

    /// Records the current pose of every tracked collider as the pose at `t + dt`, the pose of
    /// the previous call (or of [`Self::track`]) as the pose at `t`, and the governors' and morph
    /// weights' rates of change. Call it once per step, after posing, before the step.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for `dt` not finite and positive;
    /// [`DeformError::UnknownHandle`] for a tracked collider no longer in `colliders`;
    /// [`DeformError::LengthMismatch`] when a shape's governor or morph-weight count changed
    /// (track it again). Nothing changes on error.
    ///
    /// # Performance
    /// O(m + morph targets) per tracked collider; no allocation.
    pub fn update(&mut self, colliders: &ColliderSet, dt: Real) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "dt",
                value: dt,
                reason: "must be finite and positive",
            });
        }
        for t in &self.tracked {
            let shape = DeformableMeshShape::of_collider(colliders, t.collider)?;
            if shape.governors().len() != t.after.len() {
                return Err(DeformError::LengthMismatch {
                    what: "tracked collider governors",
                    expected: t.after.len(),
                    actual: shape.governors().len(),
                });
            }
            if shape.morph_weights().len() != t.morph_after.len() {
                return Err(DeformError::LengthMismatch {
                    what: "tracked collider morph weights",
                    expected: t.morph_after.len(),
                    actual: shape.morph_weights().len(),
                });
            }
        }
        let inv = 1.0 / dt;
        for t in &mut self.tracked {
            let shape = DeformableMeshShape::of_collider(colliders, t.collider)?;
            std::mem::swap(&mut t.before, &mut t.after);
            t.after.copy_from_slice(shape.governors());
            for ((r, a), b) in t.rate.iter_mut().zip(&t.after).zip(&t.before) {
                *r = Affine::new(
                    (a.linear - b.linear) * inv,
                    (a.translation - b.translation) * inv,
                );
            }
            widen_governors(&t.rate, &mut t.rate_wide);
            for ((r, a), b) in t
                .morph_rate
                .iter_mut()
                .zip(shape.morph_weights())
                .zip(&t.morph_after)
            {
                *r = (a - b) * inv;
            }
            t.morph_after.copy_from_slice(shape.morph_weights());
        }
        self.dt = dt;
        self.erp_inv_dt = self.softness.erp_inv_dt(dt);
        Ok(())
    }

    /// Takes the contact softness (`contact_softness`, `static_contact_softness`) and substep
    /// count (`num_solver_iterations`) of the world the hooks serve, for the penetration lead of
    /// the solver contacts (module docs); Rapier's defaults until called. Takes effect at the next
    /// [`Self::update`].
    ///
    /// # Performance
    /// O(1).
    pub fn set_integration_parameters(&mut self, params: &IntegrationParameters) {
        self.softness = SolverSoftness::of(params);
    }

    /// The `dt` of the last [`Self::update`] (0 before the first).
    ///
    /// # Performance
    /// O(1).
    pub fn dt(&self) -> Real {
        self.dt
    }

    /// Whether `collider` is tracked.
    ///
    /// # Performance
    /// O(1).
    pub fn is_tracked(&self, collider: ColliderHandle) -> bool {
        self.find(collider).is_some()
    }

    /// The entry of `collider` (through its handle's index, same generation).
    #[inline]
    fn find(&self, collider: ColliderHandle) -> Option<&Tracked> {
        let slot = *self.slot_of.get(collider.into_raw_parts().0 as usize)?;
        self.tracked
            .get(slot as usize)
            .filter(|t| t.collider == collider)
    }

    /// Rebuilds `slot_of` from `tracked`.
    fn reindex(&mut self) {
        self.slot_of.clear();
        for (k, t) in self.tracked.iter().enumerate() {
            let i = t.collider.into_raw_parts().0 as usize;
            if self.slot_of.len() <= i {
                self.slot_of.resize(i + 1, NOT_TRACKED);
            }
            self.slot_of[i] = k as u32;
        }
    }

    /// The deformation velocity, in the collider's frame, of the point `local_point` (collider
    /// frame, projected on the plane of triangle `triangle` in the current pose) of the tracked
    /// collider's surface: `Σ β_v v_v` over the triangle's vertices (module docs). The
    /// barycentric coordinates are not clamped, so a point of a neighbouring triangle gets the
    /// affine extrapolation of this triangle's velocity field (exact where the governors' weights
    /// are the same on both). `None` for an untracked collider, a shape that is not a
    /// [`DeformableMeshShape`], a triangle out of range or a degenerate triangle.
    ///
    /// # Performance
    /// O(3 · (influences + morph targets)).
    pub fn surface_velocity(
        &self,
        colliders: &ColliderSet,
        collider: ColliderHandle,
        triangle: u32,
        local_point: Vec3,
    ) -> Option<Vec3> {
        let t = self.find(collider)?;
        let shape = colliders
            .get(collider)?
            .shape()
            .as_shape::<DeformableMeshShape>()?;
        t.velocity_at(shape, triangle, local_point)
    }

    /// Gives every dynamic body that the deforming surface of a tracked collider catches during
    /// the last step the surface's normal velocity at the contact, the part of the surface
    /// velocity Rapier's contact solver has no target for (module docs). Call it after
    /// `world.step_with_events(&hooks, …)`.
    ///
    /// For each contact point of a tracked collider's per-triangle manifolds with a dynamic
    /// body (mesh triangle from the manifold, outward normal `n` of the mesh side, the point on
    /// the mesh at the step start), with `s = v_surface·n` and `b = v_body(point)·n`: when
    /// the surface advances (`s > 0`), `s > b` and the surface reaches the point within the step
    /// (`dist − (s − b)·dt ≤ 0`, `dist` the point's separation at the step start), an impulse
    /// along `n` at the point raises `b` to `s` (inverse effective mass
    /// `n·M⁻¹n + (r×n)·I⁻¹(r×n)`). A ball collider is pushed at its centre instead (its
    /// contact lies on the normal through it, wherever the step moved it), so the push does not
    /// spin it. The points are visited once, each with the body velocity the
    /// previous ones left: one projected Gauss–Seidel sweep of the constraints `b ≥ s`, which
    /// only ever push. The push is inelastic (the body leaves at the surface's normal velocity,
    /// not bounced off it by its restitution); a surface at rest or receding is left to Rapier's
    /// solver. Returns the number of impulses applied.
    ///
    /// # Performance
    /// O(contact points of the tracked colliders · (influences + morph targets)).
    pub fn apply_normal_velocities(&self, world: &mut PhysicsWorld) -> usize {
        let mut applied = 0;
        let dt = self.dt;
        let tolerance = world.integration_parameters.allowed_linear_error();
        if dt <= 0.0 {
            return 0;
        }
        for t in &self.tracked {
            let Some(mesh_co) = world.colliders.get(t.collider) else {
                continue;
            };
            let Some(shape) = mesh_co.shape().as_shape::<DeformableMeshShape>() else {
                continue;
            };
            let mesh_pose = *mesh_co.position();
            let mesh_body = mesh_co.parent();
            for pair in world.narrow_phase.contact_pairs_with(t.collider) {
                let first = pair.collider1 == t.collider;
                let other = if first {
                    pair.collider2
                } else {
                    pair.collider1
                };
                let Some(other_co) = world.colliders.get(other) else {
                    continue;
                };
                let Some(body) = other_co.parent() else {
                    continue;
                };
                // A ball is pushed through its centre: its contact point lies on the normal
                // there whatever it moved and spun since the contacts were computed, so the
                // push moves it without spinning it. Other shapes are pushed at the point the
                // surface touched.
                let ball_centre = other_co
                    .shape()
                    .as_ball()
                    .map(|_| other_co.position().translation);
                if Some(body) == mesh_body {
                    continue;
                }
                // The deepest points carry the contact: on a smooth surface the other triangles'
                // closest points lie beside it, shallower, where the surface moves differently.
                let deepest = pair
                    .manifolds()
                    .iter()
                    .flat_map(|m| m.points.iter().map(|p| p.dist))
                    .fold(Real::INFINITY, Real::min);
                let depth_limit = deepest + tolerance;
                for m in pair.manifolds() {
                    let triangle = if first { m.subshape1 } else { m.subshape2 };
                    let local_n = if first { m.local_n1 } else { m.local_n2 };
                    for point in m.points.iter().filter(|p| p.dist <= depth_limit) {
                        let local = if first {
                            point.local_p1
                        } else {
                            point.local_p2
                        };
                        let Some((v, face)) = t.velocity_and_normal_at(shape, triangle, local)
                        else {
                            continue;
                        };
                        // The face normal on the body's side: an edge contact between coplanar
                        // triangles reports the edge-to-body direction, not the surface's.
                        let face = if face.dot(local_n) < 0.0 { -face } else { face };
                        let n = mesh_pose.rotation * face;
                        let s = (mesh_pose.rotation * v).dot(n);
                        let x = ball_centre.unwrap_or(mesh_pose * local);
                        // Read first: `get_mut` marks a body modified (Rapier then re-syncs
                        // it and its colliders), which only a pushed body needs.
                        let Some(rb) = world.bodies.get(body) else {
                            continue;
                        };
                        if !rb.is_dynamic() {
                            continue;
                        }
                        let b = rb.velocity_at_point(x).dot(n);
                        if s <= 0.0 || s <= b || point.dist - (s - b) * dt > 0.0 {
                            continue;
                        }
                        let mp = rb.mass_properties();
                        let r = x - mp.world_com;
                        let rn = r.cross(n);
                        let inv = n.dot(mp.effective_inv_mass * n)
                            + rn.dot(mp.effective_world_inv_inertia * rn);
                        if inv > 0.0 {
                            world.bodies[body].apply_impulse_at_point(n * ((s - b) / inv), x, true);
                            applied += 1;
                        }
                    }
                }
            }
        }
        applied
    }
}

impl Tracked {
    /// The world-space deformation velocity of the tracked collider (shape `shape` at `pose`)
    /// at world point `point` on triangle `triangle` (see
    /// [`SurfaceVelocityHooks::surface_velocity`]); zero where that has none.
    fn world_velocity(
        &self,
        shape: &DeformableMeshShape,
        pose: &Pose,
        triangle: u32,
        point: Vec3,
    ) -> Vec3 {
        let local = pose.inverse_transform_point(point);
        self.velocity_at(shape, triangle, local)
            .map_or(Vec3::ZERO, |v| pose.rotation * v)
    }

    /// [`Self::velocity_at`] on the tracked collider's shape `shape`, with the unit normal of
    /// the posed triangle (collider frame, the winding's orientation).
    fn velocity_and_normal_at(
        &self,
        shape: &DeformableMeshShape,
        triangle: u32,
        local_point: Vec3,
    ) -> Option<(Vec3, Vec3)> {
        let v = self.velocity_at(shape, triangle, local_point)?;
        let normal = shape.triangle(triangle).normal()?;
        Some((v, normal))
    }

    /// The velocity of the material point of `triangle` under `local_point` (module docs), in
    /// the collider's frame; `None` for a triangle out of range or degenerate.
    fn velocity_at(
        &self,
        shape: &DeformableMeshShape,
        triangle: u32,
        local_point: Vec3,
    ) -> Option<Vec3> {
        let tree = shape.tree();
        let [i, j, l] = *tree.mesh().triangles().get(triangle as usize)?;
        let beta = barycentric(
            [shape.vertex(i), shape.vertex(j), shape.vertex(l)],
            local_point,
        )?;
        let rest = tree.rest_positions();
        let weights = tree.weights();
        let morph = shape.morph_targets();
        let mut v = Vec3::ZERO;
        let Some(morph) = morph else {
            // No morph targets: the rest position is fixed, only the governors move. 4-lane
            // columns, in the scalar order of operations (`(A q0 + t)` column by column, `· w`,
            // accumulated), so the bits of `w * (r.linear * q0 + r.translation)`.
            let mut v = Vec3A::ZERO;
            for (b, vertex) in beta.into_iter().zip([i, j, l]) {
                let q0 = rest[vertex as usize];
                let (x, y, z) = (Vec3A::splat(q0.x), Vec3A::splat(q0.y), Vec3A::splat(q0.z));
                let mut vv = Vec3A::ZERO;
                for (g, w) in weights.iter_row(vertex as usize) {
                    let [ax, ay, az, t] = *self.rate_wide.get(g as usize)?;
                    vv += w * (ax * x + ay * y + az * z + t);
                }
                v += b * vv;
            }
            return Some(v.into());
        };
        for (b, vertex) in beta.into_iter().zip([i, j, l]) {
            let vu = vertex as usize;
            // The morphed rest position at t + dt and its rate (q0' − q0) / dt.
            let (q0, dq0) =
                displace_and_rate(morph, &self.morph_after, &self.morph_rate, vu, rest[vu]);
            let mut vv = Vec3::ZERO;
            for (g, w) in weights.iter_row(vu) {
                let (r, a) = (self.rate.get(g as usize)?, self.before.get(g as usize)?);
                vv += w * (r.linear * q0 + r.translation + a.linear * dq0);
            }
            v += b * vv;
        }
        Some(v)
    }
}

/// `(m.displace_with(after, v, p0), m.displace_with(rate, v, 0))` in one pass over the targets
/// of `v`'s group (the same sums in the same order, so bit-identical to the two calls).
///
/// # Performance
/// O(targets of `v`'s group).
fn displace_and_rate(
    m: &MorphDeltas,
    after: &[f32],
    rate: &[f32],
    v: usize,
    p0: Vec3,
) -> (Vec3, Vec3) {
    let Some(g) = m.group_of(v) else {
        return (p0, Vec3::ZERO);
    };
    let local = v - g.first_vertex();
    let (mut p, mut d) = (p0, Vec3::ZERO);
    for (i, t) in g.targets().iter().enumerate() {
        let k = g.first_weight() + i;
        let (w, r) = (
            after.get(k).copied().unwrap_or(0.0),
            rate.get(k).copied().unwrap_or(0.0),
        );
        if w != 0.0 {
            p += w * t[local];
        }
        if r != 0.0 {
            d += r * t[local];
        }
    }
    (p, d)
}

/// The `slot_of` entry of a handle index without a tracked collider.
const NOT_TRACKED: u32 = u32::MAX;

/// An affine map with every entry zero (a governor at rest has zero velocity).
const ZERO_AFFINE: Affine = Affine::new(Mat3::ZERO, Vec3::ZERO);

/// Barycentric coordinates of `p` projected on the plane of triangle `[a, b, c]` (unclamped);
/// `None` for a degenerate triangle.
fn barycentric([a, b, c]: [Vec3; 3], p: Vec3) -> Option<[f32; 3]> {
    let (e1, e2, d) = (b - a, c - a, p - a);
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d1, d2) = (d.dot(e1), d.dot(e2));
    let det = d11 * d22 - d12 * d12;
    // Also rejects NaN: a degenerate or non-finite triangle has no barycentric coordinates.
    if det.is_nan() || det <= f32::EPSILON * d11 * d22 {
        return None;
    }
    let y = (d22 * d1 - d12 * d2) / det;
    let z = (d11 * d2 - d12 * d1) / det;
    Some([1.0 - y - z, y, z])
}

impl PhysicsHooks for SurfaceVelocityHooks {
    fn modify_solver_contacts(&self, context: &mut ContactModificationContext) {
        let (c1, c2) = (context.collider1, context.collider2);
        let (track1, track2) = (self.find(c1), self.find(c2));
        if track1.is_none() && track2.is_none() {
            return;
        }
        let colliders = context.colliders;
        // Each tracked side's entry, shape and pose, looked up once for the manifold.
        let side = |t: &Tracked| {
            let co = colliders.get(t.collider)?;
            Some((
                co.shape().as_shape::<DeformableMeshShape>()?,
                *co.position(),
            ))
        };
        let side1 = track1.and_then(|t| side(t).map(|(s, p)| (t, s, p)));
        let side2 = track2.and_then(|t| side(t).map(|(s, p)| (t, s, p)));
        let Some(rigid) = context.rigid_mut() else {
            return;
        };
        let (tri1, tri2) = (rigid.manifold.subshape1, rigid.manifold.subshape2);
        let normal = rigid.manifold.data.normal;
        for c in rigid.solver_contacts.iter_mut() {
            let mut rel = Vec3::ZERO;
            if let Some((t, shape, pose)) = &side1 {
                rel += t.world_velocity(shape, pose, tri1, c.anchor1);
            }
            if let Some((t, shape, pose)) = &side2 {
                rel -= t.world_velocity(shape, pose, tri2, c.anchor2);
            }
            c.tangent_velocity = rel;
            // The penetration lead: a surface closing in at `s` on a body it already penetrates
            // gets a bias of at least `s` (module docs).
            let closing = rel.dot(normal);
            if closing > 0.0 && c.dist < 0.0 && self.erp_inv_dt > 0.0 {
                c.dist -= closing / self.erp_inv_dt;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displace_and_rate_equals_two_displacements_bit_for_bit() {
        // Two groups (3 and 2 targets) over vertices 1..5 and 6..9 of 10; 0, 5 and 9 have none.
        let mut m = MorphDeltas::new(10);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let mut target =
            |n: usize| -> Vec<Vec3> { (0..n).map(|_| Vec3::new(next(), next(), next())).collect() };
        let a: Vec<Vec<Vec3>> = (0..3).map(|_| target(4)).collect();
        let b: Vec<Vec<Vec3>> = (0..2).map(|_| target(3)).collect();
        m.add_group(1, a).unwrap();
        m.add_group(6, b).unwrap();
        let bits = |p: Vec3| p.to_array().map(f32::to_bits);
        for round in 0..50 {
            // Zero weights and rates (skipped terms) in some rounds; short slices count as 0.
            let mut weights = |k: usize| -> Vec<f32> {
                (0..k)
                    .map(|i| if (round + i) % 3 == 0 { 0.0 } else { next() })
                    .collect()
            };
            let (after, rate) = (weights(5), weights(if round % 4 == 0 { 3 } else { 5 }));
            for v in 0..10 {
                let p0 = Vec3::new(next(), next(), next());
                let (p, d) = displace_and_rate(&m, &after, &rate, v, p0);
                assert_eq!(bits(p), bits(m.displace_with(&after, v, p0)), "{round} {v}");
                assert_eq!(
                    bits(d),
                    bits(m.displace_with(&rate, v, Vec3::ZERO)),
                    "{round} {v}"
                );
            }
        }
    }
}
