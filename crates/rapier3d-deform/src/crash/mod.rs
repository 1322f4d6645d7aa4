//! The plastic route (crashes): the per-step loop a game calls once per frame after Rapier's `step()` — read contact impulses, apply plasticity, re-blend the proxies, update shapes and mass properties, emit dent events.
//!
//! ```text
//! world.step();                      // an ordinary Rapier step
//! pipeline.update(&mut world)?;      // impulses → example weights → spheres → collider, mass
//! for dent in pipeline.events() { … }
//! ```
//!
//! # What happens in [`PlasticPipeline::update`]
//!
//! For every deformable body:
//!
//! 1. **Impulses.** The solver contacts of the body's collider are read from
//!    `narrow_phase.contact_pairs_with(collider)`, `pair.solver_manifolds()` (see
//!    [`read_solved_contacts`]). Rapier's contact clustering stays on (its default): clusters carry
//!    warm starts across shape updates by position, which per-part manifolds lose when a
//!    shape changes. Clusters drop sub-shape ids, so each contact point is mapped back to the
//!    rest pose by position: the displacement of the nearest sphere (or vertex) of the current
//!    collider is undone, and the nearest plastic vertex takes the contact.
//! 2. **Plasticity** ([`crate::plasticity`]): `d = j dt / M` in the body frame, yield, `Jᵀd`
//!    projection, geodesic falloff, deposit; then one rate-limited step of every vertex a
//!    collider reads (the rest catch up lazily when read). For a mesh collider
//!    ([`DeformableCollider::Mesh`]) the mesh vertices reading the cage vertices whose weights
//!    changed are then re-weighted in its [`crate::shape::DeformableMeshShape`] (O(changed),
//!    nothing at rest), and a change that would push the mesh through itself is undone
//!    ([`SelfIntersectionGuard`]; the rule is in its documentation).
//! 3. **Spheres.** Only spheres whose driving vertex changed are re-blended (O(E) each).
//! 4. **Shape.** A sphere proxy is written (`shape_mut`, one O(S) copy and BVH refit) only when
//!    some sphere drifted more than [`PipelineParams::shape_tolerance`] from what the collider
//!    holds. A vertex whose spheres can no longer get that far, whatever the rest of its pending
//!    change does (its drift plus a bound of its remaining motion), stops being updated every
//!    step; it is caught up (bit-identically) at the next write or when read. So the collider
//!    is always within the tolerance of the blend of the current weights, a resting or coasting
//!    body costs nothing, and a denting one costs one write every few steps. A write sets
//!    Rapier's `SHAPE` flag for that step (broad-phase refresh, contact workspaces reset with
//!    warm starts carried by the clusters, touching bodies woken); between writes the collider
//!    is untouched, so contact recycling and sleeping work as for a rigid body.
//! 5. **Mass.** With each write the collider's explicit mass properties start to follow the
//!    blended spheres ([`crate::plasticity::SphereMassModel`]); the local centre of mass moves
//!    by at most [`PipelineParams::max_com_step`] per step (a violent dent is spread over a few
//!    steps), the body is recomputed at once and its velocities adjusted to keep momentum
//!    without adding energy ([`crate::plasticity::continue_motion`]). The pose does not move.
//! 6. **Restitution** is lowered while the body is still absorbing a dent.
//! 7. **Events**: one [`DentEvent`] per plastic vertex that received yielded contacts.
//!
//! **Continuous collision detection.** Install [`crate::query::DeformDispatcher`] first in the
//! world's narrow phase (`NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(
//! DefaultQueryDispatcher))`): Rapier sweeps a fast sphere-proxy body with a nonlinear cast
//! through the dispatcher, and parry's own cast clamps a body sliding on the ground to a fraction
//! of its motion (see [`crate::query`]).
//!
//! **Threads.** Steps 1–5 up to the writes run per body and read the world only
//! (`prepare.rs`; a proxy is rebuilt in a spare copy of its shape that the write swaps in), on
//! rayon's threads with the `parallel` feature; the writes (a mesh collider's re-weighting,
//! shapes, mass properties, restitution) and the events follow on the calling thread in body
//! order (`commit.rs`), so the results do not depend on the number of threads.
//!
//! Render meshes are re-blended on demand ([`PlasticPipeline::render_positions`]), so a game pays
//! for them only in frames it draws.
//!
//! **Calibration.** Rapier 0.36 reports per-step impulse totals (like Bullet's
//! `m_appliedImpulse`), so the authors' yield thresholds apply at a similar `dt`; the crash
//! scenes of the examples state the values they use.

mod asset;
mod body;
mod commit;
mod contacts;
mod example_mesh;
mod prepare;
mod self_intersection_guard;

use std::sync::Arc;

use rapier3d::dynamics::{RigidBodyHandle, RigidBodySet};
use rapier3d::geometry::{
    ColliderBuilder, ColliderHandle, ColliderSet, NarrowPhase, SharedShape, TriMeshFlags,
};
use rapier3d::math::Pose;
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::pipeline::PhysicsWorld;

pub use asset::{BoundMesh, PlasticAsset};
use body::Body;
pub use body::DeformableCollider;
use commit::commit;
pub use contacts::{SolvedContact, read_solved_contacts};
pub use example_mesh::ExampleMesh;
use prepare::prepare;
pub use self_intersection_guard::{GuardOutcome, SelfIntersectionGuard};

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::plasticity::{PlasticState, SphereMassModel};
use crate::shape::SphereProxyShape;

/// Settings of the pipeline (the plasticity parameters live in each asset's model).
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineParams {
    /// A sphere proxy is rewritten when some sphere's centre plus radius moved more than this
    /// from what the collider holds (length unit; `0` writes at every change). Finite, `≥ 0`.
    pub shape_tolerance: f32,
    /// Update mass properties with the shape.
    pub update_mass: bool,
    /// Largest move of a body's local centre of mass per step from a mass update (length unit;
    /// larger changes are spread over several steps). Finite, `> 0`.
    pub max_com_step: f32,
    /// For [`DeformableCollider::Mesh`] bodies: undo the weight changes that would push the
    /// mesh through itself ([`SelfIntersectionGuard`]).
    pub self_intersection_guard: bool,
}

impl Default for PipelineParams {
    /// 5 mm shape tolerance, mass updates on, centre of mass moving at most 5 mm per step, the
    /// self-intersection guard on.
    fn default() -> Self {
        Self {
            shape_tolerance: 5e-3,
            update_mass: true,
            max_com_step: 5e-3,
            self_intersection_guard: true,
        }
    }
}

/// A deformable body of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeformableHandle(pub usize);

/// What a deformable body is made of (see [`PlasticPipeline::insert`]).
///
/// # Performance
/// Plain data.
#[derive(Clone, Debug)]
pub struct DeformableDesc {
    /// The shared asset (cage, plasticity model, proxy, render mesh).
    pub asset: Arc<PlasticAsset>,
    /// Which collider, kept up to date how.
    pub collider: DeformableCollider,
    /// Density of the body (mass = density × the rest mesh's volume).
    pub density: f32,
}

impl DeformableDesc {
    /// A body whose collider is `asset`'s sphere proxy ([`DeformableCollider::SphereProxy`], the
    /// crate's route), at `density` (mass = density × the rest mesh's volume).
    ///
    /// # Performance
    /// O(1).
    pub fn proxy(asset: Arc<PlasticAsset>, density: f32) -> Self {
        Self {
            asset,
            collider: DeformableCollider::SphereProxy,
            density,
        }
    }
}

/// A dent: contacts of the last step that went past the yield at one plastic vertex of a body.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DentEvent {
    /// The deformable body.
    pub body: DeformableHandle,
    /// Its Rapier rigid body.
    pub rigid_body: RigidBodyHandle,
    /// The dented point (world frame, rest position of the vertex under the body's pose).
    pub point: Vec3,
    /// Yielded displacement `|d| − yield` that caused it (length unit).
    pub amount: f32,
    /// Size of the example-weight change deposited there (before falloff and rate limit).
    pub weight_change: f32,
}

/// What the last [`PlasticPipeline::update`] did, summed over bodies.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Solver contacts inspected.
    pub contacts: usize,
    /// Contacts that carried a positive impulse.
    pub impulses: usize,
    /// Dents (plastic vertices that received yielded contacts).
    pub dents: usize,
    /// Collider shapes written.
    pub shape_writes: usize,
    /// Mass properties written.
    pub mass_writes: usize,
    /// Largest world move of a centre of mass caused by a mass update.
    pub max_com_jump: f32,
    /// Mesh-collider vertices re-weighted.
    pub mesh_vertices_updated: usize,
    /// New self-intersecting triangle pairs that weight changes would have created.
    pub self_intersections_prevented: usize,
    /// Cage vertices whose weight change was undone by the self-intersection guard.
    pub weight_changes_undone: usize,
}

/// The example-based plasticity loop for Rapier: owns the plastic state of every deformable
/// body and updates their colliders between steps.
///
/// # Performance
/// [`PlasticPipeline::update`] is O(solver contacts) plus, per dented source vertex, O(k log k)
/// for the k vertices within the kernel radius; per body O(E) per changing driver vertex and O(S)
/// per shape write (only when the tolerance is exceeded). A resting body costs the inspection of
/// its contacts only.
#[derive(Debug)]
pub struct PlasticPipeline {
    params: PipelineParams,
    bodies: Vec<Body>,
    report: StepReport,
}

/// What an update reports: its dents and statistics.
#[derive(Debug, Default)]
pub(crate) struct StepReport {
    events: Vec<DentEvent>,
    stats: StepStats,
}

impl PlasticPipeline {
    /// An empty pipeline.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a negative or non-finite `shape_tolerance`, a
    /// non-positive or non-finite `max_com_step`.
    pub fn new(params: PipelineParams) -> Result<Self> {
        if !(params.shape_tolerance.is_finite() && params.shape_tolerance >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "shape_tolerance",
                value: params.shape_tolerance,
                reason: "must be finite and non-negative",
            });
        }
        if !(params.max_com_step.is_finite() && params.max_com_step > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "max_com_step",
                value: params.max_com_step,
                reason: "must be finite and positive",
            });
        }
        Ok(Self {
            params,
            bodies: Vec::new(),
            report: StepReport::default(),
        })
    }

    /// The settings.
    pub fn params(&self) -> &PipelineParams {
        &self.params
    }

    /// Number of deformable bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// No deformable body?
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Attaches a deformable collider made from `desc.asset` to the (dynamic) rigid body `body`
    /// and registers it. The collider starts at the rest pose with explicit mass properties (the
    /// rest mesh's at `desc.density`); `configure` may set friction, restitution, groups… (its
    /// shape, density and mass properties are overwritten).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] for a body not in `bodies`,
    /// [`DeformError::InvalidParameter`] for a non-positive or non-finite density; what
    /// building the collider's shape rejects.
    ///
    /// # Performance
    /// O(S log S + V · E) (O(T) more for a triangle mesh).
    pub fn insert(
        &mut self,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        body: RigidBodyHandle,
        desc: DeformableDesc,
        configure: impl FnOnce(ColliderBuilder) -> ColliderBuilder,
    ) -> Result<DeformableHandle> {
        let DeformableDesc {
            asset,
            collider,
            density,
        } = desc;
        if bodies.get(body).is_none() {
            return Err(DeformError::UnknownHandle {
                what: "rigid body",
                index: body.into_raw_parts().0,
            });
        }
        if !(density.is_finite() && density > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "density",
                value: density,
                reason: "must be finite and positive",
            });
        }
        let proxy = asset.proxy();
        let unit = proxy.unit_mass_properties();
        let rest_mass = MassProperties::with_principal_inertia_frame(
            unit.local_com,
            unit.mass() * density,
            unit.principal_inertia() * density,
            unit.principal_inertia_local_frame,
        );
        let mass =
            SphereMassModel::new(rest_mass, proxy.example_centres(0), proxy.example_radii(0))?;
        let shape = match &collider {
            DeformableCollider::SphereProxy => {
                SharedShape::new(SphereProxyShape::from_proxy(proxy)?)
            }
            DeformableCollider::RebuiltCompound => SharedShape::compound(
                proxy
                    .rest_spheres()
                    .iter()
                    .map(|s| {
                        (
                            Pose::from_translation(s.centre),
                            SharedShape::ball(s.radius.max(1e-4)),
                        )
                    })
                    .collect(),
            ),
            DeformableCollider::TriMesh(mesh) => SharedShape::trimesh_with_flags(
                mesh.mesh().positions().to_vec(),
                mesh.mesh().triangles().to_vec(),
                TriMeshFlags::DEFORMABLE,
            )
            .map_err(|_| DeformError::EmptyMesh {
                vertices: mesh.mesh().vertex_count(),
                triangles: mesh.mesh().triangle_count(),
            })?,
            DeformableCollider::Mesh(mesh) => SharedShape::new(mesh.shape()?),
        };
        let mut builder = configure(ColliderBuilder::new(shape.clone())).mass_properties(rest_mass);
        builder.shape = shape;
        let restitution0 = builder.restitution;
        let handle = colliders.insert_with_parent(builder, body, bodies);
        let b = Body::new(body, handle, asset, &collider, mass, restitution0)?;
        self.bodies.push(b);
        Ok(DeformableHandle(self.bodies.len() - 1))
    }

    /// [`PlasticPipeline::update_sets`] on a [`PhysicsWorld`] with its time step.
    ///
    /// # Errors
    /// As [`PlasticPipeline::update_sets`].
    ///
    /// # Performance
    /// See the type.
    pub fn update(&mut self, world: &mut PhysicsWorld) -> Result<&[DentEvent]> {
        let dt = world.integration_parameters.dt;
        self.update_sets(
            &mut world.bodies,
            &mut world.colliders,
            &world.narrow_phase,
            dt,
        )
    }

    /// The per-step update, to call after each Rapier step (see the module documentation).
    /// Returns the dents of this step (also in [`PlasticPipeline::events`]).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when a deformable body's rigid body or collider was
    /// removed from the sets.
    ///
    /// # Performance
    /// See the type.
    pub fn update_sets(
        &mut self,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        narrow_phase: &NarrowPhase,
        dt: f32,
    ) -> Result<&[DentEvent]> {
        self.report.events.clear();
        self.report.stats = StepStats::default();
        let params = self.params;
        let first = |body: &mut Body| {
            body.step.outcome = prepare(body, colliders, bodies, narrow_phase, &params, dt).err();
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            self.bodies.par_iter_mut().for_each(first);
        }
        #[cfg(not(feature = "parallel"))]
        self.bodies.iter_mut().for_each(first);
        for (index, body) in self.bodies.iter_mut().enumerate() {
            commit(
                body,
                index,
                bodies,
                colliders,
                &params,
                dt,
                &mut self.report,
            )?;
        }
        Ok(&self.report.events)
    }

    /// The dents of the last update.
    pub fn events(&self) -> &[DentEvent] {
        &self.report.events
    }

    /// What the last update did.
    pub fn stats(&self) -> StepStats {
        self.report.stats
    }

    /// The rigid body and collider of a deformable body.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    pub fn handles(&self, h: DeformableHandle) -> Result<(RigidBodyHandle, ColliderHandle)> {
        let b = self.body(h)?;
        Ok((b.rigid_body, b.collider))
    }

    /// The asset of a deformable body.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    pub fn asset(&self, h: DeformableHandle) -> Result<&Arc<PlasticAsset>> {
        Ok(&self.body(h)?.asset)
    }

    /// The plastic state of a deformable body (eager vertices current; others catch up when
    /// read through [`PlasticState::weights`]).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    pub fn state_mut(&mut self, h: DeformableHandle) -> Result<&mut PlasticState> {
        Ok(&mut self.body_mut(h)?.state)
    }

    /// The spheres the collider currently holds (body frame).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    pub fn collider_spheres(&self, h: DeformableHandle) -> Result<(&[Vec3], &[f32])> {
        let b = self.body(h)?;
        Ok((&b.pushed_centres, &b.pushed_radii))
    }

    /// The current restitution coefficient of a body's collider.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    pub fn restitution(&self, h: DeformableHandle) -> Result<f32> {
        Ok(self.body(h)?.restitution)
    }

    /// The render mesh in its current pose (body frame): the asset's render mesh if it has one,
    /// else the plastic cage.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    ///
    /// # Performance
    /// O(V · E) plus the lazy catch-up of the cage vertices read.
    pub fn render_positions(&mut self, h: DeformableHandle, out: &mut Vec<Vec3>) -> Result<()> {
        let b = self.body_mut(h)?;
        match b.asset.render() {
            Some(render) => render.positions_into(&mut b.state, out),
            None => b.asset.model().positions_into(&mut b.state, out),
        }
    }

    /// The plastic cage in its current pose (body frame).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`].
    ///
    /// # Performance
    /// O(V · E) plus the lazy catch-up.
    pub fn cage_positions(&mut self, h: DeformableHandle, out: &mut Vec<Vec3>) -> Result<()> {
        let b = self.body_mut(h)?;
        b.asset.model().positions_into(&mut b.state, out)
    }

    fn body(&self, h: DeformableHandle) -> Result<&Body> {
        self.bodies.get(h.0).ok_or(DeformError::UnknownHandle {
            what: "deformable body",
            index: h.0 as u32,
        })
    }

    fn body_mut(&mut self, h: DeformableHandle) -> Result<&mut Body> {
        self.bodies.get_mut(h.0).ok_or(DeformError::UnknownHandle {
            what: "deformable body",
            index: h.0 as u32,
        })
    }
}
