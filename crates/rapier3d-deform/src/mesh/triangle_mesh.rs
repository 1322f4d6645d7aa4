//! A validated indexed triangle mesh (positions + triangles) with the helpers every module shares.

use crate::error::{DeformError, Result};
use crate::limits::{MAX_TRIANGLES, MAX_VERTICES, MIN_MESH_EXTENT, check_count};
use crate::math::Vec3;

/// An indexed triangle mesh whose indices are in range, whose positions are finite and whose
/// triangles have non-zero area.
///
/// This is the rest (undeformed) geometry of every deformable in the crate.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct TriangleMesh {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

impl TriangleMesh {
    /// Validates and wraps a mesh.
    ///
    /// # Errors
    /// [`DeformError::EmptyMesh`], [`DeformError::LimitExceeded`] (more than
    /// [`MAX_VERTICES`] vertices or [`MAX_TRIANGLES`] triangles),
    /// [`DeformError::VertexIndexOutOfRange`], [`DeformError::NonFinitePosition`],
    /// [`DeformError::PositionOutOfRange`] (beyond [`crate::limits::MAX_COORDINATE`]),
    /// [`DeformError::MeshTooSmall`] (a bounding-box diagonal below
    /// [`crate::limits::MIN_MESH_EXTENT`]),
    /// [`DeformError::DegenerateTriangle`] (a repeated index or an area below `1e-12` times the
    /// squared bounding-box diagonal, computed in `f64` so that the test holds at every scale).
    ///
    /// # Performance
    /// O(V + T).
    pub fn new(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self> {
        if positions.is_empty() || triangles.is_empty() {
            return Err(DeformError::EmptyMesh {
                vertices: positions.len(),
                triangles: triangles.len(),
            });
        }
        check_count("vertices", positions.len(), MAX_VERTICES)?;
        check_count("triangles", triangles.len(), MAX_TRIANGLES)?;
        crate::math::validate_positions("vertex", &positions)?;
        let diag2 = squared_diagonal(&positions);
        let extent = diag2.sqrt() as f32;
        if extent < MIN_MESH_EXTENT {
            return Err(DeformError::MeshTooSmall {
                extent,
                min: MIN_MESH_EXTENT,
            });
        }
        for (t, tri) in triangles.iter().enumerate() {
            for &index in tri {
                if index as usize >= positions.len() {
                    return Err(DeformError::VertexIndexOutOfRange {
                        triangle: t,
                        index,
                        vertex_count: positions.len(),
                    });
                }
            }
            if is_degenerate(*tri, &positions, diag2) {
                return Err(DeformError::DegenerateTriangle { triangle: t });
            }
        }
        Ok(Self {
            positions,
            triangles,
        })
    }

    /// Rejects a mesh that is not an oriented manifold: an edge shared by more than two
    /// triangles (a duplicated face makes three) or traversed in the same direction by both of
    /// its triangles (a flipped face). Boundary edges are allowed (see the callers for how much
    /// boundary they tolerate).
    ///
    /// # Errors
    /// [`DeformError::NonManifoldEdge`] or [`DeformError::InconsistentOrientation`] naming the
    /// edge (the one with the smallest vertex pair).
    ///
    /// # Performance
    /// O(T log T) (sort of the 3T half-edges).
    pub fn check_oriented_manifold(&self) -> Result<()> {
        let mut half: Vec<(u32, u32, u32)> = Vec::with_capacity(3 * self.triangles.len());
        for tri in &self.triangles {
            for c in 0..3 {
                let (a, b) = (tri[c], tri[(c + 1) % 3]);
                half.push((a.min(b), a.max(b), a));
            }
        }
        half.sort_unstable();
        for run in half.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let (a, b) = (run[0].0, run[0].1);
            if run.len() > 2 {
                return Err(DeformError::NonManifoldEdge {
                    a,
                    b,
                    triangles: run.len(),
                });
            }
            if run.len() == 2 && run[0].2 == run[1].2 {
                return Err(DeformError::InconsistentOrientation { a, b });
            }
        }
        Ok(())
    }

    /// Vertex positions.
    #[inline]
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Triangles as vertex-index triples (counter-clockwise seen from outside).
    #[inline]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Number of vertices.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles.
    #[inline]
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Rejects deformed positions that do not have one entry per vertex or are not finite.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`] or
    /// [`DeformError::PositionOutOfRange`].
    ///
    /// # Performance
    /// O(vertices).
    pub fn check_positions(&self, positions: &[Vec3]) -> Result<()> {
        if positions.len() != self.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "deformed positions",
                expected: self.vertex_count(),
                actual: positions.len(),
            });
        }
        crate::math::validate_positions("deformed vertex", positions)
    }

    /// Rejects an example set (`examples[e][v]`: vertex `v` in example pose `e`) that does not
    /// match the mesh: no example, an example without one position per vertex, or a non-finite
    /// or out-of-range position.
    ///
    /// # Errors
    /// [`DeformError::Empty`] (`what = "examples"`), [`DeformError::ExampleVertexCount`],
    /// [`DeformError::NonFiniteExamplePosition`], [`DeformError::PositionOutOfRange`].
    ///
    /// # Performance
    /// O(examples · vertices).
    pub fn check_examples(&self, examples: &[Vec<Vec3>]) -> Result<()> {
        if examples.is_empty() {
            return Err(DeformError::Empty { what: "examples" });
        }
        for (example, pose) in examples.iter().enumerate() {
            if pose.len() != self.vertex_count() {
                return Err(DeformError::ExampleVertexCount {
                    example,
                    expected: self.vertex_count(),
                    actual: pose.len(),
                });
            }
            if let Some(vertex) = pose.iter().position(|p| !p.is_finite()) {
                return Err(DeformError::NonFiniteExamplePosition { example, vertex });
            }
            crate::math::validate_positions("example vertex", pose)?;
        }
        Ok(())
    }

    /// The three corners of triangle `t` taken from `positions` (rest or deformed).
    #[inline]
    pub fn corners(&self, positions: &[Vec3], t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| positions[i as usize])
    }

    /// Unit normal of triangle `t` under `positions`, or zero when degenerate there.
    #[inline]
    pub fn triangle_normal(&self, positions: &[Vec3], t: usize) -> Vec3 {
        let [a, b, c] = self.corners(positions, t);
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// Area of triangle `t` under `positions`.
    #[inline]
    pub fn triangle_area(&self, positions: &[Vec3], t: usize) -> f32 {
        let [a, b, c] = self.corners(positions, t);
        0.5 * (b - a).cross(c - a).length()
    }

    /// Rest-pose axis-aligned bounds `(mins, maxs)`.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.positions.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(a, b), p| (a.min(*p), b.max(*p)),
        )
    }

    /// For every triangle, the (up to three) triangles sharing an edge with it (`u32::MAX` where
    /// the edge is a border). Non-manifold edges keep the first two triangles found.
    ///
    /// # Performance
    /// O(T log T) (sort of the 3T half-edges).
    pub fn edge_neighbours(&self) -> Vec<[u32; 3]> {
        let mut edges: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(3 * self.triangles.len());
        for (t, tri) in self.triangles.iter().enumerate() {
            for e in 0..3 {
                let (a, b) = (tri[e], tri[(e + 1) % 3]);
                edges.push((a.min(b), a.max(b), t as u32, e as u8));
            }
        }
        edges.sort_unstable();
        let mut out = vec![[u32::MAX; 3]; self.triangles.len()];
        let mut i = 0;
        while i < edges.len() {
            let mut j = i + 1;
            while j < edges.len() && edges[j].0 == edges[i].0 && edges[j].1 == edges[i].1 {
                j += 1;
            }
            if j - i >= 2 {
                let (t0, e0) = (edges[i].2, edges[i].3);
                let (t1, e1) = (edges[i + 1].2, edges[i + 1].3);
                out[t0 as usize][e0 as usize] = t1;
                out[t1 as usize][e1 as usize] = t0;
            }
            i = j;
        }
        out
    }
}

/// The squared diagonal of the bounding box of `positions` (finite), in `f64` (finite for every
/// finite `f32` input), at least `f32::MIN_POSITIVE`.
pub(crate) fn squared_diagonal(positions: &[Vec3]) -> f64 {
    let (mins, maxs) = positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    if positions.is_empty() {
        return f64::from(f32::MIN_POSITIVE);
    }
    (maxs.as_dvec3() - mins.as_dvec3())
        .length_squared()
        .max(f64::from(f32::MIN_POSITIVE))
}

/// The degeneracy rule of [`TriangleMesh::new`]: a repeated index, or twice the area at most
/// `1e-12 ×` the squared bounding-box diagonal `diag2` (in `f64`: exact in scale, no overflow).
/// Indices must be in range.
pub(crate) fn is_degenerate(tri: [u32; 3], positions: &[Vec3], diag2: f64) -> bool {
    if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
        return true;
    }
    let [a, b, c] = tri.map(|i| positions[i as usize].as_dvec3());
    (b - a).cross(c - a).length() <= 1e-12 * diag2
}
