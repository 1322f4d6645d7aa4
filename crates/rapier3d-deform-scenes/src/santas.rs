//! Colliding point-based bodies (Steinemann & Otaduy's "colliding santas"): closed meshes under point-based animation whose particles are Rapier bodies joined by springs, falling into a pile.
//!
//! Steinemann & Otaduy (seed `point_based_aabb_bounds.txt`, slides 33 and 38–39) bound the boxes
//! of a point-based animation in O(particles) by limited convex combinations and time "colliding
//! santas": several closed bodies, each deformed by a few dozen simulation nodes, piling up. The
//! santas are not public; this module uses Keenan Crane's *Spot* (`assets/closed/spot.obj`, CC0,
//! 2,930 vertices, 5,856 triangles, closed, genus 0) with the 24 particles of
//! [`crate::teddy::Teddy`] (k-means centres, Müller et al. 2004 kernel weights).
//!
//! **Dynamics.** Every particle is a dynamic Rapier body (rotations locked, [`PARTICLE_MASS`],
//! no collider) and the particles of a body within the kernel support radius of each other are
//! joined by Rapier spring joints at their rest distance ([`SPRING_STIFFNESS`],
//! [`SPRING_DAMPING`]). Each step the affine fields `F_i` are refit from the particle positions by
//! moving least squares ([`PointBasedAnimation::estimate_affine_fields`]), which gives the
//! surface its governors `A_i = F_i`, `t_i = x_i − F_i x_i0`. (Rapier 0.36's soft bodies are not
//! used: their surface must be a parry `TriMesh` and soft–soft contacts run their own vertex and
//! edge passes on it, so a crate collider could not be the surface.)
//!
//! **Surfaces.** Each body's surface is one collider on its own kinematic body at the world
//! origin (the governors are in world coordinates), with every collision type active so that
//! surface–surface and surface–ground pairs reach the narrow phase although no dynamic body is
//! involved. [`Surface::Crate`]: a [`DeformableMeshShape`] over a BN-Tree built with the
//! particles' weights, posed in O(particles) by `set_governors` (boxes by limited convex
//! combinations, refit lazily where the crate's dispatcher queries them). [`Surface::TriMesh`]:
//! a parry `TriMesh` with `TriMeshFlags::DEFORMABLE` whose every vertex is deformed and written
//! with `set_vertices` each step.
//!
//! **What carries the contact forces.** The surfaces' contact manifolds, read after the step:
//! each point lies on a triangle of each surface (the manifold's sub-shape ids), and the
//! triangle's three vertex weight rows, averaged, spread the contact over the particles. The
//! manifolds are from the poses before the step, so each gap is first moved on by the step's
//! relative normal velocity. A projected Gauss–Seidel pass over the points
//! ([`CONTACT_ITERATIONS`]) then finds impulses so the surfaces stop approaching at each point (a
//! gap `d > 0` may close within the next step; a penetration is pushed out at [`PUSH_OUT`]`/dt`
//! of its depth beyond [`SLOP`], capped at [`MAX_PUSH_SPEED`]), with Coulomb friction
//! [`FRICTION`], each body responding as a rigid body (the particles' centre of mass and
//! inertia): the springs are stiff, so within a step an impulse moves the whole body. Each
//! particle's velocity then changes by `1 − LOCAL_SHARE` of its body's rigid response plus
//! [`LOCAL_SHARE`] of the impulses at the points it governs (`w_i j / m`, the generalised impulse
//! of the vertex blend `Σ w_i x_i`); both parts carry the same total impulse. The ground (a fixed
//! cuboid, top at `y = 0`) is an infinite mass. Both surface kinds run exactly this code, so they
//! differ only in how contacts are found.
//!
//! **Self-collisions.** After the step each crate surface is checked against itself with
//! [`DeformableMeshSelfCollisions`] (one BN-Tree query per mesh); the `TriMesh` kind uses the
//! deform-all baseline [`crate::bvh_refit::BvhRefitSelfCollision`]. Pairs are reported, not
//! resolved.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions, CullingMode};
use rapier3d_deform::character::{DeformableMeshSelfCollisions, pose_deformable_mesh};
use rapier3d_deform::deformation::PointBasedAnimation;
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::LoadError;
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle, SpringJointBuilder};
use rapier3d_deform::rapier3d::geometry::{
    ActiveCollisionTypes, ColliderBuilder, ColliderHandle, SharedShape, TriMeshFlags,
};
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use rapier3d_deform::shape::DeformableMeshShape;

use crate::bvh_refit::BvhRefitSelfCollision;
use crate::teddy::Teddy;

/// Mass of one particle (kg).
pub const PARTICLE_MASS: f32 = 1.0;
/// Stiffness of the spring joints between particles (N/m).
pub const SPRING_STIFFNESS: f32 = 20000.0;
/// Damping of the spring joints (N·s/m).
pub const SPRING_DAMPING: f32 = 100.0;
/// Particles closer than this many kernel support radii at rest are joined by a spring.
pub const SPRING_REACH: f32 = 2.0;
/// Projected Gauss–Seidel passes over the contact points per step.
pub const CONTACT_ITERATIONS: usize = 8;
/// Fraction of a penetration (beyond [`SLOP`]) pushed out per step.
pub const PUSH_OUT: f32 = 0.3;
/// Penetration left alone (m).
pub const SLOP: f32 = 0.005;
/// Largest push-out speed (m/s).
pub const MAX_PUSH_SPEED: f32 = 2.0;
/// Coulomb friction coefficient of every contact.
pub const FRICTION: f32 = 0.5;
/// Share of a contact impulse given to the particles under the contact (the rest moves the
/// body rigidly; both carry the same total impulse).
pub const LOCAL_SHARE: f32 = 0.1;
/// Contact prediction distance (m): a body that fell 2.2 m moves 11 cm per 60 Hz step, so
/// contacts are found one step before the surfaces meet.
pub const PREDICTION: f32 = 0.03;
/// A particle farther than this from the origin (m) means the pile has diverged:
/// [`SantaPile::step`] stops with an error instead of simulating an exploding pile (whose
/// contact points grow without bound). The bodies fall from a few metres onto a ground a few
/// metres wide.
pub const ARENA_RADIUS: f32 = 100.0;
/// Largest number of bodies [`SantaPile::new`] accepts.
pub const MAX_BODIES: usize = 256;

/// Which collider each body's surface is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// The crate's [`DeformableMeshShape`] (O(particles) pose, lazy refit).
    Crate,
    /// A parry `TriMesh` with `TriMeshFlags::DEFORMABLE`, every vertex deformed each step.
    TriMesh,
}

/// The shared rest data of every body: Spot, its particles and the BN-Tree over their weights.
///
/// # Performance
/// Built once: O(V · particles) weights plus the BN-Tree build.
#[derive(Clone, Debug)]
pub struct SantaAsset {
    mesh: TriangleMesh,
    animation: PointBasedAnimation,
    tree: Arc<BnTree>,
    radius: f32,
    centre: Vec3,
}

impl SantaAsset {
    /// Loads an OBJ (Spot: `assets/closed/spot.obj`) and places the particles as
    /// [`Teddy::new`] does (no subdivision).
    ///
    /// # Errors
    /// The loader's [`LoadError`]s, and [`LoadError::Deform`] for those of
    /// [`SantaAsset::from_teddy`].
    ///
    /// # Performance
    /// Loading plus [`SantaAsset::from_teddy`].
    pub fn from_obj_file(path: impl AsRef<Path>) -> std::result::Result<Self, LoadError> {
        let teddy = Teddy::from_obj_file(path, 0)?;
        Ok(Self::from_teddy(&teddy)?)
    }

    /// The asset of a [`Teddy`]'s mesh and particles.
    ///
    /// # Errors
    /// [`BnTree::build_with`]'s errors.
    ///
    /// # Performance
    /// The BN-Tree build, O(T log T + T · particles).
    pub fn from_teddy(teddy: &Teddy) -> Result<Self> {
        let mesh = teddy.mesh().clone();
        let animation = teddy.animation().clone();
        let tree = Arc::new(BnTree::build_with(
            &mesh,
            mesh.positions(),
            animation.weights(),
            BnTreeOptions::COLLIDER,
        )?);
        let centre =
            mesh.positions().iter().copied().sum::<Vec3>() / mesh.vertex_count().max(1) as f32;
        let radius = mesh
            .positions()
            .iter()
            .map(|p| (*p - centre).length())
            .fold(0.0f32, f32::max);
        Ok(Self {
            mesh,
            animation,
            tree,
            radius,
            centre,
        })
    }

    /// The rest mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The rest animation (particles at rest).
    pub fn animation(&self) -> &PointBasedAnimation {
        &self.animation
    }

    /// The BN-Tree every crate surface shares.
    pub fn tree(&self) -> &Arc<BnTree> {
        &self.tree
    }

    /// Largest distance of a rest vertex from the rest vertex centroid.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

/// One body of the pile.
#[derive(Clone, Debug)]
struct Santa {
    animation: PointBasedAnimation,
    particles: Vec<RigidBodyHandle>,
    collider: ColliderHandle,
    /// Deformed vertices (every step for [`Surface::TriMesh`], on request otherwise).
    vertices: Vec<Vec3>,
    baseline: Option<BvhRefitSelfCollision>,
    self_pairs: Vec<[u32; 2]>,
}

/// Which side of a contact: a body or the ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Body(usize),
    Ground,
}

/// One contact point for the velocity pass: the particle weights of each side as ranges of
/// `SantaPile::blend`.
#[derive(Clone, Copy, Debug)]
struct PointContact {
    a: (Option<usize>, (u32, u32)),
    b: (Option<usize>, (u32, u32)),
    at: Vec3,
    normal: Vec3,
    dist: f32,
    k_inv: f32,
    lambda: f32,
    friction: Vec3,
}

/// A body's rigid response to the contact impulses of a step.
#[derive(Clone, Copy, Debug)]
struct RigidFrame {
    centre: Vec3,
    inv_mass: f32,
    inv_inertia: Mat3,
    dv: Vec3,
    dw: Vec3,
}

impl RigidFrame {
    /// Velocity change at `at` per unit impulse along `n`.
    fn response(&self, at: Vec3, n: Vec3) -> Vec3 {
        let r = at - self.centre;
        n * self.inv_mass + (self.inv_inertia * r.cross(n)).cross(r)
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Milliseconds to pose the surfaces (fields refit, governors or every vertex).
    pub pose_ms: f64,
    /// Milliseconds of `world.step()` (broad and narrow phase, particle solver).
    pub physics_ms: f64,
    /// Milliseconds of the contact velocity pass.
    pub contact_ms: f64,
    /// Milliseconds of the self-collision queries.
    pub self_ms: f64,
    /// Contact points within the prediction distance (surface–surface and surface–ground).
    pub contact_points: usize,
    /// Self-colliding triangle pairs over all bodies.
    pub self_pairs: usize,
}

impl StepStats {
    /// The whole step (ms).
    pub fn total_ms(&self) -> f64 {
        self.pose_ms + self.physics_ms + self.contact_ms + self.self_ms
    }
}

/// Bodies falling into a pile in one Rapier world (see the module docs).
///
/// # Performance
/// A step costs the particles' spring solve, O(particles) per body to pose a crate surface (or
/// O(V) for a `TriMesh`), the narrow phase, the contact pass O(points · particles per point) and
/// one self-collision query per body.
pub struct SantaPile {
    surface: Surface,
    world: PhysicsWorld,
    asset: SantaAsset,
    santas: Vec<Santa>,
    ground: ColliderHandle,
    by_collider: HashMap<ColliderHandle, Side>,
    self_queries: Option<DeformableMeshSelfCollisions>,
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
    blend: Vec<(u32, f32)>,
    contacts: Vec<PointContact>,
    frames: Vec<RigidFrame>,
    steps: usize,
}

impl core::fmt::Debug for SantaPile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SantaPile")
            .field("surface", &self.surface)
            .field("bodies", &self.santas.len())
            .field("steps", &self.steps)
            .finish()
    }
}

/// A SplitMix64 stream in `[0, 1)`.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl SantaPile {
    /// `count` bodies of `asset` in layers above the ground (a square grid per layer, alternate
    /// layers shifted by half a cell, each body turned by a seeded random yaw and a small tilt;
    /// bounding spheres start disjoint), surfaces of kind `surface`.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] (`"count"`) unless `1 ≤ count ≤ MAX_BODIES`;
    /// [`DeformableMeshShape::new`]'s and [`PointBasedAnimation::set_particle_positions`]'s
    /// errors (not expected for the shipped asset).
    ///
    /// # Performance
    /// O(count · (V + particle pairs)); the BN-Tree is shared.
    pub fn new(asset: &SantaAsset, count: usize, surface: Surface, seed: u64) -> Result<Self> {
        if count == 0 || count > MAX_BODIES {
            return Err(DeformError::InvalidParameter {
                name: "count",
                value: count as f32,
                reason: "must be between 1 and MAX_BODIES",
            });
        }
        let mut world = PhysicsWorld::new();
        world.narrow_phase = DeformDispatcher::narrow_phase();
        world.integration_parameters.normalized_prediction_distance = PREDICTION;
        let (_, ground) = world.insert(
            RigidBodyBuilder::fixed().translation(Vec3::new(0.0, -0.5, 0.0)),
            ColliderBuilder::cuboid(200.0, 0.5, 200.0)
                .active_collision_types(ActiveCollisionTypes::all()),
        );
        let mut by_collider = HashMap::new();
        by_collider.insert(ground, Side::Ground);
        let r = asset.radius * 1.02;
        let side = (count as f32 / 2.0).sqrt().ceil().max(1.0) as usize;
        let per_layer = side * side;
        let mut jitter = Jitter(seed);
        let rest_particles = asset.animation.particle_rest_positions().to_vec();
        let h = asset.animation.support_radius();
        let mut santas = Vec::with_capacity(count);
        let mut self_queries = (surface == Surface::Crate)
            .then(|| DeformableMeshSelfCollisions::new(CullingMode::Conservative));
        for i in 0..count {
            let (layer, k) = (i / per_layer, i % per_layer);
            let shift = if layer % 2 == 1 { r } else { 0.0 };
            let half = (side as f32 - 1.0) * r;
            let centre = Vec3::new(
                (k % side) as f32 * 2.0 * r - half + shift,
                r + 0.05 + layer as f32 * 2.0 * r,
                (k / side) as f32 * 2.0 * r - half + shift,
            );
            let rotation = Mat3::from_rotation_x(0.3 * (jitter.next() - 0.5))
                * Mat3::from_rotation_y(std::f32::consts::TAU * jitter.next());
            let place = |p: Vec3| centre + rotation * (p - asset.centre);
            let positions: Vec<Vec3> = rest_particles.iter().map(|&p| place(p)).collect();
            let mut animation = asset.animation.clone();
            animation.set_particle_positions(&positions)?;
            animation.estimate_affine_fields();
            let particles: Vec<RigidBodyHandle> = positions
                .iter()
                .map(|&p| {
                    world.insert_body(
                        RigidBodyBuilder::dynamic()
                            .translation(p)
                            .lock_rotations()
                            .additional_mass(PARTICLE_MASS)
                            .linear_damping(0.05),
                    )
                })
                .collect();
            for a in 0..rest_particles.len() {
                for b in a + 1..rest_particles.len() {
                    let d = (rest_particles[a] - rest_particles[b]).length();
                    if d < SPRING_REACH * h {
                        world.impulse_joints.insert(
                            particles[a],
                            particles[b],
                            SpringJointBuilder::new(d, SPRING_STIFFNESS, SPRING_DAMPING),
                            true,
                        );
                    }
                }
            }
            let mut vertices = Vec::new();
            animation.deform_into(&mut vertices);
            let (shape, baseline) = match surface {
                Surface::Crate => (
                    SharedShape::new(DeformableMeshShape::new(
                        asset.tree.clone(),
                        animation.governors(),
                    )?),
                    None,
                ),
                Surface::TriMesh => (
                    SharedShape::trimesh_with_flags(
                        vertices.clone(),
                        asset.mesh.triangles().to_vec(),
                        TriMeshFlags::DEFORMABLE,
                    )
                    .map_err(|_| DeformError::Empty {
                        what: "TriMesh triangles",
                    })?,
                    Some(BvhRefitSelfCollision::new(&asset.mesh, &vertices)?),
                ),
            };
            let (_, collider) = world.insert(
                RigidBodyBuilder::kinematic_position_based(),
                ColliderBuilder::new(shape)
                    .active_collision_types(ActiveCollisionTypes::all())
                    .friction(FRICTION),
            );
            if let Some(q) = &mut self_queries {
                q.insert(&world.colliders, collider)?;
            }
            by_collider.insert(collider, Side::Body(i));
            santas.push(Santa {
                animation,
                particles,
                collider,
                vertices,
                baseline,
                self_pairs: Vec::new(),
            });
        }
        Ok(Self {
            surface,
            world,
            asset: asset.clone(),
            santas,
            ground,
            by_collider,
            self_queries,
            positions: Vec::new(),
            velocities: Vec::new(),
            blend: Vec::new(),
            contacts: Vec::new(),
            frames: Vec::new(),
            steps: 0,
        })
    }

    /// The surface kind.
    pub fn surface(&self) -> Surface {
        self.surface
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.santas.len()
    }

    /// Particles over all bodies.
    pub fn particle_count(&self) -> usize {
        self.santas.iter().map(|s| s.particles.len()).sum()
    }

    /// Surface triangles over all bodies.
    pub fn triangle_count(&self) -> usize {
        self.santas.len() * self.asset.mesh.triangle_count()
    }

    /// The shared asset.
    pub fn asset(&self) -> &SantaAsset {
        &self.asset
    }

    /// The Rapier world.
    pub fn world(&self) -> &PhysicsWorld {
        &self.world
    }

    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Current particle positions of body `i` (`None` past the last body).
    pub fn particle_positions(&self, i: usize) -> Option<&[Vec3]> {
        self.santas.get(i).map(|s| s.animation.particle_positions())
    }

    /// Moves the particles of body `i` to `positions` at rest (zero velocity); the surface follows
    /// at the next [`SantaPile::step`] (e.g. to fold a body onto itself).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] (`"body"`) for `i` past the last body,
    /// [`DeformError::LengthMismatch`] unless one position per particle,
    /// [`DeformError::NonFinitePosition`] (`"particle"`); nothing changes on error.
    ///
    /// # Performance
    /// O(particles).
    pub fn set_particle_positions(&mut self, i: usize, positions: &[Vec3]) -> Result<()> {
        let count = self.santas.len();
        let s = self.santas.get_mut(i).ok_or(DeformError::IndexOutOfRange {
            what: "body",
            index: i,
            len: count,
        })?;
        s.animation.set_particle_positions(positions)?;
        for (&h, &p) in s.particles.iter().zip(positions) {
            if let Some(b) = self.world.bodies.get_mut(h) {
                b.set_translation(p, true);
                b.set_linvel(Vec3::ZERO, true);
            }
        }
        Ok(())
    }

    /// The self-colliding triangle pairs of body `i` found after the last step.
    pub fn self_pairs(&self, i: usize) -> Option<&[[u32; 2]]> {
        self.santas.get(i).map(|s| s.self_pairs.as_slice())
    }

    /// Deformed vertices of body `i` as its surface collider holds them (`None` past the last
    /// body).
    ///
    /// # Performance
    /// O(V) (a crate surface deforms every vertex for this).
    pub fn surface_vertices(&self, i: usize) -> Option<Vec<Vec3>> {
        let s = self.santas.get(i)?;
        let shape = self.world.colliders[s.collider].shape();
        Some(match shape.as_shape::<DeformableMeshShape>() {
            Some(m) => m.deformed_vertices(),
            None => shape
                .as_trimesh()
                .map(|t| t.vertices().to_vec())
                .unwrap_or_default(),
        })
    }

    /// One frame: pose every surface from its particles, `world.step()`, the contact velocity
    /// pass, the self-collision queries.
    ///
    /// # Errors
    /// [`DeformError::PositionOutOfRange`] (`"particle (the pile diverged)"`, the particle's
    /// index over all bodies) when a particle is farther than [`ARENA_RADIUS`] from the origin,
    /// checked before anything moves; not expected otherwise: a particle position that became
    /// non-finite ([`DeformError::NonFinitePosition`]).
    ///
    /// # Performance
    /// See [`SantaPile`].
    pub fn step(&mut self) -> Result<StepStats> {
        let mut index = 0;
        for s in &self.santas {
            for &h in &s.particles {
                let p = self.world.bodies[h].translation();
                let far = p.abs().max_element();
                if !p.is_finite() || far > ARENA_RADIUS {
                    return Err(DeformError::PositionOutOfRange {
                        what: "particle (the pile diverged)",
                        index,
                        value: far,
                        max: ARENA_RADIUS,
                    });
                }
                index += 1;
            }
        }
        let mut stats = StepStats::default();
        let t = std::time::Instant::now();
        for s in &mut self.santas {
            self.positions.clear();
            self.positions.extend(
                s.particles
                    .iter()
                    .map(|&h| self.world.bodies[h].translation()),
            );
            s.animation.set_particle_positions(&self.positions)?;
            s.animation.estimate_affine_fields();
            match self.surface {
                Surface::Crate => {
                    pose_deformable_mesh(
                        &mut self.world.colliders,
                        s.collider,
                        s.animation.governors(),
                    )?;
                }
                Surface::TriMesh => {
                    s.animation.deform_into(&mut s.vertices);
                    if let Some(mesh) = self.world.colliders[s.collider]
                        .shape_mut()
                        .as_trimesh_mut()
                    {
                        mesh.set_vertices(&s.vertices);
                    }
                }
            }
        }
        stats.pose_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        self.world.step();
        stats.physics_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        stats.contact_points = self.resolve_contacts();
        stats.contact_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        match &mut self.self_queries {
            Some(q) => {
                q.update(&self.world.colliders)?;
                for s in &mut self.santas {
                    s.self_pairs.clear();
                    s.self_pairs.extend_from_slice(q.pairs(s.collider)?);
                }
            }
            None => {
                for s in &mut self.santas {
                    if let Some(b) = &mut s.baseline {
                        b.detect(&self.asset.mesh, &s.vertices, &mut s.self_pairs)?;
                    }
                }
            }
        }
        stats.self_ms = t.elapsed().as_secs_f64() * 1e3;
        stats.self_pairs = self.santas.iter().map(|s| s.self_pairs.len()).sum();
        self.steps += 1;
        Ok(stats)
    }

    /// Appends the particle weights of triangle `t` of body `body` (its vertices' rows averaged)
    /// to `blend`; returns the range.
    fn push_blend(&mut self, body: usize, t: u32) -> (u32, u32) {
        let start = self.blend.len() as u32;
        let particles = self.asset.animation.particle_count();
        let weights = self.asset.animation.weights();
        if let Some(tri) = self.asset.mesh.triangles().get(t as usize) {
            for &v in tri {
                for (k, w) in weights.iter_row(v as usize) {
                    let g = (body * particles) as u32 + k;
                    match self.blend[start as usize..].iter_mut().find(|e| e.0 == g) {
                        Some(e) => e.1 += w / 3.0,
                        None => self.blend.push((g, w / 3.0)),
                    }
                }
            }
        }
        (start, self.blend.len() as u32)
    }

    /// The contact velocity pass (module docs); returns the number of contact points.
    fn resolve_contacts(&mut self) -> usize {
        let dt = self.world.integration_parameters.dt;
        let particles = self.asset.animation.particle_count();
        self.velocities.clear();
        for s in &self.santas {
            self.velocities
                .extend(s.particles.iter().map(|&h| self.world.bodies[h].linvel()));
        }
        // Each body's centre of mass and inverse inertia (equal particle masses).
        self.frames.clear();
        for s in &self.santas {
            let x = s.animation.particle_positions();
            let centre = x.iter().copied().sum::<Vec3>() / x.len().max(1) as f32;
            let mut inertia = Mat3::ZERO;
            for &p in x {
                let r = p - centre;
                inertia += (Mat3::IDENTITY * r.length_squared()
                    - Mat3::from_cols(r * r.x, r * r.y, r * r.z))
                    * PARTICLE_MASS;
            }
            let det = inertia.determinant();
            let inv = if det.is_finite() && det.abs() > f32::EPSILON {
                inertia.inverse()
            } else {
                Mat3::ZERO
            };
            self.frames.push(RigidFrame {
                centre,
                inv_mass: 1.0 / (PARTICLE_MASS * x.len().max(1) as f32),
                inv_inertia: inv,
                dv: Vec3::ZERO,
                dw: Vec3::ZERO,
            });
        }
        self.blend.clear();
        self.contacts.clear();
        let mut found = Vec::new();
        for pair in self.world.narrow_phase.contact_pairs() {
            let (Some(&s1), Some(&s2)) = (
                self.by_collider.get(&pair.collider1),
                self.by_collider.get(&pair.collider2),
            ) else {
                continue;
            };
            let pose1 = self.world.colliders[pair.collider1].position();
            for m in pair.manifolds() {
                let normal = pose1.rotation * m.local_n1;
                for p in &m.points {
                    let at = pose1.transform_point(p.local_p1);
                    found.push((s1, m.subshape1, s2, m.subshape2, normal, at, p.dist));
                }
            }
        }
        for (s1, t1, s2, t2, normal, at, dist) in found {
            let a = match s1 {
                Side::Body(i) => (Some(i), self.push_blend(i, t1)),
                Side::Ground => (None, (0, 0)),
            };
            let b = match s2 {
                Side::Body(i) => (Some(i), self.push_blend(i, t2)),
                Side::Ground => (None, (0, 0)),
            };
            let k: f32 = [a.0, b.0]
                .into_iter()
                .flatten()
                .map(|i| self.frames[i].response(at, normal).dot(normal))
                .sum();
            if k <= 0.0 {
                continue;
            }
            self.contacts.push(PointContact {
                a,
                b,
                at,
                normal,
                dist,
                k_inv: 1.0 / k,
                lambda: 0.0,
                friction: Vec3::ZERO,
            });
        }
        let blend = &self.blend;
        let vel = &self.velocities;
        let frames = &mut self.frames;
        // Velocity of a side at the contact: its particles' blend plus the body's rigid change.
        let velocity = |frames: &[RigidFrame], side: (Option<usize>, (u32, u32)), at: Vec3| {
            let Some(i) = side.0 else {
                return Vec3::ZERO;
            };
            let r = side.1;
            let base: Vec3 = blend[r.0 as usize..r.1 as usize]
                .iter()
                .map(|&(g, w)| vel[g as usize] * w)
                .sum();
            let f = &frames[i];
            base + f.dv + f.dw.cross(at - f.centre)
        };
        let apply = |frames: &mut [RigidFrame], side: Option<usize>, at: Vec3, j: Vec3| {
            if let Some(i) = side {
                let f = &mut frames[i];
                f.dv += j * f.inv_mass;
                f.dw += f.inv_inertia * (at - f.centre).cross(j);
            }
        };
        // The manifolds are from the poses before the step: move each gap on by the step's
        // relative normal velocity.
        for c in &mut self.contacts {
            let rel = velocity(frames, c.b, c.at) - velocity(frames, c.a, c.at);
            c.dist += c.normal.dot(rel) * dt;
        }
        for _ in 0..CONTACT_ITERATIONS {
            for c in &mut self.contacts {
                let rel = velocity(frames, c.b, c.at) - velocity(frames, c.a, c.at);
                let vn = c.normal.dot(rel);
                let target = if c.dist > 0.0 {
                    -c.dist / dt
                } else {
                    (PUSH_OUT * (-c.dist - SLOP).max(0.0) / dt).min(MAX_PUSH_SPEED)
                };
                let new = (c.lambda + (target - vn) * c.k_inv).max(0.0);
                let dl = new - c.lambda;
                c.lambda = new;
                apply(frames, c.b.0, c.at, c.normal * dl);
                apply(frames, c.a.0, c.at, -c.normal * dl);
                // Friction against the tangential relative velocity, within the cone.
                let rel = velocity(frames, c.b, c.at) - velocity(frames, c.a, c.at);
                let vt = rel - c.normal * c.normal.dot(rel);
                let mut f = c.friction - vt * c.k_inv;
                let limit = FRICTION * c.lambda;
                if f.length() > limit {
                    f = f.normalize_or_zero() * limit;
                }
                let df = f - c.friction;
                c.friction = f;
                apply(frames, c.b.0, c.at, df);
                apply(frames, c.a.0, c.at, -df);
            }
        }
        // Each particle: the rigid change at its position, part of it redistributed to the
        // particles under the contacts (same total impulse).
        for (i, s) in self.santas.iter().enumerate() {
            let f = &self.frames[i];
            for (k, &p) in s.animation.particle_positions().iter().enumerate() {
                self.velocities[i * particles + k] +=
                    (1.0 - LOCAL_SHARE) * (f.dv + f.dw.cross(p - f.centre));
            }
        }
        let inv_m = 1.0 / PARTICLE_MASS;
        for c in &self.contacts {
            let j = c.normal * c.lambda + c.friction;
            for (side, sign) in [(c.b, 1.0f32), (c.a, -1.0)] {
                let r = side.1;
                for &(g, w) in &self.blend[r.0 as usize..r.1 as usize] {
                    self.velocities[g as usize] += j * (sign * LOCAL_SHARE * w * inv_m);
                }
            }
        }
        for (i, s) in self.santas.iter().enumerate() {
            for (k, &h) in s.particles.iter().enumerate() {
                let v = self.velocities[i * particles + k];
                if let Some(b) = self.world.bodies.get_mut(h) {
                    b.set_linvel(v, true);
                }
            }
        }
        self.contacts.len()
    }

    /// The inter-body triangle pairs `(body1, t1, body2, t2)` (`body1 < body2`) that have a
    /// contact manifold after the last step: every pair the narrow phase's dispatcher kept as a
    /// candidate (its boxes overlap within the prediction distance) when `with_points` is
    /// false, only those whose manifold holds a contact point when true. Sorted, without
    /// duplicates.
    ///
    /// # Performance
    /// O(manifolds log manifolds).
    pub fn contact_triangle_pairs(&self, with_points: bool) -> Vec<(u32, u32, u32, u32)> {
        let mut out = Vec::new();
        for pair in self.world.narrow_phase.contact_pairs() {
            let (Some(&Side::Body(a)), Some(&Side::Body(b))) = (
                self.by_collider.get(&pair.collider1),
                self.by_collider.get(&pair.collider2),
            ) else {
                continue;
            };
            for m in pair.manifolds() {
                if with_points && m.points.is_empty() {
                    continue;
                }
                out.push(if a < b {
                    (a as u32, m.subshape1, b as u32, m.subshape2)
                } else {
                    (b as u32, m.subshape2, a as u32, m.subshape1)
                });
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The lowest surface vertex over all bodies (`y`; the ground's top is 0).
    ///
    /// # Performance
    /// O(bodies · V).
    pub fn lowest_vertex(&self) -> f32 {
        (0..self.santas.len())
            .filter_map(|i| self.surface_vertices(i))
            .flat_map(|v| v.into_iter().map(|p| p.y))
            .fold(f32::MAX, f32::min)
    }

    /// Vertices of one body inside another closed body (ray parity against that body's
    /// collider, voted over three directions), and the deepest of them (its distance to the
    /// other surface).
    ///
    /// # Performance
    /// O(bodies² + inside tests · ray casts); only vertices within the other body's box are cast.
    pub fn vertices_inside_others(&self) -> (usize, f32) {
        let all: Vec<Vec<Vec3>> = (0..self.santas.len())
            .filter_map(|i| self.surface_vertices(i))
            .collect();
        let mut count = 0;
        let mut deepest = 0.0f32;
        for (j, s) in self.santas.iter().enumerate() {
            let shape = self.world.colliders[s.collider].shape();
            let aabb = shape.compute_local_aabb();
            for (i, vertices) in all.iter().enumerate() {
                if i == j {
                    continue;
                }
                for &p in vertices {
                    if aabb.contains_local_point(p) && crate::ray_parity::inside_voted(shape, p) {
                        count += 1;
                        deepest = deepest.max(shape.distance_to_local_point(p, false));
                    }
                }
            }
        }
        (count, deepest)
    }

    /// The ground collider.
    pub fn ground(&self) -> ColliderHandle {
        self.ground
    }
}

/// Brute-force inter-body collisions: every pair `(body1, t1, body2, t2)` (`body1 < body2`) of
/// triangles of two posed bodies that intersect ([`rapier3d_deform::geometry::triangles_intersect`],
/// exact), found by a sort-and-sweep over both bodies' triangle boxes. The oracle of
/// [`SantaPile::contact_triangle_pairs`].
///
/// # Performance
/// O(T log T + K) per pair of bodies whose boxes overlap (K box-overlapping triangle pairs).
pub fn inter_body_collisions_brute_force(
    mesh: &TriangleMesh,
    bodies: &[Vec<Vec3>],
) -> Vec<(u32, u32, u32, u32)> {
    use rapier3d_deform::geometry::triangles_intersect;
    let boxes: Vec<Vec<(Vec3, Vec3)>> = bodies
        .iter()
        .map(|v| {
            (0..mesh.triangle_count())
                .map(|t| {
                    let [a, b, c] = mesh.corners(v, t);
                    (a.min(b).min(c), a.max(b).max(c))
                })
                .collect()
        })
        .collect();
    let hull = |b: &[(Vec3, Vec3)]| {
        b.iter()
            .fold((Vec3::MAX, Vec3::MIN), |(l, h), x| (l.min(x.0), h.max(x.1)))
    };
    let hulls: Vec<(Vec3, Vec3)> = boxes.iter().map(|b| hull(b)).collect();
    let mut out = Vec::new();
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            let (li, hi) = hulls[i];
            let (lj, hj) = hulls[j];
            if !(li.cmple(hj).all() && lj.cmple(hi).all()) {
                continue;
            }
            // Triangles of either body inside the other's hull, swept along x.
            let mut items: Vec<(f32, f32, usize, u32)> = Vec::new();
            for (side, (k, other)) in [(i, (lj, hj)), (j, (li, hi))].into_iter().enumerate() {
                for (t, b) in boxes[k].iter().enumerate() {
                    if b.0.cmple(other.1).all() && other.0.cmple(b.1).all() {
                        items.push((b.0.x, b.1.x, side, t as u32));
                    }
                }
            }
            items.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            for (n, &(_, max_x, side, t)) in items.iter().enumerate() {
                for &(min_x, _, side2, t2) in &items[n + 1..] {
                    if min_x > max_x {
                        break;
                    }
                    if side == side2 {
                        continue;
                    }
                    let (ta, tb) = if side == 0 { (t, t2) } else { (t2, t) };
                    let (ba, bb) = (boxes[i][ta as usize], boxes[j][tb as usize]);
                    if !(ba.0.cmple(bb.1).all() && bb.0.cmple(ba.1).all()) {
                        continue;
                    }
                    if triangles_intersect(
                        mesh.corners(&bodies[i], ta as usize),
                        mesh.corners(&bodies[j], tb as usize),
                    ) {
                        out.push((i as u32, ta, j as u32, tb));
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
