//! Welding render vertices by position into a crack-free collision mesh, dropping (and counting) triangles that degenerate.

use std::collections::HashMap;

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::{TriangleMesh, is_degenerate, squared_diagonal};

/// Render vertices welded by position.
pub(crate) struct Welded {
    /// The collision mesh over welded vertices.
    pub mesh: TriangleMesh,
    /// Render vertex → welded vertex.
    pub render_to_welded: Vec<u32>,
    /// Welded vertex → the first render vertex welded into it (whose attributes it takes).
    pub representative: Vec<u32>,
    /// Render triangles left out of the collision mesh (repeated welded vertex or zero area).
    pub dropped: Vec<usize>,
}

fn key(p: Vec3, cell: f32) -> [i64; 3] {
    let f = |x: f32| (x / cell).floor() as i64;
    [f(p.x), f(p.y), f(p.z)]
}

/// Welds `positions` (all finite) closer than `relative_tolerance ×` bounding-box diagonal
/// (first come, first served: a vertex joins the first earlier welded vertex within reach),
/// re-indexes `triangles` (indices in range) and builds the mesh from the non-degenerate ones.
///
/// Degenerate means what [`TriangleMesh::new`] rejects: a repeated welded index or an area at
/// most `1e-12 ×` the squared diagonal of the welded positions.
///
/// # Errors
/// [`DeformError::InvalidParameter`] for a negative or non-finite tolerance;
/// [`DeformError::PositionOutOfRange`] for a position beyond
/// [`crate::limits::MAX_COORDINATE`]; what [`TriangleMesh::new`] rejects.
///
/// # Performance
/// O(V + T) expected (hash grid with cells of the tolerance).
pub(crate) fn weld(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    relative_tolerance: f32,
) -> Result<Welded> {
    if !(relative_tolerance.is_finite() && relative_tolerance >= 0.0) {
        return Err(DeformError::InvalidParameter {
            name: "weld_tolerance",
            value: relative_tolerance,
            reason: "must be finite and non-negative (0 welds identical positions only)",
        });
    }
    crate::math::validate_positions("vertex", positions)?;
    let (mins, maxs) = positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    let diagonal = if positions.is_empty() {
        0.0
    } else {
        (maxs - mins).length()
    };
    let tolerance = relative_tolerance * diagonal;
    let mut welded: Vec<Vec3> = Vec::new();
    let mut representative = Vec::new();
    let mut render_to_welded = Vec::with_capacity(positions.len());
    if tolerance > 0.0 && tolerance.is_finite() {
        let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        for (r, &p) in positions.iter().enumerate() {
            let k = key(p, tolerance);
            let mut found = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let cell = [
                            k[0].saturating_add(dx),
                            k[1].saturating_add(dy),
                            k[2].saturating_add(dz),
                        ];
                        if let Some(cands) = grid.get(&cell) {
                            for &w in cands {
                                if welded[w as usize].distance(p) <= tolerance
                                    && found.is_none_or(|f: u32| w < f)
                                {
                                    found = Some(w);
                                }
                            }
                        }
                    }
                }
            }
            let w = match found {
                Some(w) => w,
                None => {
                    let w = welded.len() as u32;
                    welded.push(p);
                    representative.push(r as u32);
                    grid.entry(k).or_default().push(w);
                    w
                }
            };
            render_to_welded.push(w);
        }
    } else {
        let mut exact: HashMap<[u32; 3], u32> = HashMap::new();
        for (r, &p) in positions.iter().enumerate() {
            // +0.0 folds -0.0 into 0.0 so that both weld.
            let bits = [p.x + 0.0, p.y + 0.0, p.z + 0.0].map(f32::to_bits);
            let w = *exact.entry(bits).or_insert_with(|| {
                welded.push(p);
                representative.push(r as u32);
                (welded.len() - 1) as u32
            });
            render_to_welded.push(w);
        }
    }
    // The same degeneracy rule as `TriangleMesh::new`, on the welded positions.
    let diag2 = squared_diagonal(&welded);
    let mut kept = Vec::with_capacity(triangles.len());
    let mut dropped = Vec::new();
    for (t, tri) in triangles.iter().enumerate() {
        let w = tri.map(|i| render_to_welded[i as usize]);
        if is_degenerate(w, &welded, diag2) {
            dropped.push(t);
        } else {
            kept.push(w);
        }
    }
    let mesh = TriangleMesh::new(welded, kept)?;
    Ok(Welded {
        mesh,
        render_to_welded,
        representative,
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit square split into two triangles, stored with its four corners duplicated (as a
    /// seam would), plus a sliver triangle that collapses once welded.
    fn seam_square() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let c = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let mut p: Vec<Vec3> = c.to_vec();
        p.extend(c.iter().map(|&q| q + Vec3::new(1e-9, 0.0, 0.0)));
        (p, vec![[0, 1, 2], [4, 6, 7], [0, 4, 1]])
    }

    #[test]
    fn welds_within_tolerance_and_drops_collapsed_triangles() {
        let (p, t) = seam_square();
        let w = weld(&p, &t, 1e-6).unwrap();
        assert_eq!(w.mesh.vertex_count(), 4);
        assert_eq!(w.render_to_welded, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(w.representative, vec![0, 1, 2, 3]);
        assert_eq!(w.mesh.triangles(), &[[0, 1, 2], [0, 2, 3]]);
        assert_eq!(w.dropped, vec![2]);
        // Every render vertex maps to a welded vertex at (nearly) its position.
        for (r, &q) in p.iter().enumerate() {
            let m = w.mesh.positions()[w.render_to_welded[r] as usize];
            assert!(m.distance(q) <= 1e-6 * 2f32.sqrt());
        }
    }

    #[test]
    fn zero_tolerance_welds_only_identical_positions() {
        let (p, t) = seam_square();
        let w = weld(&p, &t[..2], 0.0).unwrap();
        assert_eq!(
            w.mesh.vertex_count(),
            6,
            "1 + 1e-9 rounds to 1 in f32: (1,0,0) and (1,1,0) are bit-identical across the seam"
        );
        assert!(w.dropped.is_empty());
        let z = weld(
            &[Vec3::new(-0.0, 0.0, 0.0), Vec3::ZERO, Vec3::X, Vec3::Y],
            &[[0, 2, 3], [1, 2, 3]],
            0.0,
        )
        .unwrap();
        assert_eq!(z.render_to_welded, vec![0, 0, 1, 2], "-0 and +0 weld");
        assert_eq!(z.dropped, Vec::<usize>::new());
        assert_eq!(z.mesh.triangle_count(), 2);
    }
}
