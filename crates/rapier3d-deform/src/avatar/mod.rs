//! Per-bone oriented boxes of a skinned avatar for cloth–skin contacts (Pelechano 2002), kept conservative by O(m) bounds.
//!
//! The seed (Pelechano, *Real-time collision detection between cloth and skinned avatars using
//! OBB*, 2002) fits one PCA box per bone to the skin the bone carries (§3.2.1), cuts it into
//! slabs along its main axis (§3.2.2, 15 slabs), carries it with the bone's transform in O(1)
//! per bone (§3.2.3) and tests a cloth vertex against a box in the box's frame — one transform
//! and three comparisons (§3.4.1) — then against the triangles of the slab it projects into
//! (§3.4.2). It enlarges each box by a fixed tolerance instead of re-fitting it, which misses
//! skin that slides relative to its bone.
//!
//! [`AvatarBoxes`] keeps the seed's structure and makes it conservative: each box and slab is
//! re-bounded, in its bone's moving frame, by limited convex combinations of the skin matrices
//! that touch it (Steinemann & Otaduy, O(m) per slab, [`crate::bounds::PatchBounds`]), lazily,
//! the first time a query reaches it in a frame. [`AvatarQuery`] answers the per-frame queries:
//! candidate triangles of a point, the closest posed triangle within a radius, and the seed's
//! fixed-tolerance misses for comparison.
//!
//! ```text
//! build:  triangles → bones (largest weight per vertex) → PCA box per bone → slabs on the main axis
//! frame:  skin matrices G → box frames M_b = F_b⁻¹ G_b⁻¹ (O(bones))
//! query:  point → per box: M_b p in box (enlarged by the radius)? → slabs hit → their triangles
//!         (first use of a box this frame: bound it and its slabs from M_b G_k, O(m) each)
//! ```

mod build;
mod query;

pub use build::{AvatarBoxes, AvatarOptions, SlabStatistics};
pub use query::{AvatarQuery, AvatarQueryStats, SkinContact};
