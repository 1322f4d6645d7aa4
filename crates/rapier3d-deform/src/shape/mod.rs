//! The parry shapes that Rapier colliders use for deformable bodies.
//!
//! Each is a parry [`Shape`](rapier3d::parry::shape::Shape) with `ShapeType::Custom`; insert it
//! with `ColliderBuilder::new(SharedShape::new(shape))` and update it between steps through
//! `collider.shape_mut().as_shape_mut::<T>()`.

/// The `Shape` methods both shapes implement alike: a boxed clone, explicit unit-density mass
/// properties scaled to the density, `ShapeType::Custom`, and the CCD thickness each keeps in
/// its `ccd_thickness` field (recomputed on every update).
macro_rules! custom_shape_methods {
    () => {
        fn clone_dyn(&self) -> Box<dyn ::rapier3d::parry::shape::Shape> {
            Box::new(self.clone())
        }

        fn mass_properties(
            &self,
            density: ::rapier3d::math::Real,
        ) -> ::rapier3d::parry::mass_properties::MassProperties {
            $crate::shape::scaled_unit_mass(&self.unit_mass, density)
        }

        fn shape_type(&self) -> ::rapier3d::parry::shape::ShapeType {
            ::rapier3d::parry::shape::ShapeType::Custom
        }

        fn as_typed_shape(&self) -> ::rapier3d::parry::shape::TypedShape<'_> {
            ::rapier3d::parry::shape::TypedShape::Custom(self)
        }

        fn ccd_thickness(&self) -> ::rapier3d::math::Real {
            self.ccd_thickness
        }
    };
}

mod deformable_mesh_self_check;
mod deformable_mesh_shape;
mod deformable_mesh_sweep;
mod deformable_mesh_weights;
mod deformable_mesh_whole_refit;
mod leaf_blocks;
mod node_stack;
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

/// A closed tube along x for the shapes' unit tests: rings of `nr` vertices of `radius` at
/// `x = len · i / nx` (`i = 0..=nx`), capped by apexes at `(x0, 0, 0)` and `(x1, 0, 0)`, two
/// outward-wound triangles per quad. Returns the positions and the triangles.
#[cfg(test)]
pub(crate) fn capped_tube(
    nx: usize,
    nr: usize,
    len: f32,
    radius: f32,
    (x0, x1): (f32, f32),
) -> (Vec<crate::math::Vec3>, Vec<[u32; 3]>) {
    use crate::math::Vec3;
    let mut p = Vec::new();
    for i in 0..=nx {
        let x = len * i as f32 / nx as f32;
        for j in 0..nr {
            let a = std::f32::consts::TAU * j as f32 / nr as f32;
            p.push(Vec3::new(x, radius * a.cos(), radius * a.sin()));
        }
    }
    let (c0, c1) = (p.len() as u32, p.len() as u32 + 1);
    p.push(Vec3::new(x0, 0.0, 0.0));
    p.push(Vec3::new(x1, 0.0, 0.0));
    let mut t = Vec::new();
    let id = |i: usize, j: usize| (i * nr + j % nr) as u32;
    for i in 0..nx {
        for j in 0..nr {
            let (a, b, c, d) = (id(i, j), id(i, j + 1), id(i + 1, j), id(i + 1, j + 1));
            t.push([a, b, c]);
            t.push([b, d, c]);
        }
    }
    for j in 0..nr {
        t.push([c0, id(0, j + 1), id(0, j)]);
        t.push([c1, id(nx, j), id(nx, j + 1)]);
    }
    (p, t)
}
