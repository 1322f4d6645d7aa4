//! Loading glTF and OBJ assets (`rapier3d_deform::io`): skinning and morph targets against independent evaluations, whole scenes and their load reports, glTF features, bounds on loaded characters and typed errors for bad input.

#[path = "io/gltf_bounds.rs"]
mod gltf_bounds;
#[path = "io/gltf_errors.rs"]
mod gltf_errors;
#[path = "io/gltf_features.rs"]
mod gltf_features;
#[path = "io/gltf_morph.rs"]
mod gltf_morph;
#[path = "io/gltf_reference.rs"]
pub(crate) mod gltf_reference;
#[path = "io/gltf_scene.rs"]
mod gltf_scene;
#[path = "io/gltf_skinning.rs"]
mod gltf_skinning;
#[path = "io/support.rs"]
pub(crate) mod io_support;
#[path = "io/obj.rs"]
mod obj;
