//! The types a game uses, in one import: `use rapier3d_deform::prelude::*;` (Rapier's own prelude included).

pub use rapier3d::prelude::*;

pub use crate::bn_tree::{BnTree, BnTreeOptions, CullingMode};
pub use crate::character::{
    ClipPose, ClipTime, SkinnedCollider, SkinnedColliderBuilder, SurfaceVelocityHooks,
};
pub use crate::crash::{
    DeformableCollider, DeformableDesc, DeformableHandle, DentEvent, PipelineParams, PlasticAsset,
    PlasticPipeline,
};
#[cfg(feature = "debug-render")]
pub use crate::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer, MeshWireframe};
pub use crate::deformation::{LinearBlendSkinning, MorphDeltas};
pub use crate::error::{DeformError, Result as DeformResult};
pub use crate::governor::{Affine, ConvexWeights, GovernedDeformation};
pub use crate::io::{
    GltfAsset, GltfContents, GltfScene, LoadOptions, NodeSelection, load_gltf, load_gltf_scene,
    load_obj,
};
pub use crate::mesh::TriangleMesh;
pub use crate::plasticity::PlasticityParams;
pub use crate::proxy::ProxyOptions;
pub use crate::query::DeformDispatcher;
pub use crate::shape::{DeformableMeshShape, SphereProxyShape};
