//! No allocation after warm-up in the per-step work (BN-Tree queries, posing mesh colliders, self-collision updates, posing a glTF-rigged collider from clips, the crate's share of a crash step, the skinned route of a step under falling balls, where only growing manifold lists allocate), counted by this binary's own global allocator (per thread, see `counting_alloc`).

#[path = "no_alloc/bn_tree.rs"]
mod bn_tree;
mod common;
#[path = "no_alloc/counted_dispatcher.rs"]
mod counted_dispatcher;
#[path = "no_alloc/counting_alloc.rs"]
mod counting_alloc;
#[path = "no_alloc/pipeline.rs"]
mod pipeline;
#[path = "no_alloc/plastic.rs"]
mod plastic;
#[path = "no_alloc/skinned.rs"]
mod skinned;
