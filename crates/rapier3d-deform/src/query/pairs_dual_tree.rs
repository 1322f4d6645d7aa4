//! Pair family "two trees of parts": a deformable mesh or a sphere proxy against a parry composite (`TriMesh`, `Compound`, `Polyline`), a sphere proxy, another deformable mesh, or (for proxies) a convex shape; a dual traversal of both trees with lazy mesh refits when a mesh is involved, parry's nested `Bvh` pruning otherwise.

use rapier3d::math::{Real, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::query::Unsupported;

use super::part_pairs::{Frames, PartPairs};
use super::part_tree::{DualTree, NestedTrees, PairVisitor, Part, Tree, swept};
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

/// A [`NestedTrees`] traversal of the pair, and which of its shapes is the outer one.
struct Nested<'a> {
    trees: NestedTrees<'a>,
    outer_is_reference: bool,
}

impl<'a> DualTreePairs<'a> {
    /// The pair as a nested traversal when the reference is a parry composite (a sphere proxy)
    /// and the other shape is a composite or a convex shape: then every box is a stored `Bvh`
    /// box, and parry's composite routines' pairing (the outer `Bvh` pruned by the inner root
    /// box, the inner `Bvh` by each outer part's box) tests fewer boxes than the dual descent,
    /// which transforms a box per node pair. The composite with the larger root box is the outer
    /// one, as in parry. `None` when the reference is a deformable mesh (its lazily refit
    /// BN-Tree is walked by the dual descent, which refits only the nodes it reaches).
    fn nested(&self, sweep_ro: Vector) -> Option<Nested<'a>> {
        let Tree::Composite(reference) = self.reference else {
            return None;
        };
        let pos_ro = self.frames.pos_ro;
        match self.other {
            Tree::Composite(other)
                if other.bvh().root_aabb().half_extents().length_squared()
                    > reference.bvh().root_aabb().half_extents().length_squared() =>
            {
                Some(Nested {
                    trees: NestedTrees {
                        outer: other,
                        inner: self.reference,
                        pos_oi: pos_ro.inverse(),
                        sweep_oi: pos_ro.rotation.inverse() * -sweep_ro,
                    },
                    outer_is_reference: false,
                })
            }
            Tree::Composite(_) | Tree::Single(_) => Some(Nested {
                trees: NestedTrees {
                    outer: reference,
                    inner: self.other,
                    pos_oi: pos_ro,
                    sweep_oi: sweep_ro,
                },
                outer_is_reference: true,
            }),
            Tree::Mesh(_) => None,
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
        if let Some(nested) = self.nested(sweep) {
            return if nested.outer_is_reference {
                nested
                    .trees
                    .for_each_pair(margin, &mut |r, o| self.frames.ordered(r, o, f))
            } else {
                nested
                    .trees
                    .for_each_pair(margin, &mut |o, r| self.frames.ordered(r, o, f))
            };
        }
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
