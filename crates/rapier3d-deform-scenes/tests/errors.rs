//! Typed errors for bad input to the foundation (weights, transforms, meshes).

#[path = "errors/foundation.rs"]
mod foundation;
