//! Contract: plasticity does not push a mesh collider through itself. A closed slab whose second example crushes its top face 0.4 m through its bottom face is dented step by step at the top; without the guard the brute-force oracle finds self-intersections, with `SelfIntersectionGuard` it never finds a pair that was not there before the step (checked after every step), the weight changes that would have crossed are undone, and the dent still forms up to the bottom. The mesh collider's positions equal `BoundMesh::positions_into` (Σ_e β_e x_e, an independent formula) throughout. The bodies of one mesh share its topology tables, built with the mesh, through their dents.

use std::collections::HashMap;

use rapier3d_deform::bn_tree::BnTreeOptions;
use rapier3d_deform::crash::{ExampleMesh, GuardOutcome, SelfIntersectionGuard};
use rapier3d_deform::deformation::ExampleBlend;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::{PlasticState, PlasticityParams};
use rapier3d_deform::shape::DeformableMeshShape;
use rapier3d_deform::validation::self_collisions_brute_force;

const HEIGHT: f32 = 0.2;

/// A closed box `[0, 2] × [0, HEIGHT] × [0, 1]`, faces gridded at `step`, outward normals.
fn slab(step: f32) -> TriangleMesh {
    let size = Vec3::new(2.0, HEIGHT, 1.0);
    let mut index: HashMap<[i64; 3], u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    let mut vertex = |p: Vec3| -> u32 {
        let key = [p.x, p.y, p.z].map(|c| (c * 1e4).round() as i64);
        *index.entry(key).or_insert_with(|| {
            positions.push(p);
            positions.len() as u32 - 1
        })
    };
    // (origin, u, v): the face is origin + s u + t v, s, t in [0, 1].
    let faces = [
        (
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, size.z),
            Vec3::new(size.x, 0.0, 0.0),
        ), // bottom (−y)
        (
            Vec3::new(0.0, size.y, 0.0),
            Vec3::new(size.x, 0.0, 0.0),
            Vec3::new(0.0, 0.0, size.z),
        ), // top
        (
            Vec3::ZERO,
            Vec3::new(size.x, 0.0, 0.0),
            Vec3::new(0.0, size.y, 0.0),
        ), // −z
        (
            Vec3::new(0.0, 0.0, size.z),
            Vec3::new(0.0, size.y, 0.0),
            Vec3::new(size.x, 0.0, 0.0),
        ), // +z
        (
            Vec3::ZERO,
            Vec3::new(0.0, size.y, 0.0),
            Vec3::new(0.0, 0.0, size.z),
        ), // −x
        (
            Vec3::new(size.x, 0.0, 0.0),
            Vec3::new(0.0, 0.0, size.z),
            Vec3::new(0.0, size.y, 0.0),
        ), // +x
    ];
    for (o, u, v) in faces {
        let (nu, nv) = (
            (u.length() / step).round().max(1.0) as usize,
            (v.length() / step).round().max(1.0) as usize,
        );
        let mut grid = vec![vec![0u32; nv + 1]; nu + 1];
        for (i, row) in grid.iter_mut().enumerate() {
            for (j, slot) in row.iter_mut().enumerate() {
                *slot = vertex(o + u * (i as f32 / nu as f32) + v * (j as f32 / nv as f32));
            }
        }
        for i in 0..nu {
            for j in 0..nv {
                let (a, b, c, d) = (
                    grid[i][j],
                    grid[i + 1][j],
                    grid[i + 1][j + 1],
                    grid[i][j + 1],
                );
                triangles.push([a, b, c]);
                triangles.push([a, c, d]);
            }
        }
    }
    // Outward normals: a positive signed volume (flip the faces otherwise).
    let volume: f32 = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| positions[v as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    assert!(
        (volume.abs() - size.x * size.y * size.z).abs() < 1e-4,
        "{volume}"
    );
    if volume < 0.0 {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    TriangleMesh::new(positions, triangles).unwrap()
}

/// Two bones (floor, roof: weight of the roof = height / HEIGHT); example 1 moves the roof bone
/// 0.6 m down, so the crushed top ends 0.4 m below the bottom face.
fn crush_blend(mesh: &TriangleMesh) -> ExampleBlend {
    let rows = mesh.positions().iter().map(|p| {
        let w = (p.y / HEIGHT).clamp(0.0, 1.0);
        vec![(0u32, 1.0 - w), (1u32, w)]
    });
    let weights = ConvexWeights::from_rows(rows, 2).unwrap();
    let crush = Affine::new(Mat3::IDENTITY, Vec3::new(0.0, -3.0 * HEIGHT, 0.0));
    ExampleBlend::new(
        mesh.positions().to_vec(),
        weights,
        vec![vec![Affine::IDENTITY; 2], vec![Affine::IDENTITY, crush]],
    )
    .unwrap()
}

struct Run {
    pairs_per_step: Vec<usize>,
    lowest_top: f32,
    outcome: GuardOutcome,
}

/// Dents the top centre for `steps` steps; checks each step against the brute-force oracle.
fn dent(guard: bool, steps: usize) -> Run {
    let mesh = slab(0.1);
    let blend = crush_blend(&mesh);
    let collider = ExampleMesh::new(&mesh, mesh.clone(), &blend, BnTreeOptions::default()).unwrap();
    let mut shape: DeformableMeshShape = collider.shape().unwrap();
    let params = PlasticityParams {
        rate: 0.25,
        settle_threshold: 1e-5,
        ..PlasticityParams::jones_car()
    };
    let n = mesh.vertex_count();
    let mut state = PlasticState::new(n, 2, &params).unwrap();
    state.set_eager(0..n as u32).unwrap();
    let mut g = SelfIntersectionGuard::new();
    let centre = Vec3::new(1.0, HEIGHT, 0.5);
    let top: Vec<u32> = (0..n as u32)
        .filter(|&v| mesh.positions()[v as usize].y == HEIGHT)
        .collect();
    let mut before = self_collisions_brute_force(&mesh, &shape.deformed_vertices()).unwrap();
    assert!(before.is_empty());
    let mut run = Run {
        pairs_per_step: Vec::new(),
        lowest_top: HEIGHT,
        outcome: GuardOutcome::default(),
    };
    let mut reference = Vec::new();
    for _ in 0..steps {
        for &v in &top {
            let d = (mesh.positions()[v as usize] - centre).length();
            if d < 0.45 {
                let f = (1.0 - d / 0.45).powi(2);
                state.deposit(v, &[-0.05 * f, 0.05 * f]).unwrap();
            }
        }
        let changed = state.advance().to_vec();
        let previous = state.previous_weights().to_vec();
        let o = g
            .apply(
                &mut shape, &collider, &mut state, &changed, &previous, guard,
            )
            .unwrap();
        run.outcome.new_pairs += o.new_pairs;
        run.outcome.cage_vertices_reverted += o.cage_vertices_reverted;
        run.outcome.mesh_vertices_updated += o.mesh_vertices_updated;
        run.outcome.rounds += o.rounds;
        let positions = shape.deformed_vertices();
        collider
            .bound()
            .positions_into(&mut state, &mut reference)
            .unwrap();
        for (p, q) in positions.iter().zip(&reference) {
            assert!((*p - *q).length() < 1e-5, "{p} vs {q}");
        }
        let after = self_collisions_brute_force(&mesh, &positions).unwrap();
        if guard {
            let new: Vec<_> = after
                .iter()
                .filter(|p| before.binary_search(p).is_err())
                .collect();
            assert!(new.is_empty(), "new self-intersections: {new:?}");
        }
        run.pairs_per_step.push(after.len());
        run.lowest_top = top
            .iter()
            .map(|&v| positions[v as usize].y)
            .fold(run.lowest_top, f32::min);
        before = after;
    }
    run
}

#[test]
fn without_the_guard_the_dent_goes_through_the_bottom() {
    let run = dent(false, 40);
    let worst = run.pairs_per_step.iter().copied().max().unwrap_or(0);
    println!(
        "unguarded: lowest top y {:.3}, up to {worst} pairs",
        run.lowest_top
    );
    assert!(
        run.lowest_top < 0.0,
        "the scenario must push the top through the bottom"
    );
    assert!(worst > 0);
    assert_eq!(run.outcome.cage_vertices_reverted, 0);
}

#[test]
fn the_guard_stops_the_dent_at_the_bottom_without_new_self_intersections() {
    let run = dent(true, 40);
    println!(
        "guarded: lowest top y {:.4}, {:?}",
        run.lowest_top, run.outcome
    );
    assert!(run.pairs_per_step.iter().all(|&p| p == 0));
    assert!(run.outcome.new_pairs > 0 && run.outcome.cage_vertices_reverted > 0);
    // The dent still formed, down to within a step's motion of the bottom face.
    assert!(
        run.lowest_top < 0.05 && run.lowest_top >= 0.0,
        "{}",
        run.lowest_top
    );
}

#[test]
fn the_bodies_of_one_mesh_share_topology_built_with_the_mesh() {
    let mesh = slab(0.1);
    let blend = crush_blend(&mesh);
    let collider = ExampleMesh::new(&mesh, mesh.clone(), &blend, BnTreeOptions::default()).unwrap();
    let (a, b) = (collider.shape().unwrap(), collider.shape().unwrap());
    // Built with the mesh, not by each body on its first dent.
    assert!(a.shares_built_topology_with(&b));
    // A body that dents keeps sharing them (its tree is copied, the topology is not).
    let mut dented = a.clone();
    let v = 0u32;
    dented
        .update_vertex_weights(&[v], |_, out| out.fill(1.0 / out.len() as f32))
        .unwrap();
    assert!(dented.shares_built_topology_with(&b));
}
