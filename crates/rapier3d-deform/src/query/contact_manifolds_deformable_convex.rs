//! Contact manifolds between a `DeformableMeshShape` and a convex shape: one manifold per overlapping triangle, keyed by triangle index, reused from the previous step so warm starts survive.

use rapier3d::math::{Mat3, Pose, Real, Vector};
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
    TypedWorkspaceData, WorkspaceData,
};
use rapier3d::parry::shape::{Shape, Triangle};

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
    // Without normal cones, a node or triangle beyond a face of the other shape's own box
    // (loosened) is out of reach: against a large or rotated shape (a ground slab under a
    // tilted car) its box in the mesh frame covers much more than the shape. A ball's own box
    // is its box in any frame, so balls skip the test (it cost 1.7 % of a step of balls on a
    // skinned truck; pruning nodes by the distance to the centre cost 0.7 % more again).
    let reach = (!pair.mesh.fixes_internal_edges() && ball.is_none())
        .then(|| OrientedReach::new(pair.other, &pair.pos_mo, prediction));
    let keep_node = |node: &Aabb| reach.as_ref().is_none_or(|r| !r.box_beyond(node));
    let mut slots = ManifoldSlots::new(manifolds);
    pair.mesh
        .for_each_triangle_in_aabb_where(&aabb, keep_node, |t, tri| {
            let cone = pair.mesh.contact_normal_cone(t, tri);
            let beyond = cone.is_none()
                && match ball {
                    Some((centre, ball_reach)) => certainly_beyond(tri, centre, ball_reach),
                    None => reach.as_ref().is_some_and(|r| r.triangle_beyond(tri)),
                };
            if beyond {
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

/// The other shape's local box, loosened by the prediction and a rounding margin, seen from the
/// mesh: a mesh node or triangle entirely beyond one of its faces is farther than the
/// prediction from the shape (the box contains it), so parry's routine makes no point there.
/// The margin, 1e-4 of the largest coordinate involved (the pose's translation, the box's
/// corners), is thousands of times the f32 rounding of the transforms and of parry's own tests.
struct OrientedReach {
    /// Mesh frame → the other shape's frame.
    to_other: Pose,
    /// `|R|` of the other shape's rotation in the mesh frame, column `k` the absolute mesh-frame
    /// components of its axis `k`.
    abs_axes: [Vector; 3],
    lo: Vector,
    hi: Vector,
}

impl OrientedReach {
    /// # Performance
    /// O(1) and one `compute_local_aabb` of the other shape.
    fn new(other: &dyn Shape, pos_mo: &Pose, prediction: Real) -> Self {
        let local = other.compute_local_aabb();
        let magnitude = pos_mo
            .translation
            .abs()
            .max(local.mins.abs())
            .max(local.maxs.abs())
            .max_element();
        let r = prediction + 1e-4 * magnitude;
        let rot = Mat3::from_quat(pos_mo.rotation);
        Self {
            to_other: pos_mo.inverse(),
            abs_axes: [rot.x_axis.abs(), rot.y_axis.abs(), rot.z_axis.abs()],
            lo: local.mins - Vector::splat(r),
            hi: local.maxs + Vector::splat(r),
        }
    }

    /// Whether the box (mesh frame) lies beyond a face of the loosened box (separating axis
    /// test on the other shape's three axes).
    ///
    /// # Performance
    /// O(1): about 30 floating-point operations.
    #[inline]
    fn box_beyond(&self, aabb: &Aabb) -> bool {
        let centre = self.to_other * aabb.center();
        let half = aabb.half_extents();
        let spread = Vector::new(
            self.abs_axes[0].dot(half),
            self.abs_axes[1].dot(half),
            self.abs_axes[2].dot(half),
        );
        (centre - spread).cmpgt(self.hi).any() || (centre + spread).cmplt(self.lo).any()
    }

    /// Whether the triangle (mesh frame) lies beyond a face of the loosened box.
    ///
    /// # Performance
    /// O(1): three point transforms and twelve comparisons.
    #[inline]
    fn triangle_beyond(&self, tri: &Triangle) -> bool {
        let [a, b, c] = [tri.a, tri.b, tri.c].map(|p| self.to_other * p);
        let lo = a.min(b).min(c);
        let hi = a.max(b).max(c);
        lo.cmpgt(self.hi).any() || hi.cmplt(self.lo).any()
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

    /// Whether parry's own (triangle, shape) routine at `pos12` (the shape's pose in the
    /// triangle's frame) puts a point within `prediction` in the manifold. (Its GJK-based
    /// routines stop at an absolute tolerance: on millimetre shapes they now and then report a
    /// point farther apart than the prediction, for a triangle that is.)
    fn parry_contact_with(
        tri: &Triangle,
        other: &dyn Shape,
        pos12: &Pose,
        prediction: f32,
    ) -> bool {
        let mut manifold = ContactManifold::<(), ()>::with_data(0, 0, ());
        let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
            pos12,
            tri,
            other,
            None,
            None,
            prediction,
            &mut manifold,
        );
        manifold.points.iter().any(|p| p.dist <= prediction)
    }

    #[test]
    fn oriented_reach_never_skips_a_triangle_or_box_parry_puts_in_contact() {
        use rapier3d::math::Rotation;
        use rapier3d::parry::shape::{Capsule, Cone, Cuboid, Cylinder};
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let (mut skipped, mut boxes_skipped, mut touching) = (0, 0, 0);
        for round in 0..20_000 {
            // parry's capsule, cylinder and cone routines misjudge some configurations of
            // centimetre shapes (by dense sampling: a triangle 2.4 mm from a 3 mm cone reported
            // 2.4 mm deep, one 4.3 mm from a capsule of radius 0.3 mm reported 0.3 mm deep,
            // both beyond a face of the shape's box): those are checked from the metre up,
            // cuboids (parry's exact separating-axis routine) from the centimetre.
            let scale = match (round % 3, round % 4) {
                (0, 1..=3) => 1.0f32,
                (0, _) => 1e-2,
                (1, _) => 1.0,
                _ => 20.0,
            };
            let r = |state: &mut u64| uniform(state).abs() * scale + 0.01 * scale;
            let other: Box<dyn Shape> = match round % 4 {
                0 => Box::new(Cuboid::new(Vector::new(
                    r(&mut state) * 3.0,
                    r(&mut state) * 0.2,
                    r(&mut state) * 3.0,
                ))),
                1 => Box::new(Capsule::new_y(r(&mut state), r(&mut state))),
                2 => Box::new(Cylinder::new(r(&mut state), r(&mut state))),
                _ => Box::new(Cone::new(r(&mut state), r(&mut state))),
            };
            let axis = Vector::new(
                uniform(&mut state),
                uniform(&mut state),
                uniform(&mut state),
            );
            let pos_mo = Pose::from_parts(
                Vector::new(
                    uniform(&mut state),
                    uniform(&mut state),
                    uniform(&mut state),
                ) * scale,
                Rotation::from_scaled_axis(axis * 3.0),
            );
            // A triangle near the shape's box: its corners spread around a point just outside
            // a face (or inside), in the shape's frame, then moved into the mesh frame.
            let local = other.compute_local_aabb();
            let k = round % 3;
            let mut anchor = local.center();
            let side = if uniform(&mut state) > 0.0 { 1.0 } else { -1.0 };
            anchor[k] = if side > 0.0 {
                local.maxs[k]
            } else {
                local.mins[k]
            };
            anchor[k] += side * scale * 0.05 * uniform(&mut state);
            let spread = scale * [0.01f32, 0.3, 2.0][(round / 3) % 3];
            let corner = |state: &mut u64| {
                pos_mo
                    * (anchor
                        + Vector::new(uniform(state), uniform(state), uniform(state)) * spread)
            };
            let tri = Triangle::new(corner(&mut state), corner(&mut state), corner(&mut state));
            let prediction = scale * 0.02 * uniform(&mut state).abs();
            let reach = OrientedReach::new(&*other, &pos_mo, prediction);
            let contact = parry_contact_with(&tri, &*other, &pos_mo, prediction);
            touching += usize::from(contact);
            let skip = reach.triangle_beyond(&tri);
            skipped += usize::from(skip);
            assert!(
                !(skip && contact),
                "round {round}: skipped a triangle in contact ({tri:?}, pose {pos_mo:?})"
            );
            let skip_box = reach.box_beyond(&tri.local_aabb());
            boxes_skipped += usize::from(skip_box);
            assert!(
                !(skip_box && contact),
                "round {round}: skipped a box holding a triangle in contact"
            );
        }
        // Not vacuous: many triangles touch, many are skipped, boxes too.
        assert!(touching > 2_000, "only {touching} touching");
        assert!(skipped > 2_000, "only {skipped} skipped");
        assert!(boxes_skipped > 1_000, "only {boxes_skipped} boxes skipped");
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
