//! A binary hierarchy of triangle patches (median split), the node set the bounds are tested and measured on.

use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// One node of a [`PatchHierarchy`]: a contiguous range of the hierarchy's triangle order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct PatchNode {
    /// First position in [`PatchHierarchy::triangle_order`].
    pub first: u32,
    /// Number of triangles.
    pub count: u32,
    /// Depth (root = 0).
    pub depth: u32,
    /// The two children, or `None` for a leaf.
    pub children: Option<[u32; 2]>,
    /// Range of this node's unique vertices in the hierarchy's vertex list.
    vertices: (u32, u32),
}

/// A binary hierarchy of triangle patches built top-down by splitting at the median triangle
/// centroid along the longest axis.
///
/// It is the generic node set on which bounds are validated and benchmarked; the BN-Tree builds
/// its own connected, area-over-perimeter patches.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct PatchHierarchy {
    nodes: Vec<PatchNode>,
    order: Vec<u32>,
    vertices: Vec<u32>,
}

impl PatchHierarchy {
    /// Builds the hierarchy; nodes with at most `leaf_triangles` triangles are leaves.
    ///
    /// # Performance
    /// O(T log² T) time (median selection per level plus per-node vertex dedup), O(T log T) memory
    /// for the per-node vertex lists.
    pub fn build(mesh: &TriangleMesh, leaf_triangles: usize) -> Self {
        let leaf = leaf_triangles.max(1);
        let centroids: Vec<Vec3> = (0..mesh.triangle_count())
            .map(|t| {
                let [a, b, c] = mesh.corners(mesh.positions(), t);
                (a + b + c) / 3.0
            })
            .collect();
        let mut out = Self {
            nodes: Vec::new(),
            order: (0..mesh.triangle_count() as u32).collect(),
            vertices: Vec::new(),
        };
        out.nodes.push(PatchNode {
            first: 0,
            count: mesh.triangle_count() as u32,
            depth: 0,
            children: None,
            vertices: (0, 0),
        });
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let PatchNode {
                first,
                count,
                depth,
                ..
            } = out.nodes[i];
            if (count as usize) <= leaf {
                continue;
            }
            let range = first as usize..(first + count) as usize;
            let (lo, hi) = out.order[range.clone()].iter().fold(
                (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
                |(lo, hi), &t| (lo.min(centroids[t as usize]), hi.max(centroids[t as usize])),
            );
            let axis = (hi - lo).max_position();
            let half = count as usize / 2;
            out.order[range].select_nth_unstable_by(half, |&a, &b| {
                centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis])
            });
            let left = out.nodes.len() as u32;
            for (f, c) in [
                (first, half as u32),
                (first + half as u32, count - half as u32),
            ] {
                out.nodes.push(PatchNode {
                    first: f,
                    count: c,
                    depth: depth + 1,
                    children: None,
                    vertices: (0, 0),
                });
            }
            out.nodes[i].children = Some([left, left + 1]);
            stack.push(left as usize);
            stack.push(left as usize + 1);
        }
        let mut scratch = Vec::new();
        for i in 0..out.nodes.len() {
            let n = out.nodes[i];
            scratch.clear();
            scratch.extend(
                patch_triangles(&out.order, n.first, n.count)
                    .iter()
                    .flat_map(|&t| mesh.triangles()[t as usize]),
            );
            scratch.sort_unstable();
            scratch.dedup();
            let start = out.vertices.len() as u32;
            out.vertices.extend_from_slice(&scratch);
            out.nodes[i].vertices = (start, out.vertices.len() as u32);
        }
        out
    }

    /// All nodes; index 0 is the root, children come after their parent.
    #[inline]
    pub fn nodes(&self) -> &[PatchNode] {
        &self.nodes
    }

    /// The triangle permutation nodes index into.
    #[inline]
    pub fn triangle_order(&self) -> &[u32] {
        &self.order
    }

    /// Triangles of node `i`.
    #[inline]
    pub fn node_triangles(&self, i: usize) -> &[u32] {
        let n = &self.nodes[i];
        patch_triangles(&self.order, n.first, n.count)
    }

    /// Unique vertices of node `i` (sorted).
    #[inline]
    pub fn node_vertices(&self, i: usize) -> &[u32] {
        let (a, b) = self.nodes[i].vertices;
        &self.vertices[a as usize..b as usize]
    }
}

/// The triangles of a node that covers `count` entries of the triangle permutation `order` from
/// `first` (the node layout of [`PatchHierarchy`] and of the BN-Tree).
///
/// # Performance
/// O(1).
#[inline]
pub(crate) fn patch_triangles(order: &[u32], first: u32, count: u32) -> &[u32] {
    &order[first as usize..(first + count) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_partition_their_parent() {
        // A 20×20 grid of quads.
        let n = 21;
        let positions: Vec<Vec3> = (0..n * n)
            .map(|i| Vec3::new((i % n) as f32, (i / n) as f32, 0.0))
            .collect();
        let mut tris = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = (y * n + x) as u32;
                tris.push([i, i + 1, i + n as u32]);
                tris.push([i + 1, i + 1 + n as u32, i + n as u32]);
            }
        }
        let mesh = TriangleMesh::new(positions, tris).unwrap();
        let h = PatchHierarchy::build(&mesh, 4);
        let mut seen = vec![0u32; mesh.triangle_count()];
        for (i, node) in h.nodes().iter().enumerate() {
            match node.children {
                Some([l, r]) => {
                    let (l, r) = (h.nodes()[l as usize], h.nodes()[r as usize]);
                    assert_eq!(l.count + r.count, node.count);
                    assert_eq!(l.first, node.first);
                    assert_eq!(r.first, node.first + l.count);
                    assert_eq!(l.depth, node.depth + 1);
                }
                None => {
                    assert!(node.count <= 4);
                    for &t in h.node_triangles(i) {
                        seen[t as usize] += 1;
                    }
                }
            }
            let mut verts: Vec<u32> = h
                .node_triangles(i)
                .iter()
                .flat_map(|&t| mesh.triangles()[t as usize])
                .collect();
            verts.sort_unstable();
            verts.dedup();
            assert_eq!(verts, h.node_vertices(i));
        }
        assert!(seen.iter().all(|&c| c == 1));
    }
}
