//! The narrow-phase query dispatcher for the crate's shapes: pairs involving a [`DeformableMeshShape`] or a [`SphereProxyShape`] are handled here, one file per handled pair family; everything else falls through to the next dispatcher of the chain.
//!
//! Install it first in Rapier's narrow phase, with parry's default dispatcher after it:
//!
//! ```
//! use rapier3d::prelude::*;
//! use rapier3d_deform::query::DeformDispatcher;
//!
//! let mut world = PhysicsWorld::new();
//! world.narrow_phase = DeformDispatcher::narrow_phase();
//! // the same as NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher))
//! ```
//!
//! Handled pairs (both argument orders; contact manifolds, intersection tests, distances,
//! contacts, closest points and linear shape casts):
//!
//! | pair | files | how |
//! |---|---|---|
//! | [`DeformableMeshShape`] – convex shape with a support map (ball, cuboid, capsule, cylinder, cone, convex polyhedron, round shapes) | `contact_manifolds_deformable_convex.rs`, `queries_deformable_convex.rs` | the mesh's tree traversed with the other shape's box |
//! | mesh or [`SphereProxyShape`] – parry `TriMesh`, `Compound`, `Polyline`, a sphere proxy, another mesh; proxy – convex shape | `pairs_dual_tree.rs` | with a mesh: dual traversal of both trees (lazy BN-Tree refits on either mesh side, stored `Bvh` boxes for the other); a proxy against a composite or convex shape: parry's nested `Bvh` pruning (`part_tree.rs` `NestedTrees`) |
//! | mesh or proxy – `HalfSpace` | `pairs_halfspace.rs` | the tree pruned by the plane itself |
//! | mesh or proxy – `HeightField` | `pairs_heightfield.rs` | the tree pruned by the height-field triangles under each node |
//!
//! Every family enumerates pairs of convex parts (`part_tree.rs`, `part_pairs.rs`); each pair goes
//! through parry's own convex–convex routines (with the `TriMesh`/`HeightField` triangles' normal
//! constraints), so contacts equal parry's on the same geometry, except that a point several
//! triangles of a deformable mesh share in one contact plane (a vertex on the ground) is kept once
//! (`contact_points_merge.rs`; per-triangle points with
//! [`DeformableMeshShape::with_contact_points_per_triangle`]). Contact manifolds
//! (`contact_manifolds_parts.rs`) are keyed per part pair `(subshape1, subshape2)`, written in
//! the colliders' frames, and re-keyed in place from the incoming manifold list, so warm starts
//! survive the workspace reset that every `shape_mut()` causes. A pair's list keeps the
//! manifolds it no longer needs as spares — no points, sub-shape ids `u32::MAX` — that later
//! steps reuse, so contacts moving over a mesh allocate nothing once the list has grown (read a
//! manifold's sub-shape ids only when it has points). A (mesh, convex) pair keeps manifolds only
//! for the triangles in contact. One-shot queries are in
//! `queries_parts.rs`. A sphere proxy against a parry composite, another proxy or a convex
//! shape is enumerated the way parry's composite routines do it (one `Bvh` pruned by the other
//! shape's box, then the other `Bvh` by each part's box, `part_tree.rs` `NestedTrees`), every
//! box a stored one; a deformable mesh's lazy BN-Tree is walked by a dual descent that refits
//! only the nodes it reaches. The mesh's lazy caches are atomics stamped with an epoch, so Rapier's
//! `parallel` narrow phase may query one mesh from several threads.
//!
//! Nonlinear shape casts (Rapier's CCD and `QueryPipeline::cast_shape_nonlinear`) are handled
//! for a [`DeformableMeshShape`] against convex shapes and parry composites, and for a
//! [`SphereProxyShape`] against anything its balls can be cast
//! against (both orders): conservative advancement over the crate's trees, parry's cast per
//! pair of convex parts, the earliest hit wins; the shapes keep their current deformation
//! during the cast. With `stop_at_penetration` the time of impact is the earliest of parry's
//! casts of the triangles of a `TriMesh` of the deformed vertices or of the balls of a
//! `Compound` (parry's own composite cast, pruning with bounding balls, now and then misses
//! that earliest part and reports a later one). Without it (what Rapier's
//! CCD asks) a hit of two parts counts only if they would still sink into each other by more
//! than half the thinner part's `ccd_thickness` before the interval ends, so a body sliding on
//! a surface is not clamped by grazing contacts.
//!
//! Left `Err(Unsupported)` (the chain then reaches parry): `Voxels` against either crate shape
//! (neither a tree of convex parts nor a support map; parry has no voxels–custom-shape path
//! either, so such pairs get no contact), the distance to a height field (parry has none: no
//! lower bound over its cells) and custom shapes without a support map. Pairs without a crate
//! shape always fall through, rejected before any downcast: both crate shapes report
//! `ShapeType::Custom`, so a pair where neither shape does is `Unsupported` at once.
//!
//! parry 0.31.1's contact query for a support-mapped shape first and a half-space second does
//! not invert the pose it hands to the half-space-first routine; part contacts in that order
//! are computed the other way round and flipped (`queries_parts.rs`).

mod contact_manifolds_deformable_convex;
mod contact_manifolds_parts;
mod contact_manifolds_swept;
mod contact_points_merge;
mod nonlinear_cast;
mod pairs_dual_tree;
mod pairs_halfspace;
mod pairs_heightfield;
mod part_pairs;
mod part_tree;
mod queries_deformable_convex;
mod queries_parts;

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, NonlinearRigidMotion,
    PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit, ShapeCastOptions, ShapeDistance,
    ShapeIntersection, Unsupported,
};
use rapier3d::parry::shape::{Shape, ShapeType};

pub use contact_manifolds_deformable_convex::DeformableContactWorkspace;

use crate::shape::DeformableMeshShape;
#[cfg(doc)]
use crate::shape::SphereProxyShape;
use part_pairs::AnyPairs;

/// A parry query dispatcher for pairs involving a [`DeformableMeshShape`] or a
/// [`SphereProxyShape`] (see the module docs for the handled pairs); returns
/// `Err(Unsupported)` for every other pair so that it can be chained before parry's
/// `DefaultQueryDispatcher`.
///
/// # Performance
/// A pair where neither shape reports `ShapeType::Custom` (no crate shape) is rejected by two
/// shape-type reads. A handled query costs the traversal of the pair's trees (O(log T + k)
/// node pairs for k overlapping part pairs; a mesh node is refit at most once per epoch, in
/// O(m)) plus one parry convex–convex query per overlapping part pair. Contact manifolds are
/// re-keyed in place from the incoming list (O(1) per manifold found near where it was last
/// step, O(log n) through a per-call index otherwise), with no allocation once the list has
/// grown to its largest size.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeformDispatcher;

/// A pair seen from the mesh: the mesh, the other shape, the other shape's pose in the mesh's
/// frame, and whether the mesh was the second argument.
struct MeshPair<'a> {
    mesh: &'a DeformableMeshShape,
    other: &'a dyn Shape,
    pos_mo: Pose,
    flipped: bool,
}

/// The convex shapes the mesh's triangles can be paired with by parry's convex–convex routines.
fn is_supported_convex(shape: &dyn Shape) -> bool {
    shape.as_shape::<DeformableMeshShape>().is_none()
        && shape.as_composite_shape().is_none()
        && shape.as_support_map().is_some()
}

/// Whether a pair may involve one of the crate's shapes: both report `ShapeType::Custom`, so a
/// pair where neither does is rejected with two direct reads of the shape type, before any
/// downcast (the pairs without a crate shape, which are most of a scene's, reach parry's
/// dispatcher at once).
fn may_be_handled(g1: &dyn Shape, g2: &dyn Shape) -> bool {
    g1.shape_type() == ShapeType::Custom || g2.shape_type() == ShapeType::Custom
}

impl<'a> MeshPair<'a> {
    /// Recognises (mesh, convex) and (convex, mesh) pairs.
    fn new(pos12: &Pose, g1: &'a dyn Shape, g2: &'a dyn Shape) -> Option<Self> {
        if let Some(mesh) = g1.as_shape::<DeformableMeshShape>() {
            is_supported_convex(g2).then_some(Self {
                mesh,
                other: g2,
                pos_mo: *pos12,
                flipped: false,
            })
        } else if let Some(mesh) = g2.as_shape::<DeformableMeshShape>() {
            is_supported_convex(g1).then_some(Self {
                mesh,
                other: g1,
                pos_mo: pos12.inverse(),
                flipped: true,
            })
        } else {
            None
        }
    }
}

impl QueryDispatcher for DeformDispatcher {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            return queries_deformable_convex::intersection_test(&pair);
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        queries_parts::intersection_test(&pairs)
    }

    fn distance(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeDistance, Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            return queries_deformable_convex::distance(&pair);
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        queries_parts::distance(&pairs)
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
    ) -> Result<Option<Contact>, Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            return queries_deformable_convex::contact(&pair, prediction);
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        queries_parts::contact(&pairs, prediction)
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: Real,
    ) -> Result<ClosestPoints, Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            return queries_deformable_convex::closest_points(&pair, max_dist);
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        queries_parts::closest_points(&pairs, max_dist)
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            // The other shape's velocity relative to the mesh, in the mesh's frame.
            let vel_mo = if pair.flipped {
                pair.pos_mo.rotation * -local_vel12
            } else {
                local_vel12
            };
            return queries_deformable_convex::cast_shapes(&pair, vel_mo, options);
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        queries_parts::cast_shapes(&pairs, local_vel12, options)
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
        // One parry nonlinear cast per pair of parts the conservative-advancement bound cannot
        // rule out, plus the tree traversals (O(log n) per part reached).
        if !may_be_handled(g1, g2) || !nonlinear_cast::handles(g1, g2) {
            return Err(Unsupported);
        }
        nonlinear_cast::PartCaster.cast_shapes_nonlinear(
            motion1,
            g1,
            motion2,
            g2,
            start_time,
            end_time,
            stop_at_penetration,
        )
    }
}

impl<ManifoldData, ContactData> PersistentQueryDispatcher<ManifoldData, ContactData>
    for DeformDispatcher
where
    ManifoldData: Default + Clone + Send + Sync,
    ContactData: Default + Copy + Send + Sync,
{
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
        manifolds: &mut Vec<ContactManifold<ManifoldData, ContactData>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        if !may_be_handled(g1, g2) {
            return Err(Unsupported);
        }
        if let Some(pair) = MeshPair::new(pos12, g1, g2) {
            contact_manifolds_deformable_convex::contact_manifolds(
                &pair, pos12, prediction, manifolds, workspace,
            );
            return Ok(());
        }
        let pairs = AnyPairs::new(pos12, g1, g2).ok_or(Unsupported)?;
        contact_manifolds_parts::contact_manifolds(&pairs, prediction, manifolds, workspace);
        let merges = |g: &dyn Shape| {
            g.as_shape::<DeformableMeshShape>()
                .is_some_and(DeformableMeshShape::merges_contact_points)
        };
        // Part pairs keep a manifold per candidate, with or without points.
        if merges(g1) {
            contact_points_merge::merge_coincident_points(manifolds, true, false);
        }
        if merges(g2) {
            contact_points_merge::merge_coincident_points(manifolds, false, false);
        }
        Ok(())
    }

    fn contact_manifold_convex_convex(
        &self,
        _pos12: &Pose,
        _g1: &dyn Shape,
        _g2: &dyn Shape,
        _normal_constraints1: Option<&dyn NormalConstraints>,
        _normal_constraints2: Option<&dyn NormalConstraints>,
        _prediction: Real,
        _manifold: &mut ContactManifold<ManifoldData, ContactData>,
    ) -> Result<(), Unsupported> {
        // The mesh is not convex; convex pairs belong to the next dispatcher.
        Err(Unsupported)
    }
}

impl DeformDispatcher {
    /// Rapier's narrow phase with this dispatcher first in the chain and parry's default after
    /// it: `NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher))`.
    /// Every world holding one of the crate's shapes needs it
    /// (`world.narrow_phase = DeformDispatcher::narrow_phase()`).
    ///
    /// # Performance
    /// O(1).
    pub fn narrow_phase() -> rapier3d::geometry::NarrowPhase {
        use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
        rapier3d::geometry::NarrowPhase::with_query_dispatcher(
            DeformDispatcher.chain(DefaultQueryDispatcher),
        )
    }
}
