//! Normal bounds of one limit patch: the eigenbasis bound `h_u × h_v` of an irregular patch in the rotated frame (seed §3.3 eq. 3, §3.5), its tightening over regular subpatches (§4), and regular patches from their Bézier form.

use super::bezier::regular_normal_coefficients;
use super::cone::{NormalBound, NormalCone, cone_holds, cone_of, cone_of_near, merge};
use super::eigen::{LoopEigen, loop_eigen};
use super::eigen_bounds::{EigenBounds, eigen_bounds};
use super::interval::{IVec64, Interval64, add, corners, cross, scaled};
use super::local_matrix::REGULAR_POINTS;
use crate::error::{DeformError, Result};

/// The tightening stops once the cone over the whole patch is within this angle (radians) of the
/// cone over the regular subpatches found so far (the seed's π/180).
pub const TIGHTENING_TOLERANCE: f64 = core::f64::consts::PI / 180.0;

/// The largest number of subdivision steps the tightening takes around the irregular corner.
pub const MAX_TIGHTENING_STEPS: u32 = 24;

/// An orthonormal frame whose third axis is the limit normal at the irregular corner (§3.5).
pub(super) struct Frame {
    rows: [[f64; 3]; 3],
}

impl Frame {
    pub(super) fn along(n: [f64; 3]) -> Self {
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if !(l > 0.0 && l.is_finite()) {
            return Self {
                rows: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            };
        }
        let z = n.map(|x| x / l);
        let helper = if z[0].abs() < 0.6 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        let x = normalise(cross3(helper, z));
        let y = cross3(z, x);
        Self { rows: [x, y, z] }
    }

    pub(super) fn to_local(&self, v: [f64; 3]) -> [f64; 3] {
        self.rows.map(|r| r[0] * v[0] + r[1] * v[1] + r[2] * v[2])
    }

    pub(super) fn to_world(&self, v: [f64; 3]) -> [f64; 3] {
        let r = &self.rows;
        [0, 1, 2].map(|d| r[0][d] * v[0] + r[1][d] * v[1] + r[2][d] * v[2])
    }
}

pub(super) fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalise(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

/// Eq. 3: the box holding every scaled normal `h_u × h_v` of the patch with eigen-coefficients
/// `c` (already in the rotated frame).
fn eigen_box(c: &[[f64; 3]], bounds: &EigenBounds) -> IVec64 {
    let (du, dv) = (bounds.du(), bounds.dv());
    let sd_u = add(scaled(c[1], du[1]), scaled(c[2], du[2]));
    let sd_v = add(scaled(c[1], dv[1]), scaled(c[2], dv[2]));
    let mut hot_u = [Interval64::ZERO; 3];
    let mut hot_v = [Interval64::ZERO; 3];
    for i in 3..c.len() {
        hot_u = add(hot_u, scaled(c[i], du[i]));
        hot_v = add(hot_v, scaled(c[i], dv[i]));
    }
    let point = |v: [f64; 3]| v.map(Interval64::point);
    let c12 = cross(point(c[1]), point(c[2]));
    let sd = [
        c12[0] * bounds.cross(),
        c12[1] * bounds.cross(),
        c12[2] * bounds.cross(),
    ];
    add(
        add(sd, cross(sd_u, hot_v)),
        add(cross(hot_u, sd_v), cross(hot_u, hot_v)),
    )
}

fn check_points(eig: &LoopEigen, points: &[[f64; 3]]) -> Result<()> {
    if points.len() != eig.size() {
        return Err(DeformError::LengthMismatch {
            what: "control points around an irregular patch",
            expected: eig.size(),
            actual: points.len(),
        });
    }
    if let Some(index) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(DeformError::NonFinitePosition {
            what: "control point",
            index,
        });
    }
    Ok(())
}

/// The eigenbasis normal bound (eq. 3, §3.5) of the irregular patch after `steps` subdivision
/// steps towards its irregular corner (0: the patch itself), from its control points `points` in
/// canonical order ([`super::neighbourhood_size`]`(valence)` of them).
///
/// The eigen-coefficients `cᵢ = X⁻¹ p` are advanced by `J^steps` and turned into the frame whose
/// `z` is `c₁ × c₂` (the limit normal at the corner); the box of eq. 3 is then turned into a cone
/// over its eight corners (the box is convex, so a cone holding its corners holds it).
///
/// # Errors
/// [`DeformError::InvalidParameter`] for a valence outside 3..=12,
/// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`].
///
/// # Performance
/// O((n+6)²) (the projection) plus O(n) interval operations.
pub fn eigen_normal_bound(valence: usize, points: &[[f64; 3]], steps: u32) -> Result<NormalBound> {
    let eig = loop_eigen(valence)?;
    check_points(eig, points)?;
    let bounds = eigen_bounds(valence)?;
    let mut c = eig.coefficients(points)?;
    eig.advance(&mut c, steps);
    let frame = Frame::along(cross3(c[1], c[2]));
    let local: Vec<[f64; 3]> = c.iter().map(|&v| frame.to_local(v)).collect();
    let b = eigen_box(&local, bounds);
    let gens = corners(b).map(|v| frame.to_world(v));
    Ok(cone_of(&gens).map_or(NormalBound::Unbounded, NormalBound::Cone))
}

/// The normal bound of a regular patch (three corners of valence 6) from its 12 control points in
/// canonical order: the cone around the 28 Bézier coefficients of `s_u × s_v` (degree 6), which
/// hold every normal of the patch as non-negative combinations.
///
/// # Errors
/// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`].
///
/// # Performance
/// O(15 · 12 + 10 · 10) flops.
pub fn regular_normal_bound(points: &[[f64; 3]]) -> Result<NormalBound> {
    if points.len() != REGULAR_POINTS {
        return Err(DeformError::LengthMismatch {
            what: "control points of a regular patch",
            expected: REGULAR_POINTS,
            actual: points.len(),
        });
    }
    if let Some(index) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(DeformError::NonFinitePosition {
            what: "control point",
            index,
        });
    }
    let gens = regular_normal_coefficients(points);
    Ok(cone_of(&gens).map_or(NormalBound::Unbounded, NormalBound::Cone))
}

/// The tightened normal bound of an irregular patch (seed §4): the patch is split, without
/// touching any mesh, into the regular subpatches of levels `1..=k` (bounded by their Bézier
/// coefficients, [`regular_normal_bound`]'s generators) and the corner subpatch of level `k`
/// (bounded by eq. 3, [`eigen_normal_bound`]); `k` grows until the cone over all of them is within
/// [`TIGHTENING_TOLERANCE`] of the cone over the regular ones, or reaches
/// [`MAX_TIGHTENING_STEPS`] (then the last cone is returned).
///
/// The cone over the regular subpatches is kept as it grows: the cone of the first level's
/// generators, widened by `cone::merge` with the cone of a later level's generators only
/// when one of them falls outside it (the subpatches of later levels close in on the irregular
/// vertex, whose normals the first level's cone usually holds already); the corner subpatch's
/// cone is merged in the same way. Later cones start their search at the regular cone's axis
/// (`cone::cone_of_near`).
///
/// # Errors
/// As [`eigen_normal_bound`].
///
/// # Performance
/// Per step: three regular subpatches (picks by their non-zero stencil weights, their Bézier
/// forms, O(84) containment tests, a cone of 84 generators only when one falls outside), one
/// Loop step (O(non-zeros)) and one eq. 3 box; typically 3–8 steps; no allocation inside the
/// loop.
pub fn tightened_normal_bound(valence: usize, points: &[[f64; 3]]) -> Result<NormalBound> {
    let eig = loop_eigen(valence)?;
    check_points(eig, points)?;
    let bounds = eigen_bounds(valence)?;
    let c0 = eig.coefficients(points)?;
    let frame = Frame::along(cross3(c0[1], c0[2]));
    let st = eig.stencils();
    // The control points after `step − 1` steps towards the corner, and the next step's.
    let mut p = points.to_vec();
    let mut next = vec![[0.0; 3]; p.len()];
    let mut pick = [[0.0; 3]; REGULAR_POINTS];
    let mut c = c0.clone();
    let mut local: Vec<[f64; 3]> = Vec::with_capacity(c0.len());
    let mut regular: Option<NormalCone> = None;
    let mut batch: Vec<[f64; 3]> = Vec::with_capacity(3 * 28);
    let mut last = NormalBound::Unbounded;
    for step in 1..=MAX_TIGHTENING_STEPS {
        batch.clear();
        for s in &st[1..] {
            s.apply_into(&p, &mut pick);
            batch.extend(regular_normal_coefficients(&pick));
        }
        st[0].apply_into(&p, &mut next);
        std::mem::swap(&mut p, &mut next);
        c.copy_from_slice(&c0);
        eig.advance(&mut c, step);
        local.clear();
        local.extend(c.iter().map(|&v| frame.to_local(v)));
        let corner = corners(eigen_box(&local, bounds)).map(|v| frame.to_world(v));
        let reg = match regular {
            Some(r) if cone_holds(&r, &batch) => r,
            // A regular subpatch already needs a half-space: refining cannot help.
            _ => match regular
                .map_or_else(|| cone_of(&batch), |r| cone_of_near(&batch, r.axis()))
                .and_then(|b| match regular {
                    Some(r) => merge(&r, &b),
                    None => Some(b),
                }) {
                Some(r) => r,
                None => return Ok(NormalBound::Unbounded),
            },
        };
        regular = Some(reg);
        let whole = if cone_holds(&reg, &corner) {
            Some(reg)
        } else {
            cone_of_near(&corner, reg.axis()).and_then(|k| merge(&reg, &k))
        };
        match whole {
            Some(w) => {
                last = NormalBound::Cone(w);
                if w.half_angle() - reg.half_angle() <= TIGHTENING_TOLERANCE {
                    return Ok(last);
                }
            }
            None => last = NormalBound::Unbounded,
        }
    }
    Ok(last)
}
