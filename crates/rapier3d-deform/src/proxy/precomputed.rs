//! The precomputed sphere proxy of one mesh with example poses: the whole offline pipeline (distance grid, packing, per-example fit) and the data a game ships.

use std::time::Instant;

use rapier3d::parry::mass_properties::MassProperties;

use super::{ExampleSpheres, PackOptions, SdfGrid, SdfOptions, Sphere, fit_examples, pack_spheres};
use crate::error::{DeformError, Result};
use crate::limits::{MAX_COORDINATE, MAX_SPHERES, check_count};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Options of [`SphereProxy::build`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyOptions {
    /// Distance grid sampling.
    pub sdf: SdfOptions,
    /// Packing limits, in the mesh's length unit. `max_radius` also caps the per-example radii.
    pub pack: PackOptions,
}

impl ProxyOptions {
    /// Options scaled to `mesh`: a distance grid of 64 cells along the mesh's longest side `L`,
    /// spheres of radius `L/64` to `L/10`, at most `max_spheres` of them (the car of Jones et al.
    /// 2017 uses 66, 114 or 320; more spheres fit dents more closely and cost more per contact).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when `max_spheres` is 0.
    ///
    /// # Performance
    /// O(V) for the mesh's bounding box.
    pub fn sized_for(mesh: &TriangleMesh, max_spheres: usize) -> Result<Self> {
        if max_spheres == 0 {
            return Err(DeformError::InvalidParameter {
                name: "max_spheres",
                value: 0.0,
                reason: "at least one sphere",
            });
        }
        let (lo, hi) = mesh.bounds();
        let longest = (hi - lo).max_element();
        Ok(Self {
            sdf: SdfOptions {
                resolution: 64,
                ..SdfOptions::default()
            },
            pack: PackOptions {
                min_radius: longest / 64.0,
                max_radius: longest / 10.0,
                max_spheres,
            },
        })
    }
}

/// What [`SphereProxy::build`] did, for logs and benchmarks.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildReport {
    /// Grid points along x, y, z.
    pub grid_dims: [usize; 3],
    /// Grid spacing.
    pub grid_spacing: f32,
    /// Number of spheres packed.
    pub spheres: usize,
    /// Per example, radii that were negative and clamped to 0.
    pub clamped_radii: Vec<usize>,
    /// Seconds spent sampling the distance grid.
    pub sdf_seconds: f64,
    /// Seconds spent packing.
    pub pack_seconds: f64,
    /// Seconds spent fitting the examples.
    pub fit_seconds: f64,
}

/// A sphere-union collision proxy for a mesh with example poses (Jones et al., MiG 2017).
///
/// It holds, per example `e` and sphere `s`, a centre `c[e][s]` and radius `r[e][s]`, and per
/// sphere the rest vertex nearest to its rest centre. At run time a sphere is the blend
/// `c_s = Σ_e β_e c[e][s]`, `r_s = Σ_e β_e r[e][s]` with the example weights `β` of that vertex
/// (see [`SphereProxy::blend_into`]). Pack it once offline and serialize it (feature
/// `serde-serialize`); loading costs no geometry processing.
///
/// # Performance
/// Blending is O(spheres × examples) (with per-vertex weights: × the vertex's non-zero
/// example weights).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct SphereProxy {
    pub(super) rest: Vec<Sphere>,
    pub(super) example_count: usize,
    pub(super) centres: Vec<Vec3>,
    pub(super) radii: Vec<f32>,
    pub(super) sphere_vertex: Vec<u32>,
    pub(super) vertex_count: usize,
    pub(super) unit_mass: MassProperties,
}

impl SphereProxy {
    /// Runs the offline pipeline on a closed rest mesh and its example poses: signed distance
    /// grid, greedy packing, per-example fit (mean value coordinates; see
    /// [`crate::proxy::example_fit`]).
    ///
    /// `examples[e]` are the positions of example `e` over the rest triangles. The rest pose is
    /// not implied: include it (usually first) if the run-time weights can select it.
    ///
    /// # Errors
    /// Everything [`SdfGrid::from_mesh`], [`pack_spheres`] and [`fit_examples`] reject: open or
    /// self-intersecting meshes, an empty example set, examples whose vertex count differs from
    /// the rest mesh's, non-finite positions, bad options.
    ///
    /// # Performance
    /// O(N log T) for the N grid points, plus O(S (T + V E)) for the fit.
    pub fn build(
        rest: &TriangleMesh,
        examples: &[Vec<Vec3>],
        options: &ProxyOptions,
    ) -> Result<(Self, BuildReport)> {
        rest.check_examples(examples)?;
        let start = Instant::now();
        let grid = SdfGrid::from_mesh(rest, &options.sdf)?;
        let sdf_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let spheres = pack_spheres(&grid, &options.pack)?;
        let pack_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let fit = fit_examples(rest, examples, &spheres, options.pack.max_radius)?;
        let fit_seconds = start.elapsed().as_secs_f64();
        let report = BuildReport {
            grid_dims: grid.dims(),
            grid_spacing: grid.spacing(),
            spheres: spheres.len(),
            clamped_radii: fit.clamped.clone(),
            sdf_seconds,
            pack_seconds,
            fit_seconds,
        };
        let proxy = Self::from_parts(rest, spheres, fit)?;
        Ok((proxy, report))
    }

    /// Assembles a proxy from rest spheres and their per-example fit (for custom pipelines).
    /// Each sphere is mapped to the rest vertex nearest its centre; the unit-density mass
    /// properties are those of the closed rest mesh.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `fit` does not hold `spheres.len()` spheres per
    /// example, [`DeformError::Empty`] for no spheres, [`DeformError::NonFinitePosition`] or
    /// [`DeformError::InvalidParameter`] for a non-finite centre or a negative radius.
    ///
    /// # Performance
    /// O(S · V) (nearest vertex by brute force) + O(T).
    pub fn from_parts(
        rest: &TriangleMesh,
        spheres: Vec<Sphere>,
        fit: ExampleSpheres,
    ) -> Result<Self> {
        if spheres.is_empty() {
            return Err(DeformError::Empty { what: "spheres" });
        }
        let expected = fit.example_count * spheres.len();
        if fit.sphere_count != spheres.len()
            || fit.centres.len() != expected
            || fit.radii.len() != expected
        {
            return Err(DeformError::LengthMismatch {
                what: "per-example spheres",
                expected,
                actual: fit.centres.len().min(fit.radii.len()),
            });
        }
        let rest_centres = spheres.iter().map(|s| s.centre);
        let rest_radii = spheres.iter().map(|s| s.radius);
        check_spheres(
            rest_centres.chain(fit.centres.iter().copied()),
            rest_radii.chain(fit.radii.iter().copied()),
        )?;
        let sphere_vertex = spheres
            .iter()
            .map(|s| nearest_vertex(rest.positions(), s.centre))
            .collect();
        let unit_mass = MassProperties::from_trimesh(1.0, rest.positions(), rest.triangles());
        Ok(Self {
            rest: spheres,
            example_count: fit.example_count,
            centres: fit.centres,
            radii: fit.radii,
            sphere_vertex,
            vertex_count: rest.vertex_count(),
            unit_mass,
        })
    }

    /// Number of spheres.
    pub fn sphere_count(&self) -> usize {
        self.rest.len()
    }

    /// Number of example poses.
    pub fn example_count(&self) -> usize {
        self.example_count
    }

    /// Number of vertices of the rest mesh (the rows the per-vertex weights must have).
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The packed rest spheres.
    pub fn rest_spheres(&self) -> &[Sphere] {
        &self.rest
    }

    /// Sphere `s` of example `e`, `None` out of range.
    pub fn example_sphere(&self, e: usize, s: usize) -> Option<Sphere> {
        (e < self.example_count && s < self.rest.len()).then(|| {
            let i = e * self.rest.len() + s;
            Sphere {
                centre: self.centres[i],
                radius: self.radii[i],
            }
        })
    }

    /// The centres of example `e`'s spheres (empty out of range).
    pub fn example_centres(&self, e: usize) -> &[Vec3] {
        let n = self.rest.len();
        self.centres.get(e * n..(e + 1) * n).unwrap_or(&[])
    }

    /// The radii of example `e`'s spheres (empty out of range).
    pub fn example_radii(&self, e: usize) -> &[f32] {
        let n = self.rest.len();
        self.radii.get(e * n..(e + 1) * n).unwrap_or(&[])
    }

    /// The rest vertex whose example weights drive each sphere.
    pub fn sphere_vertices(&self) -> &[u32] {
        &self.sphere_vertex
    }

    /// Mass properties of the closed rest mesh at density 1 (what
    /// [`crate::shape::SphereProxyShape`] reports, scaled by the collider's density).
    pub fn unit_mass_properties(&self) -> MassProperties {
        self.unit_mass
    }

    /// Checks the internal array lengths and indices (a deserialized proxy is not validated
    /// otherwise); every run-time method calls it.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] or [`DeformError::IndexOutOfRange`] naming the
    /// inconsistent array, [`DeformError::Empty`] for a proxy without spheres or examples.
    ///
    /// # Performance
    /// O(S).
    pub fn validate(&self) -> Result<()> {
        let n = self.rest.len();
        let expected = self.example_count * n;
        for (what, actual) in [
            ("proxy example centres", self.centres.len()),
            ("proxy example radii", self.radii.len()),
        ] {
            if actual != expected {
                return Err(DeformError::LengthMismatch {
                    what,
                    expected,
                    actual,
                });
            }
        }
        if self.sphere_vertex.len() != n {
            return Err(DeformError::LengthMismatch {
                what: "proxy sphere-to-vertex map",
                expected: n,
                actual: self.sphere_vertex.len(),
            });
        }
        if n == 0 || self.example_count == 0 {
            return Err(DeformError::Empty {
                what: "sphere proxy",
            });
        }
        if let Some(&v) = self
            .sphere_vertex
            .iter()
            .find(|&&v| v as usize >= self.vertex_count)
        {
            return Err(DeformError::IndexOutOfRange {
                what: "proxy sphere vertex",
                index: v as usize,
                len: self.vertex_count,
            });
        }
        Ok(())
    }
}

/// Rejects non-finite centres and negative or non-finite radii.
pub(crate) fn check_spheres(
    centres: impl IntoIterator<Item = Vec3>,
    radii: impl IntoIterator<Item = f32>,
) -> Result<()> {
    let mut count = 0;
    for (index, c) in centres.into_iter().enumerate() {
        crate::math::validate_positions("sphere centre", &[c]).map_err(|e| match e {
            DeformError::NonFinitePosition { what, .. } => {
                DeformError::NonFinitePosition { what, index }
            }
            DeformError::PositionOutOfRange {
                what, value, max, ..
            } => DeformError::PositionOutOfRange {
                what,
                index,
                value,
                max,
            },
            other => other,
        })?;
        count += 1;
    }
    check_count("spheres", count, MAX_SPHERES)?;
    for (index, r) in radii.into_iter().enumerate() {
        if !(r.is_finite() && (0.0..=MAX_COORDINATE).contains(&r)) {
            return Err(DeformError::InvalidElement {
                what: "sphere radius",
                index,
                value: r,
                reason: "must be finite, non-negative and at most limits::MAX_COORDINATE",
            });
        }
    }
    Ok(())
}

fn nearest_vertex(positions: &[Vec3], p: Vec3) -> u32 {
    let mut best = (f32::INFINITY, 0u32);
    for (v, q) in positions.iter().enumerate() {
        let d = (*q - p).length_squared();
        if d < best.0 {
            best = (d, v as u32);
        }
    }
    best.1
}
