//! The parry shapes that Rapier colliders use for deformable bodies.
//!
//! Each is a parry [`Shape`](rapier3d::parry::shape::Shape) with `ShapeType::Custom`; insert it
//! with `ColliderBuilder::new(SharedShape::new(shape))` and update it between steps through
//! `collider.shape_mut().as_shape_mut::<T>()`.

mod deformable_mesh_shape;
mod sphere_proxy_shape;

pub use deformable_mesh_shape::{DeformableMeshShape, LazyRefitStats};
pub use sphere_proxy_shape::SphereProxyShape;
