//! Pair family "tree of parts against a height field": a deformable mesh or a sphere proxy against a parry `HeightField` (no BVH: its triangles are found per cell range), pruning tree nodes whose box has no height-field triangle near it.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::query::Unsupported;
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::shape::HeightField;

use super::part_pairs::{Frames, PartPairs};
use super::part_tree::swept;
use super::part_tree::{PairVisitor, Part, Tree};

/// Above this many cells under a node's box, the node is kept without looking at the cells.
const MAX_SCANNED_CELLS: isize = 64;

/// A tree of parts (the reference) and a height field.
pub(super) struct HeightFieldPairs<'a> {
    tree: Tree<'a>,
    height_field: &'a HeightField,
    frames: Frames,
    /// Pose of the tree in the height field's frame.
    pos_or: Pose,
}

impl<'a> HeightFieldPairs<'a> {
    /// `tree` is shape 1 unless `flipped`.
    pub fn new(tree: Tree<'a>, height_field: &'a HeightField, pos12: &Pose, flipped: bool) -> Self {
        let frames = Frames::new(pos12, flipped);
        Self {
            tree,
            height_field,
            pos_or: frames.pos_ro.inverse(),
            frames,
        }
    }

    /// Whether some height-field triangle's box meets `aabb` (height-field frame); `true` without
    /// looking when the box covers many cells.
    fn may_touch(&self, aabb: &Aabb) -> bool {
        let hf = self.height_field;
        if !aabb.intersects(hf.root_aabb()) {
            return false;
        }
        let (rows, cols) = hf.unclamped_elements_range_in_local_aabb(aabb);
        let cells = (rows.end - rows.start).max(0) * (cols.end - cols.start).max(0);
        if cells > MAX_SCANNED_CELLS {
            return true;
        }
        let mut any = false;
        hf.map_elements_in_local_aabb(aabb, &mut |_, tri| {
            any |= tri.local_aabb().intersects(aabb);
        });
        any
    }
}

impl PartPairs for HeightFieldPairs<'_> {
    fn pos12(&self) -> &Pose {
        &self.frames.pos12
    }

    fn for_each_pair(&self, margin: Real, sweep12: Vector, f: &mut PairVisitor<'_>) -> bool {
        // The tree's motion relative to the height field, in the height field's frame.
        let sweep = self.pos_or.rotation * -self.frames.sweep_ro(sweep12);
        let to_hf = |aabb: &Aabb| swept(&aabb.transform_by(&self.pos_or), sweep).loosened(margin);
        let keep = |aabb: &Aabb| self.may_touch(&to_hf(aabb));
        let hf = self.height_field;
        self.tree.for_each_part_where(&keep, &mut |p| {
            let bound = to_hf(&p.aabb);
            let mut go_on = true;
            hf.map_elements_in_local_aabb(&bound, &mut |id, tri| {
                if !go_on || !tri.local_aabb().intersects(&bound) {
                    return;
                }
                let normals = hf.triangle_normal_constraints(id);
                let part = Part {
                    id,
                    shape: tri,
                    pose: None,
                    normals: normals.as_ref().map(|n| n as &dyn NormalConstraints),
                    aabb: tri.local_aabb(),
                };
                go_on = self.frames.ordered(p, &part, f);
            });
            go_on
        })
    }

    fn find_best(
        &self,
        _max_cost: Real,
        _leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Result<Real, Unsupported> {
        // Like parry, which has no distance to a height field: no lower bound over its cells.
        Err(Unsupported)
    }
}
