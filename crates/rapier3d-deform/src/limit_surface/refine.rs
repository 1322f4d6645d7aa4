//! One Loop step of a limit sub-patch's control neighbourhood, and the bounds of a sub-patch: box (convex hull property), normal cone, limit corners and boundary-curve bounds (seed §2.2 item 5, §2.4, §3.6).
//!
//! A *sub-patch* is a limit patch of a refined control mesh: the region of one control triangle's
//! limit patch that one of its descendants after `depth` Loop steps covers. It is given by its
//! control points in canonical order ([`super::neighbourhood_size`]); one step maps them to the
//! control points of its four children without touching any mesh: the corner child through the
//! local subdivision matrix `S` (irregular again when the parent is), the three others through the
//! picking matrices (regular).

use super::bezier::{derivatives, index_of, regular_patch};
use super::cone::NormalBound;
use super::eigen::loop_eigen;
use super::eigen_bounds::eigen_bounds;
use super::interval::{IVec64, Interval64, add, corners, scaled};
use super::local_matrix::{MAX_VALENCE, REGULAR_POINTS, SparseRows};
use super::local_matrix::{REGULAR_VALENCE, regular_limit_row};
use super::patch_bound::{Frame, cross3, regular_normal_bound, tightened_normal_bound};
use crate::error::{DeformError, Result};
use rapier3d::na::DMatrix;
use std::sync::OnceLock;

/// A 3D point or vector in f64.
pub(crate) type P3 = [f64; 3];

/// The four children of a sub-patch after one step: `(valence, control points)` each.
pub(crate) type Children = [(usize, Vec<P3>); 4];

/// Bounds of one boundary curve of a sub-patch (a *segment* of a contour, seed §3.6): the curve
/// lies in the convex hull of `points`, and its derivative along the boundary's orientation is,
/// at every point, a non-negative combination of `tangents`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Segment {
    pub(crate) points: Vec<P3>,
    pub(crate) tangents: Vec<P3>,
}

impl Segment {
    fn append(&mut self, other: Segment) {
        self.points.extend(other.points);
        self.tangents.extend(other.tangents);
    }
}

/// The control points of the four children after one Loop step, in the order corner (at the
/// canonical corner 0, valence unchanged), at `r₀`, at `r₁`, middle (the last three regular):
/// `(valence, points)` each.
///
/// # Errors
/// Only for a valence outside the tables (the callers pass validated valences).
///
/// # Performance
/// O(non-zero stencil weights): about 5 (n+6) + 12 · 16 multiply-adds per coordinate
/// ([`SparseRows`](super::local_matrix::SparseRows)), four allocations.
pub(crate) fn children(valence: usize, points: &[P3]) -> Result<Children> {
    let st = loop_eigen(valence)?.stencils();
    Ok([
        (valence, st[0].apply(points)),
        (REGULAR_VALENCE, st[1].apply(points)),
        (REGULAR_VALENCE, st[2].apply(points)),
        (REGULAR_VALENCE, st[3].apply(points)),
    ])
}

/// The slot of `valence` in a per-valence table, or the error for a valence outside it.
fn valence_slot<T>(tables: &'static [OnceLock<T>], valence: usize) -> Result<&'static OnceLock<T>> {
    tables.get(valence).ok_or(DeformError::InvalidParameter {
        name: "valence",
        value: valence as f32,
        reason: "must be 3..=12",
    })
}

/// The slots `(child, control point)` of [`children`]'s output that hold distinct points: per
/// valence, the children's rows of the local subdivision and picking matrices (over the parent's
/// control points), each kept at its first occurrence. Children share control points (the level-1
/// vertices around their common corners and edges); a shared point comes from identical matrix
/// rows, which [`SparseRows`](super::local_matrix::SparseRows) turns into bit-identical points
/// (the same products summed in the same order), so the kept slots hold exactly the set of the
/// children's points.
///
/// # Errors
/// Only for a valence outside the tables.
///
/// # Performance
/// O(1) after the first call per valence (O(4 · 12 · (n+6)²) then).
pub(crate) fn distinct_child_points(valence: usize) -> Result<&'static [(usize, usize)]> {
    static TABLES: [OnceLock<Vec<(usize, usize)>>; MAX_VALENCE + 1] =
        [const { OnceLock::new() }; MAX_VALENCE + 1];
    let eig = loop_eigen(valence)?;
    let table = valence_slot(&TABLES, valence)?;
    Ok(table.get_or_init(|| {
        let picks = eig.picks();
        let matrices = [eig.subdivision(), &picks[0], &picks[1], &picks[2]];
        let mut seen: Vec<Vec<u64>> = Vec::new();
        let mut slots = Vec::new();
        for (k, m) in matrices.iter().enumerate() {
            for r in 0..m.nrows() {
                let row: Vec<u64> = (0..m.ncols()).map(|c| m[(r, c)].to_bits()).collect();
                if !seen.contains(&row) {
                    seen.push(row);
                    slots.push((k, r));
                }
            }
        }
        slots
    }))
}

/// The axis-aligned box of a limit patch two refinement steps down (seed §2.4: boxes from the
/// control points, "optionally after r refinement steps"; here r = 2): the box of its own control
/// triangle and of its four children's boxes ([`aabb_of`]: each child's control triangle and its
/// own children's control points), widened by `1e-12 · (1 + |x|)` per axis.
///
/// The level-`k` meshes over the patch's domain (`k ≥ 1`) and its limit surface are the unions of
/// those over its children's domains, which each child's box holds; the control triangle is the
/// level-0 mesh. So the box bounds the limit surface and every level-`k` mesh over the domain
/// alike, as [`aabb_of`] does, about a ring of the first refinement tighter (the children's boxes
/// reach half as far beyond the patch as the children's control points).
///
/// The points are computed in one step from the patch's control points through the composed
/// two-step stencils of the valence ([`two_step_rows`]: the control triangle, the children's
/// control triangles and their children's distinct control points); they differ from the points
/// of two successive Loop steps only by the rounding of the products (about `1e-15` relative),
/// which the widening covers.
///
/// # Performance
/// O(non-zeros of the composed rows): about 50 rows of at most `n + 6` weights; no allocation.
pub(crate) fn aabb(valence: usize, points: &[P3]) -> Result<(P3, P3)> {
    let rows = two_step_rows(valence)?;
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for r in 0..rows.rows() {
        let p = rows.row(r, points);
        for d in 0..3 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    Ok(widened(lo, hi))
}

/// Per valence, the composed stencils of [`aabb`]'s points over a patch's control points: the
/// control triangle (unit rows), and per child (corner child through `S`, the others through the
/// picking matrices) its control triangle and the rows of its children's distinct control points
/// ([`distinct_child_points`]) times the child's matrix; bit-identical rows are kept once.
///
/// # Errors
/// Only for a valence outside the tables.
///
/// # Performance
/// O(1) after the first call per valence (dense products of the small matrices then).
pub(crate) fn two_step_rows(valence: usize) -> Result<&'static SparseRows> {
    static TABLES: [OnceLock<SparseRows>; MAX_VALENCE + 1] =
        [const { OnceLock::new() }; MAX_VALENCE + 1];
    let eig = loop_eigen(valence)?;
    let table = valence_slot(&TABLES, valence)?;
    let regular = loop_eigen(REGULAR_VALENCE)?;
    let kept_regular = distinct_child_points(REGULAR_VALENCE)?;
    let kept_own = distinct_child_points(valence)?;
    Ok(table.get_or_init(|| {
        let size = eig.size();
        let matrices = |e: &'static super::eigen::LoopEigen| {
            let picks = e.picks();
            [e.subdivision(), &picks[0], &picks[1], &picks[2]]
        };
        let own = matrices(eig);
        let mut rows: Vec<Vec<f64>> = (0..3)
            .map(|c| (0..size).map(|j| if j == c { 1.0 } else { 0.0 }).collect())
            .collect();
        for (k, m) in own.iter().enumerate() {
            let (child, kept) = if k == 0 {
                (own, kept_own)
            } else {
                (matrices(regular), kept_regular)
            };
            for r in 0..3 {
                rows.push(m.row(r).iter().copied().collect());
            }
            for &(k2, r) in kept {
                let composed = child[k2].row(r) * *m;
                rows.push(composed.iter().copied().collect());
            }
        }
        let mut distinct: Vec<Vec<f64>> = Vec::with_capacity(rows.len());
        for row in rows {
            let bits = |x: &[f64]| x.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
            if !distinct.iter().any(|d| bits(d) == bits(&row)) {
                distinct.push(row);
            }
        }
        let dense = DMatrix::from_fn(distinct.len(), size, |r, c| distinct[r][c]);
        SparseRows::from_dense(&dense)
    }))
}

/// The box `lo, hi` widened by `1e-12 · (1 + |x|)` per axis ([`aabb_of`]'s margin).
fn widened(mut lo: P3, mut hi: P3) -> (P3, P3) {
    for d in 0..3 {
        let m = 1e-12 * (1.0 + lo[d].abs().max(hi[d].abs()));
        lo[d] -= m;
        hi[d] += m;
    }
    (lo, hi)
}

/// The axis-aligned box of a sub-patch after one refinement step: the box of its own control
/// triangle and of its four children's control points `kids`, widened by `1e-12 · (1 + |x|)` per
/// axis.
///
/// The limit patch lies in the convex hull of the children's control points (all Loop stencils
/// are non-negative), and so does every finer control mesh over the sub-patch's domain; its own
/// control triangle is the one level not below the children. So the box bounds the limit surface
/// and every level-`k` mesh (`k ≥` the sub-patch's depth) over the domain alike. (The Bézier
/// coefficients of a regular patch would bound the limit patch only.)
///
/// # Performance
/// O(n + 54).
pub(crate) fn aabb_of(points: &[P3], kids: &Children) -> (P3, P3) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points[..3]
        .iter()
        .chain(kids.iter().flat_map(|k| k.1.iter()))
    {
        for d in 0..3 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    widened(lo, hi)
}

/// The normal bound of a sub-patch ([`regular_normal_bound`] or [`tightened_normal_bound`]).
///
/// # Performance
/// See the two functions.
pub(crate) fn normal_bound(valence: usize, points: &[P3]) -> Result<NormalBound> {
    if valence == REGULAR_VALENCE {
        regular_normal_bound(points)
    } else {
        tightened_normal_bound(valence, points)
    }
}

fn row_dot(row: &[f64], p: &[P3]) -> P3 {
    let mut q = [0.0; 3];
    for (w, x) in row.iter().zip(p) {
        for d in 0..3 {
            q[d] += w * x[d];
        }
    }
    q
}

/// The limit positions of the three corners of a sub-patch (canonical order): Loop's limit mask
/// for regular corners, the dominant eigen-coefficient `c₀` for an irregular corner (its
/// eigenvector is the constant one), the limit masks of the regular children at `r₀` and `r₁`
/// for the other two corners of an irregular sub-patch.
///
/// # Performance
/// O((n+6)²).
pub(crate) fn limit_corners(valence: usize, points: &[P3]) -> Result<[P3; 3]> {
    if valence == REGULAR_VALENCE {
        return Ok([0, 1, 2].map(|c| row_dot(&regular_limit_row(c), points)));
    }
    let eig = loop_eigen(valence)?;
    let c0 = eig.coefficients(points)?[0];
    let st = eig.stencils();
    let mut at_r0 = [[0.0; 3]; REGULAR_POINTS];
    let mut at_r1 = [[0.0; 3]; REGULAR_POINTS];
    st[1].apply_into(points, &mut at_r0);
    st[2].apply_into(points, &mut at_r1);
    Ok([
        c0,
        row_dot(&regular_limit_row(1), &at_r0),
        row_dot(&regular_limit_row(2), &at_r1),
    ])
}

/// The three boundary curves of a regular sub-patch from its Bézier form: edge 0 from corner 0 to
/// corner 1 (`v = 0`), edge 1 from corner 1 to corner 2, edge 2 from corner 2 to corner 0; each a
/// quartic Bézier curve (5 coefficients, 4 differences).
fn regular_segments(points: &[P3]) -> [Segment; 3] {
    let bez = regular_patch(points);
    let edge = |ids: [usize; 5]| {
        let pts: Vec<P3> = ids.iter().map(|&i| bez[i]).collect();
        let tangents = pts
            .windows(2)
            .map(|w| [0, 1, 2].map(|d| w[1][d] - w[0][d]))
            .collect();
        Segment {
            points: pts,
            tangents,
        }
    };
    [
        edge([0, 1, 2, 3, 4].map(|j| index_of(4, j, 0))),
        edge([0, 1, 2, 3, 4].map(|k| index_of(4, 4 - k, k))),
        edge([4, 3, 2, 1, 0].map(|k| index_of(4, 0, k))),
    ]
}

/// Generators of the scaled derivative along the parametric direction `dir = (a, b)`
/// (`a ∂/∂u + b ∂/∂v`) of an irregular sub-patch over its whole domain: with eigen-coefficients
/// `c` in the frame of `c₁ × c₂`, it is `Σ cᵢ (a φᵤⁱ + b φᵥⁱ)` with each derivative in its tabulated
/// interval (seed §3.4); the subdominant pair is kept exact (4 extreme combinations) and the rest
/// bounded by a box (8 corners): 32 generators whose convex hull holds every such derivative (up
/// to a positive per-ring factor, which directions ignore).
fn eigen_direction_generators(
    c: &[P3],
    frame: &Frame,
    du: &[Interval64],
    dv: &[Interval64],
    dir: (f64, f64),
) -> Vec<P3> {
    let phi = |i: usize| du[i].scale(dir.0) + dv[i].scale(dir.1);
    let mut rest: IVec64 = [Interval64::ZERO; 3];
    for (i, ci) in c.iter().enumerate().skip(3) {
        rest = add(rest, scaled(*ci, phi(i)));
    }
    let (p1, p2) = (phi(1), phi(2));
    let mut out = Vec::with_capacity(32);
    for a in [p1.lo, p1.hi] {
        for b in [p2.lo, p2.hi] {
            let base = [0, 1, 2].map(|d| a * c[1][d] + b * c[2][d]);
            for corner in corners(rest) {
                out.push(frame.to_world([0, 1, 2].map(|d| base[d] + corner[d])));
            }
        }
    }
    out
}

/// The parametric directions from corner `k` along its two edges (to corner `k + 1`, to corner
/// `k − 1`), in the sub-patch's canonical `(u, v)`.
const CORNER_DIRECTIONS: [[(f64, f64); 2]; 3] = [
    [(1.0, 0.0), (0.0, 1.0)],
    [(-1.0, 1.0), (-1.0, 0.0)],
    [(0.0, -1.0), (1.0, -1.0)],
];

/// Generators of every derivative of the sub-patch along a parametric direction pointing from
/// corner `corner` into the domain, at every point of the sub-patch: every point `x` of the
/// sub-patch satisfies `x − p ∈ cone(generators)` with `p` the corner's limit position (`x − p`
/// integrates `J (q − p)` along the parametric segment from the corner, and `q − p` is a
/// non-negative combination of the two edge directions at the corner). Regular: the Bézier
/// coefficients of the two directional derivatives (10 each); irregular: the eigenbasis bounds
/// (32 each).
///
/// # Performance
/// Regular O(15 · 12); irregular O((n+6)²).
pub(crate) fn corner_generators(valence: usize, points: &[P3], corner: usize) -> Result<Vec<P3>> {
    let dirs = CORNER_DIRECTIONS[corner % 3];
    if valence == REGULAR_VALENCE {
        let bez = regular_patch(points);
        let mut ds = vec![[0.0; 3]; 10];
        let mut dt = vec![[0.0; 3]; 10];
        for d in 0..3 {
            let scalar: Vec<f64> = bez.iter().map(|p| p[d]).collect();
            let (a, b) = derivatives(4, &scalar);
            for i in 0..10 {
                ds[i][d] = a[i];
                dt[i][d] = b[i];
            }
        }
        let mut out = Vec::with_capacity(20);
        for (a, b) in dirs {
            for i in 0..10 {
                out.push([0, 1, 2].map(|d| a * ds[i][d] + b * dt[i][d]));
            }
        }
        return Ok(out);
    }
    let eig = loop_eigen(valence)?;
    let bounds = eigen_bounds(valence)?;
    let c = eig.coefficients(points)?;
    let frame = Frame::along(cross3(c[1], c[2]));
    let local: Vec<P3> = c.iter().map(|&v| frame.to_local(v)).collect();
    let mut out = Vec::with_capacity(64);
    for dir in dirs {
        out.extend(eigen_direction_generators(
            &local,
            &frame,
            bounds.du(),
            bounds.dv(),
            dir,
        ));
    }
    Ok(out)
}

/// The three boundary curves of a sub-patch (canonical edges 0, 1, 2 as in [`regular_segments`]).
///
/// Regular: the Bézier edge curves. Irregular: one step splits each edge; the halves in the
/// regular children are Bézier curves, the halves at the irregular corner (edges 0 and 2 of the
/// corner child) are bounded by the hull of the corner child's control points and by the
/// eigenbasis derivative generators ([`eigen_direction_generators`]; edge 0 runs along `+u`,
/// edge 2 along `−v`).
///
/// # Performance
/// Regular O(15 · 12); irregular one step plus three Bézier forms and O((n+6)²).
pub(crate) fn segments(valence: usize, points: &[P3]) -> Result<[Segment; 3]> {
    if valence == REGULAR_VALENCE {
        return Ok(regular_segments(points));
    }
    let [(_, corner), (_, at_r0), (_, at_r1), _] = children(valence, points)?;
    let [r0e0, r0e1, _] = regular_segments(&at_r0);
    let [_, r1e1, r1e2] = regular_segments(&at_r1);
    let eig = loop_eigen(valence)?;
    let bounds = eigen_bounds(valence)?;
    let c = eig.coefficients(&corner)?;
    let frame = Frame::along(cross3(c[1], c[2]));
    let local: Vec<P3> = c.iter().map(|&v| frame.to_local(v)).collect();
    let mut e0 = Segment {
        points: corner.clone(),
        tangents: eigen_direction_generators(&local, &frame, bounds.du(), bounds.dv(), (1.0, 0.0)),
    };
    e0.append(r0e0);
    let mut e1 = r0e1;
    e1.append(r1e1);
    let mut e2 = r1e2;
    e2.append(Segment {
        points: corner,
        tangents: eigen_direction_generators(&local, &frame, bounds.du(), bounds.dv(), (0.0, -1.0)),
    });
    Ok([e0, e1, e2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit_surface::local_matrix::neighbourhood_size;

    /// A valence-n neighbourhood on a paraboloid-like surface (canonical order layout from the
    /// chart: ring at angles 2πk/n, second ring outside).
    fn neighbourhood(n: usize) -> Vec<P3> {
        let mut p = vec![[0.0, 0.0, 0.0]];
        let ang = |k: f64| core::f64::consts::TAU * k / n as f64;
        for k in 0..n {
            let a = ang(k as f64);
            p.push([a.cos(), a.sin(), 0.1]);
        }
        for (i, k) in [-0.5, 0.0, 0.5, 1.0, 1.5].into_iter().enumerate() {
            let a = ang(k);
            let r = if i % 2 == 0 { 1.7 } else { 2.0 };
            p.push([r * a.cos(), r * a.sin(), 0.3]);
        }
        assert_eq!(p.len(), neighbourhood_size(n));
        p
    }

    /// The two-step box from the composed stencils holds the control triangle and every
    /// grandchild's control point of two explicit Loop steps, and equals the union of the control
    /// triangle and every child's [`aabb_of`] up to the widening.
    #[test]
    fn two_step_box_holds_every_grandchild_point_and_matches_two_explicit_steps() {
        let mut seed = 0xbb67_ae85_84ca_a73bu64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for n in 3..=12 {
            for _ in 0..20 {
                let p: Vec<P3> = neighbourhood(n)
                    .iter()
                    .map(|q| [q[0] + 0.3 * next(), q[1] + 0.3 * next(), q[2] + next()])
                    .collect();
                let (blo, bhi) = aabb(n, &p).unwrap();
                let inside = |q: &P3| (0..3).all(|d| blo[d] <= q[d] && q[d] <= bhi[d]);
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for q in &p[..3] {
                    assert!(inside(q), "valence {n}");
                    for d in 0..3 {
                        lo[d] = lo[d].min(q[d]);
                        hi[d] = hi[d].max(q[d]);
                    }
                }
                for (m, k) in &children(n, &p).unwrap() {
                    let grandchildren = children(*m, k).unwrap();
                    for q in k[..3]
                        .iter()
                        .chain(grandchildren.iter().flat_map(|g| g.1.iter()))
                    {
                        assert!(inside(q), "valence {n}: {q:?} outside {blo:?} {bhi:?}");
                    }
                    let (l, h) = aabb_of(k, &grandchildren);
                    for d in 0..3 {
                        lo[d] = lo[d].min(l[d]);
                        hi[d] = hi[d].max(h[d]);
                    }
                }
                for d in 0..3 {
                    let tol = 1e-11 * (1.0 + lo[d].abs().max(hi[d].abs()));
                    assert!((blo[d] - lo[d]).abs() <= tol && (bhi[d] - hi[d]).abs() <= tol);
                }
            }
        }
    }

    #[test]
    fn segments_bound_the_boundary_of_deeply_refined_children() {
        for n in [3, 4, 5, 6, 7, 9, 12] {
            let p = neighbourhood(n);
            let segs = segments(n, &p).unwrap();
            // The limit corners lie in the segments' hulls' boxes and tangents of the refined
            // control polygon along edge 0 (corner children chain) point along +u.
            let corners = limit_corners(n, &p).unwrap();
            for (e, s) in segs.iter().enumerate() {
                for q in [corners[e], corners[(e + 1) % 3]] {
                    for d in 0..3 {
                        let lo = s.points.iter().map(|x| x[d]).fold(f64::INFINITY, f64::min);
                        let hi = s
                            .points
                            .iter()
                            .map(|x| x[d])
                            .fold(f64::NEG_INFINITY, f64::max);
                        assert!(lo - 1e-9 <= q[d] && q[d] <= hi + 1e-9, "n {n} edge {e}");
                    }
                }
            }
            let (lo, hi) = aabb(n, &p).unwrap();
            for q in corners {
                for d in 0..3 {
                    assert!(lo[d] <= q[d] && q[d] <= hi[d]);
                }
            }
        }
    }
}
