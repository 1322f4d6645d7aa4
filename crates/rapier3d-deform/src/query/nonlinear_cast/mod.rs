//! Nonlinear shape casts (the query behind Rapier's continuous collision detection) for pairs involving a `DeformableMeshShape` or a `SphereProxyShape`.
//!
//! Both shapes are split into convex parts (triangles, balls) and every pair of parts goes
//! through parry's own nonlinear cast; the earliest hit wins. The crate's trees prune parts
//! by conservative advancement: a node whose box is `gap` away from the other shape's box at the
//! start cannot be hit before `start + gap / v`, where `v` bounds how fast any two points of the
//! shapes can approach (relative linear speed plus each angular speed times the shape's reach
//! around its rotation centre). Shapes keep the deformation they have when the cast starts
//! (mesh epoch, proxy spheres): the deformation is frozen during the cast, only the rigid
//! motions move.
//!
//! Handled pairs (both argument orders):
//!
//! | pair | split into |
//! |---|---|
//! | `SphereProxyShape` (or any composite reached while splitting: `TriMesh`, `Compound`, `Polyline`) – anything | ball (part) – shape, over its BVH |
//! | `DeformableMeshShape` – convex shape with a support map | triangle – shape, over its tree |
//! | two convex shapes (reached while splitting) | parry's support-map cast |
//! | voxels (reached while splitting) | parry's voxel cast, its voxels coming back here |
//!
//! So a proxy works against convex shapes, parry composites, voxels, a deformable mesh or
//! another proxy, and a mesh against convex shapes and composites; two deformable meshes and
//! half-spaces (which parry's nonlinear cast does not support either) return
//! `Err(Unsupported)`. The result is the earliest of parry's casts over all pairs of parts.
//! Parry's own composite casts prune with nonlinear casts of bounding balls and miss the
//! earliest part now and then; the bound here never prunes a part that can be hit first.
//!
//! Two modes, as parry's `stop_at_penetration`:
//!
//! * `true` (scene queries, sensors): each pair of parts is exactly parry's cast, so the time of
//!   impact is the earliest of parry's casts of the triangles of a `TriMesh` built on the
//!   deformed vertices, or of the balls of a `Compound` of the proxy's balls.
//! * `false` (what Rapier's CCD asks): parry's directional cast per pair of parts, and a hit
//!   counts only if the parts still approach fast enough to sink into each other by more than
//!   half the thinner part's `ccd_thickness` (a triangle's, zero, does not count) before the
//!   end of the interval — what Rapier lets a body that is not fast do in one step. Grazing
//!   contacts otherwise clamp a sliding body (a car on the ground) to a fraction of its motion.
//!   Parts that start in contact go through parry's directional rule first, then this one.
//!   The approach speed is taken at the hit (witness points, normal): a rotation that later
//!   brings the same two parts deeper through another pair of features is not re-examined.

mod composite;
mod convex_parts;
mod deformable_mesh;
mod motion_bound;

use rapier3d::parry::shape::Shape;

use crate::shape::{DeformableMeshShape, SphereProxyShape};

pub(super) use convex_parts::PartCaster;

/// Whether `DeformDispatcher` casts the pair itself (one of the shapes is the crate's; see the
/// module docs for the pairs and the two modes) through [`PartCaster`], rather than leaving it to
/// the next dispatcher of the chain.
///
/// # Performance
/// O(1).
pub(super) fn handles(g1: &dyn Shape, g2: &dyn Shape) -> bool {
    let is_crate_shape = |shape: &dyn Shape| {
        shape.as_shape::<DeformableMeshShape>().is_some()
            || shape.as_shape::<SphereProxyShape>().is_some()
    };
    is_crate_shape(g1) || is_crate_shape(g2)
}
