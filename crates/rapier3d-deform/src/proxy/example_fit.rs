//! Per-example sphere fit: each packed sphere is carried into every example pose by mean value coordinates and resized to that pose's surface.
//!
//! The paper (Jones et al., MiG 2017, §3.3.2) needs a map `f` from interior rest points to each
//! example; the authors embed centres in the tetrahedra of the rest volume. This crate uses the
//! **mean value coordinates** of the closed rest surface instead (Ju, Schaefer & Warren 2005):
//! an interior point `x` gets coordinates `λ_v(x)` over the rest vertices with `Σ λ_v = 1` and
//! `Σ λ_v p_v = x` (linear precision), smooth inside, interpolating on the surface. Its image in
//! example `e` is `f_e(x) = Σ_v λ_v(x) X_e[v]`. The map therefore reproduces every example
//! surface exactly and every affine motion exactly, needs no tetrahedralisation, and uses only
//! what the examples are: vertex positions over the rest topology (whatever deformer made them).
//! In example `e` the sphere's radius is `min(max_radius, −sdf_e(f_e(x)))`, the inside distance to
//! that example's surface; a centre that ends up outside gives a negative radius, clamped to 0
//! and counted.

use rapier3d::parry::glamx::DVec3;

use super::{MeshDistance, Sphere};
use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Distances below this (relative to the mesh size) count as "on the surface / vertex".
const MVC_EPSILON: f64 = 1e-9;

/// Spheres of every example pose, example-major: sphere `s` of example `e` is entry
/// `e · sphere_count + s`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExampleSpheres {
    /// Number of examples.
    pub example_count: usize,
    /// Number of spheres per example.
    pub sphere_count: usize,
    /// Centres, example-major.
    pub centres: Vec<Vec3>,
    /// Radii (`≥ 0`), example-major.
    pub radii: Vec<f32>,
    /// Per example, how many radii were negative (centre outside that example) and were clamped
    /// to 0.
    pub clamped: Vec<usize>,
}

/// Mean value coordinates of `x` with respect to the closed mesh `mesh` at `positions`
/// (Ju, Schaefer & Warren 2005, Fig. 4), normalised to sum to one, written to `out`
/// (one per vertex). Returns `false` (and leaves `out` zero) when they are undefined (`x` too far
/// outside a nearly flat configuration, or a degenerate mesh).
///
/// # Performance
/// O(V + T), in `f64`.
pub fn mean_value_coordinates(
    mesh: &TriangleMesh,
    positions: &[Vec3],
    x: Vec3,
    out: &mut Vec<f64>,
) -> bool {
    out.clear();
    out.resize(positions.len(), 0.0);
    let x = x.as_dvec3();
    let scale = positions
        .iter()
        .map(|p| (p.as_dvec3() - x).length())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let eps = MVC_EPSILON * scale;
    let mut d = Vec::with_capacity(positions.len());
    let mut u = Vec::with_capacity(positions.len());
    for (v, p) in positions.iter().enumerate() {
        let r = p.as_dvec3() - x;
        let dist = r.length();
        if dist < eps {
            out[v] = 1.0;
            return true;
        }
        d.push(dist);
        u.push(r / dist);
    }
    let mut total = 0.0;
    for tri in mesh.triangles() {
        let [i0, i1, i2] = tri.map(|i| i as usize);
        let idx = [i0, i1, i2];
        let uu = [u[i0], u[i1], u[i2]];
        let dd = [d[i0], d[i1], d[i2]];
        // θ_i: angle at x opposite to corner i (between the other two corners).
        let mut theta = [0.0f64; 3];
        for i in 0..3 {
            let l = (uu[(i + 1) % 3] - uu[(i + 2) % 3]).length();
            theta[i] = 2.0 * (0.5 * l).clamp(-1.0, 1.0).asin();
        }
        let h = 0.5 * (theta[0] + theta[1] + theta[2]);
        if std::f64::consts::PI - h < 1e-9 {
            // x lies on this triangle: 2D barycentric coordinates.
            out.iter_mut().for_each(|w| *w = 0.0);
            let mut sum = 0.0;
            for i in 0..3 {
                let w = theta[i].sin() * dd[(i + 2) % 3] * dd[(i + 1) % 3];
                out[idx[i]] += w;
                sum += w;
            }
            if sum > 0.0 {
                out.iter_mut().for_each(|w| *w /= sum);
                return true;
            }
            return false;
        }
        let det = uu[0].dot(uu[1].cross(uu[2]));
        let sign = if det < 0.0 { -1.0 } else { 1.0 };
        let mut c = [0.0f64; 3];
        let mut s = [0.0f64; 3];
        let mut coplanar = false;
        for i in 0..3 {
            let (n, p) = ((i + 1) % 3, (i + 2) % 3);
            c[i] = 2.0 * h.sin() * (h - theta[i]).sin() / (theta[n].sin() * theta[p].sin()) - 1.0;
            s[i] = sign * (1.0 - c[i] * c[i]).max(0.0).sqrt();
            if !c[i].is_finite() || s[i].abs() <= 1e-12 {
                coplanar = true;
            }
        }
        if coplanar {
            // x lies in the triangle's plane, outside it: no contribution.
            continue;
        }
        for i in 0..3 {
            let (n, p) = ((i + 1) % 3, (i + 2) % 3);
            let w =
                (theta[i] - c[n] * theta[p] - c[p] * theta[n]) / (dd[i] * theta[n].sin() * s[p]);
            if w.is_finite() {
                out[idx[i]] += w;
                total += w;
            }
        }
    }
    if !(total.is_finite() && total.abs() > f64::MIN_POSITIVE) {
        out.iter_mut().for_each(|w| *w = 0.0);
        return false;
    }
    out.iter_mut().for_each(|w| *w /= total);
    true
}

/// Carries every rest sphere into every example and refits its radius (see the module docs).
///
/// `examples[e]` holds the positions of example `e` over `rest`'s triangles. A sphere whose mean
/// value coordinates are undefined keeps its rest centre in every example, with the radius
/// refitted there.
///
/// # Errors
/// As [`TriangleMesh::check_examples`]; [`DeformError::InvalidParameter`] for a non-positive `max_radius`.
///
/// # Performance
/// O(S · (T + V · E)) for the coordinates plus O(E · (T log T + S log T)) for the distances
/// (S spheres, E examples).
pub fn fit_examples(
    rest: &TriangleMesh,
    examples: &[Vec<Vec3>],
    spheres: &[Sphere],
    max_radius: f32,
) -> Result<ExampleSpheres> {
    rest.check_examples(examples)?;
    if !(max_radius.is_finite() && max_radius > 0.0) {
        return Err(DeformError::InvalidParameter {
            name: "max_radius",
            value: max_radius,
            reason: "must be finite and positive",
        });
    }
    let (e_count, s_count) = (examples.len(), spheres.len());
    let mut centres = vec![Vec3::ZERO; e_count * s_count];
    let mut lambda = Vec::new();
    for (s, sphere) in spheres.iter().enumerate() {
        let ok = mean_value_coordinates(rest, rest.positions(), sphere.centre, &mut lambda);
        for (e, positions) in examples.iter().enumerate() {
            centres[e * s_count + s] = if ok {
                let mut acc = DVec3::ZERO;
                for (l, p) in lambda.iter().zip(positions) {
                    acc += *l * p.as_dvec3();
                }
                acc.as_vec3()
            } else {
                sphere.centre
            };
        }
    }
    let mut radii = vec![0.0; e_count * s_count];
    let mut clamped = vec![0; e_count];
    for (e, positions) in examples.iter().enumerate() {
        let tree = MeshDistance::new(rest, positions)?;
        for s in 0..s_count {
            let r = (-tree.signed_distance(centres[e * s_count + s])).min(max_radius);
            if r < 0.0 {
                clamped[e] += 1;
            }
            radii[e * s_count + s] = r.max(0.0);
        }
    }
    Ok(ExampleSpheres {
        example_count: e_count,
        sphere_count: s_count,
        centres,
        radii,
        clamped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;
    use crate::proxy::tests_support::{box_mesh, uv_sphere};

    fn apply(lambda: &[f64], positions: &[Vec3]) -> Vec3 {
        lambda
            .iter()
            .zip(positions)
            .map(|(l, p)| *l * p.as_dvec3())
            .sum::<DVec3>()
            .as_vec3()
    }

    #[test]
    fn coordinates_have_linear_precision() {
        // A non-convex shape would be better still; a box and a sphere have interior points near
        // faces, edges and far from them.
        for mesh in [box_mesh(Vec3::new(1.0, 0.5, 0.3)), uv_sphere(1.0, 10, 16)] {
            let mut lambda = Vec::new();
            for x in [
                Vec3::ZERO,
                Vec3::new(0.2, -0.1, 0.05),
                Vec3::new(0.45, 0.2, 0.25),
                Vec3::new(-0.5, 0.0, 0.0),
            ] {
                assert!(mean_value_coordinates(
                    &mesh,
                    mesh.positions(),
                    x,
                    &mut lambda
                ));
                let sum: f64 = lambda.iter().sum();
                assert!((sum - 1.0).abs() < 1e-9);
                assert!(
                    (apply(&lambda, mesh.positions()) - x).length() < 1e-5,
                    "{x}"
                );
            }
        }
    }

    #[test]
    fn coordinates_reproduce_affine_maps() {
        let mesh = uv_sphere(1.0, 8, 12);
        let a = Mat3::from_cols(
            Vec3::new(1.2, 0.1, 0.0),
            Vec3::new(-0.3, 0.8, 0.2),
            Vec3::new(0.0, 0.4, 1.5),
        );
        let t = Vec3::new(3.0, -1.0, 0.5);
        let moved: Vec<Vec3> = mesh.positions().iter().map(|p| a * *p + t).collect();
        let mut lambda = Vec::new();
        let x = Vec3::new(0.3, 0.1, -0.4);
        assert!(mean_value_coordinates(
            &mesh,
            mesh.positions(),
            x,
            &mut lambda
        ));
        assert!((apply(&lambda, &moved) - (a * x + t)).length() < 1e-5);
    }

    #[test]
    fn coordinates_on_a_vertex_and_a_face_interpolate() {
        let mesh = box_mesh(Vec3::ONE);
        let mut lambda = Vec::new();
        assert!(mean_value_coordinates(
            &mesh,
            mesh.positions(),
            mesh.positions()[3],
            &mut lambda
        ));
        assert!((lambda[3] - 1.0).abs() < 1e-12);
        let on_face = Vec3::new(0.2, 0.3, 1.0);
        assert!(mean_value_coordinates(
            &mesh,
            mesh.positions(),
            on_face,
            &mut lambda
        ));
        assert!((apply(&lambda, mesh.positions()) - on_face).length() < 1e-5);
    }

    #[test]
    fn translated_example_moves_spheres_rigidly() {
        let mesh = box_mesh(Vec3::new(1.0, 0.5, 0.5));
        let shift = Vec3::new(0.5, -2.0, 1.0);
        let examples = vec![
            mesh.positions().to_vec(),
            mesh.positions().iter().map(|p| *p + shift).collect(),
            // Squashed along z to a quarter: spheres must shrink.
            mesh.positions()
                .iter()
                .map(|p| Vec3::new(p.x, p.y, 0.25 * p.z))
                .collect(),
        ];
        let spheres = [
            Sphere {
                centre: Vec3::new(0.2, 0.0, 0.0),
                radius: 0.4,
            },
            Sphere {
                centre: Vec3::new(-0.6, 0.1, 0.1),
                radius: 0.3,
            },
        ];
        let fit = fit_examples(&mesh, &examples, &spheres, 0.45).unwrap();
        assert_eq!(fit.clamped, vec![0, 0, 0]);
        for (s, sphere) in spheres.iter().enumerate() {
            assert!((fit.centres[s] - sphere.centre).length() < 1e-5);
            assert!((fit.centres[2 + s] - (sphere.centre + shift)).length() < 1e-5);
            assert!((fit.radii[s] - fit.radii[2 + s]).abs() < 1e-5);
            // Squashed: z half-extent 0.125, the centre's z scaled by ¼.
            let c = fit.centres[4 + s];
            assert!((c.z - 0.25 * sphere.centre.z).abs() < 1e-5);
            let exact = (0.125 - c.z.abs())
                .min(0.5 - c.y.abs())
                .min(1.0 - c.x.abs());
            assert!((fit.radii[4 + s] - exact).abs() < 1e-5);
        }
        // Rest radii: the inside distance at the rest centre, capped by max_radius.
        assert!((fit.radii[0] - 0.45).abs() < 1e-6);
        assert!((fit.radii[1] - 0.4).abs() < 1e-5);
    }

    #[test]
    fn example_errors_are_typed() {
        let mesh = box_mesh(Vec3::ONE);
        let s = [Sphere {
            centre: Vec3::ZERO,
            radius: 0.5,
        }];
        assert!(matches!(
            fit_examples(&mesh, &[], &s, 1.0),
            Err(DeformError::Empty { what: "examples" })
        ));
        let short = vec![mesh.positions()[..7].to_vec()];
        assert!(matches!(
            fit_examples(&mesh, &short, &s, 1.0),
            Err(DeformError::ExampleVertexCount {
                example: 0,
                expected: 8,
                actual: 7
            })
        ));
        let mut nan = vec![mesh.positions().to_vec(), mesh.positions().to_vec()];
        nan[1][5].y = f32::NAN;
        assert!(matches!(
            fit_examples(&mesh, &nan, &s, 1.0),
            Err(DeformError::NonFiniteExamplePosition {
                example: 1,
                vertex: 5
            })
        ));
    }
}
