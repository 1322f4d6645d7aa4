//! Signed distance fields from smooth unions of primitives, meshed into closed 2-manifold triangle meshes (surface nets).
//!
//! The procedural assets of this crate are modelled as a tree of [`Sdf`] nodes (ellipsoids
//! and round cones blended with a polynomial smooth minimum) and turned into a coarse, closed,
//! consistently oriented triangle mesh by [`surface_nets`]:
//!
//! 1. sample the field on a regular grid;
//! 2. *manifold repair*: in every grid cell the inside corners and the outside corners must each
//!    be connected through cell edges; where not (two sheets of surface meeting in one cell, a
//!    diagonal face), the outside corner nearest to the surface is flipped inside. This only
//!    grows the shape, so it terminates, and it guarantees that the dual surface below is a
//!    2-manifold (one disc per cell, two quads per mesh edge);
//! 3. one vertex per cell crossed by the surface (mean of the edge crossings), one quad per
//!    grid edge crossed by the surface, oriented outwards, split along its shorter diagonal;
//! 4. relaxation: a few rounds of tangential Laplacian smoothing, each followed by a Newton
//!    projection back onto the zero level set, to even out the triangle shapes.
//!
//! [`ManifoldReport`] checks the result independently (every directed edge once and its reverse
//! once, every vertex a single fan, component count, Euler characteristic).

use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;

/// A primitive solid with a (bound of its) signed distance, negative inside.
///
/// # Performance
/// [`Primitive::distance`] is O(1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    /// An axis-aligned ellipsoid (approximate distance, exact on the surface, Quilez's bound).
    Ellipsoid {
        /// Centre.
        centre: Vec3,
        /// Semi-axes along x, y, z (all positive).
        radii: Vec3,
    },
    /// The convex hull of two spheres (a capsule with different end radii).
    RoundCone {
        /// First sphere centre.
        a: Vec3,
        /// Second sphere centre.
        b: Vec3,
        /// Radius at `a`.
        ra: f32,
        /// Radius at `b`.
        rb: f32,
    },
    /// A round cone squashed along `thin_axis` (unit) by `squash ∈ (0, 1]` about `a`: ears, fins.
    FlatRoundCone {
        /// First sphere centre.
        a: Vec3,
        /// Second sphere centre.
        b: Vec3,
        /// Radius at `a`.
        ra: f32,
        /// Radius at `b`.
        rb: f32,
        /// Unit axis along which the cone is squashed.
        thin_axis: Vec3,
        /// Thickness factor along `thin_axis`.
        squash: f32,
    },
}

impl Primitive {
    /// Signed distance (a bound for the ellipsoid and the squashed cone), negative inside.
    ///
    /// # Performance
    /// O(1).
    pub fn distance(&self, p: Vec3) -> f32 {
        match *self {
            Primitive::Ellipsoid { centre, radii } => {
                let q = p - centre;
                let k0 = (q / radii).length();
                let k1 = (q / (radii * radii)).length();
                if k1 <= f32::MIN_POSITIVE {
                    -radii.min_element()
                } else {
                    k0 * (k0 - 1.0) / k1
                }
            }
            Primitive::RoundCone { a, b, ra, rb } => round_cone(p, a, b, ra, rb),
            Primitive::FlatRoundCone {
                a,
                b,
                ra,
                rb,
                thin_axis,
                squash,
            } => {
                // Stretch space along the thin axis, evaluate, scale back (a distance bound).
                let q = p - a;
                let along = q.dot(thin_axis);
                let stretched = a + q + thin_axis * along * (1.0 / squash - 1.0);
                round_cone(stretched, a, b, ra, rb) * squash
            }
        }
    }

    /// A box containing the primitive.
    ///
    /// # Performance
    /// O(1).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            Primitive::Ellipsoid { centre, radii } => (centre - radii, centre + radii),
            Primitive::RoundCone { a, b, ra, rb }
            | Primitive::FlatRoundCone { a, b, ra, rb, .. } => {
                let r = Vec3::splat(ra.max(rb));
                (a.min(b) - r, a.max(b) + r)
            }
        }
    }
}

/// Quilez's exact distance to a round cone (requires `|ra − rb| < |b − a|`; otherwise the
/// larger sphere).
fn round_cone(p: Vec3, a: Vec3, b: Vec3, ra: f32, rb: f32) -> f32 {
    let ba = b - a;
    let l2 = ba.length_squared();
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    if a2 <= 0.0 {
        return if ra >= rb {
            (p - a).length() - ra
        } else {
            (p - b).length() - rb
        };
    }
    let il2 = 1.0 / l2;
    let pa = p - a;
    let y = pa.dot(ba);
    let z = y - l2;
    let x2 = (pa * l2 - ba * y).length_squared();
    let y2 = y * y * l2;
    let z2 = z * z * l2;
    let k = rr.signum() * rr * rr * x2;
    if z.signum() * a2 * z2 > k {
        return (x2 + z2).sqrt() * il2 - rb;
    }
    if y.signum() * a2 * y2 < k {
        return (x2 + y2).sqrt() * il2 - ra;
    }
    ((x2 * a2 * il2).sqrt() + y * rr) * il2 - ra
}

/// Polynomial smooth minimum with blend radius `k` (Quilez): equals `min(a, b)` when
/// `|a − b| ≥ k`, and is at most `min(a, b)` everywhere, so a smooth union contains its parts.
///
/// # Performance
/// O(1).
#[inline]
pub fn smooth_min(a: f32, b: f32, k: f32) -> f32 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

/// A signed distance field: a primitive or a smooth union of subtrees.
///
/// # Performance
/// [`Sdf::distance`] is O(primitives).
#[derive(Clone, Debug, PartialEq)]
pub enum Sdf {
    /// One primitive.
    Primitive(Primitive),
    /// `smooth_min` of the children, folded left to right with blend radius `k`.
    SmoothUnion {
        /// Blend radius.
        k: f32,
        /// The blended parts.
        children: Vec<Sdf>,
    },
}

impl Sdf {
    /// The field at `p` (negative inside).
    ///
    /// # Performance
    /// O(primitives).
    pub fn distance(&self, p: Vec3) -> f32 {
        match self {
            Sdf::Primitive(prim) => prim.distance(p),
            Sdf::SmoothUnion { k, children } => children
                .iter()
                .map(|c| c.distance(p))
                .reduce(|a, b| smooth_min(a, b, *k))
                .unwrap_or(f32::INFINITY),
        }
    }

    /// A box containing the zero level set (primitive boxes; smooth unions only grow a shape
    /// where parts are within `k` of each other, so the box is padded by the largest `k`).
    ///
    /// # Performance
    /// O(primitives).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match self {
            Sdf::Primitive(prim) => prim.bounds(),
            Sdf::SmoothUnion { k, children } => {
                let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
                for c in children {
                    let (a, b) = c.bounds();
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
                (lo - Vec3::splat(*k), hi + Vec3::splat(*k))
            }
        }
    }
}

/// Central-difference gradient of `f` with step `h`.
///
/// # Performance
/// Six evaluations of `f`.
#[inline]
pub fn gradient(f: &impl Fn(Vec3) -> f32, p: Vec3, h: f32) -> Vec3 {
    let d = |e: Vec3| f(p + e * h) - f(p - e * h);
    Vec3::new(d(Vec3::X), d(Vec3::Y), d(Vec3::Z)) / (2.0 * h)
}

/// Options of [`surface_nets`].
///
/// # Performance
/// Plain data (see [`surface_nets`] for costs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceNetsOptions {
    /// Grid spacing (world units).
    pub cell: f32,
    /// Rounds of tangential smoothing + reprojection.
    pub relax_iterations: usize,
    /// Smoothing step in `(0, 1]`.
    pub relax_step: f32,
}

impl SurfaceNetsOptions {
    /// Spacing `cell`, 6 relaxation rounds of step 0.5.
    ///
    /// # Performance
    /// O(1).
    pub fn new(cell: f32) -> Self {
        Self {
            cell,
            relax_iterations: 6,
            relax_step: 0.5,
        }
    }
}

/// Largest number of grid samples [`surface_nets`] accepts (memory guard).
pub const MAX_GRID_SAMPLES: usize = 64 << 20;

/// Meshes the zero level set of `f` inside `[mins, maxs]` into a closed, consistently
/// oriented 2-manifold triangle mesh (see the module docs for the algorithm).
///
/// `f` must be positive on the boundary of the box (the grid is padded by three cells beyond it).
///
/// # Errors
/// [`DeformError::InvalidParameter`] for a non-positive or non-finite cell size, a box too large
/// for [`MAX_GRID_SAMPLES`], or a shape that reaches the padded grid boundary;
/// [`DeformError::EmptyMesh`] when the level set does not cross the grid; errors of
/// [`TriangleMesh::new`] should a triangle degenerate.
///
/// # Performance
/// O(grid samples · cost of `f`) for sampling, O(surface cells · relaxation rounds · cost of `f`)
/// for the rest.
pub fn surface_nets(
    f: &impl Fn(Vec3) -> f32,
    mins: Vec3,
    maxs: Vec3,
    options: SurfaceNetsOptions,
) -> Result<TriangleMesh> {
    let h = options.cell;
    if !(h.is_finite() && h > 0.0) {
        return Err(DeformError::InvalidParameter {
            name: "cell",
            value: h,
            reason: "the grid spacing must be finite and positive",
        });
    }
    const PAD: f32 = 3.0;
    let origin = mins - Vec3::splat(PAD * h);
    let span = (maxs - mins) / h + Vec3::splat(2.0 * PAD + 1.0);
    if !span.is_finite() || span.min_element() < 1.0 {
        return Err(DeformError::InvalidParameter {
            name: "cell",
            value: h,
            reason: "the box must be finite with maxs ≥ mins",
        });
    }
    let dims = [
        span.x.ceil() as usize,
        span.y.ceil() as usize,
        span.z.ceil() as usize,
    ];
    let samples = dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
    if samples > MAX_GRID_SAMPLES {
        return Err(DeformError::InvalidParameter {
            name: "cell",
            value: h,
            reason: "too many grid samples for this box (see MAX_GRID_SAMPLES)",
        });
    }
    let grid = Grid { origin, h, dims };
    let values: Vec<f32> = (0..samples).map(|i| f(grid.point(i))).collect();
    let mut inside: Vec<bool> = values.iter().map(|&v| v < 0.0).collect();
    repair_manifold(&grid, &values, &mut inside);
    if grid.touches_boundary(&inside) {
        return Err(DeformError::InvalidParameter {
            name: "maxs - mins",
            value: (maxs - mins).max_element(),
            reason: "the shape reaches the boundary of the sampling box",
        });
    }
    let (mut positions, triangles) = grid.extract(&values, &inside);
    if triangles.is_empty() {
        return Err(DeformError::EmptyMesh {
            vertices: positions.len(),
            triangles: 0,
        });
    }
    relax(f, &mut positions, &triangles, options);
    TriangleMesh::new(positions, triangles)
}

/// Calls [`surface_nets`] with cell sizes adjusted (the triangle count scales like `1 / cell²`)
/// until the count is within `tolerance` (relative) of `target`, at most `max_attempts` times;
/// returns the closest mesh found and its cell size.
///
/// # Errors
/// As [`surface_nets`]; [`DeformError::InvalidParameter`] for a zero target.
///
/// # Performance
/// Up to `max_attempts` calls of [`surface_nets`].
pub fn surface_nets_with_target(
    f: &impl Fn(Vec3) -> f32,
    mins: Vec3,
    maxs: Vec3,
    target: usize,
    initial: SurfaceNetsOptions,
    tolerance: f32,
    max_attempts: usize,
) -> Result<(TriangleMesh, f32)> {
    if target == 0 {
        return Err(DeformError::InvalidParameter {
            name: "target",
            value: 0.0,
            reason: "the triangle target must be positive",
        });
    }
    let mut options = initial;
    let mut best: Option<(TriangleMesh, f32, f32)> = None;
    for _ in 0..max_attempts.max(1) {
        let mesh = surface_nets(f, mins, maxs, options)?;
        let ratio = mesh.triangle_count() as f32 / target as f32;
        let error = (ratio - 1.0).abs();
        let next_cell = options.cell * ratio.sqrt();
        if best.as_ref().is_none_or(|b| error < b.2) {
            best = Some((mesh, options.cell, error));
        }
        if error <= tolerance {
            break;
        }
        options.cell = next_cell;
    }
    best.map(|(m, c, _)| (m, c)).ok_or(DeformError::Empty {
        what: "surface nets attempts",
    })
}

/// The sampling grid: sample `(i, j, k)` sits at `origin + h (i, j, k)`.
struct Grid {
    origin: Vec3,
    h: f32,
    dims: [usize; 3],
}

/// For each of the 256 inside/outside patterns of a cell's corners (bit c = corner c inside,
/// corner c = x + 2y + 4z), whether inside and outside corners are each connected through
/// cell edges (so the surface in the cell is a single disc, or absent).
fn cell_pattern_ok() -> [bool; 256] {
    let mut ok = [false; 256];
    for (pattern, entry) in ok.iter_mut().enumerate() {
        let connected = |set: u32| -> bool {
            if set == 0 {
                return true;
            }
            let start = set.trailing_zeros();
            let mut seen = 1u32 << start;
            let mut stack = vec![start];
            while let Some(c) = stack.pop() {
                for bit in [1, 2, 4] {
                    let n = c ^ bit;
                    if set & (1 << n) != 0 && seen & (1 << n) == 0 {
                        seen |= 1 << n;
                        stack.push(n);
                    }
                }
            }
            seen == set
        };
        let p = pattern as u32;
        *entry = connected(p) && connected(!p & 0xff);
    }
    ok
}

impl Grid {
    #[inline]
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    #[inline]
    fn coords(&self, s: usize) -> [usize; 3] {
        let i = s % self.dims[0];
        let j = (s / self.dims[0]) % self.dims[1];
        [i, j, s / (self.dims[0] * self.dims[1])]
    }

    #[inline]
    fn point(&self, s: usize) -> Vec3 {
        let [i, j, k] = self.coords(s);
        self.origin + self.h * Vec3::new(i as f32, j as f32, k as f32)
    }

    /// Sample index of corner `c` of the cell whose lowest corner is sample `s`.
    #[inline]
    fn corner(&self, s: usize, c: usize) -> usize {
        s + (c & 1) + ((c >> 1) & 1) * self.dims[0] + ((c >> 2) & 1) * self.dims[0] * self.dims[1]
    }

    fn cell_count(&self) -> [usize; 3] {
        self.dims.map(|d| d - 1)
    }

    /// Whether the cell at lowest corner `[i, j, k]` exists.
    #[inline]
    fn cell_exists(&self, [i, j, k]: [usize; 3]) -> bool {
        let c = self.cell_count();
        i < c[0] && j < c[1] && k < c[2]
    }

    fn touches_boundary(&self, inside: &[bool]) -> bool {
        inside.iter().enumerate().any(|(s, &x)| {
            x && {
                let c = self.coords(s);
                (0..3).any(|a| c[a] == 0 || c[a] + 1 == self.dims[a])
            }
        })
    }

    fn extract(&self, values: &[f32], inside: &[bool]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let eps = 1e-4 * self.h;
        let effective = |s: usize| {
            if inside[s] {
                values[s].min(-eps)
            } else {
                values[s].max(eps)
            }
        };
        let cells = self.cell_count();
        let cell_index = |[i, j, k]: [usize; 3]| i + cells[0] * (j + cells[1] * k);
        let mut vertex_of_cell = vec![u32::MAX; cells[0] * cells[1] * cells[2]];
        let mut positions = Vec::new();
        const EDGES: [(usize, usize); 12] = [
            (0, 1),
            (2, 3),
            (4, 5),
            (6, 7),
            (0, 2),
            (1, 3),
            (4, 6),
            (5, 7),
            (0, 4),
            (1, 5),
            (2, 6),
            (3, 7),
        ];
        for k in 0..cells[2] {
            for j in 0..cells[1] {
                for i in 0..cells[0] {
                    let s = self.index(i, j, k);
                    let mask =
                        (0..8).fold(0u8, |m, c| m | ((inside[self.corner(s, c)] as u8) << c));
                    if mask == 0 || mask == 0xff {
                        continue;
                    }
                    let mut sum = Vec3::ZERO;
                    let mut n = 0.0;
                    for (a, b) in EDGES {
                        let (sa, sb) = (self.corner(s, a), self.corner(s, b));
                        if inside[sa] != inside[sb] {
                            let (fa, fb) = (effective(sa), effective(sb));
                            let t = fa / (fa - fb);
                            sum += self.point(sa).lerp(self.point(sb), t);
                            n += 1.0;
                        }
                    }
                    vertex_of_cell[cell_index([i, j, k])] = positions.len() as u32;
                    positions.push(sum / n);
                }
            }
        }
        let mut triangles = Vec::new();
        for s in 0..values.len() {
            let c = self.coords(s);
            for axis in 0..3 {
                if c[axis] + 1 >= self.dims[axis] {
                    continue;
                }
                let step = [1, self.dims[0], self.dims[0] * self.dims[1]][axis];
                let t = s + step;
                if inside[s] == inside[t] {
                    continue;
                }
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                if c[u] == 0 || c[v] == 0 {
                    continue; // cannot happen: the boundary layer is outside
                }
                let cell = |du: usize, dv: usize| {
                    let mut q = c;
                    q[u] = q[u] + du - 1;
                    q[v] = q[v] + dv - 1;
                    debug_assert!(self.cell_exists(q));
                    vertex_of_cell[cell_index(q)]
                };
                // Counter-clockwise in the (u, v) plane, normal +axis (u × v = axis).
                let mut quad = [cell(0, 0), cell(1, 0), cell(1, 1), cell(0, 1)];
                if !inside[s] {
                    quad.reverse();
                }
                let p = quad.map(|q| positions[q as usize]);
                if (p[0] - p[2]).length_squared() <= (p[1] - p[3]).length_squared() {
                    triangles.push([quad[0], quad[1], quad[2]]);
                    triangles.push([quad[0], quad[2], quad[3]]);
                } else {
                    triangles.push([quad[0], quad[1], quad[3]]);
                    triangles.push([quad[1], quad[2], quad[3]]);
                }
            }
        }
        (positions, triangles)
    }
}

/// Flips outside samples inside until every cell pattern is manifold (see the module docs).
fn repair_manifold(grid: &Grid, values: &[f32], inside: &mut [bool]) {
    let ok = cell_pattern_ok();
    let cells = grid.cell_count();
    let mut queue: Vec<usize> = Vec::new();
    for k in 0..cells[2] {
        for j in 0..cells[1] {
            for i in 0..cells[0] {
                queue.push(grid.index(i, j, k));
            }
        }
    }
    while let Some(s) = queue.pop() {
        let mask = (0..8).fold(0usize, |m, c| {
            m | ((inside[grid.corner(s, c)] as usize) << c)
        });
        if ok[mask] {
            continue;
        }
        let Some(flip) = (0..8)
            .map(|c| grid.corner(s, c))
            .filter(|&x| !inside[x])
            .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        else {
            continue;
        };
        inside[flip] = true;
        // Re-check the cells that have the flipped sample as a corner.
        let c = grid.coords(flip);
        for dz in 0..2 {
            for dy in 0..2 {
                for dx in 0..2 {
                    if c[0] >= dx && c[1] >= dy && c[2] >= dz {
                        let q = [c[0] - dx, c[1] - dy, c[2] - dz];
                        if grid.cell_exists(q) {
                            queue.push(grid.index(q[0], q[1], q[2]));
                        }
                    }
                }
            }
        }
    }
}

/// Vertex neighbourhoods (CSR) of a triangle mesh.
///
/// # Performance
/// O(T log T) (sort of the directed edges).
pub fn vertex_neighbours(vertex_count: usize, triangles: &[[u32; 3]]) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(6 * triangles.len());
    for t in triangles {
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            pairs.push((a, b));
            pairs.push((b, a));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut offsets = vec![0u32; vertex_count + 1];
    for &(a, _) in &pairs {
        offsets[a as usize + 1] += 1;
    }
    for v in 0..vertex_count {
        offsets[v + 1] += offsets[v];
    }
    (offsets, pairs.into_iter().map(|(_, b)| b).collect())
}

/// Tangential Laplacian smoothing, each round followed by two Newton steps onto `f = 0`.
/// A round that would flip a triangle against the field's gradient is undone for that round's
/// offending vertices.
fn relax(
    f: &impl Fn(Vec3) -> f32,
    positions: &mut [Vec3],
    triangles: &[[u32; 3]],
    options: SurfaceNetsOptions,
) {
    let (offsets, neighbours) = vertex_neighbours(positions.len(), triangles);
    let h = options.cell;
    let project = |mut q: Vec3| {
        for _ in 0..2 {
            let g = gradient(f, q, 0.05 * h);
            let g2 = g.length_squared();
            if g2 > 1e-12 {
                let step = g * (f(q) / g2);
                // Never jump more than half a cell (thin features).
                q -= step.clamp_length_max(0.5 * h);
            }
        }
        q
    };
    for p in positions.iter_mut() {
        *p = project(*p);
    }
    let mut next = positions.to_vec();
    for _ in 0..options.relax_iterations {
        for v in 0..positions.len() {
            let nb = &neighbours[offsets[v] as usize..offsets[v + 1] as usize];
            if nb.is_empty() {
                continue;
            }
            let p = positions[v];
            let c = nb.iter().map(|&n| positions[n as usize]).sum::<Vec3>() / nb.len() as f32;
            let n = gradient(f, p, 0.05 * h).normalize_or_zero();
            let d = c - p;
            next[v] = project(p + options.relax_step * (d - n * d.dot(n)));
        }
        // Keep triangles facing along the gradient: undo moves around flipped triangles.
        for t in triangles {
            let [a, b, c] = t.map(|i| next[i as usize]);
            let normal = (b - a).cross(c - a);
            let g = gradient(f, (a + b + c) / 3.0, 0.05 * h);
            if normal.dot(g) <= 0.0 {
                for &i in t {
                    next[i as usize] = positions[i as usize];
                }
            }
        }
        positions.copy_from_slice(&next);
    }
}

/// A symmetric 4×4 error quadric (Garland & Heckbert 1997), upper triangle in f64.
#[derive(Clone, Copy, Debug, Default)]
struct Quadric([f64; 10]);

impl Quadric {
    /// `w · (n·x + d)²` for the plane `n·x + d = 0`.
    fn plane(n: Vec3, d: f32, w: f64) -> Self {
        let [a, b, c, d] = [n.x as f64, n.y as f64, n.z as f64, d as f64];
        Self(
            [
                a * a,
                a * b,
                a * c,
                a * d,
                b * b,
                b * c,
                b * d,
                c * c,
                c * d,
                d * d,
            ]
            .map(|x| x * w),
        )
    }

    fn add(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }

    fn eval(&self, p: Vec3) -> f64 {
        let [x, y, z] = [p.x as f64, p.y as f64, p.z as f64];
        let q = &self.0;
        (q[0] * x * x
            + q[4] * y * y
            + q[7] * z * z
            + q[9]
            + 2.0 * (q[1] * x * y + q[2] * x * z + q[3] * x + q[5] * y * z + q[6] * y + q[8] * z))
            .max(0.0)
    }
}

/// Simplifies a closed 2-manifold to about `target` triangles by quadric-error half-edge
/// collapses (Garland & Heckbert 1997; a vertex merges into a neighbour and keeps that
/// neighbour's position, so kept vertices stay exactly on the input surface).
///
/// A collapse is refused when it would break the manifold (link condition: the edge's two
/// endpoints share exactly its two opposite vertices; no vertex drops below valence 3), turn a
/// triangle over (normal change above ~70°) or create a sliver (area below 2 % of the squared
/// longest edge). The result may stop above `target` when no legal collapse is left.
///
/// # Errors
/// [`DeformError::InvalidParameter`] for `target < 4`; errors of [`TriangleMesh::new`].
///
/// # Performance
/// O(T log T) with a lazily invalidated priority queue.
pub fn decimate(mesh: &TriangleMesh, target: usize) -> Result<TriangleMesh> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if target < 4 {
        return Err(DeformError::InvalidParameter {
            name: "target",
            value: target as f32,
            reason: "a closed surface needs at least 4 triangles",
        });
    }
    let pos = mesh.positions();
    let mut tris: Vec<[u32; 3]> = mesh.triangles().to_vec();
    let mut face_alive = vec![true; tris.len()];
    let mut faces_of: Vec<Vec<u32>> = vec![Vec::new(); pos.len()];
    let mut quadric = vec![Quadric::default(); pos.len()];
    for (t, tri) in tris.iter().enumerate() {
        let [a, b, c] = tri.map(|i| pos[i as usize]);
        let cross = (b - a).cross(c - a);
        let area = 0.5 * cross.length() as f64;
        let n = cross.normalize_or_zero();
        let q = Quadric::plane(n, -n.dot(a), area);
        for &v in tri {
            faces_of[v as usize].push(t as u32);
            quadric[v as usize].add(&q);
        }
    }
    let mut vertex_alive = vec![true; pos.len()];
    let mut version = vec![0u32; pos.len()];
    // Entry: (cost bits, keep, remove, version of keep, version of remove); non-negative f64
    // costs order like their bit patterns.
    type Entry = Reverse<(u64, u32, u32, u32, u32)>;
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    let push =
        |heap: &mut BinaryHeap<Entry>, quadric: &[Quadric], version: &[u32], a: u32, b: u32| {
            let mut q = quadric[a as usize];
            q.add(&quadric[b as usize]);
            let (ca, cb) = (q.eval(pos[a as usize]), q.eval(pos[b as usize]));
            let (keep, remove, cost) = if ca <= cb { (a, b, ca) } else { (b, a, cb) };
            heap.push(Reverse((
                cost.to_bits(),
                keep,
                remove,
                version[keep as usize],
                version[remove as usize],
            )));
        };
    let neighbours = |faces_of: &[Vec<u32>], tris: &[[u32; 3]], v: u32| {
        let mut n: Vec<u32> = faces_of[v as usize]
            .iter()
            .flat_map(|&f| tris[f as usize])
            .filter(|&x| x != v)
            .collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    for tri in &tris {
        for e in 0..3 {
            let (a, b) = (tri[e], tri[(e + 1) % 3]);
            if a < b {
                push(&mut heap, &quadric, &version, a, b);
            }
        }
    }
    let mut count = tris.len();
    while count > target {
        let Some(Reverse((_, keep, remove, vk, vr))) = heap.pop() else {
            break;
        };
        let (k, r) = (keep as usize, remove as usize);
        if !vertex_alive[k] || !vertex_alive[r] || version[k] != vk || version[r] != vr {
            continue;
        }
        let shared: Vec<u32> = faces_of[r]
            .iter()
            .copied()
            .filter(|&f| tris[f as usize].contains(&keep))
            .collect();
        if shared.len() != 2 {
            continue;
        }
        let nk = neighbours(&faces_of, &tris, keep);
        let nr = neighbours(&faces_of, &tris, remove);
        let common: Vec<u32> = nk.iter().copied().filter(|x| nr.contains(x)).collect();
        let opposite: Vec<u32> = shared
            .iter()
            .map(|&f| {
                tris[f as usize]
                    .into_iter()
                    .find(|&x| x != keep && x != remove)
                    .unwrap_or(u32::MAX)
            })
            .collect();
        if common.len() != 2 || !opposite.iter().all(|o| common.contains(o)) {
            continue;
        }
        if opposite.iter().any(|&o| faces_of[o as usize].len() <= 3) || nk.len() + nr.len() - 4 < 3
        {
            continue;
        }
        // Geometry checks on the faces that move.
        let p_keep = pos[k];
        let legal = faces_of[r]
            .iter()
            .filter(|f| !shared.contains(f))
            .all(|&f| {
                let tri = tris[f as usize];
                let [a, b, c] = tri.map(|i| pos[i as usize]);
                let old_n = (b - a).cross(c - a).normalize_or_zero();
                let [a2, b2, c2] = tri.map(|i| if i == remove { p_keep } else { pos[i as usize] });
                let cross = (b2 - a2).cross(c2 - a2);
                let longest = (b2 - a2)
                    .length_squared()
                    .max((c2 - b2).length_squared())
                    .max((a2 - c2).length_squared());
                cross.normalize_or_zero().dot(old_n) > 0.35 && 0.5 * cross.length() > 0.02 * longest
            });
        if !legal {
            continue;
        }
        // Collapse `remove` into `keep`.
        for &f in &shared {
            face_alive[f as usize] = false;
            for v in tris[f as usize] {
                faces_of[v as usize].retain(|&x| x != f);
            }
        }
        count -= 2;
        let moved = std::mem::take(&mut faces_of[r]);
        for f in moved {
            for v in tris[f as usize].iter_mut() {
                if *v == remove {
                    *v = keep;
                }
            }
            faces_of[k].push(f);
        }
        vertex_alive[r] = false;
        let qr = quadric[r];
        quadric[k].add(&qr);
        version[k] += 1;
        for x in neighbours(&faces_of, &tris, keep) {
            push(&mut heap, &quadric, &version, keep, x);
        }
    }
    let mut new_index = vec![u32::MAX; pos.len()];
    let mut positions = Vec::new();
    for (v, &alive) in vertex_alive.iter().enumerate() {
        if alive && !faces_of[v].is_empty() {
            new_index[v] = positions.len() as u32;
            positions.push(pos[v]);
        }
    }
    let triangles = tris
        .iter()
        .zip(&face_alive)
        .filter(|(_, alive)| **alive)
        .map(|(t, _)| t.map(|i| new_index[i as usize]))
        .collect();
    TriangleMesh::new(positions, triangles)
}

/// Topological facts about a triangle mesh, computed independently of how it was built.
///
/// # Performance
/// Built in O(T log T) by [`ManifoldReport::of`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifoldReport {
    /// Vertices referenced by at least one triangle.
    pub used_vertices: usize,
    /// Distinct undirected edges.
    pub edges: usize,
    /// Undirected edges used by exactly one triangle.
    pub boundary_edges: usize,
    /// Undirected edges used by more than two triangles.
    pub non_manifold_edges: usize,
    /// Directed edges used twice (two triangles traverse an edge the same way).
    pub inconsistent_edges: usize,
    /// Vertices whose triangles form more than one fan.
    pub non_manifold_vertices: usize,
    /// Triangles with a repeated vertex index.
    pub repeated_index_triangles: usize,
    /// Connected components (through shared vertices).
    pub components: usize,
    /// `V − E + F` over the used vertices.
    pub euler_characteristic: i64,
}

impl ManifoldReport {
    /// Analyses `triangles` over `vertex_count` vertices (indices must be in range).
    ///
    /// # Errors
    /// [`DeformError::VertexIndexOutOfRange`].
    ///
    /// # Performance
    /// O(T log T).
    pub fn of(vertex_count: usize, triangles: &[[u32; 3]]) -> Result<Self> {
        for (triangle, t) in triangles.iter().enumerate() {
            if let Some(&index) = t.iter().find(|&&i| i as usize >= vertex_count) {
                return Err(DeformError::VertexIndexOutOfRange {
                    triangle,
                    index,
                    vertex_count,
                });
            }
        }
        let repeated_index_triangles = triangles
            .iter()
            .filter(|t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
            .count();
        let mut directed: Vec<(u32, u32)> = triangles
            .iter()
            .flat_map(|t| (0..3).map(move |e| (t[e], t[(e + 1) % 3])))
            .collect();
        directed.sort_unstable();
        let inconsistent_edges = directed.windows(2).filter(|w| w[0] == w[1]).count();
        let mut undirected: Vec<(u32, u32)> = directed
            .iter()
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .collect();
        undirected.sort_unstable();
        let (mut edges, mut boundary_edges, mut non_manifold_edges) = (0, 0, 0);
        let mut i = 0;
        while i < undirected.len() {
            let mut j = i + 1;
            while j < undirected.len() && undirected[j] == undirected[i] {
                j += 1;
            }
            edges += 1;
            match j - i {
                1 => boundary_edges += 1,
                2 => {}
                _ => non_manifold_edges += 1,
            }
            i = j;
        }
        // Fans: around v, triangle (v, a, b) links a → b; a single cycle covers all of them.
        let mut corners: Vec<(u32, u32, u32)> = triangles
            .iter()
            .flat_map(|t| (0..3).map(move |c| (t[c], t[(c + 1) % 3], t[(c + 2) % 3])))
            .collect();
        corners.sort_unstable();
        let mut non_manifold_vertices = 0;
        let mut used_vertices = 0;
        let mut i = 0;
        while i < corners.len() {
            let mut j = i + 1;
            while j < corners.len() && corners[j].0 == corners[i].0 {
                j += 1;
            }
            used_vertices += 1;
            let fan = &corners[i..j];
            let mut visited = 1;
            let mut at = fan[0].2;
            while at != fan[0].1 && visited <= fan.len() {
                match fan.iter().find(|c| c.1 == at) {
                    Some(c) => {
                        at = c.2;
                        visited += 1;
                    }
                    None => break,
                }
            }
            if visited != fan.len() || at != fan[0].1 {
                non_manifold_vertices += 1;
            }
            i = j;
        }
        // Components with union–find.
        let mut parent: Vec<u32> = (0..vertex_count as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for t in triangles {
            for e in 1..3 {
                let (a, b) = (find(&mut parent, t[0]), find(&mut parent, t[e]));
                if a != b {
                    parent[a as usize] = b;
                }
            }
        }
        let mut roots: Vec<u32> = triangles.iter().map(|t| find(&mut parent, t[0])).collect();
        roots.sort_unstable();
        roots.dedup();
        Ok(Self {
            used_vertices,
            edges,
            boundary_edges,
            non_manifold_edges,
            inconsistent_edges,
            non_manifold_vertices,
            repeated_index_triangles,
            components: roots.len(),
            euler_characteristic: used_vertices as i64 - edges as i64 + triangles.len() as i64,
        })
    }

    /// True for a closed, consistently oriented 2-manifold (every edge in exactly two triangles
    /// traversing it in opposite directions, every vertex a single fan, no repeated indices).
    ///
    /// # Performance
    /// O(1).
    pub fn is_closed_manifold(&self) -> bool {
        self.boundary_edges == 0
            && self.non_manifold_edges == 0
            && self.inconsistent_edges == 0
            && self.non_manifold_vertices == 0
            && self.repeated_index_triangles == 0
    }

    /// Genus of a closed orientable surface with one component, `(2 − χ) / 2`.
    ///
    /// # Performance
    /// O(1).
    pub fn genus(&self) -> i64 {
        (2 * self.components as i64 - self.euler_characteristic) / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sphere(r: f32) -> impl Fn(Vec3) -> f32 {
        move |p: Vec3| p.length() - r
    }

    #[test]
    fn round_cone_matches_capsule_and_sphere_closed_forms() {
        let (a, b) = (Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0));
        let cone = Primitive::RoundCone {
            a,
            b,
            ra: 0.2,
            rb: 0.2,
        };
        // Capsule: distance to the segment minus the radius.
        for p in [
            Vec3::new(0.5, 0.7, 0.0),
            Vec3::new(-0.4, 0.3, 0.0),
            Vec3::new(1.3, 0.0, 0.4),
        ] {
            let seg = p - a - (b - a) * (p - a).dot(b - a).clamp(0.0, 1.0);
            assert!((cone.distance(p) - (seg.length() - 0.2)).abs() < 1e-5);
        }
        let tip = Primitive::RoundCone {
            a,
            b,
            ra: 0.5,
            rb: 0.1,
        };
        assert!((tip.distance(Vec3::new(-1.0, 0.0, 0.0)) - 0.5).abs() < 1e-5);
        assert!((tip.distance(Vec3::new(1.5, 0.0, 0.0)) - 0.4).abs() < 1e-5);
        let e = Primitive::Ellipsoid {
            centre: Vec3::ONE,
            radii: Vec3::new(1.0, 2.0, 3.0),
        };
        assert!(e.distance(Vec3::new(1.0, 3.0, 1.0)).abs() < 1e-5);
        assert!(e.distance(Vec3::ONE) < 0.0);
        assert_eq!(smooth_min(0.0, 1.0, 0.5), 0.0);
        assert!(smooth_min(0.2, 0.2, 0.5) < 0.2);
    }

    #[test]
    fn sphere_meshes_to_a_closed_genus_zero_manifold_on_the_surface() {
        let f = sphere(1.0);
        let mesh = surface_nets(
            &f,
            Vec3::splat(-1.0),
            Vec3::splat(1.0),
            SurfaceNetsOptions::new(0.2),
        )
        .unwrap();
        let report = ManifoldReport::of(mesh.vertex_count(), mesh.triangles()).unwrap();
        assert!(report.is_closed_manifold(), "{report:?}");
        assert_eq!(report.components, 1);
        assert_eq!(report.euler_characteristic, 2);
        for p in mesh.positions() {
            assert!((p.length() - 1.0).abs() < 1e-3, "{p}");
        }
        // Outward orientation: the signed volume is close to 4π/3.
        let volume: f32 = mesh
            .triangles()
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.positions()[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
        assert!((volume - 4.18879).abs() < 0.25, "{volume}");
    }

    #[test]
    fn touching_spheres_are_repaired_into_a_manifold() {
        // Two spheres touching at a point and a thin neck: raw surface nets would pinch there.
        let f = |p: Vec3| {
            let a = (p - Vec3::new(-0.5, 0.0, 0.0)).length() - 0.5;
            let b = (p - Vec3::new(0.5, 0.0, 0.0)).length() - 0.5;
            let c = (p - Vec3::new(0.0, 0.93, 0.0)).length() - 0.4;
            a.min(b).min(c)
        };
        for cell in [0.07, 0.1, 0.13, 0.17] {
            let mesh = surface_nets(
                &f,
                Vec3::new(-1.0, -0.5, -0.5),
                Vec3::new(1.0, 1.4, 0.5),
                SurfaceNetsOptions::new(cell),
            )
            .unwrap();
            let report = ManifoldReport::of(mesh.vertex_count(), mesh.triangles()).unwrap();
            assert!(report.is_closed_manifold(), "cell {cell}: {report:?}");
        }
    }

    #[test]
    fn diagonal_and_corner_contacts_are_repaired() {
        // Blobs around single grid samples that touch only along a cell face diagonal or a cell
        // diagonal: without repair, surface nets gives non-manifold edges and vertices there.
        let h = 0.1;
        for (other, components) in [
            (Vec3::new(h, h, 0.0), 1),
            (Vec3::new(h, h, h), 1),
            (Vec3::new(2.0 * h, h, 0.0), 2),
        ] {
            let f = move |p: Vec3| (p.length() - 0.3 * h).min((p - other).length() - 0.3 * h);
            let mesh = surface_nets(
                &f,
                Vec3::splat(-2.0 * h),
                Vec3::splat(2.0 * h),
                SurfaceNetsOptions::new(h),
            )
            .unwrap();
            let report = ManifoldReport::of(mesh.vertex_count(), mesh.triangles()).unwrap();
            assert!(report.is_closed_manifold(), "{other}: {report:?}");
            assert_eq!(
                report.components, components,
                "{other}: repair joins touching blobs"
            );
        }
    }

    #[test]
    fn report_detects_open_pinched_and_flipped_meshes() {
        // A tetrahedron is closed; removing a face opens it; flipping a face breaks orientation.
        let tet = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];
        let r = ManifoldReport::of(4, &tet).unwrap();
        assert!(r.is_closed_manifold() && r.euler_characteristic == 2 && r.genus() == 0);
        let r = ManifoldReport::of(4, &tet[..3]).unwrap();
        assert_eq!(r.boundary_edges, 3);
        let mut flipped = tet;
        flipped[0] = [0, 1, 2];
        assert!(ManifoldReport::of(4, &flipped).unwrap().inconsistent_edges > 0);
        // Two tetrahedra sharing only vertex 0: closed edges, but vertex 0 has two fans.
        let two: Vec<[u32; 3]> = tet
            .iter()
            .copied()
            .chain(
                tet.iter()
                    .map(|t| t.map(|i| if i == 0 { 0 } else { i + 3 })),
            )
            .collect();
        let r = ManifoldReport::of(7, &two).unwrap();
        assert_eq!((r.boundary_edges, r.non_manifold_vertices), (0, 1));
        assert!(!r.is_closed_manifold());
        assert!(matches!(
            ManifoldReport::of(3, &tet),
            Err(DeformError::VertexIndexOutOfRange { index: 3, .. })
        ));
    }

    #[test]
    fn decimation_keeps_a_closed_manifold_on_the_surface() {
        let f = |p: Vec3| {
            let body = (p / Vec3::new(1.0, 0.5, 0.5)).length() - 1.0;
            let arm = Primitive::RoundCone {
                a: Vec3::ZERO,
                b: Vec3::new(0.0, 1.2, 0.0),
                ra: 0.2,
                rb: 0.1,
            };
            smooth_min(body * 0.5, arm.distance(p), 0.1)
        };
        let fine = surface_nets(
            &f,
            Vec3::new(-1.0, -0.5, -0.5),
            Vec3::new(1.0, 1.3, 0.5),
            SurfaceNetsOptions::new(0.05),
        )
        .unwrap();
        for target in [fine.triangle_count() / 3, 300, 60] {
            let coarse = decimate(&fine, target).unwrap();
            let report = ManifoldReport::of(coarse.vertex_count(), coarse.triangles()).unwrap();
            assert!(report.is_closed_manifold(), "{target}: {report:?}");
            assert_eq!((report.components, report.genus()), (1, 0));
            let n = coarse.triangle_count();
            assert!(
                n <= target + 1 && n as f32 >= 0.8 * target as f32,
                "{target}: {n}"
            );
            // Half-edge collapses keep original vertices: every one is on the input surface.
            for p in coarse.positions() {
                assert!(fine.positions().contains(p));
            }
        }
        assert!(matches!(
            decimate(&fine, 2),
            Err(DeformError::InvalidParameter { name: "target", .. })
        ));
    }

    #[test]
    fn bad_parameters_give_typed_errors() {
        let f = sphere(1.0);
        let o = SurfaceNetsOptions::new(-1.0);
        assert!(matches!(
            surface_nets(&f, Vec3::splat(-1.0), Vec3::splat(1.0), o),
            Err(DeformError::InvalidParameter { name: "cell", .. })
        ));
        // The shape is larger than the box: it reaches the grid boundary.
        assert!(matches!(
            surface_nets(
                &f,
                Vec3::splat(-0.2),
                Vec3::splat(0.2),
                SurfaceNetsOptions::new(0.1)
            ),
            Err(DeformError::InvalidParameter { .. })
        ));
        // Nothing inside: empty.
        let far = |p: Vec3| p.length() + 1.0;
        assert!(matches!(
            surface_nets(
                &far,
                Vec3::splat(-1.0),
                Vec3::splat(1.0),
                SurfaceNetsOptions::new(0.2)
            ),
            Err(DeformError::EmptyMesh { .. })
        ));
    }
}
