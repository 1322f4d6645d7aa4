//! Contract: `DeformableMeshShape::update_vertex_weights` changes vertex weights locally — only the changed vertices and the node boxes above them are recomputed (counted), every node box still contains its deformed vertices (the O(m) data precomputed from the old weights is dropped where it no longer holds), positions equal an independent evaluation with the new weights, the shared tree is copied on write, and bad rows change nothing; on a tree refit whole, the changed vertices and the boxes above them are refit in place, bit-identical to a fresh whole refit under the new weights; `new_self_collisions` after a change equals "brute-force pairs after minus pairs before", on a folded tube with random weight changes (fixed seeds).

use crate::common;

use std::sync::Arc;

use common::{rng, tube, tube_weights};
use rand::Rng;
use rapier3d::parry::shape::Shape;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::governor::{Affine, deform_vertex};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::shape::{DeformableMeshShape, SelfCheckScratch};
use rapier3d_deform::validation::self_collisions_brute_force;

const LENGTH: f32 = 10.0;
const BONES: usize = 10;

fn fold(t: f32) -> Vec<Affine> {
    let axis = Vec3::new(0.0, 0.3, 1.0).normalize();
    let mut acc = Affine::IDENTITY;
    (0..BONES)
        .map(|b| {
            let angle = match b {
                4 | 5 => 1.4 * t,
                6 => 0.6 * t,
                _ => 0.0,
            };
            let joint = Vec3::new(LENGTH * b as f32 / BONES as f32, 0.0, 0.0);
            let rot = Mat3::from_quat(Quat::from_axis_angle(axis, angle));
            acc = acc.compose(&Affine::new(rot, joint - rot * joint));
            acc
        })
        .collect()
}

/// Tube with O(m) data on every internal node (so dropping it is visible).
fn tree() -> Arc<BnTree> {
    let mesh = tube(LENGTH, 40, 16);
    let weights = tube_weights(&mesh, BONES, LENGTH, 4);
    let options = BnTreeOptions {
        governor_cost: 0.0,
        ..Default::default()
    };
    Arc::new(BnTree::build_with(&mesh, mesh.positions(), &weights, options).unwrap())
}

fn assert_boxes_contain_vertices(shape: &DeformableMeshShape) {
    let tree = shape.tree().clone();
    let positions = shape.deformed_vertices();
    let root = shape.compute_local_aabb();
    for i in 0..tree.nodes().len() {
        let aabb = shape.node_aabb(i as u32);
        for &t in tree.node_triangles(i) {
            for v in tree.mesh().triangles()[t as usize] {
                let p = positions[v as usize];
                assert!(aabb.contains_local_point(p), "node {i} misses vertex {v}");
                assert!(root.contains_local_point(p), "root misses vertex {v}");
            }
        }
    }
}

#[test]
fn a_weight_change_is_local_conservative_and_copy_on_write() {
    let tree = tree();
    let governors = fold(0.3);
    let mut shape = DeformableMeshShape::new(tree.clone(), &governors).unwrap();
    let untouched = shape.clone();
    // Warm every cache.
    assert_boxes_contain_vertices(&shape);
    let refits_warm = shape.refit_stats().node_refits;
    // Vertices of ring 12 (x = 3) follow their first governor only.
    let changed: Vec<u32> = (12 * 16..13 * 16).collect();
    let far = 35 * 16;
    assert!(shape.vertex_is_cached(far) && shape.vertex_is_cached(changed[0]));
    let deformed_before = shape.refit_stats().vertices_deformed;
    let refits_before = shape.refit_stats().node_refits;
    shape
        .update_vertex_weights(&changed, |_, row| {
            row.fill(0.0);
            row[0] = 1.0;
        })
        .unwrap();
    assert!(
        !Arc::ptr_eq(shape.tree(), &tree),
        "the shared tree was written in place"
    );
    // Only the new root box was computed: it re-deforms the vertices of the leaves holding a
    // changed vertex (each leaf's vertices once), nothing else.
    let redeformed = shape.refit_stats().vertices_deformed - deformed_before;
    let n = tree.rest_positions().len() as u64;
    let vertex_leaves = tree.vertex_leaves();
    let mut leaves: Vec<u32> = changed
        .iter()
        .flat_map(|&v| vertex_leaves.of(v).iter().copied())
        .collect();
    leaves.sort_unstable();
    leaves.dedup();
    let expected: u64 = leaves
        .iter()
        .map(|&leaf| {
            let mut vs: Vec<u32> = tree
                .node_triangles(leaf as usize)
                .iter()
                .flat_map(|&t| tree.mesh().triangles()[t as usize])
                .collect();
            vs.sort_unstable();
            vs.dedup();
            vs.len() as u64
        })
        .sum();
    println!(
        "{redeformed} of {n} vertices deformed again for the new root box ({} leaves)",
        leaves.len()
    );
    assert_eq!(redeformed, expected);
    assert!(redeformed < n / 4);
    assert!(shape.vertex_is_cached(far));
    for &v in &changed {
        assert_eq!(shape.tree().weights().row(v as usize).1[0], 1.0);
        let leaves = shape.tree().vertex_leaves();
        for &leaf in leaves.of(v) {
            let mut i = leaf;
            while i != u32::MAX {
                assert!(shape.tree().node_patch(i as usize).is_none());
                i = shape.tree().nodes()[i as usize].parent;
            }
        }
    }
    // Positions equal an independent evaluation with the new weights.
    for v in (0..tree.rest_positions().len() as u32)
        .step_by(7)
        .chain(changed.iter().copied())
    {
        let expected = deform_vertex(
            shape.tree().rest_positions(),
            shape.tree().weights(),
            &governors,
            v as usize,
        );
        assert_eq!(shape.vertex(v), expected);
    }
    // The new root box and then every box: only the invalidated paths are recomputed, and
    // every box still holds.
    assert_boxes_contain_vertices(&shape);
    let recomputed = shape.refit_stats().node_refits - refits_before;
    let depth = tree.nodes().iter().map(|n| n.depth).max().unwrap() as u64 + 1;
    println!(
        "{recomputed} of {refits_warm} node boxes recomputed after the change (depth {depth})"
    );
    assert!(recomputed > 0 && recomputed <= 16 * depth, "{recomputed}");
    // The clone taken before still has the old weights and positions.
    assert_eq!(
        untouched.tree().weights().row(changed[0] as usize).1,
        tree.weights().row(changed[0] as usize).1
    );
    assert_ne!(untouched.vertex(changed[0]), shape.vertex(changed[0]));

    // Bad rows change nothing.
    let row_before = shape.tree().weights().row(changed[1] as usize).1.to_vec();
    let position_before = shape.vertex(changed[1]);
    for bad in [f32::NAN, -0.5, 3.0] {
        let result = shape.update_vertex_weights(&changed[..3], |v, row| {
            if v == changed[2] {
                row[0] = bad;
            }
        });
        assert!(result.is_err(), "{bad}");
    }
    assert!(shape.update_vertex_weights(&[u32::MAX], |_, _| {}).is_err());
    assert_eq!(
        shape.tree().weights().row(changed[1] as usize).1,
        &row_before[..]
    );
    assert!(
        shape.vertex_is_cached(changed[1]),
        "a failed update invalidated a vertex"
    );
    assert_eq!(shape.vertex(changed[1]), position_before);
}

/// The tube's tree without O(m) data at any node: refit whole.
fn whole_refit_tree() -> Arc<BnTree> {
    let mesh = tube(LENGTH, 40, 16);
    let weights = tube_weights(&mesh, BONES, LENGTH, 4);
    let options = BnTreeOptions {
        governor_cost: f32::MAX,
        ..Default::default()
    };
    Arc::new(BnTree::build_with(&mesh, mesh.positions(), &weights, options).unwrap())
}

#[test]
fn weight_changes_refit_a_whole_refit_tree_like_a_fresh_refit_bit_for_bit() {
    let tree = whole_refit_tree();
    assert_eq!(tree.governor_bounded_nodes(), 0);
    let n = tree.rest_positions().len() as u32;
    let nodes = tree.nodes().len() as u64;
    let bits = |p: Vec3| p.to_array().map(f32::to_bits);
    let mut r = rng(1514);
    let mut governors = fold(0.3);
    let mut shape = DeformableMeshShape::new(tree.clone(), &governors).unwrap();
    let (mut changed, mut moved) = (Vec::new(), 0usize);
    for round in 0..16 {
        if round % 4 == 3 {
            governors = fold(0.3 + 0.15 * round as f32);
            shape.set_governors(&governors).unwrap();
        }
        // The whole-mesh refit of the epoch (the first round of an epoch), or nothing.
        let _ = shape.node_aabb(0);
        // Random vertices (repeats allowed), each given a random convex row.
        changed.clear();
        let k = r.random_range(1..=60);
        changed.extend((0..k).map(|_| r.random_range(0..n)));
        let old: Vec<Vec3> = changed.iter().map(|&v| shape.vertex(v)).collect();
        let before = shape.refit_stats();
        shape
            .update_vertex_weights(&changed, |_, row| {
                for w in row.iter_mut() {
                    *w = if r.random_bool(0.3) {
                        0.0
                    } else {
                        r.random_range(0.01..1.0f32)
                    };
                }
                let sum: f32 = row.iter().sum();
                if sum == 0.0 {
                    row[0] = 1.0;
                } else {
                    row.iter_mut().for_each(|w| *w /= sum);
                }
            })
            .unwrap();
        let after = shape.refit_stats();
        // Refit in place: one deformation per changed entry and the boxes above them.
        assert_eq!(
            after.vertices_deformed - before.vertices_deformed,
            changed.len() as u64,
            "round {round}: not an incremental refit"
        );
        let refits = after.node_refits - before.node_refits;
        assert!(refits > 0 && refits < nodes, "round {round}: {refits}");
        moved += changed
            .iter()
            .zip(&old)
            .filter(|&(&v, &p)| bits(shape.vertex(v)) != bits(p))
            .count();
        // A fresh shape on the new weights refits whole from scratch.
        let fresh = DeformableMeshShape::new(shape.tree().clone(), &governors).unwrap();
        let _ = fresh.node_aabb(0);
        assert_eq!(fresh.refit_stats().vertices_deformed, n as u64);
        for v in 0..n {
            assert_eq!(
                bits(shape.vertex(v)),
                bits(fresh.vertex(v)),
                "round {round} vertex {v}"
            );
        }
        for i in 0..nodes as u32 {
            let (a, b) = (shape.node_aabb(i), fresh.node_aabb(i));
            assert_eq!(
                (bits(a.mins), bits(a.maxs)),
                (bits(b.mins), bits(b.maxs)),
                "round {round} node {i}"
            );
        }
        let root = shape.compute_local_aabb();
        let root_fresh = fresh.node_aabb(0);
        assert_eq!(
            (bits(root.mins), bits(root.maxs)),
            (bits(root_fresh.mins), bits(root_fresh.maxs))
        );
        // Reading every vertex and box refit nothing more: every cache was current.
        assert_eq!(shape.refit_stats(), after, "round {round}");
    }
    assert!(moved > 100, "the changes moved only {moved} vertices");
}

#[test]
fn new_self_collisions_are_the_pairs_after_minus_the_pairs_before() {
    let tree = tree();
    let n = tree.rest_positions().len() as u32;
    let mut r = rng(2016);
    let mut scratch = SelfCheckScratch::default();
    let mut found = Vec::new();
    let mut total_new = 0;
    for round in 0..12 {
        let mut shape =
            DeformableMeshShape::new(tree.clone(), &fold(0.35 + 0.03 * round as f32)).unwrap();
        let before_positions = shape.deformed_vertices();
        let before = self_collisions_brute_force(tree.mesh(), &before_positions).unwrap();
        // Random new rows for random vertices near the fold (rings 14..26).
        let mut vertices: Vec<u32> = (0..40)
            .map(|_| r.random_range(14 * 16..26 * 16))
            .filter(|&v| v < n)
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        let rows: Vec<Vec<f32>> = vertices
            .iter()
            .map(|&v| {
                let len = tree.weights().row(v as usize).1.len();
                let raw: Vec<f32> = (0..len).map(|_| r.random_range(0.0..1.0f32)).collect();
                let s: f32 = raw.iter().sum();
                raw.iter().map(|x| x / s).collect()
            })
            .collect();
        let moved: Vec<(u32, Vec3)> = vertices
            .iter()
            .map(|&v| (v, before_positions[v as usize]))
            .collect();
        shape
            .update_vertex_weights(&vertices, |v, row| {
                let k = vertices.binary_search(&v).unwrap();
                row.copy_from_slice(&rows[k]);
            })
            .unwrap();
        let after = self_collisions_brute_force(tree.mesh(), &shape.deformed_vertices()).unwrap();
        let expected: Vec<[u32; 2]> = after
            .iter()
            .filter(|p| before.binary_search(p).is_err())
            .copied()
            .collect();
        shape.new_self_collisions(&moved, &mut scratch, &mut found);
        assert_eq!(found, expected, "round {round}");
        total_new += expected.len();
    }
    assert!(
        total_new > 20,
        "the changes must create pairs ({total_new})"
    );
}
