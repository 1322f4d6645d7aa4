//! Triangular Bézier (Bernstein) polynomials and the Bézier form of a regular Loop patch (a quartic box spline).

use super::local_matrix::{Child, REGULAR_POINTS, picking_matrix, regular_limit_row};
use super::local_matrix::{REGULAR_VALENCE, subdivision_matrix};
use rapier3d::na::DMatrix;
use std::sync::OnceLock;

/// Number of coefficients of a degree-`d` triangular Bézier polynomial.
pub(crate) const fn coefficient_count(d: usize) -> usize {
    (d + 1) * (d + 2) / 2
}

/// Position of the multi-index `(d − j − k, j, k)` (powers of `w = 1 − s − t`, `s`, `t`).
pub(crate) const fn index_of(d: usize, j: usize, k: usize) -> usize {
    j * (d + 1) - j * j.saturating_sub(1) / 2 + k
}

/// The multi-indices of degree `d` in storage order.
pub(crate) fn indices(d: usize) -> Vec<[usize; 3]> {
    let mut out = Vec::with_capacity(coefficient_count(d));
    for j in 0..=d {
        for k in 0..=d - j {
            out.push([d - j - k, j, k]);
        }
    }
    out
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|x| x as f64).product()
}

/// The multinomial `d! / (i! j! k!)`.
pub(crate) fn multinomial(a: [usize; 3]) -> f64 {
    factorial(a[0] + a[1] + a[2]) / (factorial(a[0]) * factorial(a[1]) * factorial(a[2]))
}

/// The blossom of a degree-`d` polynomial (coefficients in storage order) at `d` barycentric
/// points `(w, s, t)`; at `d` equal points it is the value there.
pub(crate) fn blossom(d: usize, coefficients: &[f64], points: &[[f64; 3]]) -> f64 {
    debug_assert_eq!(points.len(), d);
    let mut cur = coefficients.to_vec();
    for (step, p) in points.iter().enumerate() {
        let deg = d - step;
        let mut next = Vec::with_capacity(coefficient_count(deg - 1));
        for [_, j, k] in indices(deg - 1) {
            next.push(
                p[0] * cur[index_of(deg, j, k)]
                    + p[1] * cur[index_of(deg, j + 1, k)]
                    + p[2] * cur[index_of(deg, j, k + 1)],
            );
        }
        cur = next;
    }
    cur[0]
}

/// The coefficients of the restriction to the sub-triangle with barycentric corners `corners`.
pub(crate) fn restrict(d: usize, coefficients: &[f64], corners: &[[f64; 3]; 3]) -> Vec<f64> {
    indices(d)
        .into_iter()
        .map(|a| {
            let mut pts = Vec::with_capacity(d);
            for (c, &m) in a.iter().enumerate() {
                pts.extend(std::iter::repeat_n(corners[c], m));
            }
            blossom(d, coefficients, &pts)
        })
        .collect()
}

/// Coefficients of `∂/∂s` and `∂/∂t` (degree `d − 1`) of a degree-`d` polynomial.
pub(crate) fn derivatives(d: usize, coefficients: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let df = d as f64;
    indices(d - 1)
        .into_iter()
        .map(|[_, j, k]| {
            let w = coefficients[index_of(d, j, k)];
            (
                df * (coefficients[index_of(d, j + 1, k)] - w),
                df * (coefficients[index_of(d, j, k + 1)] - w),
            )
        })
        .unzip()
}

/// The value of a degree-`d` polynomial at `(s, t)`.
#[cfg(test)]
pub(crate) fn evaluate(d: usize, coefficients: &[f64], s: f64, t: f64) -> f64 {
    let p = [1.0 - s - t, s, t];
    blossom(d, coefficients, &vec![p; d])
}

/// The coefficients of `f × g` for vector polynomials of degrees `df`, `dg` (degree `df + dg`).
#[cfg(test)]
pub(crate) fn cross_product(df: usize, f: &[[f64; 3]], dg: usize, g: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let d = df + dg;
    let mut out = vec![[0.0; 3]; coefficient_count(d)];
    let mut accumulate = |ia: usize, ib: usize, o: usize, w: f64| {
        let (x, y) = (f[ia], g[ib]);
        let o = &mut out[o];
        o[0] += w * (x[1] * y[2] - x[2] * y[1]);
        o[1] += w * (x[2] * y[0] - x[0] * y[2]);
        o[2] += w * (x[0] * y[1] - x[1] * y[0]);
    };
    if (df, dg) == (3, 3) {
        for &(ia, ib, o, w) in product_terms_3x3() {
            accumulate(ia, ib, o, w);
        }
        return out;
    }
    for (ia, a, ib, b) in product_terms(df, dg) {
        let c = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        accumulate(
            ia,
            ib,
            index_of(d, c[1], c[2]),
            multinomial(a) * multinomial(b) / multinomial(c),
        );
    }
    out
}

/// Every pair of multi-indices of degrees `df`, `dg` with their storage positions.
fn product_terms(df: usize, dg: usize) -> Vec<(usize, [usize; 3], usize, [usize; 3])> {
    let (fa, gb) = (indices(df), indices(dg));
    let mut out = Vec::with_capacity(fa.len() * gb.len());
    for (ia, &a) in fa.iter().enumerate() {
        for (ib, &b) in gb.iter().enumerate() {
            out.push((ia, a, ib, b));
        }
    }
    out
}

/// The terms `(f index, g index, product index, weight)` of [`cross_product`] for two cubics
/// (the normal of a regular patch), computed once.
fn product_terms_3x3() -> &'static [(usize, usize, usize, f64)] {
    static TERMS: OnceLock<Vec<(usize, usize, usize, f64)>> = OnceLock::new();
    TERMS.get_or_init(|| {
        product_terms(3, 3)
            .into_iter()
            .map(|(ia, a, ib, b)| {
                let c = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
                (
                    ia,
                    ib,
                    index_of(6, c[1], c[2]),
                    multinomial(a) * multinomial(b) / multinomial(c),
                )
            })
            .collect()
    })
}

/// The sub-triangles of a uniform split of the domain into `4^depth` triangles (barycentric
/// corners).
pub(crate) fn uniform_cells(depth: u32) -> Vec<[[f64; 3]; 3]> {
    let m = 1usize << depth;
    let mf = m as f64;
    let p = |i: usize, j: usize| {
        let (s, t) = (i as f64 / mf, j as f64 / mf);
        [1.0 - s - t, s, t]
    };
    let mut out = Vec::with_capacity(m * m);
    for i in 0..m {
        for j in 0..m - i {
            out.push([p(i, j), p(i + 1, j), p(i, j + 1)]);
            if i + j + 2 <= m {
                out.push([p(i + 1, j), p(i + 1, j + 1), p(i, j + 1)]);
            }
        }
    }
    out
}

/// The 15 × 12 matrix taking the 12 control points of a regular Loop patch (canonical order) to
/// the 15 coefficients of its quartic Bézier form over `(s, t)`.
///
/// Derived, not transcribed: the limit positions (Loop's limit mask, `χ = 1/12`) of the corners
/// of the 16 patches after two subdivision steps (the four child maps composed) give the patch's
/// values at the 15 points `(j/4, k/4)`, and the quartic through them is the patch (a quartic box
/// spline is one polynomial over the patch).
///
/// # Performance
/// Computed once per process (a 15 × 15 solve).
pub(crate) fn regular_bezier() -> &'static DMatrix<f64> {
    static M: OnceLock<DMatrix<f64>> = OnceLock::new();
    M.get_or_init(|| {
        let children = [
            (Child::Corner, subdivision_matrix(REGULAR_VALENCE)),
            (Child::AtR0, picking_matrix(REGULAR_VALENCE, Child::AtR0)),
            (Child::AtR1, picking_matrix(REGULAR_VALENCE, Child::AtR1)),
            (
                Child::Middle,
                picking_matrix(REGULAR_VALENCE, Child::Middle),
            ),
        ];
        let n = coefficient_count(4);
        let mut values = DMatrix::zeros(n, REGULAR_POINTS);
        for (c1, m1) in &children {
            for (c2, m2) in &children {
                let m = m2 * m1;
                for (corner, (s, t)) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)].into_iter().enumerate()
                {
                    let (u1, v1) = c2.to_parent(s, t);
                    let (u, v) = c1.to_parent(u1, v1);
                    let (j, k) = ((4.0 * u).round() as usize, (4.0 * v).round() as usize);
                    let limit = regular_limit_row(corner);
                    for col in 0..REGULAR_POINTS {
                        values[(index_of(4, j, k), col)] =
                            (0..REGULAR_POINTS).map(|r| limit[r] * m[(r, col)]).sum();
                    }
                }
            }
        }
        let bernstein = DMatrix::from_fn(n, n, |row, col| {
            let a = indices(4)[col];
            let [_, j, k] = indices(4)[row];
            let (s, t) = (j as f64 / 4.0, k as f64 / 4.0);
            multinomial(a)
                * (1.0 - s - t).powi(a[0] as i32)
                * s.powi(a[1] as i32)
                * t.powi(a[2] as i32)
        });
        bernstein
            .lu()
            .solve(&values)
            .unwrap_or_else(|| unreachable!("quartic interpolation at (j/4, k/4) is unisolvent"))
    })
}

/// Bézier coefficients (15, 3D) of a regular patch from its 12 control points.
pub(crate) fn regular_patch(points: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let m = regular_bezier();
    (0..m.nrows())
        .map(|r| {
            let mut p = [0.0; 3];
            for (c, q) in points.iter().enumerate() {
                for d in 0..3 {
                    p[d] += m[(r, c)] * q[d];
                }
            }
            p
        })
        .collect()
}

/// The linear maps from a regular patch's 12 control points to the Bézier coefficients (10,
/// degree 3) of its two derivatives `s_s`, `s_t` (the quartic's coefficients differenced), tabulated
/// once.
fn regular_derivative_maps() -> &'static [[[f64; REGULAR_POINTS]; 10]; 2] {
    static MAPS: OnceLock<[[[f64; REGULAR_POINTS]; 10]; 2]> = OnceLock::new();
    MAPS.get_or_init(|| {
        let m = regular_bezier();
        let mut out = [[[0.0; REGULAR_POINTS]; 10]; 2];
        for (i, [_, j, k]) in indices(3).into_iter().enumerate() {
            for c in 0..REGULAR_POINTS {
                let w = m[(index_of(4, j, k), c)];
                out[0][i][c] = 4.0 * (m[(index_of(4, j + 1, k), c)] - w);
                out[1][i][c] = 4.0 * (m[(index_of(4, j, k + 1), c)] - w);
            }
        }
        out
    })
}

/// The Bézier coefficients (28, degree 6) of `s_s × s_t` of a regular patch: every normal of the
/// patch is a non-negative combination of them.
///
/// # Performance
/// O(2 · 10 · 12 + 100) multiply-adds of 3D vectors through tabulated maps, no allocation.
pub(crate) fn regular_normal_coefficients(points: &[[f64; 3]]) -> [[f64; 3]; 28] {
    let maps = regular_derivative_maps();
    let mut du = [[0.0; 3]; 10];
    let mut dv = [[0.0; 3]; 10];
    for (q, p) in points.iter().take(REGULAR_POINTS).enumerate() {
        for i in 0..10 {
            let (a, b) = (maps[0][i][q], maps[1][i][q]);
            for d in 0..3 {
                du[i][d] += a * p[d];
                dv[i][d] += b * p[d];
            }
        }
    }
    let mut out = [[0.0; 3]; 28];
    for &(ia, ib, o, w) in product_terms_3x3() {
        let (x, y) = (du[ia], dv[ib]);
        let o = &mut out[o];
        o[0] += w * (x[1] * y[2] - x[2] * y[1]);
        o[1] += w * (x[2] * y[0] - x[0] * y[2]);
        o[2] += w * (x[0] * y[1] - x[1] * y[0]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tabulated path of `regular_normal_coefficients` against the general one: the
    /// quartic's derivatives differenced from its coefficients, multiplied by `cross_product`.
    #[test]
    fn tabulated_normal_coefficients_match_the_general_product() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..50 {
            let points: Vec<[f64; 3]> = (0..REGULAR_POINTS)
                .map(|_| [next(), next(), next()])
                .collect();
            let bez = regular_patch(&points);
            let mut du = vec![[0.0; 3]; coefficient_count(3)];
            let mut dv = vec![[0.0; 3]; coefficient_count(3)];
            for d in 0..3 {
                let scalar: Vec<f64> = bez.iter().map(|p| p[d]).collect();
                let (a, b) = derivatives(4, &scalar);
                for i in 0..a.len() {
                    du[i][d] = a[i];
                    dv[i][d] = b[i];
                }
            }
            let general = cross_product(3, &du, 3, &dv);
            let fast = regular_normal_coefficients(&points);
            assert_eq!(general.len(), fast.len());
            for (g, f) in general.iter().zip(&fast) {
                for d in 0..3 {
                    assert!(
                        (g[d] - f[d]).abs() < 1e-12 * (1.0 + g[d].abs()),
                        "{g:?} {f:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn storage_order_matches_index_of() {
        for d in 0..=6 {
            for (i, [_, j, k]) in indices(d).into_iter().enumerate() {
                assert_eq!(index_of(d, j, k), i);
            }
        }
    }

    #[test]
    fn regular_bezier_is_affine_and_matches_deeper_limit_points() {
        let m = regular_bezier();
        for r in 0..m.nrows() {
            assert!((m.row(r).sum() - 1.0).abs() < 1e-12);
        }
        // Level-3 limit points (one more composition) lie on the quartic.
        let children = [
            (Child::Corner, subdivision_matrix(REGULAR_VALENCE)),
            (Child::AtR0, picking_matrix(REGULAR_VALENCE, Child::AtR0)),
            (Child::AtR1, picking_matrix(REGULAR_VALENCE, Child::AtR1)),
            (
                Child::Middle,
                picking_matrix(REGULAR_VALENCE, Child::Middle),
            ),
        ];
        let q: Vec<f64> = (0..12)
            .map(|i| ((i * 7919) % 13) as f64 * 0.37 - 1.0)
            .collect();
        let bez: Vec<f64> = (0..15)
            .map(|r| (0..12).map(|c| m[(r, c)] * q[c]).sum())
            .collect();
        for (c1, m1) in &children {
            for (c2, m2) in &children {
                for (c3, m3) in &children {
                    let mm = m3 * m2 * m1;
                    for (corner, (s, t)) in
                        [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)].into_iter().enumerate()
                    {
                        let (a, b) = c3.to_parent(s, t);
                        let (a, b) = c2.to_parent(a, b);
                        let (u, v) = c1.to_parent(a, b);
                        let limit = regular_limit_row(corner);
                        let direct: f64 = (0..12)
                            .map(|col| {
                                (0..12).map(|r| limit[r] * mm[(r, col)]).sum::<f64>() * q[col]
                            })
                            .sum();
                        assert!((direct - evaluate(4, &bez, u, v)).abs() < 1e-12);
                    }
                }
            }
        }
    }

    #[test]
    fn uniform_cells_cover_the_domain_area() {
        let cells = uniform_cells(3);
        assert_eq!(cells.len(), 64);
        let area: f64 = cells
            .iter()
            .map(|c| {
                let (a, b, d) = (c[0], c[1], c[2]);
                0.5 * ((b[1] - a[1]) * (d[2] - a[2]) - (b[2] - a[2]) * (d[1] - a[1]))
            })
            .sum();
        assert!((area - 0.5).abs() < 1e-14);
    }
}
