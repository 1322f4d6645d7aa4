//! The continuous vertex–triangle test: the first time a linearly moving point meets a linearly moving triangle within a step (coplanarity cubic, Bernstein filter, interval root isolation); used by cloth on skin and by the swept contacts of deformable meshes.

use crate::math::Vec3;

/// A crossing of a moving point through a moving triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Crossing {
    /// Fraction of the step, in `[0, 1]`.
    pub(crate) time: f32,
    /// Barycentric coordinates of the crossing point on the triangle (sum 1).
    pub(crate) barycentric: Vec3,
}

/// The first time `t ∈ [0, 1]` at which the point `p0 → p1` lies in the triangle
/// `(a0, b0, c0) → (a1, b1, c1)` (every point moving linearly), crossing it from the side its
/// normal `(b − a) × (c − a)` points to (the outside of an outward-oriented skin), within the
/// relative tolerance `slack` of the triangle's plane and edges; `None` when it does not.
///
/// The coplanarity condition `(p − a) · ((b − a) × (c − a)) = 0` is a cubic in `t` (Provot
/// 1997; Bridson et al. 2002; the seed's §2.1.1 eqs. 1–2). Its Bernstein coefficients on
/// `[0, 1]` bound it (convex hull): when all have one strict sign, there is no root and the pair
/// is dismissed after four evaluations. Otherwise the cubic is split at the roots of its
/// derivative into monotone pieces, and each sign change is bisected.
pub(crate) fn first_crossing(
    p: [Vec3; 2],
    a: [Vec3; 2],
    b: [Vec3; 2],
    c: [Vec3; 2],
) -> Option<Crossing> {
    let at = |x: [Vec3; 2], t: f32| x[0] + (x[1] - x[0]) * t;
    let f = |t: f32| {
        let (pa, ba, ca) = (
            at(p, t) - at(a, t),
            at(b, t) - at(a, t),
            at(c, t) - at(a, t),
        );
        pa.dot(ba.cross(ca)) as f64
    };
    let (f0, f1, f2, f3) = (f(0.0), f(1.0 / 3.0), f(2.0 / 3.0), f(1.0));
    // Only a point coming from the front (outside) counts.
    if f0 < 0.0 {
        return None;
    }
    // Bernstein coefficients from the values at 0, 1/3, 2/3, 1.
    let b0 = f0;
    let b3 = f3;
    let b1 = (-5.0 * f0 + 18.0 * f1 - 9.0 * f2 + 2.0 * f3) / 6.0;
    let b2 = (2.0 * f0 - 9.0 * f1 + 18.0 * f2 - 5.0 * f3) / 6.0;
    // The scale of the cubic's terms: rounding of the values is a few ulps of it.
    let scale = [p, a, b, c]
        .iter()
        .flat_map(|x| x.iter())
        .fold(0f32, |m, x| m.max((*x - a[0]).abs().max_element())) as f64;
    let noise = 64.0 * f32::EPSILON as f64 * scale * scale * scale * 8.0;
    if b0.min(b1).min(b2).min(b3) > noise {
        return None;
    }
    // Monomial form c0 + c1 t + c2 t² + c3 t³.
    let c1 = 3.0 * (b1 - b0);
    let c2 = 3.0 * (b2 - 2.0 * b1 + b0);
    let c3 = b3 - 3.0 * b2 + 3.0 * b1 - b0;
    let g = |t: f64| ((c3 * t + c2) * t + c1) * t + b0;
    // Split [0, 1] at the derivative's roots: c1 + 2 c2 t + 3 c3 t² = 0.
    let mut cuts = [0.0f64, 1.0, 1.0, 1.0];
    let mut n = 1;
    let (qa, qb, qc) = (3.0 * c3, 2.0 * c2, c1);
    if qa.abs() > 1e-30 {
        let disc = qb * qb - 4.0 * qa * qc;
        if disc >= 0.0 {
            let s = disc.sqrt();
            let mut r = [(-qb - s) / (2.0 * qa), (-qb + s) / (2.0 * qa)];
            r.sort_by(f64::total_cmp);
            for x in r {
                if x > 0.0 && x < 1.0 {
                    cuts[n] = x;
                    n += 1;
                }
            }
        }
    } else if qb.abs() > 1e-30 {
        let x = -qc / qb;
        if x > 0.0 && x < 1.0 {
            cuts[n] = x;
            n += 1;
        }
    }
    cuts[n] = 1.0;
    // Candidate times: each piece's root, or its end nearest zero when the cubic only grazes
    // zero within the noise.
    for piece in 0..n {
        let (mut lo, mut hi) = (cuts[piece], cuts[piece + 1]);
        let (glo, ghi) = (g(lo), g(hi));
        let t = if glo.abs() <= noise {
            lo
        } else if glo > 0.0 && (ghi < 0.0 || ghi.abs() <= noise) {
            if ghi.abs() <= noise {
                hi
            } else {
                for _ in 0..40 {
                    let mid = 0.5 * (lo + hi);
                    if g(mid).signum() == glo.signum() {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                hi
            }
        } else {
            continue;
        };
        let t = t as f32;
        if let Some(barycentric) = inside(at(p, t), at(a, t), at(b, t), at(c, t)) {
            return Some(Crossing {
                time: t,
                barycentric,
            });
        }
    }
    None
}

/// Barycentric coordinates of `p` projected on the plane of `(a, b, c)` when the projection
/// lies in the triangle (with a relative tolerance of `1e-4`) and `p` within `1e-3` of the
/// triangle's size from the plane.
fn inside(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<Vec3> {
    let n = (b - a).cross(c - a);
    let area2 = n.length_squared();
    if area2 <= 0.0 || !area2.is_finite() {
        return None;
    }
    let size = (b - a).length().max((c - a).length()).max((c - b).length());
    if (p - a).dot(n).abs() / area2.sqrt() > 1e-3 * size {
        return None;
    }
    let u = (b - p).cross(c - p).dot(n) / area2;
    let v = (c - p).cross(a - p).dot(n) / area2;
    let w = 1.0 - u - v;
    let tol = -1e-4;
    (u >= tol && v >= tol && w >= tol).then(|| Vec3::new(u, v, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn still(x: Vec3) -> [Vec3; 2] {
        [x, x]
    }

    #[test]
    fn a_point_through_a_still_triangle_crosses_at_the_plane() {
        let (a, b, c) = (
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        );
        // Normal +z: coming from above crosses; from below does not count.
        let hit = first_crossing(
            [Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.2, 0.2, -3.0)],
            still(a),
            still(b),
            still(c),
        )
        .unwrap();
        assert!((hit.time - 0.25).abs() < 1e-5, "{hit:?}");
        assert!(
            (hit.barycentric - Vec3::new(0.6, 0.2, 0.2))
                .abs()
                .max_element()
                < 1e-4
        );
        assert!(
            first_crossing(
                [Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, 3.0)],
                still(a),
                still(b),
                still(c)
            )
            .is_none()
        );
        // Beside the triangle: no crossing.
        assert!(
            first_crossing(
                [Vec3::new(0.8, 0.8, 1.0), Vec3::new(0.8, 0.8, -1.0)],
                still(a),
                still(b),
                still(c)
            )
            .is_none()
        );
    }

    #[test]
    fn a_triangle_sweeping_over_a_still_point_is_found_and_a_miss_is_not() {
        // The triangle moves down through the point at the origin (normal +z).
        let lift = |z0: f32, z1: f32, x: Vec3| [x + Vec3::Z * z0, x + Vec3::Z * z1];
        let (a, b, c) = (
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(2.0, -1.0, 0.0),
            Vec3::new(-1.0, 2.0, 0.0),
        );
        let hit = first_crossing(
            still(Vec3::ZERO),
            lift(-1.0, 3.0, a),
            lift(-1.0, 3.0, b),
            lift(-1.0, 3.0, c),
        );
        // The triangle rises through the point: relative to it the point moves down, from the
        // front.
        let hit = hit.unwrap();
        assert!((hit.time - 0.25).abs() < 1e-5, "{hit:?}");
        // A rotating triangle whose plane passes the point outside the triangle: no crossing.
        let far = Vec3::new(5.0, 5.0, 0.0);
        assert!(
            first_crossing([far + Vec3::Z, far - Vec3::Z], still(a), still(b), still(c)).is_none()
        );
    }

    #[test]
    fn crossings_agree_with_dense_sampling() {
        // Random linear motions: whenever dense sampling of the signed volume shows a sign change
        // from + to − at a time where the point is well inside the triangle, the cubic finds a
        // crossing no later than it.
        let mut s = 11u64;
        let mut rnd = move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let mut found = 0;
        for _ in 0..10000 {
            let mut pair = || {
                let x = Vec3::new(rnd(), rnd(), rnd());
                [x, x + Vec3::new(rnd(), rnd(), rnd())]
            };
            let (p, a, b, c) = (pair(), pair(), pair(), pair());
            let at = |x: [Vec3; 2], t: f32| x[0] + (x[1] - x[0]) * t;
            let vol = |t: f32| {
                (at(p, t) - at(a, t)).dot((at(b, t) - at(a, t)).cross(at(c, t) - at(a, t)))
            };
            let mut first = None;
            let steps = 2000;
            if vol(0.0) > 0.0 {
                for k in 1..=steps {
                    let (t0, t1) = ((k - 1) as f32 / steps as f32, k as f32 / steps as f32);
                    if vol(t0) > 0.0 && vol(t1) <= 0.0 {
                        let t = 0.5 * (t0 + t1);
                        let n = (at(b, t) - at(a, t)).cross(at(c, t) - at(a, t));
                        let q = at(p, t);
                        let u = (at(b, t) - q).cross(at(c, t) - q).dot(n) / n.length_squared();
                        let v = (at(c, t) - q).cross(at(a, t) - q).dot(n) / n.length_squared();
                        if u > 0.05 && v > 0.05 && 1.0 - u - v > 0.05 {
                            first = Some(t1);
                            break;
                        }
                    }
                }
            }
            if let Some(t) = first {
                found += 1;
                let hit = first_crossing(p, a, b, c).expect("a sampled crossing was missed");
                assert!(hit.time <= t + 1e-3, "{} vs {t}", hit.time);
            }
        }
        assert!(found > 50, "{found}");
    }
}
