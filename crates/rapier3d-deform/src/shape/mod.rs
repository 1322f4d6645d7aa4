//! The parry shapes that Rapier colliders use for deformable bodies.
//!
//! Each is a parry [`Shape`](rapier3d::parry::shape::Shape) with `ShapeType::Custom`; insert it
//! with `ColliderBuilder::new(SharedShape::new(shape))` and update it between steps through
//! `collider.shape_mut().as_shape_mut::<T>()`.

mod deformable_mesh_self_check;
mod deformable_mesh_shape;
mod deformable_mesh_weights;
mod sphere_proxy_shape;

pub use deformable_mesh_self_check::SelfCheckScratch;
pub use deformable_mesh_shape::{DeformableMeshShape, LazyRefitStats};
pub use sphere_proxy_shape::SphereProxyShape;

use rapier3d::math::Real;
use rapier3d::parry::mass_properties::MassProperties;

/// Unit-density mass properties scaled to `density` (negative densities count as zero): both
/// shapes keep explicit rest-pose mass properties and scale them on request.
///
/// # Performance
/// O(1).
fn scaled_unit_mass(unit: &MassProperties, density: Real) -> MassProperties {
    let d = density.max(0.0);
    MassProperties::with_principal_inertia_frame(
        unit.local_com,
        unit.mass() * d,
        unit.principal_inertia() * d,
        unit.principal_inertia_local_frame,
    )
}
