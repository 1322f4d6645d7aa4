//! Conservative O(m) bounds: every node's AABB and normal cone contain the deformed geometry over random poses of each deformer (skinning, example blend, point-based animation, Loop subdivision).

#[path = "bounds/conservative_deformers.rs"]
mod conservative_deformers;
#[path = "bounds/conservative_skinning.rs"]
mod conservative_skinning;
#[path = "bounds/conservative_subdivision.rs"]
mod conservative_subdivision;
