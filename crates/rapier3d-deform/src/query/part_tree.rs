//! A shape seen as a tree of convex parts (a deformable mesh's lazy BN-Tree, a parry composite's `Bvh`, or a single convex shape), with single-tree and dual-tree traversals that prune by node boxes.
//!
//! The traversals are what every pair family of the dispatcher is built on: a
//! [`DeformableMeshShape`] node box is computed (refit) only when the traversal reaches it, so a
//! query refits only the nodes whose parent box overlapped the other shape; a parry composite
//! (`TriMesh`, `Compound`, `Polyline`, [`crate::shape::SphereProxyShape`]) is walked through its
//! stored `Bvh` boxes with the public traversal API. Every traversal is sequential and
//! deterministic (same visiting order whatever the thread), so results do not depend on Rapier's
//! `parallel` feature.

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{BvhNode, BvhNodeIndex, TraversalAction};
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::shape::{CompositeShape, Shape};

use crate::shape::DeformableMeshShape;

/// What pair enumerations call for each pair of parts (part of shape 1, part of shape 2); it
/// returns `false` to stop the enumeration.
pub(super) type PairVisitor<'f> = dyn FnMut(&Part<'_>, &Part<'_>) -> bool + 'f;

/// One convex part of a shape, in the shape's frame.
pub(super) struct Part<'a> {
    /// Sub-shape id (triangle index, composite leaf index, or 0 for a single shape).
    pub id: u32,
    /// The part's geometry, in the part's frame.
    pub shape: &'a dyn Shape,
    /// The part's frame in the owner's frame (`None`: the owner's frame).
    pub pose: Option<&'a Pose>,
    /// Normal constraints of the part (pseudo-normals of a `TriMesh` or `HeightField` triangle).
    pub normals: Option<&'a dyn NormalConstraints>,
    /// A box enclosing the part, in the owner's frame.
    pub aabb: Aabb,
}

/// A node of a [`Tree`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Node {
    /// A BN-Tree node index.
    Mesh(u32),
    /// The virtual root of a `Bvh` (its box is the root box; its children are the top nodes).
    BvhRoot,
    /// A `Bvh` node with its stored box and, for a leaf, its leaf index.
    Bvh {
        index: BvhNodeIndex,
        aabb: Aabb,
        leaf: Option<u32>,
    },
    /// The only node of a single shape.
    Single,
}

/// A shape as a tree of parts.
#[derive(Clone, Copy)]
pub(super) enum Tree<'a> {
    /// A deformable mesh: BN-Tree nodes refit lazily, parts are deformed triangles.
    Mesh(&'a DeformableMeshShape),
    /// A parry composite shape walked through its (eagerly fit) `Bvh`.
    Composite(&'a (dyn CompositeShape + Sync)),
    /// A single convex shape: one node, one part (id 0).
    Single(&'a dyn Shape),
}

/// Squared half-diagonal: which of two boxes to split first.
fn size(aabb: &Aabb) -> Real {
    aabb.half_extents().length_squared()
}

/// Distance between two boxes (0 when they overlap): a lower bound of the distance between
/// anything inside them.
pub(super) fn aabb_distance(a: &Aabb, b: &Aabb) -> Real {
    let gap = (a.mins - b.maxs)
        .max(b.mins - a.maxs)
        .max(rapier3d::math::Vector::ZERO);
    gap.length()
}

impl<'a> Tree<'a> {
    /// The root node, `None` for an empty tree.
    pub fn root(&self) -> Option<Node> {
        match self {
            Tree::Mesh(_) => Some(Node::Mesh(0)),
            Tree::Composite(c) => (!c.bvh().is_empty()).then_some(Node::BvhRoot),
            Tree::Single(_) => Some(Node::Single),
        }
    }

    /// The box of `node` in the shape's frame (a mesh node is refit here if stale).
    pub fn aabb(&self, node: Node) -> Aabb {
        match (self, node) {
            (Tree::Mesh(m), Node::Mesh(i)) => m.node_aabb(i),
            (Tree::Composite(c), Node::BvhRoot) => c.bvh().root_aabb(),
            (_, Node::Bvh { aabb, .. }) => aabb,
            (Tree::Single(s), _) => s.compute_local_aabb(),
            _ => Aabb::new_invalid(),
        }
    }

    /// The children of an inner node (a `Bvh` root may have one), `None` for a leaf.
    pub fn children(&self, node: Node) -> Option<[Option<Node>; 2]> {
        match (self, node) {
            (Tree::Mesh(m), Node::Mesh(i)) => m.tree().nodes()[i as usize]
                .children
                .map(|[l, r]| [Some(Node::Mesh(l)), Some(Node::Mesh(r))]),
            (Tree::Composite(c), Node::BvhRoot) => {
                let mut out = [None, None];
                let mut k = 0;
                c.bvh().traverse_indexed(None, |n, index| {
                    if k < 2 {
                        out[k] = Some(bvh_node(n, index));
                        k += 1;
                    }
                    TraversalAction::Prune
                });
                Some(out)
            }
            (Tree::Composite(c), Node::Bvh { index, leaf, .. }) => {
                if leaf.is_some() {
                    return None;
                }
                let mut out = [None, None];
                let mut k = 0;
                c.bvh().traverse_indexed(Some(index), |n, i| {
                    if i == index {
                        return TraversalAction::Continue;
                    }
                    if k < 2 {
                        out[k] = Some(bvh_node(n, i));
                        k += 1;
                    }
                    TraversalAction::Prune
                });
                Some(out)
            }
            _ => None,
        }
    }

    /// Calls `f` on every part of leaf `node` until it returns `false`; returns `false` if it did.
    pub fn for_each_part(&self, node: Node, f: &mut dyn FnMut(&Part<'_>) -> bool) -> bool {
        match (self, node) {
            (Tree::Mesh(m), Node::Mesh(i)) => m.for_each_leaf_triangle(i, |t, tri| {
                f(&Part {
                    id: t,
                    shape: tri,
                    pose: None,
                    normals: None,
                    aabb: tri.local_aabb(),
                })
            }),
            (
                Tree::Composite(c),
                Node::Bvh {
                    aabb,
                    leaf: Some(leaf),
                    ..
                },
            ) => {
                let mut go_on = true;
                c.map_part_at(leaf, &mut |pose, shape, normals| {
                    go_on = f(&Part {
                        id: leaf,
                        shape,
                        pose,
                        normals,
                        aabb,
                    });
                });
                go_on
            }
            (Tree::Single(s), Node::Single) => f(&Part {
                id: 0,
                shape: *s,
                pose: None,
                normals: None,
                aabb: s.compute_local_aabb(),
            }),
            _ => true,
        }
    }

    /// Calls `f` on every part whose box, and all of whose ancestors' boxes, pass `keep`, in a
    /// deterministic depth-first order, until `f` returns `false`; returns `false` if it did.
    ///
    /// # Performance
    /// O(nodes reached); a mesh node is refit (O(m)) the first time it is reached in an epoch.
    pub fn for_each_part_where(
        &self,
        keep: &dyn Fn(&Aabb) -> bool,
        f: &mut dyn FnMut(&Part<'_>) -> bool,
    ) -> bool {
        let Some(root) = self.root() else {
            return true;
        };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if !keep(&self.aabb(node)) {
                continue;
            }
            match self.children(node) {
                Some([l, r]) => stack.extend([r, l].into_iter().flatten()),
                None => {
                    let go_on = self.for_each_part(node, &mut |part| !keep(&part.aabb) || f(part));
                    if !go_on {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Branch and bound over the parts: `lower(box)` is a lower bound of the cost of anything
    /// inside the box (`None` prunes); `leaf(part, best)` returns the part's cost. Calls `accept`
    /// with every part that improves on the best cost so far (starting at `max_cost`).
    ///
    /// # Performance
    /// O(nodes whose lower bound is below the best cost found when they are reached).
    pub fn find_best(
        &self,
        max_cost: Real,
        lower: &dyn Fn(&Aabb) -> Option<Real>,
        leaf: &mut dyn FnMut(&Part<'_>, Real) -> Option<Real>,
    ) -> Real {
        let mut best = max_cost;
        let Some(root) = self.root() else {
            return best;
        };
        let mut stack = Vec::new();
        if let Some(cost) = lower(&self.aabb(root)) {
            stack.push((root, cost));
        }
        while let Some((node, cost)) = stack.pop() {
            if cost > best {
                continue;
            }
            match self.children(node) {
                Some(children) => {
                    let mut costs: Vec<(Node, Real)> = children
                        .into_iter()
                        .flatten()
                        .filter_map(|c| lower(&self.aabb(c)).map(|x| (c, x)))
                        .filter(|(_, x)| *x <= best)
                        .collect();
                    // The cheaper child is visited first (pushed last).
                    costs.sort_by(|a, b| b.1.total_cmp(&a.1));
                    stack.extend(costs);
                }
                None => {
                    self.for_each_part(node, &mut |part| {
                        if lower(&part.aabb).is_some_and(|x| x <= best)
                            && let Some(c) = leaf(part, best)
                            && c <= best
                        {
                            best = c;
                        }
                        true
                    });
                }
            }
        }
        best
    }
}

fn bvh_node(n: &rapier3d::parry::partitioning::BvhNode, index: BvhNodeIndex) -> Node {
    Node::Bvh {
        index,
        aabb: n.aabb(),
        leaf: n.leaf_data(),
    }
}

/// Two trees, the second's boxes mapped into the first's frame by `b_box` (a pose transform,
/// possibly swept and loosened).
pub(super) struct DualTree<'a, 'b> {
    pub a: Tree<'a>,
    pub b: Tree<'a>,
    pub b_box: &'b dyn Fn(&Aabb) -> Aabb,
}

impl DualTree<'_, '_> {
    /// Calls `f(part of a, part of b)` for every pair of parts whose boxes overlap (b's box
    /// mapped by `b_box`), descending the larger node of each overlapping pair first, until `f`
    /// returns `false`; returns `false` if it did.
    ///
    /// # Performance
    /// O(overlapping node pairs); mesh nodes are refit only when reached.
    pub fn for_each_pair(&self, f: &mut PairVisitor<'_>) -> bool {
        let (Some(ra), Some(rb)) = (self.a.root(), self.b.root()) else {
            return true;
        };
        let mut stack = vec![(ra, rb)];
        while let Some((na, nb)) = stack.pop() {
            let box_a = self.a.aabb(na);
            let box_b = (self.b_box)(&self.b.aabb(nb));
            if !box_a.intersects(&box_b) {
                continue;
            }
            match (self.a.children(na), self.b.children(nb)) {
                (None, None) => {
                    if !self.leaf_pairs(na, nb, &box_b, f) {
                        return false;
                    }
                }
                (Some(ca), cb) if cb.is_none() || size(&box_a) >= size(&box_b) => {
                    stack.extend(ca.into_iter().rev().flatten().map(|c| (c, nb)));
                }
                (_, Some(cb)) => stack.extend(cb.into_iter().rev().flatten().map(|c| (na, c))),
                (Some(_), None) => unreachable!("handled by the guard above"),
            }
        }
        true
    }

    fn leaf_pairs(&self, na: Node, nb: Node, box_b: &Aabb, f: &mut PairVisitor<'_>) -> bool {
        self.a.for_each_part(na, &mut |pa| {
            if !pa.aabb.intersects(box_b) {
                return true;
            }
            self.b.for_each_part(nb, &mut |pb| {
                !pa.aabb.intersects(&(self.b_box)(&pb.aabb)) || f(pa, pb)
            })
        })
    }

    /// Branch and bound over part pairs with the box distance as lower bound: `leaf(pa, pb,
    /// best)` returns the pair's cost; pairs are tried only when their boxes are closer than
    /// the best cost so far (starting at `max_cost`). Returns the best cost.
    ///
    /// # Performance
    /// O(node pairs closer than the best cost found when they are reached).
    pub fn find_best(
        &self,
        max_cost: Real,
        leaf: &mut dyn FnMut(&Part<'_>, &Part<'_>, Real) -> Option<Real>,
    ) -> Real {
        let mut best = max_cost;
        let (Some(ra), Some(rb)) = (self.a.root(), self.b.root()) else {
            return best;
        };
        let lower =
            |na: Node, nb: Node| aabb_distance(&self.a.aabb(na), &(self.b_box)(&self.b.aabb(nb)));
        let mut stack = vec![(ra, rb, lower(ra, rb))];
        while let Some((na, nb, cost)) = stack.pop() {
            if cost > best {
                continue;
            }
            let (box_a, box_b) = (self.a.aabb(na), (self.b_box)(&self.b.aabb(nb)));
            let split_a = match (self.a.children(na), self.b.children(nb)) {
                (None, None) => {
                    self.a.for_each_part(na, &mut |pa| {
                        if aabb_distance(&pa.aabb, &box_b) > best {
                            return true;
                        }
                        self.b.for_each_part(nb, &mut |pb| {
                            if aabb_distance(&pa.aabb, &(self.b_box)(&pb.aabb)) <= best
                                && let Some(c) = leaf(pa, pb, best)
                                && c <= best
                            {
                                best = c;
                            }
                            true
                        })
                    });
                    continue;
                }
                (Some(ca), cb) if cb.is_none() || size(&box_a) >= size(&box_b) => ca
                    .into_iter()
                    .flatten()
                    .map(|c| (c, nb))
                    .collect::<Vec<_>>(),
                (_, Some(cb)) => cb.into_iter().flatten().map(|c| (na, c)).collect(),
                (Some(_), None) => unreachable!("handled by the guard above"),
            };
            let mut costs: Vec<_> = split_a
                .into_iter()
                .map(|(x, y)| (x, y, lower(x, y)))
                .filter(|c| c.2 <= best)
                .collect();
            costs.sort_by(|a, b| b.2.total_cmp(&a.2));
            stack.extend(costs);
        }
        best
    }
}

/// A parry composite's leaves (the outer shape) against another tree of parts (the inner: a
/// composite or a single convex shape), the way parry's composite contact routines pair them:
/// the outer `Bvh` is pruned by the inner shape's box, then each outer part's own box (in the
/// inner shape's frame) prunes the inner `Bvh`. No node box is transformed during the
/// traversals (only the inner root box and one box per outer part), and every box read is a
/// stored `Bvh` box.
pub(super) struct NestedTrees<'a> {
    /// The composite whose leaves are enumerated first.
    pub outer: &'a (dyn CompositeShape + Sync),
    /// The tree each outer part is queried against (not a mesh: its boxes are not lazy).
    pub inner: Tree<'a>,
    /// The pose of the inner shape in the outer shape's frame.
    pub pos_oi: Pose,
    /// The motion of the inner shape relative to the outer one, in the outer shape's frame.
    pub sweep_oi: Vector,
}

impl NestedTrees<'_> {
    /// Calls `f(outer part, inner part)` for every pair of parts whose boxes overlap (the inner
    /// box swept by `sweep_oi` and loosened by `margin`), in the outer `Bvh`'s depth-first leaf
    /// order and, per outer part, the inner one's, until `f` returns `false`; returns `false`
    /// if it did.
    ///
    /// # Performance
    /// O(log n_outer + k_outer · (log n_inner + k_inner)) box tests for k overlapping leaves, no
    /// allocation.
    pub fn for_each_pair(&self, margin: Real, f: &mut PairVisitor<'_>) -> bool {
        // The inner root box in the outer frame, and (a single shape) in its own frame.
        let (inner_box, inner_local) = match self.inner {
            Tree::Composite(c) => (c.bvh().root_aabb().transform_by(&self.pos_oi), None),
            Tree::Single(s) => (s.compute_aabb(&self.pos_oi), Some(s.compute_local_aabb())),
            // A mesh is always the reference of a dual traversal, never nested.
            Tree::Mesh(_) => return true,
        };
        let query = BvhNode::leaf(swept(&inner_box, self.sweep_oi).loosened(margin), 0);
        let pos_io = self.pos_oi.inverse();
        let sweep_io = pos_io.rotation * -self.sweep_oi;
        let mut go_on = true;
        self.outer.bvh().traverse(|node| {
            if !node.intersects(&query) {
                return TraversalAction::Prune;
            }
            let Some(leaf) = node.leaf_data() else {
                return TraversalAction::Continue;
            };
            self.outer.map_part_at(leaf, &mut |pose, shape, normals| {
                let part = Part {
                    id: leaf,
                    shape,
                    pose,
                    normals,
                    aabb: node.aabb(),
                };
                go_on = match self.inner {
                    Tree::Composite(c) => {
                        let pose_io = match pose {
                            Some(p) => pos_io * *p,
                            None => pos_io,
                        };
                        let part_box = swept(&shape.compute_aabb(&pose_io), sweep_io);
                        inner_parts(c, &part_box.loosened(margin), &mut |inner| f(&part, inner))
                    }
                    Tree::Single(s) => f(
                        &part,
                        &Part {
                            id: 0,
                            shape: s,
                            pose: None,
                            normals: None,
                            aabb: inner_local.unwrap_or(inner_box),
                        },
                    ),
                    Tree::Mesh(_) => true,
                };
            });
            if go_on {
                TraversalAction::Continue
            } else {
                TraversalAction::EarlyExit
            }
        });
        go_on
    }
}

/// Calls `f` on every part of `composite` whose stored leaf box overlaps `aabb` (composite's
/// frame), in depth-first order, until `f` returns `false`; returns `false` if it did.
fn inner_parts(
    composite: &(dyn CompositeShape + Sync),
    aabb: &Aabb,
    f: &mut dyn FnMut(&Part<'_>) -> bool,
) -> bool {
    let query = BvhNode::leaf(*aabb, 0);
    let mut go_on = true;
    composite.bvh().traverse(|node| {
        if !node.intersects(&query) {
            return TraversalAction::Prune;
        }
        let Some(leaf) = node.leaf_data() else {
            return TraversalAction::Continue;
        };
        composite.map_part_at(leaf, &mut |pose, shape, normals| {
            go_on = f(&Part {
                id: leaf,
                shape,
                pose,
                normals,
                aabb: node.aabb(),
            });
        });
        if go_on {
            TraversalAction::Continue
        } else {
            TraversalAction::EarlyExit
        }
    });
    go_on
}

/// `aabb` grown to contain itself moved by `sweep`.
pub(super) fn swept(aabb: &Aabb, sweep: Vector) -> Aabb {
    Aabb::new(
        aabb.mins.min(aabb.mins + sweep),
        aabb.maxs.max(aabb.maxs + sweep),
    )
}

/// The pose of part 2 in part 1's frame, from the pose of shape 2 in shape 1's frame.
pub(super) fn part_pos12(pos12: &Pose, pose1: Option<&Pose>, pose2: Option<&Pose>) -> Pose {
    let p = match pose2 {
        Some(p2) => *pos12 * *p2,
        None => *pos12,
    };
    match pose1 {
        Some(p1) => p1.inv_mul(&p),
        None => p,
    }
}
