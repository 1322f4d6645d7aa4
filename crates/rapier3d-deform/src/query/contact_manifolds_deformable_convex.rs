//! Contact manifolds between a `DeformableMeshShape` and a convex shape: one manifold per overlapping triangle, keyed by triangle index, reused from the previous step so warm starts survive.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
    TypedWorkspaceData, WorkspaceData,
};
use rapier3d::parry::shape::Triangle;

use super::MeshPair;
use super::contact_manifolds_parts::{ManifoldSlots, ensure_workspace};
use super::contact_manifolds_swept::{entered_triangle, fill_entered_manifold};
use super::contact_points_merge::merge_coincident_points;

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
    // A ball (centred at its origin) is out of reach of a triangle farther than its radius plus
    // the prediction: parry's ball routine makes no point there, so no manifold is kept.
    let ball = pair
        .other
        .as_ball()
        .map(|b| (pair.pos_mo.translation, b.radius + prediction));
    let mut slots = ManifoldSlots::new(manifolds);
    pair.mesh.for_each_triangle_in_aabb(&aabb, |t, tri| {
        let cone = pair.mesh.contact_normal_cone(t, tri);
        if cone.is_none()
            && let Some((centre, reach)) = ball
            && certainly_beyond(tri, centre, reach)
        {
            // Exactly what parry's routine would leave: no point, so the triangle keeps no
            // manifold (an incoming one of its key stays unclaimed and becomes a spare).
            return;
        }
        let (s1, s2) = if flipped { (0, t) } else { (t, 0) };
        let manifold = slots.next_tentative(s1, s2);
        manifold.mark_shapes_deformed();
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
    if pair.mesh.merges_contact_points() {
        // This family keeps manifolds only for triangles in contact.
        merge_coincident_points(manifolds, !flipped, true);
    }
}

/// Whether every point of `tri` lies farther than `reach` from `centre` by more than any
/// rounding: the distance from a point to a triangle is at least its distance to the
/// triangle's plane and to the outer side of each edge's plane (planes through an edge along
/// the normal; the triangle lies in the plane and on the inner side of each). Evaluated in
/// f64 (no overflow or underflow for coordinates within the crate's limits) against `reach`
/// widened by 1e-4 of the coordinates' magnitude, thousands of times the f32 rounding of
/// parry's own projection, so a triangle parry would put in contact is never skipped. A
/// degenerate triangle (or a non-finite value) is never skipped: parry decides.
///
/// # Performance
/// O(1): about 60 floating-point operations.
#[inline]
fn certainly_beyond(tri: &Triangle, centre: rapier3d::math::Vector, reach: Real) -> bool {
    let [a, b, c, p] = [tri.a, tri.b, tri.c, centre].map(|v| v.as_dvec3());
    let magnitude = a.abs().max(b.abs()).max(c.abs()).max(p.abs()).max_element();
    let r = f64::from(reach) + 1e-4 * (f64::from(reach) + magnitude);
    let r2 = r * r;
    let n = (b - a).cross(c - a);
    let nn = n.dot(n);
    if nn.is_nan() || nn <= 0.0 || !r2.is_finite() {
        return false;
    }
    let d = n.dot(p - a);
    if d * d > r2 * nn {
        return true;
    }
    [(a, b), (b, c), (c, a)].into_iter().any(|(o, e)| {
        let e = e - o;
        let s = e.cross(n).dot(p - o);
        s > 0.0 && s * s > r2 * e.dot(e) * nn
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d::math::Vector;
    use rapier3d::parry::query::PointQuery;
    use rapier3d::parry::shape::Ball;

    /// A deterministic xorshift mapped to `[-1, 1)`.
    fn uniform(state: &mut u64) -> f32 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// Whether parry's own (triangle, ball) routine puts a point in the manifold.
    fn parry_contact(tri: &Triangle, centre: Vector, radius: f32, prediction: f32) -> bool {
        let mut manifold = ContactManifold::<(), ()>::with_data(0, 0, ());
        let pos12 = Pose::from_translation(centre);
        let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
            &pos12,
            tri,
            &Ball::new(radius),
            None,
            None,
            prediction,
            &mut manifold,
        );
        !manifold.points.is_empty()
    }

    #[test]
    fn certainly_beyond_never_skips_a_triangle_parry_puts_in_contact() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let (mut skipped, mut near_boundary) = (0, 0);
        for round in 0..40_000 {
            let scale = [1e-3f32, 1.0, 30.0, 1e4][round % 4];
            let offset = Vector::new(uniform(&mut state), uniform(&mut state), 0.0) * scale * 10.0;
            let p = |state: &mut u64| {
                offset + Vector::new(uniform(state), uniform(state), uniform(state)) * scale
            };
            let tri = match round % 5 {
                // Slivers and needles too.
                0 => {
                    let (a, b) = (p(&mut state), p(&mut state));
                    Triangle::new(a, b, a.lerp(b, 0.5) + Vector::splat(1e-4 * scale))
                }
                _ => Triangle::new(p(&mut state), p(&mut state), p(&mut state)),
            };
            let radius = scale * (0.05 + 0.5 * uniform(&mut state).abs());
            let prediction = scale * 0.01 * uniform(&mut state).abs();
            let reach = radius + prediction;
            // Half the centres anywhere, half within a relative 1e-6 of the reach from the
            // triangle (along the direction to a random point), where rounding decides.
            let mut centre = p(&mut state);
            if round % 2 == 1 {
                let proj = tri.project_local_point(centre, true).point;
                let dir = (centre - proj).normalize_or(Vector::Y);
                let t = 1.0 + 1e-6 * uniform(&mut state);
                centre = proj + dir * (reach * t);
                near_boundary += 1;
            }
            let skip = certainly_beyond(&tri, centre, reach);
            skipped += usize::from(skip);
            assert!(
                !(skip && parry_contact(&tri, centre, radius, prediction)),
                "round {round}: skipped a triangle in contact ({tri:?}, centre {centre:?}, reach {reach})"
            );
        }
        // The test is not vacuous: most far centres are skipped.
        assert!(skipped > 10_000, "only {skipped} skipped");
        assert!(near_boundary > 0);
    }

    #[test]
    fn certainly_beyond_keeps_degenerate_and_non_finite_triangles() {
        let a = Vector::new(0.0, 0.0, 0.0);
        let b = Vector::new(1.0, 0.0, 0.0);
        let far = Vector::new(0.0, 50.0, 0.0);
        assert!(!certainly_beyond(&Triangle::new(a, b, b * 2.0), far, 0.1));
        assert!(!certainly_beyond(&Triangle::new(a, a, a), far, 0.1));
        let nan = Vector::new(f32::NAN, 0.0, 0.0);
        assert!(!certainly_beyond(&Triangle::new(a, b, nan), far, 0.1));
        // A plain far triangle is skipped, a touching one kept.
        let c = Vector::new(0.0, 0.0, 1.0);
        assert!(certainly_beyond(&Triangle::new(a, b, c), far, 0.1));
        assert!(!certainly_beyond(
            &Triangle::new(a, b, c),
            Vector::new(0.2, 0.1, 0.2),
            0.1
        ));
    }
}
