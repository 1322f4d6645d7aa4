//! Contact manifolds between a `DeformableMeshShape` and a convex shape: one manifold per overlapping triangle, keyed by triangle index, reused from the previous step so warm starts survive.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
    TypedWorkspaceData, WorkspaceData,
};

use super::MeshPair;

/// The narrow-phase workspace of a (deformable mesh, convex) pair. It holds nothing (manifolds
/// are re-keyed from the incoming manifold list); its presence tells Rapier that the pair's
/// manifold list may change from one step to the next, so its solver contact graph is rebuilt
/// for the pair.
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

/// Fills `manifolds` with one manifold per triangle whose box overlaps the other shape's box
/// loosened by `prediction`, keyed `(triangle, 0)` (`(0, triangle)` when the mesh is the second
/// shape). A manifold of the same key in the incoming list is reused (parry's per-triangle
/// routines then carry its points' solver data over by feature ids, as for a `TriMesh`). Points
/// are in the colliders' frames.
///
/// The incoming list is sorted by key and searched by bisection: one allocation per call (the
/// new list), no hashing, no copy of the points.
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
    let key = move |m: &ContactManifold<ManifoldData, ContactData>| {
        if flipped { m.subshape2 } else { m.subshape1 }
    };
    let mut old = std::mem::replace(manifolds, Vec::with_capacity(manifolds.len() + 4));
    old.sort_unstable_by_key(key);
    let aabb = pair.other.compute_aabb(&pair.pos_mo).loosened(prediction);
    let pos21_again = pair.pos_mo.inverse();
    pair.mesh.for_each_triangle_in_aabb(&aabb, |t, tri| {
        // Each triangle is visited once, so each old manifold is taken at most once; the
        // placeholder left behind keeps its key so the list stays sorted for the next searches.
        let (s1, s2) = if flipped { (0, t) } else { (t, 0) };
        let reused = old.binary_search_by_key(&t, key).ok().map(|i| {
            std::mem::replace(
                &mut old[i],
                ContactManifold::with_data(s1, s2, ManifoldData::default()),
            )
        });
        let mut manifold =
            reused.unwrap_or_else(|| ContactManifold::with_data(s1, s2, ManifoldData::default()));
        manifold.mark_shapes_deformed();
        let _ = if flipped {
            // `pos_mo.inverse()` rather than `pos12`: the pose parry's own TriMesh path uses, so
            // that near-degenerate clipping decides as it does for a TriMesh.
            DefaultQueryDispatcher.contact_manifold_convex_convex(
                &pos21_again,
                pair.other,
                tri,
                None,
                None,
                prediction,
                &mut manifold,
            )
        } else {
            DefaultQueryDispatcher.contact_manifold_convex_convex(
                pos12,
                tri,
                pair.other,
                None,
                None,
                prediction,
                &mut manifold,
            )
        };
        manifolds.push(manifold);
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
