//! The BN-Tree paper's cat: a smooth closed skinned mesh (40 bones, ≤ 9 influences) with a walk and a run-and-jump cycle.
//!
//! Schvartzman et al. (SCA 2009, §6) time self-collision on a cat: "The cat is animated with a
//! skeleton with 40 bones, and the triangle mesh consists of 244 735 triangles. Each vertex is
//! governed by up to 9 bones, using linear blend skinning", in a slow walk and in a run with a
//! jump that "suffers many self-collisions (including large pinching at joints)". The original
//! asset is not public; this module builds an equivalent one procedurally:
//!
//! 1. **Shape.** Every bone carries one or more primitives (ellipsoids for the torso and head,
//!    round cones for neck, legs and tail, squashed cones for the ears); their smooth union is a
//!    signed distance field ([`CatRig::sdf`]).
//! 2. **Control mesh.** [`surface_nets`](super::sdf_mesh::surface_nets) turns the field into a
//!    closed 2-manifold of about 3,800 triangles, whose vertices are then moved so that their
//!    *Loop limit* positions land on the field's surface (a few fixed-point rounds of
//!    `c ← c + (s − L c)`, `L` the limit mask). [`CatResolution::Tiny`] instead simplifies the
//!    meshed surface to 1,000 triangles ([`decimate`]): a grid that coarse would lose the tail.
//! 3. **Subdivision.** [`LoopSubdivision`] refines it 1–4 times: 15.3k, 61k, 244.5k (the
//!    paper's 244,735 within 0.1 %) or 978k triangles.
//! 4. **Skin weights** are computed on the control vertices from each bone's distance to the
//!    surface point, `w_b ∝ exp(−((d_b − d_min) / σ)²)` with `d_b` the signed distance to the
//!    bone's own primitives and `d_min` the smallest of them (so weights follow the shape's
//!    parts, not just proximity to a bone segment), pushed through the subdivision stencils, and
//!    truncated to the 9 largest per vertex.
//! 5. **Animation.** Gait functions give local joint rotations per bone ([`Gait::Walk`]: a
//!    lateral-sequence walk; [`Gait::RunJump`]: three rotary-gallop strides, a crouch, a leap
//!    with legs and head tucked and the tail curling onto the back, a landing); forward
//!    kinematics composes them into bone world transforms ([`CatRig::pose`]). Keys are
//!    blended with Catmull–Rom splines, so poses are continuous in time.
//!
//! Units are metres; the cat faces `+X`, `+Y` is up, `+Z` is its right side, and its paws rest on
//! `y = 0`. Motion is on the spot (no forward travel), so both cycles are exactly periodic.

use std::f32::consts::{PI, TAU};

use super::sdf_mesh::{
    Primitive, Sdf, SurfaceNetsOptions, decimate, surface_nets_with_target, vertex_neighbours,
};
use rapier3d_deform::deformation::{LinearBlendSkinning, LoopSubdivision};
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::mesh::{TriangleMesh, VertexOrder};

/// Number of bones of the cat's skeleton.
pub const CAT_BONE_COUNT: usize = 40;

/// Largest number of bones influencing one vertex.
pub const CAT_MAX_INFLUENCES: usize = 9;

/// Mesh resolution of a [`Cat`]; all share the same 40-bone rig and animation.
///
/// # Performance
/// Choosing one is free; building costs grow linearly with its triangle count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CatResolution {
    /// About 1,000 triangles (the meshed surface simplified by quadric edge collapses, no
    /// subdivision).
    Tiny,
    /// About 15,000 triangles (one Loop level).
    Coarse,
    /// About 60,000 triangles (two Loop levels).
    Medium,
    /// About 250,000 triangles (three Loop levels; the paper's cat has 244,735).
    Full,
    /// About 1,000,000 triangles (four Loop levels).
    Huge,
}

impl CatResolution {
    /// All resolutions, coarsest first.
    pub const ALL: [Self; 5] = [
        Self::Tiny,
        Self::Coarse,
        Self::Medium,
        Self::Full,
        Self::Huge,
    ];

    /// The nominal triangle count (the built mesh is within a few percent).
    ///
    /// # Performance
    /// O(1).
    pub fn target_triangles(self) -> usize {
        match self {
            Self::Tiny => 1_000,
            Self::Coarse => 15_000,
            Self::Medium => 60_000,
            Self::Full => 250_000,
            Self::Huge => 1_000_000,
        }
    }

    /// Loop subdivision levels applied to the control mesh.
    ///
    /// # Performance
    /// O(1).
    pub fn subdivision_levels(self) -> u32 {
        match self {
            Self::Tiny => 0,
            Self::Coarse => 1,
            Self::Medium => 2,
            Self::Full => 3,
            Self::Huge => 4,
        }
    }

    /// Triangle target of the meshed surface, and the grid spacing that hits it (found by
    /// [`surface_nets_with_target`], kept so that the search ends at its first attempt):
    /// 3,824 · 4³ = 244,736 is the paper's count at three levels.
    const SURFACE: (usize, f32) = (3_824, 0.016356349);
}

/// The two animation cycles of the paper's cat.
///
/// # Performance
/// Poses of either gait cost O(bones) ([`CatRig::pose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gait {
    /// A slow lateral-sequence walk (left hind, left fore, right hind, right fore), tail up.
    /// Sparse self-contact.
    Walk,
    /// Three rotary-gallop strides, then a crouch, a leap (legs and head tucked, tail curled
    /// onto the back), a landing, and back into the gallop. Pinching at knees, elbows, wrists,
    /// neck and tail.
    RunJump,
}

impl Gait {
    /// Both gaits.
    pub const ALL: [Self; 2] = [Self::Walk, Self::RunJump];

    /// Duration of one cycle in seconds; poses repeat with this period.
    ///
    /// # Performance
    /// O(1).
    pub fn period(self) -> f32 {
        match self {
            Self::Walk => WALK_PERIOD,
            Self::RunJump => GALLOP_PERIOD * GALLOP_STRIDES as f32 + JUMP_DURATION,
        }
    }
}

const WALK_PERIOD: f32 = 1.0;
const GALLOP_PERIOD: f32 = 0.4;
const GALLOP_STRIDES: usize = 3;
const JUMP_DURATION: f32 = 1.2;

/// One bone: its parent and its rest (bind) segment. The bind frame is axis-aligned with its
/// origin at `head` (the joint it rotates about).
///
/// # Performance
/// Plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name, e.g. `"tibia.l"`.
    pub name: &'static str,
    /// Parent bone (`None` for the root, the pelvis).
    pub parent: Option<usize>,
    /// Joint position at rest.
    pub head: Vec3,
    /// End of the bone at rest (the child's joint for chains).
    pub tail: Vec3,
}

/// One primitive of a bone's shape; the smooth union of all of them is the cat.
#[derive(Clone, Debug)]
struct BoneShape {
    bone: usize,
    primitive: Primitive,
}

/// The cat's skeleton, shape and animation, independent of mesh resolution.
///
/// # Performance
/// [`CatRig::pose`] is O(bones).
#[derive(Clone, Debug)]
pub struct CatRig {
    bones: Vec<Bone>,
    shapes: Vec<BoneShape>,
    sdf: Sdf,
    front: [FrontLegBones; 2],
    hind: [HindLegBones; 2],
}

#[derive(Clone, Copy, Debug)]
struct FrontLegBones {
    scapula: usize,
    humerus: usize,
    radius: usize,
    metacarpus: usize,
    toes: usize,
}

#[derive(Clone, Copy, Debug)]
struct HindLegBones {
    femur: usize,
    tibia: usize,
    tarsus: usize,
    metatarsus: usize,
    toes: usize,
}

// Fixed bone indices of the axial skeleton (the legs follow, see `CatRig::new`).
const PELVIS: usize = 0;
const LUMBAR: [usize; 2] = [1, 2];
const THORAX: usize = 3;
const CHEST: usize = 4;
const NECK: [usize; 2] = [5, 6];
const HEAD: usize = 7;
const EARS: [usize; 2] = [8, 9];
const TAIL_FIRST: usize = 10;
const TAIL_BONES: usize = 10;

/// Side sign: left legs at `−Z`, right legs at `+Z`.
const SIDES: [f32; 2] = [-1.0, 1.0];

impl Default for CatRig {
    fn default() -> Self {
        Self::new()
    }
}

impl CatRig {
    /// Width of the skin-weight falloff `σ` (metres): a bone whose primitives are `σ` farther from
    /// a surface point than the nearest ones weighs `e⁻¹` as much there.
    pub const WEIGHT_FALLOFF: f32 = 0.016;

    /// Builds the skeleton and its shape.
    ///
    /// # Performance
    /// O(bones).
    pub fn new() -> Self {
        let mut bones: Vec<Bone> = Vec::with_capacity(CAT_BONE_COUNT);
        let mut shapes: Vec<BoneShape> = Vec::new();
        let v = Vec3::new;
        let mut bone = |name, parent: Option<usize>, head: Vec3, tail: Vec3| {
            bones.push(Bone {
                name,
                parent,
                head,
                tail,
            });
            bones.len() - 1
        };
        // Axial skeleton: pelvis → lumbar → thorax → chest → neck → head.
        let spine = [
            v(-0.16, 0.24, 0.0),
            v(-0.095, 0.243, 0.0),
            v(-0.03, 0.243, 0.0),
            v(0.03, 0.24, 0.0),
            v(0.085, 0.24, 0.0),
            v(0.13, 0.262, 0.0),
            v(0.16, 0.295, 0.0),
            v(0.185, 0.325, 0.0),
        ];
        let names = [
            "pelvis", "lumbar.1", "lumbar.2", "thorax", "chest", "neck.1", "neck.2",
        ];
        for (i, name) in names.iter().enumerate() {
            bone(name, i.checked_sub(1), spine[i], spine[i + 1]);
        }
        bone("head", Some(NECK[1]), spine[7], v(0.27, 0.325, 0.0));
        for (s, name) in SIDES.iter().zip(["ear.l", "ear.r"]) {
            bone(
                name,
                Some(HEAD),
                EAR_BASE + v(0.0, 0.0, s * EAR_SIDE.0),
                EAR_TIP + v(0.0, 0.0, s * EAR_SIDE.1),
            );
        }
        // Tail: ten segments hanging back and down at 30°.
        let tail_base = v(-0.215, 0.262, 0.0);
        let tail_dir = v(
            -(30f32.to_radians().cos()),
            -(30f32.to_radians().sin()),
            0.0,
        );
        let tail_names = [
            "tail.01", "tail.02", "tail.03", "tail.04", "tail.05", "tail.06", "tail.07", "tail.08",
            "tail.09", "tail.10",
        ];
        for (i, name) in tail_names.iter().enumerate() {
            let parent = if i == 0 { PELVIS } else { TAIL_FIRST + i - 1 };
            bone(
                name,
                Some(parent),
                tail_base + tail_dir * (TAIL_SEGMENT * i as f32),
                tail_base + tail_dir * (TAIL_SEGMENT * (i + 1) as f32),
            );
        }
        // Front legs hang from the chest.
        let mut front = Vec::new();
        for (s, names) in SIDES.iter().zip([
            [
                "scapula.l",
                "humerus.l",
                "radius.l",
                "metacarpus.l",
                "front_toes.l",
            ],
            [
                "scapula.r",
                "humerus.r",
                "radius.r",
                "metacarpus.r",
                "front_toes.r",
            ],
        ]) {
            let j = [
                v(0.08, 0.28, s * 0.035),
                v(0.115, 0.185, s * 0.045),
                v(0.095, 0.11, s * 0.045),
                v(0.11, 0.035, s * 0.045),
                v(0.125, 0.016, s * 0.045),
                v(0.152, 0.012, s * 0.045),
            ];
            let scapula = bone(names[0], Some(CHEST), j[0], j[1]);
            let humerus = bone(names[1], Some(scapula), j[1], j[2]);
            let radius = bone(names[2], Some(humerus), j[2], j[3]);
            let metacarpus = bone(names[3], Some(radius), j[3], j[4]);
            let toes = bone(names[4], Some(metacarpus), j[4], j[5]);
            front.push(FrontLegBones {
                scapula,
                humerus,
                radius,
                metacarpus,
                toes,
            });
        }
        // Hind legs hang from the pelvis.
        let mut hind = Vec::new();
        for (s, names) in SIDES.iter().zip([
            [
                "femur.l",
                "tibia.l",
                "tarsus.l",
                "metatarsus.l",
                "hind_toes.l",
            ],
            [
                "femur.r",
                "tibia.r",
                "tarsus.r",
                "metatarsus.r",
                "hind_toes.r",
            ],
        ]) {
            let j = [
                v(-0.155, 0.22, s * 0.04),
                v(-0.105, 0.135, s * 0.048),
                v(-0.18, 0.068, s * 0.048),
                v(-0.174, 0.046, s * 0.048),
                v(-0.155, 0.017, s * 0.048),
                v(-0.128, 0.012, s * 0.048),
            ];
            let femur = bone(names[0], Some(PELVIS), j[0], j[1]);
            let tibia = bone(names[1], Some(femur), j[1], j[2]);
            let tarsus = bone(names[2], Some(tibia), j[2], j[3]);
            let metatarsus = bone(names[3], Some(tarsus), j[3], j[4]);
            let toes = bone(names[4], Some(metatarsus), j[4], j[5]);
            hind.push(HindLegBones {
                femur,
                tibia,
                tarsus,
                metatarsus,
                toes,
            });
        }
        debug_assert_eq!(bones.len(), CAT_BONE_COUNT);
        let front = [front[0], front[1]];
        let hind = [hind[0], hind[1]];

        // Shapes, grouped for the smooth union.
        let mut shape = |bone: usize, primitive: Primitive| {
            shapes.push(BoneShape { bone, primitive });
            Sdf::Primitive(primitive)
        };
        let ellipsoid = |c: Vec3, r: Vec3| Primitive::Ellipsoid {
            centre: c,
            radii: r,
        };
        let cone = |a: Vec3, b: Vec3, ra: f32, rb: f32| Primitive::RoundCone { a, b, ra, rb };
        let torso = Sdf::SmoothUnion {
            k: 0.05,
            children: vec![
                shape(
                    PELVIS,
                    ellipsoid(v(-0.155, 0.242, 0.0), v(0.07, 0.066, 0.058)),
                ),
                shape(
                    LUMBAR[0],
                    ellipsoid(v(-0.095, 0.238, 0.0), v(0.065, 0.066, 0.058)),
                ),
                shape(
                    LUMBAR[1],
                    ellipsoid(v(-0.03, 0.232, 0.0), v(0.068, 0.07, 0.06)),
                ),
                shape(
                    THORAX,
                    ellipsoid(v(0.03, 0.226, 0.0), v(0.068, 0.076, 0.062)),
                ),
                shape(
                    CHEST,
                    ellipsoid(v(0.085, 0.232, 0.0), v(0.06, 0.072, 0.058)),
                ),
            ],
        };
        let head_core = Sdf::SmoothUnion {
            k: 0.025,
            children: vec![
                shape(
                    NECK[0],
                    cone(v(0.115, 0.25, 0.0), v(0.16, 0.295, 0.0), 0.048, 0.04),
                ),
                shape(
                    NECK[1],
                    cone(v(0.16, 0.295, 0.0), v(0.19, 0.325, 0.0), 0.04, 0.036),
                ),
                shape(
                    HEAD,
                    ellipsoid(v(0.215, 0.345, 0.0), v(0.052, 0.048, 0.054)),
                ),
                shape(
                    HEAD,
                    ellipsoid(v(0.232, 0.322, 0.0), v(0.044, 0.032, 0.048)),
                ),
                shape(HEAD, ellipsoid(v(0.262, 0.324, 0.0), v(0.022, 0.02, 0.026))),
            ],
        };
        let mut head_parts = vec![head_core];
        for (s, &ear) in SIDES.iter().zip(&EARS) {
            let a = EAR_BASE + v(0.0, 0.0, s * EAR_SIDE.0);
            let b = EAR_TIP + v(0.0, 0.0, s * EAR_SIDE.1);
            head_parts.push(shape(
                ear,
                Primitive::FlatRoundCone {
                    a,
                    b,
                    ra: 0.028,
                    rb: 0.004,
                    thin_axis: v(1.0, 0.0, s * 0.35).normalize(),
                    squash: 0.5,
                },
            ));
        }
        let head = Sdf::SmoothUnion {
            k: 0.012,
            children: head_parts,
        };
        let tail_radius = |i: usize| 0.019 - 0.007 * (i as f32 / TAIL_BONES as f32);
        // Collinear chains use a plain union: a smooth one would bulge at every joint.
        let tail = Sdf::SmoothUnion {
            k: 0.0,
            children: (0..TAIL_BONES)
                .map(|i| {
                    let a = tail_base + tail_dir * (TAIL_SEGMENT * i as f32);
                    let b = tail_base + tail_dir * (TAIL_SEGMENT * (i + 1) as f32);
                    shape(
                        TAIL_FIRST + i,
                        cone(a, b, tail_radius(i), tail_radius(i + 1)),
                    )
                })
                .collect(),
        };
        let mut limbs = Vec::new();
        for (s, leg) in SIDES.iter().zip(&front) {
            let z = s * 0.045;
            limbs.push(Sdf::SmoothUnion {
                k: 0.004,
                children: vec![
                    shape(
                        leg.scapula,
                        cone(v(0.085, 0.26, s * 0.035), v(0.115, 0.185, z), 0.03, 0.03),
                    ),
                    shape(
                        leg.humerus,
                        cone(v(0.115, 0.185, z), v(0.095, 0.11, z), 0.03, 0.021),
                    ),
                    shape(
                        leg.radius,
                        cone(v(0.095, 0.11, z), v(0.11, 0.035, z), 0.019, 0.0145),
                    ),
                    shape(
                        leg.metacarpus,
                        cone(v(0.11, 0.035, z), v(0.125, 0.016, z), 0.0155, 0.016),
                    ),
                    shape(
                        leg.toes,
                        ellipsoid(v(0.135, 0.0155, z), v(0.025, 0.0155, 0.019)),
                    ),
                ],
            });
        }
        for (s, leg) in SIDES.iter().zip(&hind) {
            let z = s * 0.048;
            limbs.push(Sdf::SmoothUnion {
                k: 0.004,
                children: vec![
                    shape(
                        leg.femur,
                        cone(
                            v(-0.155, 0.215, s * 0.04),
                            v(-0.105, 0.135, z),
                            0.046,
                            0.027,
                        ),
                    ),
                    shape(
                        leg.tibia,
                        cone(v(-0.105, 0.135, z), v(-0.18, 0.068, z), 0.024, 0.0145),
                    ),
                    shape(
                        leg.tarsus,
                        cone(v(-0.18, 0.068, z), v(-0.174, 0.046, z), 0.0145, 0.0145),
                    ),
                    shape(
                        leg.metatarsus,
                        cone(v(-0.174, 0.046, z), v(-0.155, 0.017, z), 0.0145, 0.0155),
                    ),
                    shape(
                        leg.toes,
                        ellipsoid(v(-0.142, 0.0155, z), v(0.026, 0.0155, 0.019)),
                    ),
                ],
            });
        }
        let mut parts = vec![torso, head, tail];
        parts.extend(limbs);
        let sdf = Sdf::SmoothUnion {
            k: 0.03,
            children: parts,
        };
        Self {
            bones,
            shapes,
            sdf,
            front,
            hind,
        }
    }

    /// The bones, parents before children (bone 0, the pelvis, is the root).
    ///
    /// # Performance
    /// O(1).
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    /// Index of the bone called `name`.
    ///
    /// # Performance
    /// O(bones).
    pub fn bone_index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// The cat's signed distance field at rest (negative inside).
    ///
    /// # Performance
    /// O(1); evaluating the field is O(primitives) (about 50).
    pub fn sdf(&self) -> &Sdf {
        &self.sdf
    }

    /// The rest-pose primitives of the shape with the bone each belongs to (several per bone
    /// for the head): a per-bone volume for proxies and per-bone bounding boxes.
    ///
    /// # Performance
    /// O(1) per item.
    pub fn bone_primitives(&self) -> impl Iterator<Item = (usize, &Primitive)> + '_ {
        self.shapes.iter().map(|s| (s.bone, &s.primitive))
    }

    /// Inverse bind transforms (`p ↦ p − head`), one per bone.
    ///
    /// # Performance
    /// O(bones).
    pub fn inverse_bind(&self) -> Vec<Affine> {
        self.bones
            .iter()
            .map(|b| Affine::new(Mat3::IDENTITY, -b.head))
            .collect()
    }

    /// Per bone, the signed distance from `p` to the bone's own primitives.
    fn bone_distances(&self, p: Vec3, out: &mut [f32; CAT_BONE_COUNT]) {
        out.fill(f32::INFINITY);
        for s in &self.shapes {
            out[s.bone] = out[s.bone].min(s.primitive.distance(p));
        }
    }

    /// Skin weights for surface points: `w_b ∝ exp(−(max(d_b − d_min, 0) / σ)²)` with `d_b` the
    /// distance to bone `b`'s primitives, keeping weights above `1e-5` of the largest and at most
    /// `max_influences` per point.
    ///
    /// # Errors
    /// [`DeformError::NonFinitePosition`] for a non-finite point.
    ///
    /// # Performance
    /// O(points · primitives).
    pub fn skin_weights(&self, points: &[Vec3], max_influences: usize) -> Result<ConvexWeights> {
        let sigma = Self::WEIGHT_FALLOFF;
        let mut d = [0.0f32; CAT_BONE_COUNT];
        let mut rows = Vec::with_capacity(points.len());
        for (index, &p) in points.iter().enumerate() {
            if !p.is_finite() {
                return Err(DeformError::NonFinitePosition {
                    what: "skinning point",
                    index,
                });
            }
            self.bone_distances(p, &mut d);
            let d_min = d.iter().copied().fold(f32::INFINITY, f32::min);
            let mut row: Vec<(u32, f32)> = d
                .iter()
                .enumerate()
                .map(|(b, &db)| {
                    let x = (db - d_min).max(0.0) / sigma;
                    (b as u32, (-x * x).exp())
                })
                .filter(|&(_, w)| w >= 1e-5)
                .collect();
            row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            row.truncate(max_influences.max(1));
            rows.push(row);
        }
        ConvexWeights::from_rows_renormalised(rows, CAT_BONE_COUNT).map(|(w, _)| w)
    }

    /// Bone world transforms of `gait` at time `t` seconds (any real `t`; the cycle repeats with
    /// [`Gait::period`]), for [`LinearBlendSkinning::set_bone_transforms`]. At rest each bone's
    /// world transform is the translation to its head, so `world · inverse_bind` is the identity.
    ///
    /// Non-finite `t` is treated as 0.
    ///
    /// # Performance
    /// O(bones).
    pub fn pose(&self, gait: Gait, t: f32) -> Vec<Affine> {
        let period = gait.period();
        let t = if t.is_finite() {
            t.rem_euclid(period)
        } else {
            0.0
        };
        let c = match gait {
            Gait::Walk => walk_controls(t),
            Gait::RunJump => run_jump_controls(t),
        };
        self.forward_kinematics(&c, t, gait)
    }

    /// `count` poses evenly spaced over one cycle (`t = i · period / count`).
    ///
    /// # Performance
    /// O(count · bones).
    pub fn frames(&self, gait: Gait, count: usize) -> Vec<Vec<Affine>> {
        let period = gait.period();
        (0..count)
            .map(|i| self.pose(gait, period * i as f32 / count as f32))
            .collect()
    }

    fn forward_kinematics(&self, c: &Controls, t: f32, gait: Gait) -> Vec<Affine> {
        let rz = Quat::from_rotation_z;
        let ry = Quat::from_rotation_y;
        let rx = Quat::from_rotation_x;
        let mut local = [Quat::IDENTITY; CAT_BONE_COUNT];
        local[PELVIS] = ry(c.yaw) * rz(c.pitch) * rx(c.roll);
        // Extension bends the forward-pointing spine chain upwards (positive about Z).
        local[LUMBAR[0]] = rz(0.5 * c.spine) * ry(c.spine_yaw);
        local[LUMBAR[1]] = rz(0.2 * c.spine) * ry(c.spine_yaw);
        local[THORAX] = rz(0.6 * c.spine) * ry(-c.spine_yaw);
        local[CHEST] = rz(0.5 * c.spine) * ry(-c.spine_yaw);
        local[NECK[0]] = rz(c.neck[0]);
        local[NECK[1]] = rz(c.neck[1]);
        local[HEAD] = rz(c.head) * ry(c.head_yaw);
        for (i, &ear) in EARS.iter().enumerate() {
            local[ear] = rz(c.ears) * rx(-SIDES[i] * 0.5 * c.ears);
        }
        // Tail: lift at the base, curl along it, a travelling sway wave.
        let sway_phase = TAU * t / gait.period() * gait_sway_cycles(gait);
        for i in 0..TAIL_BONES {
            let sway = c.tail_sway * (sway_phase - 0.45 * i as f32).sin();
            let bend = if i == 0 { -c.tail_lift } else { -c.tail_curl };
            local[TAIL_FIRST + i] = rz(bend) * ry(sway);
        }
        for (side, leg) in self.front.iter().enumerate() {
            let l = &c.front[side];
            local[leg.scapula] = rz(l.scapula);
            local[leg.humerus] = rz(l.shoulder);
            local[leg.radius] = rz(l.elbow);
            local[leg.metacarpus] = rz(l.wrist);
            local[leg.toes] = rz(l.toes);
        }
        for (side, leg) in self.hind.iter().enumerate() {
            let l = &c.hind[side];
            local[leg.femur] = rz(l.hip);
            local[leg.tibia] = rz(l.knee);
            local[leg.tarsus] = rz(l.ankle);
            local[leg.metatarsus] = rz(l.metatarsus);
            local[leg.toes] = rz(l.toes);
        }
        let mut world: Vec<Affine> = Vec::with_capacity(CAT_BONE_COUNT);
        for (b, bone) in self.bones.iter().enumerate() {
            let rotation = Mat3::from_quat(local[b]);
            let w = match bone.parent {
                None => Affine::new(rotation, bone.head + Vec3::new(0.0, c.lift, 0.0)),
                Some(p) => {
                    let parent = world[p];
                    let offset = bone.head - self.bones[p].head;
                    parent.compose(&Affine::new(rotation, offset))
                }
            };
            world.push(w);
        }
        world
    }
}

/// Ear base and tip on the mid-plane, and their distances from it `(base, tip)`.
const EAR_BASE: Vec3 = Vec3::new(0.212, 0.385, 0.0);
const EAR_TIP: Vec3 = Vec3::new(0.205, 0.448, 0.0);
const EAR_SIDE: (f32, f32) = (0.032, 0.05);

/// Length of one tail segment (metres).
const TAIL_SEGMENT: f32 = 0.028;

fn gait_sway_cycles(gait: Gait) -> f32 {
    match gait {
        Gait::Walk => 1.0,
        Gait::RunJump => 2.0,
    }
}

/// Joint angles (radians, rotations about the bind frame's `Z` unless said otherwise; positive
/// swings a downward bone forward and a backward bone down).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FrontLeg {
    scapula: f32,
    shoulder: f32,
    elbow: f32,
    wrist: f32,
    toes: f32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct HindLeg {
    hip: f32,
    knee: f32,
    ankle: f32,
    metatarsus: f32,
    toes: f32,
}

/// Everything a gait drives, interpolable key to key.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Controls {
    /// Vertical offset of the pelvis (m).
    lift: f32,
    /// Body pitch (positive: nose up), yaw and roll.
    pitch: f32,
    yaw: f32,
    roll: f32,
    /// Spine extension (positive hollows the back, negative hunches it).
    spine: f32,
    /// Lateral spine bend.
    spine_yaw: f32,
    /// Neck joints (positive raises the head) and head pitch / yaw.
    neck: [f32; 2],
    head: f32,
    head_yaw: f32,
    /// Ears laid back.
    ears: f32,
    /// Tail base lift (positive raises it), curl per further joint, sway amplitude.
    tail_lift: f32,
    tail_curl: f32,
    tail_sway: f32,
    /// Left, right.
    front: [FrontLeg; 2],
    hind: [HindLeg; 2],
}

impl Controls {
    /// Applies `f` field by field to `self` and `other`.
    fn zip(&self, other: &Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let fl = |a: &FrontLeg, b: &FrontLeg| FrontLeg {
            scapula: f(a.scapula, b.scapula),
            shoulder: f(a.shoulder, b.shoulder),
            elbow: f(a.elbow, b.elbow),
            wrist: f(a.wrist, b.wrist),
            toes: f(a.toes, b.toes),
        };
        let hl = |a: &HindLeg, b: &HindLeg| HindLeg {
            hip: f(a.hip, b.hip),
            knee: f(a.knee, b.knee),
            ankle: f(a.ankle, b.ankle),
            metatarsus: f(a.metatarsus, b.metatarsus),
            toes: f(a.toes, b.toes),
        };
        Self {
            lift: f(self.lift, other.lift),
            pitch: f(self.pitch, other.pitch),
            yaw: f(self.yaw, other.yaw),
            roll: f(self.roll, other.roll),
            spine: f(self.spine, other.spine),
            spine_yaw: f(self.spine_yaw, other.spine_yaw),
            neck: [
                f(self.neck[0], other.neck[0]),
                f(self.neck[1], other.neck[1]),
            ],
            head: f(self.head, other.head),
            head_yaw: f(self.head_yaw, other.head_yaw),
            ears: f(self.ears, other.ears),
            tail_lift: f(self.tail_lift, other.tail_lift),
            tail_curl: f(self.tail_curl, other.tail_curl),
            tail_sway: f(self.tail_sway, other.tail_sway),
            front: [
                fl(&self.front[0], &other.front[0]),
                fl(&self.front[1], &other.front[1]),
            ],
            hind: [
                hl(&self.hind[0], &other.hind[0]),
                hl(&self.hind[1], &other.hind[1]),
            ],
        }
    }
}

/// Stance/swing shaping of a leg at phase `phase ∈ [0, 1)` (touch-down at 0) with stance
/// fraction `stance`: `(reach, swing)` where `reach = cos 2πg` runs from +1 (foot forward, at
/// touch-down) through −1 (lift-off) back to +1, and `swing ∈ [0, 1]` is a smooth bump over the
/// swing phase. Both are C¹ in `phase`.
fn leg_cycle(phase: f32, stance: f32) -> (f32, f32) {
    let phase = phase.rem_euclid(1.0);
    if phase < stance {
        ((PI * phase / stance).cos(), 0.0)
    } else {
        let u = (phase - stance) / (1.0 - stance);
        ((PI + PI * u).cos(), (PI * u).sin().powi(2))
    }
}

fn walk_controls(t: f32) -> Controls {
    let cycle = t / WALK_PERIOD;
    let w = TAU * cycle;
    // Lateral sequence: left hind, left fore, right hind, right fore.
    let hind_phase = [0.0, 0.5];
    let front_phase = [0.25, 0.75];
    let stance = 0.62;
    let mut c = Controls {
        lift: 0.003 * (2.0 * w).cos(),
        pitch: 0.015 * (2.0 * w + 0.5).sin(),
        yaw: 0.035 * w.sin(),
        roll: 0.025 * (w + 0.4).sin(),
        spine: 0.03 * (2.0 * w).sin(),
        spine_yaw: -0.04 * w.sin(),
        neck: [0.05 + 0.03 * (2.0 * w).cos(), -0.02],
        head: -0.05 - 0.03 * (2.0 * w).cos(),
        head_yaw: -0.05 * w.sin(),
        ears: 0.0,
        tail_lift: 1.55,
        tail_curl: 0.12,
        tail_sway: 0.12,
        ..Controls::default()
    };
    for side in 0..2 {
        let (reach, swing) = leg_cycle(cycle - hind_phase[side], stance);
        c.hind[side] = HindLeg {
            hip: 0.05 + 0.3 * reach + 0.15 * swing,
            knee: -0.12 - 0.55 * swing,
            ankle: 0.05 + 0.45 * swing,
            metatarsus: 0.05 * reach - 0.1 * swing,
            toes: -0.1 * swing + 0.15 * (1.0 - reach) * (1.0 - swing),
        };
        let (reach, swing) = leg_cycle(cycle - front_phase[side], stance);
        c.front[side] = FrontLeg {
            scapula: 0.15 * reach,
            shoulder: 0.12 * reach - 0.3 * swing,
            elbow: 0.75 * swing,
            wrist: -swing,
            toes: -0.2 * swing + 0.2 * (1.0 - reach) * (1.0 - swing),
        };
    }
    c
}

fn gallop_controls(t: f32) -> Controls {
    let cycle = t / GALLOP_PERIOD;
    let w = TAU * cycle;
    // Rotary gallop: hind pair, then fore pair half a stride later.
    let hind_phase = [0.0, 0.09];
    let front_phase = [0.56, 0.47];
    let stance = 0.38;
    let mut c = Controls {
        lift: 0.012 * (w - 1.2).sin(),
        pitch: 0.09 * (w - 0.6).sin(),
        yaw: 0.0,
        roll: 0.02 * w.sin(),
        // Hunched while the hind legs reach forward (gathered), extended in the stretch.
        spine: -0.06 - 0.3 * (w - 0.3).cos(),
        spine_yaw: 0.0,
        neck: [-0.05 + 0.08 * (w + 0.5).cos(), -0.1],
        head: 0.05 - 0.1 * (w + 0.3).cos(),
        head_yaw: 0.0,
        ears: 0.35,
        tail_lift: 0.55,
        tail_curl: 0.1,
        tail_sway: 0.1,
        ..Controls::default()
    };
    for side in 0..2 {
        let (reach, swing) = leg_cycle(cycle - hind_phase[side], stance);
        c.hind[side] = HindLeg {
            hip: 0.15 + 0.6 * reach + 0.25 * swing,
            knee: -0.3 - 0.9 * swing,
            ankle: 0.15 + 0.8 * swing,
            metatarsus: 0.1 * reach - 0.2 * swing,
            toes: -0.2 * swing,
        };
        let (reach, swing) = leg_cycle(cycle - front_phase[side], stance);
        c.front[side] = FrontLeg {
            scapula: 0.35 * reach,
            shoulder: 0.35 * reach - 0.45 * swing,
            elbow: 1.1 * swing,
            wrist: -1.4 * swing,
            toes: -0.3 * swing,
        };
    }
    c
}

/// Key poses of the jump, at times from the start of the jump segment.
fn jump_keys() -> [(f32, Controls); 5] {
    let both_front = |l: FrontLeg| [l, l];
    let both_hind = |l: HindLeg| [l, l];
    let crouch = Controls {
        lift: -0.06,
        pitch: -0.04,
        spine: -0.25,
        neck: [-0.25, -0.1],
        head: 0.35,
        ears: 0.6,
        tail_lift: 0.35,
        tail_curl: 0.25,
        tail_sway: 0.05,
        front: both_front(FrontLeg {
            scapula: -0.25,
            shoulder: -0.35,
            elbow: 0.95,
            wrist: -0.2,
            toes: 0.1,
        }),
        hind: both_hind(HindLeg {
            hip: 1.0,
            knee: -1.85,
            ankle: 1.45,
            metatarsus: -0.3,
            toes: 0.25,
        }),
        ..Controls::default()
    };
    let take_off = Controls {
        lift: 0.09,
        pitch: 0.3,
        spine: 0.2,
        neck: [0.2, 0.0],
        head: -0.35,
        ears: 0.4,
        tail_lift: 1.4,
        tail_curl: 0.3,
        tail_sway: 0.05,
        front: both_front(FrontLeg {
            scapula: 0.6,
            shoulder: 0.9,
            elbow: 0.5,
            wrist: -0.9,
            toes: -0.2,
        }),
        hind: both_hind(HindLeg {
            hip: -0.75,
            knee: 0.15,
            ankle: -0.25,
            metatarsus: 0.1,
            toes: 0.35,
        }),
        ..Controls::default()
    };
    let tuck = Controls {
        lift: 0.26,
        pitch: 0.0,
        spine: -0.35,
        // Head tucked onto the chest: the throat pinches.
        neck: [-1.1, -1.0],
        head: -0.5,
        ears: 0.7,
        // The tail loops up and forward over the back.
        tail_lift: 1.95,
        tail_curl: 0.5,
        tail_sway: 0.0,
        front: both_front(FrontLeg {
            scapula: 0.25,
            shoulder: 0.35,
            elbow: 2.0,
            wrist: -1.65,
            toes: -0.3,
        }),
        hind: both_hind(HindLeg {
            hip: 1.15,
            knee: -2.0,
            ankle: 1.6,
            metatarsus: -0.2,
            toes: -0.3,
        }),
        ..Controls::default()
    };
    let reach = Controls {
        lift: 0.08,
        pitch: -0.4,
        spine: 0.2,
        neck: [-0.55, -0.55],
        head: 0.55,
        ears: 0.5,
        tail_lift: 1.3,
        tail_curl: 0.35,
        tail_sway: 0.0,
        front: both_front(FrontLeg {
            scapula: 0.55,
            shoulder: 0.55,
            elbow: 0.15,
            wrist: 0.15,
            toes: 0.1,
        }),
        hind: both_hind(HindLeg {
            hip: -0.45,
            knee: -0.7,
            ankle: 0.65,
            metatarsus: 0.0,
            toes: 0.0,
        }),
        ..Controls::default()
    };
    let land = Controls {
        lift: -0.03,
        pitch: -0.15,
        spine: -0.25,
        neck: [-0.6, -0.45],
        head: 0.45,
        ears: 0.5,
        tail_lift: 0.8,
        tail_curl: 0.3,
        tail_sway: 0.05,
        front: both_front(FrontLeg {
            scapula: -0.4,
            shoulder: -0.25,
            elbow: 1.25,
            wrist: 0.4,
            toes: 0.2,
        }),
        hind: both_hind(HindLeg {
            hip: 0.85,
            knee: -1.55,
            ankle: 1.25,
            metatarsus: -0.2,
            toes: 0.2,
        }),
        ..Controls::default()
    };
    [
        (0.25, crouch),
        (0.45, take_off),
        (0.68, tuck),
        (0.88, reach),
        (1.03, land),
    ]
}

fn run_jump_controls(t: f32) -> Controls {
    let run = GALLOP_PERIOD * GALLOP_STRIDES as f32;
    if t < run {
        return gallop_controls(t);
    }
    // Key sequence from the gallop pose at the start of the jump back to the gallop pose at the
    // start of the cycle (the same pose: the gallop is periodic), Catmull–Rom in between.
    let start = gallop_controls(0.0);
    let mut keys: Vec<(f32, Controls)> = vec![(0.0, start)];
    keys.extend(jump_keys());
    keys.push((JUMP_DURATION, start));
    let s = t - run;
    let i = keys
        .windows(2)
        .position(|w| s < w[1].0)
        .unwrap_or(keys.len() - 2);
    let (t0, p1) = keys[i];
    let (t1, p2) = keys[i + 1];
    let p0 = if i == 0 { p1 } else { keys[i - 1].1 };
    let p3 = keys.get(i + 2).map_or(p2, |k| k.1);
    let u = ((s - t0) / (t1 - t0)).clamp(0.0, 1.0);
    catmull_rom(&p0, &p1, &p2, &p3, u)
}

/// Uniform Catmull–Rom interpolation between `p1` (u = 0) and `p2` (u = 1).
fn catmull_rom(p0: &Controls, p1: &Controls, p2: &Controls, p3: &Controls, u: f32) -> Controls {
    let (u2, u3) = (u * u, u * u * u);
    let a = p0.zip(p1, |x0, x1| {
        0.5 * (-u3 + 2.0 * u2 - u) * x0 + 0.5 * (3.0 * u3 - 5.0 * u2 + 2.0) * x1
    });
    let b = p2.zip(p3, |x2, x3| {
        0.5 * (-3.0 * u3 + 4.0 * u2 + u) * x2 + 0.5 * (u3 - u2) * x3
    });
    a.zip(&b, |x, y| x + y)
}

/// Loop's original vertex weight β(n) for valence `n`.
fn loop_beta(n: usize) -> f32 {
    let n = n as f32;
    let c = 0.375 + 0.25 * (TAU / n).cos();
    (0.625 - c * c) / n
}

/// Moves control points so that their Loop limit positions approach `targets`
/// (`c ← c + (targets − L c)`, `rounds` times; `L` is the limit mask
/// `(1 − nχ) c + χ Σ neighbours`, `χ = 1 / (3 / (8β) + n)`).
fn fit_loop_limit(targets: &[Vec3], triangles: &[[u32; 3]], rounds: usize) -> Vec<Vec3> {
    let (offsets, neighbours) = vertex_neighbours(targets.len(), triangles);
    let mut c = targets.to_vec();
    let mut limit = vec![Vec3::ZERO; c.len()];
    for _ in 0..rounds {
        for (v, l) in limit.iter_mut().enumerate() {
            let nb = &neighbours[offsets[v] as usize..offsets[v + 1] as usize];
            let n = nb.len();
            if n < 3 {
                *l = c[v];
                continue;
            }
            let chi = 1.0 / (3.0 / (8.0 * loop_beta(n)) + n as f32);
            let sum: Vec3 = nb.iter().map(|&q| c[q as usize]).sum();
            *l = (1.0 - n as f32 * chi) * c[v] + chi * sum;
        }
        for ((p, l), s) in c.iter_mut().zip(&limit).zip(targets) {
            *p += *s - *l;
        }
    }
    c
}

/// The skinned cat: rest mesh, linear blend skinning over the 40-bone rig, and the rig.
///
/// ```no_run
/// use rapier3d_deform::governor::GovernedDeformation;
/// use rapier3d_deform_scenes::cat::{Cat, CatResolution, Gait};
/// # fn main() -> rapier3d_deform::Result<()> {
/// let mut cat = Cat::build(CatResolution::Coarse)?;
/// let pose = cat.pose(Gait::Walk, 0.3);
/// cat.skinning_mut().set_bone_transforms(&pose)?;
/// let posed = cat.skinning().deformed_positions();
/// assert_eq!(posed.len(), cat.mesh().vertex_count());
/// # Ok(()) }
/// ```
///
/// # Performance
/// [`Cat::build`] is O(triangles · stencil width); posing is O(bones) and skinning O(influences).
#[derive(Clone, Debug)]
pub struct Cat {
    rig: CatRig,
    resolution: CatResolution,
    control: TriangleMesh,
    mesh: TriangleMesh,
    skin: LinearBlendSkinning,
}

impl Cat {
    /// Builds the cat at `resolution` (see the module docs for the pipeline).
    ///
    /// # Errors
    /// Propagates the (not expected) errors of meshing, subdivision and weight validation.
    ///
    /// # Performance
    /// Dominated by subdivision and weight push-through: O(triangles · stencil width). Measured
    /// in release on one core: see `examples/self_collision.rs`.
    pub fn build(resolution: CatResolution) -> Result<Self> {
        let rig = CatRig::new();
        let sdf = rig.sdf();
        let (mins, maxs) = sdf.bounds();
        let field = |p: Vec3| sdf.distance(p);
        let (target, cell) = CatResolution::SURFACE;
        let (surface, _) = surface_nets_with_target(
            &field,
            mins,
            maxs,
            target,
            SurfaceNetsOptions::new(cell),
            0.012,
            6,
        )?;
        let levels = resolution.subdivision_levels();
        if levels == 0 {
            // Too coarse for a grid (the tail is thinner than a cell): simplify instead.
            let surface = decimate(&surface, resolution.target_triangles())?;
            let weights = rig.skin_weights(surface.positions(), CAT_MAX_INFLUENCES)?;
            let (mesh, rest, weights) = spatially_ordered(&surface, surface.positions(), &weights)?;
            let skin = LinearBlendSkinning::new(rest, weights, rig.inverse_bind())?;
            return Ok(Self {
                rig,
                resolution,
                control: surface,
                mesh,
                skin,
            });
        }
        // Skin weights on the surface points the control vertices stand for, then pushed
        // through the stencils (more influences per control vertex than the final 9, so the
        // truncation after subdivision picks the largest blended ones).
        let control_weights = rig.skin_weights(surface.positions(), 2 * CAT_MAX_INFLUENCES)?;
        let fitted = fit_loop_limit(surface.positions(), surface.triangles(), 4);
        let control = TriangleMesh::new(fitted, surface.triangles().to_vec())?;
        let subdivision = LoopSubdivision::new(control.clone(), levels)?;
        let weights = subdivision
            .push_weights(&control_weights)?
            .truncated(CAT_MAX_INFLUENCES)?;
        let (mesh, rest, weights) =
            spatially_ordered(subdivision.mesh(), subdivision.rest_positions(), &weights)?;
        let skin = LinearBlendSkinning::new(rest, weights, rig.inverse_bind())?;
        Ok(Self {
            rig,
            resolution,
            control,
            mesh,
            skin,
        })
    }

    /// The resolution it was built at.
    ///
    /// # Performance
    /// O(1).
    pub fn resolution(&self) -> CatResolution {
        self.resolution
    }

    /// The rest mesh.
    ///
    /// # Performance
    /// O(1).
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The Loop control mesh (for [`CatResolution::Tiny`], the mesh itself).
    ///
    /// # Performance
    /// O(1).
    pub fn control_mesh(&self) -> &TriangleMesh {
        &self.control
    }

    /// The skin (rest positions = the mesh's, 40 bones, ≤ 9 influences per vertex).
    ///
    /// # Performance
    /// O(1).
    pub fn skinning(&self) -> &LinearBlendSkinning {
        &self.skin
    }

    /// Mutable access to the skin, to pose it.
    ///
    /// # Performance
    /// O(1).
    pub fn skinning_mut(&mut self) -> &mut LinearBlendSkinning {
        &mut self.skin
    }

    /// The rig (skeleton, shape, animation).
    ///
    /// # Performance
    /// O(1).
    pub fn rig(&self) -> &CatRig {
        &self.rig
    }

    /// Bone world transforms of `gait` at time `t` (see [`CatRig::pose`]).
    ///
    /// # Performance
    /// O(bones).
    pub fn pose(&self, gait: Gait, t: f32) -> Vec<Affine> {
        self.rig.pose(gait, t)
    }

    /// `count` poses evenly spaced over one cycle (see [`CatRig::frames`]).
    ///
    /// # Performance
    /// O(count · bones).
    pub fn frames(&self, gait: Gait, count: usize) -> Vec<Vec<Affine>> {
        self.rig.frames(gait, count)
    }

    /// Poses the skin at `gait`, `t` and returns the deformed vertex positions.
    ///
    /// # Errors
    /// Not expected (the rig's transforms are finite); see
    /// [`LinearBlendSkinning::set_bone_transforms`].
    ///
    /// # Performance
    /// O(influences).
    pub fn posed_positions(&mut self, gait: Gait, t: f32) -> Result<Vec<Vec3>> {
        let pose = self.pose(gait, t);
        self.skin.set_bone_transforms(&pose)?;
        Ok(self.skin.deformed_positions())
    }

    /// The mesh and the skin, consuming the cat.
    ///
    /// # Performance
    /// O(1).
    pub fn into_parts(self) -> (TriangleMesh, LinearBlendSkinning) {
        (self.mesh, self.skin)
    }
}

/// The mesh, rest positions and weights with the vertices in spatial (Morton) order: Loop
/// subdivision numbers vertices level by level, which scatters every patch over memory (see
/// [`VertexOrder`]). Triangle indices are unchanged.
fn spatially_ordered(
    mesh: &TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
) -> Result<(TriangleMesh, Vec<Vec3>, ConvexWeights)> {
    let order = VertexOrder::spatial(rest)?;
    Ok((
        order.mesh(mesh)?,
        order.reorder(rest)?,
        order.weights(weights)?,
    ))
}
