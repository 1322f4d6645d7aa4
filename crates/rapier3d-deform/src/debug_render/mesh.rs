//! Deformable meshes as lines: the posed wireframe (each edge once, whole or only the refit leaves) and the BN-Tree node boxes.

use rapier3d::math::{Pose, Vector};
use rapier3d::pipeline::DebugColor;

use super::world_point;
use crate::shape::DeformableMeshShape;

/// Draws each edge of the posed mesh once (or, with `refit_only`, of the triangles of the
/// leaves refit in the current epoch), from the shape's deformed vertices, in world frame, in
/// increasing order of `(smaller vertex, larger vertex)`.
///
/// # Performance
/// O(E log E) for the E edges drawn (collected into `edges`, sorted, deduplicated), plus one
/// deformation per stale vertex.
pub(super) fn draw_wireframe(
    mesh: &DeformableMeshShape,
    pose: &Pose,
    refit_only: bool,
    edges: &mut Vec<u64>,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) {
    let tree = mesh.tree();
    let triangles = tree.mesh().triangles();
    if refit_only {
        let refit = tree
            .nodes()
            .iter()
            .enumerate()
            .filter(|&(n, node)| node.is_leaf() && mesh.node_is_refit(n as u32))
            .flat_map(|(n, _)| tree.node_triangles(n))
            .map(|&t| &triangles[t as usize]);
        draw_edges(mesh, pose, refit, edges, color, draw);
    } else {
        draw_edges(mesh, pose, triangles.iter(), edges, color, draw);
    }
}

/// Draws each edge of `tris` once, from the shape's deformed vertices, in world frame, in
/// increasing order of `(smaller vertex, larger vertex)`.
///
/// # Performance
/// O(E log E) for the E edges (collected into `edges`, sorted, deduplicated), plus one
/// deformation per stale vertex.
pub(super) fn draw_edges<'a>(
    mesh: &DeformableMeshShape,
    pose: &Pose,
    tris: impl Iterator<Item = &'a [u32; 3]>,
    edges: &mut Vec<u64>,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) {
    edges.clear();
    for tri in tris {
        for k in 0..3 {
            let (i, j) = (tri[k], tri[(k + 1) % 3]);
            edges.push(((i.min(j) as u64) << 32) | i.max(j) as u64);
        }
    }
    edges.sort_unstable();
    edges.dedup();
    for &e in edges.iter() {
        let (i, j) = ((e >> 32) as u32, e as u32);
        draw(
            world_point(pose, mesh.vertex(i)),
            world_point(pose, mesh.vertex(j)),
            color,
        );
    }
}

/// Draws the twelve edges of the box of every BN-Tree node of depth at most `max_depth` (the
/// root is depth 0), depth first, each box's corners mapped to world frame.
///
/// # Performance
/// O(nodes drawn), plus each stale box's refit ([`DeformableMeshShape::node_aabb`]).
pub(super) fn draw_node_boxes(
    mesh: &DeformableMeshShape,
    pose: &Pose,
    max_depth: u32,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) {
    let nodes = mesh.tree().nodes();
    if nodes.is_empty() {
        return;
    }
    let mut stack = vec![(0u32, 0u32)];
    while let Some((i, depth)) = stack.pop() {
        let aabb = mesh.node_aabb(i);
        let corner = |k: usize| {
            let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
            world_point(
                pose,
                Vector::new(
                    pick(1, aabb.mins.x, aabb.maxs.x),
                    pick(2, aabb.mins.y, aabb.maxs.y),
                    pick(4, aabb.mins.z, aabb.maxs.z),
                ),
            )
        };
        let corners: [Vector; 8] = std::array::from_fn(corner);
        // The edges join corners that differ in one coordinate bit.
        for k in 0..8 {
            for bit in [1, 2, 4] {
                if k & bit == 0 {
                    draw(corners[k], corners[k | bit], color);
                }
            }
        }
        if depth < max_depth
            && let Some([l, r]) = nodes[i as usize].children
        {
            stack.push((r, depth + 1));
            stack.push((l, depth + 1));
        }
    }
}
