//! Sphere-union collision proxies for example-based deformable bodies (Jones, Levine, Shinar & Bargteil, MiG 2017).
//!
//! Offline, a closed rest mesh is turned into a union of overlapping spheres, and each sphere is
//! refitted to every example pose; at run time the spheres are blended with the body's example
//! weights, in O(spheres × examples), and handed to Rapier as a
//! [`crate::shape::SphereProxyShape`]. One phase per file:
//!
//! | file | phase |
//! |---|---|
//! | [`sdf_grid`] | signed distance of the closed rest mesh (closest points + generalized winding numbers), sampled on a grid |
//! | [`sphere_pack`] | greedy packing: deepest point first, radius = min(max radius, depth) |
//! | [`example_fit`] | spheres carried into every example by mean value coordinates, radii refitted |
//! | `precomputed` | [`SphereProxy`]: the pipeline and the serializable result |
//! | `blend` | run-time blend with per-vertex example weights |
//! | [`metrics`] | vertex-to-proxy error and volume ratio |
//!
//! ```
//! use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
//! # use rapier3d_deform::{mesh::TriangleMesh, math::Vec3};
//! # let p: Vec<Vec3> = (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
//! # let t = vec![[0,2,3],[0,3,1],[4,5,7],[4,7,6],[0,1,5],[0,5,4],[2,6,7],[2,7,3],[0,4,6],[0,6,2],[1,3,7],[1,7,5]];
//! # let mesh = TriangleMesh::new(p, t).unwrap();
//! // A closed mesh and its example poses (here: rest and a stretched copy).
//! let stretched: Vec<Vec3> = mesh.positions().iter().map(|p| *p * Vec3::new(1.5, 1.0, 1.0)).collect();
//! let examples = vec![mesh.positions().to_vec(), stretched];
//! let options = ProxyOptions {
//!     sdf: SdfOptions { resolution: 16, ..SdfOptions::default() },
//!     pack: PackOptions { min_radius: 0.1, max_radius: 0.3, max_spheres: 64 },
//! };
//! let (proxy, report) = SphereProxy::build(&mesh, &examples, &options)?;
//! assert_eq!(report.clamped_radii, vec![0, 0]);
//! let (mut centres, mut radii) = (Vec::new(), Vec::new());
//! proxy.blend_global_into(&[0.5, 0.5], &mut centres, &mut radii)?;
//! assert_eq!(centres.len(), proxy.sphere_count());
//! # Ok::<(), rapier3d_deform::DeformError>(())
//! ```

mod blend;
pub mod example_fit;
pub mod metrics;
mod precomputed;
pub mod sdf_grid;
pub mod sphere_pack;

pub use example_fit::{ExampleSpheres, fit_examples, mean_value_coordinates};
pub use metrics::{ErrorStats, ProxyFitMetrics, evaluate_proxy};
pub(crate) use precomputed::check_spheres;
pub use precomputed::{BuildReport, ProxyOptions, SphereProxy};
pub use sdf_grid::{MeshDistance, SdfGrid, SdfOptions};
pub use sphere_pack::{PackOptions, Sphere, pack_spheres};

#[cfg(test)]
pub(crate) mod tests_support {
    //! Small meshes and proxies shared by the unit tests of this module.

    use super::*;
    use crate::math::Vec3;
    use crate::mesh::TriangleMesh;

    /// An axis-aligned box centred at the origin, 12 outward-oriented triangles.
    pub fn box_mesh(half: Vec3) -> TriangleMesh {
        let p: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -half.x } else { half.x },
                    if i & 2 == 0 { -half.y } else { half.y },
                    if i & 4 == 0 { -half.z } else { half.z },
                )
            })
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let tris = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        TriangleMesh::new(p, tris).unwrap()
    }

    /// A UV sphere with `stacks` latitude bands and `slices` longitude segments.
    pub fn uv_sphere(radius: f32, stacks: u32, slices: u32) -> TriangleMesh {
        let mut p = vec![Vec3::new(0.0, 0.0, -radius)];
        for i in 1..stacks {
            let phi = std::f32::consts::PI * i as f32 / stacks as f32;
            for j in 0..slices {
                let th = std::f32::consts::TAU * j as f32 / slices as f32;
                p.push(radius * Vec3::new(phi.sin() * th.cos(), phi.sin() * th.sin(), -phi.cos()));
            }
        }
        p.push(Vec3::new(0.0, 0.0, radius));
        let top = p.len() as u32 - 1;
        let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
        let mut t = Vec::new();
        for j in 0..slices {
            t.push([0, ring(1, j + 1), ring(1, j)]);
            t.push([top, ring(stacks - 1, j), ring(stacks - 1, j + 1)]);
        }
        for i in 1..stacks - 1 {
            for j in 0..slices {
                let (a, b, c, d) = (
                    ring(i, j),
                    ring(i, j + 1),
                    ring(i + 1, j),
                    ring(i + 1, j + 1),
                );
                t.push([a, b, d]);
                t.push([a, d, c]);
            }
        }
        TriangleMesh::new(p, t).unwrap()
    }

    /// Uniform in `[lo, hi)` from a SplitMix64 state.
    pub fn uniform(state: &mut u64, lo: f32, hi: f32) -> f32 {
        let mut rng = metrics::SplitMix64(*state);
        let u = rng.unit();
        *state = rng.0;
        lo + (hi - lo) * u
    }

    /// Rest, stretched along x, and sheared poses of a box.
    pub fn small_examples(mesh: &TriangleMesh) -> Vec<Vec<Vec3>> {
        vec![
            mesh.positions().to_vec(),
            mesh.positions()
                .iter()
                .map(|p| Vec3::new(1.3 * p.x, p.y, p.z))
                .collect(),
            mesh.positions()
                .iter()
                .map(|p| Vec3::new(p.x + 0.3 * p.z, p.y, 0.8 * p.z))
                .collect(),
        ]
    }

    /// A proxy of a 2 × 1 × 0.8 box with three examples.
    pub fn small_proxy() -> (SphereProxy, TriangleMesh) {
        let mesh = box_mesh(Vec3::new(1.0, 0.5, 0.4));
        let options = ProxyOptions {
            sdf: SdfOptions {
                resolution: 24,
                ..SdfOptions::default()
            },
            pack: PackOptions {
                min_radius: 0.12,
                max_radius: 0.3,
                max_spheres: 200,
            },
        };
        let (proxy, _) = SphereProxy::build(&mesh, &small_examples(&mesh), &options).unwrap();
        (proxy, mesh)
    }
}
