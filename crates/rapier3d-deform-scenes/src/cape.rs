//! A cape on the running Fox: the Khronos Fox Loop-subdivided and scaled to metres, its own Run clip, and a cloth rectangle over its back pinned at the shoulders.
//!
//! * **Avatar.** `assets/skinned/Fox.glb` (24 joints, 576 triangles, closed, authored in
//!   centimetres) Loop-subdivided `levels` times ([`SubdividedFox`]) and scaled by
//!   [`FOX_SCALE`]: rest positions `s p₀` and skin matrices `(A, s t)` pose `s (A p₀ + t)`, the
//!   file's pose in metres. The Fox faces `+Z`, `+Y` up; it runs in place (the file's Run clip,
//!   looped).
//! * **Cape.** [`FoxCape`]: `across × along` vertices over [`CAPE_WIDTH`] × [`CAPE_LENGTH`],
//!   from the shoulders ([`CAPE_FRONT`]) back towards the tail, laid [`CAPE_CLEARANCE`] above the
//!   posed skin (a vertical ray per vertex; beyond the flanks the cloth slopes down at 45°). The
//!   two front rows are pinned; each pinned vertex is carried by the skin weights of its nearest
//!   skin vertex ([`PinCarriers`]). The cape rubs on the fur ([`FoxCape::thresholds`]:
//!   [`CAPE_FRICTION`]).

use crate::fox::SubdividedFox;
use crate::garment::PinCarriers;
use rapier3d_deform::cloth::{Cloth, ClothOptions, ContactThresholds};
use rapier3d_deform::error::Result;
use rapier3d_deform::governor::{Affine, ConvexWeights, GovernedDeformation, deform_vertices};
use rapier3d_deform::io::{AnimationClip, LoadError};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;

/// Metres per unit of the Fox file (it is authored in centimetres).
pub const FOX_SCALE: f32 = 0.01;
/// Cape width across the back (m).
pub const CAPE_WIDTH: f32 = 0.5;
/// Cape length from the shoulders towards the tail (m).
pub const CAPE_LENGTH: f32 = 0.6;
/// `z` of the pinned front edge (m): over the shoulders.
pub const CAPE_FRONT: f32 = 0.38;
/// Height of the cape above the skin at the start (m).
pub const CAPE_CLEARANCE: f32 = 0.02;
/// Friction of the cape against the fur: without it the cape slides off the galloping Fox's
/// narrow, rounded back within a second.
pub const CAPE_FRICTION: f32 = 0.6;

/// The Fox in metres, running.
pub struct RunningFox {
    fox: SubdividedFox,
    clip: AnimationClip,
    mesh: TriangleMesh,
}

impl RunningFox {
    /// Loads the Fox, subdivides it `levels` times, scales it to metres and takes its Run clip.
    ///
    /// # Errors
    /// The loader's errors ([`SubdividedFox::load`]); [`LoadError::Deform`] if the file has no
    /// Run clip or the scaled mesh is rejected.
    ///
    /// # Performance
    /// Loading plus O(fine vertices · stencil width).
    pub fn load(levels: u32) -> std::result::Result<Self, LoadError> {
        let fox = SubdividedFox::load(crate::asset_path("skinned/Fox.glb"), levels)?;
        let clip = fox
            .clip("Run")
            .ok_or_else(|| rapier3d_deform::DeformError::UnknownName {
                what: "clip",
                name: "Run".to_owned(),
            })?
            .clone();
        let scaled: Vec<Vec3> = fox
            .skinning()
            .rest_positions()
            .iter()
            .map(|p| *p * FOX_SCALE)
            .collect();
        let mesh = TriangleMesh::new(scaled, fox.mesh().triangles().to_vec())?;
        Ok(Self { fox, clip, mesh })
    }

    /// The skin mesh in metres (rest pose = bind pose).
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// Rest (bind) positions in metres.
    pub fn rest_positions(&self) -> &[Vec3] {
        self.mesh.positions()
    }

    /// Skin weights (governors = the Fox's joints).
    pub fn weights(&self) -> &ConvexWeights {
        self.fox.skinning().weights()
    }

    /// The Run clip.
    pub fn clip(&self) -> &AnimationClip {
        &self.clip
    }

    /// Skin matrices (in metres) at time `t` of the run, looped.
    ///
    /// # Errors
    /// Not expected for the loaded Fox; see [`SubdividedFox::governors_at`].
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn governors_at(&mut self, t: f32) -> Result<Vec<Affine>> {
        let clip = self.clip.clone();
        let mut g = self.fox.governors_at(&clip, t)?;
        for a in &mut g {
            a.translation *= FOX_SCALE;
        }
        Ok(g)
    }
}

/// A cape on a [`RunningFox`] and what carries its front edge.
pub struct FoxCape {
    /// The cloth (world space, laid over the Fox posed at time 0).
    pub cloth: Cloth,
    /// What carries the pinned front rows (in [`Cloth::pinned`] order).
    pub carriers: PinCarriers,
}

impl FoxCape {
    /// A cape of `across × along` vertices (at least 2 × 2) over `fox` posed by `governors`.
    ///
    /// # Errors
    /// The cloth's construction errors ([`Cloth::new`]).
    ///
    /// # Performance
    /// O(cape vertices · skin triangles) for the rays (once).
    pub fn new(
        fox: &RunningFox,
        governors: &[Affine],
        across: usize,
        along: usize,
        options: ClothOptions,
    ) -> Result<Self> {
        let (across, along) = (across.max(2), along.max(2));
        let mut posed = Vec::new();
        deform_vertices(fox.rest_positions(), fox.weights(), governors, &mut posed);
        let triangles = fox.mesh().triangles();
        // Highest skin point under (x, z), if any.
        let top = |x: f32, z: f32| -> Option<f32> {
            let mut best: Option<f32> = None;
            for tri in triangles {
                let [a, b, c] = tri.map(|v| posed[v as usize]);
                let d = (b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z);
                if d.abs() < 1e-12 {
                    continue;
                }
                let u = ((b.x - x) * (c.z - z) - (c.x - x) * (b.z - z)) / d;
                let v = ((c.x - x) * (a.z - z) - (a.x - x) * (c.z - z)) / d;
                let w = 1.0 - u - v;
                if u >= 0.0 && v >= 0.0 && w >= 0.0 {
                    let y = u * a.y + v * b.y + w * c.y;
                    if best.is_none_or(|b| y > b) {
                        best = Some(y);
                    }
                }
            }
            best
        };
        let mut positions = vec![Vec3::ZERO; across * along];
        let id = |i: usize, j: usize| j * across + i;
        let centre = (across - 1) as f32 / 2.0;
        for j in 0..along {
            let z = CAPE_FRONT - CAPE_LENGTH * j as f32 / (along - 1) as f32;
            // From the spine outwards: on the skin where a ray hits it, else 45° down.
            let mut order: Vec<usize> = (0..across).collect();
            order.sort_by(|&a, &b| {
                (a as f32 - centre)
                    .abs()
                    .total_cmp(&(b as f32 - centre).abs())
            });
            for i in order {
                let x = CAPE_WIDTH * (i as f32 / (across - 1) as f32 - 0.5);
                let inner = if (i as f32) < centre {
                    i + 1
                } else {
                    i.saturating_sub(1)
                };
                let fallback =
                    if inner != i && (inner as f32 - centre).abs() < (i as f32 - centre).abs() {
                        let p = positions[id(inner, j)];
                        p.y - (x - p.x).abs()
                    } else {
                        0.5
                    };
                let y = top(x, z).map_or(fallback, |y| (y + CAPE_CLEARANCE).max(fallback));
                positions[id(i, j)] = Vec3::new(x, y, z);
            }
        }
        let mut cloth_triangles = Vec::with_capacity(2 * (across - 1) * (along - 1));
        for j in 0..along - 1 {
            for i in 0..across - 1 {
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1));
                // Counter-clockwise seen from above (+Y).
                cloth_triangles.push([a as u32, d as u32, c as u32]);
                cloth_triangles.push([a as u32, b as u32, d as u32]);
            }
        }
        let pinned: Vec<u32> = (0..2 * across as u32).collect();
        let cloth = Cloth::new(positions.clone(), cloth_triangles, &pinned, options)?;
        let pins: Vec<Vec3> = cloth
            .pinned()
            .iter()
            .map(|&p| positions[p as usize])
            .collect();
        let carriers = PinCarriers::nearest(&pins, &posed, fox.weights(), governors);
        Ok(Self { cloth, carriers })
    }

    /// The collision stage's thresholds for the cape: the defaults with [`CAPE_FRICTION`].
    pub fn thresholds() -> ContactThresholds {
        ContactThresholds {
            friction: CAPE_FRICTION,
            ..ContactThresholds::default()
        }
    }

    /// Where the pinned front rows are under the skin matrices `governors`.
    pub fn pin_targets(&self, fox: &RunningFox, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers.targets(fox.weights(), governors)
    }
}
