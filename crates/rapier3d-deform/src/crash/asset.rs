//! What a deformable body is made of, shared by every body of one kind: the plastic cage and its model, the sphere proxy packed on the cage, and meshes bound to the cage (render meshes, triangle-mesh colliders).

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;
use crate::plasticity::{PlasticModel, PlasticState, PlasticityParams};
use crate::proxy::{MeshDistance, SphereProxy};

/// A mesh whose vertices follow the plastic cage: each vertex is bound to the cage triangle
/// nearest to it (barycentric coordinates of the closest point) and takes the example weights
/// interpolated from that triangle's three vertices, `β_i = Σ_k λ_ik β_(c_ik)`, which stay on the
/// simplex (a convex combination of points of the simplex). Its position is then the linear
/// blend of its own example poses, `p_i = Σ_e β_ie x_ie`.
///
/// This is how a fine render mesh (or a triangle-mesh collider) follows a coarser plastic cage,
/// as Jones et al.'s render meshes follow their tetrahedral physics mesh.
///
/// # Performance
/// Memory O(V · E); [`BoundMesh::positions_into`] is O(V · E).
#[derive(Clone, Debug)]
pub struct BoundMesh {
    mesh: TriangleMesh,
    examples: usize,
    columns: Vec<Vec3>,
    cage_vertices: Vec<[u32; 3]>,
    barycentric: Vec<[f32; 3]>,
}

impl BoundMesh {
    /// Binds `mesh` (rest pose; `examples[e]` its pose in example `e`, example 0 the rest) to
    /// the rest pose of `cage`.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no example, [`DeformError::ExampleVertexCount`],
    /// [`DeformError::NonFiniteExamplePosition`]; what [`MeshDistance::new`] rejects.
    ///
    /// # Performance
    /// O(V log T_cage + V · E).
    pub fn new(mesh: TriangleMesh, examples: &[Vec<Vec3>], cage: &TriangleMesh) -> Result<Self> {
        mesh.check_examples(examples)?;
        let n = mesh.vertex_count();
        let tree = MeshDistance::new(cage, cage.positions())?;
        let mut cage_vertices = Vec::with_capacity(n);
        let mut barycentric = Vec::with_capacity(n);
        for p in mesh.positions() {
            let hit = tree.closest_point(*p);
            let tri = cage.triangles()[hit.triangle as usize];
            let [a, b, c] = tri.map(|i| cage.positions()[i as usize]);
            cage_vertices.push(tri);
            barycentric.push(barycentric_coordinates(hit.point, a, b, c));
        }
        let e = examples.len();
        let mut columns = Vec::with_capacity(n * e);
        for v in 0..n {
            columns.extend(examples.iter().map(|pose| pose[v]));
        }
        Ok(Self {
            mesh,
            examples: e,
            columns,
            cage_vertices,
            barycentric,
        })
    }

    /// The rest mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// Number of examples.
    pub fn example_count(&self) -> usize {
        self.examples
    }

    /// The cage vertices each vertex reads, with their barycentric weights.
    pub fn binding(&self, v: usize) -> Option<([u32; 3], [f32; 3])> {
        Some((*self.cage_vertices.get(v)?, self.barycentric[v]))
    }

    /// Every cage vertex some vertex reads (sorted, unique): make them eager in a state that
    /// drives this mesh every step.
    pub fn cage_vertices(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self.cage_vertices.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Vertex `v` in example `e`.
    pub fn example_position(&self, e: usize, v: usize) -> Option<Vec3> {
        (e < self.examples)
            .then(|| self.columns.get(v * self.examples + e).copied())
            .flatten()
    }

    /// The current positions (body frame) for the cage weights in `state` (the vertices read
    /// are caught up first).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the state's example count differs;
    /// [`DeformError::IndexOutOfRange`] when it has fewer vertices than the cage.
    ///
    /// # Performance
    /// O(V · E) plus the lazy catch-up of the cage vertices read.
    pub fn positions_into(&self, state: &mut PlasticState, out: &mut Vec<Vec3>) -> Result<()> {
        let e = self.examples;
        if state.example_count() != e {
            return Err(DeformError::LengthMismatch {
                what: "examples of the plastic state",
                expected: e,
                actual: state.example_count(),
            });
        }
        out.clear();
        let mut beta = [0.0f32; 32];
        let mut heap = Vec::new();
        let beta: &mut [f32] = if e <= beta.len() {
            &mut beta[..e]
        } else {
            heap.resize(e, 0.0);
            &mut heap
        };
        for v in 0..self.mesh.vertex_count() {
            beta.fill(0.0);
            for (c, l) in self.cage_vertices[v].iter().zip(self.barycentric[v]) {
                for (b, w) in beta.iter_mut().zip(state.weights(*c)?) {
                    *b += l * w;
                }
            }
            out.push(
                self.columns[v * e..(v + 1) * e]
                    .iter()
                    .zip(beta.iter())
                    .map(|(x, b)| *x * *b)
                    .sum(),
            );
        }
        Ok(())
    }
}

/// Barycentric coordinates of `p` (a point of triangle `abc`), clamped to `≥ 0` and summing to
/// one; a degenerate triangle gives the nearest corner's.
pub(super) fn barycentric_coordinates(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> [f32; 3] {
    let (v0, v1, v2) = (b - a, c - a, p - a);
    let (d00, d01, d11) = (v0.dot(v0), v0.dot(v1), v1.dot(v1));
    let (d20, d21) = (v2.dot(v0), v2.dot(v1));
    let denom = d00 * d11 - d01 * d01;
    if denom.abs() <= 1e-20 || !denom.is_finite() {
        let d = [(p - a).length(), (p - b).length(), (p - c).length()];
        let k = (0..3).min_by(|&i, &j| d[i].total_cmp(&d[j])).unwrap_or(0);
        let mut out = [0.0; 3];
        out[k] = 1.0;
        return out;
    }
    let v = ((d11 * d20 - d01 * d21) / denom).max(0.0);
    let w = ((d00 * d21 - d01 * d20) / denom).max(0.0);
    let u = (1.0 - v - w).max(0.0);
    let s = u + v + w;
    [u / s, v / s, w / s]
}

/// Everything a body of one kind is made of: the plastic cage (a closed mesh whose vertices
/// carry the example weights) with its [`PlasticModel`], the [`SphereProxy`] packed on the cage
/// (its spheres are driven by cage vertices), and optionally a finer render mesh bound to the
/// cage. Share it between bodies with an `Arc`.
///
/// # Performance
/// Memory O((V_cage + V_render) · E + S · E).
#[derive(Clone, Debug)]
pub struct PlasticAsset {
    cage: TriangleMesh,
    model: PlasticModel,
    proxy: SphereProxy,
    render: Option<BoundMesh>,
    /// Per sphere, per example `(centre, radius)`, sphere-major (the run-time blend's order).
    sphere_table: Vec<(Vec3, f32)>,
    /// CSR: the spheres driven by each cage vertex.
    sphere_offsets: Vec<u32>,
    sphere_ids: Vec<u32>,
    /// Per cage vertex: how far (centre plus radius) a unit `L1` change of its weights can move
    /// one of its spheres at most.
    vertex_reach: Vec<f32>,
}

impl PlasticAsset {
    /// The asset from its cage (rest mesh), the cage's example poses (`cage_examples[e]`,
    /// example 0 the rest pose), a proxy packed on that cage with the same examples, and the
    /// plasticity parameters.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the proxy's rest vertex count or example count
    /// differ from the cage's; what [`PlasticModel::from_examples`] and
    /// [`SphereProxy::validate`] reject.
    ///
    /// # Performance
    /// O(V · E + T log T).
    pub fn new(
        cage: TriangleMesh,
        cage_examples: &[Vec<Vec3>],
        proxy: SphereProxy,
        params: PlasticityParams,
    ) -> Result<Self> {
        proxy.validate()?;
        if proxy.vertex_count() != cage.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "proxy rest vertices (the proxy must be packed on the cage)",
                expected: cage.vertex_count(),
                actual: proxy.vertex_count(),
            });
        }
        if proxy.example_count() != cage_examples.len() {
            return Err(DeformError::LengthMismatch {
                what: "proxy examples",
                expected: cage_examples.len(),
                actual: proxy.example_count(),
            });
        }
        let model = PlasticModel::from_examples(&cage, cage_examples, params)?;
        let (n, e, count) = (
            cage.vertex_count(),
            proxy.example_count(),
            proxy.sphere_count(),
        );
        let mut sphere_table = Vec::with_capacity(count * e);
        let mut sphere_reach = Vec::with_capacity(count);
        for sphere in 0..count {
            let (c0, r0) = (
                proxy.example_centres(0)[sphere],
                proxy.example_radii(0)[sphere],
            );
            let mut reach = 0.0f32;
            for k in 0..e {
                let (c, r) = (
                    proxy.example_centres(k)[sphere],
                    proxy.example_radii(k)[sphere],
                );
                sphere_table.push((c, r));
                reach = reach.max((c - c0).length() + (r - r0).abs());
            }
            sphere_reach.push(reach);
        }
        let mut sphere_offsets = vec![0u32; n + 1];
        for &v in proxy.sphere_vertices() {
            sphere_offsets[v as usize + 1] += 1;
        }
        for v in 0..n {
            sphere_offsets[v + 1] += sphere_offsets[v];
        }
        let mut fill = sphere_offsets.clone();
        let mut sphere_ids = vec![0u32; count];
        let mut vertex_reach = vec![0.0f32; n];
        for (sphere, &v) in proxy.sphere_vertices().iter().enumerate() {
            sphere_ids[fill[v as usize] as usize] = sphere as u32;
            fill[v as usize] += 1;
            vertex_reach[v as usize] = vertex_reach[v as usize].max(sphere_reach[sphere]);
        }
        Ok(Self {
            cage,
            model,
            proxy,
            render: None,
            sphere_table,
            sphere_offsets,
            sphere_ids,
            vertex_reach,
        })
    }

    /// The spheres driven by cage vertex `v` (empty out of range).
    pub fn spheres_of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.sphere_offsets.get(v), self.sphere_offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.sphere_ids[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Sphere `s` in every example, `(centre, radius)` (empty out of range).
    pub fn sphere_examples(&self, s: u32) -> &[(Vec3, f32)] {
        let e = self.proxy.example_count();
        self.sphere_table
            .get(s as usize * e..(s as usize + 1) * e)
            .unwrap_or(&[])
    }

    /// How far (centre move plus radius change) a change of cage vertex `v`'s weights of `L1`
    /// size 1 can move one of its spheres at most: `max_s max_e |c_es − c_0s| + |r_es − r_0s|`
    /// (a zero-sum change `δ` moves `Σ_e δ_e c_es = Σ_e δ_e (c_es − c_0s)`). `0` for a vertex
    /// that drives no sphere.
    pub fn vertex_reach(&self, v: u32) -> f32 {
        self.vertex_reach.get(v as usize).copied().unwrap_or(0.0)
    }

    /// Adds a render mesh (rest pose plus its example poses), bound to the cage.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when its example count differs from the cage's; what
    /// [`BoundMesh::new`] rejects.
    ///
    /// # Performance
    /// O(V log T_cage + V · E).
    pub fn with_render_mesh(mut self, mesh: TriangleMesh, examples: &[Vec<Vec3>]) -> Result<Self> {
        if examples.len() != self.model.example_count() {
            return Err(DeformError::LengthMismatch {
                what: "render mesh examples",
                expected: self.model.example_count(),
                actual: examples.len(),
            });
        }
        self.render = Some(BoundMesh::new(mesh, examples, &self.cage)?);
        Ok(self)
    }

    /// The plastic cage (rest pose).
    pub fn cage(&self) -> &TriangleMesh {
        &self.cage
    }

    /// The plasticity model.
    pub fn model(&self) -> &PlasticModel {
        &self.model
    }

    /// The sphere proxy.
    pub fn proxy(&self) -> &SphereProxy {
        &self.proxy
    }

    /// The render mesh, if any.
    pub fn render(&self) -> Option<&BoundMesh> {
        self.render.as_ref()
    }

    /// Binds another mesh with the same examples to the cage (e.g. a triangle-mesh collider).
    ///
    /// # Errors
    /// As [`PlasticAsset::with_render_mesh`].
    ///
    /// # Performance
    /// O(V log T_cage + V · E).
    pub fn bind(&self, mesh: TriangleMesh, examples: &[Vec<Vec3>]) -> Result<BoundMesh> {
        if examples.len() != self.model.example_count() {
            return Err(DeformError::LengthMismatch {
                what: "bound mesh examples",
                expected: self.model.example_count(),
                actual: examples.len(),
            });
        }
        BoundMesh::new(mesh, examples, &self.cage)
    }
}

impl PlasticAsset {
    /// The whole offline preparation of a dentable body in one call: packs a sphere proxy on
    /// `mesh` (closed, consistently oriented) with `proxy_options`, fits it to every example, and
    /// builds the plasticity model. `examples[e]` are the positions of example `e` over the mesh's
    /// vertices; example 0 is the undamaged pose.
    ///
    /// # Errors
    /// What [`SphereProxy::build`] rejects (open or self-intersecting mesh, examples of the
    /// wrong size, non-finite positions, bad options) and what [`Self::new`] rejects.
    ///
    /// # Performance
    /// Seconds for a car (the distance grid and packing dominate): precompute offline and ship
    /// the result (with `serde-serialize`, [`SphereProxy`] serializes).
    pub fn from_examples(
        mesh: TriangleMesh,
        examples: &[Vec<Vec3>],
        proxy_options: &crate::proxy::ProxyOptions,
        params: PlasticityParams,
    ) -> Result<Self> {
        let (proxy, _report) = SphereProxy::build(&mesh, examples, proxy_options)?;
        Self::new(mesh, examples, proxy, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barycentric_coordinates_reproduce_the_point() {
        let (a, b, c) = (
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 1.0),
        );
        let l = barycentric_coordinates(0.2 * a + 0.5 * b + 0.3 * c, a, b, c);
        assert!(
            (l[0] - 0.2).abs() < 1e-5 && (l[1] - 0.5).abs() < 1e-5 && (l[2] - 0.3).abs() < 1e-5
        );
        let degenerate = barycentric_coordinates(b, a, b, b * 2.0);
        assert_eq!(degenerate.iter().sum::<f32>(), 1.0);
    }
}
