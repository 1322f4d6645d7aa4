//! The integration tests, one module per area (`tests/<area>.rs` with its files in `tests/<area>/`), in one binary: `cargo test --release --test integration -- <area>::` runs one area.

mod common;

mod avatar;
mod bn_tree;
mod bounds;
mod character;
mod cloth;
mod errors;
mod io;
mod layers;
mod limit_surface;
mod mesh_collider;
mod plasticity;
mod proxy;
mod scenes;
