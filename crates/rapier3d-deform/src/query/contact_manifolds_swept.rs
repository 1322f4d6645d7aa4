//! Swept contacts between a `DeformableMeshShape` with [`DeformableMeshShape::with_swept_contacts`] and a convex shape: the triangle that swept past the convex shape's centre during the step (continuous vertex–triangle test against the motion between the last two poses), remembered in the pair's manifold list until the centre is back in front of it.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::query::{ContactManifold, TrackedContact};
use rapier3d::parry::shape::{PackedFeatureId, Triangle};

use super::MeshPair;
use crate::geometry::first_crossing;
use crate::math::Vec3;
use crate::shape::DeformableMeshShape;

/// The mesh-side feature of a swept contact: it marks the pair's manifold list as "entered
/// through this manifold's triangle" for the next step (Rapier drops a pair's workspace
/// whenever a shape changes, every step for a posed mesh, but keeps its manifolds). Triangle
/// features are vertices 0–2, edges 0–2 and face 0, so this id never occurs otherwise.
fn entered_feature() -> PackedFeatureId {
    PackedFeatureId::face(0x00ff_fffe)
}

/// The triangle the convex shape of `pair` was entered through last step (`manifolds` holds
/// that step's swept contact) and is still behind (its centre behind the triangle's outward
/// plane, the triangle's box touching the shape's loosened box `shape_box`), or the one whose
/// front swept past the shape's centre during this step (earliest crossing), or `None`.
///
/// The centre is taken as still during the step: Rapier's own CCD handles the bodies' rigid
/// motion; this adds the surface's motion between the mesh's last two poses.
///
/// # Performance
/// O(1) while a pair stays entered; otherwise the continuous test of each triangle whose box
/// lies within the motion bound of the centre (four cubic evaluations for one that does not
/// cross), nothing when the mesh did not move.
pub(super) fn entered_triangle<ManifoldData, ContactData>(
    pair: &MeshPair<'_>,
    shape_box: &Aabb,
    manifolds: &[ContactManifold<ManifoldData, ContactData>],
) -> Option<u32> {
    let mesh = pair.mesh;
    let bound = mesh.swept_motion_bound()?;
    let centre = pair.pos_mo * pair.other.compute_local_aabb().center();
    if let [m] = manifolds {
        let (t, fid) = if pair.flipped {
            (m.subshape2, m.points.first().map(|p| p.fid2))
        } else {
            (m.subshape1, m.points.first().map(|p| p.fid1))
        };
        if fid == Some(entered_feature()) && (t as usize) < mesh.triangle_count() {
            let tri = mesh.triangle(t);
            let behind = outward_normal(mesh, &tri).is_some_and(|n| {
                (centre - tri.a).dot(n) < 0.0 && tri.local_aabb().intersects(shape_box)
            });
            if behind {
                return Some(t);
            }
        }
    }
    if bound == 0.0 {
        return None;
    }
    let region = Aabb::new(centre, centre).loosened(bound);
    let flip = mesh_is_inward(mesh);
    let triangles = mesh.tree().mesh().triangles();
    let mut first: Option<(f32, u32)> = None;
    mesh.for_each_triangle_in_aabb(&region, |t, tri| {
        let [i, j, k] = triangles[t as usize];
        let a = [mesh.previous_vertex(i), tri.a];
        let (mut b, mut c) = (
            [mesh.previous_vertex(j), tri.b],
            [mesh.previous_vertex(k), tri.c],
        );
        if flip {
            std::mem::swap(&mut b, &mut c);
        }
        if let Some(x) = first_crossing([centre, centre], a, b, c)
            && first.is_none_or(|(time, _)| x.time < time)
        {
            first = Some((x.time, t));
        }
    });
    first.map(|(_, t)| t)
}

/// Fills `manifold` (keyed to triangle `t` by the caller) with one contact that pushes the
/// convex shape of `pair` out through the front of `t`: the projection of the shape's centre
/// on the posed triangle's plane, the shape's support point against the triangle's outward
/// normal, their separation along that normal (negative: behind). Points and normals are in
/// the colliders' frames, mesh first unless `pair.flipped`.
pub(super) fn fill_entered_manifold<ManifoldData, ContactData>(
    pair: &MeshPair<'_>,
    t: u32,
    manifold: &mut ContactManifold<ManifoldData, ContactData>,
) where
    ContactData: Default + Copy,
{
    manifold.points.clear();
    let mesh = pair.mesh;
    let tri = mesh.triangle(t);
    let (Some(n), Some(support)) = (outward_normal(mesh, &tri), pair.other.as_support_map()) else {
        return;
    };
    let centre = pair.pos_mo * pair.other.compute_local_aabb().center();
    // On the triangle's plane, not clamped to the triangle: the shape slides along the limb
    // while it is pushed out, and the surface velocity there is the triangle's, extrapolated.
    let on_mesh = centre - n * (centre - tri.a).dot(n);
    let on_other = support.support_point(&pair.pos_mo, -n);
    let dist: Real = (on_other - on_mesh).dot(n);
    let to_other: Pose = pair.pos_mo.inverse();
    let (local_other, n_other) = (to_other * on_other, to_other.rotation * -n);
    manifold.mark_shapes_deformed();
    (manifold.local_n1, manifold.local_n2) = if pair.flipped {
        (n_other, n)
    } else {
        (n, n_other)
    };
    manifold.points.push(TrackedContact::flipped(
        on_mesh,
        local_other,
        entered_feature(),
        PackedFeatureId::UNKNOWN,
        dist,
        pair.flipped,
    ));
}

/// The posed triangle `tri`'s unit normal pointing out of the solid (`None` when degenerate).
fn outward_normal(mesh: &DeformableMeshShape, tri: &Triangle) -> Option<Vec3> {
    let n = tri.normal()?;
    Some(if mesh_is_inward(mesh) { -n } else { n })
}

/// Whether the solid mesh is wound inwards (its winding normals point into it).
fn mesh_is_inward(mesh: &DeformableMeshShape) -> bool {
    mesh.solid_orientation().is_some_and(|s| s < 0.0)
}
