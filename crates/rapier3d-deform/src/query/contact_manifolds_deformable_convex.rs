//! Contact manifolds between a `DeformableMeshShape` and a convex shape: one manifold per overlapping triangle, keyed by triangle index, reused from the previous step so warm starts survive.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
    TypedWorkspaceData, WorkspaceData,
};

use super::MeshPair;
use super::contact_manifolds_parts::{ManifoldSlots, ensure_workspace};
use super::contact_manifolds_swept::{entered_triangle, fill_entered_manifold};

/// The narrow-phase workspace of a (deformable mesh, convex) pair. It holds nothing (manifolds
/// are re-keyed from the incoming manifold list, which also carries what swept contacts
/// remember); its presence tells Rapier that the pair's manifold list may change from one step
/// to the next, so its solver contact graph is rebuilt for the pair.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeformableContactWorkspace;

impl WorkspaceData for DeformableContactWorkspace {
    fn as_typed_workspace_data(&self) -> TypedWorkspaceData<'_> {
        TypedWorkspaceData::Custom
    }

    fn clone_dyn(&self) -> Box<dyn WorkspaceData> {
        Box::new(*self)
    }
}

/// Fills `manifolds` with one manifold per triangle in contact among those whose box overlaps
/// the other shape's box loosened by `prediction`, keyed `(triangle, 0)` (`(0, triangle)` when the mesh is the second
/// shape), in the tree's depth-first order. A manifold of the same key in the incoming list is
/// reused in place (`ManifoldSlots`: parry's per-triangle routines then carry its points'
/// solver data over by feature ids, as for a `TriMesh`). Points are in the colliders' frames.
///
/// No allocation once the pair's list has held as many manifolds as now (spares are reused), no
/// hashing, no copy of the points.
pub(super) fn contact_manifolds<ManifoldData, ContactData>(
    pair: &MeshPair<'_>,
    pos12: &Pose,
    prediction: Real,
    manifolds: &mut Vec<ContactManifold<ManifoldData, ContactData>>,
    workspace: &mut Option<ContactManifoldsWorkspace>,
) where
    ManifoldData: Default + Clone + Send + Sync,
    ContactData: Default + Copy + Send + Sync,
{
    let flipped = pair.flipped;
    let aabb = pair.other.compute_aabb(&pair.pos_mo).loosened(prediction);
    let pos21_again = pair.pos_mo.inverse();
    ensure_workspace(workspace);
    if let Some(t) = entered_triangle(pair, &aabb, manifolds) {
        // The shape's centre is behind the triangle that swept past it: only that triangle
        // pushes it (out through its front); the others would push it on through a thin limb.
        let (s1, s2) = if flipped { (0, t) } else { (t, 0) };
        let mut slots = ManifoldSlots::new(manifolds);
        fill_entered_manifold(pair, t, slots.next(s1, s2));
        slots.finish();
        return;
    }
    let mut slots = ManifoldSlots::new(manifolds);
    pair.mesh.for_each_triangle_in_aabb(&aabb, |t, tri| {
        let (s1, s2) = if flipped { (0, t) } else { (t, 0) };
        let manifold = slots.next_tentative(s1, s2);
        manifold.mark_shapes_deformed();
        let cone = pair.mesh.contact_normal_cone(t, tri);
        let normals = cone.as_ref().map(|c| c as &dyn NormalConstraints);
        let _ = if flipped {
            // `pos_mo.inverse()` rather than `pos12`: the pose parry's own TriMesh path uses, so
            // that near-degenerate clipping decides as it does for a TriMesh.
            DefaultQueryDispatcher.contact_manifold_convex_convex(
                &pos21_again,
                pair.other,
                tri,
                None,
                normals,
                prediction,
                manifold,
            )
        } else {
            DefaultQueryDispatcher.contact_manifold_convex_convex(
                pos12, tri, pair.other, normals, None, prediction, manifold,
            )
        };
        // A triangle within reach but not in contact keeps no manifold: its slot (and the
        // point list's capacity) goes to the next triangle.
        let keep = !manifold.points.is_empty();
        slots.settle(keep);
    });
    slots.finish();
}
