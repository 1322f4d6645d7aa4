//! BN-Tree self-collision: the tree's structure, and its pairs (with the HSC and BVH-refit baselines) equal to the brute-force oracle on synthetic poses and on the benchmark scenes; with `parallel`, the multi-threaded query equal to the one-thread one.

#[cfg(feature = "parallel")]
#[path = "bn_tree/parallel.rs"]
mod parallel;
#[path = "bn_tree/scenes.rs"]
mod scenes;
#[path = "bn_tree/self_collision.rs"]
mod self_collision;
#[path = "bn_tree/structure.rs"]
mod structure;
