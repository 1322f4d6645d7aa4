//! What the garment scenes share: pinned cloth vertices carried by the skin weights of the nearest skin vertex.

use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};

/// Per pinned cloth vertex, its bind-space position and the skin vertex whose weights carry it:
/// the vertex follows `Σ w_k G_k` of that skin vertex, as if it were a point of the skin.
#[derive(Clone, Debug, Default)]
pub struct PinCarriers {
    carriers: Vec<(Vec3, usize)>,
}

impl PinCarriers {
    /// Carriers for the cloth vertices at `pinned` (world positions, in [`rapier3d_deform::cloth::Cloth::pinned`]
    /// order) on the skin posed at `posed` by `governors`: each is attached to its nearest posed
    /// skin vertex.
    ///
    /// # Performance
    /// O(pinned · skin vertices), once.
    pub fn nearest(
        pinned: &[Vec3],
        posed: &[Vec3],
        weights: &ConvexWeights,
        governors: &[Affine],
    ) -> Self {
        let carriers = pinned
            .iter()
            .map(|&x| {
                let (v, _) = posed
                    .iter()
                    .enumerate()
                    .fold((0, f32::MAX), |best, (v, q)| {
                        let d = (*q - x).length_squared();
                        if d < best.1 { (v, d) } else { best }
                    });
                let (linear, translation) = blend(weights, governors, v);
                (linear.inverse() * (x - translation), v)
            })
            .collect();
        Self { carriers }
    }

    /// Where the pinned vertices are under the skin matrices `governors`.
    ///
    /// # Performance
    /// O(pinned · influences).
    pub fn targets(&self, weights: &ConvexWeights, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers
            .iter()
            .map(|&(bind, v)| {
                let (linear, translation) = blend(weights, governors, v);
                linear * bind + translation
            })
            .collect()
    }
}

/// `Σ w_k G_k` over the influences of skin vertex `v`.
fn blend(weights: &ConvexWeights, governors: &[Affine], v: usize) -> (Mat3, Vec3) {
    let mut linear = Mat3::ZERO;
    let mut translation = Vec3::ZERO;
    for (g, w) in weights.iter_row(v) {
        let a = governors[g as usize];
        linear += a.linear * w;
        translation += a.translation * w;
    }
    (linear, translation)
}
