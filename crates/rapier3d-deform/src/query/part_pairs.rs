//! The pairs the dispatcher handles part by part: which shapes are trees of parts, and the one interface (`PartPairs`) through which contact manifolds and one-shot queries enumerate the candidate pairs of convex parts of a pair family.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::Unsupported;
use rapier3d::parry::shape::{HalfSpace, HeightField, Shape};

use super::pairs_dual_tree::DualTreePairs;
use super::pairs_halfspace::HalfSpacePairs;
use super::pairs_heightfield::HeightFieldPairs;
use super::part_tree::{PairVisitor, Part, Tree};
use crate::shape::{DeformableMeshShape, SphereProxyShape};

/// The candidate part pairs of a pair of shapes, in argument order.
pub(super) trait PartPairs {
    /// The pose of shape 2 in shape 1's frame.
    fn pos12(&self) -> &Pose;

    /// Calls `f(part of shape 1, part of shape 2)` for every pair of parts whose bounds are
    /// within `margin` of each other while shape 2 moves by `sweep12` (shape 1's frame; zero
    /// for a static query), until `f` returns `false`. Returns `false` if it did.
    fn for_each_pair(&self, margin: Real, sweep12: Vector, f: &mut PairVisitor<'_>) -> bool;

    /// Branch and bound: `leaf(part 1, part 2, best)` returns the pair's cost (a distance); pairs
    /// are tried only while their bounds are closer than the best cost so far (starting at
    /// `max_cost`). Returns the best cost, or `Unsupported` when the family has no distance
    /// lower bound.
    fn find_best(
        &self,
        max_cost: Real,
        leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Result<Real, Unsupported>;
}

/// How a shape takes part in a pair.
#[derive(Clone, Copy)]
enum Side<'a> {
    Mesh(&'a DeformableMeshShape),
    Proxy(&'a SphereProxyShape),
    /// Any other parry composite (`TriMesh`, `Compound`, `Polyline`).
    Composite(Tree<'a>),
    HeightField(&'a HeightField),
    HalfSpace(&'a HalfSpace),
    /// A convex shape with a support map.
    Convex(&'a dyn Shape),
}

impl<'a> Side<'a> {
    fn of(shape: &'a dyn Shape) -> Option<Self> {
        if let Some(m) = shape.as_shape::<DeformableMeshShape>() {
            Some(Side::Mesh(m))
        } else if let Some(p) = shape.as_shape::<SphereProxyShape>() {
            Some(Side::Proxy(p))
        } else if let Some(h) = shape.as_heightfield() {
            Some(Side::HeightField(h))
        } else if let Some(h) = shape.as_halfspace() {
            Some(Side::HalfSpace(h))
        } else if let Some(c) = shape.as_composite_shape() {
            Some(Side::Composite(Tree::Composite(c)))
        } else if shape.as_support_map().is_some() {
            Some(Side::Convex(shape))
        } else {
            None
        }
    }

    /// The side as a tree of parts (half-spaces and height fields are not trees).
    fn tree(self) -> Option<Tree<'a>> {
        match self {
            Side::Mesh(m) => Some(Tree::Mesh(m)),
            Side::Proxy(p) => Some(Tree::Composite(p)),
            Side::Composite(t) => Some(t),
            Side::Convex(s) => Some(Tree::Single(s)),
            Side::HeightField(_) | Side::HalfSpace(_) => None,
        }
    }

    /// How strongly the side should be the traversal's reference frame (its boxes are not
    /// transformed): a mesh's lazy boxes first, then a proxy's.
    fn rank(self) -> u8 {
        match self {
            Side::Mesh(_) => 2,
            Side::Proxy(_) => 1,
            _ => 0,
        }
    }
}

/// A handled pair, by family.
pub(super) enum AnyPairs<'a> {
    /// Two trees of parts.
    DualTree(DualTreePairs<'a>),
    /// A tree of parts and a half-space.
    HalfSpace(HalfSpacePairs<'a>),
    /// A tree of parts and a height field.
    HeightField(HeightFieldPairs<'a>),
}

impl<'a> AnyPairs<'a> {
    /// Recognises a handled pair: a deformable mesh or a sphere proxy against a supported
    /// shape; `None` for every other pair.
    pub fn new(pos12: &Pose, g1: &'a dyn Shape, g2: &'a dyn Shape) -> Option<Self> {
        let (s1, s2) = (Side::of(g1)?, Side::of(g2)?);
        if s1.rank().max(s2.rank()) == 0 {
            return None;
        }
        // The handled shape (mesh first, then proxy) is the traversal's reference.
        let flipped = s2.rank() > s1.rank();
        let (a, b) = if flipped { (s2, s1) } else { (s1, s2) };
        let tree = a.tree()?;
        let pairs = match b {
            Side::HalfSpace(h) => AnyPairs::HalfSpace(HalfSpacePairs::new(tree, h, pos12, flipped)),
            Side::HeightField(h) => {
                AnyPairs::HeightField(HeightFieldPairs::new(tree, h, pos12, flipped))
            }
            other => AnyPairs::DualTree(DualTreePairs::new(tree, other.tree()?, pos12, flipped)),
        };
        Some(pairs)
    }

    fn inner(&self) -> &dyn PartPairs {
        match self {
            AnyPairs::DualTree(p) => p,
            AnyPairs::HalfSpace(p) => p,
            AnyPairs::HeightField(p) => p,
        }
    }
}

impl PartPairs for AnyPairs<'_> {
    fn pos12(&self) -> &Pose {
        self.inner().pos12()
    }

    fn for_each_pair(&self, margin: Real, sweep12: Vector, f: &mut PairVisitor<'_>) -> bool {
        self.inner().for_each_pair(margin, sweep12, f)
    }

    fn find_best(
        &self,
        max_cost: Real,
        leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Result<Real, Unsupported> {
        self.inner().find_best(max_cost, leaf)
    }
}

/// The poses the pair families need: the pose of the "other" shape in the reference shape's
/// frame, and the motion of the other shape relative to the reference in the reference's frame.
pub(super) struct Frames {
    /// Pose of shape 2 in shape 1's frame.
    pub pos12: Pose,
    /// Pose of the other shape in the reference shape's frame.
    pub pos_ro: Pose,
    /// Whether the reference shape is shape 2.
    pub flipped: bool,
}

impl Frames {
    /// Frames of a pair whose reference shape is shape 2 when `flipped`.
    pub fn new(pos12: &Pose, flipped: bool) -> Self {
        Self {
            pos12: *pos12,
            pos_ro: if flipped { pos12.inverse() } else { *pos12 },
            flipped,
        }
    }

    /// The motion `sweep12` of shape 2 relative to shape 1 (shape 1's frame), as the motion of
    /// the other shape relative to the reference shape, in the reference's frame.
    pub fn sweep_ro(&self, sweep12: Vector) -> Vector {
        if self.flipped {
            self.pos_ro.rotation * -sweep12
        } else {
            sweep12
        }
    }

    /// Calls `f` with the parts in argument order.
    pub fn ordered<T>(
        &self,
        reference: &Part<'_>,
        other: &Part<'_>,
        f: &mut dyn FnMut(&Part<'_>, &Part<'_>) -> T,
    ) -> T {
        if self.flipped {
            f(other, reference)
        } else {
            f(reference, other)
        }
    }
}
