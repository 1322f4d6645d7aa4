//! `PartCaster`: the query dispatcher that splits a nonlinear cast involving the crate's shapes down to pairs of convex parts, casts each pair with parry, and in CCD mode drops hits that cannot tunnel.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::details::{
    NonlinearShapeCastMode, cast_shapes_nonlinear_shape_voxels,
    cast_shapes_nonlinear_support_map_support_map, cast_shapes_nonlinear_voxels_shape,
};
use rapier3d::parry::query::{
    ClosestPoints, Contact, DefaultQueryDispatcher, NonlinearRigidMotion, QueryDispatcher,
    ShapeCastHit, ShapeCastOptions, ShapeDistance, ShapeIntersection, Unsupported,
};
use rapier3d::parry::shape::Shape;

use super::motion_bound::approach_speed;
use super::{composite, deformable_mesh};
use crate::shape::DeformableMeshShape;

/// Fraction of the thinner part's `ccd_thickness` that the rest of the cast interval must push
/// two convex parts into each other for a hit to count in CCD mode (Rapier's own fast-body
/// criterion lets a body move half its thickness per step unswept).
const CCD_DEPTH_FRACTION: Real = 0.5;

/// How deep two convex parts of `ccd_thickness` `thickness1` and `thickness2` must still sink
/// into each other after a hit for it to count in CCD mode: [`CCD_DEPTH_FRACTION`] of the
/// thinner one, ignoring a part without thickness (a triangle), 0 if neither has any.
///
/// # Performance
/// O(1).
pub(super) fn ccd_min_depth(thickness1: Real, thickness2: Real) -> Real {
    let thinner = match (thickness1 > 0.0, thickness2 > 0.0) {
        (true, true) => thickness1.min(thickness2),
        (true, false) => thickness1,
        (false, true) => thickness2,
        (false, false) => 0.0,
    };
    CCD_DEPTH_FRACTION * thinner
}

/// The dispatcher the crate's nonlinear casts recurse through. Its `cast_shapes_nonlinear`:
///
/// 1. a composite shape (either side: a `SphereProxyShape`, parry's `TriMesh`, `Compound`,
///    `Polyline`) is split into its parts over its BVH;
/// 2. a [`DeformableMeshShape`] against a shape with a support map is split into triangles
///    (two meshes: `Unsupported`);
/// 3. two support-map shapes go through parry's support-map cast;
/// 4. voxels go through parry's voxel casts, which call back into this dispatcher per voxel.
///
/// Every other query is only ever asked about parry's convex parts (by parry's support-map cast)
/// and goes to `DefaultQueryDispatcher`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PartCaster;

impl PartCaster {
    /// Step 3: one pair of convex parts. With `stop_at_penetration` this is exactly parry's
    /// cast; without it (Rapier's CCD), parry's directional cast, and a hit counts only if the
    /// parts still approach fast enough to sink into each other by more than [`ccd_min_depth`]
    /// (half the thinner part's `ccd_thickness`) before `end_time`. Anything shallower is what
    /// Rapier lets a body that is not fast do in one step, and is left to the contact solver;
    /// without this rule a part that grazes a surface a fraction of a millimetre away clamps the
    /// whole body's motion (a car sliding on the ground).
    #[allow(clippy::too_many_arguments)]
    fn cast_convex_pair(
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: Real,
        end_time: Real,
        stop_at_penetration: bool,
    ) -> Option<ShapeCastHit> {
        let (sm1, sm2) = (g1.as_support_map()?, g2.as_support_map()?);
        let mode = if stop_at_penetration {
            NonlinearShapeCastMode::StopAtPenetration
        } else {
            NonlinearShapeCastMode::directional_toi(g1, g2)
        };
        let hit = cast_shapes_nonlinear_support_map_support_map(
            &DefaultQueryDispatcher,
            motion1,
            sm1,
            g1,
            motion2,
            sm2,
            g2,
            start_time,
            end_time,
            mode,
        )?;
        if stop_at_penetration {
            return Some(hit);
        }
        let depth = approach_speed(&hit, motion1, motion2) * (end_time - hit.time_of_impact);
        (depth > ccd_min_depth(g1.ccd_thickness(), g2.ccd_thickness())).then_some(hit)
    }
}

impl QueryDispatcher for PartCaster {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        DefaultQueryDispatcher.intersection_test(pos12, g1, g2)
    }

    fn distance(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeDistance, Unsupported> {
        DefaultQueryDispatcher.distance(pos12, g1, g2)
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
    ) -> Result<Option<Contact>, Unsupported> {
        DefaultQueryDispatcher.contact(pos12, g1, g2, prediction)
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: Real,
    ) -> Result<ClosestPoints, Unsupported> {
        DefaultQueryDispatcher.closest_points(pos12, g1, g2, max_dist)
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        DefaultQueryDispatcher.cast_shapes(pos12, local_vel12, g1, g2, options)
    }

    fn cast_shapes_nonlinear(
        &self,
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: Real,
        end_time: Real,
        stop_at_penetration: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        let (t0, t1, stop) = (start_time, end_time, stop_at_penetration);
        // 1. Composites (sphere proxies, parry's `TriMesh`, `Compound`, `Polyline`), split into
        //    their parts.
        if let Some(c1) = g1.as_composite_shape() {
            return Ok(composite::cast(
                self, motion1, c1, motion2, g2, t0, t1, stop,
            ));
        }
        if let Some(c2) = g2.as_composite_shape() {
            return Ok(
                composite::cast(self, motion2, c2, motion1, g1, t0, t1, stop)
                    .map(ShapeCastHit::swapped),
            );
        }
        // 2. Deformable meshes against convex shapes, split into triangles.
        match (
            g1.as_shape::<DeformableMeshShape>(),
            g2.as_shape::<DeformableMeshShape>(),
        ) {
            (Some(_), Some(_)) => return Err(Unsupported),
            (Some(mesh), None) if g2.as_support_map().is_some() => {
                return Ok(deformable_mesh::cast(
                    self, motion1, mesh, motion2, g2, t0, t1, stop,
                ));
            }
            (None, Some(mesh)) if g1.as_support_map().is_some() => {
                return Ok(
                    deformable_mesh::cast(self, motion2, mesh, motion1, g1, t0, t1, stop)
                        .map(ShapeCastHit::swapped),
                );
            }
            _ => {}
        }
        // 3. Two convex parts.
        if g1.as_support_map().is_some() && g2.as_support_map().is_some() {
            return Ok(Self::cast_convex_pair(
                motion1, g1, motion2, g2, t0, t1, stop,
            ));
        }
        // 4. Voxels, through parry's cast; their parts come back here.
        if let Some(v1) = g1.as_voxels() {
            Ok(cast_shapes_nonlinear_voxels_shape(
                self, motion1, v1, motion2, g2, t0, t1, stop,
            ))
        } else if let Some(v2) = g2.as_voxels() {
            Ok(cast_shapes_nonlinear_shape_voxels(
                self, motion1, g1, motion2, v2, t0, t1, stop,
            ))
        } else {
            Err(Unsupported)
        }
    }
}
