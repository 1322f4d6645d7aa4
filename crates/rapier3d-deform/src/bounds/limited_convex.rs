//! The limited-convex-combination linear program: the exact extreme of `Σ w_k v_k` when each weight lies in a range and the weights sum to one.

use crate::math::Interval;

/// One governor's term in a limited convex combination: its weight range over the patch and the
/// range of the value it contributes (e.g. one coordinate of its image of the patch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightedTerm {
    /// Range `[w_min, w_max]` of the governor's weight over the patch (0 ≤ w_min ≤ w_max ≤ 1).
    pub weight: Interval,
    /// Range of the value this governor contributes.
    pub value: Interval,
}

/// Caller-owned scratch memory for [`limited_convex_max`], so bounds never allocate per query.
#[derive(Clone, Debug, Default)]
pub struct LimitedConvexWorkspace {
    /// `(value, w_min, w_max)` of the terms, reordered by the quickselect above 16 terms.
    pub(crate) order: Vec<(f32, f32, f32)>,
    values: Vec<f32>,
    w_min: Vec<f32>,
    w_max: Vec<f32>,
}

/// Exact upper bound of `Σ_k w_k v_k` over all `w` with `w_k ∈ terms[k].weight`, `Σ_k w_k = 1`
/// and `v_k ≤ terms[k].value.hi` — the per-axis linear program of Steinemann & Otaduy's limited
/// convex combinations, solved exactly.
///
/// Greedy: every weight starts at its minimum, and the remaining budget `1 − Σ w_min` goes to the
/// largest values first. The returned number is the dual bound `λ + Σ_k max(w_min (v_k − λ),
/// w_max (v_k − λ))` at the marginal value `λ`, evaluated with outward rounding, which is a valid
/// upper bound for any λ (it uses only `Σ w = 1`) and equals the optimum at the greedy's λ. It is
/// never looser than the extreme-corner construction of the seed paper.
///
/// Returns `-inf` for an empty term list.
///
/// # Performance
/// O(m) expected for m terms (a weighted quickselect; an insertion sort of indices below 16
/// terms); no allocation once `ws` has grown.
pub fn limited_convex_max(terms: &[WeightedTerm], ws: &mut LimitedConvexWorkspace) -> f32 {
    limited_convex_bound(terms.iter().map(|t| (t.weight, t.value.hi)), ws)
}

/// Exact lower bound of `Σ_k w_k v_k` (the mirror of [`limited_convex_max`]).
///
/// # Performance
/// O(m) expected.
pub fn limited_convex_min(terms: &[WeightedTerm], ws: &mut LimitedConvexWorkspace) -> f32 {
    -limited_convex_bound(terms.iter().map(|t| (t.weight, -t.value.lo)), ws)
}

/// Both ends: `[limited_convex_min, limited_convex_max]`.
///
/// # Performance
/// O(m) expected.
pub fn limited_convex_range(terms: &[WeightedTerm], ws: &mut LimitedConvexWorkspace) -> Interval {
    Interval::new(limited_convex_min(terms, ws), limited_convex_max(terms, ws))
}

/// The core: upper bound of `Σ w_k v_k` for `(weight range, value)` pairs.
///
/// # Performance
/// O(m) expected.
pub fn limited_convex_bound(
    terms: impl IntoIterator<Item = (Interval, f32)>,
    ws: &mut LimitedConvexWorkspace,
) -> f32 {
    ws.values.clear();
    ws.w_min.clear();
    ws.w_max.clear();
    for (w, v) in terms {
        ws.values.push(v);
        ws.w_min.push(w.lo);
        ws.w_max.push(w.hi);
    }
    let budget = weight_budget(&ws.w_min);
    limited_convex_bound_of(&ws.values, &ws.w_min, &ws.w_max, budget, &mut ws.order)
}

/// `1 − Σ w_min` in `f64`: the weight left once every weight is at its minimum.
///
/// # Performance
/// O(m).
#[inline]
pub(crate) fn weight_budget(w_min: &[f32]) -> f64 {
    let mut budget = 1.0f64;
    for &lo in w_min {
        budget -= lo as f64;
    }
    budget
}

/// [`limited_convex_bound`] over parallel slices: `values[k]` with weight range
/// `[w_min[k], w_max[k]]`, and the [`weight_budget`] of `w_min` (callers bounding several values
/// under the same weights compute it once). `order` is scratch for more than 16 terms.
///
/// # Performance
/// O(m) expected; below 16 terms an insertion sort of one-byte indices.
pub(crate) fn limited_convex_bound_of(
    values: &[f32],
    w_min: &[f32],
    w_max: &[f32],
    budget: f64,
    order: &mut Vec<(f32, f32, f32)>,
) -> f32 {
    if values.is_empty() {
        return f32::NEG_INFINITY;
    }
    // The marginal value λ: where the budget runs out walking down from the largest value. When
    // the minima already exceed one (budget ≤ 0), λ is the largest value; when the maxima cannot
    // reach one (infeasible by rounding), the smallest.
    let lambda = if budget <= 0.0 {
        values.iter().copied().fold(f32::NEG_INFINITY, f32::max)
    } else if values.len() <= 16 {
        small_marginal_value(values, w_min, w_max, budget)
    } else {
        order.clear();
        order.extend(
            values
                .iter()
                .zip(w_min.iter().zip(w_max))
                .map(|(&v, (&lo, &hi))| (v, lo, hi)),
        );
        marginal_value(order, budget)
    };
    // The dual bound in f64: f32 values and their differences and products are exact or
    // nearly so there; the accumulated f64 rounding is bounded by (m + 4) ε₆₄ Σ|terms| and added
    // before one outward rounding to f32.
    let lambda64 = lambda as f64;
    let mut acc = lambda64;
    let mut magnitude = lambda64.abs();
    for ((&v, &lo), &hi) in values.iter().zip(w_min).zip(w_max) {
        let d = v as f64 - lambda64;
        let term = (d * lo as f64).max(d * hi as f64);
        acc += term;
        magnitude += term.abs();
    }
    let err = magnitude * (values.len() as f64 + 4.0) * f64::EPSILON;
    ((acc + err) as f32).next_up()
}

/// The greedy's marginal value for at most 16 terms (`budget > 0`): the terms' indices sorted
/// by value, largest first (an insertion sort of bytes on the stack; a float comparison per
/// step, the values of validated governors being finite), then walked until their capacities
/// `w_max − w_min` use up the budget.
///
/// # Performance
/// O(m²) comparisons at worst, m ≤ 16; no memory traffic beyond the inputs.
#[inline]
fn small_marginal_value(values: &[f32], w_min: &[f32], w_max: &[f32], mut budget: f64) -> f32 {
    let m = values.len().min(16);
    let mut order = [0u8; 16];
    for i in 0..m {
        let v = values[i];
        let mut j = i;
        while j > 0 && values[order[j - 1] as usize] < v {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = i as u8;
    }
    for &i in &order[..m] {
        let i = i as usize;
        budget -= (w_max[i] - w_min[i]) as f64;
        if budget <= 0.0 {
            return values[i];
        }
    }
    // Infeasible by rounding: every weight at its maximum; λ is the smallest value.
    values[order[m - 1] as usize]
}

/// Weighted quickselect for the greedy's marginal value over `(value, w_min, w_max)` items:
/// the value at which the cumulative capacity `Σ (w_max − w_min)` of the largest values first
/// reaches `budget`.
///
/// # Performance
/// O(m) expected (halving partitions with `select_nth_unstable`), a sort below 16 items.
fn marginal_value(items: &mut [(f32, f32, f32)], mut budget: f64) -> f32 {
    let descending = |a: &(f32, f32, f32), b: &(f32, f32, f32)| b.0.total_cmp(&a.0);
    if budget <= 0.0 {
        return items.iter().map(|x| x.0).fold(f32::NEG_INFINITY, f32::max);
    }
    let (mut lo, mut hi) = (0usize, items.len());
    loop {
        let part = &mut items[lo..hi];
        if part.len() <= 16 {
            // Insertion sort, largest value first: a float comparison per step (the values of
            // validated governors are finite) is cheaper than `total_cmp`'s.
            for i in 1..part.len() {
                let item = part[i];
                let mut j = i;
                while j > 0 && part[j - 1].0 < item.0 {
                    part[j] = part[j - 1];
                    j -= 1;
                }
                part[j] = item;
            }
            for &(v, w_lo, w_hi) in part.iter() {
                budget -= (w_hi - w_lo) as f64;
                if budget <= 0.0 {
                    return v;
                }
            }
            // Infeasible by rounding: every weight at its maximum; λ is the smallest value.
            return part[part.len() - 1].0;
        }
        let k = part.len() / 2;
        let _ = part.select_nth_unstable_by(k, descending);
        let left: f64 = part[..k].iter().map(|x| (x.2 - x.1) as f64).sum();
        if left >= budget {
            hi = lo + k;
            continue;
        }
        let with_k = left + (part[k].2 - part[k].1) as f64;
        if with_k >= budget {
            return part[k].0;
        }
        budget -= with_k;
        if lo + k + 1 >= hi {
            return part[k].0;
        }
        lo += k + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(s: &mut u64) -> f32 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Brute force: vertices of the feasible polytope are reached by the greedy; here we sample
    /// many feasible weight vectors and check none exceeds the bound, and that the bound is met
    /// (within rounding) by the greedy's own weight vector.
    #[test]
    fn bound_is_valid_and_tight() {
        let mut s = 12345u64;
        let mut ws = LimitedConvexWorkspace::default();
        for _ in 0..2000 {
            let m = 1 + (next(&mut s) * 60.0) as usize;
            // Random feasible weight vectors: take several random convex vectors and bound their
            // componentwise range: then each sampled vector is feasible by construction.
            let samples: Vec<Vec<f32>> = (0..5)
                .map(|_| {
                    let raw: Vec<f32> = (0..m).map(|_| next(&mut s) + 1e-3).collect();
                    let sum: f32 = raw.iter().sum();
                    raw.iter().map(|x| x / sum).collect()
                })
                .collect();
            let values: Vec<f32> = (0..m).map(|_| next(&mut s) * 10.0 - 5.0).collect();
            let terms: Vec<WeightedTerm> = (0..m)
                .map(|k| {
                    let w = samples
                        .iter()
                        .fold(Interval::EMPTY, |acc, smp| acc.hull_point(smp[k]));
                    WeightedTerm {
                        weight: w,
                        value: Interval::point(values[k]),
                    }
                })
                .collect();
            let hi = limited_convex_max(&terms, &mut ws);
            let lo = limited_convex_min(&terms, &mut ws);
            for smp in &samples {
                let v: f64 = smp
                    .iter()
                    .zip(&values)
                    .map(|(w, v)| *w as f64 * *v as f64)
                    .sum();
                assert!(
                    v <= hi as f64 + 1e-6 && v >= lo as f64 - 1e-6,
                    "{v} not in [{lo},{hi}]"
                );
            }
            // Tightness: the greedy optimum computed independently in f64.
            let mut idx: Vec<usize> = (0..m).collect();
            idx.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
            let mut w: Vec<f64> = terms.iter().map(|t| t.weight.lo as f64).collect();
            let mut budget = 1.0 - w.iter().sum::<f64>();
            for &k in &idx {
                let add = (terms[k].weight.hi as f64 - w[k]).min(budget.max(0.0));
                w[k] += add;
                budget -= add;
            }
            let opt: f64 = w.iter().zip(&values).map(|(w, v)| w * *v as f64).sum();
            assert!(
                (hi as f64 - opt).abs() < 1e-4,
                "bound {hi} vs optimum {opt}"
            );
        }
    }

    #[test]
    fn never_looser_than_extreme_corner_construction() {
        // The seed's construction: Σ w_min v + (1 − Σ w_min) · max v (for v ≥ 0).
        let mut ws = LimitedConvexWorkspace::default();
        let terms = [
            WeightedTerm {
                weight: Interval::new(0.2, 0.5),
                value: Interval::point(3.0),
            },
            WeightedTerm {
                weight: Interval::new(0.1, 0.9),
                value: Interval::point(1.0),
            },
            WeightedTerm {
                weight: Interval::new(0.0, 0.3),
                value: Interval::point(2.0),
            },
        ];
        let corner = 0.2 * 3.0 + 0.1 * 1.0 + 0.0 * 2.0 + (1.0 - 0.3) * 3.0;
        let exact = 0.5 * 3.0 + 0.3 * 2.0 + 0.2 * 1.0;
        let hi = limited_convex_max(&terms, &mut ws);
        assert!(hi <= corner);
        assert!((hi - exact).abs() < 1e-5);
    }
}
