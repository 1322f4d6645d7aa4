//! Loop subdivision as a governed deformation: control points are the governors, subdivision stencils the weights.

use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights, GovernedDeformation};
use crate::math::{Vec3, validate_positions};
use crate::mesh::TriangleMesh;

/// Loop subdivision (Loop 1987) of a control mesh, `levels` times, seen as a reduced deformation.
///
/// Every subdivided vertex is a fixed convex combination (its *stencil*) of the control points, so
/// with governors `Affine::constant(control point)` (`A = 0`, `t = point`) it is exactly
/// `p = Σ_k w_k (A_k p0 + t_k)`: moving the control points moves the fine mesh, and the O(m)
/// bounds of [`crate::bounds`] apply with m = control points touching a patch.
///
/// Rules, per level:
/// * interior vertex of valence n: `(1 − nβ) v + β Σ neighbours`, with **Loop's original**
///   `β(n) = (1/n) (5/8 − (3/8 + ¼ cos(2π/n))²)` (not Warren's simplification; both agree for
///   n = 3 and Loop's gives the better-behaved limit surface near extraordinary vertices);
/// * interior edge `ab` with opposite vertices `c`, `d`: `3/8 (a + b) + 1/8 (c + d)`;
/// * boundary edges are creases (cubic B-spline rules): edge point `½ (a + b)`, boundary vertex
///   `¾ v + ⅛ (b₁ + b₂)` from its two boundary neighbours, so open meshes (cloth) keep their
///   border curve; a vertex touching more than two boundary edges (two fans meeting at a point)
///   and a vertex used by no triangle stay fixed (a corner).
///
/// All stencil weights are positive and every row sums to one; stencils of successive levels
/// are composed into one sparse row per fine vertex over the control points.
///
/// # Performance
/// Building is O(fine vertices · stencil width) time and memory (stencils composed level by level
/// with a dense accumulator, so no quadratic merges); re-posing is O(control points) (the fine
/// vertices are evaluated by [`GovernedDeformation::deform_into`] in O(stencil entries)).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct LoopSubdivision {
    control: TriangleMesh,
    levels: u32,
    mesh: TriangleMesh,
    stencils: ConvexWeights,
    governors: Vec<Affine>,
}

/// The largest supported number of levels (each multiplies the triangle count by 4).
pub const MAX_LOOP_LEVELS: u32 = 8;

impl LoopSubdivision {
    /// Subdivides `control` `levels` times (0 gives the control mesh itself).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when `levels > MAX_LOOP_LEVELS` or the result would not
    /// fit in `u32` indices, [`DeformError::NonManifoldEdge`] for an edge shared by more than two
    /// triangles, [`DeformError::InconsistentOrientation`] when two triangles traverse their shared
    /// edge the same way, and the errors of [`TriangleMesh::new`] should a subdivided triangle be
    /// degenerate.
    ///
    /// # Performance
    /// O(fine vertices · stencil width + fine triangles · log) time; memory of the same order.
    pub fn new(control: TriangleMesh, levels: u32) -> Result<Self> {
        let fine_triangles = (control.triangle_count() as u64) << (2 * levels.min(31));
        if levels > MAX_LOOP_LEVELS || fine_triangles > u32::MAX as u64 / 2 {
            return Err(DeformError::InvalidParameter {
                name: "levels",
                value: levels as f32,
                reason: "at most MAX_LOOP_LEVELS levels, and fewer than 2^31 fine triangles",
            });
        }
        let n_control = control.vertex_count();
        let mut triangles = control.triangles().to_vec();
        let mut stencil = SparseRows::identity(n_control);
        let mut scratch = Accumulator::new(n_control);
        for _ in 0..levels {
            let step = subdivide_once(&triangles, stencil.row_count())?;
            stencil = step.local.compose(&stencil, &mut scratch);
            triangles = step.triangles;
        }
        let positions: Vec<Vec3> = (0..stencil.row_count())
            .map(|v| {
                let mut p = [0.0f64; 3];
                for (k, w) in stencil.row(v) {
                    let c = control.positions()[k as usize];
                    p[0] += w * c.x as f64;
                    p[1] += w * c.y as f64;
                    p[2] += w * c.z as f64;
                }
                Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)
            })
            .collect();
        let mesh = TriangleMesh::new(positions, triangles)?;
        let stencils = stencil.into_weights(n_control)?;
        let governors = control
            .positions()
            .iter()
            .map(|&p| Affine::constant(p))
            .collect();
        Ok(Self {
            control,
            levels,
            mesh,
            stencils,
            governors,
        })
    }

    /// The control mesh (its positions are the rest control points).
    pub fn control_mesh(&self) -> &TriangleMesh {
        &self.control
    }

    /// Number of subdivision levels.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// The subdivided rest mesh (same orientation as the control mesh).
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The composed stencils: row `v` gives the control points (and their weights) of fine vertex
    /// `v`. Push any per-control-vertex quantity through subdivision with them, e.g. skin weights
    /// with [`LoopSubdivision::push_weights`] or [`ConvexWeights::compose`].
    pub fn stencils(&self) -> &ConvexWeights {
        &self.stencils
    }

    /// The current control points.
    ///
    /// # Performance
    /// O(control points) (read from the governors).
    pub fn control_points(&self) -> Vec<Vec3> {
        self.governors.iter().map(|g| g.translation).collect()
    }

    /// Moves the control points (the governors become `Affine::constant(point)`).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] or [`DeformError::NonFinitePosition`]; nothing changes on
    /// error.
    ///
    /// # Performance
    /// O(control points).
    pub fn set_control_points(&mut self, points: &[Vec3]) -> Result<()> {
        if points.len() != self.governors.len() {
            return Err(DeformError::LengthMismatch {
                what: "control points",
                expected: self.governors.len(),
                actual: points.len(),
            });
        }
        validate_positions("control point", points)?;
        for (g, &p) in self.governors.iter_mut().zip(points) {
            *g = Affine::constant(p);
        }
        Ok(())
    }

    /// Pushes per-control-vertex convex weights (e.g. skin weights over bones) through the
    /// subdivision: fine vertex `v` gets `Σ_k s_vk · W[k]`, with `s` the stencils. Rows of the
    /// result list governors in increasing order.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `per_control` does not have one row per control point.
    ///
    /// # Performance
    /// O(Σ_v Σ_k influences of `k`) with a dense accumulator over `per_control`'s governors.
    pub fn push_weights(&self, per_control: &ConvexWeights) -> Result<ConvexWeights> {
        if per_control.vertex_count() != self.control.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "per-control-vertex weight rows",
                expected: self.control.vertex_count(),
                actual: per_control.vertex_count(),
            });
        }
        let inner = SparseRows::from_weights(per_control);
        let outer = SparseRows::from_weights(&self.stencils);
        let mut scratch = Accumulator::new(per_control.governor_count());
        outer
            .compose(&inner, &mut scratch)
            .into_weights(per_control.governor_count())
    }
}

impl GovernedDeformation for LoopSubdivision {
    fn rest_positions(&self) -> &[Vec3] {
        self.mesh.positions()
    }
    fn weights(&self) -> &ConvexWeights {
        &self.stencils
    }
    fn governors(&self) -> &[Affine] {
        &self.governors
    }
}

/// Loop's original vertex weight for an interior vertex of valence `n`:
/// `β(n) = (1/n) (5/8 − (3/8 + ¼ cos(2π/n))²)`.
pub(crate) fn loop_beta(n: usize) -> f64 {
    let n = n as f64;
    let c = 0.375 + 0.25 * (2.0 * core::f64::consts::PI / n).cos();
    (0.625 - c * c) / n
}

/// Sparse rows in f64 (compressed), the working form of stencils.
#[derive(Clone, Debug, Default)]
struct SparseRows {
    offsets: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<f64>,
}

impl SparseRows {
    fn identity(n: usize) -> Self {
        Self {
            offsets: (0..=n as u32).collect(),
            cols: (0..n as u32).collect(),
            vals: vec![1.0; n],
        }
    }

    fn from_weights(w: &ConvexWeights) -> Self {
        let mut out = Self {
            offsets: Vec::with_capacity(w.vertex_count() + 1),
            cols: Vec::with_capacity(w.influence_count()),
            vals: Vec::with_capacity(w.influence_count()),
        };
        out.offsets.push(0);
        for v in 0..w.vertex_count() {
            for (g, x) in w.iter_row(v) {
                out.cols.push(g);
                out.vals.push(x as f64);
            }
            out.offsets.push(out.cols.len() as u32);
        }
        out
    }

    fn row_count(&self) -> usize {
        self.offsets.len() - 1
    }

    fn row(&self, v: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        self.cols[a..b]
            .iter()
            .copied()
            .zip(self.vals[a..b].iter().copied())
    }

    fn push_row(&mut self, row: impl IntoIterator<Item = (u32, f64)>) {
        for (c, x) in row {
            self.cols.push(c);
            self.vals.push(x);
        }
        self.offsets.push(self.cols.len() as u32);
    }

    /// `self · inner`: row v is `Σ_j self[v][j] · inner[j]`, columns sorted.
    fn compose(&self, inner: &SparseRows, acc: &mut Accumulator) -> SparseRows {
        let mut out = SparseRows {
            offsets: Vec::with_capacity(self.offsets.len()),
            cols: Vec::with_capacity(self.cols.len() * 4),
            vals: Vec::with_capacity(self.cols.len() * 4),
        };
        out.offsets.push(0);
        for v in 0..self.row_count() {
            for (j, x) in self.row(v) {
                for (k, y) in inner.row(j as usize) {
                    acc.add(k, x * y);
                }
            }
            acc.drain_sorted_into(&mut out.cols, &mut out.vals);
            out.offsets.push(out.cols.len() as u32);
        }
        out
    }

    /// Converts to validated f32 convex weights (each row renormalised in f64 first).
    fn into_weights(mut self, governor_count: usize) -> Result<ConvexWeights> {
        let mut weights = Vec::with_capacity(self.vals.len());
        for v in 0..self.row_count() {
            let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
            let sum: f64 = self.vals[a..b].iter().sum();
            weights.extend(self.vals[a..b].iter().map(|&x| (x / sum) as f32));
        }
        self.vals = Vec::new();
        ConvexWeights::from_csr(self.offsets, self.cols, weights, governor_count)
    }
}

/// A dense accumulator with a touched list: merging sparse rows in O(entries).
#[derive(Debug)]
struct Accumulator {
    values: Vec<f64>,
    touched: Vec<u32>,
}

impl Accumulator {
    fn new(n: usize) -> Self {
        Self {
            values: vec![0.0; n],
            touched: Vec::new(),
        }
    }

    #[inline]
    fn add(&mut self, k: u32, x: f64) {
        let slot = &mut self.values[k as usize];
        if *slot == 0.0 {
            self.touched.push(k);
        }
        *slot += x;
    }

    fn drain_sorted_into(&mut self, cols: &mut Vec<u32>, vals: &mut Vec<f64>) {
        self.touched.sort_unstable();
        for &k in &self.touched {
            cols.push(k);
            vals.push(self.values[k as usize]);
            self.values[k as usize] = 0.0;
        }
        self.touched.clear();
    }
}

/// One level of Loop subdivision: the refined triangles and the local stencils (rows over the
/// coarse vertices). New vertex numbering: coarse vertices keep their indices, the vertex of edge
/// `e` (edges in increasing `(min, max)` order) is `n + e`.
struct LevelStep {
    triangles: Vec<[u32; 3]>,
    local: SparseRows,
}

fn subdivide_once(triangles: &[[u32; 3]], n: usize) -> Result<LevelStep> {
    // Half-edges keyed by their undirected edge, sorted so that each edge's half-edges are
    // adjacent: key = (min << 32 | max), value = triangle · 3 + corner.
    let mut half: Vec<(u64, u32)> = Vec::with_capacity(3 * triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        for c in 0..3 {
            let (a, b) = (tri[c], tri[(c + 1) % 3]);
            half.push((
                ((a.min(b) as u64) << 32) | a.max(b) as u64,
                (3 * t + c) as u32,
            ));
        }
    }
    half.sort_unstable();

    // Per edge: endpoints and opposite vertices (u32::MAX when on the border).
    let mut edge_of_half = vec![0u32; half.len()];
    let mut edges: Vec<([u32; 2], [u32; 2])> = Vec::with_capacity(half.len() / 2 + 1);
    let mut i = 0;
    while i < half.len() {
        let mut j = i + 1;
        while j < half.len() && half[j].0 == half[i].0 {
            j += 1;
        }
        let (a, b) = ((half[i].0 >> 32) as u32, half[i].0 as u32);
        if j - i > 2 {
            return Err(DeformError::NonManifoldEdge {
                a,
                b,
                triangles: j - i,
            });
        }
        let opposite = |h: u32| triangles[h as usize / 3][(h as usize % 3 + 2) % 3];
        let start = |h: u32| triangles[h as usize / 3][h as usize % 3];
        let mut opp = [opposite(half[i].1), u32::MAX];
        if j - i == 2 {
            if start(half[i].1) == start(half[i + 1].1) {
                return Err(DeformError::InconsistentOrientation { a, b });
            }
            opp[1] = opposite(half[i + 1].1);
        }
        for h in &half[i..j] {
            edge_of_half[h.1 as usize] = edges.len() as u32;
        }
        edges.push(([a, b], opp));
        i = j;
    }

    // Vertex neighbourhoods (CSR) and boundary neighbours.
    let mut degree = vec![0u32; n + 1];
    for (ends, _) in &edges {
        degree[ends[0] as usize + 1] += 1;
        degree[ends[1] as usize + 1] += 1;
    }
    for v in 0..n {
        degree[v + 1] += degree[v];
    }
    let offsets = degree;
    let mut fill = offsets.clone();
    let mut neighbours = vec![0u32; offsets[n] as usize];
    let mut boundary: Vec<[u32; 2]> = vec![[u32::MAX; 2]; n];
    let mut boundary_count = vec![0u8; n];
    for ([a, b], opp) in &edges {
        for (v, w) in [(*a, *b), (*b, *a)] {
            neighbours[fill[v as usize] as usize] = w;
            fill[v as usize] += 1;
            if opp[1] == u32::MAX {
                let count = &mut boundary_count[v as usize];
                if (*count as usize) < 2 {
                    boundary[v as usize][*count as usize] = w;
                }
                *count = count.saturating_add(1);
            }
        }
    }

    let mut local = SparseRows {
        offsets: Vec::with_capacity(n + edges.len() + 1),
        cols: Vec::with_capacity(offsets[n] as usize + n + 4 * edges.len()),
        vals: Vec::with_capacity(offsets[n] as usize + n + 4 * edges.len()),
    };
    local.offsets.push(0);
    for v in 0..n {
        let nb = &neighbours[offsets[v] as usize..offsets[v + 1] as usize];
        match (boundary_count[v], nb.len()) {
            (_, 0) => local.push_row([(v as u32, 1.0)]),
            (0, valence) => {
                let beta = loop_beta(valence);
                local.push_row(
                    core::iter::once((v as u32, 1.0 - valence as f64 * beta))
                        .chain(nb.iter().map(|&w| (w, beta))),
                );
            }
            (2, _) => local.push_row([
                (v as u32, 0.75),
                (boundary[v][0], 0.125),
                (boundary[v][1], 0.125),
            ]),
            _ => local.push_row([(v as u32, 1.0)]),
        }
    }
    for ([a, b], [c, d]) in &edges {
        if *d == u32::MAX {
            local.push_row([(*a, 0.5), (*b, 0.5)]);
        } else {
            local.push_row([(*a, 0.375), (*b, 0.375), (*c, 0.125), (*d, 0.125)]);
        }
    }

    let mut fine = Vec::with_capacity(4 * triangles.len());
    for (t, &[a, b, c]) in triangles.iter().enumerate() {
        let m = |corner: usize| n as u32 + edge_of_half[3 * t + corner];
        let (ab, bc, ca) = (m(0), m(1), m(2));
        fine.push([a, ab, ca]);
        fine.push([ab, b, bc]);
        fine.push([ca, bc, c]);
        fine.push([ab, bc, ca]);
    }
    Ok(LevelStep {
        triangles: fine,
        local,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// An octahedron (closed, genus 0, valence 4 everywhere); the limit-surface tests subdivide it too.
    pub(crate) fn octahedron() -> TriangleMesh {
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
        TriangleMesh::new(p, t).unwrap()
    }

    /// A torus (genus 1) of `u × v` quads split in two, with vertices of valence 6.
    fn torus(u: u32, v: u32) -> TriangleMesh {
        let mut p = Vec::new();
        for i in 0..u {
            for j in 0..v {
                let (a, b) = (
                    i as f32 / u as f32 * std::f32::consts::TAU,
                    j as f32 / v as f32 * std::f32::consts::TAU,
                );
                let r = 1.0 + 0.4 * b.cos();
                p.push(Vec3::new(r * a.cos(), r * a.sin(), 0.4 * b.sin()));
            }
        }
        let id = |i: u32, j: u32| (i % u) * v + (j % v);
        let mut t = Vec::new();
        for i in 0..u {
            for j in 0..v {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        TriangleMesh::new(p, t).unwrap()
    }

    /// An open grid (a cloth square) with a jittered height.
    fn open_grid(k: u32) -> TriangleMesh {
        let mut p = Vec::new();
        for i in 0..=k {
            for j in 0..=k {
                let h = ((i * 7 + j * 3) % 5) as f32 * 0.05;
                p.push(Vec3::new(i as f32, j as f32, h));
            }
        }
        let id = |i: u32, j: u32| i * (k + 1) + j;
        let mut t = Vec::new();
        for i in 0..k {
            for j in 0..k {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        TriangleMesh::new(p, t).unwrap()
    }

    /// Independent reference: one Loop step written directly on positions with maps (no
    /// stencils, no sorting tricks), returning positions keyed like the implementation.
    fn reference_step(p: &[[f64; 3]], tris: &[[u32; 3]]) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
        let mut opp: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
        let mut nbrs: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); p.len()];
        for &[a, b, c] in tris {
            for (x, y, z) in [(a, b, c), (b, c, a), (c, a, b)] {
                opp.entry((x.min(y), x.max(y))).or_default().push(z);
                nbrs[x as usize].insert(y);
                nbrs[y as usize].insert(x);
            }
        }
        let lerp = |terms: &[(u32, f64)]| {
            let mut q = [0.0; 3];
            for &(i, w) in terms {
                for k in 0..3 {
                    q[k] += w * p[i as usize][k];
                }
            }
            q
        };
        let mut out = Vec::new();
        for v in 0..p.len() as u32 {
            let bnd: Vec<u32> = nbrs[v as usize]
                .iter()
                .copied()
                .filter(|&w| opp[&(v.min(w), v.max(w))].len() == 1)
                .collect();
            let n = nbrs[v as usize].len();
            out.push(if bnd.len() == 2 {
                lerp(&[(v, 0.75), (bnd[0], 0.125), (bnd[1], 0.125)])
            } else if bnd.is_empty() {
                let nf = n as f64;
                let beta =
                    (0.625 - (0.375 + 0.25 * (2.0 * std::f64::consts::PI / nf).cos()).powi(2)) / nf;
                let mut terms = vec![(v, 1.0 - nf * beta)];
                terms.extend(nbrs[v as usize].iter().map(|&w| (w, beta)));
                lerp(&terms)
            } else {
                p[v as usize]
            });
        }
        let mut index = BTreeMap::new();
        for (&(a, b), o) in &opp {
            index.insert((a, b), out.len() as u32);
            out.push(if o.len() == 1 {
                lerp(&[(a, 0.5), (b, 0.5)])
            } else {
                lerp(&[(a, 0.375), (b, 0.375), (o[0], 0.125), (o[1], 0.125)])
            });
        }
        let mid = |a: u32, b: u32| index[&(a.min(b), a.max(b))];
        let mut t = Vec::new();
        for &[a, b, c] in tris {
            let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
            t.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
        (out, t)
    }

    fn check_against_reference(control: TriangleMesh, levels: u32, moved: &[Vec3]) {
        let mut s = LoopSubdivision::new(control.clone(), levels).unwrap();
        s.set_control_points(moved).unwrap();
        let mut p: Vec<[f64; 3]> = moved
            .iter()
            .map(|q| [q.x as f64, q.y as f64, q.z as f64])
            .collect();
        let mut t = control.triangles().to_vec();
        for _ in 0..levels {
            (p, t) = reference_step(&p, &t);
        }
        assert_eq!(t, s.mesh().triangles());
        let got = s.deformed_positions();
        assert_eq!(got.len(), p.len());
        for (g, r) in got.iter().zip(&p) {
            for k in 0..3 {
                assert!((g[k] as f64 - r[k]).abs() < 1e-5, "{g:?} vs {r:?}");
            }
        }
    }

    fn jitter(points: &[Vec3], seed: u32) -> Vec<Vec3> {
        points
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let h = (i as u32).wrapping_mul(2654435761).wrapping_add(seed);
                let f = |s: u32| ((h.rotate_left(s) % 1000) as f32 / 1000.0 - 0.5) * 0.3;
                q + Vec3::new(f(0), f(11), f(22))
            })
            .collect()
    }

    #[test]
    fn closed_meshes_match_direct_level_by_level_evaluation() {
        let oct = octahedron();
        let moved = jitter(oct.positions(), 1);
        check_against_reference(oct, 3, &moved);
        let tor = torus(6, 5);
        let moved = jitter(tor.positions(), 2);
        check_against_reference(tor, 2, &moved);
    }

    #[test]
    fn open_mesh_uses_crease_rules_and_matches_reference() {
        let g = open_grid(4);
        let moved = jitter(g.positions(), 3);
        check_against_reference(g.clone(), 2, &moved);
        // Crease: the fine border depends on the control border only. Moving interior control
        // points leaves every fine border vertex where it was.
        let mut s = LoopSubdivision::new(g.clone(), 3).unwrap();
        let before = s.deformed_positions();
        let border = |t: &[[u32; 3]]| -> BTreeSet<u32> {
            edge_uses(t)
                .iter()
                .filter(|(_, u)| u.len() == 1)
                .flat_map(|(&(a, b), _)| [a, b])
                .collect()
        };
        let control_border = border(g.triangles());
        let moved: Vec<Vec3> = g
            .positions()
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                if control_border.contains(&(i as u32)) {
                    q
                } else {
                    q + Vec3::new(0.3, -0.2, 0.7)
                }
            })
            .collect();
        s.set_control_points(&moved).unwrap();
        let after = s.deformed_positions();
        let fine_border = border(s.mesh().triangles());
        assert_eq!(fine_border.len(), 4 * 4 * 8);
        for &v in &fine_border {
            assert_eq!(before[v as usize], after[v as usize]);
        }
        let interior_moved = (0..after.len() as u32)
            .filter(|v| !fine_border.contains(v))
            .all(|v| before[v as usize] != after[v as usize]);
        assert!(interior_moved);
    }

    /// Edge-use counts: every edge used by 1 (border) or 2 triangles, with opposite directions.
    fn edge_uses(t: &[[u32; 3]]) -> BTreeMap<(u32, u32), Vec<(u32, u32)>> {
        let mut m: BTreeMap<(u32, u32), Vec<(u32, u32)>> = BTreeMap::new();
        for &[a, b, c] in t {
            for (x, y) in [(a, b), (b, c), (c, a)] {
                m.entry((x.min(y), x.max(y))).or_default().push((x, y));
            }
        }
        m
    }

    #[test]
    fn topology_euler_characteristic_manifoldness_and_orientation_preserved() {
        for (mesh, levels) in [(octahedron(), 3), (torus(5, 4), 2), (open_grid(3), 3)] {
            let euler =
                |v: usize, t: &[[u32; 3]]| v as i64 - edge_uses(t).len() as i64 + t.len() as i64;
            let chi = euler(mesh.vertex_count(), mesh.triangles());
            let borders = |t: &[[u32; 3]]| edge_uses(t).values().filter(|u| u.len() == 1).count();
            let b0 = borders(mesh.triangles());
            for l in 0..=levels {
                let s = LoopSubdivision::new(mesh.clone(), l).unwrap();
                let t = s.mesh().triangles();
                assert_eq!(t.len(), mesh.triangle_count() << (2 * l));
                assert_eq!(euler(s.mesh().vertex_count(), t), chi);
                assert_eq!(borders(t), b0 << l);
                for uses in edge_uses(t).values() {
                    assert!(uses.len() <= 2);
                    if uses.len() == 2 {
                        assert_eq!(uses[0], (uses[1].1, uses[1].0), "orientation flipped");
                    }
                }
            }
        }
    }

    #[test]
    fn stencil_rows_are_convex_and_reproduce_rest_positions() {
        let s = LoopSubdivision::new(torus(6, 5), 3).unwrap();
        let w = s.stencils();
        assert_eq!(w.vertex_count(), s.mesh().vertex_count());
        for v in 0..w.vertex_count() {
            let (g, x) = w.row(v);
            assert!(x.iter().all(|&x| x > 0.0));
            assert!(g.windows(2).all(|p| p[0] < p[1]));
            let sum: f64 = x.iter().map(|&x| x as f64).sum();
            assert!((sum - 1.0).abs() < 1e-6);
        }
        // Governors at rest reproduce the rest mesh.
        for (a, b) in s.deformed_positions().iter().zip(s.mesh().positions()) {
            assert!((*a - *b).length() < 1e-5);
        }
    }

    #[test]
    fn pushed_weights_match_compose() {
        let s = LoopSubdivision::new(octahedron(), 2).unwrap();
        let skin = ConvexWeights::from_rows(
            (0..6u32).map(|k| vec![(k % 3, 0.25), ((k + 1) % 3, 0.75)]),
            3,
        )
        .unwrap();
        let a = s.push_weights(&skin).unwrap();
        let b = s.stencils().compose(&skin).unwrap();
        for v in 0..a.vertex_count() {
            for g in 0..3 {
                assert!((a.weight(v, g) - b.weight(v, g)).abs() < 1e-6);
            }
        }
        let wrong = ConvexWeights::from_rows([vec![(0, 1.0)]], 3).unwrap();
        assert!(matches!(
            s.push_weights(&wrong),
            Err(DeformError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn rejects_non_manifold_edges() {
        let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Y];
        let t = vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]];
        let m = TriangleMesh::new(p, t).unwrap();
        assert!(matches!(
            LoopSubdivision::new(m, 1),
            Err(DeformError::NonManifoldEdge {
                a: 0,
                b: 1,
                triangles: 3
            })
        ));
    }

    #[test]
    fn rejects_inconsistent_orientation() {
        let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y, -Vec3::Y];
        let m = TriangleMesh::new(p, vec![[0, 1, 2], [0, 1, 3]]).unwrap();
        assert!(matches!(
            LoopSubdivision::new(m, 1),
            Err(DeformError::InconsistentOrientation { a: 0, b: 1 })
        ));
    }

    #[test]
    fn rejects_too_many_levels() {
        assert!(matches!(
            LoopSubdivision::new(octahedron(), MAX_LOOP_LEVELS + 1),
            Err(DeformError::InvalidParameter { name: "levels", .. })
        ));
    }

    #[test]
    fn rejects_bad_control_points() {
        let mut s = LoopSubdivision::new(octahedron(), 1).unwrap();
        assert!(matches!(
            s.set_control_points(&[Vec3::ZERO; 5]),
            Err(DeformError::LengthMismatch {
                expected: 6,
                actual: 5,
                ..
            })
        ));
        let mut bad = s.control_points();
        bad[4].y = f32::NAN;
        assert!(matches!(
            s.set_control_points(&bad),
            Err(DeformError::NonFinitePosition { index: 4, .. })
        ));
        bad[4].y = f32::INFINITY;
        assert!(s.set_control_points(&bad).is_err());
        assert_eq!(s.control_points(), s.control_mesh().positions());
    }

    /// Timing smoke test: run with `--release --ignored` for the numbers in the report.
    #[test]
    #[ignore]
    fn four_levels_over_4k_triangles_is_fast() {
        let control = torus(64, 32);
        assert_eq!(control.triangle_count(), 4096);
        let t0 = std::time::Instant::now();
        let s = LoopSubdivision::new(control, 4).unwrap();
        let dt = t0.elapsed();
        let w = s.stencils();
        println!(
            "4 levels: {} triangles, {} vertices, {} stencil entries (max row {}), {:?}",
            s.mesh().triangle_count(),
            s.mesh().vertex_count(),
            w.influence_count(),
            w.max_influences(),
            dt
        );
        let t0 = std::time::Instant::now();
        let p = s.deformed_positions();
        println!("evaluate: {:?} ({} vertices)", t0.elapsed(), p.len());
    }
}
