//! Contract: a BN-Tree's nodes partition the triangles (children split their parent's contiguous range), every
//! node is an edge-connected patch, its stored boundary equals the brute-force boundary (directed edges whose
//! opposite triangle is outside), and `nodes_adjacent` equals "the two vertex sets intersect" for all node pairs of
//! a small mesh.

use crate::common;

use common::*;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use std::collections::{BTreeSet, HashMap};

fn check_tree(tree: &BnTree) {
    let mesh = tree.mesh();
    let neighbours = mesh.edge_neighbours();
    let mut leaf_cover = vec![0u32; mesh.triangle_count()];
    for (i, node) in tree.nodes().iter().enumerate() {
        let tris: Vec<u32> = tree.node_triangles(i).to_vec();
        match node.children {
            Some([l, r]) => {
                let (l, r) = (tree.nodes()[l as usize], tree.nodes()[r as usize]);
                assert_eq!(l.first, node.first);
                assert_eq!(l.count + r.count, node.count);
                assert_eq!(r.first, l.first + l.count);
                assert_eq!(l.parent as usize, i);
            }
            None => {
                for &t in &tris {
                    leaf_cover[t as usize] += 1;
                }
            }
        }
        // Edge-connected (except the top nodes that join connected components).
        let set: BTreeSet<u32> = tris.iter().copied().collect();
        let mut seen = BTreeSet::new();
        let mut stack = vec![tris[0]];
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            for &n in &neighbours[t as usize] {
                if n != u32::MAX && set.contains(&n) && !seen.contains(&n) {
                    stack.push(n);
                }
            }
        }
        assert_eq!(seen.len(), set.len(), "node {i} is not edge-connected");
        // Boundary: brute force.
        let mut expected: Vec<[u32; 2]> = Vec::new();
        for &t in &tris {
            let tri = mesh.triangles()[t as usize];
            for e in 0..3 {
                let n = neighbours[t as usize][e];
                if n == u32::MAX || !set.contains(&n) {
                    expected.push([tri[e], tri[(e + 1) % 3]]);
                }
            }
        }
        expected.sort();
        let mut got: Vec<[u32; 2]> = tree.node_boundary(i).collect();
        got.sort();
        assert_eq!(got, expected, "boundary of node {i}");
    }
    assert!(leaf_cover.iter().all(|&c| c == 1));
}

#[test]
fn tree_partitions_connected_patches_with_exact_boundaries() {
    for (rings, segments, leaf) in [(6, 8, 1), (12, 10, 4), (20, 16, 8)] {
        let mesh = tube(6.0, rings, segments);
        let w = tube_weights(&mesh, 6, 6.0, 4);
        let tree = BnTree::build_with(
            &mesh,
            mesh.positions(),
            &w,
            BnTreeOptions {
                leaf_triangles: leaf,
                ..Default::default()
            },
        )
        .unwrap();
        check_tree(&tree);
    }
}

#[test]
fn adjacency_equals_vertex_set_intersection() {
    let mesh = tube(6.0, 8, 8);
    let w = tube_weights(&mesh, 6, 6.0, 4);
    let tree = BnTree::build(&mesh, mesh.positions(), &w).unwrap();
    let vsets: HashMap<usize, BTreeSet<u32>> = (0..tree.nodes().len())
        .map(|i| {
            let s = tree
                .node_triangles(i)
                .iter()
                .flat_map(|&t| mesh.triangles()[t as usize])
                .collect();
            (i, s)
        })
        .collect();
    let n = tree.nodes().len();
    let mut adjacent_pairs = 0;
    for a in 0..n {
        for b in 0..n {
            let (na, nb) = (tree.nodes()[a], tree.nodes()[b]);
            let disjoint = na.first + na.count <= nb.first || nb.first + nb.count <= na.first;
            if !disjoint {
                continue;
            }
            let expected = !vsets[&a].is_disjoint(&vsets[&b]);
            assert_eq!(tree.nodes_adjacent(a, b), expected, "nodes {a} {b}");
            adjacent_pairs += expected as usize;
        }
    }
    assert!(adjacent_pairs > 100);
}

#[test]
fn bad_input_gives_typed_errors() {
    use rapier3d_deform::DeformError;
    let mesh = tube(6.0, 4, 6);
    let w = tube_weights(&mesh, 6, 6.0, 4);
    assert!(matches!(
        BnTree::build(&mesh, &mesh.positions()[1..], &w),
        Err(DeformError::LengthMismatch { .. })
    ));
    assert!(matches!(
        BnTree::build_with(
            &mesh,
            mesh.positions(),
            &w,
            BnTreeOptions {
                leaf_triangles: 0,
                ..Default::default()
            }
        ),
        Err(DeformError::InvalidParameter { .. })
    ));
}
