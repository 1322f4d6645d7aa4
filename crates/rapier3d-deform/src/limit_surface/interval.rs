//! f64 intervals rounded outward one ulp per operation, and interval 3-vectors with the cross product (seed §3.3's interval arithmetic).

/// A closed interval `[lo, hi]` of f64, every operation rounded outward by one ulp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval64 {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval64 {
    /// `[0, 0]`.
    pub const ZERO: Self = Self { lo: 0.0, hi: 0.0 };

    /// `[lo, hi]` (the caller keeps `lo ≤ hi`).
    pub const fn new(lo: f64, hi: f64) -> Self {
        Self { lo, hi }
    }

    /// The point interval `[x, x]`.
    pub const fn point(x: f64) -> Self {
        Self { lo: x, hi: x }
    }

    /// The smallest interval holding both.
    pub fn hull(self, other: Self) -> Self {
        Self::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    /// The smallest interval holding `self` and 0.
    pub fn with_zero(self) -> Self {
        self.hull(Self::ZERO)
    }

    /// Widened by `eps` at both ends.
    pub fn widen(self, eps: f64) -> Self {
        Self::new((self.lo - eps).next_down(), (self.hi + eps).next_up())
    }

    /// Largest absolute value.
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// Whether `x` lies in the interval.
    pub fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// `self · x` for a scalar.
    pub fn scale(self, x: f64) -> Self {
        let (a, b) = (self.lo * x, self.hi * x);
        Self::new(a.min(b).next_down(), a.max(b).next_up())
    }
}

impl core::ops::Add for Interval64 {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self::new((self.lo + o.lo).next_down(), (self.hi + o.hi).next_up())
    }
}

impl core::ops::Sub for Interval64 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self::new((self.lo - o.hi).next_down(), (self.hi - o.lo).next_up())
    }
}

impl core::ops::Mul for Interval64 {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let p = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Self::new(lo.next_down(), hi.next_up())
    }
}

/// A 3-vector of intervals (an axis-aligned box).
pub type IVec64 = [Interval64; 3];

/// The box `v · I` of a vector times a scalar interval.
pub fn scaled(v: [f64; 3], i: Interval64) -> IVec64 {
    v.map(|x| i.scale(x))
}

/// Component-wise sum.
pub fn add(a: IVec64, b: IVec64) -> IVec64 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The interval cross product: holds `a × b` for every `a ∈ A`, `b ∈ B`.
pub fn cross(a: IVec64, b: IVec64) -> IVec64 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The eight corners of a box.
pub fn corners(b: IVec64) -> [[f64; 3]; 8] {
    core::array::from_fn(|i| {
        [
            if i & 1 == 0 { b[0].lo } else { b[0].hi },
            if i & 2 == 0 { b[1].lo } else { b[1].hi },
            if i & 4 == 0 { b[2].lo } else { b[2].hi },
        ]
    })
}
