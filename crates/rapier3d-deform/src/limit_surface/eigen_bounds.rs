//! Interval bounds Φᵤⁱ, Φᵥⁱ on the scaled eigenbasis derivatives and Φ₁ₓ₂ over the patch domain T⁰, per valence (seed §3.4, eqs. 4–5).

use super::bezier::{coefficient_count, derivatives, regular_bezier, restrict, uniform_cells};
use super::eigen::{LoopEigen, loop_eigen};
use super::interval::Interval64;
use super::local_matrix::{Child, MAX_VALENCE, MIN_VALENCE};
use crate::error::Result;
use std::sync::OnceLock;

/// Depth of the uniform split of each regular child of T¹ (4^depth cells) on which the Bézier
/// coefficients of the derivatives are bounded.
pub const CELL_DEPTH: u32 = 5;

/// Relative widening of every tabulated interval, covering the rounding of the eigenvectors and
/// of the Bézier evaluation (both near 1e-15 relative).
pub const TABLE_MARGIN: f64 = 1e-9;

/// The tabulated bounds of one valence.
///
/// `φᵤⁱ`, `φᵥⁱ` are the `u`, `v` derivatives of the eigenfunction of column `i` of
/// [`LoopEigen::right`], scaled by `(2λ)^(1−j)` on the level-`j` ring of the domain (eq. 2). On
/// T¹ (the three regular children) they are cubic polynomials: each is bounded by the Bézier
/// coefficients of its restriction to `4^`[`CELL_DEPTH`] cells (convex hull property). Eq. 5
/// extends the bound to all of T⁰: unchanged for `i ∈ {1, 2}` (ratio `λᵢ/λ = 1`), joined with 0
/// for a ratio in `[0, 1)`; the second vector `b` of a Jordan pair (`S x_b = μ x_b + x_a`) scales
/// as `(μ/λ)^(j−1) φ^b + (j−1) μ^(j−2)/λ^(j−1) φ^a`, bounded by `hull(0, Φ^b) + [0, c] Φ^a` with
/// `c` the largest of those coefficients. `Φ₁ₓ₂` bounds `φᵤ¹φᵥ² − φᵤ²φᵥ¹` (ratio 1) cell by cell
/// in interval arithmetic.
#[derive(Clone, Debug)]
pub struct EigenBounds {
    valence: usize,
    du: Vec<Interval64>,
    dv: Vec<Interval64>,
    cross: Interval64,
}

impl EigenBounds {
    fn build(eig: &LoopEigen) -> Self {
        let size = eig.size();
        let cells = uniform_cells(CELL_DEPTH);
        let bez = regular_bezier();
        let lambda = eig.subdominant();
        // Per column, per child: the derivative coefficient ranges per cell.
        let mut du1 = vec![Interval64::ZERO; size];
        let mut dv1 = vec![Interval64::ZERO; size];
        let mut per_cell: [Vec<(Interval64, Interval64)>; 2] = [Vec::new(), Vec::new()];
        for i in 1..size {
            let x = eig.right().column(i);
            let mut first = true;
            for (k, child) in Child::REGULAR.into_iter().enumerate() {
                let q = &eig.picks()[k] * x;
                let b: Vec<f64> = (0..coefficient_count(4))
                    .map(|r| (0..q.len()).map(|c| bez[(r, c)] * q[c]).sum())
                    .collect();
                let f = child.derivative_factor();
                let (ds, dt) = derivatives(4, &b);
                let (ds, dt): (Vec<f64>, Vec<f64>) = (
                    ds.iter().map(|x| f * x).collect(),
                    dt.iter().map(|x| f * x).collect(),
                );
                for cell in &cells {
                    let range = |c: &[f64]| {
                        let r = restrict(3, c, cell);
                        let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
                        let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        Interval64::new(lo, hi)
                    };
                    let (ru, rv) = (range(&ds), range(&dt));
                    if first {
                        du1[i] = ru;
                        dv1[i] = rv;
                        first = false;
                    } else {
                        du1[i] = du1[i].hull(ru);
                        dv1[i] = dv1[i].hull(rv);
                    }
                    if i <= 2 {
                        per_cell[i - 1].push((ru, rv));
                    }
                }
            }
        }
        let mut cross: Option<Interval64> = None;
        for ((u1, v1), (u2, v2)) in per_cell[0].iter().zip(&per_cell[1]) {
            let c = *u1 * *v2 - *u2 * *v1;
            cross = Some(cross.map_or(c, |x| x.hull(c)));
        }
        let cross = cross.unwrap_or(Interval64::ZERO);

        // Eq. 5: extend from T¹ to T⁰.
        let mut du = vec![Interval64::ZERO; size];
        let mut dv = vec![Interval64::ZERO; size];
        let jordan_b = eig.jordan().map(|(_, b)| b);
        for i in 1..size {
            let ratio = eig.eigenvalues()[i] / lambda;
            let extend = |phi: Interval64| {
                if i <= 2 {
                    phi
                } else if ratio >= 0.0 {
                    phi.with_zero()
                } else {
                    phi.with_zero().hull(phi.scale(ratio))
                }
            };
            du[i] = extend(du1[i]);
            dv[i] = extend(dv1[i]);
            if Some(i) == jordan_b
                && let Some((a, _)) = eig.jordan()
            {
                let mu = eig.eigenvalues()[a];
                let c = (2..400)
                    .map(|j| (j - 1) as f64 * mu.powi(j - 2) / lambda.powi(j - 1))
                    .fold(0.0f64, f64::max);
                let coupling = Interval64::new(0.0, c);
                du[i] = du[i] + coupling * du1[a];
                dv[i] = dv[i] + coupling * dv1[a];
            }
        }
        let scale = du
            .iter()
            .chain(&dv)
            .map(|x| x.mag())
            .fold(cross.mag(), f64::max);
        let eps = TABLE_MARGIN * scale;
        Self {
            valence: eig.valence(),
            du: du.into_iter().map(|x| x.widen(eps)).collect(),
            dv: dv.into_iter().map(|x| x.widen(eps)).collect(),
            cross: cross.widen(TABLE_MARGIN * cross.mag()),
        }
    }

    /// The valence.
    pub fn valence(&self) -> usize {
        self.valence
    }

    /// `Φᵤⁱ` per eigen column (`[0]` is `[0, 0]`: the constant eigenvector has no derivative).
    pub fn du(&self) -> &[Interval64] {
        &self.du
    }

    /// `Φᵥⁱ` per eigen column.
    pub fn dv(&self) -> &[Interval64] {
        &self.dv
    }

    /// `Φ₁ₓ₂`, the bound on the Jacobian of the characteristic map (it excludes 0: the map is
    /// regular).
    pub fn cross(&self) -> Interval64 {
        self.cross
    }
}

/// The bounds for `valence`, computed on first use and kept for the process.
///
/// # Errors
/// [`crate::DeformError::InvalidParameter`] outside [`MIN_VALENCE`]`..=`[`MAX_VALENCE`].
///
/// # Performance
/// About `3 · (n+5) · 2 · 4^CELL_DEPTH` cubic restrictions on the first call per valence (tens of
/// milliseconds), O(1) after.
pub fn eigen_bounds(valence: usize) -> Result<&'static EigenBounds> {
    static TABLE: [OnceLock<EigenBounds>; MAX_VALENCE - MIN_VALENCE + 1] =
        [const { OnceLock::new() }; MAX_VALENCE - MIN_VALENCE + 1];
    let eig = loop_eigen(valence)?;
    Ok(TABLE[valence - MIN_VALENCE].get_or_init(|| EigenBounds::build(eig)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_characteristic_map_is_the_linear_lattice_map() {
        // Valence 6: the ring at angles kπ/3 is the image of the lattice directions under
        // (u, v) ↦ u (1, 0) + v (½, √3/2); the subdominant derivatives are those constants.
        let b = eigen_bounds(6).unwrap();
        let h = 3f64.sqrt() / 2.0;
        for (got, want) in [
            (b.du()[1], 1.0),
            (b.dv()[1], 0.5),
            (b.du()[2], 0.0),
            (b.dv()[2], h),
            (b.cross(), h),
        ] {
            assert!(
                got.contains(want) && got.hi - got.lo < 1e-7,
                "{got:?} vs {want}"
            );
        }
    }

    #[test]
    fn characteristic_map_is_regular_and_higher_bounds_hold_zero() {
        for n in MIN_VALENCE..=MAX_VALENCE {
            let b = eigen_bounds(n).unwrap();
            // Φ₁ₓ₂ excludes 0 (positive: the ring runs counter-clockwise like (u, v)).
            assert!(b.cross().lo > 0.0, "valence {n}: {:?}", b.cross());
            // The constant eigenvector has no derivative (only the table margin is left).
            let scale = b
                .du()
                .iter()
                .chain(b.dv())
                .map(|x| x.mag())
                .fold(0.0, f64::max);
            assert!(b.du()[0].mag() <= 3.0 * TABLE_MARGIN * scale, "valence {n}");
            assert!(b.dv()[0].mag() <= 3.0 * TABLE_MARGIN * scale, "valence {n}");
            // The subdominant bounds are finite and not 0; the higher ones contain 0 (eq. 5).
            // The higher eigenfunctions' bounds contain 0 (eq. 5).
            for i in 3..b.du().len() {
                assert!(
                    b.du()[i].contains(0.0) && b.dv()[i].contains(0.0),
                    "valence {n}, {i}"
                );
            }
        }
    }
}
