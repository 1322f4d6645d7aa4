//! A validated indexed triangle mesh (positions + triangles) with the helpers every module shares.

use crate::error::{DeformError, Result};
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
    /// [`DeformError::EmptyMesh`], [`DeformError::VertexIndexOutOfRange`],
    /// [`DeformError::NonFinitePosition`], [`DeformError::DegenerateTriangle`] (a repeated index or
    /// an area below `1e-12` times the squared bounding-box diagonal).
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
        crate::math::validate_positions("vertex", &positions)?;
        let (mins, maxs) = positions.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(a, b), p| (a.min(*p), b.max(*p)),
        );
        let diag2 = (maxs - mins).length_squared().max(f32::MIN_POSITIVE);
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
            let [a, b, c] = tri.map(|i| positions[i as usize]);
            let area2 = (b - a).cross(c - a).length();
            if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] || area2 <= 1e-12 * diag2 {
                return Err(DeformError::DegenerateTriangle { triangle: t });
            }
        }
        Ok(Self {
            positions,
            triangles,
        })
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
    /// [`DeformError::LengthMismatch`] or [`DeformError::NonFinitePosition`].
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
    /// position.
    ///
    /// # Errors
    /// [`DeformError::Empty`] (`what = "examples"`), [`DeformError::ExampleVertexCount`],
    /// [`DeformError::NonFiniteExamplePosition`].
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
