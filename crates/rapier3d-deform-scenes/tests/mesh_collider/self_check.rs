//! Contract: `DeformableMeshShape::new_self_collisions` is exactly "brute-force pairs after minus pairs before" over all triangle pairs, on a small closed tube and an open flat grid under long random sequences of weight changes (fixed seeds): random blends, snaps to single governors (exactly coplanar fans moved within their plane, vertices collapsed onto one point), rows rewritten unchanged, and moves of whole one-rings, so that vertex-sharing, edge-sharing and disjoint pairs all cross and uncross.

use crate::common;

use std::sync::Arc;

use common::{grid_mesh, rng, tube};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::geometry::{PairTopology, pair_topology};
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::shape::{DeformableMeshShape, SelfCheckScratch};
use rapier3d_deform::validation::self_collisions_brute_force;

/// Governors: identity, two translations within the plane y = 0 (a flat grid stays exactly
/// flat under them), a rotation with translation out of it, a shear, and the collapse of
/// everything onto one point.
fn governors() -> Vec<Affine> {
    let rot = Mat3::from_quat(Quat::from_axis_angle(
        Vec3::new(0.3, 1.0, -0.2).normalize(),
        1.1,
    ));
    vec![
        Affine::IDENTITY,
        Affine::new(Mat3::IDENTITY, Vec3::new(0.35, 0.0, 0.0)),
        Affine::new(Mat3::IDENTITY, Vec3::new(0.0, 0.0, -0.3)),
        Affine::new(rot, Vec3::new(0.1, 0.4, 0.0)),
        Affine::new(
            Mat3::from_cols(
                Vec3::new(1.0, 0.6, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(0.0, -0.7, 1.0),
            ),
            Vec3::ZERO,
        ),
        Affine::new(Mat3::ZERO, Vec3::new(0.25, 0.0, 0.25)),
    ]
}

/// A shape of `mesh` whose every vertex reads every governor, starting on the identity.
fn shape(mesh: &TriangleMesh) -> DeformableMeshShape {
    let g = governors();
    let rows = mesh
        .positions()
        .iter()
        .map(|_| (0..g.len() as u32).map(|k| (k, 1.0 / g.len() as f32)));
    let weights = ConvexWeights::from_rows(rows, g.len()).unwrap();
    let options = BnTreeOptions {
        leaf_triangles: 4,
        ..BnTreeOptions::default()
    };
    let tree = Arc::new(BnTree::build_with(mesh, mesh.positions(), &weights, options).unwrap());
    let mut shape = DeformableMeshShape::new(tree, &g).unwrap();
    let all: Vec<u32> = (0..mesh.vertex_count() as u32).collect();
    shape
        .update_vertex_weights(&all, |_, row| {
            row.fill(0.0);
            row[0] = 1.0;
        })
        .unwrap();
    shape
}

/// A random new row for one vertex (same length as the old one).
fn random_row(r: &mut ChaCha8Rng, old: &[f32], row: &mut [f32]) {
    match r.random_range(0..4) {
        // Unchanged (listed as moved, but not moving).
        0 => row.copy_from_slice(old),
        // Snapped to one governor.
        1 => {
            row.fill(0.0);
            row[r.random_range(0..row.len())] = 1.0;
        }
        // Between the identity and one in-plane translation.
        2 => {
            row.fill(0.0);
            let s = r.random_range(0.0..1.0f32);
            row[0] = 1.0 - s;
            row[r.random_range(1..3)] = s;
        }
        // Any blend.
        _ => {
            for x in row.iter_mut() {
                *x = r.random_range(0.0..1.0f32).powi(3);
            }
            let s: f32 = row.iter().sum();
            if s > 0.0 {
                row.iter_mut().for_each(|x| *x /= s);
            } else {
                row[0] = 1.0;
            }
        }
    }
}

/// New pairs per topology (shared vertex, disjoint) over the run.
fn run(mesh: &TriangleMesh, seed: u64, rounds: usize) -> [usize; 2] {
    let mut shape = shape(mesh);
    let n = mesh.vertex_count() as u32;
    let mut r = rng(seed);
    let mut scratch = SelfCheckScratch::default();
    let mut found = Vec::new();
    let mut counts = [0usize; 2];
    let tris = mesh.triangles();
    for round in 0..rounds {
        if round % 40 == 0 {
            shape = self::shape(mesh);
        }
        let before_positions = shape.deformed_vertices();
        let before = self_collisions_brute_force(mesh, &before_positions).unwrap();
        // A few random vertices, or a vertex with its whole one-ring.
        let mut vertices: Vec<u32> = if r.random_bool(0.3) {
            let v = r.random_range(0..n);
            let mut ring: Vec<u32> = tris
                .iter()
                .filter(|t| t.contains(&v))
                .flat_map(|t| *t)
                .collect();
            ring.push(v);
            ring
        } else {
            (0..r.random_range(1..6))
                .map(|_| r.random_range(0..n))
                .collect()
        };
        vertices.sort_unstable();
        vertices.dedup();
        let rows: Vec<Vec<f32>> = vertices
            .iter()
            .map(|&v| {
                let old = shape.tree().weights().row(v as usize).1.to_vec();
                let mut row = vec![0.0; old.len()];
                random_row(&mut r, &old, &mut row);
                row
            })
            .collect();
        let mut moved: Vec<(u32, Vec3)> = vertices
            .iter()
            .map(|&v| (v, before_positions[v as usize]))
            .collect();
        // The list as a caller may give it: vertices that do not move (at their position),
        // out of order, and a moved vertex listed twice (the first entry counts: the second is a
        // decoy).
        let decoy = vertices[r.random_range(0..vertices.len())];
        let shuffled = r.random_bool(0.5);
        if shuffled {
            for _ in 0..r.random_range(1..4) {
                let v = r.random_range(0..n);
                if vertices.binary_search(&v).is_err() {
                    moved.push((v, before_positions[v as usize]));
                }
            }
            for i in (1..moved.len()).rev() {
                moved.swap(i, r.random_range(0..=i));
            }
        }
        shape
            .update_vertex_weights(&vertices, |v, row| {
                let k = vertices.binary_search(&v).unwrap();
                row.copy_from_slice(&rows[k]);
            })
            .unwrap();
        if shuffled && shape.vertex(decoy) != before_positions[decoy as usize] {
            moved.push((decoy, before_positions[decoy as usize] + Vec3::splat(0.37)));
        }
        let after = self_collisions_brute_force(mesh, &shape.deformed_vertices()).unwrap();
        let expected: Vec<[u32; 2]> = after
            .iter()
            .filter(|p| before.binary_search(p).is_err())
            .copied()
            .collect();
        shape.new_self_collisions(&moved, &mut scratch, &mut found);
        assert_eq!(found, expected, "seed {seed}, round {round}");
        for [a, b] in &expected {
            match pair_topology(tris[*a as usize], tris[*b as usize]) {
                PairTopology::SharedVertex { .. } => counts[0] += 1,
                PairTopology::Disjoint => counts[1] += 1,
                PairTopology::Adjacent => panic!("an edge-sharing pair is never a collision"),
            }
        }
    }
    counts
}

#[test]
fn new_self_collisions_match_brute_force_on_a_closed_tube() {
    let mesh = tube(2.0, 6, 8);
    let mut total = [0; 2];
    for seed in [1, 2, 3] {
        let c = run(&mesh, seed, 200);
        total = [total[0] + c[0], total[1] + c[1]];
    }
    println!(
        "tube: new pairs sharing a vertex {}, disjoint {}",
        total[0], total[1]
    );
    assert!(total[0] > 20 && total[1] > 20, "{total:?}");
}

#[test]
fn new_self_collisions_match_brute_force_on_a_flat_grid() {
    // Open (boundary fans) and exactly flat: pairs in one plane, overlapping or touching.
    let mesh = grid_mesh(5, [0.0, 0.0], [1.0, 1.0]);
    let mut total = [0; 2];
    for seed in [4, 5, 6] {
        let c = run(&mesh, seed, 200);
        total = [total[0] + c[0], total[1] + c[1]];
    }
    println!(
        "grid: new pairs sharing a vertex {}, disjoint {}",
        total[0], total[1]
    );
    assert!(total[0] > 20 && total[1] > 20, "{total:?}");
}
