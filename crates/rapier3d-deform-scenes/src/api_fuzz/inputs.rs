//! Arbitrary inputs for the API harness: floats and counts biased towards the values that break arithmetic, meshes, weights and transforms.

use arbitrary::{Arbitrary, Unstructured};
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::limits::{MAX_COORDINATE, MAX_GOVERNORS, MAX_INFLUENCES, MAX_LINEAR};
use rapier3d_deform::math::{Mat3, Vec3};

use crate::primitives::box_arrays;

/// Floats that have broken arithmetic somewhere: non-finite values, signed zeros, subnormals,
/// values at and just beyond the crate's limits, and values whose squares or sums overflow.
const SPECIAL_REALS: [f32; 20] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -1.0,
    1e-45,
    f32::MIN_POSITIVE,
    1e-20,
    1e-6,
    0.5,
    MAX_COORDINATE,
    -MAX_COORDINATE * 1.5,
    MAX_LINEAR,
    MAX_LINEAR * 2.0,
    1e13,
    1.9e19,
    3e38,
    f32::MAX,
];

/// Counts at the edges: zero, the crate's limits and one past them, and sizes that overflow an
/// allocation.
const SPECIAL_COUNTS: [usize; 12] = [
    0,
    1,
    2,
    3,
    4,
    MAX_INFLUENCES,
    MAX_INFLUENCES + 1,
    MAX_GOVERNORS,
    MAX_GOVERNORS + 1,
    1 << 40,
    usize::MAX / 2,
    usize::MAX,
];

/// A float: one in eight special, one in eight arbitrary bits, the rest moderate
/// (multiples of 1/256 in `[-128, 128)`).
#[derive(Clone, Copy, Debug)]
pub struct Real(pub f32);

impl<'a> Arbitrary<'a> for Real {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let tag: u8 = u.arbitrary()?;
        Ok(Real(match tag % 8 {
            0 => SPECIAL_REALS[u.choose_index(SPECIAL_REALS.len())?],
            1 => f32::from_bits(u.arbitrary()?),
            _ => f32::from(u.arbitrary::<i16>()?) / 256.0,
        }))
    }
}

/// A parameter: three in four times a value within the range the caller asks for, otherwise any
/// [`Real`] (so both the valid paths and the rejections are reached).
#[derive(Clone, Copy, Debug)]
pub enum Knob {
    /// A fraction in `[0, 1)` of the caller's range.
    Within(f32),
    /// Any float.
    Any(Real),
}

impl<'a> Arbitrary<'a> for Knob {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let tag: u8 = u.arbitrary()?;
        Ok(if tag.is_multiple_of(4) {
            Knob::Any(u.arbitrary()?)
        } else {
            Knob::Within(f32::from(u.arbitrary::<u16>()?) / 65536.0)
        })
    }
}

impl Knob {
    /// The value, in `[lo, hi)` when [`Knob::Within`].
    pub fn in_range(self, lo: f32, hi: f32) -> f32 {
        match self {
            Knob::Within(f) => lo + f * (hi - lo),
            Knob::Any(r) => r.0,
        }
    }
}

/// A count: one in four special, the rest small (`0..16`).
#[derive(Clone, Copy, Debug)]
pub struct Count(pub usize);

impl<'a> Arbitrary<'a> for Count {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let tag: u8 = u.arbitrary()?;
        Ok(Count(if tag.is_multiple_of(4) {
            SPECIAL_COUNTS[u.choose_index(SPECIAL_COUNTS.len())?]
        } else {
            usize::from(tag / 4 % 16)
        }))
    }
}

/// A point of three [`Real`]s.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Point(pub [Real; 3]);

impl Point {
    /// As a vector.
    pub fn vec(self) -> Vec3 {
        Vec3::new(self.0[0].0, self.0[1].0, self.0[2].0)
    }
}

/// A mesh: raw arrays (mostly rejected), a bumpy open plate, or a closed cube that may have a
/// flipped or duplicated face and jittered corners.
#[derive(Arbitrary, Clone, Debug)]
pub enum MeshInput {
    /// Positions and triangles as given (indices `0..255`).
    Raw {
        /// Positions.
        positions: Vec<Point>,
        /// Triangles.
        triangles: Vec<[u8; 3]>,
    },
    /// A plate of `(nx % 7 + 2) × (ny % 7 + 2)` vertices in the xz plane, heights from `bumps`.
    Plate {
        /// Columns.
        nx: u8,
        /// Rows.
        ny: u8,
        /// Edge length.
        spacing: Real,
        /// Heights, cycled over the vertices.
        bumps: Vec<Real>,
    },
    /// The cube `[-s, s]³` (12 triangles), a corner per `jitter` entry moved, maybe one face
    /// flipped or repeated.
    Cube {
        /// Half size (within `[0.1, 10)`).
        half: Knob,
        /// `defect % 4`: 0 flips triangle `defect / 4 % 12`, 1 repeats it, else none.
        defect: u8,
        /// Corner offsets (corner `i % 8`).
        jitter: Vec<Point>,
    },
}

impl MeshInput {
    /// The positions and triangles this input describes (not validated).
    pub fn arrays(&self) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        match self {
            MeshInput::Raw {
                positions,
                triangles,
            } => (
                positions.iter().take(256).map(|p| p.vec()).collect(),
                triangles
                    .iter()
                    .take(256)
                    .map(|t| t.map(u32::from))
                    .collect(),
            ),
            MeshInput::Plate {
                nx,
                ny,
                spacing,
                bumps,
            } => {
                let (nx, ny) = (u32::from(nx % 7) + 2, u32::from(ny % 7) + 2);
                let mut p = Vec::new();
                for j in 0..ny {
                    for i in 0..nx {
                        let k = (j * nx + i) as usize;
                        let h = if bumps.is_empty() {
                            0.0
                        } else {
                            bumps[k % bumps.len()].0
                        };
                        p.push(Vec3::new(i as f32 * spacing.0, h, j as f32 * spacing.0));
                    }
                }
                let mut t = Vec::new();
                for j in 0..ny - 1 {
                    for i in 0..nx - 1 {
                        let a = j * nx + i;
                        t.push([a, a + nx, a + 1]);
                        t.push([a + 1, a + nx, a + nx + 1]);
                    }
                }
                (p, t)
            }
            MeshInput::Cube {
                half,
                defect,
                jitter,
            } => {
                let half = half.in_range(0.1, 10.0);
                let (mut p, mut t) = box_arrays(Vec3::splat(-half), Vec3::splat(half));
                for (k, j) in jitter.iter().take(8).enumerate() {
                    p[k % 8] += j.vec() * 0.01;
                }
                let k = usize::from(defect / 4 % 12);
                match defect % 4 {
                    0 => t[k].swap(1, 2),
                    1 => t.push(t[k]),
                    _ => {}
                }
                (p, t)
            }
        }
    }
}

/// Weights over a mesh's vertices: smooth (valid by construction, `governors % 6 + 1` anchors
/// along x), or raw rows with an arbitrary governor count.
#[derive(Arbitrary, Clone, Debug)]
pub enum WeightsInput {
    /// Inverse-distance weights to anchors spread over the mesh's x extent.
    Smooth {
        /// Anchor count − 1 (mod 6).
        governors: u8,
    },
    /// Rows as given (cycled over the vertices), renormalised or strict.
    Raw {
        /// Declared governor count.
        governor_count: Count,
        /// Rows of `(governor, weight)`.
        rows: Vec<Vec<(u8, Real)>>,
        /// Use `from_rows_renormalised`.
        renormalise: bool,
    },
}

impl WeightsInput {
    /// Builds the weights for `positions` (an error is a typed rejection).
    pub fn build(&self, positions: &[Vec3]) -> rapier3d_deform::Result<ConvexWeights> {
        match self {
            WeightsInput::Smooth { governors } => {
                let m = usize::from(governors % 6) + 1;
                let (lo, hi) = positions
                    .iter()
                    .fold((f32::MAX, f32::MIN), |(l, h), p| (l.min(p.x), h.max(p.x)));
                let span = (hi - lo).max(1e-6);
                ConvexWeights::from_rows(
                    positions
                        .iter()
                        .map(|p| {
                            let x = (p.x - lo) / span * (m as f32 - 1.0);
                            (0..m as u32)
                                .map(|g| (g, 1.0 / (1.0 + (x - g as f32).powi(2) * 4.0)))
                                .collect::<Vec<_>>()
                        })
                        .map(|row| {
                            let sum: f32 = row.iter().map(|x| x.1).sum();
                            row.into_iter().map(move |(g, w)| (g, w / sum))
                        }),
                    m,
                )
            }
            WeightsInput::Raw {
                governor_count,
                rows,
                renormalise,
            } => {
                let rows: Vec<Vec<(u32, f32)>> = (0..positions.len())
                    .map(|v| {
                        if rows.is_empty() {
                            Vec::new()
                        } else {
                            rows[v % rows.len()]
                                .iter()
                                .take(MAX_INFLUENCES + 2)
                                .map(|(g, w)| (u32::from(*g), w.0))
                                .collect()
                        }
                    })
                    .collect();
                if *renormalise {
                    ConvexWeights::from_rows_renormalised(rows, governor_count.0).map(|(w, _)| w)
                } else {
                    ConvexWeights::from_rows(rows, governor_count.0)
                }
            }
        }
    }
}

/// A governor transform: identity, a rotation with translation, a uniform scale, or raw entries.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum AffineInput {
    /// The identity.
    Identity,
    /// A rotation by `angle` about `axis` (normalised; the identity for a zero axis) and a
    /// translation.
    Rotation {
        /// Axis.
        axis: Point,
        /// Angle in radians.
        angle: Real,
        /// Translation.
        translation: Point,
    },
    /// `s · I`.
    Scale {
        /// The factor.
        s: Real,
    },
    /// Nine entries (column-major) and a translation.
    Raw {
        /// The linear part.
        linear: [Real; 9],
        /// The translation.
        translation: Point,
    },
}

impl AffineInput {
    /// The transform.
    pub fn affine(self) -> Affine {
        match self {
            AffineInput::Identity => Affine::IDENTITY,
            AffineInput::Rotation {
                axis,
                angle,
                translation,
            } => {
                let a = axis.vec().try_normalize().unwrap_or(Vec3::Y);
                Affine::new(Mat3::from_axis_angle(a, angle.0), translation.vec())
            }
            AffineInput::Scale { s } => {
                Affine::new(Mat3::from_diagonal(Vec3::splat(s.0)), Vec3::ZERO)
            }
            AffineInput::Raw {
                linear,
                translation,
            } => Affine::new(
                Mat3::from_cols_array(&linear.map(|r| r.0)),
                translation.vec(),
            ),
        }
    }
}

/// `count` governors from `inputs` (cycled; identities when empty).
pub fn governors(inputs: &[AffineInput], count: usize) -> Vec<Affine> {
    (0..count)
        .map(|g| {
            if inputs.is_empty() {
                Affine::IDENTITY
            } else {
                inputs[g % inputs.len()].affine()
            }
        })
        .collect()
}
