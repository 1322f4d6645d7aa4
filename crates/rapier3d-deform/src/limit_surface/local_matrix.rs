//! Loop's local subdivision matrix `S` around an irregular patch and the picking matrices `S₁, S₂, S₃` (seed §3.2, Fig. 8).

use crate::deformation::loop_beta;
use rapier3d::na::DMatrix;

/// The smallest tabulated valence.
pub const MIN_VALENCE: usize = 3;
/// The largest tabulated valence.
pub const MAX_VALENCE: usize = 12;
/// The valence of a regular vertex.
pub const REGULAR_VALENCE: usize = 6;
/// Control points of a regular patch (a quartic box spline).
pub const REGULAR_POINTS: usize = 12;

/// Control points around an irregular patch whose irregular corner has valence `n`: `n + 6`.
///
/// Their order (the *canonical order* of this module): the irregular vertex `v`, its 1-ring
/// `r₀ … r₍ₙ₋₁₎` counter-clockwise with `(v, r₀, r₁)` the patch, then the five second-ring points
/// `e₀ … e₄` that complete the 1-rings of `r₀` and `r₁`: `e₀` across the edge `r₀ r₍ₙ₋₁₎` from
/// `v`, `e₁` the next neighbour of `r₀`, `e₂` across `r₀ r₁` from `v`, `e₃` the next neighbour of
/// `r₁`, `e₄` across `r₁ r₂` from `v`. For `n = 6` these are the 12 control points of a regular
/// patch.
///
/// # Performance
/// O(1).
pub const fn neighbourhood_size(valence: usize) -> usize {
    valence + 6
}

/// A matrix over control points stored as its rows' non-zero weights, columns ascending: one
/// Loop step's stencils (a refined point has at most `n + 1` non-zero weights), applied in
/// O(non-zeros) instead of O(rows · columns).
///
/// A row applied to points gives the same bits as the dense product summed over the columns in
/// ascending order (what [`DMatrix`]'s column-major layout gives): the skipped terms are
/// `0 · x = ±0`, and adding `±0` to a sum that starts at `+0` changes no bit.
#[derive(Clone, Debug)]
pub(crate) struct SparseRows {
    /// Row `r`'s entries are `entries[starts[r]..starts[r + 1]]`.
    starts: Vec<u32>,
    /// `(column, weight)`, columns ascending within a row.
    entries: Vec<(u32, f64)>,
}

impl SparseRows {
    /// The non-zero entries of `m`, row by row.
    ///
    /// # Performance
    /// O(rows · columns).
    pub(crate) fn from_dense(m: &DMatrix<f64>) -> Self {
        let mut starts = Vec::with_capacity(m.nrows() + 1);
        let mut entries = Vec::new();
        starts.push(0);
        for r in 0..m.nrows() {
            for c in 0..m.ncols() {
                let w = m[(r, c)];
                if w != 0.0 {
                    entries.push((c as u32, w));
                }
            }
            starts.push(entries.len() as u32);
        }
        Self { starts, entries }
    }

    /// Number of rows.
    ///
    /// # Performance
    /// O(1).
    pub(crate) fn rows(&self) -> usize {
        self.starts.len() - 1
    }

    /// Row `r` applied to the points `p` (a column beyond `p` counts as a zero point).
    ///
    /// # Performance
    /// O(non-zeros of the row).
    #[inline]
    pub(crate) fn row(&self, r: usize, p: &[[f64; 3]]) -> [f64; 3] {
        let (s, e) = (self.starts[r] as usize, self.starts[r + 1] as usize);
        let mut q = [0.0; 3];
        for &(c, w) in &self.entries[s..e] {
            if let Some(x) = p.get(c as usize) {
                q[0] += w * x[0];
                q[1] += w * x[1];
                q[2] += w * x[2];
            }
        }
        q
    }

    /// The matrix applied to the points `p`, written to `out[..rows]` (`out` at least that long).
    ///
    /// # Performance
    /// O(non-zeros).
    pub(crate) fn apply_into(&self, p: &[[f64; 3]], out: &mut [[f64; 3]]) {
        for (r, q) in out.iter_mut().enumerate().take(self.rows()) {
            *q = self.row(r, p);
        }
    }

    /// The matrix applied to the points `p`.
    ///
    /// # Performance
    /// O(non-zeros), one allocation.
    pub(crate) fn apply(&self, p: &[[f64; 3]]) -> Vec<[f64; 3]> {
        (0..self.rows()).map(|r| self.row(r, p)).collect()
    }
}

/// Lattice coordinates of the canonical points of a regular patch: the patch is the triangle
/// `(0,0), (1,0), (0,1)` of the three-direction lattice, and its parameters `(u, v)` are these
/// coordinates.
pub(crate) const CANONICAL: [(i32, i32); REGULAR_POINTS] = [
    (0, 0),
    (1, 0),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (0, -1),
    (1, -1),
    (2, -1),
    (2, 0),
    (1, 1),
    (0, 2),
    (-1, 2),
];

/// The six lattice directions, counter-clockwise.
const DIRECTIONS: [(i32, i32); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// Which of the four children of a patch after one subdivision step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Child {
    /// The child at the irregular corner `v` (irregular again, same valence).
    Corner,
    /// The regular child at `r₀` (`T₁¹`).
    AtR0,
    /// The regular child at `r₁` (`T₂¹`).
    AtR1,
    /// The regular middle child (`T₃¹`, turned by 180°).
    Middle,
}

impl Child {
    /// The three regular children.
    pub(crate) const REGULAR: [Child; 3] = [Child::AtR0, Child::AtR1, Child::Middle];

    /// Maps the child's own parameters `(s, t)` to the parent's `(u, v)`.
    pub(crate) fn to_parent(self, s: f64, t: f64) -> (f64, f64) {
        match self {
            Child::Corner => (0.5 * s, 0.5 * t),
            Child::AtR0 => (0.5 + 0.5 * s, 0.5 * t),
            Child::AtR1 => (0.5 * s, 0.5 + 0.5 * t),
            Child::Middle => (0.5 - 0.5 * s, 0.5 - 0.5 * t),
        }
    }

    /// `∂/∂u` of the parent equals this factor times `∂/∂s` of the child (and likewise `v`, `t`).
    pub(crate) fn derivative_factor(self) -> f64 {
        match self {
            Child::Middle => -2.0,
            _ => 2.0,
        }
    }

    /// The child's canonical points in the fine lattice (twice the coarse coordinates).
    fn fine_point(self, i: usize) -> (i32, i32) {
        let (x, y) = CANONICAL[i];
        match self {
            Child::Corner => (x, y),
            Child::AtR0 => (1 + x, y),
            Child::AtR1 => (x, 1 + y),
            Child::Middle => (1 - x, 1 - y),
        }
    }
}

/// Stencil rows of one subdivision step over the canonical control points of valence `n`.
struct Stencils {
    n: usize,
    beta: f64,
}

impl Stencils {
    fn new(n: usize) -> Self {
        Self {
            n,
            beta: loop_beta(n),
        }
    }

    fn size(&self) -> usize {
        neighbourhood_size(self.n)
    }

    /// Index of a coarse lattice point of the chart, if it is a canonical point.
    fn index(&self, p: (i32, i32)) -> Option<usize> {
        let n = self.n;
        Some(match p {
            (0, 0) => 0,
            (1, 0) => 1,
            (0, 1) => 2,
            (-1, 1) => 1 + 2 % n,
            (1, -1) => n,
            (2, -1) => n + 1,
            (2, 0) => n + 2,
            (1, 1) => n + 3,
            (0, 2) => n + 4,
            (-1, 2) => n + 5,
            // A regular vertex's whole 1-ring is in the lattice.
            (-1, 0) if n == REGULAR_VALENCE => 4,
            (0, -1) if n == REGULAR_VALENCE => 5,
            _ => return None,
        })
    }

    /// Ring number `k` of a chart point adjacent to `v`.
    fn ring(&self, p: (i32, i32)) -> Option<usize> {
        Some(match p {
            (1, 0) => 0,
            (0, 1) => 1,
            (-1, 1) => 2 % self.n,
            (1, -1) => self.n - 1,
            _ => return None,
        })
    }

    /// The new position of `v`: `(1 − nβ) v + β Σ rₖ`.
    fn irregular_vertex(&self) -> Vec<f64> {
        let mut row = vec![0.0; self.size()];
        row[0] = 1.0 - self.n as f64 * self.beta;
        for k in 0..self.n {
            row[1 + k] += self.beta;
        }
        row
    }

    /// The new point of the edge `v rₖ`: `3/8 (v + rₖ) + 1/8 (rₖ₋₁ + rₖ₊₁)`.
    fn ring_edge(&self, k: usize) -> Vec<f64> {
        let n = self.n;
        let mut row = vec![0.0; self.size()];
        row[0] += 0.375;
        row[1 + k % n] += 0.375;
        row[1 + (k + n - 1) % n] += 0.125;
        row[1 + (k + 1) % n] += 0.125;
        row
    }

    /// The stencil of the fine lattice point `f` (fine coordinates), when it is determined by
    /// the canonical points through the chart.
    fn fine(&self, f: (i32, i32)) -> Option<Vec<f64>> {
        let mut row = vec![0.0; self.size()];
        if f.0 % 2 == 0 && f.1 % 2 == 0 {
            let p = (f.0 / 2, f.1 / 2);
            if p == (0, 0) {
                return Some(self.irregular_vertex());
            }
            // A regular vertex of the chart: (1 − 6β₆) p + β₆ Σ neighbours.
            let beta = loop_beta(REGULAR_VALENCE);
            row[self.index(p)?] += 1.0 - 6.0 * beta;
            for d in DIRECTIONS {
                row[self.index((p.0 + d.0, p.1 + d.1))?] += beta;
            }
            return Some(row);
        }
        let (a, d) = match (f.0.rem_euclid(2), f.1.rem_euclid(2)) {
            (1, 0) => (((f.0 - 1) / 2, f.1 / 2), 0),
            (0, 1) => ((f.0 / 2, (f.1 - 1) / 2), 1),
            _ => (((f.0 - 1) / 2, (f.1 + 1) / 2), 5),
        };
        let b = (a.0 + DIRECTIONS[d].0, a.1 + DIRECTIONS[d].1);
        if a == (0, 0) {
            return Some(self.ring_edge(self.ring(b)?));
        }
        if b == (0, 0) {
            return Some(self.ring_edge(self.ring(a)?));
        }
        let c = DIRECTIONS[(d + 1) % 6];
        let e = DIRECTIONS[(d + 5) % 6];
        row[self.index(a)?] += 0.375;
        row[self.index(b)?] += 0.375;
        row[self.index((a.0 + c.0, a.1 + c.1))?] += 0.125;
        row[self.index((a.0 + e.0, a.1 + e.1))?] += 0.125;
        Some(row)
    }
}

/// The local subdivision matrix `S` (`(n+6) × (n+6)`, canonical order in and out): one Loop
/// step maps the control points around a patch to those around its corner child.
///
/// # Performance
/// O((n+6)²) time and memory.
pub fn subdivision_matrix(valence: usize) -> DMatrix<f64> {
    let st = Stencils::new(valence);
    let size = st.size();
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(size);
    rows.push(st.irregular_vertex());
    for k in 0..valence {
        rows.push(st.ring_edge(k));
    }
    for f in [(2, -1), (2, 0), (1, 1), (0, 2), (-1, 2)] {
        rows.push(chart_row(&st, f));
    }
    DMatrix::from_fn(size, size, |i, j| rows[i][j])
}

/// A chart row that exists by construction (every point the module asks for is checked for
/// every tabulated valence by the tests).
fn chart_row(st: &Stencils, f: (i32, i32)) -> Vec<f64> {
    st.fine(f)
        .unwrap_or_else(|| unreachable!("fine point {f:?} outside the chart of valence {}", st.n))
}

/// The picking matrix of a child (`12 × (n+6)` for a regular child, the corner child's is `S`):
/// the control points around the child after one step, in the child's canonical order.
///
/// # Performance
/// O(12 (n+6)).
pub(crate) fn picking_matrix(valence: usize, child: Child) -> DMatrix<f64> {
    if child == Child::Corner {
        return subdivision_matrix(valence);
    }
    let st = Stencils::new(valence);
    let rows: Vec<Vec<f64>> = (0..REGULAR_POINTS)
        .map(|i| chart_row(&st, child.fine_point(i)))
        .collect();
    DMatrix::from_fn(REGULAR_POINTS, st.size(), |i, j| rows[i][j])
}

/// The limit position of the corner `corner` (0: `v`, 1: `r₀`, 2: `r₁`) of a regular patch as a
/// row over its 12 control points: `(1 − 6χ) p + χ Σ neighbours`, `χ = 1 / (3/(8β) + 6)`.
pub(crate) fn regular_limit_row(corner: usize) -> [f64; REGULAR_POINTS] {
    let beta = loop_beta(REGULAR_VALENCE);
    let chi = 1.0 / (3.0 / (8.0 * beta) + REGULAR_VALENCE as f64);
    let st = Stencils::new(REGULAR_VALENCE);
    let p = CANONICAL[corner];
    let mut row = [0.0; REGULAR_POINTS];
    row[corner] = 1.0 - REGULAR_VALENCE as f64 * chi;
    for d in DIRECTIONS {
        let q = (p.0 + d.0, p.1 + d.1);
        let i = st
            .index(q)
            .unwrap_or_else(|| unreachable!("corner {corner} has its 1-ring in the chart"));
        row[i] += chi;
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_affine_and_regular_matrix_is_the_box_spline_split() {
        for n in MIN_VALENCE..=MAX_VALENCE {
            let s = subdivision_matrix(n);
            for i in 0..s.nrows() {
                assert!((s.row(i).sum() - 1.0).abs() < 1e-14);
            }
            for child in Child::REGULAR {
                let p = picking_matrix(n, child);
                for i in 0..p.nrows() {
                    assert!((p.row(i).sum() - 1.0).abs() < 1e-14);
                    assert!(p.row(i).iter().all(|&x| x >= 0.0));
                }
            }
        }
        for c in 0..3 {
            assert!((regular_limit_row(c).iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
    }

    /// The dense product `m p`, summed over the columns in ascending order (the reference the
    /// sparse rows must reproduce bit for bit).
    fn dense_apply(m: &DMatrix<f64>, p: &[[f64; 3]]) -> Vec<[f64; 3]> {
        (0..m.nrows())
            .map(|r| {
                let mut q = [0.0; 3];
                for (c, x) in p.iter().enumerate().take(m.ncols()) {
                    for d in 0..3 {
                        q[d] += m[(r, c)] * x[d];
                    }
                }
                q
            })
            .collect()
    }

    #[test]
    fn sparse_rows_reproduce_the_dense_products_bit_for_bit() {
        let mut seed = 0x6a09_e667_f3bc_c909u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3
        };
        for n in MIN_VALENCE..=MAX_VALENCE {
            let matrices = [
                subdivision_matrix(n),
                picking_matrix(n, Child::AtR0),
                picking_matrix(n, Child::AtR1),
                picking_matrix(n, Child::Middle),
            ];
            for m in &matrices {
                let sparse = SparseRows::from_dense(m);
                assert_eq!(sparse.rows(), m.nrows());
                let zeros = m.iter().filter(|&&w| w == 0.0).count();
                assert!(zeros > 0, "valence {n}: stencils leave most weights zero");
                for _ in 0..50 {
                    let p: Vec<[f64; 3]> =
                        (0..m.ncols()).map(|_| [next(), next(), -next()]).collect();
                    let reference = dense_apply(m, &p);
                    let fast = sparse.apply(&p);
                    let mut into = vec![[0.0; 3]; m.nrows()];
                    sparse.apply_into(&p, &mut into);
                    for ((r, f), i) in reference.iter().zip(&fast).zip(&into) {
                        for d in 0..3 {
                            assert_eq!(r[d].to_bits(), f[d].to_bits(), "valence {n}");
                            assert_eq!(r[d].to_bits(), i[d].to_bits(), "valence {n}");
                        }
                    }
                }
            }
        }
    }
}
