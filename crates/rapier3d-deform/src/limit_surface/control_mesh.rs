//! Limit patches of a closed control mesh: topology checks and the control points of each patch in canonical order (seed §3.1: at most one irregular corner per patch).

use super::cone::NormalBound;
use super::local_matrix::{MAX_VALENCE, MIN_VALENCE, REGULAR_VALENCE, neighbourhood_size};
use super::patch_bound::{regular_normal_bound, tightened_normal_bound};
use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// What kind of limit patch a control triangle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchKind {
    /// All three corners have valence 6: a quartic box spline over 12 control points.
    Regular,
    /// One corner has valence `valence ≠ 6`: `valence + 6` control points.
    Irregular {
        /// The irregular corner's valence.
        valence: usize,
    },
}

/// The limit patches of a closed, oriented, manifold control mesh whose vertices have valences
/// 3..=12 and whose triangles have at most one irregular corner (one Loop step of any closed
/// mesh, [`crate::deformation::LoopSubdivision`] with one level, gives that).
///
/// Each control triangle is one limit patch; its control points (indices into the control mesh)
/// are stored in the canonical order of [`super::neighbourhood_size`], irregular corner first.
/// Bad input is refused with a typed error naming the vertex or triangle (checked in this order:
/// edges, boundary, fans, valences, triangles); valences above 12 are refused rather than computed
/// on demand, so the eigen tables stay fixed and tested.
///
/// # Performance
/// Building is O(T log T); memory O(T · 18) indices.
#[derive(Clone, Debug)]
pub struct LimitPatches {
    vertex_count: usize,
    kinds: Vec<PatchKind>,
    offsets: Vec<u32>,
    indices: Vec<u32>,
}

/// Directed edges `(a, b)` of the triangles with the third vertex of each, sorted.
struct DirectedEdges {
    edges: Vec<(u64, u32)>,
}

impl DirectedEdges {
    fn new(triangles: &[[u32; 3]]) -> Self {
        let mut edges = Vec::with_capacity(3 * triangles.len());
        for t in triangles {
            for c in 0..3 {
                let (a, b, o) = (t[c], t[(c + 1) % 3], t[(c + 2) % 3]);
                edges.push((((a as u64) << 32) | b as u64, o));
            }
        }
        edges.sort_unstable();
        Self { edges }
    }

    /// The third vertex of the triangle holding the directed edge `a → b`.
    fn opposite(&self, a: u32, b: u32) -> Option<u32> {
        let key = ((a as u64) << 32) | b as u64;
        self.edges
            .binary_search_by_key(&key, |e| e.0)
            .ok()
            .map(|i| self.edges[i].1)
    }
}

impl LimitPatches {
    /// Checks the control mesh's topology and gathers every patch's control points.
    ///
    /// # Errors
    /// [`DeformError::NonManifoldEdge`], [`DeformError::InconsistentOrientation`],
    /// [`DeformError::BoundaryVertex`] (the first vertex of a boundary edge),
    /// [`DeformError::NonManifoldVertex`] (triangles around a vertex forming several fans),
    /// [`DeformError::UnsupportedValence`] (outside 3..=12),
    /// [`DeformError::TooManyIrregularCorners`].
    ///
    /// # Performance
    /// O(T log T).
    pub fn new(control: &TriangleMesh) -> Result<Self> {
        control.check_oriented_manifold()?;
        let tris = control.triangles();
        let n = control.vertex_count();
        let edges = DirectedEdges::new(tris);
        let mut uses = vec![0usize; n];
        for t in tris {
            for c in 0..3 {
                if edges.opposite(t[(c + 1) % 3], t[c]).is_none() {
                    return Err(DeformError::BoundaryVertex { vertex: t[c] });
                }
                uses[t[c] as usize] += 1;
            }
        }
        // Every vertex: walk its fan from one triangle; a closed manifold fan visits all uses.
        let mut valence = vec![0usize; n];
        let mut seen = vec![false; n];
        for t in tris {
            for c in 0..3 {
                let v = t[c];
                if seen[v as usize] {
                    continue;
                }
                seen[v as usize] = true;
                let first = t[(c + 1) % 3];
                let mut r = first;
                let mut count = 0usize;
                loop {
                    // `opposite(v, r)` exists: the mesh is closed and oriented.
                    let Some(next) = edges.opposite(v, r) else {
                        return Err(DeformError::BoundaryVertex { vertex: v });
                    };
                    count += 1;
                    r = next;
                    if r == first || count > uses[v as usize] {
                        break;
                    }
                }
                if count != uses[v as usize] {
                    return Err(DeformError::NonManifoldVertex {
                        vertex: v,
                        triangles: uses[v as usize],
                    });
                }
                valence[v as usize] = count;
            }
        }
        for (v, &k) in valence.iter().enumerate() {
            if uses[v] > 0 && !(MIN_VALENCE..=MAX_VALENCE).contains(&k) {
                return Err(DeformError::UnsupportedValence {
                    vertex: v as u32,
                    valence: k,
                    min: MIN_VALENCE,
                    max: MAX_VALENCE,
                });
            }
        }
        let mut kinds = Vec::with_capacity(tris.len());
        let mut offsets = Vec::with_capacity(tris.len() + 1);
        let mut indices = Vec::with_capacity(tris.len() * (REGULAR_VALENCE + 6));
        offsets.push(0u32);
        for (ti, t) in tris.iter().enumerate() {
            let irregular: Vec<usize> = (0..3)
                .filter(|&c| valence[t[c] as usize] != REGULAR_VALENCE)
                .collect();
            if irregular.len() > 1 {
                return Err(DeformError::TooManyIrregularCorners {
                    triangle: ti,
                    irregular: irregular.len(),
                });
            }
            let c = irregular.first().copied().unwrap_or(0);
            let (v, r0, r1) = (t[c], t[(c + 1) % 3], t[(c + 2) % 3]);
            let k = valence[v as usize];
            gather(&edges, v, r0, r1, k, &mut indices)?;
            kinds.push(if irregular.is_empty() {
                PatchKind::Regular
            } else {
                PatchKind::Irregular { valence: k }
            });
            offsets.push(indices.len() as u32);
        }
        Ok(Self {
            vertex_count: n,
            kinds,
            offsets,
            indices,
        })
    }

    /// Number of patches (= control triangles).
    pub fn patch_count(&self) -> usize {
        self.kinds.len()
    }

    /// The kind of patch `t` (`None` when `t ≥ patch_count()`).
    pub fn kind(&self, t: usize) -> Option<PatchKind> {
        self.kinds.get(t).copied()
    }

    /// The control points of patch `t` (vertex indices, canonical order; `None` when
    /// `t ≥ patch_count()`).
    pub fn control_indices(&self, t: usize) -> Option<&[u32]> {
        let (a, b) = (*self.offsets.get(t)?, *self.offsets.get(t + 1)?);
        self.indices.get(a as usize..b as usize)
    }

    fn patch_points(&self, t: usize, positions: &[Vec3]) -> Vec<[f64; 3]> {
        let (a, b) = (self.offsets[t] as usize, self.offsets[t + 1] as usize);
        self.indices[a..b]
            .iter()
            .map(|&i| {
                let p = positions[i as usize];
                [p.x as f64, p.y as f64, p.z as f64]
            })
            .collect()
    }

    /// The normal bound of every patch for control points `positions` (one per control vertex):
    /// regular patches by [`regular_normal_bound`], irregular ones by
    /// [`tightened_normal_bound`].
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::NonFinitePosition`].
    ///
    /// # Performance
    /// O(T) patch bounds (see the two functions).
    pub fn normal_bounds(&self, positions: &[Vec3]) -> Result<Vec<NormalBound>> {
        if positions.len() != self.vertex_count {
            return Err(DeformError::LengthMismatch {
                what: "control points",
                expected: self.vertex_count,
                actual: positions.len(),
            });
        }
        crate::math::validate_positions("control point", positions)?;
        (0..self.patch_count())
            .map(|t| {
                // Indices were checked against the vertex count when built, and the length
                // against it above.
                let pts = self.patch_points(t, positions);
                match self.kinds[t] {
                    PatchKind::Regular => regular_normal_bound(&pts),
                    PatchKind::Irregular { valence } => tightened_normal_bound(valence, &pts),
                }
            })
            .collect()
    }
}

/// Pushes the control points of the patch `(v, r0, r1)` (v of valence `k`) in canonical order.
fn gather(
    edges: &DirectedEdges,
    v: u32,
    r0: u32,
    r1: u32,
    k: usize,
    out: &mut Vec<u32>,
) -> Result<()> {
    let missing = || DeformError::BoundaryVertex { vertex: v };
    let start = out.len();
    out.push(v);
    out.push(r0);
    let mut r = r0;
    for _ in 1..k {
        r = edges.opposite(v, r).ok_or_else(missing)?;
        out.push(r);
    }
    debug_assert_eq!(out[start + 2], r1);
    let ring = |i: usize| out[start + 1 + i % k];
    let (last, r2) = (ring(k - 1), ring(2));
    let e0 = edges.opposite(r0, last).ok_or_else(missing)?;
    let e1 = edges.opposite(r0, e0).ok_or_else(missing)?;
    let e2 = edges.opposite(r1, r0).ok_or_else(missing)?;
    let e3 = edges.opposite(r1, e2).ok_or_else(missing)?;
    let e4 = edges.opposite(r2, r1).ok_or_else(missing)?;
    out.extend([e0, e1, e2, e3, e4]);
    debug_assert_eq!(out.len() - start, neighbourhood_size(k));
    Ok(())
}
