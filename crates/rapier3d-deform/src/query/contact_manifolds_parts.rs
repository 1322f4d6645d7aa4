//! Contact manifolds of every part-pair family: one manifold per pair of overlapping parts, keyed `(part of shape 1, part of shape 2)`, re-keyed from the incoming manifold list so that warm starts survive workspace resets, points in the colliders' frames.

use std::collections::HashMap;

use rapier3d::math::{Real, Vector};
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};

use super::contact_manifolds_deformable_convex::DeformableContactWorkspace;
use super::part_pairs::PartPairs;
use super::part_tree::{Part, part_pos12};

/// Fills `manifolds` with one manifold per candidate part pair of `pairs` (bounds within
/// `prediction`), in traversal order. A manifold with the same `(subshape1, subshape2)` in the
/// incoming list is reused and its points' solver data carried over by feature ids. Points and
/// normals are written in the colliders' frames (no sub-shape poses), so that Rapier's contact
/// clustering and the crate's impulse read-back see consistent positions.
pub(super) fn contact_manifolds<ManifoldData, ContactData>(
    pairs: &dyn PartPairs,
    prediction: Real,
    manifolds: &mut Vec<ContactManifold<ManifoldData, ContactData>>,
    workspace: &mut Option<ContactManifoldsWorkspace>,
) where
    ManifoldData: Default + Clone + Send + Sync,
    ContactData: Default + Copy + Send + Sync,
{
    let mut old: HashMap<(u32, u32), ContactManifold<ManifoldData, ContactData>> = manifolds
        .drain(..)
        .map(|m| ((m.subshape1, m.subshape2), m))
        .collect();
    let pos12 = *pairs.pos12();
    let mut previous = Vec::new();
    pairs.for_each_pair(prediction, Vector::ZERO, &mut |p1, p2| {
        let mut manifold = old
            .remove(&(p1.id, p2.id))
            .unwrap_or_else(|| ContactManifold::with_data(p1.id, p2.id, ManifoldData::default()));
        previous.clear();
        previous.extend_from_slice(&manifold.points);
        manifold.mark_shapes_deformed();
        // Back into part 1's frame: parry starts its GJK search from the previous normal.
        if let Some(pose) = p1.pose {
            manifold.local_n1 = pose.rotation.inverse() * manifold.local_n1;
        }
        let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
            &part_pos12(&pos12, p1.pose, p2.pose),
            p1.shape,
            p2.shape,
            p1.normals,
            p2.normals,
            prediction,
            &mut manifold,
        );
        to_collider_frames(&mut manifold, p1, p2);
        manifold.match_contacts(&previous);
        manifolds.push(manifold);
        true
    });
    if workspace
        .as_mut()
        .and_then(|w| w.0.downcast_mut::<DeformableContactWorkspace>())
        .is_none()
    {
        *workspace = Some(ContactManifoldsWorkspace(Box::new(
            DeformableContactWorkspace,
        )));
    }
}

/// Moves points and normals computed in the parts' frames into the colliders' frames.
fn to_collider_frames<ManifoldData, ContactData: Copy>(
    manifold: &mut ContactManifold<ManifoldData, ContactData>,
    p1: &Part<'_>,
    p2: &Part<'_>,
) {
    if let Some(pose) = p1.pose {
        manifold.local_n1 = pose.rotation * manifold.local_n1;
        for p in &mut manifold.points {
            p.local_p1 = pose * p.local_p1;
        }
    }
    if let Some(pose) = p2.pose {
        manifold.local_n2 = pose.rotation * manifold.local_n2;
        for p in &mut manifold.points {
            p.local_p2 = pose * p.local_p2;
        }
    }
}
