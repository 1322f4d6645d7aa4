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
//! [`AvatarBoxes`] keeps the seed's structure — a PCA box per bone (§3.2.1), slabs along its
//! main axis (§3.2.2, cut into angular sectors here), carried by the bone (§3.2.3), the point
//! tested in the box's frame (§3.4.1) — and makes it conservative without re-bounding the skin
//! each frame. In the moving frame `M_b = F_b G_b⁻¹` of bone `b` (its rest box frame `F_b`
//! carried by its skin matrix `G_b`) a skin vertex `Σ w_k G_k p₀` sits at
//! `F_b p₀ + Σ_{k≠b} w_k M_b (G_k − G_b) p₀`: its rest box coordinate, known at build time,
//! plus a sliding offset carried only by the weights of the other governors. Each box's cells
//! (the slab sectors) are the leaves of a small hierarchy built once in box coordinates; a node
//! holds the rest box of its vertices and the range of each other governor's weight over them,
//! and is bounded in a frame by that rest box plus the offset's range (Steinemann & Otaduy's
//! limited convex combinations, O(m) over the governors that touch the node; O(1) where the skin
//! follows the bone alone). A frame costs O(m) per box; a node is bounded, and a cell's
//! vertices posed, only the first time a query reaches it. [`AvatarQuery`] answers the
//! per-frame queries: candidate triangles of a point, the closest posed triangle within a
//! radius, and the seed's fixed-tolerance misses for comparison.
//!
//! ```text
//! build:  triangles → bones (largest weight per vertex) → PCA box per bone → slabs on the main
//!         axis, cut into sectors → per box a hierarchy over its cells: rest boxes (box
//!         coordinates), per-governor weight ranges
//! frame:  skin matrices G → per box: frame M_b = F_b G_b⁻¹, sliding maps M_b (G_k − G_b),
//!         world box of its skin (O(m))
//! query:  point → per box: in its world box? → M_b p → hierarchy: node rest box + sliding range
//!         (first use this frame) within the radius? → cells: posed box (first use) within the
//!         radius? → their triangles
//! ```

mod build;
mod query;

pub use build::{AvatarBoxes, AvatarOptions, SlabStatistics};
pub use query::{AvatarQuery, AvatarQueryStats, PosedBox, SkinContact};
