//! The first phase of [`super::PlasticPipeline::update`], one body at a time and independent of the others (so on rayon's threads with the `parallel` feature): impulses → rest-frame samples → plasticity → re-blended spheres and what their write needs; it reads the world and writes only the body.

use rapier3d::dynamics::RigidBodySet;
use rapier3d::geometry::{ColliderSet, NarrowPhase, SharedShape};
use rapier3d::math::Pose;

use super::PipelineParams;
use super::body::{Body, ColliderState};
use super::contacts::{SolvedContact, read_solved_contacts};
use crate::error::{DeformError, Result};
use crate::plasticity::{ContactSample, Dent, PlasticWorkspace};

/// One body's results of the first phase, read by the second ([`super::commit`]), and the
/// buffers both reuse from step to step.
#[derive(Debug, Default)]
pub(crate) struct BodyStep {
    /// What the first phase returned (the second reports the first error in body order).
    pub outcome: Option<DeformError>,
    /// Solver contacts inspected, and those that carried an impulse.
    pub contacts: usize,
    pub impulses: usize,
    /// The collider's pose after the step (dent events are reported in the world frame).
    pub pose: Pose,
    /// Dents of this step.
    pub dents: Vec<Dent>,
    /// Cage vertices whose weights changed in this step's advance.
    pub changed: Vec<u32>,
    /// Their weights before it (a mesh collider's guard reads them).
    pub previous: Vec<f32>,
    /// The spheres drifted past the tolerance: the collider is to be written.
    pub push: bool,
    /// The collider's next shape, when built in this phase: a sphere proxy's (in the spare
    /// copy) or a rebuilt compound's ([`super::DeformableCollider::RebuiltCompound`]).
    pub staged: Option<SharedShape>,
    /// The sphere proxy's previous shape, which the next write rebuilds in place.
    pub spare: Option<SharedShape>,
    solved: Vec<SolvedContact>,
    samples: Vec<ContactSample>,
    workspace: PlasticWorkspace,
}

/// The first phase for one body: reads its contacts, applies plasticity, advances its weights
/// and, unless its collider is a mesh (whose re-weighting writes the collider and therefore
/// runs in the second phase), re-blends its spheres and prepares the write.
///
/// # Performance
/// O(solver contacts) plus the plasticity and re-blending costs of
/// [`super::PlasticPipeline`]; no allocation once the body's buffers have grown.
pub(crate) fn prepare(
    body: &mut Body,
    colliders: &ColliderSet,
    bodies: &RigidBodySet,
    narrow_phase: &NarrowPhase,
    params: &PipelineParams,
    dt: f32,
) -> Result<()> {
    let unknown = |what, index: u32| DeformError::UnknownHandle { what, index };
    let co = colliders
        .get(body.collider)
        .ok_or(unknown("collider", body.collider.into_raw_parts().0))?;
    let rb = bodies
        .get(body.rigid_body)
        .ok_or(unknown("rigid body", body.rigid_body.into_raw_parts().0))?;
    // 1. Impulses → rest-frame samples.
    let step = &mut body.step;
    step.solved.clear();
    step.contacts = read_solved_contacts(narrow_phase, body.collider, co, &mut step.solved);
    step.impulses = step.solved.len();
    step.pose = *co.position();
    let mass = rb.mass();
    let mut samples = std::mem::take(&mut step.samples);
    samples.clear();
    if mass > 0.0 {
        // Contacts below the yield (resting, sliding) cannot dent: skip mapping them.
        let yield_displacement = body.asset.model().params().yield_displacement;
        for c in &body.step.solved {
            let displacement = c.impulse * (dt / mass);
            if displacement.length() > yield_displacement {
                samples.push(ContactSample {
                    point: body.rest_point(c.point, co.shape()),
                    displacement,
                });
            }
        }
    }
    // 2. Plasticity.
    let step = &mut body.step;
    step.dents.clear();
    if !samples.is_empty() {
        body.asset.model().apply_contacts(
            &mut body.state,
            &samples,
            &mut step.workspace,
            &mut step.dents,
        )?;
    }
    step.samples = samples;
    step.changed.clear();
    step.changed.extend_from_slice(body.state.advance());
    step.push = false;
    if body.is_mesh() {
        return Ok(());
    }
    // 3. Spheres, and what writing them needs.
    let changed = std::mem::take(&mut body.step.changed);
    let drift = body.reblend(&changed, params.shape_tolerance);
    body.step.changed = changed;
    prepare_write(body, co.shared_shape(), drift, params)
}

/// Decides whether the collider is written this step (a proxy only past the tolerance, the
/// baselines every step) and prepares that write ([`Body::prepare_write`]).
pub(crate) fn prepare_write(
    body: &mut Body,
    current: &SharedShape,
    drift: f32,
    params: &PipelineParams,
) -> Result<()> {
    let push = drift > params.shape_tolerance;
    body.step.push = push;
    if push || !matches!(body.kind, ColliderState::Proxy) {
        body.prepare_write(current, push, params.update_mass)?;
    }
    Ok(())
}
