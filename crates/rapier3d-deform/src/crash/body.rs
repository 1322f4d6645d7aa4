//! One deformable body in the pipeline: its plastic state, its collider (sphere proxy, or a baseline), and how both are brought up to date after a step.

use std::sync::Arc;

use rapier3d::dynamics::{RigidBody, RigidBodyHandle, RigidBodySet};
use rapier3d::geometry::{ColliderHandle, ColliderSet, SharedShape};
use rapier3d::math::Pose;
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Shape;

use super::asset::{BoundMesh, PlasticAsset};
use super::example_mesh::ExampleMesh;
use super::prepare::BodyStep;
use super::self_intersection_guard::{GuardOutcome, SelfIntersectionGuard};
use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::plasticity::{
    BodyMotion, PlasticState, SphereMassModel, VertexGrid, continue_motion, world_inertia,
};
use crate::shape::{DeformableMeshShape, SphereProxyShape};

/// Which collider a deformable body has and how it is kept up to date.
///
/// [`DeformableCollider::SphereProxy`] is the crate's route; the others are the baselines a user
/// would write without it, kept here so that benchmarks compare them with the *same* plasticity
/// (same contacts, same weights).
#[derive(Clone, Debug)]
pub enum DeformableCollider {
    /// A [`SphereProxyShape`] whose spheres are blended from the body's example weights; it is
    /// written (one `shape_mut`) only when some sphere drifted more than the pipeline's shape
    /// tolerance from what the collider holds.
    SphereProxy,
    /// Baseline: a parry `Compound` of the blended balls, rebuilt with `set_shape` every step.
    RebuiltCompound,
    /// Baseline: a parry `TriMesh` with `TriMeshFlags::DEFORMABLE` of a mesh bound to the cage,
    /// updated with `set_vertices` every step.
    TriMesh(Arc<BoundMesh>),
    /// A [`DeformableMeshShape`] (BN-Tree) of a mesh rigged with the cage's examples: only the
    /// vertices reading cage vertices whose weights changed are re-weighted, in the steps they
    /// change (O(changed), no per-step cost at rest), and changes that would push the mesh
    /// through itself are undone ([`super::SelfIntersectionGuard`], when
    /// [`super::PipelineParams::self_intersection_guard`] is on).
    Mesh(Arc<ExampleMesh>),
}

/// The collider-specific part of a body.
#[derive(Debug)]
pub(crate) enum ColliderState {
    Proxy,
    Compound,
    TriMesh {
        mesh: Arc<BoundMesh>,
        grid: VertexGrid,
        positions: Vec<Vec3>,
    },
    Mesh {
        mesh: Arc<ExampleMesh>,
        guard: Box<SelfIntersectionGuard>,
    },
}

/// A deformable body and everything the pipeline keeps about it.
#[derive(Debug)]
pub(crate) struct Body {
    pub rigid_body: RigidBodyHandle,
    pub collider: ColliderHandle,
    pub asset: Arc<PlasticAsset>,
    pub state: PlasticState,
    pub kind: ColliderState,
    pub mass: SphereMassModel,
    pub restitution0: f32,
    pub restitution: f32,
    /// Eager vertices deferred since the last push (their weights may lag; see `reblend`).
    deferred: Vec<u32>,
    /// Blended spheres (current weights).
    pub centres: Vec<Vec3>,
    pub radii: Vec<f32>,
    /// What the collider (and the mass properties) were last given.
    pub pushed_centres: Vec<Vec3>,
    pub pushed_radii: Vec<f32>,
    /// The mass properties the collider holds, and those of the pushed spheres it moves to.
    pub mass_written: MassProperties,
    pub mass_target: MassProperties,
    /// The written mass properties have not reached the target yet.
    pub mass_pending: bool,
    /// This step's results between the two phases of the update, and their reused buffers.
    pub step: BodyStep,
}

/// What one body's collider update did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyUpdate {
    pub shape_written: bool,
}

impl Body {
    pub fn new(
        rigid_body: RigidBodyHandle,
        collider: ColliderHandle,
        asset: Arc<PlasticAsset>,
        kind: &DeformableCollider,
        mass: SphereMassModel,
        restitution0: f32,
    ) -> Result<Self> {
        let proxy = asset.proxy();
        let mut state = asset.model().new_state()?;
        state.set_eager(proxy.sphere_vertices().iter().copied())?;
        let kind = match kind {
            DeformableCollider::SphereProxy => ColliderState::Proxy,
            DeformableCollider::RebuiltCompound => ColliderState::Compound,
            DeformableCollider::TriMesh(mesh) => {
                if mesh.example_count() != state.example_count() {
                    return Err(DeformError::LengthMismatch {
                        what: "examples of the triangle-mesh collider",
                        expected: state.example_count(),
                        actual: mesh.example_count(),
                    });
                }
                state.set_eager(mesh.cage_vertices())?;
                let grid = VertexGrid::new(mesh.mesh().positions())?;
                ColliderState::TriMesh {
                    mesh: mesh.clone(),
                    grid,
                    positions: mesh.mesh().positions().to_vec(),
                }
            }
            DeformableCollider::Mesh(mesh) => {
                if mesh.example_count() != state.example_count() {
                    return Err(DeformError::LengthMismatch {
                        what: "examples of the mesh collider",
                        expected: state.example_count(),
                        actual: mesh.example_count(),
                    });
                }
                state.set_eager(mesh.cage_vertices())?;
                ColliderState::Mesh {
                    mesh: mesh.clone(),
                    guard: Box::default(),
                }
            }
        };
        let rest_mass = mass.rest();
        let rest: Vec<Vec3> = proxy.example_centres(0).to_vec();
        let radii: Vec<f32> = proxy.example_radii(0).to_vec();
        Ok(Self {
            rigid_body,
            collider,
            asset,
            state,
            kind,
            mass,
            restitution0,
            restitution: restitution0,
            deferred: Vec::new(),
            centres: rest.clone(),
            radii: radii.clone(),
            pushed_centres: rest,
            pushed_radii: radii,
            mass_written: rest_mass,
            mass_target: rest_mass,
            mass_pending: false,
            step: BodyStep::default(),
        })
    }

    /// Maps a contact point on the current collider back to the rest pose, by undoing the
    /// displacement of the nearest collider element (sphere or vertex); on a mesh collider
    /// (`shape`), the closest point's barycentric coordinates carried to the rest triangle.
    pub fn rest_point(&self, point: Vec3, shape: &dyn Shape) -> Vec3 {
        match &self.kind {
            ColliderState::Mesh { .. } => match shape.as_shape::<DeformableMeshShape>() {
                Some(mesh) => mesh_rest_point(mesh, point),
                None => point,
            },
            ColliderState::TriMesh {
                mesh,
                grid,
                positions,
            } => match grid.nearest(point) {
                Some(i) => point - (positions[i as usize] - mesh.mesh().positions()[i as usize]),
                None => point,
            },
            ColliderState::Proxy | ColliderState::Compound => {
                let mut best = (f32::INFINITY, 0usize);
                for (s, (c, r)) in self
                    .pushed_centres
                    .iter()
                    .zip(&self.pushed_radii)
                    .enumerate()
                {
                    let d = (point - *c).length() - r;
                    if d < best.0 {
                        best = (d, s);
                    }
                }
                let rest = self.asset.proxy().example_centres(0);
                point - (self.pushed_centres[best.1] - rest[best.1])
            }
        }
    }

    /// Re-blends the spheres driven by `changed` cage vertices; returns the largest distance
    /// (`|Δc| + |Δr|`) of one of them from what the collider holds.
    ///
    /// With `tolerance > 0`, a changed vertex whose spheres cannot end up farther than the
    /// tolerance from what the collider holds, whatever its pending change still does (current
    /// drift plus [`PlasticState::pending_bound`] times [`PlasticAsset::vertex_reach`]), is
    /// deferred: it stops being updated every step and is caught up at the next push.
    pub fn reblend(&mut self, changed: &[u32], tolerance: f32) -> f32 {
        let mut drift = 0.0f32;
        for &v in changed {
            let d = self.reblend_vertex(v);
            drift = drift.max(d);
            if tolerance > 0.0
                && d + self.state.pending_bound(v) * self.asset.vertex_reach(v) < tolerance
            {
                self.state.defer(v);
                self.deferred.push(v);
            }
        }
        drift
    }

    /// Re-blends the spheres of one cage vertex from its weights as stored; returns their
    /// largest distance from what the collider holds.
    fn reblend_vertex(&mut self, v: u32) -> f32 {
        let Some(beta) = self.state.weights_as_stored(v) else {
            return 0.0;
        };
        let mut drift = 0.0f32;
        for &s in self.asset.spheres_of(v) {
            let (mut c, mut r) = (Vec3::ZERO, 0.0);
            for (w, (ce, re)) in beta.iter().zip(self.asset.sphere_examples(s)) {
                if *w != 0.0 {
                    c += *w * *ce;
                    r += *w * re;
                }
            }
            let s = s as usize;
            self.centres[s] = c;
            self.radii[s] = r.max(0.0);
            let d = (c - self.pushed_centres[s]).length()
                + (self.radii[s] - self.pushed_radii[s]).abs();
            drift = drift.max(d);
        }
        drift
    }

    /// Before a push: brings the deferred vertices up to date and re-blends their spheres.
    fn catch_up_deferred(&mut self) {
        let deferred = std::mem::take(&mut self.deferred);
        for &v in &deferred {
            let _ = self.state.weights(v);
            self.reblend_vertex(v);
        }
        self.deferred = deferred;
        self.deferred.clear();
    }

    /// Everything a write needs that does not touch the world: on `push`, the deferred
    /// vertices caught up, the new sphere proxy built in the body's spare copy of the
    /// collider's shape (`current`; the copy is made once, then the two swap at every write),
    /// and, with `update_mass`, the mass properties of the spheres about to be pushed; a
    /// rebuilt compound's new shape; a triangle mesh's positions. Run by [`super::prepare`],
    /// possibly on another thread than [`Body::write`].
    pub fn prepare_write(
        &mut self,
        current: &SharedShape,
        push: bool,
        update_mass: bool,
    ) -> Result<()> {
        if push {
            self.catch_up_deferred();
            if update_mass {
                self.mass_target = self.mass.deformed(&self.centres)?;
            }
        }
        match &mut self.kind {
            ColliderState::Mesh { .. } => {}
            ColliderState::Proxy => {
                if push {
                    let mut shape = self.step.spare.take().unwrap_or_else(|| current.clone());
                    proxy_of(shape.make_mut())?.set_spheres(&self.centres, &self.radii)?;
                    self.step.staged = Some(shape);
                }
            }
            ColliderState::Compound => {
                self.step.staged = Some(SharedShape::compound(
                    self.centres
                        .iter()
                        .zip(&self.radii)
                        .map(|(c, r)| (Pose::from_translation(*c), SharedShape::ball(r.max(1e-4))))
                        .collect(),
                ));
            }
            ColliderState::TriMesh {
                mesh, positions, ..
            } => mesh.positions_into(&mut self.state, positions)?,
        }
        Ok(())
    }

    /// Writes the collider (per the collider kind's policy) from what
    /// [`Body::prepare_write`] computed; when `push` is set the pushed spheres become the
    /// target of the mass properties.
    pub fn write(
        &mut self,
        colliders: &mut ColliderSet,
        push: bool,
        update_mass: bool,
    ) -> Result<BodyUpdate> {
        let mut update = BodyUpdate::default();
        match &mut self.kind {
            ColliderState::Proxy | ColliderState::Compound => {
                if let Some(shape) = self.step.staged.take() {
                    let co = colliders
                        .get_mut(self.collider)
                        .ok_or(missing("collider", self.collider.into_raw_parts().0))?;
                    let previous = co.shared_shape().clone();
                    co.set_shape(shape);
                    if matches!(self.kind, ColliderState::Proxy) {
                        // The collider held the only other reference: the next write reuses it.
                        self.step.spare = Some(previous);
                    }
                    update.shape_written = true;
                }
            }
            ColliderState::Mesh { .. } => {}
            ColliderState::TriMesh { positions, .. } => {
                let co = colliders
                    .get_mut(self.collider)
                    .ok_or(missing("collider", self.collider.into_raw_parts().0))?;
                let trimesh =
                    co.shape_mut()
                        .as_trimesh_mut()
                        .ok_or(DeformError::InvalidParameter {
                            name: "collider shape",
                            value: f32::NAN,
                            reason: "a triangle-mesh body's collider must hold a TriMesh",
                        })?;
                trimesh.set_vertices(positions);
                update.shape_written = true;
            }
        }
        if push {
            self.pushed_centres.copy_from_slice(&self.centres);
            self.pushed_radii.copy_from_slice(&self.radii);
            self.mass_pending |= update_mass;
        }
        Ok(update)
    }

    /// For a mesh collider: re-weights the mesh vertices reading the cage vertices `changed` by
    /// the last advance (`previous`: their rows before it) and, with `guard`, undoes changes
    /// that create new self-intersections. No effect for other colliders.
    pub fn update_mesh(
        &mut self,
        colliders: &mut ColliderSet,
        changed: &[u32],
        previous: &[f32],
        guard: bool,
    ) -> Result<GuardOutcome> {
        let ColliderState::Mesh { mesh, guard: g } = &mut self.kind else {
            return Ok(GuardOutcome::default());
        };
        if changed.is_empty() {
            return Ok(GuardOutcome::default());
        }
        let co = colliders
            .get_mut(self.collider)
            .ok_or(missing("collider", self.collider.into_raw_parts().0))?;
        let shape = co.shape_mut().as_shape_mut::<DeformableMeshShape>().ok_or(
            DeformError::InvalidParameter {
                name: "collider shape",
                value: f32::NAN,
                reason: "a mesh body's collider must hold a DeformableMeshShape",
            },
        )?;
        g.apply(shape, mesh, &mut self.state, changed, previous, guard)
    }

    /// Is the collider a [`DeformableMeshShape`] kept by [`Body::update_mesh`]?
    pub fn is_mesh(&self) -> bool {
        matches!(self.kind, ColliderState::Mesh { .. })
    }

    /// Moves the collider's explicit mass properties towards the target, the local centre of
    /// mass by at most `max_com_step` (the inertia in proportion), recomputes the body's, and
    /// keeps momentum without adding energy; returns how far the world centre of mass moved.
    pub fn write_mass(
        &mut self,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        max_com_step: f32,
    ) -> Result<f32> {
        let (from, to) = (self.mass_written, self.mass_target);
        let shift = to.local_com - from.local_com;
        let distance = shift.length();
        let mp = if distance > max_com_step {
            let t = max_com_step / distance;
            let inertia =
                from.reconstruct_inertia_matrix() * (1.0 - t) + to.reconstruct_inertia_matrix() * t;
            MassProperties::with_inertia_matrix(from.local_com + shift * t, to.mass(), inertia)
        } else {
            self.mass_pending = false;
            to
        };
        self.mass_written = mp;
        let co = colliders
            .get_mut(self.collider)
            .ok_or(missing("collider", self.collider.into_raw_parts().0))?;
        co.set_mass_properties(mp);
        let rb: &mut RigidBody = bodies
            .get_mut(self.rigid_body)
            .ok_or(missing("rigid body", self.rigid_body.into_raw_parts().0))?;
        let rotation = *rb.rotation();
        let before = rb.mass_properties().local_mprops;
        let old_com = rb.center_of_mass();
        let motion = BodyMotion {
            linvel: rb.linvel(),
            angvel: rb.angvel(),
        };
        rb.recompute_mass_properties_from_colliders(colliders);
        let after = rb.mass_properties().local_mprops;
        let next = continue_motion(
            after.mass(),
            motion,
            world_inertia(&before, rotation),
            world_inertia(&after, rotation),
        );
        if next != motion {
            rb.set_linvel(next.linvel, false);
            rb.set_angvel(next.angvel, false);
        }
        Ok((rb.center_of_mass() - old_com).length())
    }
}

/// The rest position of a point on a deformable mesh: its closest point's barycentric
/// coordinates in the deformed triangle, applied to the rest triangle.
fn mesh_rest_point(mesh: &DeformableMeshShape, point: Vec3) -> Vec3 {
    let proj = mesh.project_local_point(point, false);
    let t = proj.subshape;
    let triangles = mesh.tree().mesh().triangles();
    let Some(tri) = triangles.get(t as usize) else {
        return point;
    };
    let [a, b, c] = tri.map(|v| mesh.vertex(v));
    let [a0, b0, c0] = tri.map(|v| mesh.tree().rest_positions()[v as usize]);
    let l = super::asset::barycentric_coordinates(proj.point, a, b, c);
    // The contact may lie slightly off the surface: keep its offset along the way it points.
    a0 * l[0] + b0 * l[1] + c0 * l[2] + (point - proj.point)
}

/// The sphere proxy a sphere-proxy body's collider holds.
fn proxy_of(shape: &mut dyn Shape) -> Result<&mut SphereProxyShape> {
    shape
        .as_shape_mut::<SphereProxyShape>()
        .ok_or(DeformError::InvalidParameter {
            name: "collider shape",
            value: f32::NAN,
            reason: "a sphere-proxy body's collider must hold a SphereProxyShape",
        })
}

fn missing(what: &'static str, index: u32) -> DeformError {
    DeformError::UnknownHandle { what, index }
}
