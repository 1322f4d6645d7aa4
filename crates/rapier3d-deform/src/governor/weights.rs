//! Sparse convex weights: per vertex, the governors that move it and how much (`w ≥ 0`, `Σ w = 1`).

use crate::error::{DeformError, Result};
use crate::limits::{MAX_GOVERNORS, MAX_INFLUENCES, MAX_VERTICES, check_count};
use crate::math::Interval;
use crate::mesh::{VertexOrder, is_permutation};

/// Per-vertex sparse convex weights in compressed-row form.
///
/// Invariants (checked by [`ConvexWeights::from_rows`]): every weight is finite and `> 0` (zeros
/// are dropped), governor indices are in range and unique within a row, each row sums to one
/// (renormalised; see [`ConvexWeights::SUM_TOLERANCE`]) and no row is empty.
/// [`ConvexWeights::from_csr`] and [`ConvexWeights::set_row_weights`] may keep explicit zeros in a
/// row's pattern (weights `≥ 0`), so that a row can be updated in place later.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ConvexWeights {
    offsets: Vec<u32>,
    governors: Vec<u32>,
    weights: Vec<f32>,
    governor_count: usize,
}

impl ConvexWeights {
    /// Rows whose sum is within this distance of 1 are renormalised silently; farther ones are
    /// rejected with [`DeformError::WeightSumOff`] (use [`ConvexWeights::from_rows_renormalised`]
    /// to accept any positive sum, as asset loaders do).
    pub const SUM_TOLERANCE: f32 = 1e-3;

    /// Builds weights from one `(governor, weight)` list per vertex, rejecting sums off by more
    /// than [`Self::SUM_TOLERANCE`].
    ///
    /// # Errors
    /// [`DeformError::LimitExceeded`] for more than [`MAX_GOVERNORS`] governors or
    /// [`MAX_VERTICES`] rows, [`DeformError::TooManyInfluences`] for a row with more than
    /// [`MAX_INFLUENCES`] entries, [`DeformError::NonFiniteWeight`],
    /// [`DeformError::NegativeWeight`], [`DeformError::GovernorIndexOutOfRange`],
    /// [`DeformError::WeightSumOff`] (also for a row whose weights are all zero). Sums are
    /// taken in `f64`, so rows of huge finite weights renormalise correctly.
    ///
    /// # Performance
    /// O(total influences · influences per vertex) (duplicate merge per row).
    pub fn from_rows<R, I>(rows: R, governor_count: usize) -> Result<Self>
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = (u32, f32)>,
    {
        Self::build(rows, governor_count, Some(Self::SUM_TOLERANCE)).map(|(w, _)| w)
    }

    /// Like [`Self::from_rows`] but renormalises any row with a positive sum, and returns how many
    /// rows were off by more than [`Self::SUM_TOLERANCE`] (for load reports). A row summing to
    /// zero is still an error.
    ///
    /// # Errors
    /// As [`Self::from_rows`], except that [`DeformError::WeightSumOff`] is only for zero sums.
    pub fn from_rows_renormalised<R, I>(rows: R, governor_count: usize) -> Result<(Self, usize)>
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = (u32, f32)>,
    {
        Self::build(rows, governor_count, None)
    }

    /// Builds weights from compressed rows: row `v` is `governors[offsets[v]..offsets[v + 1]]` with
    /// the matching `weights`. Unlike [`Self::from_rows`], explicit zeros stay in the pattern
    /// (so [`Self::set_row_weights`] can later give them a value), and duplicates are rejected
    /// rather than merged. Rows are renormalised within [`Self::SUM_TOLERANCE`].
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] for malformed offsets or unequal array lengths,
    /// [`DeformError::LimitExceeded`] for more than [`MAX_GOVERNORS`] governors or
    /// [`MAX_VERTICES`] rows, [`DeformError::TooManyInfluences`] for a row longer than
    /// [`MAX_INFLUENCES`], [`DeformError::NonFiniteWeight`], [`DeformError::NegativeWeight`],
    /// [`DeformError::GovernorIndexOutOfRange`] (also for a repeated governor in a row, reported
    /// with that governor), [`DeformError::WeightSumOff`].
    ///
    /// # Performance
    /// O(Σ row length²) (row lengths are at most [`MAX_INFLUENCES`]); allocates nothing beyond
    /// the given arrays.
    pub fn from_csr(
        offsets: Vec<u32>,
        governors: Vec<u32>,
        mut weights: Vec<f32>,
        governor_count: usize,
    ) -> Result<Self> {
        let total = governors.len();
        let well_formed = offsets.first() == Some(&0)
            && offsets.last().map(|&l| l as usize) == Some(total)
            && offsets.windows(2).all(|w| w[0] <= w[1]);
        if !well_formed {
            return Err(DeformError::LengthMismatch {
                what: "CSR offsets (must start at 0, not decrease, end at the entry count)",
                expected: total,
                actual: offsets.last().map_or(0, |&l| l as usize),
            });
        }
        if weights.len() != total {
            return Err(DeformError::LengthMismatch {
                what: "CSR weights",
                expected: total,
                actual: weights.len(),
            });
        }
        check_count("governors", governor_count, MAX_GOVERNORS)?;
        check_count("vertices", offsets.len() - 1, MAX_VERTICES)?;
        for vertex in 0..offsets.len() - 1 {
            let (a, b) = (offsets[vertex] as usize, offsets[vertex + 1] as usize);
            check_influences(vertex, b - a)?;
            for slot in 0..b - a {
                let g = governors[a + slot];
                // Rows are short (at most MAX_INFLUENCES): a scan finds a repeat without a
                // per-governor buffer, whose size would be the caller's unchecked count.
                if g as usize >= governor_count || governors[a..a + slot].contains(&g) {
                    return Err(DeformError::GovernorIndexOutOfRange {
                        vertex,
                        governor: g,
                        governor_count,
                    });
                }
            }
            normalise_row(vertex, &mut weights[a..b])?;
        }
        Ok(Self {
            offsets,
            governors,
            weights,
            governor_count,
        })
    }

    /// The rows listed by `old_of_new` (row `i` of the result is row `old_of_new[i]`), copied
    /// bit for bit (no renormalisation: the rows are already valid).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] unless `old_of_new` is a permutation of the rows.
    ///
    /// # Performance
    /// O(vertices + influences).
    pub fn permuted(&self, old_of_new: &[u32]) -> Result<Self> {
        let n = self.vertex_count();
        if !is_permutation(old_of_new, n) {
            return Err(DeformError::InvalidParameter {
                name: "old_of_new",
                value: old_of_new.len() as f32,
                reason: "must list every weight row exactly once",
            });
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut governors = Vec::with_capacity(self.governors.len());
        let mut weights = Vec::with_capacity(self.weights.len());
        offsets.push(0u32);
        for &old in old_of_new {
            let (g, w) = self.row(old as usize);
            governors.extend_from_slice(g);
            weights.extend_from_slice(w);
            offsets.push(governors.len() as u32);
        }
        Ok(Self {
            offsets,
            governors,
            weights,
            governor_count: self.governor_count,
        })
    }

    /// Replaces the weights of vertex `v` in place, keeping its governor pattern (explicit zeros
    /// allowed); `weights[i]` goes to the `i`-th governor of [`Self::row`]. The row is validated
    /// and renormalised like [`Self::from_rows`]; on error nothing changes.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a bad vertex, [`DeformError::LengthMismatch`] when
    /// `weights` does not match the row's pattern, [`DeformError::NonFiniteWeight`],
    /// [`DeformError::NegativeWeight`], [`DeformError::WeightSumOff`].
    ///
    /// # Performance
    /// O(row length), no allocation.
    pub fn set_row_weights(&mut self, v: usize, weights: &[f32]) -> Result<()> {
        if v >= self.vertex_count() {
            return Err(DeformError::IndexOutOfRange {
                what: "vertex",
                index: v,
                len: self.vertex_count(),
            });
        }
        let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        if weights.len() != b - a {
            return Err(DeformError::LengthMismatch {
                what: "row weights",
                expected: b - a,
                actual: weights.len(),
            });
        }
        let sum = check_row(v, weights)?;
        for (dst, &w) in self.weights[a..b].iter_mut().zip(weights) {
            *dst = w / sum;
        }
        Ok(())
    }

    fn build<R, I>(rows: R, governor_count: usize, tolerance: Option<f32>) -> Result<(Self, usize)>
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = (u32, f32)>,
    {
        let mut out = Self {
            offsets: vec![0],
            governors: Vec::new(),
            weights: Vec::new(),
            governor_count,
        };
        check_count("governors", governor_count, MAX_GOVERNORS)?;
        let mut renormalised = 0;
        for (vertex, row) in rows.into_iter().enumerate() {
            check_count("vertices", vertex + 1, MAX_VERTICES)?;
            let start = out.governors.len();
            for (slot, (g, w)) in row.into_iter().enumerate() {
                check_influences(vertex, slot + 1)?;
                check_weight(vertex, slot, w)?;
                if g as usize >= governor_count {
                    return Err(DeformError::GovernorIndexOutOfRange {
                        vertex,
                        governor: g,
                        governor_count,
                    });
                }
                if w == 0.0 {
                    continue;
                }
                if let Some(i) = out.governors[start..].iter().position(|&x| x == g) {
                    out.weights[start + i] += w;
                } else {
                    out.governors.push(g);
                    out.weights.push(w);
                }
            }
            let sum = row_sum(&out.weights[start..]);
            let off = (sum - 1.0).abs();
            let reject = match tolerance {
                Some(tol) => off > f64::from(tol),
                None => false,
            };
            if sum <= 0.0 || reject {
                return Err(DeformError::WeightSumOff {
                    vertex,
                    sum: sum as f32,
                    tolerance: tolerance.unwrap_or(1.0),
                });
            }
            if off > f64::from(Self::SUM_TOLERANCE) {
                renormalised += 1;
            }
            for w in &mut out.weights[start..] {
                *w = (f64::from(*w) / sum) as f32;
            }
            out.offsets.push(out.governors.len() as u32);
        }
        Ok((out, renormalised))
    }

    /// Number of vertices.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of governors the indices refer to.
    #[inline]
    pub fn governor_count(&self) -> usize {
        self.governor_count
    }

    /// The governors and weights of vertex `v`.
    #[inline]
    pub fn row(&self, v: usize) -> (&[u32], &[f32]) {
        let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        (&self.governors[a..b], &self.weights[a..b])
    }

    /// The rows as stored: offsets (row `v` is `offsets[v]..offsets[v + 1]`), governors and
    /// weights, for loops over every row in order.
    #[inline]
    pub(crate) fn csr(&self) -> (&[u32], &[u32], &[f32]) {
        (&self.offsets, &self.governors, &self.weights)
    }

    /// The `(governor, weight)` pairs of vertex `v`.
    #[inline]
    pub fn iter_row(&self, v: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (g, w) = self.row(v);
        g.iter().copied().zip(w.iter().copied())
    }

    /// Weight of governor `g` at vertex `v` (0 when it has no influence).
    #[inline]
    pub fn weight(&self, v: usize, g: u32) -> f32 {
        self.iter_row(v)
            .find(|&(x, _)| x == g)
            .map_or(0.0, |(_, w)| w)
    }

    /// Largest number of influences of any vertex.
    pub fn max_influences(&self) -> usize {
        self.offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// Total number of stored influences.
    #[inline]
    pub fn influence_count(&self) -> usize {
        self.governors.len()
    }

    /// Rejects rows with more than `max` influences.
    ///
    /// # Errors
    /// [`DeformError::TooManyInfluences`] naming the first such vertex.
    pub fn check_max_influences(&self, max: usize) -> Result<()> {
        for v in 0..self.vertex_count() {
            let count = self.row(v).0.len();
            if count > max {
                return Err(DeformError::TooManyInfluences {
                    vertex: v,
                    count,
                    max,
                });
            }
        }
        Ok(())
    }

    /// Composes with per-governor weights: vertex `v` gets weight `Σ_g w_vg · W[g][h]` on governor
    /// `h` of the outer set. Used to turn subdivision stencils of stencils into one stencil, and
    /// to push skin weights through subdivision.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless `inner` has one row per governor of `self`.
    ///
    /// # Performance
    /// O(Σ row lengths of the result).
    pub fn compose(&self, inner: &ConvexWeights) -> Result<ConvexWeights> {
        if inner.vertex_count() != self.governor_count {
            return Err(DeformError::LengthMismatch {
                what: "inner weight rows (one per governor of the outer weights)",
                expected: self.governor_count,
                actual: inner.vertex_count(),
            });
        }
        let mut out = ConvexWeights {
            offsets: vec![0],
            governors: Vec::with_capacity(self.governors.len()),
            weights: Vec::with_capacity(self.weights.len()),
            governor_count: inner.governor_count,
        };
        for v in 0..self.vertex_count() {
            let start = out.governors.len();
            for (g, w) in self.iter_row(v) {
                for (h, u) in inner.iter_row(g as usize) {
                    let wu = w * u;
                    if let Some(i) = out.governors[start..].iter().position(|&x| x == h) {
                        out.weights[start + i] += wu;
                    } else {
                        out.governors.push(h);
                        out.weights.push(wu);
                    }
                }
            }
            out.offsets.push(out.governors.len() as u32);
        }
        Ok(out)
    }

    /// Keeps the `max` largest influences of every row and renormalises (how engines limit
    /// skinning to 4 or 8 bones).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for `max = 0` (a row needs one influence).
    ///
    /// # Performance
    /// O(Σ k log k) over the rows' lengths k.
    pub fn truncated(&self, max: usize) -> Result<ConvexWeights> {
        if max == 0 {
            return Err(DeformError::InvalidParameter {
                name: "max",
                value: 0.0,
                reason: "a row keeps at least one influence",
            });
        }
        let mut rows: Vec<Vec<(u32, f32)>> = Vec::with_capacity(self.vertex_count());
        for v in 0..self.vertex_count() {
            let mut r: Vec<(u32, f32)> = self.iter_row(v).collect();
            r.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            r.truncate(max);
            rows.push(r);
        }
        // The kept weights are the largest of a valid row: positive, so the sum is too.
        Self::build(rows, self.governor_count, None).map(|(w, _)| w)
    }

    /// Per governor, the range of its weight over `vertices` (governors absent from a vertex count
    /// as weight 0 there). Returns sorted `(governor, range)` pairs for the governors that touch
    /// at least one of the vertices.
    ///
    /// # Performance
    /// O(influences of `vertices` · log).
    pub fn ranges_over(&self, vertices: &[u32]) -> Vec<(u32, Interval)> {
        let mut touched: Vec<(u32, Interval, u32)> = Vec::new();
        for &v in vertices {
            for (g, w) in self.iter_row(v as usize) {
                match touched.binary_search_by_key(&g, |e| e.0) {
                    Ok(i) => {
                        touched[i].1 = touched[i].1.hull_point(w);
                        touched[i].2 += 1;
                    }
                    Err(i) => touched.insert(i, (g, Interval::point(w), 1)),
                }
            }
        }
        touched
            .into_iter()
            .map(|(g, r, n)| {
                (
                    g,
                    if (n as usize) < vertices.len() {
                        r.hull_point(0.0)
                    } else {
                        r
                    },
                )
            })
            .collect()
    }
}

// The weight permutation of a vertex order lives here, with the weights: `mesh` sits above
// `governor` and knows nothing of weights.
impl VertexOrder {
    /// Weight rows in the new order, bit for bit (so deformed positions are too).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless there is one row per vertex.
    ///
    /// # Performance
    /// O(total influences).
    pub fn weights(&self, weights: &ConvexWeights) -> Result<ConvexWeights> {
        self.check_len("weight rows", weights.vertex_count())?;
        weights.permuted(self.old_of_new())
    }
}

/// Rejects one non-finite or negative weight (`slot` of `vertex`'s row).
#[inline]
fn check_weight(vertex: usize, slot: usize, w: f32) -> Result<()> {
    if !w.is_finite() {
        return Err(DeformError::NonFiniteWeight { vertex, slot });
    }
    if w < 0.0 {
        return Err(DeformError::NegativeWeight {
            vertex,
            slot,
            value: w,
        });
    }
    Ok(())
}

/// Validates one row (finite, `≥ 0`, sum within [`ConvexWeights::SUM_TOLERANCE`] of 1) and
/// returns its sum.
pub(crate) fn check_row(vertex: usize, weights: &[f32]) -> Result<f32> {
    for (slot, &w) in weights.iter().enumerate() {
        check_weight(vertex, slot, w)?;
    }
    let sum = row_sum(weights);
    if sum <= 0.0 || (sum - 1.0).abs() > f64::from(ConvexWeights::SUM_TOLERANCE) {
        return Err(DeformError::WeightSumOff {
            vertex,
            sum: sum as f32,
            tolerance: ConvexWeights::SUM_TOLERANCE,
        });
    }
    Ok(sum as f32)
}

/// The sum of a row of finite weights, in `f64` (finite even for weights near `f32::MAX`).
#[inline]
fn row_sum(weights: &[f32]) -> f64 {
    weights.iter().map(|&w| f64::from(w)).sum()
}

/// Rejects a row with more than [`MAX_INFLUENCES`] entries.
#[inline]
fn check_influences(vertex: usize, count: usize) -> Result<()> {
    if count > MAX_INFLUENCES {
        return Err(DeformError::TooManyInfluences {
            vertex,
            count,
            max: MAX_INFLUENCES,
        });
    }
    Ok(())
}

/// [`check_row`] for every row of `per_vertex`, `vertices` rows of `width` weights each
/// (row-major, one row per vertex), and the row sums; nothing is written, so that a caller can
/// validate every row before it changes any.
///
/// # Errors
/// [`DeformError::LengthMismatch`] unless `per_vertex` holds `vertices × width` weights; what
/// [`check_row`] rejects, naming the first bad vertex.
pub(crate) fn check_rows(per_vertex: &[f32], vertices: usize, width: usize) -> Result<Vec<f32>> {
    if per_vertex.len() != vertices * width {
        return Err(DeformError::LengthMismatch {
            what: "per-vertex example weights (vertices × examples)",
            expected: vertices * width,
            actual: per_vertex.len(),
        });
    }
    if width == 0 {
        return Ok(vec![0.0; vertices]);
    }
    per_vertex
        .chunks_exact(width)
        .enumerate()
        .map(|(v, row)| check_row(v, row))
        .collect()
}

/// Like [`check_row`] for a global (not per-vertex) weight vector, reported as
/// [`DeformError::InvalidGlobalWeight`] naming `what`.
pub(crate) fn check_global_row(what: &'static str, weights: &[f32]) -> Result<f32> {
    check_row(0, weights).map_err(|e| match e {
        DeformError::NonFiniteWeight { slot, .. } => DeformError::InvalidGlobalWeight {
            what,
            slot,
            value: weights[slot],
            reason: "not finite",
        },
        DeformError::NegativeWeight { slot, value, .. } => DeformError::InvalidGlobalWeight {
            what,
            slot,
            value,
            reason: "negative",
        },
        _ => DeformError::InvalidGlobalWeight {
            what,
            slot: weights.len(),
            value: row_sum(weights) as f32,
            reason: "the sum is more than ConvexWeights::SUM_TOLERANCE away from 1",
        },
    })
}

/// [`check_row`], then divides the row by its sum.
fn normalise_row(vertex: usize, weights: &mut [f32]) -> Result<()> {
    let sum = check_row(vertex, weights)?;
    for w in weights {
        *w /= sum;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renormalises_within_tolerance_and_rejects_beyond() {
        let w = ConvexWeights::from_rows([vec![(0, 0.5), (1, 0.5004)]], 2).unwrap();
        let s: f32 = w.row(0).1.iter().sum();
        assert!((s - 1.0).abs() < 1e-6);
        assert!(matches!(
            ConvexWeights::from_rows([vec![(0, 0.5), (1, 0.6)]], 2),
            Err(DeformError::WeightSumOff { vertex: 0, .. })
        ));
        let (w, n) = ConvexWeights::from_rows_renormalised([vec![(0, 0.1), (1, 0.1)]], 2).unwrap();
        assert_eq!(n, 1);
        assert!((w.weight(0, 1) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn merges_duplicates_and_drops_zeros() {
        let w =
            ConvexWeights::from_rows([vec![(1, 0.25), (0, 0.0), (1, 0.25), (2, 0.5)]], 3).unwrap();
        assert_eq!(w.row(0).0, &[1, 2]);
        assert_eq!(w.weight(0, 1), 0.5);
    }

    #[test]
    fn ranges_include_zero_for_untouched_vertices() {
        let w = ConvexWeights::from_rows([vec![(0, 1.0)], vec![(0, 0.5), (1, 0.5)]], 2).unwrap();
        let r = w.ranges_over(&[0, 1]);
        assert_eq!(r[0], (0, Interval::new(0.5, 1.0)));
        assert_eq!(r[1], (1, Interval::new(0.0, 0.5)));
    }

    #[test]
    fn weights_follow_their_vertices() {
        let p: Vec<crate::math::Vec3> = (0..49)
            .map(|i| crate::math::Vec3::new((i % 7) as f32, ((i / 7) * 5 % 7) as f32, 0.0))
            .collect();
        let rows: Vec<Vec<(u32, f32)>> = (0..p.len())
            .map(|v| vec![((v % 3) as u32, 0.25), (3, 0.75)])
            .collect();
        let w = ConvexWeights::from_rows(rows, 4).unwrap();
        let order = VertexOrder::spatial(&p).unwrap();
        let re = order.weights(&w).unwrap();
        for new in 0..order.len() {
            assert_eq!(re.row(new), w.row(order.old_index(new as u32) as usize));
        }
    }

    #[test]
    fn bad_permutations_get_typed_errors() {
        let order = VertexOrder::spatial(&[crate::math::Vec3::ZERO, crate::math::Vec3::X]).unwrap();
        let w = ConvexWeights::from_rows([vec![(0u32, 1.0f32)], vec![(0, 1.0)]], 1).unwrap();
        for bad in [&[0u32, 0][..], &[0], &[0, 2]] {
            assert!(matches!(
                w.permuted(bad),
                Err(DeformError::InvalidParameter { .. })
            ));
        }
        let three = ConvexWeights::from_rows(vec![vec![(0u32, 1.0f32)]; 3], 1).unwrap();
        assert!(matches!(
            order.weights(&three),
            Err(DeformError::LengthMismatch { .. })
        ));
    }
}
