//! Pair family "two trees of parts": a deformable mesh or a sphere proxy against a parry composite (`TriMesh`, `Compound`, `Polyline`), a sphere proxy, another deformable mesh, or (for proxies) a convex shape; a dual traversal of both trees with lazy mesh refits on either side.

use rapier3d::math::{Real, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::query::Unsupported;

use super::part_pairs::{Frames, PartPairs, swept};
use super::part_tree::{DualTree, PairVisitor, Part, Tree};
use rapier3d::math::Pose;

/// Two trees of parts; `reference` is the traversal's frame (a mesh when there is one).
pub(super) struct DualTreePairs<'a> {
    reference: Tree<'a>,
    other: Tree<'a>,
    frames: Frames,
}

impl<'a> DualTreePairs<'a> {
    /// `reference` is shape 1 unless `flipped`.
    pub fn new(reference: Tree<'a>, other: Tree<'a>, pos12: &Pose, flipped: bool) -> Self {
        Self {
            reference,
            other,
            frames: Frames::new(pos12, flipped),
        }
    }
}

impl PartPairs for DualTreePairs<'_> {
    fn pos12(&self) -> &Pose {
        &self.frames.pos12
    }

    fn for_each_pair(&self, margin: Real, sweep12: Vector, f: &mut PairVisitor<'_>) -> bool {
        let pos_ro = self.frames.pos_ro;
        let sweep = self.frames.sweep_ro(sweep12);
        let b_box = move |aabb: &Aabb| swept(&aabb.transform_by(&pos_ro), sweep).loosened(margin);
        let dual = DualTree {
            a: self.reference,
            b: self.other,
            b_box: &b_box,
        };
        dual.for_each_pair(&mut |r, o| self.frames.ordered(r, o, f))
    }

    fn find_best(
        &self,
        max_cost: Real,
        leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Result<Real, Unsupported> {
        let pos_ro = self.frames.pos_ro;
        let b_box = move |aabb: &Aabb| aabb.transform_by(&pos_ro);
        let dual = DualTree {
            a: self.reference,
            b: self.other,
            b_box: &b_box,
        };
        Ok(dual.find_best(max_cost, &mut |r, o, best| {
            self.frames.ordered(r, o, &mut |p1, p2| leaf(p1, p2, best))
        }))
    }
}
