//! Pair family "tree of parts against a half-space": a deformable mesh or a sphere proxy against a parry `HalfSpace` (not a support map, unbounded); the tree is pruned by the plane itself, so only the nodes near it are refit.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::query::Unsupported;
use rapier3d::parry::shape::{HalfSpace, Shape};

use super::part_pairs::{Frames, PartPairs};
use super::part_tree::{PairVisitor, Part, Tree};

/// A tree of parts (the reference) and a half-space.
pub(super) struct HalfSpacePairs<'a> {
    tree: Tree<'a>,
    half_space: &'a HalfSpace,
    frames: Frames,
}

impl<'a> HalfSpacePairs<'a> {
    /// `tree` is shape 1 unless `flipped`.
    pub fn new(tree: Tree<'a>, half_space: &'a HalfSpace, pos12: &Pose, flipped: bool) -> Self {
        Self {
            tree,
            half_space,
            frames: Frames::new(pos12, flipped),
        }
    }

    /// The plane (a point and the outward unit normal) in the tree's frame.
    fn plane(&self) -> (Vector, Vector) {
        let pos = &self.frames.pos_ro;
        (pos.translation, pos.rotation * self.half_space.normal)
    }

    fn part(&self) -> Part<'a> {
        Part {
            id: 0,
            shape: self.half_space as &dyn Shape,
            pose: None,
            normals: None,
            aabb: self.half_space.local_aabb(),
        }
    }
}

/// Smallest signed distance from the plane `(origin, normal)` to a point of `aabb`.
fn box_plane_distance(aabb: &Aabb, origin: Vector, normal: Vector) -> Real {
    (aabb.center() - origin).dot(normal) - aabb.half_extents().dot(normal.abs())
}

impl PartPairs for HalfSpacePairs<'_> {
    fn pos12(&self) -> &Pose {
        &self.frames.pos12
    }

    fn for_each_pair(&self, margin: Real, sweep12: Vector, f: &mut PairVisitor<'_>) -> bool {
        let (origin, normal) = self.plane();
        // Moving the plane by `s` lowers every signed distance by `s·n`.
        let approach = self.frames.sweep_ro(sweep12).dot(normal).max(0.0);
        let keep = |aabb: &Aabb| box_plane_distance(aabb, origin, normal) - approach <= margin;
        let plane = self.part();
        self.tree
            .for_each_part_where(&keep, &mut |p| self.frames.ordered(p, &plane, f))
    }

    fn find_best(
        &self,
        max_cost: Real,
        leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Result<Real, Unsupported> {
        let (origin, normal) = self.plane();
        let lower = |aabb: &Aabb| Some(box_plane_distance(aabb, origin, normal).max(0.0));
        let plane = self.part();
        Ok(self.tree.find_best(max_cost, &lower, &mut |p, best| {
            self.frames
                .ordered(p, &plane, &mut |p1, p2| leaf(p1, p2, best))
        }))
    }
}
