//! Exact geometric predicates (orientation and dot-product signs) with a floating-point filter and an exact expansion fallback.
//!
//! Every predicate first evaluates its determinant in `f64` and accepts the sign when it exceeds
//! Shewchuk's a-priori error bound (Shewchuk, *Adaptive Precision Floating-Point Arithmetic and
//! Fast Robust Geometric Predicates*, 1997, bounds `ccwerrboundA`/`o3derrboundA`). Otherwise it
//! recomputes the determinant exactly with floating-point expansions (`two_diff`,
//! `two_product` by Dekker splitting, `grow_expansion`, `scale_expansion`, all with zero
//! elimination) and returns the sign of the exact value.
//!
//! The result is the sign of the exact real determinant of the `f64` inputs as long as no
//! intermediate product overflows or underflows, which holds for every input that is an `f32`
//! value (the crate's positions): magnitudes stay within `2^±400`. The fallback works on stack
//! arrays: no predicate allocates.

/// Shewchuk's machine epsilon for `f64` with round-to-nearest-even: `2^-53`.
const EPS: f64 = f64::EPSILON * 0.5;
/// Error bound factor of the filtered 2D orientation.
const CCW_ERRBOUND_A: f64 = (3.0 + 16.0 * EPS) * EPS;
/// Error bound factor of the filtered 3D orientation.
const O3D_ERRBOUND_A: f64 = (7.0 + 56.0 * EPS) * EPS;
/// Dekker's splitter for `f64`: `2^27 + 1`.
const SPLITTER: f64 = 134_217_729.0;

/// The sign of a real number: `-1`, `0` or `1`.
pub type Sign = i8;

/// `a + b = x + y` exactly, `x = fl(a + b)`.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let x = a + b;
    let bv = x - a;
    let av = x - bv;
    (x, (a - av) + (b - bv))
}

/// `a − b = x + y` exactly, `x = fl(a − b)`.
#[inline]
fn two_diff(a: f64, b: f64) -> (f64, f64) {
    let x = a - b;
    let bv = a - x;
    let av = x + bv;
    (x, (a - av) + (bv - b))
}

/// `a + b = x + y` exactly when `|a| ≥ |b|` (or `a = 0`).
#[inline]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let x = a + b;
    (x, b - (x - a))
}

/// Dekker's split of `a` into two 26-bit halves, `a = hi + lo`.
#[inline]
fn split(a: f64) -> (f64, f64) {
    let c = SPLITTER * a;
    let big = c - a;
    let hi = c - big;
    (hi, a - hi)
}

/// `a · b = x + y` exactly, `x = fl(a · b)` (Dekker's product, no FMA needed).
#[inline]
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let x = a * b;
    let (ahi, alo) = split(a);
    let (bhi, blo) = split(b);
    let err1 = x - ahi * bhi;
    let err2 = err1 - alo * bhi;
    let err3 = err2 - ahi * blo;
    (x, alo * blo - err3)
}

/// A nonoverlapping floating-point expansion (components in increasing magnitude, zeros
/// eliminated) of at most `N` components, on the stack.
#[derive(Clone, Copy)]
struct Expansion<const N: usize> {
    len: usize,
    c: [f64; N],
}

impl<const N: usize> Expansion<N> {
    fn zero() -> Self {
        Self {
            len: 0,
            c: [0.0; N],
        }
    }

    fn from_pair(hi: f64, lo: f64) -> Self {
        let mut e = Self::zero();
        if lo != 0.0 {
            e.push(lo);
        }
        if hi != 0.0 {
            e.push(hi);
        }
        e
    }

    #[inline]
    fn push(&mut self, x: f64) {
        // Capacities below are sized from Shewchuk's length bounds; this cannot overflow.
        self.c[self.len] = x;
        self.len += 1;
    }

    fn components(&self) -> &[f64] {
        &self.c[..self.len]
    }

    /// The sign of the represented value: the sign of its largest component.
    fn sign(&self) -> Sign {
        match self.components().last() {
            Some(&x) if x > 0.0 => 1,
            Some(&x) if x < 0.0 => -1,
            _ => 0,
        }
    }

    /// `self += b` (Shewchuk's GROW-EXPANSION with zero elimination, in place: the output
    /// index never passes the input index).
    fn grow(&mut self, b: f64) {
        let mut q = b;
        let mut out = 0;
        for i in 0..self.len {
            let (sum, err) = two_sum(q, self.c[i]);
            q = sum;
            if err != 0.0 {
                self.c[out] = err;
                out += 1;
            }
        }
        self.len = out;
        if q != 0.0 {
            self.push(q);
        }
    }

    /// `self + f` (EXPANSION-SUM: grow by each component of `f`).
    fn add<const M: usize, const R: usize>(&self, f: &Expansion<M>) -> Expansion<R> {
        let mut h = Expansion::<R>::zero();
        h.c[..self.len].copy_from_slice(self.components());
        h.len = self.len;
        for &x in f.components() {
            h.grow(x);
        }
        h
    }

    /// `self · b` (SCALE-EXPANSION with zero elimination); at most `2 len` components.
    fn scale<const R: usize>(&self, b: f64) -> Expansion<R> {
        let mut h = Expansion::<R>::zero();
        let comps = self.components();
        let Some((&first, rest)) = comps.split_first() else {
            return h;
        };
        let (mut q, err) = two_product(first, b);
        if err != 0.0 {
            h.push(err);
        }
        for &e in rest {
            let (p1, p0) = two_product(e, b);
            let (sum, err) = two_sum(q, p0);
            if err != 0.0 {
                h.push(err);
            }
            let (nq, err) = fast_two_sum(p1, sum);
            q = nq;
            if err != 0.0 {
                h.push(err);
            }
        }
        if q != 0.0 {
            h.push(q);
        }
        h
    }

    /// `self · f`: the sum over the components of `f` of `self` scaled by each.
    fn mul<const M: usize, const R: usize>(&self, f: &Expansion<M>) -> Expansion<R> {
        let mut h = Expansion::<R>::zero();
        for &x in f.components() {
            let part: Expansion<R> = self.scale(x);
            for &y in part.components() {
                h.grow(y);
            }
        }
        h
    }

    fn neg(&self) -> Self {
        let mut h = *self;
        for x in &mut h.c[..h.len] {
            *x = -*x;
        }
        h
    }
}

#[inline]
fn sign_of(x: f64) -> Sign {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Exact difference `a − b` as a two-component expansion.
#[inline]
fn diff(a: f64, b: f64) -> Expansion<2> {
    let (x, y) = two_diff(a, b);
    Expansion::from_pair(x, y)
}

/// Exact `ux · vy − uy · vx` of two exact differences.
fn cross2(
    ux: &Expansion<2>,
    uy: &Expansion<2>,
    vx: &Expansion<2>,
    vy: &Expansion<2>,
) -> Expansion<16> {
    let a: Expansion<8> = ux.mul(vy);
    let b: Expansion<8> = uy.mul(vx);
    a.add(&b.neg())
}

/// Sign of the 2D orientation `(b − a) × (c − a)`: positive when `a, b, c` turn counter-clockwise.
///
/// Exact for `f64` inputs whose products neither overflow nor underflow (any `f32` values).
///
/// # Performance
/// O(1): a filtered `f64` determinant; the exact fallback (≤ 16-component expansions) runs only
/// when the filter cannot decide (nearly collinear points).
#[inline]
pub fn orient2d(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> Sign {
    let (bax, bay) = (b[0] - a[0], b[1] - a[1]);
    let (cax, cay) = (c[0] - a[0], c[1] - a[1]);
    let l = bax * cay;
    let r = bay * cax;
    let det = l - r;
    let bound = CCW_ERRBOUND_A * (l.abs() + r.abs());
    if det > bound || -det > bound {
        return sign_of(det);
    }
    orient2d_exact(a, b, c)
}

#[cold]
fn orient2d_exact(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> Sign {
    let bax = diff(b[0], a[0]);
    let bay = diff(b[1], a[1]);
    let cax = diff(c[0], a[0]);
    let cay = diff(c[1], a[1]);
    cross2(&bax, &bay, &cax, &cay).sign()
}

/// Sign of the 3D orientation `((b − a) × (c − a)) · (d − a)`: positive when `d` lies on the side
/// the normal of the counter-clockwise triangle `a b c` points to, zero when the four points are
/// coplanar.
///
/// Exact for `f64` inputs whose products neither overflow nor underflow (any `f32` values).
///
/// # Performance
/// O(1): a filtered `f64` determinant; the exact fallback (≤ 192-component expansions on the
/// stack) runs only when the filter cannot decide (nearly coplanar points).
#[inline]
pub fn orient3d(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> Sign {
    let (ux, uy, uz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    let (vx, vy, vz) = (c[0] - a[0], c[1] - a[1], c[2] - a[2]);
    let (wx, wy, wz) = (d[0] - a[0], d[1] - a[1], d[2] - a[2]);
    // u · (v × w)
    let vywz = vy * wz;
    let vzwy = vz * wy;
    let vzwx = vz * wx;
    let vxwz = vx * wz;
    let vxwy = vx * wy;
    let vywx = vy * wx;
    let det = ux * (vywz - vzwy) + uy * (vzwx - vxwz) + uz * (vxwy - vywx);
    let permanent = (vywz.abs() + vzwy.abs()) * ux.abs()
        + (vzwx.abs() + vxwz.abs()) * uy.abs()
        + (vxwy.abs() + vywx.abs()) * uz.abs();
    let bound = O3D_ERRBOUND_A * permanent;
    if det > bound || -det > bound {
        return sign_of(det);
    }
    orient3d_exact(a, b, c, d)
}

#[cold]
fn orient3d_exact(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> Sign {
    let u = [diff(b[0], a[0]), diff(b[1], a[1]), diff(b[2], a[2])];
    let v = [diff(c[0], a[0]), diff(c[1], a[1]), diff(c[2], a[2])];
    let w = [diff(d[0], a[0]), diff(d[1], a[1]), diff(d[2], a[2])];
    // Components of v × w, each exact (≤ 16 components).
    let x = cross2(&v[1], &v[2], &w[1], &w[2]);
    let y = cross2(&v[2], &v[0], &w[2], &w[0]);
    let z = cross2(&v[0], &v[1], &w[0], &w[1]);
    let tx: Expansion<64> = x.mul(&u[0]);
    let ty: Expansion<64> = y.mul(&u[1]);
    let tz: Expansion<64> = z.mul(&u[2]);
    let s: Expansion<128> = tx.add(&ty);
    let det: Expansion<192> = s.add(&tz);
    det.sign()
}

/// Sign of the dot product `(b − a) · (c − a)`.
///
/// Exact for `f64` inputs whose products neither overflow nor underflow (any `f32` values).
///
/// # Performance
/// O(1), filtered like [`orient2d`].
#[inline]
pub fn dot_sign(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Sign {
    let p = [
        (b[0] - a[0]) * (c[0] - a[0]),
        (b[1] - a[1]) * (c[1] - a[1]),
        (b[2] - a[2]) * (c[2] - a[2]),
    ];
    let dot = p[0] + p[1] + p[2];
    // Three rounded differences feeding each product, then a sum of three: 5 roundings.
    let bound = (6.0 + 64.0 * EPS) * EPS * (p[0].abs() + p[1].abs() + p[2].abs());
    if dot > bound || -dot > bound {
        return sign_of(dot);
    }
    dot_sign_exact(a, b, c)
}

#[cold]
fn dot_sign_exact(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Sign {
    let mut sum = Expansion::<24>::zero();
    for k in 0..3 {
        let prod: Expansion<8> = diff(b[k], a[k]).mul(&diff(c[k], a[k]));
        sum = sum.add(&prod);
    }
    sum.sign()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Exact orientation of integer points in i128 (the reference).
    fn orient3d_i128(p: [[i64; 3]; 4]) -> Sign {
        let d = |i: usize, k: usize| (p[i][k] - p[0][k]) as i128;
        let det = d(1, 0) * (d(2, 1) * d(3, 2) - d(2, 2) * d(3, 1))
            + d(1, 1) * (d(2, 2) * d(3, 0) - d(2, 0) * d(3, 2))
            + d(1, 2) * (d(2, 0) * d(3, 1) - d(2, 1) * d(3, 0));
        det.signum() as Sign
    }

    fn to_f64(p: [i64; 3], scale: f64) -> [f64; 3] {
        p.map(|x| x as f64 * scale)
    }

    #[test]
    fn orient3d_matches_integer_reference_on_near_degenerate_input() {
        // Large integer coordinates (up to 2^24, exactly representable in f32) times a power of
        // two: the f64 determinant is far from exact, so the filter must defer to the fallback.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut fallback_cases = 0;
        for _ in 0..20_000 {
            let base: [i64; 3] = std::array::from_fn(|_| rng.random_range(-(1 << 23)..(1 << 23)));
            let dir1: [i64; 3] = std::array::from_fn(|_| rng.random_range(-1000..1000));
            let dir2: [i64; 3] = std::array::from_fn(|_| rng.random_range(-1000..1000));
            // d nearly in the plane of a, b, c: a + s dir1 + t dir2 + tiny offset.
            let (s, t) = (rng.random_range(-300..300), rng.random_range(-300..300));
            let off: i64 = rng.random_range(-1..=1);
            let a = base;
            let b = std::array::from_fn(|k| base[k] + 7 * dir1[k]);
            let c = std::array::from_fn(|k| base[k] + 5 * dir2[k]);
            let d = std::array::from_fn(|k| base[k] + s * dir1[k] + t * dir2[k] + off);
            let pts = [a, b, c, d];
            if pts.iter().flatten().any(|x| x.abs() >= 1 << 24) {
                continue;
            }
            let expected = orient3d_i128(pts);
            let scale = 2f64.powi(-10);
            let got = orient3d(
                to_f64(a, scale),
                to_f64(b, scale),
                to_f64(c, scale),
                to_f64(d, scale),
            );
            assert_eq!(got, expected, "{pts:?}");
            if expected == 0 {
                fallback_cases += 1;
            }
        }
        assert!(
            fallback_cases > 1000,
            "too few exactly coplanar cases: {fallback_cases}"
        );
    }

    #[test]
    fn orient2d_and_dot_match_integer_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for _ in 0..20_000 {
            let a: [i64; 3] = std::array::from_fn(|_| rng.random_range(-(1 << 23)..(1 << 23)));
            let dir: [i64; 3] = std::array::from_fn(|_| rng.random_range(-3000..3000));
            let (s, t) = (rng.random_range(-2000..2000), rng.random_range(-2000..2000));
            let b: [i64; 3] =
                std::array::from_fn(|k| (a[k] + s * dir[k]).clamp(-(1 << 24) + 1, (1 << 24) - 1));
            let perp = [-dir[1], dir[0], rng.random_range(-3..3)];
            let jitter: i64 = rng.random_range(-1..=1);
            let c: [i64; 3] = std::array::from_fn(|k| {
                (a[k] + t * dir[k] + jitter * (k as i64 + 1)).clamp(-(1 << 24) + 1, (1 << 24) - 1)
            });
            let cross = (b[0] - a[0]) as i128 * (c[1] - a[1]) as i128
                - (b[1] - a[1]) as i128 * (c[0] - a[0]) as i128;
            let got = orient2d(
                [a[0] as f64, a[1] as f64],
                [b[0] as f64, b[1] as f64],
                [c[0] as f64, c[1] as f64],
            );
            assert_eq!(got, cross.signum() as Sign);
            // Dot of (b − a) with a vector nearly perpendicular to it.
            let e: [i64; 3] = std::array::from_fn(|k| a[k] + perp[k]);
            let dot: i128 = (0..3)
                .map(|k| (b[k] - a[k]) as i128 * (e[k] - a[k]) as i128)
                .sum();
            let got = dot_sign(
                a.map(|x| x as f64),
                b.map(|x| x as f64),
                e.map(|x| x as f64),
            );
            assert_eq!(got, dot.signum() as Sign);
        }
    }

    #[test]
    fn orient3d_convention_is_right_handed() {
        let o = [0.0; 3];
        let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        assert_eq!(orient3d(o, x, y, z), 1);
        assert_eq!(orient3d(o, y, x, z), -1);
        assert_eq!(orient3d(o, x, y, [3.0, -2.0, 0.0]), 0);
        assert_eq!(orient2d([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]), 1);
    }
}
