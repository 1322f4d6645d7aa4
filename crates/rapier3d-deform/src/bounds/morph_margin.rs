//! [`MorphMarginBounds`]: how far morph targets applied before a governed deformation can move a patch, in O(targets + patch governors) per query.

use crate::deformation::MorphDeltas;
use crate::governor::Affine;
use crate::math::Vec3;

/// The displacement bound of one patch whose vertices are morphed before a governed
/// deformation: `p_v = Σ_j w_vj A_j (b_v + d_v)` with `d_v = Σ_i m_i Δ_i[v]`
/// ([`MorphDeltas`]).
///
/// Split `p_v = Σ_j w_vj A_j b_v + Σ_j w_vj L_j d_v` (`L_j` the linear part of `A_j`). The first
/// term is the un-morphed deformation that [`crate::bounds::PatchBounds::aabb`] bounds. For the
/// second, `d_v` lies in the box `D = Σ_i m_i [Δ_i]` (interval linear combination of each
/// target's delta box over the patch, sign-aware), and a convex combination of the `L_j d_v`
/// lies in the hull of the boxes `L_j D` over the patch's governors. So the patch's box is the
/// Minkowski sum of the [`crate::bounds::PatchBounds::aabb`] box and [`Self::margin`]: exact for
/// the displacement range of the current weights, never smaller.
///
/// **Rounding.** The deformed vertices are evaluated in f32 (the morph sum, then the
/// skinning of the morphed position), so the margin is widened by
/// `ε · max_j (‖L_j‖_∞ (|b| + Σ_i |m_i| |Δ_i|) + |t_j|)` with
/// `ε = 4 (influences + targets + 4) · f32::EPSILON`, which covers the difference between that
/// evaluation and the exact split above.
///
/// # Performance
/// Precomputation O(patch vertices · targets); [`Self::margin`] O(targets + patch governors),
/// no allocation.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphMarginBounds {
    /// `(weight index, delta box mins, delta box maxs, max |Δ| component)` of every target with a
    /// non-zero delta on the patch.
    targets: Box<[(u32, Vec3, Vec3, f32)]>,
    /// `max_v max_k |b_v,k|` over the patch.
    rest_magnitude: f32,
    /// Most influences of a patch vertex.
    max_influences: u32,
}

impl MorphMarginBounds {
    /// Precomputes the bound of the patch made of `vertices` (indices into `rest` and
    /// `morph`; out-of-range indices are skipped).
    ///
    /// # Performance
    /// O(vertices · targets of their groups).
    pub fn new(
        morph: &MorphDeltas,
        rest: &[Vec3],
        vertices: impl IntoIterator<Item = u32>,
        max_influences: usize,
    ) -> Self {
        let mut boxes: Vec<(u32, Vec3, Vec3, f32)> = Vec::new();
        let mut rest_magnitude = 0.0f32;
        for v in vertices {
            let v = v as usize;
            let Some(&b) = rest.get(v) else { continue };
            rest_magnitude = rest_magnitude.max(b.abs().max_element());
            let Some(g) = morph.group_of(v) else { continue };
            let local = v - g.first_vertex();
            for (i, t) in g.targets().iter().enumerate() {
                let d = t[local];
                if d == Vec3::ZERO {
                    continue;
                }
                let w = (g.first_weight() + i) as u32;
                match boxes.iter_mut().find(|x| x.0 == w) {
                    Some(x) => {
                        x.1 = x.1.min(d);
                        x.2 = x.2.max(d);
                        x.3 = x.3.max(d.abs().max_element());
                    }
                    None => boxes.push((
                        w,
                        d.min(Vec3::ZERO),
                        d.max(Vec3::ZERO),
                        d.abs().max_element(),
                    )),
                }
            }
        }
        // A vertex of the patch without a delta has d = 0: the boxes above already hold 0.
        boxes.sort_unstable_by_key(|x| x.0);
        Self {
            targets: boxes.into_boxed_slice(),
            rest_magnitude,
            max_influences: max_influences as u32,
        }
    }

    /// True when no target moves a vertex of the patch (the margin is then zero).
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The `(mins, maxs)` box to add (Minkowski sum) to the un-morphed patch box for morph
    /// weights `weights` (indexed as [`MorphDeltas::weights`]; missing ones count as 0) and
    /// governors `governors` of which the patch uses `patch_governors`. `(0, 0)` when no target
    /// moves the patch.
    ///
    /// # Performance
    /// O(targets of the patch + patch governors).
    pub fn margin(
        &self,
        weights: &[f32],
        governors: &[Affine],
        patch_governors: &[u32],
    ) -> (Vec3, Vec3) {
        if self.targets.is_empty() {
            return (Vec3::ZERO, Vec3::ZERO);
        }
        let mut dlo = [0.0f64; 3];
        let mut dhi = [0.0f64; 3];
        let mut displacement = 0.0f64;
        let mut nonzero = 0usize;
        for &(w, lo, hi, mag) in self.targets.iter() {
            let m = f64::from(weights.get(w as usize).copied().unwrap_or(0.0));
            if m == 0.0 {
                continue;
            }
            nonzero += 1;
            displacement += m.abs() * f64::from(mag);
            for k in 0..3 {
                let (a, b) = (m * f64::from(lo[k]), m * f64::from(hi[k]));
                dlo[k] += a.min(b);
                dhi[k] += a.max(b);
            }
        }
        if nonzero == 0 {
            return (Vec3::ZERO, Vec3::ZERO);
        }
        let mut lo = [f64::MAX; 3];
        let mut hi = [f64::MIN; 3];
        let mut magnitude = 0.0f64;
        for &g in patch_governors {
            let Some(a) = governors.get(g as usize) else {
                continue;
            };
            let l = a.linear;
            let mut row_norm = 0.0f64;
            for r in 0..3 {
                let (mut rlo, mut rhi, mut norm) = (0.0f64, 0.0f64, 0.0f64);
                for c in 0..3 {
                    let x = f64::from(l.col(c)[r]);
                    norm += x.abs();
                    let (p, q) = (x * dlo[c], x * dhi[c]);
                    rlo += p.min(q);
                    rhi += p.max(q);
                }
                lo[r] = lo[r].min(rlo);
                hi[r] = hi[r].max(rhi);
                row_norm = row_norm.max(norm);
            }
            magnitude = magnitude.max(
                row_norm * (f64::from(self.rest_magnitude) + displacement)
                    + f64::from(a.translation.abs().max_element()),
            );
        }
        if lo[0] > hi[0] {
            return (Vec3::ZERO, Vec3::ZERO);
        }
        let eps = 4.0
            * (f64::from(self.max_influences) + self.targets.len() as f64 + 4.0)
            * f64::from(f32::EPSILON);
        let slack = eps * magnitude + f64::from(f32::MIN_POSITIVE);
        let down = |x: f64| {
            let f = (x - slack) as f32;
            if f64::from(f) > x - slack {
                f.next_down()
            } else {
                f
            }
        };
        let up = |x: f64| {
            let f = (x + slack) as f32;
            if f64::from(f) < x + slack {
                f.next_up()
            } else {
                f
            }
        };
        (
            Vec3::new(down(lo[0]), down(lo[1]), down(lo[2])),
            Vec3::new(up(hi[0]), up(hi[1]), up(hi[2])),
        )
    }

    /// Heap memory in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.targets.len() * core::mem::size_of::<(u32, Vec3, Vec3, f32)>()
    }
}
