//! The plasticity model of one asset (shared by every body made from it): contacts in, per-vertex weight changes out, phases 1–4 in order.

use super::accumulate::PlasticState;
use super::falloff::{FalloffWorkspace, GeodesicGraph, VertexGrid, cubic_falloff};
use super::impulse::{ContactSample, yielded_displacement};
use super::params::PlasticityParams;
use super::projection::project_onto_examples;
use crate::deformation::ExampleBlend;
use crate::error::{DeformError, Result};
use crate::governor::GovernedDeformation;
use crate::limits::MAX_COORDINATE;
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// A dent made by the contacts of one step at one vertex.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dent {
    /// The vertex that received the contacts (the falloff's source).
    pub vertex: u32,
    /// Its rest position (body frame).
    pub point: Vec3,
    /// The largest yielded displacement `|d| − yield` among those contacts.
    pub displacement: f32,
    /// Size of the weight change deposited at the vertex, `|δβ|` (before the falloff and the
    /// rate limit).
    pub change: f32,
}

/// Reusable buffers of [`PlasticModel::apply_contacts`].
///
/// # Performance
/// Memory O(V) after the first use.
#[derive(Clone, Debug, Default)]
pub struct PlasticWorkspace {
    falloff: FalloffWorkspace,
    /// `(vertex, largest yielded |d|)` per source, with its summed change in `changes`.
    sources: Vec<(u32, f32)>,
    changes: Vec<f32>,
    projected: Vec<f32>,
    scaled: Vec<f32>,
}

impl PlasticWorkspace {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The example-based plasticity model of one asset (Jones, Thuerey, Shinar & Bargteil 2016):
/// its plastic mesh (the "cage": rest positions and edge graph), each vertex's position in every
/// example (the Jacobian columns of the linear blend), a nearest-vertex grid and the parameters.
/// Bodies made from the asset share it; each keeps its own [`PlasticState`].
///
/// # Performance
/// Memory O(V · E); see [`PlasticModel::apply_contacts`].
#[derive(Clone, Debug)]
pub struct PlasticModel {
    params: PlasticityParams,
    examples: usize,
    columns: Vec<Vec3>,
    graph: GeodesicGraph,
    grid: VertexGrid,
}

impl PlasticModel {
    /// The model of an example blend whose vertices are those of `mesh` (its triangles give the
    /// geodesic graph): the Jacobian columns come from
    /// [`ExampleBlend::example_jacobian_into`], taken once (they do not depend on the weights).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the blend and the mesh differ in vertex count; what
    /// [`PlasticityParams::validate`] and [`GeodesicGraph::from_mesh`] reject.
    ///
    /// # Performance
    /// O(V · E · influences + T log T).
    pub fn from_blend(
        mesh: &TriangleMesh,
        blend: &ExampleBlend,
        params: PlasticityParams,
    ) -> Result<Self> {
        let n = blend.rest_positions().len();
        if n != mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "example blend vertices (one per mesh vertex)",
                expected: mesh.vertex_count(),
                actual: n,
            });
        }
        let e = blend.example_count();
        let mut columns = Vec::with_capacity(n * e);
        let mut column = Vec::with_capacity(e);
        for v in 0..n {
            blend.example_jacobian_into(v, &mut column)?;
            columns.extend_from_slice(&column);
        }
        Self::from_columns(mesh, e, columns, params)
    }

    /// The model from the example poses of `mesh` (`examples[e][v]`: vertex `v` in example `e`,
    /// example 0 the rest pose), i.e. the blend `p_v = Σ_e β_ve examples[e][v]`.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no example, [`DeformError::ExampleVertexCount`],
    /// [`DeformError::NonFiniteExamplePosition`]; what [`PlasticityParams::validate`] and
    /// [`GeodesicGraph::from_mesh`] reject.
    ///
    /// # Performance
    /// O(V · E + T log T).
    pub fn from_examples(
        mesh: &TriangleMesh,
        examples: &[Vec<Vec3>],
        params: PlasticityParams,
    ) -> Result<Self> {
        mesh.check_examples(examples)?;
        let n = mesh.vertex_count();
        let e = examples.len();
        let mut columns = Vec::with_capacity(n * e);
        for v in 0..n {
            columns.extend(examples.iter().map(|pose| pose[v]));
        }
        Self::from_columns(mesh, e, columns, params)
    }

    fn from_columns(
        mesh: &TriangleMesh,
        examples: usize,
        columns: Vec<Vec3>,
        params: PlasticityParams,
    ) -> Result<Self> {
        params.validate()?;
        if !params.example_scale.is_empty() && params.example_scale.len() != examples {
            return Err(DeformError::LengthMismatch {
                what: "per-example scales (one per example)",
                expected: examples,
                actual: params.example_scale.len(),
            });
        }
        let graph = GeodesicGraph::from_mesh(mesh)?;
        let grid = VertexGrid::new(mesh.positions())?;
        Ok(Self {
            params,
            examples,
            columns,
            graph,
            grid,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &PlasticityParams {
        &self.params
    }

    /// Number of vertices of the plastic mesh.
    pub fn vertex_count(&self) -> usize {
        self.graph.vertex_count()
    }

    /// Number of examples.
    pub fn example_count(&self) -> usize {
        self.examples
    }

    /// Rest positions of the plastic mesh.
    pub fn rest_positions(&self) -> &[Vec3] {
        self.grid.positions()
    }

    /// The edge graph used for geodesic distances.
    pub fn graph(&self) -> &GeodesicGraph {
        &self.graph
    }

    /// Vertex `v`'s position in every example (the Jacobian columns `∂p_v/∂β_v`); empty out of
    /// range.
    pub fn columns(&self, v: u32) -> &[Vec3] {
        let e = self.examples;
        self.columns
            .get(v as usize * e..(v as usize + 1) * e)
            .unwrap_or(&[])
    }

    /// The rest vertex nearest to a rest-frame point (`None` for a non-finite point).
    ///
    /// # Performance
    /// O(1) grid cells for points near the surface.
    pub fn nearest_vertex(&self, point: Vec3) -> Option<u32> {
        self.grid.nearest(point)
    }

    /// A state with every vertex at rest, for a new body.
    ///
    /// # Errors
    /// Only for an inconsistent model (see [`PlasticState::new`]).
    ///
    /// # Performance
    /// O(V · E).
    pub fn new_state(&self) -> Result<PlasticState> {
        PlasticState::new(self.vertex_count(), self.examples, &self.params)
    }

    /// The position of vertex `v` for the weights `beta` (`Σ_e β_e x_ve`).
    ///
    /// # Performance
    /// O(E).
    #[inline]
    pub fn blend_vertex(&self, v: u32, beta: &[f32]) -> Vec3 {
        self.columns(v).iter().zip(beta).map(|(x, b)| *x * *b).sum()
    }

    /// Every vertex of the plastic mesh in its current pose (lazy vertices are caught up).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the state does not belong to this model.
    ///
    /// # Performance
    /// O(V · E) plus the lazy catch-up.
    pub fn positions_into(&self, state: &mut PlasticState, out: &mut Vec<Vec3>) -> Result<()> {
        self.check_state(state)?;
        state.catch_up_all();
        out.clear();
        let e = self.examples;
        out.extend(
            state
                .all_weights()
                .chunks_exact(e)
                .enumerate()
                .map(|(v, beta)| self.blend_vertex(v as u32, beta)),
        );
        Ok(())
    }

    fn check_state(&self, state: &PlasticState) -> Result<()> {
        if state.vertex_count() != self.vertex_count() || state.example_count() != self.examples {
            return Err(DeformError::LengthMismatch {
                what: "plastic state (vertices × examples of its model)",
                expected: self.vertex_count() * self.examples,
                actual: state.vertex_count() * state.example_count(),
            });
        }
        Ok(())
    }

    /// Phases 1–3 for the contacts of one step, then the deposit of phase 4 (the change starts
    /// to apply at the state's next [`PlasticState::advance`]).
    ///
    /// Each contact's displacement goes through the yield; the survivor is mapped to the
    /// nearest plastic vertex, projected onto that vertex's example weights, and the changes of
    /// contacts that share a vertex are summed (the falloff is linear in them, so this is exact).
    /// Each source then spreads its change over the vertices within the kernel radius, weighted
    /// by the cubic falloff of their geodesic distance. One [`Dent`] per source is appended to
    /// `dents`.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the state does not belong to this model;
    /// [`DeformError::InvalidContact`] naming the first contact whose point or displacement is
    /// not finite or beyond [`crate::limits::MAX_COORDINATE`] (checked before anything changes).
    ///
    /// # Performance
    /// O(C) for the contacts plus O(k log k + k E) per source vertex, k the vertices within the
    /// kernel radius; no allocation once the workspace has grown.
    pub fn apply_contacts(
        &self,
        state: &mut PlasticState,
        contacts: &[ContactSample],
        workspace: &mut PlasticWorkspace,
        dents: &mut Vec<Dent>,
    ) -> Result<()> {
        self.check_state(state)?;
        check_contacts(contacts)?;
        let e = self.examples;
        let p = &self.params;
        let ws = workspace;
        ws.sources.clear();
        ws.changes.clear();
        ws.projected.resize(e, 0.0);
        for c in contacts {
            let Some(d) = yielded_displacement(c.displacement, p.yield_displacement) else {
                continue;
            };
            let Some(v) = self.grid.nearest(c.point) else {
                continue;
            };
            if !project_onto_examples(
                self.columns(v),
                d,
                p.impulse_scale,
                p.min_example_motion,
                &mut ws.projected,
            ) {
                continue;
            }
            let slot = match ws.sources.iter().position(|(u, _)| *u == v) {
                Some(slot) => slot,
                None => {
                    ws.sources.push((v, 0.0));
                    ws.changes.extend(std::iter::repeat_n(0.0, e));
                    ws.sources.len() - 1
                }
            };
            ws.sources[slot].1 = ws.sources[slot].1.max(d.length());
            for (acc, x) in ws.changes[slot * e..(slot + 1) * e]
                .iter_mut()
                .zip(&ws.projected)
            {
                *acc += x;
            }
        }
        // Deterministic order of the sources, independent of the contact order.
        let mut order: Vec<usize> = (0..ws.sources.len()).collect();
        order.sort_unstable_by_key(|&i| ws.sources[i].0);
        ws.scaled.resize(e, 0.0);
        for i in order {
            let (source, displacement) = ws.sources[i];
            let change = &ws.changes[i * e..(i + 1) * e];
            dents.push(Dent {
                vertex: source,
                point: self.grid.positions()[source as usize],
                displacement,
                change: change.iter().map(|x| x * x).sum::<f32>().sqrt(),
            });
            let reached = self
                .graph
                .within(source, p.kernel_radius, &mut ws.falloff)?;
            for &(u, dist) in reached {
                let f = cubic_falloff(dist / p.kernel_radius);
                if f <= 0.0 {
                    continue;
                }
                for (s, x) in ws.scaled.iter_mut().zip(change) {
                    *s = f * x;
                }
                state.deposit(u, &ws.scaled)?;
            }
        }
        Ok(())
    }
}

/// Rejects contacts whose point or displacement is not finite or beyond
/// [`MAX_COORDINATE`] (a displacement that large cannot come from a finite impulse on a body of
/// positive mass in one step of a game; its length would overflow).
fn check_contacts(contacts: &[ContactSample]) -> Result<()> {
    for (contact, c) in contacts.iter().enumerate() {
        for (field, v) in [("point", c.point), ("displacement", c.displacement)] {
            let reason = if !v.is_finite() {
                "not finite"
            } else if v.abs().max_element() > MAX_COORDINATE {
                "beyond limits::MAX_COORDINATE"
            } else {
                continue;
            };
            return Err(DeformError::InvalidContact {
                contact,
                field,
                reason,
            });
        }
    }
    Ok(())
}
