//! `SphereProxyShape`: a union of balls whose centres and radii change between steps, as a parry composite shape over an eagerly refit `Bvh`.
//!
//! Exposing the union as a [`CompositeShape`] whose parts are [`Ball`]s lets parry's
//! `DefaultQueryDispatcher` handle it against every parry shape (convex shapes, `TriMesh`,
//! height fields, compounds and other proxies): contact manifolds, intersection tests, distances,
//! shape casts and nonlinear casts (so CCD), while ray casts and point queries go through
//! [`CompositeShapeRef`]. All of those read the BVH's stored boxes, so every update refits it
//! at once (a few microseconds for hundreds of spheres). `is_deformable()` is `true`, so contact
//! manifolds never reuse points cached under the previous shape. With
//! [`crate::query::DeformDispatcher`] first in the chain, its pairs are handled there instead:
//! manifolds keyed per (ball, other part) and re-keyed every step, so warm starts survive the
//! workspace reset of `shape_mut()` (parry's composite path loses them for single-manifold
//! pairs).
//!
//! Continuous collision detection: Rapier sweeps a body that moves more than half its
//! `ccd_thickness` per step. The union reports its largest radius — a lower bound of half its
//! width in every direction, what Rapier's convex shapes report (half their thinnest extent) —
//! not its smallest ball, which made a car at highway speed "fast" at every step. The sweep of
//! a custom shape is a nonlinear cast through the narrow phase's dispatcher: install
//! [`crate::query::DeformDispatcher`] first, whose cast judges each ball by its own radius and
//! ignores grazing contacts (parry's composite cast clamps a car sliding on the ground to a
//! fraction of its motion).
//!
//! Mass properties are explicit: by default those of the closed rest mesh (or, built from bare
//! spheres, of their sampled union) scaled by the collider's density. They do not follow the
//! blend; set them with [`SphereProxyShape::set_unit_mass_properties`] when the plastic change
//! is large enough to matter.

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::{Aabb, BoundingSphere};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy};
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{PointProjection, PointQuery, Ray, RayCast, RayIntersection};
use rapier3d::parry::shape::{
    Ball, CompositeShape, CompositeShapeRef, Compound, FeatureId, Shape, SharedShape,
    TypedCompositeShape,
};

use crate::error::{DeformError, Result};
use crate::governor::ConvexWeights;
use crate::math::{Mat3, Vec3};
use crate::proxy::{Sphere, SphereProxy, check_spheres};

/// Cells along the longest side of the union when its mass properties are sampled.
const MASS_SAMPLING_RESOLUTION: usize = 48;

/// A union of balls as a parry [`Shape`] (`ShapeType::Custom`), for a Rapier collider whose
/// spheres move and resize between steps.
///
/// Part `i` of the composite is `Ball::new(radii[i])` at `Pose::from_translation(centres[i])`;
/// query results carry `i` as their sub-shape id.
///
/// # Performance
/// [`SphereProxyShape::set_spheres`] and [`SphereProxyShape::blend_from`] are O(S) plus an O(S)
/// BVH refit; queries are those of parry's composite shapes (O(log S) per touched part).
#[derive(Clone, Debug)]
pub struct SphereProxyShape {
    centres: Vec<Vec3>,
    radii: Vec<f32>,
    bvh: Bvh,
    unit_mass: MassProperties,
    ccd_thickness: f32,
}

impl SphereProxyShape {
    /// A proxy from bare spheres; its unit-density mass properties are those of their union,
    /// sampled on a grid (overlaps counted once).
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no sphere, [`DeformError::LengthMismatch`] for different
    /// lengths, [`DeformError::NonFinitePosition`] / [`DeformError::PositionOutOfRange`] for a
    /// non-finite or too distant centre, [`DeformError::InvalidElement`] for a negative,
    /// non-finite or too large radius (limits in [`crate::limits`]),
    /// [`DeformError::LimitExceeded`] for more than [`crate::limits::MAX_SPHERES`] spheres.
    ///
    /// # Performance
    /// O(S log S) for the BVH plus O(48³ + Σ_s (r_s / h)³) for the mass sampling.
    pub fn new(centres: Vec<Vec3>, radii: Vec<f32>) -> Result<Self> {
        let unit_mass = {
            validate(&centres, &radii)?;
            union_mass_properties(&centres, &radii, MASS_SAMPLING_RESOLUTION)
        };
        Self::with_unit_mass_properties(centres, radii, unit_mass)
    }

    /// A proxy from bare spheres and explicit unit-density mass properties.
    ///
    /// # Errors
    /// As [`SphereProxyShape::new`].
    ///
    /// # Performance
    /// O(S log S).
    pub fn with_unit_mass_properties(
        centres: Vec<Vec3>,
        radii: Vec<f32>,
        unit_mass: MassProperties,
    ) -> Result<Self> {
        validate(&centres, &radii)?;
        let aabbs: Vec<Aabb> = centres
            .iter()
            .zip(&radii)
            .map(|(c, r)| ball_aabb(*c, *r))
            .collect();
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
        let mut shape = Self {
            centres,
            radii,
            bvh,
            unit_mass,
            ccd_thickness: 0.0,
        };
        shape.ccd_thickness = shape.union_ccd_thickness();
        Ok(shape)
    }

    /// The rest spheres of a precomputed proxy, with the rest mesh's mass properties.
    ///
    /// # Errors
    /// What [`SphereProxy::validate`] rejects.
    ///
    /// # Performance
    /// O(S log S).
    pub fn from_proxy(proxy: &SphereProxy) -> Result<Self> {
        proxy.validate()?;
        let spheres = proxy.rest_spheres();
        Self::with_unit_mass_properties(
            spheres.iter().map(|s| s.centre).collect(),
            spheres.iter().map(|s| s.radius).collect(),
            proxy.unit_mass_properties(),
        )
    }

    /// Number of spheres.
    pub fn sphere_count(&self) -> usize {
        self.centres.len()
    }

    /// Current centres (shape-local frame).
    pub fn centres(&self) -> &[Vec3] {
        &self.centres
    }

    /// Current radii.
    pub fn radii(&self) -> &[f32] {
        &self.radii
    }

    /// Sphere `i`, `None` out of range.
    pub fn sphere(&self, i: usize) -> Option<Sphere> {
        Some(Sphere {
            centre: *self.centres.get(i)?,
            radius: self.radii[i],
        })
    }

    /// The BVH over the spheres' boxes (always up to date).
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Unit-density mass properties (what [`Shape::mass_properties`] scales by the density).
    pub fn unit_mass_properties(&self) -> MassProperties {
        self.unit_mass
    }

    /// Replaces the unit-density mass properties (e.g. after a large plastic change).
    pub fn set_unit_mass_properties(&mut self, unit_mass: MassProperties) {
        self.unit_mass = unit_mass;
    }

    /// Replaces every sphere and refits the BVH; on error nothing changes.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when the counts differ from [`Self::sphere_count`]; the
    /// errors of [`SphereProxyShape::new`] for bad values.
    ///
    /// # Performance
    /// O(S).
    pub fn set_spheres(&mut self, centres: &[Vec3], radii: &[f32]) -> Result<()> {
        self.check_count(centres.len())?;
        validate(centres, radii)?;
        self.centres.copy_from_slice(centres);
        self.radii.copy_from_slice(radii);
        self.refit();
        Ok(())
    }

    /// Blends the spheres of `proxy` with per-vertex example weights (see
    /// [`SphereProxy::blend_into`]) and refits the BVH; on error nothing changes.
    ///
    /// # Errors
    /// What [`SphereProxy::blend_into`] rejects; [`DeformError::LengthMismatch`] when `proxy`
    /// does not have [`Self::sphere_count`] spheres.
    ///
    /// # Performance
    /// O(S · k) for k example weights per vertex, no allocation.
    pub fn blend_from(
        &mut self,
        proxy: &SphereProxy,
        example_weights: &ConvexWeights,
    ) -> Result<()> {
        self.check_count(proxy.sphere_count())?;
        let (mut centres, mut radii) = (
            std::mem::take(&mut self.centres),
            std::mem::take(&mut self.radii),
        );
        let saved = (centres.clone(), radii.clone());
        let result = proxy.blend_into(example_weights, &mut centres, &mut radii);
        self.finish_blend(result, centres, radii, saved)
    }

    /// Blends the spheres of `proxy` with one global weight per example (see
    /// [`SphereProxy::blend_global_into`]) and refits the BVH; on error nothing changes.
    ///
    /// # Errors
    /// What [`SphereProxy::blend_global_into`] rejects; [`DeformError::LengthMismatch`] when
    /// `proxy` does not have [`Self::sphere_count`] spheres.
    ///
    /// # Performance
    /// O(S · E).
    pub fn blend_global_from(&mut self, proxy: &SphereProxy, weights: &[f32]) -> Result<()> {
        self.check_count(proxy.sphere_count())?;
        let (mut centres, mut radii) = (
            std::mem::take(&mut self.centres),
            std::mem::take(&mut self.radii),
        );
        let saved = (centres.clone(), radii.clone());
        let result = proxy.blend_global_into(weights, &mut centres, &mut radii);
        self.finish_blend(result, centres, radii, saved)
    }

    fn finish_blend(
        &mut self,
        result: Result<()>,
        centres: Vec<Vec3>,
        radii: Vec<f32>,
        saved: (Vec<Vec3>, Vec<f32>),
    ) -> Result<()> {
        let result = result.and_then(|()| validate(&centres, &radii));
        match result {
            Ok(()) => {
                self.centres = centres;
                self.radii = radii;
                self.refit();
                Ok(())
            }
            Err(e) => {
                (self.centres, self.radii) = saved;
                Err(e)
            }
        }
    }

    /// The same spheres as a parry [`Compound`] of [`Ball`]s (a reference for tests and for
    /// users who want a static snapshot).
    ///
    /// # Performance
    /// O(S log S).
    pub fn to_compound(&self) -> Compound {
        Compound::new(
            self.centres
                .iter()
                .zip(&self.radii)
                .map(|(c, r)| (Pose::from_translation(*c), SharedShape::ball(*r)))
                .collect(),
        )
    }

    fn check_count(&self, actual: usize) -> Result<()> {
        if actual != self.centres.len() {
            return Err(DeformError::LengthMismatch {
                what: "spheres of the proxy shape",
                expected: self.centres.len(),
                actual,
            });
        }
        Ok(())
    }

    fn refit(&mut self) {
        for (i, (c, r)) in self.centres.iter().zip(&self.radii).enumerate() {
            let _ = self
                .bvh
                .update_partially_if_present(ball_aabb(*c, *r), i as u32, 0.0);
        }
        self.bvh.refit_without_opt();
        self.ccd_thickness = self.union_ccd_thickness();
    }

    /// Rapier's CCD thickness of the union: the largest radius, a lower bound of half the
    /// union's width in every direction (the union contains that ball), which is what Rapier's
    /// convex shapes report (half their thinnest extent). Never zero.
    fn union_ccd_thickness(&self) -> f32 {
        let r = self.radii.iter().copied().fold(0.0f32, f32::max);
        if r > 0.0 {
            r
        } else {
            // Every ball collapsed to a point: a thickness that is small but never zero.
            (1e-3 * self.bvh.root_aabb().extents().max_element()).max(1e-6)
        }
    }
}

fn validate(centres: &[Vec3], radii: &[f32]) -> Result<()> {
    if centres.is_empty() {
        return Err(DeformError::Empty {
            what: "spheres of the proxy shape",
        });
    }
    if centres.len() != radii.len() {
        return Err(DeformError::LengthMismatch {
            what: "radii (one per centre)",
            expected: centres.len(),
            actual: radii.len(),
        });
    }
    check_spheres(centres.iter().copied(), radii.iter().copied())
}

fn ball_aabb(c: Vec3, r: f32) -> Aabb {
    Aabb::from_half_extents(c, Vec3::splat(r))
}

/// Unit-density mass properties of a union of balls, sampled at cell centres (each cell a
/// small cube with its own inertia).
fn union_mass_properties(centres: &[Vec3], radii: &[f32], resolution: usize) -> MassProperties {
    let (mut mins, mut maxs) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for (c, r) in centres.iter().zip(radii) {
        mins = mins.min(*c - Vec3::splat(*r));
        maxs = maxs.max(*c + Vec3::splat(*r));
    }
    let h = (maxs - mins).max_element() / resolution as f32;
    // Cell centres cannot resolve cells narrower than a few ulps of the coordinates.
    let ulp = mins.abs().max(maxs.abs()).max_element() * f32::EPSILON;
    let h = if h > 64.0 * ulp { h } else { f32::INFINITY };
    let cells = (maxs - mins) / h;
    let dims = [0, 1, 2].map(|a| (cells[a].ceil() as usize).max(1));
    let dims = if h.is_finite() { dims } else { [0; 3] };
    let mut inside = vec![false; dims[0] * dims[1] * dims[2]];
    // Balls narrower than two cells would be missed or badly sampled by the cell centres (two
    // small balls far apart would weigh nothing): they count exactly, overlaps ignored. With
    // no usable grid (`h` infinite: all balls tiny against their coordinates' ulps) every ball
    // counts that way.
    let mut small = MassProperties::default();
    for (c, r) in centres.iter().zip(radii) {
        if *r < SMALL_BALL_CELLS * h {
            let ball = MassProperties::from_ball(1.0, *r);
            small += MassProperties::new(*c, ball.mass(), ball.principal_inertia());
            continue;
        }
        let lo = ((*c - Vec3::splat(*r) - mins) / h).floor().max(Vec3::ZERO);
        let hi = ((*c + Vec3::splat(*r) - mins) / h).ceil();
        for k in lo.z as usize..(hi.z as usize).min(dims[2]) {
            for j in lo.y as usize..(hi.y as usize).min(dims[1]) {
                for i in lo.x as usize..(hi.x as usize).min(dims[0]) {
                    let p = mins + h * Vec3::new(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5);
                    if (p - *c).length_squared() <= r * r {
                        inside[i + dims[0] * (j + dims[1] * k)] = true;
                    }
                }
            }
        }
    }
    let cell_volume = (h as f64).powi(3);
    let points: Vec<Vec3> = inside
        .iter()
        .enumerate()
        .filter(|(_, b)| **b)
        .map(|(n, _)| {
            let (i, j, k) = (
                n % dims[0],
                (n / dims[0]) % dims[1],
                n / (dims[0] * dims[1]),
            );
            mins + h * Vec3::new(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5)
        })
        .collect();
    if points.is_empty() {
        return small;
    }
    let mass = cell_volume * points.len() as f64;
    let com = points
        .iter()
        .map(|p| p.as_dvec3())
        .sum::<rapier3d::parry::glamx::DVec3>()
        / points.len() as f64;
    let own = cell_volume * (h as f64).powi(2) / 6.0;
    let mut inertia = [[0.0f64; 3]; 3];
    for p in &points {
        let r = p.as_dvec3() - com;
        let r2 = r.length_squared();
        let rr = r.to_array();
        for (a, row) in inertia.iter_mut().enumerate() {
            for (b, entry) in row.iter_mut().enumerate() {
                let delta = if a == b { r2 + own / cell_volume } else { 0.0 };
                *entry += cell_volume * (delta - rr[a] * rr[b]);
            }
        }
    }
    let m = Mat3::from_cols_array_2d(&inertia.map(|row| row.map(|x| x as f32)));
    MassProperties::with_inertia_matrix(com.as_vec3(), mass as f32, m) + small
}

/// Balls with a radius below this many sampling cells get exact mass properties instead of
/// grid samples.
const SMALL_BALL_CELLS: f32 = 2.0;

impl CompositeShape for SphereProxyShape {
    fn map_part_at(
        &self,
        shape_id: u32,
        f: &mut dyn FnMut(Option<&Pose>, &dyn Shape, Option<&dyn NormalConstraints>),
    ) {
        let _ = self.map_untyped_part_at(shape_id, f);
    }

    fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    fn is_deformable(&self) -> bool {
        true
    }
}

impl TypedCompositeShape for SphereProxyShape {
    type PartShape = Ball;
    type PartNormalConstraints = ();

    fn map_typed_part_at<T>(
        &self,
        shape_id: u32,
        mut f: impl FnMut(Option<&Pose>, &Self::PartShape, Option<&Self::PartNormalConstraints>) -> T,
    ) -> Option<T> {
        let i = shape_id as usize;
        let pose = Pose::from_translation(*self.centres.get(i)?);
        Some(f(Some(&pose), &Ball::new(self.radii[i]), None))
    }

    fn map_untyped_part_at<T>(
        &self,
        shape_id: u32,
        mut f: impl FnMut(Option<&Pose>, &dyn Shape, Option<&dyn NormalConstraints>) -> T,
    ) -> Option<T> {
        let i = shape_id as usize;
        let pose = Pose::from_translation(*self.centres.get(i)?);
        Some(f(Some(&pose), &Ball::new(self.radii[i]), None))
    }
}

impl RayCast for SphereProxyShape {
    fn cast_local_ray(&self, ray: &Ray, max_time_of_impact: Real, solid: bool) -> Option<Real> {
        CompositeShapeRef(self)
            .cast_local_ray(ray, max_time_of_impact, solid)
            .map(|hit| hit.1)
    }

    fn cast_local_ray_and_get_normal(
        &self,
        ray: &Ray,
        max_time_of_impact: Real,
        solid: bool,
    ) -> Option<RayIntersection> {
        CompositeShapeRef(self)
            .cast_local_ray_and_get_normal(ray, max_time_of_impact, solid)
            .map(|(part, hit)| hit.with_subshape(part))
    }
}

impl PointQuery for SphereProxyShape {
    fn project_local_point(&self, point: Vec3, solid: bool) -> PointProjection {
        CompositeShapeRef(self)
            .project_local_point(point, Real::MAX, solid)
            .map(|(part, proj)| proj.with_subshape(part))
            .unwrap_or(PointProjection::new(false, point))
    }

    fn project_local_point_and_get_feature(&self, point: Vec3) -> (PointProjection, FeatureId) {
        CompositeShapeRef(self)
            .project_local_point_and_get_feature(point, Real::MAX)
            .map(|(part, proj, feature)| (proj.with_subshape(part), feature))
            .unwrap_or((PointProjection::new(false, point), FeatureId::Unknown))
    }

    fn contains_local_point(&self, point: Vec3) -> bool {
        CompositeShapeRef(self)
            .contains_local_point(point)
            .is_some()
    }
}

impl Shape for SphereProxyShape {
    fn compute_local_aabb(&self) -> Aabb {
        self.bvh.root_aabb()
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        self.bvh.root_aabb().bounding_sphere()
    }

    fn scale_dyn(&self, scale: Vec3, _num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        // Balls stay balls only under uniform scaling.
        let s = scale.x;
        if !(s > 0.0 && scale.y == s && scale.z == s) {
            return None;
        }
        let centres = self.centres.iter().map(|c| *c * s).collect();
        let radii = self.radii.iter().map(|r| r * s).collect();
        let u = &self.unit_mass;
        let unit_mass = MassProperties::with_principal_inertia_frame(
            u.local_com * s,
            u.mass() * s.powi(3),
            u.principal_inertia() * s.powi(5),
            u.principal_inertia_local_frame,
        );
        Self::with_unit_mass_properties(centres, radii, unit_mass)
            .ok()
            .map(|shape| Box::new(shape) as Box<dyn Shape>)
    }

    // `ccd_thickness` is the largest radius (see the module docs).
    custom_shape_methods!();

    fn ccd_angular_thickness(&self) -> Real {
        std::f32::consts::PI
    }

    fn as_composite_shape(&self) -> Option<&(dyn CompositeShape + Sync)> {
        Some(self as &(dyn CompositeShape + Sync))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d::parry::query::DefaultQueryDispatcher;

    fn two_balls() -> SphereProxyShape {
        SphereProxyShape::new(vec![Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0)], vec![1.0, 0.5]).unwrap()
    }

    #[test]
    fn union_mass_matches_disjoint_balls() {
        let shape = two_balls();
        let mp = shape.mass_properties(2.0);
        let v0 = 4.0 / 3.0 * std::f32::consts::PI;
        let exact_mass = 2.0 * v0 * (1.0 + 0.125);
        assert!(
            (mp.mass() - exact_mass).abs() / exact_mass < 0.02,
            "{}",
            mp.mass()
        );
        let exact_com = 3.0 * 0.125 / 1.125;
        assert!((mp.local_com.x - exact_com).abs() < 0.02);
    }

    #[test]
    fn set_spheres_refits_the_bvh_and_rejects_bad_input() {
        let mut shape = two_balls();
        shape
            .set_spheres(
                &[Vec3::new(0.0, 5.0, 0.0), Vec3::new(1.0, 0.0, 0.0)],
                &[0.25, 2.0],
            )
            .unwrap();
        let aabb = shape.compute_local_aabb();
        assert_eq!(aabb.mins, Vec3::new(-1.0, -2.0, -2.0));
        assert_eq!(aabb.maxs, Vec3::new(3.0, 5.25, 2.0));
        assert_eq!(shape.ccd_thickness(), 2.0);
        let before = (shape.centres().to_vec(), shape.radii().to_vec());
        assert!(shape.set_spheres(&[Vec3::ZERO], &[1.0]).is_err());
        assert!(
            shape
                .set_spheres(&[Vec3::ZERO, Vec3::NAN], &[1.0, 1.0])
                .is_err()
        );
        assert!(
            shape
                .set_spheres(&[Vec3::ZERO, Vec3::ONE], &[1.0, -1.0])
                .is_err()
        );
        assert_eq!((shape.centres().to_vec(), shape.radii().to_vec()), before);
        shape
            .set_spheres(&[Vec3::ZERO, Vec3::ONE], &[0.0, 0.0])
            .unwrap();
        assert!(shape.ccd_thickness() > 0.0);
    }

    #[test]
    fn point_queries_agree_with_the_compound() {
        let shape = two_balls();
        let compound = shape.to_compound();
        for p in [
            Vec3::new(0.2, 0.1, 0.0),
            Vec3::new(1.7, 0.3, 0.0),
            Vec3::new(3.0, 2.0, 0.0),
            Vec3::new(-4.0, 0.0, 1.0),
        ] {
            let a = shape.project_local_point(p, true);
            let b = compound.project_local_point(p, true);
            assert_eq!(a.is_inside, b.is_inside);
            assert!((a.point - b.point).length() < 1e-6);
            assert_eq!(a.subshape, b.subshape);
            assert_eq!(
                shape.contains_local_point(p),
                compound.contains_local_point(p)
            );
        }
    }

    #[test]
    fn composite_contacts_come_from_the_default_dispatcher() {
        let shape = two_balls();
        let ball = Ball::new(0.5);
        let pos12 = Pose::from_translation(Vec3::new(3.0, 0.9, 0.0));
        let c = rapier3d::parry::query::contact(&Pose::IDENTITY, &shape, &pos12, &ball, 0.0)
            .unwrap()
            .unwrap();
        assert!((c.dist - (-0.1)).abs() < 1e-5);
        let _ = DefaultQueryDispatcher;
    }
}
