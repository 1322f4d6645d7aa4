//! Reading the impulses Rapier's solver applied to a collider in the last step, from its solver manifolds (contact clusters included).

use rapier3d::geometry::{Collider, ColliderHandle, NEW_CONTACT_BIT, NarrowPhase};

use crate::math::Vec3;

/// One solver contact of a collider after a step, in the collider's local frame.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolvedContact {
    /// The contact point on this collider (collider-local, current shape).
    pub point: Vec3,
    /// The impulse this collider's body received (collider-local frame).
    pub impulse: Vec3,
}

/// Appends every solver contact of `collider` that carried a positive normal impulse in the last
/// step, and returns how many solver contacts were inspected.
///
/// It reads `pair.solver_manifolds()`: the contact clusters when Rapier's contact clustering
/// applied to the pair (the default; clusters keep warm starts across shape updates but lose
/// sub-shape ids, so points are mapped back by position), the plain manifolds otherwise. Each
/// solver contact indexes the manifold point whose `data.impulse` the solver wrote; the impulse
/// acts along the manifold normal (outward from collider 1), `−λ n` on collider 1's body and
/// `+λ n` on collider 2's. Points are taken from the manifold (`local_p1`/`local_p2`, in the
/// sub-shape frame when the manifold has one) so they lie on this collider's current shape.
///
/// # Performance
/// O(solver contacts of the collider's pairs).
pub fn read_solved_contacts(
    narrow_phase: &NarrowPhase,
    handle: ColliderHandle,
    collider: &Collider,
    out: &mut Vec<SolvedContact>,
) -> usize {
    let to_local = collider.rotation().inverse();
    let mut inspected = 0;
    for pair in narrow_phase.contact_pairs_with(handle) {
        let first = pair.collider1 == handle;
        for m in pair.solver_manifolds() {
            let n = m.data.normal;
            for sc in &m.data.solver_contacts {
                inspected += 1;
                let index = (sc.contact_id[0] & !NEW_CONTACT_BIT) as usize;
                let Some(point) = m.points.get(index) else {
                    continue;
                };
                let lambda = point.data.impulse;
                if !(lambda > 0.0 && lambda.is_finite()) {
                    continue;
                }
                let (local, sub) = if first {
                    (point.local_p1, m.subshape_pos1())
                } else {
                    (point.local_p2, m.subshape_pos2())
                };
                let local = sub.map_or(local, |pose| pose * local);
                let world_impulse = if first { -lambda * n } else { lambda * n };
                out.push(SolvedContact {
                    point: local,
                    impulse: to_local * world_impulse,
                });
            }
        }
    }
    inspected
}
