//! Patch bounds of morphed meshes (morph targets with global weights, per-vertex convex blends of examples): per source a patch box and an interval deformation gradient, so a patch's AABB and normal bound cost O(sources).

use super::{LimitedConvexWorkspace, limited_convex_bound};
use crate::deformation::{MorphExamples, MorphTargets, check_target_weights};
use crate::error::{DeformError, Result};
use crate::governor::ConvexWeights;
use crate::math::{IMat3, IVec3, Interval, Vec3};

// The constructors live with the bounds they build, so `deformation` knows nothing of bounds.
impl MorphTargets {
    /// Precomputes the bounds of one patch (its vertices and triangles, as indices into this
    /// mesh); sources are the base (source 0) and the targets' deltas.
    ///
    /// # Errors
    /// As [`MorphPatchBounds`]'s precomputation: [`DeformError::Empty`],
    /// [`DeformError::IndexOutOfRange`] (a vertex), [`DeformError::VertexIndexOutOfRange`] (a
    /// triangle), [`DeformError::DegenerateTriangle`] (zero rest area in the base).
    ///
    /// # Performance
    /// O((patch vertices + patch triangles) · targets).
    pub fn patch_bounds(
        &self,
        vertices: &[u32],
        triangles: &[[u32; 3]],
    ) -> Result<MorphPatchBounds> {
        let sources: Vec<&[Vec3]> = core::iter::once(self.base())
            .chain(self.deltas().iter().map(Vec::as_slice))
            .collect();
        MorphPatchBounds::precompute(
            MorphKind::Targets,
            self.base(),
            &sources,
            vertices,
            triangles,
        )
    }
}

impl MorphExamples {
    /// Precomputes the bounds of one patch; sources are the examples, and the rest triangle (for
    /// the deformation gradients) is example 0's.
    ///
    /// # Errors
    /// As [`MorphTargets::patch_bounds`] (the rest shape is example 0).
    ///
    /// # Performance
    /// O((patch vertices + patch triangles) · examples).
    pub fn patch_bounds(
        &self,
        vertices: &[u32],
        triangles: &[[u32; 3]],
    ) -> Result<MorphPatchBounds> {
        let sources: Vec<&[Vec3]> = self.examples().iter().map(Vec::as_slice).collect();
        MorphPatchBounds::precompute(
            MorphKind::Examples,
            sources[0],
            &sources,
            vertices,
            triangles,
        )
    }
}

/// Which model a [`MorphPatchBounds`] was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum MorphKind {
    /// [`MorphTargets`]: source 0 is the base (coefficient 1), then the deltas.
    Targets,
    /// [`MorphExamples`]: the sources are the examples, blended with per-vertex convex weights.
    Examples,
}

/// The precomputed bounds of one patch of a morphed mesh: per *source* (base and target deltas,
/// or examples) its patch AABB and its interval deformation gradient, so that the AABB and the
/// normal bound of the morphed patch cost O(sources), independent of the patch size.
///
/// **Deformation gradients** (BN-Tree eq. 3). For a triangle `(a, b, c)` with rest corners
/// `(a0, b0, c0)` and unit rest normal `n0`, `J = (a b c) G` with
/// `G = K (a0 − c0, b0 − c0, n0)⁻¹`, `K` the rows `(1,0,0), (0,1,0), (−1,−1,0)`; writing `g_a, g_b, g_c`
/// for the rows of `G`, `J = a g_aᵀ + b g_bᵀ + c g_cᵀ` and `g_a + g_b + g_c = 0`. `cof(J) n0` is a
/// positive multiple of the deformed normal, so `[n] = [J].normal_transform() · [n0]` bounds
/// every triangle normal of the patch when `[J]` holds every triangle's `J` and `[n0]` every rest
/// normal. `J` is linear in the positions; per source `s` the patch stores
/// `[J_s] = hull_tri J_s(tri)` with `J_s(tri) = (P_s(a) P_s(b) P_s(c)) G(tri)`.
///
/// **Global weights** ([`MorphKind::Targets`]): positions are `base + Σ w_i Δ_i`, so exactly
/// `AABB = box_base + Σ w_i box_Δi` and `[J] = [J_base] + Σ w_i [J_Δi]` (interval linear
/// combinations, sign-aware for negative weights).
///
/// **Per-vertex convex weights** ([`MorphKind::Examples`]): `p_v = Σ_e β_ve P_e(v)` with
/// `β_ve ∈ [lo_e, hi_e]` over the patch and `Σ_e β_ve = 1`. The AABB is the limited convex
/// combination LP per axis over the examples' patch boxes ([`crate::bounds::limited_convex_range`]).
/// For the gradient, write every example as the rest example plus a displacement,
/// `P_e(v) = P_0(v) + D_e(v)` (`D_0 = 0`), pick reference weights `w̄_e` (the range midpoints)
/// and let `δ_ve = β_ve − w̄_e`, `s = 1 − Σ_e w̄_e`. Since `Σ_e δ_ve = s` for every vertex,
///
/// ```text
/// J = Σ_v p_v g_vᵀ = Σ_e w̄_e J_e(tri) + Σ_v (Σ_e δ_ve) P_0(v) g_vᵀ + Σ_e Σ_v δ_ve D_e(v) g_vᵀ
///   = Σ_e w̄_e J_e(tri) + s J_0(tri) + Σ_e Σ_v δ_ve D_e(v) g_vᵀ.
/// ```
///
/// The first two terms are bounded exactly by `Σ_e w̄_e [J_e] + s [J_0]`; entry `(r, k)` of the
/// last is at most `Σ_e |δ_e| · |D_e|_r · S_k` in magnitude, with `|D_e|_r = max_v |D_e(v)_r|`
/// over the patch and `S_k = max_tri Σ_v |g_v,k|` precomputed: `[J] = … ± M`, O(E). The residual
/// is proportional to how far the examples are from the rest shape *and* how much the weights
/// vary over the patch, so a patch whose weights are uniform gets the exact `[J]` of the global
/// blend. (Centring on a common point `C` instead of `P_0(v)` also works, because
/// `C Σ_v g_vᵀ = 0`, but `|P_e(v) − C|` is the size of the patch rather than of the dent; a
/// separate centre `c_e` per example would leave the weight-gradient term
/// `Σ_e c_e (Σ_v β_ve g_v)ᵀ`.)
///
/// **Rounding.** Interval operations round outward; in addition every bound is widened by a
/// relative `ε = 2 (sources + 2) · f32::EPSILON` of the magnitudes involved, which covers the f32
/// rounding of [`MorphTargets::deform_into`] / [`MorphExamples::deform_into`] (so the bounds hold
/// for the positions those functions return, not only for exact real ones), and `[J]` by the
/// matching `ε · |p| · S`.
///
/// # Performance
/// Precomputation O((vertices + triangles) · sources); every query O(sources) (the convex AABB
/// O(E log E)), no allocation.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphPatchBounds {
    kind: MorphKind,
    boxes: Vec<IVec3>,
    jacobians: Vec<IMat3>,
    rest_normals: IVec3,
    /// `S_k = max over triangles of Σ_v |g_v,k|`, rounded up.
    gradient_sums: Vec3,
    /// Examples only: per example, `max_v |P_e(v) − P_0(v)|` per axis over the patch triangles'
    /// vertices, rounded up (empty for targets).
    displacements: Vec<Vec3>,
}

impl MorphPatchBounds {
    fn precompute(
        kind: MorphKind,
        rest: &[Vec3],
        sources: &[&[Vec3]],
        vertices: &[u32],
        triangles: &[[u32; 3]],
    ) -> Result<Self> {
        if vertices.is_empty() {
            return Err(DeformError::Empty {
                what: "patch vertices",
            });
        }
        if triangles.is_empty() {
            return Err(DeformError::Empty {
                what: "patch triangles",
            });
        }
        let n = rest.len();
        if let Some(&v) = vertices.iter().find(|&&v| v as usize >= n) {
            return Err(DeformError::IndexOutOfRange {
                what: "patch vertex",
                index: v as usize,
                len: n,
            });
        }
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(DeformError::VertexIndexOutOfRange {
                    triangle: t,
                    index,
                    vertex_count: n,
                });
            }
        }
        let boxes = sources
            .iter()
            .map(|p| {
                vertices
                    .iter()
                    .fold(IVec3::EMPTY, |b, &v| b.hull_point(p[v as usize]))
            })
            .collect();
        let mut acc = vec![[[(f64::INFINITY, f64::NEG_INFINITY); 3]; 3]; sources.len()];
        let mut normals = [(f64::INFINITY, f64::NEG_INFINITY); 3];
        let mut gradient_sums = [0.0f64; 3];
        for (t, tri) in triangles.iter().enumerate() {
            let (g, n0) = rest_gradient(tri.map(|i| rest[i as usize]))
                .ok_or(DeformError::DegenerateTriangle { triangle: t })?;
            for k in 0..3 {
                normals[k] = (normals[k].0.min(n0[k]), normals[k].1.max(n0[k]));
                let s: f64 = g.iter().map(|row| row[k].abs()).sum();
                gradient_sums[k] = gradient_sums[k].max(s);
            }
            for (src, a) in sources.iter().zip(acc.iter_mut()) {
                let p = tri.map(|i| src[i as usize]);
                for (r, row) in a.iter_mut().enumerate() {
                    for (k, e) in row.iter_mut().enumerate() {
                        let j: f64 = (0..3).map(|v| p[v][r] as f64 * g[v][k]).sum();
                        *e = (e.0.min(j), e.1.max(j));
                    }
                }
            }
        }
        let jacobians = acc
            .iter()
            .map(|a| {
                let mut m = IMat3::ZERO;
                for (r, row) in a.iter().enumerate() {
                    for (k, &(lo, hi)) in row.iter().enumerate() {
                        *m.get_mut(r, k) = outward(lo, hi);
                    }
                }
                m
            })
            .collect();
        let rest_normals = IVec3::new(
            outward(normals[0].0, normals[0].1),
            outward(normals[1].0, normals[1].1),
            outward(normals[2].0, normals[2].1),
        );
        let up = |x: f64| (x as f32).next_up();
        let displacements = match kind {
            MorphKind::Targets => Vec::new(),
            MorphKind::Examples => sources
                .iter()
                .map(|src| {
                    let mut m = [0.0f64; 3];
                    for &v in triangles.iter().flatten() {
                        let (a, b) = (src[v as usize], sources[0][v as usize]);
                        for (k, x) in m.iter_mut().enumerate() {
                            *x = x.max((a[k] as f64 - b[k] as f64).abs());
                        }
                    }
                    Vec3::new(up(m[0]), up(m[1]), up(m[2]))
                })
                .collect(),
        };
        Ok(Self {
            kind,
            boxes,
            jacobians,
            rest_normals,
            gradient_sums: Vec3::new(
                up(gradient_sums[0]),
                up(gradient_sums[1]),
                up(gradient_sums[2]),
            ),
            displacements,
        })
    }

    /// The model these bounds were built for.
    pub fn kind(&self) -> MorphKind {
        self.kind
    }

    /// Per source, its patch AABB (targets: base then deltas; examples: one per example).
    pub fn source_boxes(&self) -> &[IVec3] {
        &self.boxes
    }

    /// Per source, its interval deformation gradient `[J_s]` over the patch triangles.
    pub fn source_jacobians(&self) -> &[IMat3] {
        &self.jacobians
    }

    /// The hull `[n0]` of the patch's unit rest normals.
    pub fn rest_normals(&self) -> IVec3 {
        self.rest_normals
    }

    fn relative_epsilon(&self) -> f32 {
        2.0 * (self.boxes.len() as f32 + 2.0) * f32::EPSILON
    }

    fn expect(&self, kind: MorphKind, len: usize, what: &'static str) -> Result<()> {
        if self.kind != kind {
            return Err(DeformError::InvalidParameter {
                name: "MorphPatchBounds kind",
                value: self.boxes.len() as f32,
                reason: "these bounds were built for the other morph model (targets vs examples)",
            });
        }
        if len != self.boxes.len() - usize::from(kind == MorphKind::Targets) {
            return Err(DeformError::LengthMismatch {
                what,
                expected: self.boxes.len() - usize::from(kind == MorphKind::Targets),
                actual: len,
            });
        }
        Ok(())
    }

    /// Per axis, the largest coordinate magnitude `Σ_s |c_s| mag(box_s)` of the positions,
    /// times the relative epsilon: the f32 evaluation slack of a linear combination.
    fn linear_slack(&self, weights: &[f32]) -> Vec3 {
        let mut m = self.boxes[0].maxs().abs().max(self.boxes[0].mins().abs());
        for (b, &w) in self.boxes[1..].iter().zip(weights) {
            m += w.abs() * b.maxs().abs().max(b.mins().abs());
        }
        m * self.relative_epsilon() * (1.0 + 4.0 * f32::EPSILON)
    }

    /// AABB of the patch under global morph-target weights: `box_base + Σ w_i box_Δi`.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when built for [`MorphKind::Examples`],
    /// [`DeformError::LengthMismatch`], [`DeformError::InvalidGlobalWeight`] (non-finite).
    ///
    /// # Performance
    /// O(targets).
    pub fn aabb_with_targets(&self, weights: &[f32]) -> Result<IVec3> {
        self.expect(MorphKind::Targets, weights.len(), "morph target weights")?;
        check_target_weights(weights, weights.len())?;
        let mut b = self.boxes[0];
        for (bx, &w) in self.boxes[1..].iter().zip(weights) {
            b = b + bx.scale_exact(w);
        }
        Ok(loosen(b, self.linear_slack(weights)))
    }

    /// Normal bound `[n]` of the patch under global morph-target weights:
    /// `([J_base] + Σ w_i [J_Δi]).normal_transform() · [n0]` (every triangle normal of the
    /// morphed patch is a positive multiple of a member).
    ///
    /// # Errors
    /// As [`MorphPatchBounds::aabb_with_targets`].
    ///
    /// # Performance
    /// O(targets).
    pub fn normal_bound_with_targets(&self, weights: &[f32]) -> Result<IVec3> {
        self.expect(MorphKind::Targets, weights.len(), "morph target weights")?;
        check_target_weights(weights, weights.len())?;
        let mut j = self.jacobians[0];
        for (jx, &w) in self.jacobians[1..].iter().zip(weights) {
            j = j + scale_mat(jx, w);
        }
        let j = loosen_mat(j, self.linear_slack(weights), self.gradient_sums);
        Ok(j.normal_transform().mul_vec(self.rest_normals))
    }

    /// AABB of the patch under per-vertex convex example weights whose ranges over the patch
    /// are `ranges` (from [`MorphExamples::weight_ranges`]): per axis the exact limited convex
    /// combination LP over the examples' patch boxes.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when built for [`MorphKind::Targets`] or for a range
    /// that is empty, not finite, or outside `[0, 1]`; [`DeformError::LengthMismatch`].
    ///
    /// # Performance
    /// O(E log E).
    pub fn aabb_with_ranges(
        &self,
        ranges: &[Interval],
        ws: &mut LimitedConvexWorkspace,
    ) -> Result<IVec3> {
        self.check_ranges(ranges)?;
        let eps = self.relative_epsilon();
        let widen = |r: &Interval| Interval::new((r.lo - eps).max(0.0), r.hi + eps);
        let mut out = IVec3::ZERO;
        for axis in 0..3 {
            let hi = limited_convex_bound(
                ranges
                    .iter()
                    .zip(&self.boxes)
                    .map(|(r, b)| (widen(r), b.get(axis).hi)),
                ws,
            );
            let lo = -limited_convex_bound(
                ranges
                    .iter()
                    .zip(&self.boxes)
                    .map(|(r, b)| (widen(r), -b.get(axis).lo)),
                ws,
            );
            let mag = self
                .boxes
                .iter()
                .map(|b| b.get(axis).mag())
                .fold(0.0, f32::max);
            *out.get_mut(axis) = Interval::new(lo, hi).loosened(eps * mag);
        }
        Ok(out)
    }

    /// Normal bound `[n]` of the patch under per-vertex convex example weights with the given
    /// ranges over the patch: `[J] = Σ_e w̄_e [J_e] + s [J_0] ± M` (see the type's
    /// documentation), then
    /// `[J].normal_transform() · [n0]`.
    ///
    /// # Errors
    /// As [`MorphPatchBounds::aabb_with_ranges`].
    ///
    /// # Performance
    /// O(E).
    pub fn normal_bound_with_ranges(&self, ranges: &[Interval]) -> Result<IVec3> {
        self.check_ranges(ranges)?;
        let eps = self.relative_epsilon();
        // s = 1 − Σ w̄ as an interval (the w̄ are exact f32 numbers; the sum is rounded outward).
        let mut s_iv = Interval::point(1.0);
        let mut j = IMat3::ZERO;
        let mut spread = Vec3::ZERO;
        let mut mag = Vec3::ZERO;
        for (((r, b), jx), d) in ranges
            .iter()
            .zip(&self.boxes)
            .zip(&self.jacobians)
            .zip(&self.displacements)
        {
            let mid = r.mid();
            s_iv = s_iv - Interval::point(mid);
            j = j + scale_mat(jx, mid);
            // |δ_e| ≤ max(hi − w̄, w̄ − lo) + ε (the ε covers β rows summing to 1 only within
            // rounding), rounded up.
            let delta = ((r.hi - mid).max(mid - r.lo) + eps).next_up();
            for axis in 0..3 {
                spread[axis] = (spread[axis] + (delta * d[axis]).next_up()).next_up();
            }
            mag = mag.max(b.maxs().abs().max(b.mins().abs()));
        }
        let j0 = &self.jacobians[0];
        j = j + IMat3 {
            cols: j0.cols.map(|c| c.scale(s_iv)),
        };
        j = loosen_mat(j, spread, self.gradient_sums);
        let j = loosen_mat(
            j,
            mag * eps * (1.0 + 4.0 * f32::EPSILON),
            self.gradient_sums,
        );
        Ok(j.normal_transform().mul_vec(self.rest_normals))
    }

    fn check_ranges(&self, ranges: &[Interval]) -> Result<()> {
        self.expect(MorphKind::Examples, ranges.len(), "example weight ranges")?;
        for r in ranges {
            if !(r.lo.is_finite()
                && r.hi.is_finite()
                && 0.0 <= r.lo
                && r.lo <= r.hi
                && r.hi <= 1.0 + ConvexWeights::SUM_TOLERANCE)
            {
                return Err(DeformError::InvalidParameter {
                    name: "example weight range",
                    value: if r.lo.is_finite() && r.lo >= 0.0 {
                        r.hi
                    } else {
                        r.lo
                    },
                    reason: "ranges must be finite, non-empty and within [0, 1]",
                });
            }
        }
        Ok(())
    }
}

/// `G`'s rows `(g_a, g_b, g_c)` of a rest triangle and its unit normal, in f64; `None` when
/// degenerate.
fn rest_gradient(p: [Vec3; 3]) -> Option<([[f64; 3]; 3], [f64; 3])> {
    let f = |v: Vec3| [v.x as f64, v.y as f64, v.z as f64];
    let (a, b, c) = (f(p[0]), f(p[1]), f(p[2]));
    let u = [a[0] - c[0], a[1] - c[1], a[2] - c[2]];
    let w = [b[0] - c[0], b[1] - c[1], b[2] - c[2]];
    let cross = |x: [f64; 3], y: [f64; 3]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let nn = cross(u, w);
    let len = (nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]).sqrt();
    let scale =
        (u.iter().map(|x| x * x).sum::<f64>() * w.iter().map(|x| x * x).sum::<f64>()).sqrt();
    if !len.is_finite() || len <= 1e-12 * scale {
        return None;
    }
    let n = [nn[0] / len, nn[1] / len, nn[2] / len];
    // R = (u, w, n) by columns; rows of R⁻¹ are (w × n, n × u, u × w) / det.
    let det = len; // (u × w) · n = |u × w|
    let ga = cross(w, n).map(|x| x / det);
    let gb = cross(n, u).map(|x| x / det);
    let gc = [-ga[0] - gb[0], -ga[1] - gb[1], -ga[2] - gb[2]];
    Some(([ga, gb, gc], n))
}

/// An f32 interval containing the f64 range `[lo, hi]`.
fn outward(lo: f64, hi: f64) -> Interval {
    Interval::new((lo as f32).next_down(), (hi as f32).next_up())
}

fn scale_mat(m: &IMat3, s: f32) -> IMat3 {
    IMat3 {
        cols: m.cols.map(|c| c.scale_exact(s)),
    }
}

fn loosen(b: IVec3, margin: Vec3) -> IVec3 {
    IVec3::new(
        b.x.loosened(margin.x),
        b.y.loosened(margin.y),
        b.z.loosened(margin.z),
    )
}

/// Widens `J_rk` by `position_slack_r · S_k`: the change of `J` when each position moves by at
/// most the slack.
fn loosen_mat(mut j: IMat3, position_slack: Vec3, gradient_sums: Vec3) -> IMat3 {
    for r in 0..3 {
        for k in 0..3 {
            let m = (position_slack[r] * gradient_sums[k]).next_up();
            let e = j.get_mut(r, k);
            *e = e.loosened(m);
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deformation::morph_fixtures::*;
    use rand::Rng;

    /// Cells per side of a patch.
    const CELL: u32 = 4;

    /// Patches of `CELL × CELL` cells: (vertices, triangles).
    fn patches() -> Vec<(Vec<u32>, Vec<[u32; 3]>)> {
        let (_, t) = grid();
        let mut out = Vec::new();
        for pi in 0..K / CELL {
            for pj in 0..K / CELL {
                let mut tris = Vec::new();
                for i in pi * CELL..(pi + 1) * CELL {
                    for j in pj * CELL..(pj + 1) * CELL {
                        let c = 2 * (i * K + j) as usize;
                        tris.extend([t[c], t[c + 1]]);
                    }
                }
                let mut verts: Vec<u32> = tris.iter().flatten().copied().collect();
                verts.sort_unstable();
                verts.dedup();
                out.push((verts, tris));
            }
        }
        out
    }

    /// The 14 directions of the discrete normal cone.
    fn directions() -> Vec<Vec3> {
        let mut d = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
        for s in 0..8 {
            let f = |b: u32| if s & b == 0 { 1.0 } else { -1.0 };
            d.push(Vec3::new(f(1), f(2), f(4)));
        }
        d
    }

    #[derive(Default, Debug)]
    struct Tally {
        aabb_violations: usize,
        normal_violations: usize,
        patches_with_cone: usize,
        patches: usize,
    }

    fn check_patch(
        tally: &mut Tally,
        p: &[Vec3],
        (verts, tris): &(Vec<u32>, Vec<[u32; 3]>),
        aabb: IVec3,
        n: IVec3,
    ) {
        tally.patches += 1;
        tally.aabb_violations += verts
            .iter()
            .filter(|&&v| !aabb.contains(p[v as usize]))
            .count();
        let set: Vec<Vec3> = directions()
            .into_iter()
            .filter(|&d| n.dot_exact(d).lo > 0.0)
            .collect();
        tally.patches_with_cone += usize::from(!set.is_empty());
        for tri in tris {
            let [a, b, c] = tri.map(|i| p[i as usize].as_dvec3());
            let normal = (b - a).cross(c - a);
            for d in &set {
                if normal.dot(d.as_dvec3()) <= 0.0 {
                    tally.normal_violations += 1;
                }
            }
        }
    }

    /// A patch of the grid: its vertices and triangles.
    type Patch = (Vec<u32>, Vec<[u32; 3]>);

    /// Checks the bounds of every patch of the grid under `sets` weight sets: `draw` sets a
    /// random weight set on the morph, writes the deformed positions and returns what `bound`
    /// takes to bound a patch (AABB, normal bound) under that set.
    fn run<M, W>(
        mut morph: M,
        patch_bounds: impl Fn(&M, &[u32], &[[u32; 3]]) -> Result<MorphPatchBounds>,
        sets: usize,
        mut draw: impl FnMut(&mut M, &mut Vec<Vec3>) -> W,
        mut bound: impl FnMut(&M, &W, &MorphPatchBounds, &Patch) -> (IVec3, IVec3),
    ) -> Tally {
        let patches = patches();
        let bounds: Vec<MorphPatchBounds> = patches
            .iter()
            .map(|(v, t)| patch_bounds(&morph, v, t).unwrap())
            .collect();
        let mut tally = Tally::default();
        let mut p = Vec::new();
        for _ in 0..sets {
            let w = draw(&mut morph, &mut p);
            for (patch, b) in patches.iter().zip(&bounds) {
                let (aabb, n) = bound(&morph, &w, b, patch);
                check_patch(&mut tally, &p, patch, aabb, n);
            }
        }
        tally
    }

    /// Runs `sets` random global weight sets; `shrink` scales the weights given to the bounds
    /// (1 = the real bound).
    fn run_targets(seed: u64, sets: usize, shrink: f32) -> Tally {
        let (morph, mut rng) = targets(seed);
        let draw = |m: &mut MorphTargets, p: &mut Vec<Vec3>| {
            let w: Vec<f32> = (0..3).map(|_| rng.random_range(-1.5..1.5)).collect();
            m.set_weights(&w).unwrap();
            m.deform_into(p);
            w.iter().map(|x| x * shrink).collect::<Vec<f32>>()
        };
        let bound = |_: &MorphTargets, wb: &Vec<f32>, b: &MorphPatchBounds, _: &Patch| {
            let aabb = b.aabb_with_targets(wb).unwrap();
            (aabb, b.normal_bound_with_targets(wb).unwrap())
        };
        run(morph, MorphTargets::patch_bounds, sets, draw, bound)
    }

    #[test]
    fn global_weights_bounds_hold_for_6000_weight_sets() {
        let t = run_targets(31, 6000, 1.0);
        assert_eq!(t.aabb_violations, 0, "{t:?}");
        assert_eq!(t.normal_violations, 0, "{t:?}");
        // Not vacuous: most patches keep a non-empty cone.
        assert!(t.patches_with_cone * 10 > t.patches * 9, "{t:?}");
    }

    #[test]
    fn shrunk_global_bound_is_caught() {
        let t = run_targets(32, 300, 0.5);
        assert!(t.aabb_violations > 0, "{t:?}");
        assert!(t.normal_violations > 0, "{t:?}");
    }

    #[test]
    fn global_bound_matches_exact_combination_of_boxes() {
        // With one patch = whole mesh and one target, the bound is tight to within rounding:
        // every face of the box is touched by some vertex when the target is a translation.
        let (p, t) = grid();
        let delta = vec![Vec3::new(0.5, -0.25, 1.0); p.len()];
        let mut m = MorphTargets::new(p.clone(), vec![delta]).unwrap();
        let all: Vec<u32> = (0..p.len() as u32).collect();
        let b = m.patch_bounds(&all, &t).unwrap();
        m.set_weights(&[-2.0]).unwrap();
        let q = m.deformed_positions();
        let exact = q.iter().fold(IVec3::EMPTY, |b, &x| b.hull_point(x));
        let bound = b.aabb_with_targets(&[-2.0]).unwrap();
        for axis in 0..3 {
            assert!((bound.get(axis).lo - exact.get(axis).lo).abs() < 1e-5);
            assert!((bound.get(axis).hi - exact.get(axis).hi).abs() < 1e-5);
        }
    }

    /// Runs `sets` random per-vertex weight sets; `shrink` scales the weight ranges given to the
    /// bounds about their midpoints (1 = the real bound).
    fn run_examples(seed: u64, sets: usize, shrink: f32) -> Tally {
        let (morph, mut rng) = examples(seed);
        let rest = morph.example(0).unwrap().to_vec();
        let draw = |m: &mut MorphExamples, p: &mut Vec<Vec3>| {
            let beta = random_beta(&mut rng, &rest, m.example_count());
            m.set_weights(&beta).unwrap();
            m.deform_into(p);
        };
        let (mut ws, mut ranges) = (LimitedConvexWorkspace::default(), Vec::new());
        let bound = |m: &MorphExamples, _: &(), b: &MorphPatchBounds, patch: &Patch| {
            m.weight_ranges(&patch.0, &mut ranges).unwrap();
            for r in &mut ranges {
                let mid = r.mid();
                *r = Interval::new(mid + (r.lo - mid) * shrink, mid + (r.hi - mid) * shrink);
            }
            let aabb = b.aabb_with_ranges(&ranges, &mut ws).unwrap();
            (aabb, b.normal_bound_with_ranges(&ranges).unwrap())
        };
        run(morph, MorphExamples::patch_bounds, sets, draw, bound)
    }

    #[test]
    fn per_vertex_convex_bounds_hold_for_4000_weight_sets() {
        let t = run_examples(41, 4000, 1.0);
        assert_eq!(t.aabb_violations, 0, "{t:?}");
        assert_eq!(t.normal_violations, 0, "{t:?}");
        // Not vacuous: the weights vary over each patch (a smooth trend plus per-vertex noise),
        // and still most patches keep a non-empty cone (87 % with these seeds).
        assert!(t.patches_with_cone * 10 > t.patches * 8, "{t:?}");
    }

    #[test]
    fn shrunk_convex_bound_is_caught() {
        // Ranges collapsed to their midpoints: the bound forgets that weights vary.
        let t = run_examples(42, 300, 0.0);
        assert!(t.aabb_violations > 0, "{t:?}");
        assert!(t.normal_violations > 0, "{t:?}");
    }

    #[test]
    fn rejects_mismatched_ranges_and_bad_patches() {
        let (m, _) = targets(56);
        let b = m.patch_bounds(&[0, 1, 17], &[[0, 17, 1]]).unwrap();
        assert!(matches!(
            b.aabb_with_targets(&[1.0]),
            Err(DeformError::LengthMismatch { .. })
        ));
        let mut ws = LimitedConvexWorkspace::default();
        assert!(matches!(
            b.aabb_with_ranges(&[Interval::new(0.0, 1.0); 3], &mut ws),
            Err(DeformError::InvalidParameter { .. })
        ));
        assert!(matches!(
            m.patch_bounds(&[0, 400], &[[0, 17, 1]]),
            Err(DeformError::IndexOutOfRange { index: 400, .. })
        ));
        assert!(matches!(
            m.patch_bounds(&[0], &[[0, 17, 999]]),
            Err(DeformError::VertexIndexOutOfRange { index: 999, .. })
        ));
        assert!(matches!(
            m.patch_bounds(&[0, 1, 2], &[[0, 1, 2]]),
            Err(DeformError::DegenerateTriangle { triangle: 0 })
        ));
        let (x, _) = examples(57);
        let eb = x.patch_bounds(&[0, 1, 17], &[[0, 17, 1]]).unwrap();
        assert!(matches!(
            eb.normal_bound_with_ranges(&[Interval::new(0.0, 1.0); 3]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            eb.normal_bound_with_ranges(&[Interval::new(-0.5, 1.0); 4]),
            Err(DeformError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn rejects_empty_patches() {
        let (m, _) = targets(58);
        assert!(matches!(
            m.patch_bounds(&[], &[[0, 17, 1]]),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            m.patch_bounds(&[0], &[]),
            Err(DeformError::Empty { .. })
        ));
    }
}
