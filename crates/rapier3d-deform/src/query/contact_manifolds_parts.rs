//! Contact manifolds of every part-pair family: one manifold per pair of overlapping parts, keyed `(part of shape 1, part of shape 2)`, re-keyed from the incoming manifold list so that warm starts survive workspace resets, points in the colliders' frames.

use rapier3d::math::{Real, Vector};
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};

use super::contact_manifolds_deformable_convex::DeformableContactWorkspace;
use super::part_pairs::PartPairs;
use super::part_tree::{Part, part_pos12};

/// Fills `manifolds` with one manifold per candidate part pair of `pairs` (bounds within
/// `prediction`), in traversal order. A manifold with the same `(subshape1, subshape2)` in the
/// incoming list is reused in place ([`ManifoldSlots`]); parry's convex–convex routines then
/// carry its points' solver data over (by feature ids, or in place for a ball). Points and
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
    let pos12 = *pairs.pos12();
    let mut slots = ManifoldSlots::new(manifolds);
    pairs.for_each_pair(prediction, Vector::ZERO, &mut |p1, p2| {
        let manifold = slots.next(p1.id, p2.id);
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
            manifold,
        );
        to_collider_frames(manifold, p1, p2);
        true
    });
    slots.finish();
    ensure_workspace(workspace);
}

/// Installs the (empty) [`DeformableContactWorkspace`] unless it is there.
pub(super) fn ensure_workspace(workspace: &mut Option<ContactManifoldsWorkspace>) {
    if workspace
        .as_ref()
        .and_then(|w| w.0.downcast_ref::<DeformableContactWorkspace>())
        .is_none()
    {
        *workspace = Some(ContactManifoldsWorkspace(Box::new(
            DeformableContactWorkspace,
        )));
    }
}

/// Re-keys a pair's incoming manifold list in place while a traversal enumerates this step's
/// part pairs: the `k`-th pair's manifold is swapped into position `k` from wherever it sits
/// at or after `k` (the incoming list is the previous step's traversal order, so it is almost
/// always already there), or a fresh one is pushed and swapped in; [`ManifoldSlots::finish`]
/// drops the manifolds no pair claimed.
///
/// This replaces a hash map keyed by sub-shape pairs: no hashing, no manifold moved out of the
/// list and back, no allocation but the list's own growth (new pairs beyond its capacity).
///
/// # Performance
/// O(1) per pair found where it was; a pair found `j` slots later or missing costs a scan of
/// O(j) or of the rest of the list (a step where c pairs appear costs at most O(c · n)).
pub(super) struct ManifoldSlots<'m, ManifoldData, ContactData> {
    manifolds: &'m mut Vec<ContactManifold<ManifoldData, ContactData>>,
    next: usize,
}

impl<'m, ManifoldData: Default, ContactData: Default + Copy>
    ManifoldSlots<'m, ManifoldData, ContactData>
{
    /// Slots over the incoming list.
    pub fn new(manifolds: &'m mut Vec<ContactManifold<ManifoldData, ContactData>>) -> Self {
        Self { manifolds, next: 0 }
    }

    /// The manifold of the next pair, keyed `(subshape1, subshape2)`: the incoming one of that
    /// key, or a fresh one.
    pub fn next(
        &mut self,
        subshape1: u32,
        subshape2: u32,
    ) -> &mut ContactManifold<ManifoldData, ContactData> {
        let k = self.next;
        self.next += 1;
        let list = &mut *self.manifolds;
        let found = list[k..]
            .iter()
            .position(|m| m.subshape1 == subshape1 && m.subshape2 == subshape2);
        match found {
            Some(0) => {}
            Some(j) => list.swap(k, k + j),
            None => {
                list.push(ContactManifold::with_data(
                    subshape1,
                    subshape2,
                    ManifoldData::default(),
                ));
                let last = list.len() - 1;
                list.swap(k, last);
            }
        }
        &mut list[k]
    }

    /// Drops the incoming manifolds no pair claimed.
    pub fn finish(self) {
        self.manifolds.truncate(self.next);
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
