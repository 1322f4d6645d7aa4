//! Phase 3: the spatial falloff, a C¹ cubic of the geodesic distance over the mesh's edge graph (Dijkstra with a cut-off).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// The authors' kernel `f(t) = 2t³ − 3t² + 1` on `[0, 1]`, 1 below 0 and 0 beyond 1: C¹, with
/// `f(0) = 1`, `f(1) = 0` and `f′(0) = f′(1) = 0`.
///
/// # Performance
/// O(1).
#[inline]
pub fn cubic_falloff(t: f32) -> f32 {
    if t <= 0.0 {
        1.0
    } else if t >= 1.0 {
        0.0
    } else {
        (2.0 * t - 3.0) * t * t + 1.0
    }
}

/// The edge graph of a triangle mesh with rest edge lengths, for geodesic distances (shortest
/// paths along edges: an upper bound of the true surface geodesic that converges to it as the
/// mesh is refined).
///
/// # Performance
/// Memory O(V + E); built in O(T log T).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct GeodesicGraph {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
    lengths: Vec<f32>,
}

impl GeodesicGraph {
    /// The graph of `mesh`'s edges, weighted by their rest lengths.
    ///
    /// # Errors
    /// [`DeformError::EmptyMesh`] for a mesh without triangles.
    ///
    /// # Performance
    /// O(T log T).
    pub fn from_mesh(mesh: &TriangleMesh) -> Result<Self> {
        if mesh.triangle_count() == 0 {
            return Err(DeformError::EmptyMesh {
                vertices: mesh.vertex_count(),
                triangles: 0,
            });
        }
        let n = mesh.vertex_count();
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(6 * mesh.triangle_count());
        for t in mesh.triangles() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edges.push((a, b));
                edges.push((b, a));
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut offsets = vec![0u32; n + 1];
        for &(a, _) in &edges {
            offsets[a as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let p = mesh.positions();
        let neighbours = edges.iter().map(|&(_, b)| b).collect();
        let lengths = edges
            .iter()
            .map(|&(a, b)| (p[a as usize] - p[b as usize]).length())
            .collect();
        Ok(Self {
            offsets,
            neighbours,
            lengths,
        })
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The neighbours of `v` and the lengths of the edges to them.
    ///
    /// # Panics
    /// If `v` is out of range.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (a, b) = (
            self.offsets[v as usize] as usize,
            self.offsets[v as usize + 1] as usize,
        );
        self.neighbours[a..b]
            .iter()
            .copied()
            .zip(self.lengths[a..b].iter().copied())
    }

    /// Every vertex whose edge-graph distance from `source` is below `radius`, with that
    /// distance, in order of increasing distance (Dijkstra, stopped at the cut-off). The result
    /// lives in `workspace` until its next use.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a bad `source`.
    ///
    /// # Performance
    /// O(k log k) for the k vertices within (and just beyond) the radius; no O(V) clearing
    /// (the workspace stamps its entries), no allocation once the workspace has grown.
    pub fn within<'w>(
        &self,
        source: u32,
        radius: f32,
        workspace: &'w mut FalloffWorkspace,
    ) -> Result<&'w [(u32, f32)]> {
        let n = self.vertex_count();
        if source as usize >= n {
            return Err(DeformError::IndexOutOfRange {
                what: "falloff source vertex",
                index: source as usize,
                len: n,
            });
        }
        workspace.prepare(n);
        let ws = workspace;
        ws.found.clear();
        ws.heap.clear();
        ws.set(source, 0.0);
        ws.heap.push(Reverse((0.0f32.to_bits(), source)));
        while let Some(Reverse((bits, v))) = ws.heap.pop() {
            let d = f32::from_bits(bits);
            if d > ws.get(v) {
                continue; // stale entry
            }
            ws.found.push((v, d));
            for (u, len) in self.neighbours(v) {
                let du = d + len;
                if du < radius && du < ws.get(u) {
                    ws.set(u, du);
                    ws.heap.push(Reverse((du.to_bits(), u)));
                }
            }
        }
        Ok(&ws.found)
    }
}

/// Reusable buffers of [`GeodesicGraph::within`] (one per thread).
///
/// # Performance
/// Memory O(V).
#[derive(Clone, Debug, Default)]
pub struct FalloffWorkspace {
    distance: Vec<f32>,
    stamp: Vec<u32>,
    epoch: u32,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    found: Vec<(u32, f32)>,
}

impl FalloffWorkspace {
    /// An empty workspace.
    pub fn new() -> Self {
        Self::default()
    }

    fn prepare(&mut self, n: usize) {
        if self.stamp.len() != n {
            self.distance = vec![f32::INFINITY; n];
            self.stamp = vec![0; n];
            self.epoch = 0;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
    }

    #[inline]
    fn get(&self, v: u32) -> f32 {
        if self.stamp[v as usize] == self.epoch {
            self.distance[v as usize]
        } else {
            f32::INFINITY
        }
    }

    #[inline]
    fn set(&mut self, v: u32, d: f32) {
        self.stamp[v as usize] = self.epoch;
        self.distance[v as usize] = d;
    }
}

/// Rest positions' nearest-vertex lookup on a uniform grid (maps a contact point to the vertex
/// that receives it).
///
/// # Performance
/// Built in O(V); a query visits the cells of growing rings around the point until no closer
/// vertex can exist: O(1) cells for points near the surface.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct VertexGrid {
    positions: Vec<Vec3>,
    origin: Vec3,
    cell: f32,
    dims: [usize; 3],
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl VertexGrid {
    /// A grid over `positions` with about `per_cell` vertices per occupied cell on a surface.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no positions, [`DeformError::NonFinitePosition`].
    ///
    /// # Performance
    /// O(V).
    pub fn new(positions: &[Vec3]) -> Result<Self> {
        if positions.is_empty() {
            return Err(DeformError::Empty {
                what: "vertex grid positions",
            });
        }
        crate::math::validate_positions("vertex", positions)?;
        let (mut lo, mut hi) = (positions[0], positions[0]);
        for p in positions {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        let extent = (hi - lo).max(Vec3::splat(1e-6));
        // Surface meshes: about √V cells along the longest side gives O(1) vertices per cell.
        let along = (positions.len() as f32).sqrt().clamp(1.0, 256.0);
        let cell = extent.max_element() / along;
        let dims = [0, 1, 2].map(|a| ((extent[a] / cell).floor() as usize + 1).min(1024));
        let total = dims[0] * dims[1] * dims[2];
        let mut counts = vec![0u32; total + 1];
        let index_of = |p: Vec3| -> usize {
            let c = ((p - lo) / cell).floor();
            let i = (c.x.max(0.0) as usize).min(dims[0] - 1);
            let j = (c.y.max(0.0) as usize).min(dims[1] - 1);
            let k = (c.z.max(0.0) as usize).min(dims[2] - 1);
            i + dims[0] * (j + dims[1] * k)
        };
        for p in positions {
            counts[index_of(*p) + 1] += 1;
        }
        for c in 0..total {
            counts[c + 1] += counts[c];
        }
        let mut fill = counts.clone();
        let mut items = vec![0u32; positions.len()];
        for (v, p) in positions.iter().enumerate() {
            let c = index_of(*p);
            items[fill[c] as usize] = v as u32;
            fill[c] += 1;
        }
        Ok(Self {
            positions: positions.to_vec(),
            origin: lo,
            cell,
            dims,
            starts: counts,
            items,
        })
    }

    /// The rest positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// The vertex nearest to `p` (ties: the lowest index), or `None` for a non-finite point.
    ///
    /// # Performance
    /// O(cells of the searched rings + their vertices).
    pub fn nearest(&self, p: Vec3) -> Option<u32> {
        if !p.is_finite() {
            return None;
        }
        let c = ((p - self.origin) / self.cell).floor();
        let centre = [0, 1, 2].map(|a| (c[a].max(0.0) as usize).min(self.dims[a] - 1) as i64);
        let mut best = (f32::INFINITY, u32::MAX);
        let max_ring = *self.dims.iter().max().unwrap_or(&1) as i64;
        for ring in 0..=max_ring {
            // p's (clamped) cell is `centre`; every point of ring `ring` is at least
            // (ring − 1) whole cells away from it (clamping onto the grid box only shortens
            // distances to points inside the box).
            let bound = ((ring - 1).max(0) as f32 * self.cell).powi(2);
            if best.0 <= bound {
                break;
            }
            for k in centre[2] - ring..=centre[2] + ring {
                for j in centre[1] - ring..=centre[1] + ring {
                    for i in centre[0] - ring..=centre[0] + ring {
                        let on_shell = (i - centre[0]).abs() == ring
                            || (j - centre[1]).abs() == ring
                            || (k - centre[2]).abs() == ring;
                        if !on_shell
                            || i < 0
                            || j < 0
                            || k < 0
                            || i >= self.dims[0] as i64
                            || j >= self.dims[1] as i64
                            || k >= self.dims[2] as i64
                        {
                            continue;
                        }
                        let cell =
                            i as usize + self.dims[0] * (j as usize + self.dims[1] * k as usize);
                        for &v in
                            &self.items[self.starts[cell] as usize..self.starts[cell + 1] as usize]
                        {
                            let d = (self.positions[v as usize] - p).length_squared();
                            if d < best.0 || (d == best.0 && v < best.1) {
                                best = (d, v);
                            }
                        }
                    }
                }
            }
        }
        (best.1 != u32::MAX).then_some(best.1)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A flat `n × n`-vertex grid with spacing `h` in the xy plane.
    pub(crate) fn grid_mesh(n: u32, h: f32) -> TriangleMesh {
        grid_mesh_xy(n, n, h)
    }

    /// A flat `nx × ny`-vertex grid with spacing `h` in the xy plane, two triangles per cell.
    pub(crate) fn grid_mesh_xy(nx: u32, ny: u32, h: f32) -> TriangleMesh {
        let mut p = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                p.push(Vec3::new(i as f32 * h, j as f32 * h, 0.0));
            }
        }
        let mut t = Vec::new();
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let a = j * nx + i;
                t.push([a, a + 1, a + nx + 1]);
                t.push([a, a + nx + 1, a + nx]);
            }
        }
        TriangleMesh::new(p, t).unwrap()
    }

    #[test]
    fn cubic_is_c1_with_the_right_ends() {
        assert_eq!(cubic_falloff(0.0), 1.0);
        assert_eq!(cubic_falloff(1.0), 0.0);
        assert_eq!(cubic_falloff(-1.0), 1.0);
        assert_eq!(cubic_falloff(2.0), 0.0);
        let h = 1e-3;
        let slope = |t: f32| (cubic_falloff(t + h) - cubic_falloff(t - h)) / (2.0 * h);
        assert!(slope(h).abs() < 1e-2 && slope(1.0 - h).abs() < 1e-2);
        assert!((cubic_falloff(0.5) - 0.5).abs() < 1e-6);
        for k in 0..100 {
            let t = k as f32 / 100.0;
            assert!(cubic_falloff(t + 0.01) <= cubic_falloff(t));
        }
    }

    /// Bellman–Ford over every edge, f64: an independent shortest-path reference.
    fn reference(mesh: &TriangleMesh, source: usize) -> Vec<f64> {
        let p = mesh.positions();
        let mut d = vec![f64::INFINITY; p.len()];
        d[source] = 0.0;
        loop {
            let mut changed = false;
            for t in mesh.triangles() {
                for k in 0..3 {
                    let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
                    let l = (p[a] - p[b]).as_dvec3().length();
                    for (x, y) in [(a, b), (b, a)] {
                        if d[x] + l < d[y] - 1e-12 {
                            d[y] = d[x] + l;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return d;
            }
        }
    }

    #[test]
    fn dijkstra_matches_bellman_ford_within_the_radius() {
        let mesh = grid_mesh(12, 0.1);
        let graph = GeodesicGraph::from_mesh(&mesh).unwrap();
        let mut ws = FalloffWorkspace::new();
        for (source, radius) in [(0u32, 0.55f32), (65, 0.3), (143, 10.0)] {
            let exact = reference(&mesh, source as usize);
            let found = graph.within(source, radius, &mut ws).unwrap().to_vec();
            let inside: Vec<usize> = (0..exact.len())
                .filter(|&v| exact[v] < radius as f64 - 1e-5)
                .collect();
            for &v in &inside {
                let hit = found
                    .iter()
                    .find(|(u, _)| *u as usize == v)
                    .expect("vertex missing");
                assert!((hit.1 as f64 - exact[v]).abs() < 1e-5);
            }
            for (v, d) in &found {
                assert!(*d < radius && (*d as f64 - exact[*v as usize]).abs() < 1e-5);
            }
            assert!(found.windows(2).all(|w| w[0].1 <= w[1].1));
        }
        assert!(graph.within(1000, 1.0, &mut ws).is_err());
    }

    #[test]
    fn nearest_vertex_matches_brute_force() {
        let mesh = grid_mesh(9, 0.25);
        let grid = VertexGrid::new(mesh.positions()).unwrap();
        let mut s = 7u64;
        for _ in 0..500 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = |k: u32| ((s >> k) & 0xffff) as f32 / 65535.0;
            let p = Vec3::new(u(0) * 3.0 - 0.5, u(16) * 3.0 - 0.5, u(32) - 0.5);
            let got = grid.nearest(p).unwrap() as usize;
            let best = mesh
                .positions()
                .iter()
                .map(|q| (*q - p).length_squared())
                .fold(f32::INFINITY, f32::min);
            assert!(((mesh.positions()[got] - p).length_squared() - best).abs() < 1e-6);
        }
        assert_eq!(grid.nearest(Vec3::NAN), None);
        assert!(VertexGrid::new(&[]).is_err());
    }
}
