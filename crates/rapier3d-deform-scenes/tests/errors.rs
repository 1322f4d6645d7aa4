//! Typed errors for bad input to the foundation (weights, transforms, meshes) and the regression cases found by probing the public API.

#[path = "errors/foundation.rs"]
mod foundation;

#[path = "errors/regressions.rs"]
mod regressions;

#[path = "errors/api_fuzz.rs"]
mod api_fuzz;
