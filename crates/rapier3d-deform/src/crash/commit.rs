//! The second phase of [`super::PlasticPipeline::update`], body after body in order on the calling thread: what writes the world (a mesh collider's re-weighting, shape and mass writes, restitution) and the step's events and statistics.

use rapier3d::dynamics::RigidBodySet;
use rapier3d::geometry::ColliderSet;

use super::body::{Body, ColliderState};
use super::prepare::prepare_write;
use super::{DeformableHandle, DentEvent, PipelineParams, StepReport};
use crate::error::{DeformError, Result};

/// The second phase for body `index`: reports the first phase's error, emits its dents,
/// re-weights a mesh collider (guarded) and re-blends its spheres, writes the shape and the
/// mass properties, and lowers the restitution while a dent is absorbed.
///
/// # Performance
/// O(dents) plus the writes: O(S) per proxy write, O(changed) mesh re-weighting (with the
/// guard's cost), the rigid body's mass recomputation when the mass moves.
pub(crate) fn commit(
    body: &mut Body,
    index: usize,
    bodies: &mut RigidBodySet,
    colliders: &mut ColliderSet,
    params: &PipelineParams,
    dt: f32,
    report: &mut StepReport,
) -> Result<()> {
    let StepReport { events, stats } = report;
    if let Some(e) = body.step.outcome.take() {
        return Err(e);
    }
    let step = &body.step;
    stats.contacts += step.contacts;
    stats.impulses += step.impulses;
    stats.dents += step.dents.len();
    events.extend(step.dents.iter().map(|d| DentEvent {
        body: DeformableHandle(index),
        rigid_body: body.rigid_body,
        point: step.pose * d.point,
        amount: d.displacement,
        weight_change: d.change,
    }));
    // 2b–3. A mesh collider follows the changed cage vertices (guarded), then its spheres (it
    // needs every change of the cage vertices it reads, so none is deferred).
    if body.is_mesh() {
        let changed = std::mem::take(&mut body.step.changed);
        if !changed.is_empty() {
            let mut previous = std::mem::take(&mut body.step.previous);
            previous.clear();
            previous.extend_from_slice(body.state.previous_weights());
            let g = body.update_mesh(
                colliders,
                &changed,
                &previous,
                params.self_intersection_guard,
            )?;
            body.step.previous = previous;
            stats.mesh_vertices_updated += g.mesh_vertices_updated;
            stats.self_intersections_prevented += g.new_pairs;
            stats.weight_changes_undone += g.cage_vertices_reverted;
            stats.shape_writes += 1;
        }
        let drift = body.reblend(&changed, 0.0);
        body.step.changed = changed;
        let co = colliders
            .get(body.collider)
            .ok_or(DeformError::UnknownHandle {
                what: "collider",
                index: body.collider.into_raw_parts().0,
            })?;
        prepare_write(body, co.shared_shape(), drift, params)?;
    }
    // 4–5. Shape and mass.
    let push = body.step.push;
    if push || !matches!(body.kind, ColliderState::Proxy) {
        let update = body.write(colliders, push, params.update_mass)?;
        stats.shape_writes += update.shape_written as usize;
    }
    if body.mass_pending {
        let jump = body.write_mass(bodies, colliders, params.max_com_step)?;
        stats.mass_writes += 1;
        stats.max_com_jump = stats.max_com_jump.max(jump);
    }
    // 6. Restitution.
    let e = body.state.restitution(
        body.restitution0,
        body.restitution,
        dt,
        body.asset.model().params(),
    );
    if e != body.restitution && ((e - body.restitution).abs() > 1e-4 || e == body.restitution0) {
        body.restitution = e;
        if let Some(co) = colliders.get_mut(body.collider) {
            co.set_restitution(e);
        }
    }
    Ok(())
}
