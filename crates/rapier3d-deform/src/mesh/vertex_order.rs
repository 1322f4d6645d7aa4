//! Spatial vertex order: renumbers vertices along a Morton (Z-order) curve of their rest positions, so that compact patches of the mesh read contiguous memory.
//!
//! Lazy, per-patch work (the BN-Tree's on-demand refits, a deformable mesh collider's
//! deformation of the triangles it touches) reads each touched vertex's rest position and weight
//! row. Meshes out of subdivision number their vertices level by level, so one patch touches
//! vertices all over memory; on the 244k-triangle walking cat, deforming every vertex in the
//! BN-Tree's patch order took 3× as long as in index order (BENCHMARKS.md). Renumbering along a
//! space-filling curve before building the tree removes that: triangle indices do not change,
//! so every result indexed by triangle (self-collision pairs, contacts) is the same.

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// A renumbering of a mesh's vertices (a permutation), with helpers that apply it to the data
/// indexed by vertex.
///
/// ```
/// use rapier3d_deform::math::Vec3;
/// use rapier3d_deform::mesh::{TriangleMesh, VertexOrder};
///
/// let positions = vec![
///     Vec3::new(9.0, 0.0, 0.0),
///     Vec3::new(0.0, 0.0, 0.0),
///     Vec3::new(9.0, 1.0, 0.0),
///     Vec3::new(0.0, 1.0, 0.0),
/// ];
/// let mesh = TriangleMesh::new(positions.clone(), vec![[0, 2, 3], [0, 3, 1]]).unwrap();
/// let order = VertexOrder::spatial(&positions).unwrap();
/// let reordered = order.mesh(&mesh).unwrap();
/// // Same triangles, same corners, new numbers.
/// for (t, tri) in reordered.triangles().iter().enumerate() {
///     for (k, &v) in tri.iter().enumerate() {
///         assert_eq!(reordered.positions()[v as usize], positions[mesh.triangles()[t][k] as usize]);
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexOrder {
    /// `old_of_new[new] = old`.
    old_of_new: Vec<u32>,
    /// `new_of_old[old] = new`.
    new_of_old: Vec<u32>,
}

impl VertexOrder {
    /// The order of `positions` along a Morton curve over their bounding box (21 bits per axis;
    /// ties keep the original order).
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no positions, [`DeformError::NonFinitePosition`] for a
    /// non-finite one.
    ///
    /// # Performance
    /// O(V log V).
    pub fn spatial(positions: &[Vec3]) -> Result<Self> {
        if positions.is_empty() {
            return Err(DeformError::Empty {
                what: "vertex positions",
            });
        }
        crate::math::validate_positions("vertex", positions)?;
        let (lo, hi) = positions.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(a, b), p| (a.min(*p), b.max(*p)),
        );
        let extent = (hi - lo).max_element();
        let scale = if extent > 0.0 {
            ((1u32 << 21) - 1) as f64 / extent as f64
        } else {
            0.0
        };
        let cell = |x: f32, l: f32| ((x as f64 - l as f64) * scale) as u64;
        let mut keyed: Vec<(u64, u32)> = positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let key = spread_bits(cell(p.x, lo.x))
                    | spread_bits(cell(p.y, lo.y)) << 1
                    | spread_bits(cell(p.z, lo.z)) << 2;
                (key, i as u32)
            })
            .collect();
        keyed.sort_unstable();
        let old_of_new: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
        Ok(Self::from_old_of_new_unchecked(old_of_new))
    }

    /// The order that lists old vertex `old_of_new[i]` as new vertex `i`.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] unless `old_of_new` is a permutation of `0..len`.
    ///
    /// # Performance
    /// O(V).
    pub fn from_old_of_new(old_of_new: Vec<u32>) -> Result<Self> {
        if !is_permutation(&old_of_new, old_of_new.len()) {
            return Err(DeformError::InvalidParameter {
                name: "old_of_new",
                value: old_of_new.len() as f32,
                reason: "must list every vertex index below its length exactly once",
            });
        }
        Ok(Self::from_old_of_new_unchecked(old_of_new))
    }

    fn from_old_of_new_unchecked(old_of_new: Vec<u32>) -> Self {
        let mut new_of_old = vec![0u32; old_of_new.len()];
        for (new, &old) in old_of_new.iter().enumerate() {
            new_of_old[old as usize] = new as u32;
        }
        Self {
            old_of_new,
            new_of_old,
        }
    }

    /// `old_of_new[new] = old` (what [`crate::governor::ConvexWeights::permuted`] takes).
    #[inline]
    pub(crate) fn old_of_new(&self) -> &[u32] {
        &self.old_of_new
    }

    /// Number of vertices.
    #[inline]
    pub fn len(&self) -> usize {
        self.old_of_new.len()
    }

    /// True for an order of no vertex (never built by [`VertexOrder::spatial`]).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.old_of_new.is_empty()
    }

    /// The new index of old vertex `old`.
    ///
    /// # Panics
    /// When `old ≥ len()`.
    #[inline]
    pub fn new_index(&self, old: u32) -> u32 {
        self.new_of_old[old as usize]
    }

    /// The old index of new vertex `new`.
    ///
    /// # Panics
    /// When `new ≥ len()`.
    #[inline]
    pub fn old_index(&self, new: u32) -> u32 {
        self.old_of_new[new as usize]
    }

    /// Per-vertex values in the new order.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless there is one value per vertex.
    ///
    /// # Performance
    /// O(V).
    pub fn reorder<T: Clone>(&self, values: &[T]) -> Result<Vec<T>> {
        self.check_len("per-vertex values", values.len())?;
        Ok(self
            .old_of_new
            .iter()
            .map(|&old| values[old as usize].clone())
            .collect())
    }

    /// The mesh with its vertices renumbered (triangle `t` keeps index `t` and its corners).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless the mesh has [`VertexOrder::len`] vertices.
    ///
    /// # Performance
    /// O(V + T).
    pub fn mesh(&self, mesh: &TriangleMesh) -> Result<TriangleMesh> {
        self.check_len("mesh vertices", mesh.vertex_count())?;
        let positions = self.reorder(mesh.positions())?;
        let triangles = mesh
            .triangles()
            .iter()
            .map(|t| t.map(|v| self.new_of_old[v as usize]))
            .collect();
        TriangleMesh::new(positions, triangles)
    }

    pub(crate) fn check_len(&self, what: &'static str, actual: usize) -> Result<()> {
        if actual == self.len() {
            Ok(())
        } else {
            Err(DeformError::LengthMismatch {
                what,
                expected: self.len(),
                actual,
            })
        }
    }
}

/// True when `indices` lists every index of `0..n` exactly once.
///
/// # Performance
/// O(n), one temporary flag per index.
pub(crate) fn is_permutation(indices: &[u32], n: usize) -> bool {
    let mut seen = vec![false; n];
    indices.len() == n
        && indices
            .iter()
            .all(|&i| (i as usize) < n && !std::mem::replace(&mut seen[i as usize], true))
}

/// Spreads the low 21 bits of `x` to every third bit (the Morton interleave).
#[inline]
fn spread_bits(x: u64) -> u64 {
    let mut x = x & 0x1f_ffff;
    x = (x | x << 32) & 0x1f_0000_0000_ffff;
    x = (x | x << 16) & 0x1f_0000_ff00_00ff;
    x = (x | x << 8) & 0x100f_00f0_0f00_f00f;
    x = (x | x << 4) & 0x10c3_0c30_c30c_30c3;
    (x | x << 2) & 0x1249_2492_4924_9249
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut p = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                // Interleave rows so the input order is far from spatial.
                p.push(Vec3::new(i as f32, ((j * 5) % (n + 1)) as f32, 0.0));
            }
        }
        let mut t = Vec::new();
        let row_of = |y: u32| (0..=n).find(|&j| (j * 5) % (n + 1) == y).unwrap();
        for y in 0..n {
            for x in 0..n {
                let (r0, r1) = (row_of(y), row_of(y + 1));
                let v = |x: u32, r: u32| r * (n + 1) + x;
                t.push([v(x, r0), v(x + 1, r0), v(x + 1, r1)]);
                t.push([v(x, r0), v(x + 1, r1), v(x, r1)]);
            }
        }
        (p, t)
    }

    #[test]
    fn the_order_is_a_permutation_and_keeps_every_triangle() {
        let (p, t) = grid(16);
        let mesh = TriangleMesh::new(p.clone(), t).unwrap();
        let order = VertexOrder::spatial(&p).unwrap();
        let mut seen = vec![false; p.len()];
        for new in 0..order.len() as u32 {
            let old = order.old_index(new);
            assert!(!seen[old as usize]);
            seen[old as usize] = true;
            assert_eq!(order.new_index(old), new);
        }
        let re = order.mesh(&mesh).unwrap();
        for (a, b) in mesh.triangles().iter().zip(re.triangles()) {
            for k in 0..3 {
                assert_eq!(
                    mesh.positions()[a[k] as usize],
                    re.positions()[b[k] as usize]
                );
            }
        }
        // Locality: the mean index span of a triangle's corners is far smaller than with the
        // interleaved rows of the input.
        let span = |m: &TriangleMesh| {
            m.triangles()
                .iter()
                .map(|t| (t.iter().max().unwrap() - t.iter().min().unwrap()) as f64)
                .sum::<f64>()
                / m.triangle_count() as f64
        };
        assert!(
            span(&re) < 0.5 * span(&mesh),
            "{} vs {}",
            span(&re),
            span(&mesh)
        );
    }

    #[test]
    fn bad_input_gets_typed_errors() {
        assert!(matches!(
            VertexOrder::spatial(&[]),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            VertexOrder::spatial(&[Vec3::ZERO, Vec3::NAN]),
            Err(DeformError::NonFinitePosition { index: 1, .. })
        ));
        assert!(matches!(
            VertexOrder::from_old_of_new(vec![0, 0, 1]),
            Err(DeformError::InvalidParameter { .. })
        ));
        assert!(matches!(
            VertexOrder::from_old_of_new(vec![0, 3]),
            Err(DeformError::InvalidParameter { .. })
        ));
        let order = VertexOrder::spatial(&[Vec3::ZERO, Vec3::X]).unwrap();
        assert!(matches!(
            order.reorder(&[1.0f32]),
            Err(DeformError::LengthMismatch { .. })
        ));
    }
}
