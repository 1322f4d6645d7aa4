//! Debug rendering of the crate's shapes as coloured lines through Rapier's `DebugRenderBackend`, beside Rapier's own `DebugRenderPipeline`.
//!
//! Rapier's [`DebugRenderPipeline`](rapier3d::pipeline::DebugRenderPipeline) draws every parry
//! shape it knows and nothing for `ShapeType::Custom` shapes, which both of the crate's shapes
//! are ([`crate::shape`]). [`DeformDebugRenderer`] draws those colliders with the same backend,
//! the same [`DebugRenderObject::Collider`] objects (so the backend's `filter_object` and
//! per-object styling apply) and the colours of Rapier's [`DebugRenderStyle`]:
//!
//! * a [`SphereProxyShape`]: per sphere, three great circles in the planes of the collider's
//!   axes (the sphere-union proxies of Jones et al. 2017);
//! * a [`DeformableMeshShape`]: the wireframe of the posed mesh `p = Σ_k w_k (A_k p0 + t_k)`
//!   (each edge once), or only the triangles of the leaves the current epoch's queries refit,
//!   and the node boxes of its BN-Tree (Schvartzman, Gascón & Otaduy 2009, the hierarchy
//!   refit on demand) down to a depth;
//! * on request ([`DeformDebugRenderOptions::normal_cone_depth`]), the normal cones of its
//!   BN-Tree nodes down to a depth: per node the cone's axis from the centre of the node's box
//!   and the circle at its half-angle (the cone of the node's O(m) normal bound, eq. 17, where the
//!   node has patch data; else of its posed triangles' normals);
//! * on request ([`DeformDebugRenderer::render_avatar_boxes`]), a skinned avatar's per-bone
//!   boxes (Pelechano 2002 §3.2, [`crate::avatar`]) as the frame's queries test them, and
//!   optionally their cells (the slabs and their sectors);
//! * on request ([`DeformDebugRenderer::render_triangle_pairs`]), the triangles of given pairs of
//!   a mesh, such as its self-collisions, highlighted.
//! * on request ([`DeformDebugRenderer::render_contact_velocities`]), the velocity of a
//!   deforming surface at its contacts, as [`SurfaceVelocityHooks`] gives it to the solver.
//!
//! Contacts need nothing from this module: Rapier's `DebugRenderMode::CONTACTS` draws every
//! contact manifold the narrow phase holds, the crate's shapes' included.
//!
//! Every line is in world frame (the collider's pose applied).
//!
//! ```
//! use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer};
//! use rapier3d_deform::prelude::*;
//!
//! /// A backend that counts lines (a game draws them).
//! struct Lines(usize);
//! impl DebugRenderBackend for Lines {
//!     fn draw_line(&mut self, _: DebugRenderObject, _: Vector, _: Vector, _: DebugColor) {
//!         self.0 += 1;
//!     }
//! }
//!
//! let mut world = PhysicsWorld::default();
//! let proxy = SphereProxyShape::new(vec![Vector::ZERO], vec![0.5]).unwrap();
//! world.colliders.insert(ColliderBuilder::new(SharedShape::new(proxy)).build());
//!
//! let mut rapier_lines = DebugRenderPipeline::default();
//! let mut deform_lines = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
//! let mut backend = Lines(0);
//! // Rapier draws its own shapes, joints, contacts… and nothing for the proxy…
//! rapier_lines.render(
//!     &mut backend,
//!     &world.bodies,
//!     &world.colliders,
//!     &world.impulse_joints,
//!     &world.multibody_joints,
//!     &world.narrow_phase,
//!     &world.soft_bodies,
//! );
//! assert_eq!(backend.0, 0);
//! // …which is drawn with the same backend: three circles of 20 segments.
//! deform_lines.render_colliders(&mut backend, &world.bodies, &world.colliders);
//! assert_eq!(backend.0, 60);
//! // Or, for a whole `PhysicsWorld`:
//! deform_lines.render_world(&mut backend, &world);
//! assert_eq!(backend.0, 120);
//! ```

mod avatar;
mod cones;
mod mesh;
mod spheres;
mod velocities;

use rapier3d::dynamics::{RigidBodyHandle, RigidBodySet};
use rapier3d::geometry::{Collider, ColliderHandle, ColliderSet};
use rapier3d::math::{Pose, Vector};
use rapier3d::pipeline::{
    DebugColor, DebugRenderBackend, DebugRenderObject, DebugRenderStyle, PhysicsWorld,
};

use crate::avatar::{AvatarBoxes, AvatarQuery, PosedBox};
use crate::bounds::BoundsWorkspace;
use crate::character::SurfaceVelocityHooks;
use crate::error::{DeformError, Result};
use crate::shape::{DeformableMeshShape, SphereProxyShape};

/// Which part of a [`DeformableMeshShape`]'s posed mesh is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeshWireframe {
    /// No wireframe.
    Off,
    /// Every edge of the posed mesh, once. Stale vertices are deformed through the shape's
    /// vertex cache (counted in [`DeformableMeshShape::refit_stats`]; no node box is refit).
    #[default]
    All,
    /// The edges (each once) of the triangles in the leaves whose boxes were refit in the
    /// current epoch ([`DeformableMeshShape::node_is_refit`]): what the queries since the last
    /// pose reached. Right after a pose it draws nothing.
    RefitLeaves,
}

/// What [`DeformDebugRenderer`] draws, and in which colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeformDebugRenderOptions {
    /// The wireframe of each [`DeformableMeshShape`].
    pub mesh_wireframe: MeshWireframe,
    /// BN-Tree node boxes of each [`DeformableMeshShape`] down to this depth (the root is depth
    /// 0), drawn in `style.collider_aabb_color`; `None` draws none. Drawing a box computes it
    /// when stale ([`DeformableMeshShape::node_aabb`]): it then counts as refit.
    pub node_box_depth: Option<u32>,
    /// Normal cones of each [`DeformableMeshShape`]'s BN-Tree nodes down to this depth (the
    /// root is depth 0), in [`Self::cone_color`]: per node that has a cone narrower than a
    /// half-space, its axis from the centre of the node's box (half the box's half-diagonal
    /// long), the circle of `style.subdivisions` lines where the cone at its half-angle meets
    /// the sphere of the axis' length, and four lines from the centre to that circle. A node with
    /// O(m) patch data (and a shape without morph targets) shows the cone of its normal bound
    /// (what the self-collision query prunes with), any other the cone of its posed triangles'
    /// normals. `None` draws none. Drawing a cone computes the node's box when stale.
    pub normal_cone_depth: Option<u32>,
    /// The colour of the normal cones. Purple by default.
    pub cone_color: DebugColor,
    /// The colour of the avatar boxes drawn by [`DeformDebugRenderer::render_avatar_boxes`].
    /// Blue by default.
    pub avatar_box_color: DebugColor,
    /// The colour of their cells, or `None` to draw no cell. Light blue by default.
    pub avatar_cell_color: Option<DebugColor>,
    /// The spheres of each [`SphereProxyShape`].
    pub proxy_spheres: bool,
    /// The colour of the triangles drawn by [`DeformDebugRenderer::render_triangle_pairs`]
    /// (self-collision pairs); Rapier's style has none. Red by default.
    pub pair_color: DebugColor,
    /// The colour of the arrows drawn by [`DeformDebugRenderer::render_contact_velocities`].
    /// Orange by default.
    pub velocity_color: DebugColor,
    /// Rapier's style: the shapes are drawn in its collider colours (by the type of the parent
    /// body, with its sleep and disabled multipliers, like Rapier's own colliders); each circle
    /// of a sphere has `style.subdivisions` segments (at least 3).
    pub style: DebugRenderStyle,
}

impl Default for DeformDebugRenderOptions {
    /// Mesh wireframes and proxy spheres, no node boxes or cones, red pairs, orange velocity
    /// arrows, purple cones, blue avatar boxes with light-blue cells, Rapier's default style.
    fn default() -> Self {
        Self {
            mesh_wireframe: MeshWireframe::All,
            node_box_depth: None,
            normal_cone_depth: None,
            cone_color: [280.0, 0.8, 0.5, 1.0],
            avatar_box_color: [225.0, 0.85, 0.45, 1.0],
            avatar_cell_color: Some([200.0, 0.6, 0.7, 1.0]),
            proxy_spheres: true,
            pair_color: [0.0, 1.0, 0.5, 1.0],
            velocity_color: [30.0, 1.0, 0.5, 1.0],
            style: DebugRenderStyle::default(),
        }
    }
}

/// Draws the colliders whose shape is one of the crate's ([`SphereProxyShape`],
/// [`DeformableMeshShape`]) as lines through a Rapier [`DebugRenderBackend`]; every other
/// collider is left to Rapier's [`DebugRenderPipeline`](rapier3d::pipeline::DebugRenderPipeline).
///
/// Each line is drawn with `draw_line(DebugRenderObject::Collider(handle, collider), a, b,
/// colour)`, `a` and `b` in world frame; colliders the backend's `filter_object` rejects are
/// skipped. Drawing does not change what the shapes compute: a mesh's vertices come from
/// [`DeformableMeshShape::vertex`] (its cache, filled when stale) and its boxes from
/// [`DeformableMeshShape::node_aabb`].
///
/// # Performance
/// Per mesh, O(E log E) for its E edges (sorted to draw each once, in a buffer kept from call to
/// call) plus one vertex deformation per stale vertex; per node box O(1) once computed; per
/// proxy, O(S · segments) for S spheres.
#[derive(Clone, Debug, Default)]
pub struct DeformDebugRenderer {
    /// What is drawn, and the colours.
    pub options: DeformDebugRenderOptions,
    /// Edge keys of the mesh being drawn (`min << 32 | max`), reused.
    edges: Vec<u64>,
    /// Scratch of the normal bounds.
    workspace: BoundsWorkspace,
    /// Cells of the avatar box being drawn, reused.
    cells: Vec<PosedBox>,
}

impl DeformDebugRenderer {
    /// A renderer with these options.
    ///
    /// # Performance
    /// O(1); no allocation.
    pub fn new(options: DeformDebugRenderOptions) -> Self {
        Self {
            options,
            edges: Vec::new(),
            workspace: BoundsWorkspace::default(),
            cells: Vec::new(),
        }
    }

    /// Draws the crate's shapes among `world`'s colliders ([`Self::render_colliders`]).
    ///
    /// # Performance
    /// As [`Self::render_colliders`].
    pub fn render_world(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        world: &PhysicsWorld,
    ) {
        self.render_colliders(backend, &world.bodies, &world.colliders);
    }

    /// Draws every collider of `colliders` whose shape is one of the crate's; `bodies` give the
    /// colours (Rapier's, by parent body type and state).
    ///
    /// # Performance
    /// O(colliders) to find the crate's shapes, plus their costs (see [`DeformDebugRenderer`]).
    pub fn render_colliders(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        bodies: &RigidBodySet,
        colliders: &ColliderSet,
    ) {
        for (handle, collider) in colliders.iter() {
            self.render_collider(backend, bodies, handle, collider);
        }
    }

    /// Draws one collider if its shape is one of the crate's and the backend does not filter it
    /// out; returns whether it was one of the crate's shapes (drawn or filtered).
    ///
    /// # Performance
    /// As [`DeformDebugRenderer`], for this collider.
    pub fn render_collider(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        bodies: &RigidBodySet,
        handle: ColliderHandle,
        collider: &Collider,
    ) -> bool {
        let shape = collider.shape();
        let proxy = shape.as_shape::<SphereProxyShape>();
        let mesh = shape.as_shape::<DeformableMeshShape>();
        if proxy.is_none() && mesh.is_none() {
            return false;
        }
        let object = DebugRenderObject::Collider(handle, collider);
        if !backend.filter_object(object) {
            return true;
        }
        let color = collider_color(&self.options.style, bodies, collider);
        let pose = collider.position();
        let mut draw = |a: Vector, b: Vector, c: DebugColor| backend.draw_line(object, a, b, c);
        if let Some(proxy) = proxy
            && self.options.proxy_spheres
        {
            let segments = self.options.style.subdivisions.max(3);
            spheres::draw_spheres(proxy, pose, segments, color, &mut draw);
        }
        if let Some(mesh) = mesh {
            match self.options.mesh_wireframe {
                MeshWireframe::Off => {}
                MeshWireframe::All => {
                    mesh::draw_wireframe(mesh, pose, false, &mut self.edges, color, &mut draw)
                }
                MeshWireframe::RefitLeaves => {
                    mesh::draw_wireframe(mesh, pose, true, &mut self.edges, color, &mut draw)
                }
            }
            if let Some(depth) = self.options.node_box_depth {
                let box_color = self.options.style.collider_aabb_color;
                mesh::draw_node_boxes(mesh, pose, depth, box_color, &mut draw);
            }
            if let Some(depth) = self.options.normal_cone_depth {
                let segments = self.options.style.subdivisions.max(cones::GENERATORS);
                cones::draw_node_cones(
                    mesh,
                    pose,
                    depth,
                    segments,
                    &mut self.workspace,
                    self.options.cone_color,
                    &mut draw,
                );
            }
        }
        true
    }
}

impl DeformDebugRenderer {
    /// Highlights the triangles of `pairs` (triangle indices of the mesh collider `handle`, such
    /// as the self-collision pairs of [`crate::character::DeformableMeshSelfCollisions::pairs`]
    /// or [`crate::bn_tree::SelfCollisionQuery`]) in `options.pair_color`: every edge of those
    /// triangles once, posed, in world frame. Nothing is drawn when the backend filters the
    /// collider out.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] / [`DeformError::InvalidParameter`] when `handle` is not a
    /// [`DeformableMeshShape`] collider; [`DeformError::IndexOutOfRange`] naming the first
    /// triangle index out of range (nothing is drawn then).
    ///
    /// # Performance
    /// O(P log P) for the P pairs (their edges sorted to draw each once), plus one deformation
    /// per stale vertex.
    pub fn render_triangle_pairs(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        colliders: &ColliderSet,
        handle: ColliderHandle,
        pairs: &[[u32; 2]],
    ) -> Result<()> {
        let mesh = DeformableMeshShape::of_collider(colliders, handle)?;
        let len = mesh.triangle_count();
        if let Some(&t) = pairs.iter().flatten().find(|&&t| t as usize >= len) {
            return Err(DeformError::IndexOutOfRange {
                what: "triangle",
                index: t as usize,
                len,
            });
        }
        let collider = &colliders[handle];
        let object = DebugRenderObject::Collider(handle, collider);
        if !backend.filter_object(object) {
            return Ok(());
        }
        let triangles = mesh.tree().mesh().triangles();
        let mut draw = |a: Vector, b: Vector, c: DebugColor| backend.draw_line(object, a, b, c);
        mesh::draw_edges(
            mesh,
            collider.position(),
            pairs.iter().flatten().map(|&t| &triangles[t as usize]),
            &mut self.edges,
            self.options.pair_color,
            &mut draw,
        );
        Ok(())
    }
}

impl DeformDebugRenderer {
    /// Draws the per-bone boxes of a skinned avatar as `query`'s current frame tests them
    /// ([`AvatarQuery::posed_box`]: each bone's rest PCA box carried by its skin matrix and
    /// re-bounded by the sliding of its skin), twelve edges per box in
    /// `options.avatar_box_color`, box by box; with `options.avatar_cell_color`, after each box
    /// the twelve edges of each of its cells ([`AvatarQuery::posed_cells`]). Every line is drawn
    /// for `object` (the avatar has no collider of its own unless the game gave it one: pass the
    /// skinned collider's, or any object the backend's filter and styling should see); nothing
    /// is drawn when the backend filters it out. Returns the boxes drawn.
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] when `query` has no frame begun with `avatar`.
    ///
    /// # Performance
    /// O(m) per box not yet bounded in the frame; with cells, O(cells · m) plus posing the skin
    /// vertices the frame's queries did not pose.
    pub fn render_avatar_boxes(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        object: DebugRenderObject<'_>,
        avatar: &AvatarBoxes,
        query: &mut AvatarQuery,
    ) -> Result<usize> {
        if avatar.box_count() > 0 {
            // Checks the frame before anything is drawn.
            query.posed_box(avatar, 0)?;
        }
        if !backend.filter_object(object) {
            return Ok(0);
        }
        let mut draw = |a: Vector, b: Vector, c: DebugColor| backend.draw_line(object, a, b, c);
        avatar::draw_avatar_boxes(
            avatar,
            query,
            self.options.avatar_box_color,
            self.options.avatar_cell_color,
            &mut self.cells,
            &mut draw,
        )
    }

    /// Draws the velocity of the deforming surface of `handle` at each of its active contact
    /// points, as [`SurfaceVelocityHooks`] gives it to the contact solver: an arrow from the
    /// point on the collider's surface along its body's velocity there plus the rotated
    /// deformation velocity ([`SurfaceVelocityHooks::surface_velocity`]), `seconds` of travel
    /// long, in `options.velocity_color`. Returns the number of arrows. Nothing is drawn when
    /// the backend filters the collider out.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] / [`DeformError::InvalidParameter`] when `handle` is not a
    /// [`DeformableMeshShape`] collider; [`DeformError::InvalidParameter`] (`collider`) when
    /// `hooks` does not track it, or (`seconds`) when `seconds` is not finite.
    ///
    /// # Performance
    /// O(contact points of the collider · (influences + morph targets)).
    pub fn render_contact_velocities(
        &mut self,
        backend: &mut (impl DebugRenderBackend + ?Sized),
        world: &PhysicsWorld,
        hooks: &SurfaceVelocityHooks,
        handle: ColliderHandle,
        seconds: f32,
    ) -> Result<usize> {
        DeformableMeshShape::of_collider(&world.colliders, handle)?;
        if !hooks.is_tracked(handle) {
            return Err(DeformError::InvalidParameter {
                name: "collider",
                value: handle.into_raw_parts().0 as f32,
                reason: "the surface-velocity hooks do not track this collider",
            });
        }
        if !seconds.is_finite() {
            return Err(DeformError::InvalidParameter {
                name: "seconds",
                value: seconds,
                reason: "must be finite",
            });
        }
        let collider = &world.colliders[handle];
        let object = DebugRenderObject::Collider(handle, collider);
        if !backend.filter_object(object) {
            return Ok(0);
        }
        let mut draw = |a: Vector, b: Vector, c: DebugColor| backend.draw_line(object, a, b, c);
        Ok(velocities::draw_contact_velocities(
            world,
            hooks,
            handle,
            seconds,
            self.options.velocity_color,
            &mut draw,
        ))
    }
}

/// The colour Rapier's `DebugRenderPipeline` gives a collider: by its parent body's type, times
/// the disabled, sleeping or sleep-eligible multiplier; parentless colliders get
/// `collider_parentless_color` (`disabled_color_multiplier` when disabled).
fn collider_color(style: &DebugRenderStyle, bodies: &RigidBodySet, co: &Collider) -> DebugColor {
    let Some(rb) = co.parent().and_then(|p: RigidBodyHandle| bodies.get(p)) else {
        return if co.is_enabled() {
            style.collider_parentless_color
        } else {
            style.disabled_color_multiplier
        };
    };
    let base = if rb.is_fixed() {
        style.collider_fixed_color
    } else if rb.is_kinematic() {
        style.collider_kinematic_color
    } else {
        style.collider_dynamic_color
    };
    let coeff = if !rb.is_enabled() || !co.is_enabled() {
        style.disabled_color_multiplier
    } else if rb.is_sleeping() {
        style.sleep_color_multiplier
    } else if !rb.is_fixed() && rb.activation().is_eligible_for_sleep() {
        style.sleep_eligible_color_multiplier
    } else {
        [1.0; 4]
    };
    [0, 1, 2, 3].map(|k| base[k] * coeff[k])
}

/// `pose` applied to a point of the collider's frame.
fn world_point(pose: &Pose, p: Vector) -> Vector {
    *pose * p
}
