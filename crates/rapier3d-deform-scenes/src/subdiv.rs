//! Loop control meshes for limit-surface scenes and tests (Grinspun & Schröder 2001): a capsule-ended tube under a prescribed bend that folds it onto itself (Fig. 1), a three-handled torus whose bridge is pushed through its cross bar (Fig. 11), a sphere whose cap is pushed through its far side (Fig. 12), the scenes' tolerance oracle and the level-k BN-Tree route they are compared with; `pictures` draws what a query found.

pub mod pictures;

use rapier3d_deform::Result;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions, CullingMode, SelfCollisionQuery};
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::limit_surface::{SubPatchView, ToleranceOracle};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use std::collections::{HashMap, HashSet};
use std::f32::consts::TAU;

/// A closed capsule along `x`: a tube `0..length` of radius `radius` (`segments` around, `rings`
/// quad rows) with hemispherical ends (two rings each at 30° and 60° and a pole vertex), refined
/// by one Loop step so that no triangle has two irregular corners (what
/// [`rapier3d_deform::limit_surface::LimitPatches`] asks for). Irregular vertices: the poles
/// (valence `segments`) and the rings next to them (valence 5).
///
/// # Panics
/// For `segments < 3` or `rings < 1` (fixture sizes are constants of the callers).
pub fn tube_cage(segments: usize, rings: usize, radius: f32, length: f32) -> TriangleMesh {
    assert!(segments >= 3 && rings >= 1);
    // Ring centres and radii along x: the left cap, the tube, the right cap.
    let mut profile: Vec<(f32, f32)> = Vec::new();
    let cap = [60.0f32, 30.0];
    for deg in cap {
        let a = deg.to_radians();
        profile.push((-radius * a.sin(), radius * a.cos()));
    }
    for i in 0..=rings {
        profile.push((length * i as f32 / rings as f32, radius));
    }
    for deg in cap.iter().rev() {
        let a = deg.to_radians();
        profile.push((length + radius * a.sin(), radius * a.cos()));
    }
    let mut p = Vec::new();
    for &(x, r) in &profile {
        for j in 0..segments {
            let a = TAU * j as f32 / segments as f32;
            p.push(Vec3::new(x, r * a.cos(), r * a.sin()));
        }
    }
    let (c0, c1) = (p.len() as u32, p.len() as u32 + 1);
    p.push(Vec3::new(-radius, 0.0, 0.0));
    p.push(Vec3::new(length + radius, 0.0, 0.0));
    let id = |i: usize, j: usize| (i * segments + j % segments) as u32;
    let last = profile.len() - 1;
    let mut t = Vec::new();
    for i in 0..last {
        for j in 0..segments {
            let (a, b, c, d) = (id(i, j), id(i, j + 1), id(i + 1, j), id(i + 1, j + 1));
            t.push([a, b, c]);
            t.push([b, d, c]);
        }
    }
    for j in 0..segments {
        t.push([c0, id(0, j + 1), id(0, j)]);
        t.push([c1, id(last, j), id(last, j + 1)]);
    }
    let coarse = TriangleMesh::new(p, t).expect("the capsule is a valid mesh");
    LoopSubdivision::new(coarse, 1)
        .expect("one Loop step of a closed mesh")
        .mesh()
        .clone()
}

/// Bends points of a tube along `x` in the `x y` plane: the section `x0 ≤ x ≤ x0 + arc` becomes
/// a circular arc of total angle `angle` (radius `arc / angle`, bending towards `+y`), the part
/// beyond it is carried rigidly. With `angle = π` and `arc / π` below the tube radius the two legs
/// interpenetrate and the inner side of the bend folds through itself.
pub fn bend(points: &[Vec3], x0: f32, arc: f32, angle: f32) -> Vec<Vec3> {
    if angle.abs() < 1e-6 {
        return points.to_vec();
    }
    let r = arc / angle;
    points
        .iter()
        .map(|&q| {
            if q.x <= x0 {
                return q;
            }
            let phi = angle * ((q.x - x0) / arc).min(1.0);
            let rho = r - q.y;
            let on_arc = Vec3::new(x0 + rho * phi.sin(), r - rho * phi.cos(), q.z);
            if q.x <= x0 + arc {
                return on_arc;
            }
            let beyond = q.x - x0 - arc;
            on_arc + beyond * Vec3::new(angle.cos(), angle.sin(), 0.0)
        })
        .collect()
}

/// The regular octahedron on the unit axes (closed, genus 0, valence 4 everywhere), outward
/// oriented.
pub fn octahedron() -> TriangleMesh {
    let p = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let t = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    TriangleMesh::new(p, t).expect("the octahedron is a valid mesh")
}

/// An octahedron refined `levels` Loop steps (valence-4 irregular vertices, at least one step so
/// no triangle has two irregular corners), projected to the unit sphere and jittered by
/// `jitter` per coordinate with a fixed hash (deterministic).
///
/// # Panics
/// For `levels == 0` or more than 4.
pub fn sphere_cage(levels: u32, jitter: f32) -> TriangleMesh {
    assert!((1..=4).contains(&levels));
    let s = LoopSubdivision::new(octahedron(), levels).expect("a few Loop steps");
    let q: Vec<Vec3> = s
        .mesh()
        .positions()
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let f = |k: u32| ((h.rotate_left(k) % 10_000) as f32 / 10_000.0 - 0.5) * jitter;
            q.normalize() + Vec3::new(f(0), f(21), f(42))
        })
        .collect();
    TriangleMesh::new(q, s.mesh().triangles().to_vec()).expect("the jittered sphere is valid")
}

/// The scenes' tolerance oracle (seed §2.1): refine a pair while either sub-patch's control
/// triangle (its first three control points, the patch corners) has an edge longer than
/// `tolerance`, at most `max_depth` Loop steps below the control mesh.
///
/// # Performance
/// O(1) per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeTolerance {
    /// The longest control-triangle edge a reported sub-patch may keep.
    pub tolerance: f64,
    /// No refinement below this depth (the level `k` that resolves the tolerance at rest).
    pub max_depth: u32,
}

impl EdgeTolerance {
    fn edge_above(&self, points: &[[f64; 3]]) -> bool {
        points.len() >= 3
            && (0..3).any(|c| {
                let (a, b) = (points[c], points[(c + 1) % 3]);
                let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() > self.tolerance
            })
    }
}

impl ToleranceOracle for EdgeTolerance {
    fn refine(&mut self, a: &SubPatchView<'_>, b: &SubPatchView<'_>) -> bool {
        a.sub.depth < self.max_depth
            && (self.edge_above(a.control_points) || self.edge_above(b.control_points))
    }
}

/// The longest edge of a mesh posed at `points`.
///
/// # Performance
/// O(triangles).
pub fn longest_edge(points: &[Vec3], triangles: &[[u32; 3]]) -> f64 {
    triangles
        .iter()
        .flat_map(|t| (0..3).map(move |c| (t[c], t[(c + 1) % 3])))
        .map(|(a, b)| (points[a as usize] - points[b as usize]).length() as f64)
        .fold(0.0, f64::max)
}

/// The smallest Loop level (at most `max_level`) whose rest edges are all at most `tolerance`:
/// the level-k mesh that resolves the tolerance. `max_level` when none does.
///
/// # Panics
/// Never for a valid closed cage (Loop subdivision of it succeeds).
///
/// # Performance
/// O(4^k · triangles).
pub fn level_resolving(cage: &TriangleMesh, tolerance: f64, max_level: u32) -> u32 {
    let mut mesh = cage.clone();
    for k in 0..max_level {
        if longest_edge(mesh.positions(), mesh.triangles()) <= tolerance {
            return k;
        }
        mesh = LoopSubdivision::new(mesh, 1)
            .expect("Loop subdivision of a valid cage")
            .mesh()
            .clone();
    }
    max_level
}

/// The fixed-level route the limit surface is compared with: the cage Loop-subdivided `k` times,
/// its BN-Tree ([`BnTreeOptions::SELF_COLLISION`]) with the cage's control points as point
/// governors, and one conservative self-collision query kept from frame to frame.
pub struct LevelKRoute {
    /// The level-k Loop mesh over the cage.
    pub fine: LoopSubdivision,
    /// Its BN-Tree.
    pub tree: BnTree,
    query: SelfCollisionQuery,
}

impl LevelKRoute {
    /// The route for `cage` at level `k`.
    ///
    /// # Errors
    /// As [`LoopSubdivision::new`], [`BnTree::build_with`] and [`BnTree::with_point_governors`].
    ///
    /// # Performance
    /// O(4^k · triangles).
    pub fn new(cage: &TriangleMesh, k: u32) -> Result<Self> {
        let fine = LoopSubdivision::new(cage.clone(), k)?;
        let tree = BnTree::build_with(
            fine.mesh(),
            fine.rest_positions(),
            fine.weights(),
            BnTreeOptions::SELF_COLLISION,
        )?
        .with_point_governors(cage.positions().to_vec())?;
        let query = SelfCollisionQuery::new(&tree);
        Ok(Self { fine, tree, query })
    }

    /// Poses the level-k mesh from the control points `posed` and writes its self-colliding
    /// triangle pairs to `pairs` (`SelfCollisionQuery::run_by_mesh_size`, conservative).
    ///
    /// # Errors
    /// As [`LoopSubdivision::set_control_points`] and [`SelfCollisionQuery::run_by_mesh_size`].
    ///
    /// # Performance
    /// One pose of the level-k mesh's governors and one query.
    pub fn detect(&mut self, posed: &[Vec3], pairs: &mut Vec<[u32; 2]>) -> Result<()> {
        self.fine.set_control_points(posed)?;
        self.query.run_by_mesh_size(
            &self.tree,
            self.fine.governors(),
            CullingMode::Conservative,
            pairs,
        )?;
        Ok(())
    }
}

/// The closed boundary surface of a set of unit voxels (cells at integer coordinates, scaled by
/// `size` after subtracting `origin`), each square face split along the same diagonal (so flat
/// regions are regular: valence 6), outward oriented. `None` when the set has no face or the
/// surface is not a valid mesh; whether it is a manifold is the caller's design (no two cells
/// meeting only along an edge or at a corner).
///
/// # Performance
/// O(cells).
pub fn voxel_surface(cells: &[[i32; 3]], size: f32, origin: Vec3) -> Option<TriangleMesh> {
    let filled: HashSet<[i32; 3]> = cells.iter().copied().collect();
    let mut ids: HashMap<[i32; 3], u32> = HashMap::new();
    let mut points = Vec::new();
    let mut triangles = Vec::new();
    let mut id = |q: [i32; 3], points: &mut Vec<Vec3>| {
        *ids.entry(q).or_insert_with(|| {
            points.push((Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32) - origin) * size);
            (points.len() - 1) as u32
        })
    };
    let mut sorted: Vec<[i32; 3]> = filled.iter().copied().collect();
    sorted.sort_unstable();
    for c in sorted {
        for a in 0..3 {
            let (b, d) = ((a + 1) % 3, (a + 2) % 3);
            for positive in [true, false] {
                let mut n = c;
                n[a] += if positive { 1 } else { -1 };
                if filled.contains(&n) {
                    continue;
                }
                let mut base = c;
                if positive {
                    base[a] += 1;
                }
                let offset = |u: i32, v: i32| {
                    let mut q = base;
                    q[b] += u;
                    q[d] += v;
                    q
                };
                // e_b × e_d = e_a: (0, e_b, e_b + e_d, e_d) is counter-clockwise seen from +a.
                let mut quad = [offset(0, 0), offset(1, 0), offset(1, 1), offset(0, 1)];
                if !positive {
                    quad = [quad[0], quad[3], quad[2], quad[1]];
                }
                let q = quad.map(|q| id(q, &mut points));
                triangles.push([q[0], q[1], q[2]]);
                triangles.push([q[0], q[2], q[3]]);
            }
        }
    }
    if triangles.is_empty() {
        return None;
    }
    TriangleMesh::new(points, triangles).ok()
}

/// Side of a voxel of [`torus_cage`].
pub const TORUS_CELL: f32 = 0.5;

/// The voxels of [`torus_cage`]: a square frame of 7 × 7 cells in the layer `z = 0`, a cross bar
/// along `x` through its middle row, and a bridge along `y` through its middle column two layers
/// up, standing on two legs on the frame (the bridge clears the bar by one layer).
///
/// # Performance
/// O(1): 38 cells.
pub fn torus_cells() -> Vec<[i32; 3]> {
    let mut cells = Vec::new();
    for i in 0..7 {
        for j in 0..7 {
            if i == 0 || i == 6 || j == 0 || j == 6 || j == 3 {
                cells.push([i, j, 0]);
            }
        }
    }
    for j in [0, 6] {
        cells.push([3, j, 1]);
        cells.push([3, j, 2]);
    }
    for j in 1..6 {
        cells.push([3, j, 2]);
    }
    cells
}

/// A closed genus-3 control mesh (seed Fig. 11, a torus with several handles): the boundary of
/// [`torus_cells`] (cells of side [`TORUS_CELL`], centred so the frame and the cross bar span
/// `z ∈ [−¼, ¼]` and the bridge `z ∈ [¾, 1¼]`), refined by one Loop step so that no triangle
/// has two irregular corners: 588 control points, 1,184 patches. Its 30 irregular vertices
/// (valence 4 and 8) sit at voxel corners; the rest is regular.
///
/// # Panics
/// Never (the voxel set is a fixed manifold design; the tests check it).
///
/// # Performance
/// O(1): a few hundred control points, built in well under a millisecond.
pub fn torus_cage() -> TriangleMesh {
    let coarse = voxel_surface(&torus_cells(), TORUS_CELL, Vec3::new(3.5, 3.5, 0.5))
        .expect("the torus voxels bound a valid mesh");
    LoopSubdivision::new(coarse, 1)
        .expect("one Loop step of a closed mesh")
        .mesh()
        .clone()
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Pushes the bridge of [`torus_cage`] down by `depth` (a prescribed deformation of the control
/// points): a point above the frame's top (`z > ¼`) moves by `−depth` in `z`, scaled by a
/// smooth ramp over its height (full from the bridge's underside `z = ¾` up) and by a smooth bump
/// along `y` (full within `|y| ≤ ½`, none beyond `|y| ≥ 1½`, where the legs stand). At
/// `depth = 1` the middle of the bridge lies where the cross bar lies: the two tubes cross.
///
/// # Performance
/// O(points).
pub fn push_bridge(points: &[Vec3], depth: f32) -> Vec<Vec3> {
    points
        .iter()
        .map(|&q| {
            let w = smoothstep(0.25, 0.75, q.z) * (1.0 - smoothstep(0.5, 1.5, q.y.abs()));
            q - Vec3::Z * (depth * w)
        })
        .collect()
}

/// Pushes the north cap of a cage around the origin (a [`sphere_cage`]) down through the sphere
/// (seed Fig. 12, a partially everted sphere): a point at polar angle `θ` from `+z` moves by
/// `−depth` in `z`, fully for `θ ≤ 35°`, not at all for `θ ≥ 75°`, smoothly in between. Past
/// `depth ≈ 1.8` the cap crosses the southern hemisphere of the unit sphere.
///
/// # Performance
/// O(points).
pub fn evert_cap(points: &[Vec3], depth: f32) -> Vec<Vec3> {
    points
        .iter()
        .map(|&q| {
            let theta = (q.z / q.length().max(1e-12)).clamp(-1.0, 1.0).acos();
            let w = 1.0 - smoothstep(35f32.to_radians(), 75f32.to_radians(), theta);
            q - Vec3::Z * (depth * w)
        })
        .collect()
}

/// The tolerances of the `subdiv_torus` scene, coarse to fine (cells of 0.5; the limit tubes
/// are about 0.3 across).
pub const TORUS_TOLERANCES: [f64; 3] = [0.2, 0.1, 0.05];

/// The tolerances of the `subdiv_sphere` scene, coarse to fine (unit sphere).
pub const SPHERE_TOLERANCES: [f64; 3] = [0.2, 0.1, 0.05];

/// The last push of the `subdiv_sphere` scene ([`evert_cap`]): the cap ends below the south
/// pole.
pub const SPHERE_PUSH: f32 = 2.4;
