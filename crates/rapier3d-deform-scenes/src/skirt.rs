//! A skirt on a walking humanoid: the Khronos RiggedFigure Loop-subdivided, a procedural walk clip on its legs, and a flared cloth tube pinned at the waist.
//!
//! * **Avatar.** `assets/skinned/RiggedFigure.glb` (19 joints, 256 triangles, closed), its
//!   collision mesh Loop-subdivided `levels` times (1,024 / 4,096 / 16,384 / 65,536 triangles for
//!   1–4) with the skin weights pushed through the stencils ([`SubdividedFox`], which loads any
//!   single skinned mesh). The file's own clip moves only the arms, so [`WalkingFigure`] makes a walk
//!   in place: hips swing ±[`HIP_SWING`] rad about the lateral axis in antiphase, knees flex up to
//!   [`KNEE_FLEX`] rad in the back swing, [`WALK_PERIOD`] s per cycle.
//! * **Skirt.** [`SkirtCloth`]: `around × along` vertices on a cone from the waist
//!   ([`WAIST_HEIGHT`], just outside the posed skin there) down [`SKIRT_LENGTH`], flaring by
//!   [`SKIRT_FLARE`]; the waist ring is pinned, and its targets follow the skin (each pinned vertex
//!   is carried by the skin weights of the nearest skin vertex).
//!
//! Units are metres and seconds, `+Y` up (the figure's root turns the file's `+Z` up to `+Y`).

use crate::fox::SubdividedFox;
use crate::garment::PinCarriers;
use rapier3d_deform::cloth::{Cloth, ClothOptions};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::error::Result;
use rapier3d_deform::governor::{Affine, GovernedDeformation, deform_vertices};
use rapier3d_deform::io::{AnimationClip, Channel, Interpolation, LoadError, Property, Sampler};
use rapier3d_deform::math::{Quat, Vec3};

/// Seconds per walk cycle.
pub const WALK_PERIOD: f32 = 1.2;
/// Hip swing amplitude (rad).
pub const HIP_SWING: f32 = 0.45;
/// Largest knee flexion (rad).
pub const KNEE_FLEX: f32 = 0.7;
/// Height of the waist ring (m).
pub const WAIST_HEIGHT: f32 = 0.78;
/// Skirt length along the body (m).
pub const SKIRT_LENGTH: f32 = 0.42;
/// Hem radius over waist radius.
pub const SKIRT_FLARE: f32 = 1.7;
/// Clearance between the waist ring and the skin (m).
pub const WAIST_CLEARANCE: f32 = 0.012;

/// Nodes of RiggedFigure's legs: (hip, knee) left and right.
const LEGS: [(usize, usize); 2] = [(3, 4), (7, 8)];

/// The walking figure.
pub struct WalkingFigure {
    figure: SubdividedFox,
    clip: AnimationClip,
}

impl WalkingFigure {
    /// Loads RiggedFigure, subdivides it `levels` times and makes its walk clip.
    ///
    /// # Errors
    /// The loader's errors ([`SubdividedFox::load`]); [`LoadError::Deform`] if the walk clip's
    /// keyframes are rejected.
    ///
    /// # Performance
    /// Loading plus O(fine vertices · stencil width).
    pub fn load(levels: u32) -> std::result::Result<Self, LoadError> {
        let figure = SubdividedFox::load(crate::asset_path("skinned/RiggedFigure.glb"), levels)?;
        let clip = walk_clip(&figure)?;
        Ok(Self { figure, clip })
    }

    /// The subdivided skin's linear blend skinning (rest positions, weights).
    pub fn skinning(&self) -> &LinearBlendSkinning {
        self.figure.skinning()
    }

    /// The subdivided skin mesh.
    pub fn mesh(&self) -> &rapier3d_deform::mesh::TriangleMesh {
        self.figure.mesh()
    }

    /// The walk clip.
    pub fn clip(&self) -> &AnimationClip {
        &self.clip
    }

    /// Skin matrices at time `t` of the walk (looped).
    ///
    /// # Errors
    /// Not expected for the loaded figure; see [`SubdividedFox::governors_at`].
    pub fn governors_at(&mut self, t: f32) -> Result<Vec<Affine>> {
        let clip = self.clip.clone();
        self.figure.governors_at(&clip, t)
    }
}

/// World rotation of `node` at rest (its node's world transform, orthonormalised).
fn rest_world_rotation(figure: &SubdividedFox, node: usize) -> Quat {
    let world = figure.asset().skeleton.node_world_transforms(None, 0.0);
    world.get(node).map_or(Quat::IDENTITY, |a| {
        let m = a.linear;
        let (x, y) = (m.x_axis.normalize(), m.y_axis.normalize());
        let z = x.cross(y).normalize();
        let y = z.cross(x);
        Quat::from_mat3(&rapier3d_deform::math::Mat3::from_cols(x, y, z)).normalize()
    })
}

/// The walk in place: rotation channels on the hips and knees (see the module docs).
fn walk_clip(figure: &SubdividedFox) -> std::result::Result<AnimationClip, LoadError> {
    let skeleton = &figure.asset().skeleton;
    let keys = 24;
    let times: Vec<f32> = (0..=keys)
        .map(|k| WALK_PERIOD * k as f32 / keys as f32)
        .collect();
    let mut channels = Vec::new();
    for (side, &(hip, knee)) in LEGS.iter().enumerate() {
        let phase = if side == 0 {
            0.0
        } else {
            core::f32::consts::PI
        };
        for (node, is_knee) in [(hip, false), (knee, true)] {
            let Some(parent) = skeleton.parent(node) else {
                continue;
            };
            let parent_world = rest_world_rotation(figure, parent);
            let local = skeleton.rest_transforms()[node].to_trs().rotation;
            let mut values = Vec::with_capacity(4 * times.len());
            for &t in &times {
                let s = (core::f32::consts::TAU * t / WALK_PERIOD + phase).sin();
                let angle = if is_knee {
                    KNEE_FLEX * (-s).max(0.0)
                } else {
                    HIP_SWING * s
                };
                // A rotation about the world's lateral axis, expressed in the parent's frame.
                let world = Quat::from_axis_angle(Vec3::X, angle);
                let q = (parent_world.inverse() * world * parent_world * local).normalize();
                values.extend_from_slice(&q.to_array());
            }
            channels.push(Channel {
                node,
                property: Property::Rotation,
                sampler: Sampler::new(times.clone(), values, 4, Interpolation::Linear)?,
            });
        }
    }
    Ok(AnimationClip::new(Some("Walk".to_owned()), channels))
}

/// A skirt cloth on a [`WalkingFigure`] and what drives its waist.
pub struct SkirtCloth {
    /// The cloth (world space, built around the figure at time 0).
    pub cloth: Cloth,
    /// What carries the pinned waist vertices (in [`Cloth::pinned`] order).
    pub carriers: PinCarriers,
}

impl SkirtCloth {
    /// A skirt of `around × along` vertices on `figure` posed by `governors` (time 0).
    ///
    /// # Errors
    /// The cloth's construction errors ([`Cloth::new`]).
    ///
    /// # Performance
    /// O(cloth vertices · skin vertices) for the nearest skin vertices of the waist (once).
    pub fn new(
        figure: &WalkingFigure,
        governors: &[Affine],
        around: usize,
        along: usize,
        options: ClothOptions,
    ) -> Result<Self> {
        let skin = figure.skinning();
        let mut posed = Vec::new();
        deform_vertices(skin.rest_positions(), skin.weights(), governors, &mut posed);
        // The waist: the skin's cross-section at WAIST_HEIGHT (edges crossing the plane; the arms,
        // beyond 0.2 m from the body's axis, left out), its box centre and largest radius.
        let mut section = Vec::new();
        for tri in figure.mesh().triangles() {
            for e in 0..3 {
                let (a, b) = (posed[tri[e] as usize], posed[tri[(e + 1) % 3] as usize]);
                if (a.y - WAIST_HEIGHT) * (b.y - WAIST_HEIGHT) <= 0.0 && a.y != b.y {
                    let x = a + (b - a) * ((WAIST_HEIGHT - a.y) / (b.y - a.y));
                    if x.x.abs() < 0.2 {
                        section.push(x);
                    }
                }
            }
        }
        let (lo, hi) = section.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(l, h), p| (l.min(*p), h.max(*p)),
        );
        let centre = if section.is_empty() {
            Vec3::new(0.0, WAIST_HEIGHT, 0.0)
        } else {
            0.5 * (lo + hi)
        };
        let radius = section.iter().fold(0f32, |r, p| {
            r.max(Vec3::new(p.x - centre.x, 0.0, p.z - centre.z).length())
        }) + WAIST_CLEARANCE;
        let mut positions = Vec::with_capacity(around * along);
        for j in 0..along {
            let f = j as f32 / (along - 1).max(1) as f32;
            let r = radius * (1.0 + (SKIRT_FLARE - 1.0) * f);
            let y = WAIST_HEIGHT - SKIRT_LENGTH * f;
            for i in 0..around {
                let a = core::f32::consts::TAU * i as f32 / around as f32;
                positions.push(Vec3::new(centre.x + r * a.cos(), y, centre.z + r * a.sin()));
            }
        }
        let id = |i: usize, j: usize| (j * around + i % around) as u32;
        let mut triangles = Vec::with_capacity(2 * around * along);
        for j in 0..along.saturating_sub(1) {
            for i in 0..around {
                triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let pinned: Vec<u32> = (0..around as u32).collect();
        let cloth = Cloth::new(positions.clone(), triangles, &pinned, options)?;
        // Each waist vertex rides the skin weights of its nearest skin vertex.
        let pins: Vec<Vec3> = cloth
            .pinned()
            .iter()
            .map(|&p| positions[p as usize])
            .collect();
        let carriers = PinCarriers::nearest(&pins, &posed, skin.weights(), governors);
        Ok(Self { cloth, carriers })
    }

    /// Where the pinned waist vertices are under the skin matrices `governors`.
    pub fn pin_targets(&self, figure: &WalkingFigure, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers
            .targets(figure.skinning().weights(), governors)
    }
}
