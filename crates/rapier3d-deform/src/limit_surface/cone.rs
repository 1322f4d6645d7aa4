//! Normal cones (axis, half-angle) of a set of generators: the conical hull of vectors whose non-negative combinations hold every normal (seed §4, normal cones).

/// A cone of directions: every direction within `half_angle` of `axis` (unit), `half_angle < π/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalCone {
    axis: [f64; 3],
    half_angle: f64,
}

/// The normal bound of a limit patch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormalBound {
    /// Every normal of the patch lies in the cone.
    Cone(NormalCone),
    /// No cone narrower than a half-space was proven: the patch may be folded, or it is
    /// degenerate (a vanishing tangent plane at its irregular corner, zero-area control data).
    Unbounded,
}

impl NormalBound {
    /// The cone, if any.
    pub fn cone(&self) -> Option<&NormalCone> {
        match self {
            NormalBound::Cone(c) => Some(c),
            NormalBound::Unbounded => None,
        }
    }
}

impl NormalCone {
    /// The unit axis.
    pub fn axis(&self) -> [f64; 3] {
        self.axis
    }

    /// The half-angle in radians, in `[0, π/2)`.
    pub fn half_angle(&self) -> f64 {
        self.half_angle
    }

    /// The angle between `direction` (any length, non-zero) and the axis, radians.
    ///
    /// # Performance
    /// O(1).
    pub fn angle_to(&self, direction: [f64; 3]) -> f64 {
        angle(self.axis, direction)
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// The angle between two non-zero vectors (robust near 0 and π: `atan2(|a×b|, a·b)`).
pub(crate) fn angle(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    norm(c).atan2(dot(a, b))
}

/// Angular slack added to every half-angle: covers the rounding of the angle computations.
const ANGLE_EPS: f64 = 1e-9;

/// Axes [`cone_of`] evaluates: the start and three Bădoiu–Clarkson moves (steps `1/2`, `1/3`,
/// `1/4`). The first moves narrow a cone the most; more cost more dot products than the narrower
/// cones save downstream (32 axes made the bent tube's flat queries about 20 % dearer for the
/// same regions).
const SEARCH_STEPS: usize = 4;

/// Axes [`cone_of_near`] evaluates: the known axis it starts at and one move of `1/9`.
const NEAR_STEPS: usize = 2;

/// The narrowest cone this module finds around all `generators`, or `None` when a generator is
/// zero or not finite, or no axis sees all of them at less than a right angle.
///
/// The axis starts at the normalised sum of the unit generators and is then moved towards the
/// farthest generator with shrinking steps (Bădoiu–Clarkson on the sphere, [`SEARCH_STEPS`] axes);
/// any axis gives a valid cone (the half-angle is the largest angle to a generator), the steps
/// only narrow it. The steps compare axes by the cosine to their farthest generator; the
/// half-angle of the best axis is then measured robustly ([`angle`]) and widened by
/// [`ANGLE_EPS`]. The cone holds the conical hull of the generators because a cone narrower than
/// a half-space is convex.
///
/// # Performance
/// O(4 · generators) dot products, one allocation.
pub(crate) fn cone_of(generators: &[[f64; 3]]) -> Option<NormalCone> {
    cone_search(generators, None)
}

/// [`cone_of`] started at the unit `axis` (a cone of similar generators found before), evaluating
/// [`NEAR_STEPS`] axes with the shorter steps of a longer search: the same kind of valid cone.
///
/// # Performance
/// O(2 · generators) dot products, one allocation.
pub(crate) fn cone_of_near(generators: &[[f64; 3]], axis: [f64; 3]) -> Option<NormalCone> {
    cone_search(generators, Some(axis))
}

fn cone_search(generators: &[[f64; 3]], start: Option<[f64; 3]>) -> Option<NormalCone> {
    let mut units = Vec::with_capacity(generators.len());
    let mut sum = [0.0; 3];
    for &g in generators {
        let l = norm(g);
        if !(l > 0.0 && l.is_finite()) {
            return None;
        }
        let u = g.map(|x| x / l);
        for d in 0..3 {
            sum[d] += u[d];
        }
        units.push(u);
    }
    let l = norm(sum);
    if l.is_nan() || l <= 1e-300 {
        return None;
    }
    let (mut axis, steps) = match start {
        Some(a) if a.iter().all(|x| x.is_finite()) && norm(a) > 0.5 => (a, 8..=7 + NEAR_STEPS),
        _ => (sum.map(|x| x / l), 1..=SEARCH_STEPS),
    };
    let last = *steps.end();
    // The farthest generator from an axis is the one of smallest dot product (unit vectors).
    let worst = |axis: [f64; 3]| {
        let (mut min, mut at) = (f64::INFINITY, 0);
        for (i, u) in units.iter().enumerate() {
            let c = axis[0] * u[0] + axis[1] * u[1] + axis[2] * u[2];
            if c < min {
                min = c;
                at = i;
            }
        }
        (min, units.get(at).copied().unwrap_or(axis))
    };
    // (cosine to the farthest generator, axis, farthest generator) of the best axis so far.
    let mut best: Option<(f64, [f64; 3], [f64; 3])> = None;
    for step in steps {
        let (cos, far) = worst(axis);
        if cos > 0.0 && best.is_none_or(|b| cos > b.0) {
            best = Some((cos, axis, far));
        }
        if step == last {
            break;
        }
        let f = 1.0 / (step as f64 + 1.0);
        let moved = [0, 1, 2].map(|d| axis[d] + f * (far[d] - axis[d]));
        let l = norm(moved);
        if l.is_nan() || l <= 0.0 {
            break;
        }
        axis = moved.map(|x| x / l);
    }
    let (_, axis, far) = best?;
    let theta = angle(axis, far) + ANGLE_EPS;
    (theta < core::f64::consts::FRAC_PI_2).then_some(NormalCone {
        axis,
        half_angle: theta,
    })
}

/// Whether every generator lies in `cone` (a sufficient test: the cosine to the axis exceeds the
/// cone's with a margin of `1e-12` that covers the rounding of the dot products); a zero or
/// non-finite generator is never inside.
///
/// # Performance
/// O(generators) dot products.
pub(crate) fn cone_holds(cone: &NormalCone, generators: &[[f64; 3]]) -> bool {
    let c = cone.half_angle.cos();
    generators.iter().all(|&g| {
        let l = norm(g);
        l > 0.0 && l.is_finite() && dot(cone.axis, g) >= (c + 1e-12) * l
    })
}

/// A cone holding both cones, or `None` when no cone narrower than a half-space does (seed §2.4:
/// the normal bound of a union of patches).
///
/// The axis is the great-circle point between the two axes that the smallest enclosing cone of
/// two cones uses; the half-angle is then measured from that axis to both cones (`angle to the
/// axis + half-angle`, plus [`ANGLE_EPS`]), so a rounded axis still gives a valid cone.
///
/// # Performance
/// O(1).
pub(crate) fn merge(a: &NormalCone, b: &NormalCone) -> Option<NormalCone> {
    let phi = angle(a.axis, b.axis);
    if phi + b.half_angle <= a.half_angle {
        return Some(*a);
    }
    if phi + a.half_angle <= b.half_angle {
        return Some(*b);
    }
    let theta = 0.5 * (phi + a.half_angle + b.half_angle);
    if theta.is_nan() || theta >= core::f64::consts::FRAC_PI_2 {
        return None;
    }
    // Rotate a's axis towards b's by theta - a.half_angle.
    let c = dot(a.axis, b.axis);
    let perp = [0, 1, 2].map(|d| b.axis[d] - c * a.axis[d]);
    let l = norm(perp);
    let axis = if l > 1e-300 && l.is_finite() {
        let alpha = theta - a.half_angle;
        let (s, co) = alpha.sin_cos();
        let v = [0, 1, 2].map(|d| co * a.axis[d] + s * perp[d] / l);
        let lv = norm(v);
        v.map(|x| x / lv)
    } else {
        a.axis
    };
    let half =
        (angle(axis, a.axis) + a.half_angle).max(angle(axis, b.axis) + b.half_angle) + ANGLE_EPS;
    (half < core::f64::consts::FRAC_PI_2).then_some(NormalCone {
        axis,
        half_angle: half,
    })
}

/// [`merge`] over normal bounds: `Unbounded` when either is.
pub(crate) fn merge_bounds(a: &NormalBound, b: &NormalBound) -> NormalBound {
    match (a, b) {
        (NormalBound::Cone(x), NormalBound::Cone(y)) => {
            merge(x, y).map_or(NormalBound::Unbounded, NormalBound::Cone)
        }
        _ => NormalBound::Unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cone_holds_generators_and_rejects_opposites() {
        let g = [
            [1.0, 0.0, 1.0],
            [-1.0, 0.0, 1.0],
            [0.0, 1.0, 1.0],
            [0.0, -1.0, 1.0],
        ];
        let c = cone_of(&g).unwrap();
        assert!((c.half_angle() - core::f64::consts::FRAC_PI_4).abs() < 1e-6);
        for v in g {
            assert!(c.angle_to(v) <= c.half_angle());
        }
        assert!(cone_of(&[[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]]).is_none());
        assert!(cone_of(&[[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]).is_none());
        assert!(
            cone_of(&[
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [-1.0, -1.0, -0.9]
            ])
            .is_none()
        );
    }

    #[test]
    fn merged_cone_holds_both_cones() {
        let a = cone_of(&[[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]).unwrap();
        let b = cone_of(&[[0.0, 1.0, 1.0], [0.0, 0.2, 1.0]]).unwrap();
        let m = merge(&a, &b).unwrap();
        for (c, gens) in [
            (a, [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),
            (b, [[0.0, 1.0, 1.0], [0.0, 0.2, 1.0]]),
        ] {
            assert!(m.angle_to(c.axis()) + c.half_angle() <= m.half_angle() + 1e-12);
            for g in gens {
                assert!(m.angle_to(g) <= m.half_angle());
            }
        }
        assert_eq!(merge(&a, &a).unwrap(), a);
        let opposite = cone_of(&[[0.0, 0.0, -1.0], [0.1, 0.0, -1.0]]).unwrap();
        assert!(merge(&a, &opposite).is_none());
    }
}
