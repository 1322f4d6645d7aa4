//! Eigenstructure of Loop's local subdivision matrix per valence: closed form by the discrete Fourier transform, a Jordan block at valence 3, tabulated once (seed §3.2).

use super::local_matrix::{
    Child, MAX_VALENCE, MIN_VALENCE, SparseRows, picking_matrix, subdivision_matrix,
};
use crate::deformation::loop_beta;
use crate::error::{DeformError, Result};
use rapier3d::na::{DMatrix, DVector};
use std::f64::consts::TAU;
use std::sync::OnceLock;

/// Eigenvalues of the second-ring block (the five `e` points), fixed by the regular rules.
const SECOND_RING: [f64; 2] = [0.125, 0.0625];

/// The eigen-decomposition `S X = X J` of Loop's local subdivision matrix for one valence.
///
/// `S` is block lower triangular: the 1-ring block (`v` and `r₀ … r₍ₙ₋₁₎`) is circulant apart
/// from `v`, so its eigenvectors are in closed form: the constant vector (eigenvalue 1), the
/// Fourier modes `rₖ = cos(2πjk/n)`, `sin(2πjk/n)`, `v = 0` with `μⱼ = 3/8 + ¼ cos(2πj/n)`, and
/// the radial mode `v = −8nβ/3`, `rₖ = 1` with `5/8 − nβ = μ₁²`. Each is lifted to the second
/// ring by solving `(S₂₂ − μ) x₂ = −S₂₁ x₁`; the second-ring block has eigenvalues 1/8 (three) and
/// 1/16 (two) with closed-form eigenvectors. At valence 3 the radial mode's `μ₁² = 1/16` meets the
/// second ring's 1/16 and the lift has no solution: that pair is a Jordan block
/// (`S x_b = μ x_b + x_a`), as the seed notes for valence-3 vertices. At even valences
/// `μ₍ₙ/₂₎ = 1/8` meets the second ring too, but the lift is solvable there (no Jordan block).
///
/// Columns are ordered by non-increasing eigenvalue: `x⁰ = 1` (λ₀ = 1), then the subdominant pair
/// `x¹` (cosine), `x²` (sine) with `λ = μ₁`, then the rest. The left eigenvectors are the rows of
/// `X⁻¹` (LU in f64).
///
/// # Performance
/// Built once per valence (O((n+6)³)), then read through [`loop_eigen`].
#[derive(Clone, Debug)]
pub struct LoopEigen {
    valence: usize,
    eigenvalues: Vec<f64>,
    jordan: Option<(usize, usize)>,
    right: DMatrix<f64>,
    left: DMatrix<f64>,
    subdivision: DMatrix<f64>,
    picks: [DMatrix<f64>; 3],
    /// `S` and the picking matrices by their non-zero weights.
    stencils: [SparseRows; 4],
}

impl LoopEigen {
    fn build(n: usize) -> Self {
        let size = n + 6;
        let s = subdivision_matrix(n);
        let ring = n + 1;
        let s21 = s.view((ring, 0), (5, ring)).clone_owned();
        let s22 = s.view((ring, ring), (5, 5)).clone_owned();
        let beta = loop_beta(n);

        // 1-ring modes (eigenvalue, vector over v and the ring).
        let mut modes: Vec<(f64, DVector<f64>)> = vec![(1.0, DVector::from_element(ring, 1.0))];
        for j in 1..=n / 2 {
            let mu = 0.375 + 0.25 * (TAU * j as f64 / n as f64).cos();
            let wave = |f: fn(f64) -> f64| {
                DVector::from_fn(ring, |i, _| {
                    if i == 0 {
                        0.0
                    } else {
                        f(TAU * (j * (i - 1)) as f64 / n as f64)
                    }
                })
            };
            modes.push((mu, wave(f64::cos)));
            if 2 * j != n {
                modes.push((mu, wave(f64::sin)));
            }
        }
        let radial = 0.625 - n as f64 * beta;
        modes.push((
            radial,
            DVector::from_fn(ring, |i, _| {
                if i == 0 {
                    -8.0 * n as f64 * beta / 3.0
                } else {
                    1.0
                }
            }),
        ));

        // Second-ring eigenvectors, per eigenvalue.
        let mut kernels: [Vec<DVector<f64>>; 2] = [
            vec![
                DVector::from_row_slice(&[1.0, 1.0, 0.0, 0.0, 0.0]),
                DVector::from_row_slice(&[0.0, 1.0, 1.0, 1.0, 0.0]),
                DVector::from_row_slice(&[0.0, 0.0, 0.0, 1.0, 1.0]),
            ],
            vec![
                DVector::from_row_slice(&[0.0, 1.0, 0.0, 0.0, 0.0]),
                DVector::from_row_slice(&[0.0, 0.0, 0.0, 1.0, 0.0]),
            ],
        ];

        // Columns: (eigenvalue, vector); a Jordan pair is pushed as (a, b) adjacent.
        let mut columns: Vec<(f64, DVector<f64>, u8)> = Vec::with_capacity(size);
        let lift = |x1: &DVector<f64>, x2: &DVector<f64>| {
            DVector::from_fn(size, |i, _| if i < ring { x1[i] } else { x2[i - ring] })
        };
        let rhs_of = |x1: &DVector<f64>| -(&s21 * x1);
        for (mu, x1) in modes {
            let shifted = &s22 - DMatrix::identity(5, 5) * mu;
            let meets = SECOND_RING.iter().position(|&m| (m - mu).abs() < 1e-12);
            match meets {
                None => {
                    let x2 = shifted
                        .lu()
                        .solve(&rhs_of(&x1))
                        .unwrap_or_else(|| unreachable!("μ is not an eigenvalue of S₂₂"));
                    columns.push((mu, lift(&x1, &x2), 0));
                }
                Some(m) => {
                    // Least squares over [S₂₂ − μ | −K] [x₂; α] = −S₂₁ x₁; α ≠ 0 means a Jordan
                    // chain through the second-ring eigenvector K α.
                    let kernel = &kernels[m];
                    let k = kernel.len();
                    let mut a = DMatrix::zeros(5, 5 + k);
                    a.view_mut((0, 0), (5, 5)).copy_from(&shifted);
                    for (c, kv) in kernel.iter().enumerate() {
                        a.set_column(5 + c, &(-kv));
                    }
                    let sol = a
                        .svd(true, true)
                        .solve(&rhs_of(&x1), 1e-13)
                        .unwrap_or_else(|_| unreachable!("SVD was asked for both factors"));
                    let x2 = sol.rows(0, 5).clone_owned();
                    let alpha = sol.rows(5, k).clone_owned();
                    if alpha.amax() < 1e-10 {
                        columns.push((mu, lift(&x1, &x2), 0));
                    } else {
                        let y = kernel
                            .iter()
                            .zip(alpha.iter())
                            .fold(DVector::zeros(5), |acc, (kv, &w)| acc + kv * w);
                        // Replace the kernel vector with the largest weight by y (still a basis).
                        let drop = alpha.iamax();
                        kernels[m].remove(drop);
                        columns.push((mu, lift(&DVector::zeros(ring), &y), 1));
                        columns.push((mu, lift(&x1, &x2), 2));
                    }
                }
            }
        }
        for (m, kernel) in kernels.iter().enumerate() {
            for kv in kernel {
                columns.push((SECOND_RING[m], lift(&DVector::zeros(ring), kv), 0));
            }
        }
        // Stable sort by non-increasing eigenvalue keeps a Jordan pair adjacent and (a, b).
        columns.sort_by(|x, y| y.0.total_cmp(&x.0));
        let jordan = columns.iter().position(|c| c.2 == 1).map(|a| (a, a + 1));
        let eigenvalues: Vec<f64> = columns.iter().map(|c| c.0).collect();
        let right = DMatrix::from_fn(size, size, |i, j| columns[j].1[i]);
        let left = right
            .clone()
            .try_inverse()
            .unwrap_or_else(|| unreachable!("the eigenvectors of valence {n} form a basis"));
        let picks = Child::REGULAR.map(|c| picking_matrix(n, c));
        let stencils = [
            SparseRows::from_dense(&s),
            SparseRows::from_dense(&picks[0]),
            SparseRows::from_dense(&picks[1]),
            SparseRows::from_dense(&picks[2]),
        ];
        Self {
            valence: n,
            eigenvalues,
            jordan,
            right,
            left,
            subdivision: s,
            picks,
            stencils,
        }
    }

    /// The valence `n`.
    pub fn valence(&self) -> usize {
        self.valence
    }

    /// Number of control points, `n + 6`.
    pub fn size(&self) -> usize {
        self.valence + 6
    }

    /// Eigenvalues per column of [`LoopEigen::right`], non-increasing (`[0]` = 1, `[1] = [2] = λ`).
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }

    /// The subdominant eigenvalue `λ = 3/8 + ¼ cos(2π/n)`.
    pub fn subdominant(&self) -> f64 {
        self.eigenvalues[1]
    }

    /// The Jordan pair `(a, b)` with `S x_b = μ x_b + x_a`, if `S` is defective (valence 3).
    pub fn jordan(&self) -> Option<(usize, usize)> {
        self.jordan
    }

    /// Right (generalised) eigenvectors as columns `X`.
    pub fn right(&self) -> &DMatrix<f64> {
        &self.right
    }

    /// Left eigenvectors as rows, `X⁻¹`.
    pub fn left(&self) -> &DMatrix<f64> {
        &self.left
    }

    /// The local subdivision matrix `S`.
    pub fn subdivision(&self) -> &DMatrix<f64> {
        &self.subdivision
    }

    /// The picking matrices `S₁, S₂, S₃` (12 × (n+6)): control points of the regular children at
    /// `r₀`, at `r₁` and in the middle after one step.
    pub fn picks(&self) -> &[DMatrix<f64>; 3] {
        &self.picks
    }

    /// `S`, `S₁`, `S₂`, `S₃` by their rows' non-zero weights: one Loop step to the four children
    /// (corner, at `r₀`, at `r₁`, middle) in O(non-zeros), bit-identical to the dense products.
    pub(crate) fn stencils(&self) -> &[SparseRows; 4] {
        &self.stencils
    }

    /// The Jordan matrix `J` (eigenvalues on the diagonal, 1 above a Jordan pair).
    ///
    /// # Performance
    /// O((n+6)²).
    pub fn jordan_matrix(&self) -> DMatrix<f64> {
        let mut j = DMatrix::from_diagonal(&DVector::from_row_slice(&self.eigenvalues));
        if let Some((a, b)) = self.jordan {
            j[(a, b)] = 1.0;
        }
        j
    }

    /// Eigen-coefficients `c = X⁻¹ p` of control points `p` (canonical order), one row of three
    /// coordinates per column of `X`.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `points.len() != n + 6`.
    ///
    /// # Performance
    /// O((n+6)²).
    pub fn coefficients(&self, points: &[[f64; 3]]) -> Result<Vec<[f64; 3]>> {
        if points.len() != self.size() {
            return Err(DeformError::LengthMismatch {
                what: "control points around an irregular patch",
                expected: self.size(),
                actual: points.len(),
            });
        }
        Ok((0..self.size())
            .map(|i| {
                let mut c = [0.0; 3];
                for (k, p) in points.iter().enumerate() {
                    let w = self.left[(i, k)];
                    for d in 0..3 {
                        c[d] += w * p[d];
                    }
                }
                c
            })
            .collect())
    }

    /// Eigen-coefficients after `steps` subdivision steps: `J^steps c` (`λᵢ^steps cᵢ`; a Jordan
    /// pair gets `c_a ← μʲ c_a + j μʲ⁻¹ c_b`).
    ///
    /// # Performance
    /// O(n + 6).
    pub fn advance(&self, coefficients: &mut [[f64; 3]], steps: u32) {
        let j = steps as f64;
        let coupled = self.jordan.map(|(a, b)| (a, coefficients[b]));
        for (c, &mu) in coefficients.iter_mut().zip(&self.eigenvalues) {
            let f = mu.powf(j);
            for x in c.iter_mut() {
                *x *= f;
            }
        }
        if let Some((a, cb)) = coupled
            && steps > 0
        {
            let g = j * self.eigenvalues[a].powf(j - 1.0);
            for d in 0..3 {
                coefficients[a][d] += g * cb[d];
            }
        }
    }

    /// Control points from eigen-coefficients: `p = X c`.
    ///
    /// # Performance
    /// O((n+6)²).
    pub fn points(&self, coefficients: &[[f64; 3]]) -> Vec<[f64; 3]> {
        (0..self.size())
            .map(|i| {
                let mut p = [0.0; 3];
                for (k, c) in coefficients.iter().enumerate() {
                    let w = self.right[(i, k)];
                    for d in 0..3 {
                        p[d] += w * c[d];
                    }
                }
                p
            })
            .collect()
    }
}

/// The eigen-decomposition for `valence`, computed on first use and kept for the process.
///
/// # Errors
/// [`DeformError::InvalidParameter`] when `valence` is outside
/// [`MIN_VALENCE`]`..=`[`MAX_VALENCE`].
///
/// # Performance
/// O((n+6)³) on the first call per valence, O(1) after.
pub fn loop_eigen(valence: usize) -> Result<&'static LoopEigen> {
    static TABLE: [OnceLock<LoopEigen>; MAX_VALENCE - MIN_VALENCE + 1] =
        [const { OnceLock::new() }; MAX_VALENCE - MIN_VALENCE + 1];
    if !(MIN_VALENCE..=MAX_VALENCE).contains(&valence) {
        return Err(DeformError::InvalidParameter {
            name: "valence",
            value: valence as f32,
            reason: "Loop eigenstructures are tabulated for valences 3..=12",
        });
    }
    Ok(TABLE[valence - MIN_VALENCE].get_or_init(|| LoopEigen::build(valence)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decomposition_residuals_are_tiny_and_only_valence_3_is_defective() {
        for n in MIN_VALENCE..=MAX_VALENCE {
            let e = loop_eigen(n).unwrap();
            let r = e.subdivision() * e.right() - e.right() * e.jordan_matrix();
            assert!(r.amax() < 1e-13, "valence {n}: {}", r.amax());
            let id = e.left() * e.right() - DMatrix::identity(e.size(), e.size());
            assert!(id.amax() < 1e-12, "valence {n}: {}", id.amax());
            assert_eq!(e.jordan().is_some(), n == 3, "valence {n}");
            let lambda = 0.375 + 0.25 * (TAU / n as f64).cos();
            assert_eq!(e.eigenvalues()[0], 1.0);
            assert!((e.eigenvalues()[1] - lambda).abs() < 1e-15);
            assert!((e.eigenvalues()[2] - lambda).abs() < 1e-15);
            assert!(e.eigenvalues()[3] < lambda - 1e-3);
        }
        assert!(loop_eigen(2).is_err());
        assert!(loop_eigen(13).is_err());
    }
}
