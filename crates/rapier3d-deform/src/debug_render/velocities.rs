//! Contact velocities as arrows: at each contact point of a tracked deformable collider, the velocity of its surface there (body motion plus deformation, `SurfaceVelocityHooks`).

use rapier3d::geometry::ColliderHandle;
use rapier3d::math::Vector;
use rapier3d::pipeline::{DebugColor, PhysicsWorld};

use crate::character::SurfaceVelocityHooks;

/// Draws one arrow per active contact point of `collider` (a collider `hooks` tracks): from the
/// point on the collider's surface along `v_body(point) + R v_deformation`, `seconds` of travel
/// long, with a head of two strokes a fifth of its length. Returns the number of arrows.
///
/// # Performance
/// O(contact points of the collider · (influences + morph targets)); no allocation.
pub(super) fn draw_contact_velocities(
    world: &PhysicsWorld,
    hooks: &SurfaceVelocityHooks,
    collider: ColliderHandle,
    seconds: f32,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) -> usize {
    let Some(co) = world.colliders.get(collider) else {
        return 0;
    };
    let pose = *co.position();
    let body = co.parent().and_then(|b| world.bodies.get(b));
    let mut drawn = 0;
    for pair in world.narrow_phase.contact_pairs_with(collider) {
        if !pair.has_any_active_contact() {
            continue;
        }
        let first = pair.collider1 == collider;
        for m in pair.manifolds() {
            let triangle = if first { m.subshape1 } else { m.subshape2 };
            for p in &m.points {
                let local = if first { p.local_p1 } else { p.local_p2 };
                let Some(deformation) =
                    hooks.surface_velocity(&world.colliders, collider, triangle, local)
                else {
                    continue;
                };
                let at = pose.transform_point(local);
                let carried = body.map_or(Vector::ZERO, |b| b.velocity_at_point(at));
                let tip = at + (carried + pose.rotation * deformation) * seconds;
                draw(at, tip, color);
                let back = (at - tip) * 0.2;
                let side = back.cross(Vector::Y).try_normalize().unwrap_or(Vector::X)
                    * (0.5 * back.length());
                draw(tip, tip + back + side, color);
                draw(tip, tip + back - side, color);
                drawn += 1;
            }
        }
    }
    drawn
}
