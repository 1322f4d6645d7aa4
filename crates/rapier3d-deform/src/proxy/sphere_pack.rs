//! Greedy sphere packing in a signed distance grid: the deepest interior point first, radius = min(maximum radius, depth), covered points removed.
//!
//! This is the procedure of Jones et al. (MiG 2017, §3.3.1), adapted from Budsberg et al. 2014:
//! each sphere is centred at the remaining grid point deepest inside the mesh, its radius is the
//! smaller of a maximum radius and that point's distance to the surface, and every grid point
//! inside the new sphere is set to 0 (removed), so that no later centre lies in an earlier sphere.
//! Packing stops when the next radius would fall below the minimum radius or the sphere count
//! reaches its maximum. Since radii come from the distance to the mesh, every sphere lies inside
//! the mesh and neighbouring spheres overlap.

use super::SdfGrid;
use crate::error::{DeformError, Result};
use crate::math::Vec3;

/// A sphere: centre and radius.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Sphere {
    /// Centre.
    pub centre: Vec3,
    /// Radius (`≥ 0`).
    pub radius: f32,
}

/// Stopping rules and radius limits of [`pack_spheres`], in the mesh's length unit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct PackOptions {
    /// Packing stops when the next sphere would be smaller than this (`> 0`).
    pub min_radius: f32,
    /// No sphere is larger than this (`≥ min_radius`).
    pub max_radius: f32,
    /// Packing stops at this many spheres (`≥ 1`; the authors leave it unbounded).
    pub max_spheres: usize,
}

impl PackOptions {
    /// Radii given in grid spacings, as the authors' tool does (Crown Vic: resolution 40,
    /// `min = 2`, `max = 10`; barrel: resolution 60, `min = 3`, `max = 15`), no count limit.
    pub fn in_cells(grid: &SdfGrid, min_cells: f32, max_cells: f32) -> Self {
        Self {
            min_radius: min_cells * grid.spacing(),
            max_radius: max_cells * grid.spacing(),
            max_spheres: usize::MAX,
        }
    }
}

/// Packs spheres greedily into the interior of `grid` (see the module docs).
///
/// # Errors
/// [`DeformError::InvalidParameter`] for a non-positive or non-finite `min_radius`, a
/// `max_radius` below it, or `max_spheres = 0`; [`DeformError::Empty`] when no grid point is at
/// least `min_radius` deep (the grid is too coarse for the mesh, or the radius too large).
///
/// # Performance
/// O(N log N) to order the N interior grid points, plus the grid points covered by each new
/// sphere (O((r / spacing)³) per sphere).
pub fn pack_spheres(grid: &SdfGrid, options: &PackOptions) -> Result<Vec<Sphere>> {
    if !(options.min_radius.is_finite() && options.min_radius > 0.0) {
        return Err(DeformError::InvalidParameter {
            name: "min_radius",
            value: options.min_radius,
            reason: "must be finite and positive",
        });
    }
    if !(options.max_radius.is_finite() && options.max_radius >= options.min_radius) {
        return Err(DeformError::InvalidParameter {
            name: "max_radius",
            value: options.max_radius,
            reason: "must be finite and at least min_radius",
        });
    }
    if options.max_spheres == 0 {
        return Err(DeformError::InvalidParameter {
            name: "max_spheres",
            value: 0.0,
            reason: "must be at least 1",
        });
    }
    let values = grid.values();
    // Removing points never changes the depth of the others, so one sort gives the order in
    // which the remaining deepest point is found (ties broken by index, for determinism).
    let mut candidates: Vec<u32> = (0..values.len() as u32)
        .filter(|&i| values[i as usize] <= -options.min_radius)
        .collect();
    candidates.sort_unstable_by(|&a, &b| {
        values[a as usize]
            .total_cmp(&values[b as usize])
            .then(a.cmp(&b))
    });
    let mut removed = vec![false; values.len()];
    let mut spheres = Vec::new();
    let [nx, ny, nz] = grid.dims();
    let h = grid.spacing();
    for &candidate in &candidates {
        if spheres.len() >= options.max_spheres {
            break;
        }
        let candidate = candidate as usize;
        if removed[candidate] {
            continue;
        }
        let radius = (-values[candidate]).min(options.max_radius);
        if radius < options.min_radius {
            break;
        }
        let centre = grid.point(candidate);
        spheres.push(Sphere { centre, radius });
        let [ci, cj, ck] = grid.coords(candidate);
        let reach = (radius / h).floor() as usize;
        let r2 = radius * radius;
        for k in ck.saturating_sub(reach)..(ck + reach + 1).min(nz) {
            for j in cj.saturating_sub(reach)..(cj + reach + 1).min(ny) {
                for i in ci.saturating_sub(reach)..(ci + reach + 1).min(nx) {
                    let index = grid.index(i, j, k);
                    if (grid.point(index) - centre).length_squared() <= r2 {
                        removed[index] = true;
                    }
                }
            }
        }
    }
    if spheres.is_empty() {
        return Err(DeformError::Empty {
            what: "sphere packing (no grid point is min_radius deep inside the mesh)",
        });
    }
    Ok(spheres)
}

/// Smallest and largest radius of a sphere set, `None` when it is empty.
pub fn radius_range(spheres: &[Sphere]) -> Option<(f32, f32)> {
    spheres.iter().fold(None, |acc, s| {
        let (lo, hi) = acc.unwrap_or((s.radius, s.radius));
        Some((lo.min(s.radius), hi.max(s.radius)))
    })
}

/// The centroid of a sphere set's centres (zero when empty).
pub fn centroid(spheres: &[Sphere]) -> Vec3 {
    if spheres.is_empty() {
        return Vec3::ZERO;
    }
    spheres.iter().map(|s| s.centre).sum::<Vec3>() / spheres.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::SdfOptions;
    use crate::proxy::tests_support::{box_mesh, uv_sphere};

    fn grid_of(mesh: &crate::mesh::TriangleMesh, resolution: usize) -> SdfGrid {
        SdfGrid::from_mesh(
            mesh,
            &SdfOptions {
                resolution,
                ..SdfOptions::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn a_ball_gets_one_sphere_of_its_inradius() {
        let mesh = uv_sphere(1.0, 16, 32);
        let grid = grid_of(&mesh, 24);
        let spheres = pack_spheres(
            &grid,
            &PackOptions {
                min_radius: 0.1,
                max_radius: 10.0,
                max_spheres: 1,
            },
        )
        .unwrap();
        assert_eq!(spheres.len(), 1);
        // The deepest grid point is within half a cell diagonal of the centre, and the radius
        // is the distance to the polygonal surface (slightly less than 1).
        assert!(spheres[0].centre.length() <= 0.5 * 3f32.sqrt() * grid.spacing());
        assert!(spheres[0].radius > 0.9 && spheres[0].radius <= 1.0);
    }

    #[test]
    fn spheres_stay_inside_and_centres_outside_earlier_spheres() {
        let half = Vec3::new(1.0, 0.4, 0.3);
        let mesh = box_mesh(half);
        let grid = grid_of(&mesh, 40);
        let options = PackOptions {
            min_radius: 2.0 * grid.spacing(),
            max_radius: 0.25,
            max_spheres: usize::MAX,
        };
        let spheres = pack_spheres(&grid, &options).unwrap();
        assert!(spheres.len() > 4);
        for (n, s) in spheres.iter().enumerate() {
            // Inside the box: |c| + r ≤ half on every axis (exact box distance).
            let slack = half - s.centre.abs() - Vec3::splat(s.radius);
            assert!(
                slack.min_element() >= -1e-5,
                "sphere {n} pokes out: {slack}"
            );
            assert!(s.radius >= options.min_radius && s.radius <= options.max_radius);
            for earlier in &spheres[..n] {
                assert!((s.centre - earlier.centre).length() > earlier.radius);
            }
        }
        // Radii never increase (deepest first, clamped by the same maximum).
        assert!(spheres.windows(2).all(|w| w[1].radius <= w[0].radius));
    }

    #[test]
    fn count_limit_and_errors() {
        let mesh = box_mesh(Vec3::ONE);
        let grid = grid_of(&mesh, 20);
        let limited = PackOptions {
            min_radius: 0.05,
            max_radius: 0.3,
            max_spheres: 5,
        };
        assert_eq!(pack_spheres(&grid, &limited).unwrap().len(), 5);
        let too_big = PackOptions {
            min_radius: 5.0,
            max_radius: 6.0,
            max_spheres: 5,
        };
        assert!(matches!(
            pack_spheres(&grid, &too_big),
            Err(DeformError::Empty { .. })
        ));
        let inverted = PackOptions {
            min_radius: 0.5,
            max_radius: 0.1,
            max_spheres: 5,
        };
        assert!(matches!(
            pack_spheres(&grid, &inverted),
            Err(DeformError::InvalidParameter {
                name: "max_radius",
                ..
            })
        ));
    }
}
