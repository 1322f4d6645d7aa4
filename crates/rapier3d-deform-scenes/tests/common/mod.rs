//! Shared test fixtures: seeded random numbers, a tube mesh with coherent bone weights, a skinned grid, random governor poses, and the bounds oracle loop.
#![allow(dead_code)]

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::bounds::{BoundsWorkspace, NormalCone, PatchBounds, PatchHierarchy};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::{count_aabb_violations, count_cone_violations, exact_cone};

/// A seeded RNG.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A closed tube (capped cylinder) along x from 0 to `length`, radius 1, with `rings × segments` quads.
pub fn tube(length: f32, rings: usize, segments: usize) -> TriangleMesh {
    let mut p = Vec::new();
    for r in 0..=rings {
        let x = length * r as f32 / rings as f32;
        for s in 0..segments {
            let a = std::f32::consts::TAU * s as f32 / segments as f32;
            p.push(Vec3::new(x, a.cos(), a.sin()));
        }
    }
    let cap0 = p.len() as u32;
    p.push(Vec3::new(-0.5, 0.0, 0.0));
    let cap1 = p.len() as u32;
    p.push(Vec3::new(length + 0.5, 0.0, 0.0));
    let mut t = Vec::new();
    let idx = |r: usize, s: usize| (r * segments + s % segments) as u32;
    for r in 0..rings {
        for s in 0..segments {
            t.push([idx(r, s), idx(r + 1, s), idx(r + 1, s + 1)]);
            t.push([idx(r, s), idx(r + 1, s + 1), idx(r, s + 1)]);
        }
    }
    for s in 0..segments {
        t.push([cap0, idx(0, s), idx(0, s + 1)]);
        t.push([cap1, idx(rings, s + 1), idx(rings, s)]);
    }
    TriangleMesh::new(p, t).expect("valid tube")
}

/// An `n × n`-quad grid in the xz plane (normals +y) from `origin` (x, z) over `size` (x, z).
pub fn grid_mesh(n: usize, origin: [f32; 2], size: [f32; 2]) -> TriangleMesh {
    let mut p = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            p.push(Vec3::new(
                origin[0] + size[0] * i as f32 / n as f32,
                0.0,
                origin[1] + size[1] * j as f32 / n as f32,
            ));
        }
    }
    let id = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    let mut t = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1));
            t.push([a, c, b]);
            t.push([b, c, d]);
        }
    }
    TriangleMesh::new(p, t).expect("valid grid")
}

/// A 4 × 4 grid in the xz plane centred at the origin (normals +y, `n × n` quads), skinned to
/// two bones blended linearly along x, as a BN-Tree built with `options`.
pub fn skinned_grid(n: usize, options: BnTreeOptions) -> Arc<BnTree> {
    let mesh = grid_mesh(n, [-2.0, -2.0], [4.0, 4.0]);
    let p = mesh.positions().to_vec();
    let rows: Vec<Vec<(u32, f32)>> = p
        .iter()
        .map(|q| {
            let w1 = ((q.x + 2.0) / 4.0).clamp(0.0, 1.0);
            [(0u32, 1.0 - w1), (1u32, w1)]
                .into_iter()
                .filter(|(_, w)| *w > 0.0)
                .collect()
        })
        .collect();
    let weights = ConvexWeights::from_rows(rows, 2).expect("valid weights");
    Arc::new(BnTree::build_with(&mesh, &p, &weights, options).expect("valid tree"))
}

/// Spatially coherent weights: Gaussian falloff from `bones` centres along x, keeping the
/// `max_influences` largest.
pub fn tube_weights(
    mesh: &TriangleMesh,
    bones: usize,
    length: f32,
    max_influences: usize,
) -> ConvexWeights {
    let rows = mesh.positions().iter().map(|p| {
        let mut row: Vec<(u32, f32)> = (0..bones)
            .map(|b| {
                let c = length * (b as f32 + 0.5) / bones as f32;
                let d = (p.x - c) / (length / bones as f32);
                (b as u32, (-0.5 * d * d / 1.5).exp() + 1e-4)
            })
            .collect();
        row.sort_by(|a, b| b.1.total_cmp(&a.1));
        row.truncate(max_influences);
        let s: f32 = row.iter().map(|r| r.1).sum();
        row.into_iter()
            .map(move |(g, w)| (g, w / s))
            .collect::<Vec<_>>()
    });
    ConvexWeights::from_rows(rows, bones).expect("valid weights")
}

/// Random valid weights with no spatial coherence.
pub fn random_weights(
    r: &mut ChaCha8Rng,
    vertices: usize,
    governors: usize,
    max_influences: usize,
) -> ConvexWeights {
    let rows: Vec<Vec<(u32, f32)>> = (0..vertices)
        .map(|_| {
            let k = r.random_range(1..=max_influences);
            let raw: Vec<(u32, f32)> = (0..k)
                .map(|_| {
                    (
                        r.random_range(0..governors as u32),
                        r.random_range(0.01f32..1.0),
                    )
                })
                .collect();
            let s: f32 = raw.iter().map(|x| x.1).sum();
            raw.into_iter().map(|(g, w)| (g, w / s)).collect()
        })
        .collect();
    ConvexWeights::from_rows(rows, governors).expect("valid weights")
}

/// A random rotation.
pub fn random_rotation(r: &mut ChaCha8Rng) -> Quat {
    Quat::from_xyzw(
        r.random_range(-1.0..1.0),
        r.random_range(-1.0..1.0),
        r.random_range(-1.0..1.0),
        r.random_range(-1.0..1.0),
    )
    .normalize()
}

/// A random governor: rotation `R`, non-uniform scale within ±50 % along a random frame, translation.
/// `amplitude` in [0, 1] blends from identity (0) to a fully random rotation (1).
pub fn random_governor(r: &mut ChaCha8Rng, amplitude: f32, translation: f32) -> Affine {
    let rot = Quat::IDENTITY.slerp(random_rotation(r), amplitude);
    let frame = Mat3::from_quat(random_rotation(r));
    let s = Vec3::new(
        r.random_range(0.5..1.5),
        r.random_range(0.5..1.5),
        r.random_range(0.5..1.5),
    );
    let scale = frame * Mat3::from_diagonal(s) * frame.transpose();
    let t = Vec3::new(
        r.random_range(-translation..translation),
        r.random_range(-translation..translation),
        r.random_range(-translation..translation),
    );
    Affine::new(Mat3::from_quat(rot) * scale, t)
}

/// Violations and coverage counts over many poses.
#[derive(Default, Debug, Clone, Copy)]
pub struct Tally {
    pub aabb_violations: usize,
    pub normal_violations: usize,
    pub vertices_checked: usize,
    pub normal_checks: usize,
    pub nonempty_cones: usize,
    pub poses: usize,
}

/// Precomputed patches of every hierarchy node.
pub fn patches(
    mesh: &TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
    h: &PatchHierarchy,
) -> Vec<PatchBounds> {
    (0..h.nodes().len())
        .map(|i| PatchBounds::new(rest, weights, mesh, h.node_triangles(i)))
        .collect()
}

/// Checks every node's O(m) AABB and normal cone against the deformed geometry of one pose.
pub fn check_pose(
    mesh: &TriangleMesh,
    h: &PatchHierarchy,
    patches: &[PatchBounds],
    deformation: &dyn GovernedDeformation,
    ws: &mut BoundsWorkspace,
    deformed: &mut Vec<Vec3>,
    tally: &mut Tally,
) {
    deformation.deform_into(deformed);
    tally.poses += 1;
    for (i, patch) in patches.iter().enumerate() {
        let aabb = patch.aabb(deformation.governors(), ws);
        let verts = h.node_vertices(i);
        tally.aabb_violations += count_aabb_violations(&aabb, deformed, verts);
        // The cheaper union of governor boxes is conservative too.
        let hull = patch.hull_aabb(deformation.governors());
        tally.aabb_violations += count_aabb_violations(&hull, deformed, verts);
        tally.vertices_checked += verts.len();
        let cone = patch.normal_cone(deformation.governors(), ws);
        let tris = h.node_triangles(i);
        tally.normal_violations += count_cone_violations(cone, mesh, deformed, tris);
        tally.normal_checks += tris.len() * cone.count() as usize;
        if !cone.is_empty() {
            tally.nonempty_cones += 1;
        }
    }
}

/// The oracle must be able to fail: a box shrunk inside the exact deformed box, and a cone with
/// a direction the exact cone lacks, are both reported.
pub fn assert_oracle_catches_shrunk_bounds(
    mesh: &TriangleMesh,
    h: &PatchHierarchy,
    deformed: &[Vec3],
) {
    use rapier3d_deform::validation::exact_aabb;
    let verts = h.node_vertices(0);
    let exact = exact_aabb(deformed, verts);
    let mut shrunk = exact;
    let d = (exact.maxs - exact.mins) * 1e-3;
    shrunk.mins += d;
    shrunk.maxs -= d;
    assert!(
        count_aabb_violations(&shrunk, deformed, verts) > 0,
        "shrunk AABB not caught"
    );
    assert_eq!(count_aabb_violations(&exact, deformed, verts), 0);
    // A leaf's exact cone plus one direction it lacks.
    let leaf = h.nodes().iter().position(|n| n.children.is_none()).unwrap();
    let tris = h.node_triangles(leaf);
    let exact = exact_cone(mesh, deformed, tris);
    let extra = (0..14).find(|&i| !exact.contains_direction(i)).unwrap();
    let widened = NormalCone(exact.0 | (1 << extra));
    assert!(
        count_cone_violations(widened, mesh, deformed, tris) > 0,
        "over-wide cone not caught"
    );
}

/// A closed tube along x (length 2, radius 0.5) skinned to bones at x = 0, 1, 2.
pub fn capped_tube_tree(nx: usize, nr: usize) -> Arc<BnTree> {
    let (len, radius) = (2.0f32, 0.5f32);
    let mut p = Vec::new();
    for i in 0..=nx {
        let x = len * i as f32 / nx as f32;
        for j in 0..nr {
            let a = std::f32::consts::TAU * j as f32 / nr as f32;
            p.push(Vec3::new(x, radius * a.cos(), radius * a.sin()));
        }
    }
    let (c0, c1) = (p.len() as u32, p.len() as u32 + 1);
    p.push(Vec3::ZERO);
    p.push(Vec3::new(len, 0.0, 0.0));
    let mut t = Vec::new();
    let id = |i: usize, j: usize| (i * nr + j % nr) as u32;
    for i in 0..nx {
        for j in 0..nr {
            let (a, b, c, d) = (id(i, j), id(i, j + 1), id(i + 1, j), id(i + 1, j + 1));
            t.push([a, b, c]);
            t.push([b, d, c]);
        }
    }
    for j in 0..nr {
        t.push([c0, id(0, j + 1), id(0, j)]);
        t.push([c1, id(nx, j), id(nx, j + 1)]);
    }
    let rows: Vec<Vec<(u32, f32)>> = p
        .iter()
        .map(|q| {
            if q.x <= 1.0 {
                vec![(0, 1.0 - q.x), (1, q.x)]
            } else {
                vec![(1, 2.0 - q.x), (2, q.x - 1.0)]
            }
        })
        .collect();
    let weights = ConvexWeights::from_rows(rows, 3).unwrap();
    let mesh = TriangleMesh::new(p.clone(), t).unwrap();
    Arc::new(BnTree::build(&mesh, &p, &weights).unwrap())
}

/// Poses of [`capped_tube_tree`]: bent at x = 1 by `angle` (second half) and `2 angle` with a
/// non-rigid stretch (end).
pub fn bent_tube_pose(angle: f32) -> Vec<Affine> {
    let pivot = Vec3::new(1.0, 0.0, 0.0);
    let r1 = Mat3::from_rotation_z(angle);
    let r2 = Mat3::from_rotation_z(2.0 * angle) * Mat3::from_diagonal(Vec3::new(1.0, 1.1, 0.9));
    vec![
        Affine::IDENTITY,
        Affine::new(r1, pivot - r1 * pivot),
        Affine::new(r2, pivot - r2 * pivot + Vec3::new(0.0, 0.05, 0.0)),
    ]
}
