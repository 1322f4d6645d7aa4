//! Signed distance to a closed triangle mesh: a triangle tree answers closest points and generalized winding numbers, and a grid samples them for the packing.
//!
//! The sign comes from the generalized winding number `w(p) = Σ_t Ω_t(p) / 4π` (Jacobson et al.
//! 2013): `1` inside a closed, outward-oriented surface, `0` outside, and a smooth value near small
//! holes, so that small defects only blur the sign locally. It is evaluated hierarchically (Barill
//! et al. 2018): a tree node farther than `β = 2.5` node radii from the query point contributes
//! its dipole term `A · y / |y|³` (`A` the sum of its area vectors, `y` from the point to its
//! area-weighted centroid); near nodes are summed exactly (Van Oosterom & Strackee). The result
//! is within a few percent of the exact sum, ample for the threshold at ½. Values outside
//! `{0, 1}` at grid points reveal a self-intersecting or inside-out surface.

use rapier3d::parry::glamx::DVec3;

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// A node is summed in the far field when the query point is farther than `WINDING_BETA` times
/// the node's radius from its centroid (Barill et al. use 2 with second-order terms; the dipole
/// term alone needs a little more).
const WINDING_BETA: f64 = 2.5;
/// Largest number of triangles in a leaf of the triangle tree.
const LEAF_SIZE: usize = 8;
/// A grid point whose winding number leaves `[-SELF_INTERSECTION_SLACK, 1 + SELF_INTERSECTION_SLACK]`
/// is inside two sheets of the surface (or the surface is inside out).
const SELF_INTERSECTION_SLACK: f32 = 0.5;

/// One node of [`MeshDistance`]'s tree.
#[derive(Clone, Debug)]
struct Node {
    mins: Vec3,
    maxs: Vec3,
    /// Leaf: first slot in `order`; internal: index of the right child (the left one is next).
    first_or_right: u32,
    /// Number of triangles of a leaf, 0 for an internal node.
    count: u32,
    /// Area-weighted centroid of the node's triangles.
    centre: DVec3,
    /// Largest distance from `centre` to a corner of the node's triangles.
    radius: f64,
    /// `Σ a_t`, the sum of the triangles' area vectors (area × unit normal).
    area: DVec3,
}

/// The nearest surface point of a [`MeshDistance`] query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The point on the surface.
    pub point: Vec3,
    /// The triangle it lies on.
    pub triangle: u32,
    /// Unsigned distance from the query point.
    pub distance: f32,
}

/// A bounding-volume tree over the triangles of one pose of a mesh, answering closest-point,
/// generalized-winding-number and signed-distance queries.
///
/// # Performance
/// Built in O(T log T); a closest-point query visits O(log T) nodes on typical meshes, a winding
/// number O(log T) far-field nodes plus the exact near field.
#[derive(Clone, Debug)]
pub struct MeshDistance {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    order: Vec<u32>,
    nodes: Vec<Node>,
}

impl MeshDistance {
    /// The tree of `mesh`'s triangles at `positions` (its rest positions or an example pose with
    /// the same vertex count).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `positions` does not have one entry per vertex,
    /// [`DeformError::NonFinitePosition`] for a NaN or infinite position.
    ///
    /// # Performance
    /// O(T log T).
    pub fn new(mesh: &TriangleMesh, positions: &[Vec3]) -> Result<Self> {
        if positions.len() != mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "positions of the distance tree",
                expected: mesh.vertex_count(),
                actual: positions.len(),
            });
        }
        if let Some(index) = positions.iter().position(|p| !p.is_finite()) {
            return Err(DeformError::NonFinitePosition {
                what: "vertex",
                index,
            });
        }
        let mut tree = Self {
            positions: positions.to_vec(),
            triangles: mesh.triangles().to_vec(),
            order: (0..mesh.triangle_count() as u32).collect(),
            nodes: Vec::with_capacity(2 * mesh.triangle_count() / LEAF_SIZE + 1),
        };
        let centroids: Vec<Vec3> = tree
            .triangles
            .iter()
            .map(|t| t.map(|i| tree.positions[i as usize]))
            .map(|[a, b, c]| (a + b + c) / 3.0)
            .collect();
        tree.build(0, tree.triangles.len(), &centroids);
        Ok(tree)
    }

    /// The positions the tree was built on.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    fn corners(&self, t: u32) -> [Vec3; 3] {
        self.triangles[t as usize].map(|i| self.positions[i as usize])
    }

    /// Builds the subtree over `order[start..end]` and returns its node index.
    fn build(&mut self, start: usize, end: usize, centroids: &[Vec3]) -> u32 {
        let index = self.nodes.len() as u32;
        let (mut mins, mut maxs) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        let (mut cmins, mut cmaxs) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        let mut area = DVec3::ZERO;
        let mut weighted = DVec3::ZERO;
        let mut area_sum = 0.0;
        for &t in &self.order[start..end] {
            let [a, b, c] = self.corners(t);
            mins = mins.min(a).min(b).min(c);
            maxs = maxs.max(a).max(b).max(c);
            let centroid = centroids[t as usize];
            cmins = cmins.min(centroid);
            cmaxs = cmaxs.max(centroid);
            let av = area_vector(a, b, c);
            area += av;
            area_sum += av.length();
            weighted += av.length() * centroid.as_dvec3();
        }
        let centre = if area_sum > 0.0 {
            weighted / area_sum
        } else {
            (0.5 * (mins + maxs)).as_dvec3()
        };
        let mut radius: f64 = 0.0;
        for &t in &self.order[start..end] {
            for p in self.corners(t) {
                radius = radius.max((p.as_dvec3() - centre).length());
            }
        }
        self.nodes.push(Node {
            mins,
            maxs,
            first_or_right: start as u32,
            count: (end - start) as u32,
            centre,
            radius,
            area,
        });
        if end - start <= LEAF_SIZE {
            return index;
        }
        let axis = (cmaxs - cmins).max_position();
        let mid = (start + end) / 2;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            centroids[a as usize][axis]
                .total_cmp(&centroids[b as usize][axis])
                .then(a.cmp(&b))
        });
        let _left = self.build(start, mid, centroids);
        let right = self.build(mid, end, centroids);
        let node = &mut self.nodes[index as usize];
        node.first_or_right = right;
        node.count = 0;
        index
    }

    /// The surface point nearest to `p`.
    ///
    /// # Performance
    /// Branch and bound over the tree: O(log T) nodes on typical meshes.
    pub fn closest_point(&self, p: Vec3) -> ClosestPoint {
        let mut best = ClosestPoint {
            point: p,
            triangle: u32::MAX,
            distance: f32::INFINITY,
        };
        let mut best_d2 = f32::INFINITY;
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(0);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if aabb_distance_squared(node.mins, node.maxs, p) >= best_d2 {
                continue;
            }
            if node.count > 0 {
                let first = node.first_or_right as usize;
                for &t in &self.order[first..first + node.count as usize] {
                    let [a, b, c] = self.corners(t);
                    let q = closest_on_triangle(p, a, b, c);
                    let d2 = (q - p).length_squared();
                    if d2 < best_d2 {
                        best_d2 = d2;
                        best = ClosestPoint {
                            point: q,
                            triangle: t,
                            distance: d2.sqrt(),
                        };
                    }
                }
            } else {
                let (left, right) = (n + 1, node.first_or_right);
                let dl = self.node_distance_squared(left, p);
                let dr = self.node_distance_squared(right, p);
                // Visit the nearer child first: push it last.
                if dl <= dr {
                    stack.push(right);
                    stack.push(left);
                } else {
                    stack.push(left);
                    stack.push(right);
                }
            }
        }
        best
    }

    fn node_distance_squared(&self, n: u32, p: Vec3) -> f32 {
        let node = &self.nodes[n as usize];
        aabb_distance_squared(node.mins, node.maxs, p)
    }

    /// The generalized winding number at `p`: 1 inside a closed outward-oriented surface, 0
    /// outside, fractional near holes.
    ///
    /// # Performance
    /// O(log T) far-field nodes plus the exact near field on typical meshes.
    pub fn winding_number(&self, p: Vec3) -> f32 {
        let q = p.as_dvec3();
        let mut omega = 0.0;
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(0);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            let y = node.centre - q;
            let r2 = y.length_squared();
            if r2 > (WINDING_BETA * node.radius).powi(2) {
                // Far field: the node's dipole term Ω ≈ A·y/|y|³.
                omega += node.area.dot(y) / (r2 * r2.sqrt());
            } else if node.count > 0 {
                let first = node.first_or_right as usize;
                for &t in &self.order[first..first + node.count as usize] {
                    let [a, b, c] = self.corners(t);
                    omega += solid_angle(a.as_dvec3() - q, b.as_dvec3() - q, c.as_dvec3() - q);
                }
            } else {
                stack.push(n + 1);
                stack.push(node.first_or_right);
            }
        }
        (omega / (4.0 * std::f64::consts::PI)) as f32
    }

    /// Signed distance to the surface: negative inside (winding number above ½).
    ///
    /// # Performance
    /// One [`Self::closest_point`] and one [`Self::winding_number`].
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        let d = self.closest_point(p).distance;
        if self.winding_number(p) > 0.5 { -d } else { d }
    }
}

/// Area vector (area × unit normal) of a triangle, in `f64`.
fn area_vector(a: Vec3, b: Vec3, c: Vec3) -> DVec3 {
    let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
    0.5 * (b - a).cross(c - a)
}

/// Signed solid angle of the triangle `(a, b, c)` (corners relative to the viewpoint), positive
/// when its counter-clockwise normal points away from the viewpoint (Van Oosterom & Strackee 1983).
fn solid_angle(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let det = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * det.atan2(den)
}

/// Squared distance from `p` to the box `[mins, maxs]` (0 inside).
fn aabb_distance_squared(mins: Vec3, maxs: Vec3, p: Vec3) -> f32 {
    let d = (mins - p).max(p - maxs).max(Vec3::ZERO);
    d.length_squared()
}

/// The point of triangle `(a, b, c)` nearest to `p` (Ericson, *Real-Time Collision Detection*
/// §5.1.5), robust to degenerate triangles.
pub(crate) fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    let q = a + ab * (vb / denom) + ac * (vc / denom);
    if q.is_finite() {
        q
    } else {
        // Degenerate (zero-area) triangle: the nearest point of its three edges.
        [(a, b), (b, c), (c, a)]
            .map(|(s, e)| closest_on_segment(p, s, e))
            .into_iter()
            .min_by(|x, y| {
                (*x - p)
                    .length_squared()
                    .total_cmp(&(*y - p).length_squared())
            })
            .unwrap_or(a)
    }
}

fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2 <= 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
}

/// Boundary edges (used by exactly one triangle) of a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundaryReport {
    /// Number of boundary edges.
    pub edges: usize,
    /// The first boundary edge found (by sorted vertex pair), if any.
    pub first: Option<(u32, u32)>,
    /// Total length of the boundary edges at rest.
    pub length: f32,
}

/// Finds the boundary edges of `mesh` (edges used by exactly one triangle).
///
/// # Performance
/// O(T log T) (sort of the 3T edges).
pub fn boundary_edges(mesh: &TriangleMesh) -> BoundaryReport {
    let mut edges: Vec<(u32, u32)> = mesh
        .triangles()
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    let mut report = BoundaryReport {
        edges: 0,
        first: None,
        length: 0.0,
    };
    let p = mesh.positions();
    let mut i = 0;
    while i < edges.len() {
        let mut j = i + 1;
        while j < edges.len() && edges[j] == edges[i] {
            j += 1;
        }
        if j - i == 1 {
            let (a, b) = edges[i];
            report.edges += 1;
            report.first.get_or_insert((a, b));
            report.length += (p[a as usize] - p[b as usize]).length();
        }
        i = j;
    }
    report
}

/// How to sample a [`SdfGrid`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct SdfOptions {
    /// Number of cells along the longest axis of the padded bounding box (2..=1024; the grid's
    /// point count is also capped by [`crate::limits::MAX_GRID_POINTS`], about 320 cells a side
    /// for a cubic box).
    pub resolution: usize,
    /// Padding added on every side, as a fraction of the longest extent (the authors use 0.1).
    pub padding: f32,
    /// Largest total length of boundary (open) edges tolerated, as a fraction of the
    /// bounding-box diagonal. Small holes only blur the winding number locally; beyond this the
    /// mesh is rejected with [`DeformError::OpenMesh`]. `0` accepts closed meshes only.
    pub max_open_boundary: f32,
}

impl Default for SdfOptions {
    fn default() -> Self {
        Self {
            resolution: 40,
            padding: 0.1,
            max_open_boundary: 0.1,
        }
    }
}

/// The signed distance of a closed mesh sampled on a regular grid (negative inside): what the
/// greedy sphere packing reads.
///
/// # Performance
/// Building costs one closest-point and one winding-number query per grid point:
/// O(N log T) for N grid points.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct SdfGrid {
    origin: Vec3,
    spacing: f32,
    dims: [usize; 3],
    values: Vec<f32>,
}

impl SdfGrid {
    /// Samples the signed distance of `mesh` at rest.
    ///
    /// # Errors
    /// [`DeformError::LimitExceeded`] for a grid of more than [`crate::limits::MAX_GRID_POINTS`]
    /// points; [`DeformError::InvalidParameter`] for a resolution outside `2..=1024` or a negative or
    /// non-finite padding or tolerance; [`DeformError::NonManifoldEdge`] or
    /// [`DeformError::InconsistentOrientation`] (a duplicated or flipped face, see
    /// [`TriangleMesh::check_oriented_manifold`]); [`DeformError::OpenMesh`] when the boundary edges are
    /// longer in total than `max_open_boundary` × diagonal; [`DeformError::SelfIntersectingMesh`]
    /// when a grid point has a winding number outside `[-0.5, 1.5]` (self-intersecting or
    /// inside-out surface; overlaps thinner than the grid spacing can go unnoticed).
    ///
    /// # Performance
    /// O(N log T) for N grid points, T triangles.
    pub fn from_mesh(mesh: &TriangleMesh, options: &SdfOptions) -> Result<Self> {
        if !(2..=1024).contains(&options.resolution) {
            return Err(DeformError::InvalidParameter {
                name: "resolution",
                value: options.resolution as f32,
                reason: "must be in 2..=1024 cells",
            });
        }
        for (name, value) in [
            ("padding", options.padding),
            ("max_open_boundary", options.max_open_boundary),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(DeformError::InvalidParameter {
                    name,
                    value,
                    reason: "must be finite and non-negative",
                });
            }
        }
        // A flipped or duplicated face changes the winding numbers by less than the
        // self-intersection test notices, yet the volume (and mass) by a lot.
        mesh.check_oriented_manifold()?;
        let (mins, maxs) = mesh.bounds();
        let diagonal = (maxs - mins).length();
        let boundary = boundary_edges(mesh);
        if boundary.length > options.max_open_boundary * diagonal {
            let (a, b) = boundary.first.unwrap_or((0, 0));
            return Err(DeformError::OpenMesh {
                boundary_edges: boundary.edges,
                a,
                b,
                length: boundary.length,
                tolerance: options.max_open_boundary * diagonal,
            });
        }
        let longest = (maxs - mins).max_element().max(f32::MIN_POSITIVE);
        let pad = options.padding * longest;
        let spacing = (longest + 2.0 * pad) / options.resolution as f32;
        let origin = mins - Vec3::splat(pad);
        let extent = maxs - mins + Vec3::splat(2.0 * pad);
        let dims = [0, 1, 2].map(|a| (extent[a] / spacing).ceil() as usize + 1);
        crate::limits::check_count(
            "signed-distance grid points",
            dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]),
            crate::limits::MAX_GRID_POINTS,
        )?;
        let tree = MeshDistance::new(mesh, mesh.positions())?;
        let mut grid = Self {
            origin,
            spacing,
            dims,
            values: vec![0.0; dims[0] * dims[1] * dims[2]],
        };
        for index in 0..grid.values.len() {
            let p = grid.point(index);
            let d = tree.closest_point(p).distance;
            let w = tree.winding_number(p);
            if !(-SELF_INTERSECTION_SLACK..=1.0 + SELF_INTERSECTION_SLACK).contains(&w) {
                return Err(DeformError::SelfIntersectingMesh {
                    grid_point: index,
                    x: p.x,
                    y: p.y,
                    z: p.z,
                    winding: w,
                });
            }
            grid.values[index] = if w > 0.5 { -d } else { d };
        }
        Ok(grid)
    }

    /// Position of grid point `(0, 0, 0)`.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Distance between neighbouring grid points.
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// Number of grid points along x, y and z.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// Signed distances, x fastest, then y, then z (negative inside).
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Linear index of grid point `(i, j, k)`.
    #[inline]
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Grid coordinates `(i, j, k)` of a linear index.
    #[inline]
    pub fn coords(&self, index: usize) -> [usize; 3] {
        let i = index % self.dims[0];
        let j = (index / self.dims[0]) % self.dims[1];
        let k = index / (self.dims[0] * self.dims[1]);
        [i, j, k]
    }

    /// Position of the grid point with linear index `index`.
    #[inline]
    pub fn point(&self, index: usize) -> Vec3 {
        let [i, j, k] = self.coords(index);
        self.origin + self.spacing * Vec3::new(i as f32, j as f32, k as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::tests_support::{box_mesh, uniform, uv_sphere};

    /// Exact signed distance of an axis-aligned box centred at the origin.
    fn box_sdf(half: Vec3, p: Vec3) -> f32 {
        let q = p.abs() - half;
        q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
    }

    #[test]
    fn box_grid_matches_closed_form() {
        let half = Vec3::new(1.0, 0.5, 0.25);
        let mesh = box_mesh(half);
        let grid = SdfGrid::from_mesh(&mesh, &SdfOptions::default()).unwrap();
        let mut inside = 0;
        for (index, &v) in grid.values().iter().enumerate() {
            let exact = box_sdf(half, grid.point(index));
            // Points on the faces may take either sign.
            if exact.abs() > 1e-4 {
                assert!((v - exact).abs() < 1e-4, "{index}: {v} vs {exact}");
            }
            inside += usize::from(v < 0.0);
        }
        assert!(inside > 0);
    }

    #[test]
    fn winding_number_is_one_inside_zero_outside() {
        let mesh = box_mesh(Vec3::new(1.0, 2.0, 0.5));
        let tree = MeshDistance::new(&mesh, mesh.positions()).unwrap();
        for (p, expected) in [
            (Vec3::ZERO, 1.0),
            (Vec3::new(0.9, -1.9, 0.4), 1.0),
            (Vec3::new(1.1, 0.0, 0.0), 0.0),
            (Vec3::new(30.0, 20.0, -10.0), 0.0),
        ] {
            assert!((tree.winding_number(p) - expected).abs() < 1e-3);
        }
    }

    #[test]
    fn far_field_winding_matches_exact_sum() {
        // A finely tessellated sphere, so that the tree has far-field nodes.
        let mesh = uv_sphere(1.0, 24, 48);
        let tree = MeshDistance::new(&mesh, mesh.positions()).unwrap();
        let mut state = 11u64;
        let mut worst: f64 = 0.0;
        for _ in 0..200 {
            let p = Vec3::new(
                uniform(&mut state, -1.5, 1.5),
                uniform(&mut state, -1.5, 1.5),
                uniform(&mut state, -1.5, 1.5),
            );
            let q = p.as_dvec3();
            let exact: f64 = (0..mesh.triangle_count())
                .map(|t| {
                    let [a, b, c] = mesh.corners(mesh.positions(), t);
                    solid_angle(a.as_dvec3() - q, b.as_dvec3() - q, c.as_dvec3() - q)
                })
                .sum::<f64>()
                / (4.0 * std::f64::consts::PI);
            worst = worst.max((tree.winding_number(p) as f64 - exact).abs());
        }
        assert!(worst < 0.03, "{worst}");
    }

    #[test]
    fn closest_point_matches_brute_force() {
        let mesh = uv_sphere(1.0, 12, 20);
        let tree = MeshDistance::new(&mesh, mesh.positions()).unwrap();
        let mut state = 7u64;
        for _ in 0..200 {
            let p = Vec3::new(
                uniform(&mut state, -2.0, 2.0),
                uniform(&mut state, -2.0, 2.0),
                uniform(&mut state, -2.0, 2.0),
            );
            let brute = (0..mesh.triangle_count())
                .map(|t| {
                    let [a, b, c] = mesh.corners(mesh.positions(), t);
                    (closest_on_triangle(p, a, b, c) - p).length()
                })
                .fold(f32::INFINITY, f32::min);
            assert!((tree.closest_point(p).distance - brute).abs() < 1e-6);
        }
    }

    #[test]
    fn open_mesh_beyond_tolerance_is_rejected() {
        let mesh = box_mesh(Vec3::ONE);
        let open =
            TriangleMesh::new(mesh.positions().to_vec(), mesh.triangles()[2..].to_vec()).unwrap();
        assert_eq!(boundary_edges(&open).edges, 4);
        assert!(matches!(
            SdfGrid::from_mesh(&open, &SdfOptions::default()),
            Err(DeformError::OpenMesh {
                boundary_edges: 4,
                ..
            })
        ));
        // The same hole within a generous tolerance is accepted.
        let lenient = SdfOptions {
            max_open_boundary: 10.0,
            ..SdfOptions::default()
        };
        assert!(SdfGrid::from_mesh(&open, &lenient).is_ok());
    }

    #[test]
    fn overlapping_boxes_are_self_intersecting() {
        let a = box_mesh(Vec3::ONE);
        let mut positions = a.positions().to_vec();
        positions.extend(a.positions().iter().map(|p| *p + Vec3::new(1.0, 0.0, 0.0)));
        let mut triangles = a.triangles().to_vec();
        triangles.extend(a.triangles().iter().map(|t| t.map(|i| i + 8)));
        let mesh = TriangleMesh::new(positions, triangles).unwrap();
        assert!(matches!(
            SdfGrid::from_mesh(&mesh, &SdfOptions::default()),
            Err(DeformError::SelfIntersectingMesh { .. })
        ));
    }

    #[test]
    fn inside_out_mesh_is_rejected() {
        let a = box_mesh(Vec3::ONE);
        let flipped = a.triangles().iter().map(|t| [t[0], t[2], t[1]]).collect();
        let mesh = TriangleMesh::new(a.positions().to_vec(), flipped).unwrap();
        assert!(matches!(
            SdfGrid::from_mesh(&mesh, &SdfOptions::default()),
            Err(DeformError::SelfIntersectingMesh { .. })
        ));
    }

    #[test]
    fn bad_options_are_rejected() {
        let mesh = box_mesh(Vec3::ONE);
        for options in [
            SdfOptions {
                resolution: 1,
                ..SdfOptions::default()
            },
            SdfOptions {
                padding: f32::NAN,
                ..SdfOptions::default()
            },
        ] {
            assert!(matches!(
                SdfGrid::from_mesh(&mesh, &options),
                Err(DeformError::InvalidParameter { .. })
            ));
        }
    }
}
