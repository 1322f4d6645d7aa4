//! The contour condition of the self-interference test (seed §2.4, §3.6): the limit boundary of a disc-shaped region, projected onto the plane normal to the region's cone axis, is proven a simple closed curve by tangent wedges and boxes.
//!
//! What is tested, exactly. The region's boundary is a closed loop of *segments*, one per
//! boundary edge, each bounded by a [`Segment`] (hull points, tangent generators). All are
//! projected onto the plane orthogonal to the cone axis `d`. The loop is accepted when
//!
//! 1. every two consecutive segments (cyclically) have projected tangent generators that all lie
//!    strictly inside one open half-plane `{x : ⟨x, w⟩ > 0}` (a *tangent wedge* narrower than π, the
//!    curve analogue of the normal cone, §3.6): their concatenation is then strictly monotone
//!    along `w`, so it has no self-intersection, and the two segments meet only at their common
//!    endpoint;
//! 2. every two non-consecutive segments have disjoint projected hulls (the convex hulls of their
//!    projected hull points, which hold the projected curves): their boxes are disjoint, or a
//!    separating line is found among the two hulls' edge normals.
//!
//! Then no two points of the projected loop coincide except consecutive segments' shared
//! endpoints: the projection is a simple closed curve. Together with the normal cone (every normal
//! `n` has `⟨n, d⟩ > 0`, so the projection is a local homeomorphism of the region) and the region
//! being a topological disc, the projection is injective on the region (a local homeomorphism of a
//! closed disc that is injective on its boundary is injective), so the region's limit surface
//! does not self-intersect. Each condition is only sufficient: a failure makes the caller split
//! the region, never report a miss. The test uses the seed's subdivision-curve structure through
//! the segments' Bézier control polygons (regular pieces) and eigenbasis derivative bounds
//! (pieces at an irregular corner), not a sampled contour.

use super::refine::{P3, Segment};

/// Two unit vectors spanning the plane orthogonal to the unit `d`.
fn plane_basis(d: P3) -> (P3, P3) {
    let helper = if d[0].abs() < 0.6 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let e1 = normalise(cross(helper, d));
    let e2 = cross(d, e1);
    (e1, e2)
}

fn cross(a: P3, b: P3) -> P3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalise(v: P3) -> P3 {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Margin on the wedge's free arc (radians), covering the rounding of angles and projections.
const WEDGE_EPS: f64 = 1e-9;

/// A projected segment: its box, its range in the shared buffer of projected hull points, and
/// its range in the shared buffer of projected non-zero tangents.
struct Projected {
    lo: [f64; 2],
    hi: [f64; 2],
    points: (usize, usize),
    tangents: (usize, usize),
}

fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Andrew's monotone chain (counter-clockwise, collinear points dropped).
fn convex_hull(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_unstable_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && orient(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Whether a line separates two convex polygons with a gap above `margin` (separating axis
/// theorem over both polygons' edge normals; a point or segment polygon also offers its own
/// direction and normal).
fn hulls_separate(a: &[[f64; 2]], b: &[[f64; 2]], margin: f64) -> bool {
    let axes = |p: &[[f64; 2]]| -> Vec<[f64; 2]> {
        let n = p.len();
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..n {
            let (u, v) = (p[i], p[(i + 1) % n]);
            out.push([v[1] - u[1], u[0] - v[0]]);
            if n <= 2 {
                out.push([v[0] - u[0], v[1] - u[1]]);
            }
        }
        out
    };
    let project = |p: &[[f64; 2]], ax: [f64; 2]| {
        p.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                let x = q[0] * ax[0] + q[1] * ax[1];
                (lo.min(x), hi.max(x))
            })
    };
    axes(a).into_iter().chain(axes(b)).any(|ax| {
        let l = (ax[0] * ax[0] + ax[1] * ax[1]).sqrt();
        if l.is_nan() || l <= 0.0 {
            return false;
        }
        let ax = [ax[0] / l, ax[1] / l];
        let (alo, ahi) = project(a, ax);
        let (blo, bhi) = project(b, ax);
        ahi + margin < blo || bhi + margin < alo
    })
}

/// Whether all `angles` (radians, any order) fit strictly in an open half-plane: the largest
/// circular gap between consecutive sorted angles exceeds π by the margin. No angle at all (a
/// point curve) passes. The reference [`fit_half_plane`] is tested against.
#[cfg(test)]
fn in_half_plane(angles: &mut [f64]) -> bool {
    if angles.len() < 2 {
        return true;
    }
    angles.sort_unstable_by(f64::total_cmp);
    let tau = core::f64::consts::TAU;
    let mut gap = angles[0] + tau - angles[angles.len() - 1];
    for w in angles.windows(2) {
        gap = gap.max(w[1] - w[0]);
    }
    gap > core::f64::consts::PI + WEDGE_EPS
}

fn cross2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn dot2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// Whether the 2D `vectors` (non-zero) fit strictly in an open half-plane, with the margin of
/// the angle-gap test (the vectors span a wedge narrower than `π − WEDGE_EPS`), without angles
/// or sorting: the wedge spanning the vectors seen so far, from its clockwise-most `l` to its
/// counter-clockwise-most `r`, grows by one vector at a time. A vector inside the wedge leaves it
/// (left of `l`, right of `r`, and not opposite both, which only a wedge of width 0 admits); one
/// outside extends it on the side where it lies less than π away (`cross(l, v) > 0`: beyond `r`;
/// `cross(v, r) > 0`: beyond `l`; for a wedge narrower than π at most one holds), else no
/// half-plane holds them. The wedge of every prefix of a set that fits in a half-plane is unique,
/// so the growth is exact up to rounding, which the final margin (`4 · WEDGE_EPS` on the sine)
/// covers.
///
/// # Performance
/// O(vectors): two cross products per vector, no allocation.
fn fit_half_plane<'a>(vectors: impl IntoIterator<Item = &'a [f64; 2]>) -> bool {
    let mut it = vectors.into_iter();
    let Some(&first) = it.next() else {
        return true;
    };
    let (mut l, mut r) = (first, first);
    for &v in it {
        let (cl, cr) = (cross2(l, v), cross2(v, r));
        if cl >= 0.0 && cr >= 0.0 && (dot2(l, v) > 0.0 || dot2(v, r) > 0.0) {
            continue;
        }
        if cl > 0.0 {
            r = v;
        } else if cr > 0.0 {
            l = v;
        } else {
            return false;
        }
    }
    let (c, d) = (cross2(l, r), dot2(l, r));
    if c >= 0.0 && d >= 0.0 {
        return true;
    }
    let norms = dot2(l, l).sqrt() * dot2(r, r).sqrt();
    // sin(π − W) > sin(4·WEDGE_EPS) for a wedge W in (π/2, π).
    c > 4.0 * WEDGE_EPS * norms
}

/// Whether the closed loop of `segments` (in boundary order) projects onto the plane orthogonal
/// to the unit `axis` as a simple closed curve, by the two sufficient conditions of the module
/// docs. Loops of fewer than three segments are refused.
///
/// # Performance
/// O(Σ generators) for the wedges (no angles, no sorting), a sort-and-sweep of the boxes
/// (O(s log s)) and convex hulls only of the non-consecutive segments whose boxes overlap; a few
/// allocations per call.
pub(crate) fn projected_loop_is_simple(segments: &[&Segment], axis: P3) -> bool {
    let m = segments.len();
    if m < 3 {
        return false;
    }
    let (e1, e2) = plane_basis(axis);
    let mut proj: Vec<Projected> = Vec::with_capacity(m);
    let total_points: usize = segments.iter().map(|s| s.points.len()).sum();
    let total_tangents: usize = segments.iter().map(|s| s.tangents.len()).sum();
    let mut points: Vec<[f64; 2]> = Vec::with_capacity(total_points);
    let mut tangents: Vec<[f64; 2]> = Vec::with_capacity(total_tangents);
    for s in segments {
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        let p0 = points.len();
        for &p in &s.points {
            let q = [dot(p, e1), dot(p, e2)];
            points.push(q);
            for d in 0..2 {
                lo[d] = lo[d].min(q[d]);
                hi[d] = hi[d].max(q[d]);
            }
        }
        if !(lo[0].is_finite() && lo[1].is_finite() && hi[0].is_finite() && hi[1].is_finite()) {
            return false;
        }
        for d in 0..2 {
            let margin = 1e-12 * (1.0 + lo[d].abs().max(hi[d].abs()));
            lo[d] -= margin;
            hi[d] += margin;
        }
        let t0 = tangents.len();
        for &t in &s.tangents {
            let (x, y) = (dot(t, e1), dot(t, e2));
            if !(x.is_finite() && y.is_finite()) {
                return false;
            }
            if x != 0.0 || y != 0.0 {
                tangents.push([x, y]);
            }
        }
        proj.push(Projected {
            lo,
            hi,
            points: (p0, points.len()),
            tangents: (t0, tangents.len()),
        });
    }
    // 1. Consecutive pairs: one open half-plane for both segments' tangents.
    for i in 0..m {
        let (a, b) = proj[i].tangents;
        let (c, d) = proj[(i + 1) % m].tangents;
        if !fit_half_plane(tangents[a..b].iter().chain(&tangents[c..d])) {
            return false;
        }
    }
    // 2. Non-consecutive pairs: disjoint boxes (sort by lower x, sweep), else separated hulls.
    let mut by_x: Vec<usize> = (0..m).collect();
    by_x.sort_unstable_by(|&a, &b| proj[a].lo[0].total_cmp(&proj[b].lo[0]));
    let mut hulls: Vec<Option<Vec<[f64; 2]>>> = Vec::new();
    for (k, &a) in by_x.iter().enumerate() {
        for &b in &by_x[k + 1..] {
            if proj[b].lo[0] > proj[a].hi[0] {
                break;
            }
            let consecutive = (a + 1) % m == b || (b + 1) % m == a;
            if !consecutive && proj[b].lo[1] <= proj[a].hi[1] && proj[a].lo[1] <= proj[b].hi[1] {
                if hulls.is_empty() {
                    hulls.resize(m, None);
                }
                for c in [a, b] {
                    if hulls[c].is_none() {
                        let (s, e) = proj[c].points;
                        hulls[c] = Some(convex_hull(points[s..e].to_vec()));
                    }
                }
                let margin = 1e-12 * (1.0 + proj[a].hi[0].abs().max(proj[a].hi[1].abs()));
                let (Some(ha), Some(hb)) = (&hulls[a], &hulls[b]) else {
                    return false;
                };
                if !hulls_separate(ha, hb, margin) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(a: P3, b: P3) -> Segment {
        Segment {
            points: vec![a, b],
            tangents: vec![[b[0] - a[0], b[1] - a[1], b[2] - a[2]]],
        }
    }

    /// The growing wedge of `fit_half_plane` against the angle-gap test, on random vector sets
    /// (narrow, wide, around a half-plane and beyond), and on opposite and parallel vectors.
    #[test]
    fn half_plane_wedge_agrees_with_angle_gaps() {
        assert!(!fit_half_plane(&[[1.0, 0.0], [-1.0, 0.0]]));
        assert!(!fit_half_plane(&[
            [1.0, 0.0],
            [2.0, 0.0],
            [-1.0, 1e-3],
            [-1.0, -1e-3]
        ]));
        assert!(fit_half_plane(&[[1.0, 0.0], [2.0, 0.0]]));
        assert!(fit_half_plane(&[[1.0, 0.0], [-1.0, 1e-3], [0.0, 1.0]]));
        assert!(!fit_half_plane(&[
            [1.0, 0.0],
            [-1.0, 1e-3],
            [0.0, 1.0],
            [0.0, -1.0]
        ]));
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut accepted = 0;
        for case in 0..4000 {
            let spread = [0.5, 2.0, 3.6, 6.0][case % 4];
            let centre = next() * core::f64::consts::TAU;
            let n = 2 + (next() * 8.0) as usize;
            let vectors: Vec<[f64; 2]> = (0..n)
                .map(|_| {
                    let a = centre + (next() - 0.5) * spread;
                    let r = 0.1 + next();
                    [r * a.cos(), r * a.sin()]
                })
                .collect();
            let mut angles: Vec<f64> = vectors.iter().map(|v| v[1].atan2(v[0])).collect();
            let reference = in_half_plane(&mut angles);
            assert_eq!(fit_half_plane(&vectors), reference, "{vectors:?}");
            accepted += reference as usize;
        }
        assert!(accepted > 1000 && accepted < 3900, "{accepted}");
    }

    #[test]
    fn square_is_simple_and_bow_tie_is_not() {
        let z = [0.0, 0.0, 1.0];
        let (a, b, c, d) = (
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        );
        let square = [line(a, b), line(b, c), line(c, d), line(d, a)];
        let square = [&square[0], &square[1], &square[2], &square[3]];
        assert!(projected_loop_is_simple(&square, z));
        // The same loop seen edge-on (projection along x) collapses.
        assert!(!projected_loop_is_simple(&square, [1.0, 0.0, 0.0]));
        let bow = [line(a, b), line(b, d), line(d, c), line(c, a)];
        assert!(!projected_loop_is_simple(&bow.each_ref(), z));
        // A reversal inside one pair of consecutive segments (a spike) is refused.
        let spike = [
            line(a, b),
            line(b, [0.5, 0.0, 0.0]),
            line([0.5, 0.0, 0.0], d),
            line(d, a),
        ];
        assert!(!projected_loop_is_simple(&spike.each_ref(), z));
        assert!(!projected_loop_is_simple(&square[..2], z));
    }
}
