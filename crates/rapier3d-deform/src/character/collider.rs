//! [`SkinnedCollider`]: a skinned, node-animated or morphed mesh (a whole glTF character) as one Rapier collider that owns its skin, morph targets, BN-Tree and handles, posed once per step from a clip or from the game's bones.

use std::sync::Arc;

use rapier3d::dynamics::{RigidBodyBuilder, RigidBodyHandle, RigidBodySet};
use rapier3d::geometry::{ColliderBuilder, ColliderHandle, ColliderSet, SharedShape};
use rapier3d::parry::shape::Shape;
use rapier3d::pipeline::PhysicsWorld;

use super::pose::{pose_deformable_mesh_validated, pose_deformable_mesh_with_morphs};
use crate::bn_tree::{BnTree, BnTreeOptions, CullingMode, SelfCollisionQuery, SelfCollisionStats};
use crate::deformation::{LinearBlendSkinning, MorphDeltas};
use crate::error::{DeformError, Result};
use crate::governor::{Affine, GovernedDeformation};
use crate::io::{AnimationClip, GltfAsset, GltfScene, Skeleton, SkeletonScratch};
use crate::math::{Mat3, Vec3};
use crate::mesh::TriangleMesh;
use crate::shape::DeformableMeshShape;

/// The clips and hierarchy of a glTF asset, kept so the collider can be posed from a clip time.
#[derive(Clone, Debug)]
struct Rig {
    skeleton: Skeleton,
    clips: Vec<AnimationClip>,
    /// The node of each bone (`None`: a static bone, identity world transform).
    bone_nodes: Vec<Option<usize>>,
    /// Per morphed node: the node, its first weight, its default weights.
    morph_nodes: Vec<(usize, usize, Vec<f32>)>,
}

impl Rig {
    /// The bones' world transforms at time `t` of `clip` (the rest pose without one), written
    /// into `out` with the intermediate buffers in `buffers`: no allocation once they have grown.
    fn bones(
        &self,
        clip: Option<&AnimationClip>,
        t: f32,
        buffers: &mut PoseBuffers,
        out: &mut Vec<Affine>,
    ) {
        self.skeleton.node_world_transforms_into(
            clip,
            t,
            &mut buffers.scratch,
            &mut buffers.node_world,
        );
        let world = &buffers.node_world;
        out.clear();
        out.extend(self.bone_nodes.iter().map(|n| {
            n.and_then(|n| world.get(n).copied())
                .unwrap_or(Affine::IDENTITY)
        }));
    }

    /// The morph weights at time `t` of `clip` (the defaults without one), through `scratch`:
    /// no allocation once it has grown.
    fn morph_weights(
        &self,
        clip: Option<&AnimationClip>,
        t: f32,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
    ) {
        for (node, first, defaults) in &self.morph_nodes {
            let Some(slot) = out.get_mut(*first..*first + defaults.len()) else {
                continue;
            };
            if clip.is_some_and(|c| c.morph_weights_into(*node, t, scratch))
                && scratch.len() == defaults.len()
            {
                slot.copy_from_slice(scratch);
            } else {
                slot.copy_from_slice(defaults);
            }
        }
    }
}

/// The self-collision state of one collider: one reusable BN-Tree query and its last result.
#[derive(Clone, Debug)]
struct SelfCollisions {
    mode: CullingMode,
    query: SelfCollisionQuery,
    pairs: Vec<[u32; 2]>,
    stats: SelfCollisionStats,
    /// Pairs that intersect in the bind pose (sorted).
    rest: Vec<[u32; 2]>,
    /// Leave the bind pose's pairs out of the results.
    ignore_rest: bool,
}

/// One character's clip and time for [`SkinnedCollider::pose_clips`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipPose {
    /// The clip's index among the character's clips ([`SkinnedCollider::clip_names`]).
    pub clip: usize,
    /// The time in the clip (seconds).
    pub t: f32,
    /// How a time outside the clip is mapped into it.
    pub time: ClipTime,
}

/// How a clip time outside `[0, duration]` is mapped into it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipTime {
    /// Wraps around: the clip plays in a loop.
    #[default]
    Loop,
    /// Clamps to the first or last key frame.
    Clamp,
}

/// Builds a [`SkinnedCollider`]: from a loaded glTF asset ([`Self::from_gltf`]) or from a mesh and
/// a [`LinearBlendSkinning`] the game made itself ([`Self::new`]).
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use rapier3d_deform::prelude::*;
///
/// let mut world = PhysicsWorld::new();
/// world.narrow_phase = DeformDispatcher::narrow_phase();
/// let (fox, _report) = load_gltf("assets/skinned/Fox.glb", &LoadOptions::default())?;
/// let mut fox = SkinnedColliderBuilder::from_gltf(&fox)?.scale(0.01).build(&mut world)?;
/// fox.play(&mut world.colliders, "Walk", 0.5)?;
/// world.step();
/// # Ok(()) }
/// ```
///
/// # Performance
/// [`Self::build`] costs one BN-Tree build, O(T log T · i) for `T` triangles and `i` influences
/// per vertex, plus O(T) for the rest-pose mass properties.
#[derive(Clone, Debug)]
pub struct SkinnedColliderBuilder {
    mesh: TriangleMesh,
    skin: LinearBlendSkinning,
    morph: Option<MorphDeltas>,
    rig: Option<Rig>,
    root: Affine,
    tree_options: BnTreeOptions,
    self_collisions: Option<CullingMode>,
    ignore_rest_contacts: bool,
    fixed_internal_edges: bool,
    solid_contacts: bool,
    swept_contacts: bool,
    contact_points_per_triangle: bool,
    body: RigidBodyBuilder,
    attach_to: Option<RigidBodyHandle>,
    collider: ColliderBuilder,
    density: f32,
}

impl SkinnedColliderBuilder {
    /// A builder for `mesh` deformed by `skin` (its rest positions must be the mesh's vertices).
    /// The collider starts in the bind pose.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `skin` has not one rest position per mesh vertex.
    ///
    /// # Performance
    /// O(1) (the mesh and skin are moved in).
    pub fn new(mesh: TriangleMesh, skin: LinearBlendSkinning) -> Result<Self> {
        if skin.rest_positions().len() != mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "skin rest positions",
                expected: mesh.vertex_count(),
                actual: skin.rest_positions().len(),
            });
        }
        Ok(Self {
            mesh,
            skin,
            morph: None,
            rig: None,
            root: Affine::IDENTITY,
            tree_options: BnTreeOptions::COLLIDER,
            self_collisions: None,
            ignore_rest_contacts: false,
            fixed_internal_edges: false,
            solid_contacts: false,
            swept_contacts: false,
            contact_points_per_triangle: false,
            body: RigidBodyBuilder::kinematic_position_based(),
            attach_to: None,
            collider: ColliderBuilder::ball(1.0),
            density: 1.0,
        })
    }

    /// A builder for the skinned mesh of a loaded glTF asset, with its skeleton and clips, so the
    /// collider can be posed with [`SkinnedCollider::play`]. The collider starts in the rest pose
    /// of the skeleton (its nodes' own transforms, no clip applied). A mesh that also has morph
    /// targets is morphed, then skinned (glTF order). For every mesh node of a file (a character
    /// made of several meshes, a node-animated model, a morph-only mesh) use
    /// [`Self::from_scene`].
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] when the loaded mesh has no skin.
    ///
    /// # Performance
    /// O(vertices · (influences + morph targets) + nodes + keyframes): the data are cloned.
    pub fn from_gltf(asset: &GltfAsset) -> Result<Self> {
        let skin = asset.skinning.clone().ok_or(DeformError::NotAvailable {
            what: "SkinnedColliderBuilder::from_gltf",
            reason: "the loaded mesh has no skin (load every mesh node with load_gltf_scene \
                         and use SkinnedColliderBuilder::from_scene)",
        })?;
        let mut builder = Self::new(asset.mesh.clone(), skin)?;
        let mut morph_nodes = Vec::new();
        if let (Some(m), Some(node)) = (&asset.morph, asset.mesh_node) {
            let targets: Vec<Vec<Vec3>> = (0..m.target_count())
                .filter_map(|i| m.target(i).map(<[Vec3]>::to_vec))
                .collect();
            let mut deltas = MorphDeltas::new(m.vertex_count());
            deltas.add_group(0, targets)?;
            deltas.set_weights(m.weights())?;
            morph_nodes.push((node, 0, m.weights().to_vec()));
            builder = builder.morph_targets(deltas)?;
        }
        builder.rig = Some(Rig {
            skeleton: asset.skeleton.clone(),
            clips: asset.clips.clone(),
            bone_nodes: asset
                .skeleton
                .joints()
                .iter()
                .map(|&j| Some(j as usize))
                .collect(),
            morph_nodes,
        });
        Ok(builder)
    }

    /// A builder for a whole loaded glTF scene ([`crate::io::load_gltf_scene`]): every skinned,
    /// rigidly attached and static part, with its morph targets, clips and hierarchy. The
    /// collider starts in the rest pose (the nodes' own transforms, default morph weights).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use rapier3d_deform::prelude::*;
    ///
    /// let mut world = PhysicsWorld::new();
    /// world.narrow_phase = DeformDispatcher::narrow_phase();
    /// let (scene, report) =
    ///     load_gltf_scene("assets/skinned/kenney_platformer_character.glb", &LoadOptions::default())?;
    /// println!("{report}");
    /// let mut character = SkinnedColliderBuilder::from_scene(&scene)?.build(&mut world)?;
    /// character.pose(&mut world.colliders, "walk", 0.25, ClipTime::Loop)?;
    /// world.step();
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// What [`Self::new`] and [`Self::morph_targets`] reject (a scene built by hand with
    /// mismatched parts).
    ///
    /// # Performance
    /// O(vertices · (influences + morph targets) + nodes + keyframes): the data are cloned.
    pub fn from_scene(scene: &GltfScene) -> Result<Self> {
        let mut builder = Self::new(scene.mesh.clone(), scene.skinning.clone())?;
        if let Some(m) = &scene.morph {
            builder = builder.morph_targets(m.clone())?;
        }
        builder.rig = Some(Rig {
            skeleton: scene.skeleton.clone(),
            clips: scene.clips.clone(),
            bone_nodes: scene.bones.iter().map(|b| b.node).collect(),
            morph_nodes: scene
                .parts
                .iter()
                .filter(|p| !p.morph_weights.is_empty())
                .map(|p| {
                    (
                        p.node,
                        p.morph_weights.start,
                        p.default_morph_weights.clone(),
                    )
                })
                .collect(),
        });
        Ok(builder)
    }

    /// Morph targets applied before the skin (glTF order), starting at `morph.weights()`.
    /// Self-collisions ([`Self::self_collisions`]) are not available with morph targets.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `morph` is not over the mesh's vertices.
    ///
    /// # Performance
    /// O(1) (moved in).
    pub fn morph_targets(mut self, morph: MorphDeltas) -> Result<Self> {
        if morph.vertex_count() != self.mesh.vertex_count() {
            return Err(DeformError::LengthMismatch {
                what: "morph target vertices",
                expected: self.mesh.vertex_count(),
                actual: morph.vertex_count(),
            });
        }
        self.morph = Some(morph);
        Ok(self)
    }

    /// Scales the model uniformly (glTF assets are often authored in centimetres: `0.01`).
    /// Applied before the transform of [`Self::model_transform`].
    ///
    /// # Performance
    /// O(1).
    pub fn scale(mut self, factor: f32) -> Self {
        let s = Affine::new(Mat3::from_diagonal(Vec3::splat(factor)), Vec3::ZERO);
        self.root = self.root.compose(&s);
        self
    }

    /// Places the model in its body's frame (applied after the skin, before the body's pose):
    /// e.g. a rotation that turns a Z-up model Y-up, or an offset that puts its feet at the
    /// body's origin.
    ///
    /// # Performance
    /// O(1).
    pub fn model_transform(mut self, transform: Affine) -> Self {
        self.root = transform.compose(&self.root);
        self
    }

    /// The BN-Tree options ([`BnTreeOptions::COLLIDER`] by default: leaves of 16 triangles, O(m)
    /// data where it pays for per-step posing).
    ///
    /// # Performance
    /// O(1).
    pub fn tree_options(mut self, options: BnTreeOptions) -> Self {
        self.tree_options = options;
        self
    }

    /// Finds the mesh's self-collisions with [`SkinnedCollider::find_self_collisions`], with
    /// `mode` ([`CullingMode::Conservative`] finds every intersecting pair).
    ///
    /// # Performance
    /// O(nodes + vertices) more memory for the query's state.
    pub fn self_collisions(mut self, mode: CullingMode) -> Self {
        self.self_collisions = Some(mode);
        self
    }

    /// With self-collisions, leave out of [`SkinnedCollider::find_self_collisions`] the pairs
    /// that already intersect in the bind pose (armpits, eyelids, fingers modelled touching):
    /// they are part of the asset, not of the motion. They stay listed in
    /// [`SkinnedCollider::rest_contacts`]. Default: reported.
    ///
    /// # Performance
    /// O(1); the bind pose's pairs are found once by [`Self::build`] (a sweep, O(n + T log T)).
    pub fn ignore_rest_contacts(mut self, ignore: bool) -> Self {
        self.ignore_rest_contacts = ignore;
        self
    }

    /// Contacts use triangle pseudo-normals
    /// ([`DeformableMeshShape::with_fixed_internal_edges`]): a body touching an edge between
    /// two triangles is pushed along the surface's normal, not sideways, so a fast limb carries
    /// a ball instead of sliding past it. Default: off (contacts equal a `TriMesh`'s with only
    /// `DEFORMABLE`). [`Self::build`] fails with [`DeformError::InvalidParameter`] when the
    /// mesh is not an oriented manifold.
    ///
    /// # Performance
    /// O(1); each contact triangle then also poses its three neighbours' normals.
    pub fn fixed_internal_edges(mut self, fixed: bool) -> Self {
        self.fixed_internal_edges = fixed;
        self
    }

    /// Contacts treat the closed mesh as a solid
    /// ([`DeformableMeshShape::with_solid_contacts`]): pseudo-normals as with
    /// [`Self::fixed_internal_edges`], one-sided and pointing out, so a ball whose centre a
    /// fast limb has carried past the skin is pushed back out on its side. Default: off.
    /// [`Self::build`] fails with [`DeformError::InvalidParameter`] when the mesh is not a
    /// closed oriented manifold.
    ///
    /// # Performance
    /// O(1); O(T) once at build time; contacts cost as with [`Self::fixed_internal_edges`].
    pub fn solid_contacts(mut self, solid: bool) -> Self {
        self.solid_contacts = solid;
        self
    }

    /// Contacts follow the skin's motion between the last two poses
    /// ([`DeformableMeshShape::with_swept_contacts`], which makes them solid too): a limb
    /// moving up to a ball's radius plus its own thickness per step does not pass through the
    /// ball; with morph targets the sweep follows the morph weights too. Pose once per step.
    /// Default: off. [`Self::build`] fails as with [`Self::solid_contacts`].
    ///
    /// # Performance
    /// O(1); O(T) once at build time; O(m · (1 + morph targets)) more per pose, and per contact pair the continuous
    /// test of the triangles within the skin's motion bound of the other shape's centre.
    pub fn swept_contacts(mut self, swept: bool) -> Self {
        self.swept_contacts = swept;
        self
    }

    /// Contacts keep every triangle's points, as parry's `TriMesh` reports them
    /// ([`DeformableMeshShape::with_contact_points_per_triangle`]). Default: off (a point the
    /// triangles around a vertex share in one contact plane is kept once).
    ///
    /// # Performance
    /// O(1).
    pub fn contact_points_per_triangle(mut self, per_triangle: bool) -> Self {
        self.contact_points_per_triangle = per_triangle;
        self
    }

    /// The rigid body [`Self::build`] inserts (default: kinematic, position based, at the
    /// origin). Ignored with [`Self::attach_to`].
    ///
    /// # Performance
    /// O(1).
    pub fn body(mut self, body: RigidBodyBuilder) -> Self {
        self.body = body;
        self
    }

    /// Attaches the collider to an existing body instead of inserting one.
    ///
    /// # Performance
    /// O(1).
    pub fn attach_to(mut self, body: RigidBodyHandle) -> Self {
        self.attach_to = Some(body);
        self
    }

    /// Collider settings (friction, restitution, collision groups, active events…): the shape
    /// and mass properties of `collider` are replaced by [`Self::build`].
    ///
    /// # Performance
    /// O(1).
    pub fn collider(mut self, collider: ColliderBuilder) -> Self {
        self.collider = collider;
        self
    }

    /// The density of the collider's explicit mass properties (computed once from the rest
    /// pose; a deforming collider keeps them, so Rapier does not recompute them every step).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a non-positive or non-finite density.
    ///
    /// # Performance
    /// O(1).
    pub fn density(mut self, density: f32) -> Result<Self> {
        if !(density.is_finite() && density > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "density",
                value: density,
                reason: "must be positive and finite",
            });
        }
        self.density = density;
        Ok(self)
    }

    /// Builds the tree and shape and inserts the body and collider into `world`.
    ///
    /// # Errors
    /// As [`Self::build_in`].
    ///
    /// # Performance
    /// As [`SkinnedColliderBuilder`].
    pub fn build(self, world: &mut PhysicsWorld) -> Result<SkinnedCollider> {
        self.build_in(&mut world.bodies, &mut world.colliders)
    }

    /// Builds the tree and shape and inserts the body and collider into the given sets.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] for an [`Self::attach_to`] body not in `bodies`;
    /// [`DeformError::InvalidParameter`] for a model transform that is not finite or mirrors
    /// (a scale that is not positive); [`DeformError::NotAvailable`] for self-collisions with
    /// morph targets; what [`BnTree::build_with`] rejects (degenerate weights, invalid options).
    ///
    /// # Performance
    /// As [`SkinnedColliderBuilder`].
    pub fn build_in(
        self,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
    ) -> Result<SkinnedCollider> {
        let det = self.root.linear.determinant();
        if !(self.root.is_finite() && det.is_finite() && det > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "model transform determinant (scale³ for a scale)",
                value: det,
                reason: "the model transform must be finite and keep orientation (determinant > 0)",
            });
        }
        if self.morph.is_some() && self.self_collisions.is_some() {
            return Err(DeformError::NotAvailable {
                what: "SkinnedColliderBuilder::self_collisions",
                reason: "the BN-Tree's normal bounds do not cover morph targets",
            });
        }
        if let Some(body) = self.attach_to
            && bodies.get(body).is_none()
        {
            return Err(DeformError::UnknownHandle {
                what: "rigid body",
                index: body.into_raw_parts().0,
            });
        }
        let tree = Arc::new(BnTree::build_with(
            &self.mesh,
            self.skin.rest_positions(),
            self.skin.weights(),
            self.tree_options,
        )?);
        let mut character = SkinnedCollider {
            tree: tree.clone(),
            body: RigidBodyHandle::invalid(),
            collider: ColliderHandle::invalid(),
            skin: self.skin,
            morph_weights: self
                .morph
                .as_ref()
                .map_or_else(Vec::new, |m| m.weights().to_vec()),
            morph: self.morph,
            rig: self.rig.map(Arc::new),
            pose_buffers: PoseBuffers::default(),
            root: self.root,
            bones: Vec::new(),
            stage_error: None,
            self_collisions: match self.self_collisions {
                Some(mode) => {
                    // The bind pose: every skinning transform the identity.
                    let mut query = SelfCollisionQuery::new(&tree);
                    let mut rest = Vec::new();
                    let identity = vec![Affine::IDENTITY; tree.weights().governor_count()];
                    query.run_sweep(&tree, &identity, &mut rest)?;
                    Some(SelfCollisions {
                        mode,
                        query,
                        pairs: Vec::new(),
                        stats: SelfCollisionStats::default(),
                        rest,
                        ignore_rest: self.ignore_rest_contacts,
                    })
                }
                None => None,
            },
        };
        character.set_start_pose()?;
        let mut shape = DeformableMeshShape::new(tree, character.skin.governors())?;
        if let Some(m) = &character.morph {
            shape = shape.with_morph_targets(m.clone())?;
        }
        if self.swept_contacts {
            shape = shape.with_swept_contacts()?;
        } else if self.solid_contacts {
            shape = shape.with_solid_contacts()?;
        } else if self.fixed_internal_edges {
            shape = shape.with_fixed_internal_edges()?;
        }
        if self.contact_points_per_triangle {
            shape = shape.with_contact_points_per_triangle();
        }
        let mass = shape.mass_properties(self.density);
        let body = match self.attach_to {
            Some(body) => body,
            None => bodies.insert(self.body),
        };
        let mut collider = self.collider.mass_properties(mass);
        collider.shape = SharedShape(Arc::new(shape));
        let collider = collider.build();
        character.body = body;
        character.collider = colliders.insert_with_parent(collider, body, bodies);
        Ok(character)
    }
}

/// A skinned mesh in a Rapier world (a whole glTF character: skinned meshes, meshes attached to
/// bones or animated nodes, morph targets): one collider whose [`DeformableMeshShape`] follows
/// the bones and morph weights, posed once per step in O(bones + morph targets), with its
/// self-collisions on request (without morph targets).
///
/// Per step: pose it ([`Self::play`] from a clip, [`Self::pose_bones`] from the game's own bone
/// transforms), step the world, then read [`Self::find_self_collisions`] if the game needs them.
/// The collider must stay unique (do not clone it, its builder or its shape) so posing never
/// deep-copies it (see [`crate::character::pose_deformable_mesh`]).
///
/// # Performance
/// Posing is O(bones + nodes of the skeleton); the narrow phase refits only the tree nodes that
/// contact queries reach. Memory: the skin (O(vertices · influences)), the tree and the shape's
/// caches (O(nodes + vertices)).
#[derive(Debug)]
pub struct SkinnedCollider {
    tree: Arc<BnTree>,
    body: RigidBodyHandle,
    collider: ColliderHandle,
    skin: LinearBlendSkinning,
    morph: Option<MorphDeltas>,
    morph_weights: Vec<f32>,
    /// Shared by [`Self::instantiate`]d copies.
    rig: Option<Arc<Rig>>,
    /// Buffers of clip posing: no allocation per pose.
    pose_buffers: PoseBuffers,
    root: Affine,
    bones: Vec<Affine>,
    self_collisions: Option<SelfCollisions>,
    /// What [`Self::pose_clips`] staging rejected for this collider, until its write phase.
    stage_error: Option<DeformError>,
}

/// The buffers [`SkinnedCollider::pose_clip`] reuses from pose to pose.
#[derive(Debug, Default)]
struct PoseBuffers {
    scratch: SkeletonScratch,
    node_world: Vec<Affine>,
    bones: Vec<Affine>,
    morph_weights: Vec<f32>,
    morph_scratch: Vec<f32>,
}

impl SkinnedCollider {
    /// Another character like this one (same mesh, skin, morph targets, clips, self-collision
    /// mode and collider settings), on a new body built from `body`, in this character's current
    /// pose. It shares this character's BN-Tree and its shape's read-only tables (leaf blocks,
    /// root bounds, topology) and clips instead of building its own, so `n` instances of one
    /// asset hold one copy of them: a crowd's per-step refits then read one tree, which stays in
    /// the core's caches. The new collider is a copy of this one's (friction, groups, hook flags,
    /// mass properties…) with its own shape: its caches and pose are its own, and posing one
    /// instance never touches another. Track it in [`crate::character::SurfaceVelocityHooks`]
    /// like any other collider.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when this character's collider is not in `colliders`;
    /// [`DeformError::InvalidParameter`] when its shape is no longer a [`DeformableMeshShape`].
    ///
    /// # Performance
    /// O(vertices + nodes) for the new shape's caches and the copied skin, no tree build.
    pub fn instantiate(
        &self,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        body: RigidBodyBuilder,
    ) -> Result<SkinnedCollider> {
        // `of_collider` names an unknown handle; the collider exists past it.
        let shape = DeformableMeshShape::of_collider(colliders, self.collider)?.clone();
        let mut collider = colliders[self.collider].clone();
        collider.set_shape(SharedShape(Arc::new(shape)));
        let body = bodies.insert(body);
        let collider = colliders.insert_with_parent(collider, body, bodies);
        Ok(SkinnedCollider {
            tree: self.tree.clone(),
            body,
            collider,
            skin: self.skin.clone(),
            morph: self.morph.clone(),
            morph_weights: self.morph_weights.clone(),
            rig: self.rig.clone(),
            pose_buffers: PoseBuffers::default(),
            root: self.root,
            bones: self.bones.clone(),
            self_collisions: self.self_collisions.clone(),
            stage_error: None,
        })
    }

    /// The rigid body carrying the collider.
    pub fn body(&self) -> RigidBodyHandle {
        self.body
    }

    /// The collider.
    pub fn collider(&self) -> ColliderHandle {
        self.collider
    }

    /// The skin (rest positions, weights, current skinning transforms).
    pub fn skin(&self) -> &LinearBlendSkinning {
        &self.skin
    }

    /// The names of the clips (unnamed clips are `None`), in file order; empty without a glTF rig.
    pub fn clip_names(&self) -> impl Iterator<Item = Option<&str>> {
        self.rig
            .iter()
            .flat_map(|r| r.clips.iter().map(AnimationClip::name))
    }

    /// The clip called `name`, if the collider was built from a glTF asset that has it.
    pub fn clip(&self, name: &str) -> Option<&AnimationClip> {
        self.rig
            .as_ref()
            .and_then(|r| r.clips.iter().find(|c| c.name() == Some(name)))
    }

    /// Poses the collider at time `t` (seconds) of the clip called `name`, looping.
    ///
    /// # Errors
    /// [`DeformError::UnknownName`] without a clip of that name (or without a glTF rig); as
    /// [`Self::pose_clip`].
    ///
    /// # Performance
    /// O(bones + skeleton nodes + channels · log keyframes).
    pub fn play(&mut self, colliders: &mut ColliderSet, name: &str, t: f32) -> Result<()> {
        let index = self
            .rig
            .as_ref()
            .and_then(|r| r.clips.iter().position(|c| c.name() == Some(name)))
            .ok_or_else(|| DeformError::UnknownName {
                what: "clip",
                name: name.to_owned(),
            })?;
        self.pose_clip(colliders, index, t, ClipTime::Loop)
    }

    /// Poses the collider at time `t` (seconds) of clip number `clip` of its glTF rig.
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] without a glTF rig; [`DeformError::IndexOutOfRange`] for
    /// a clip index out of range; [`DeformError::InvalidParameter`] for a non-finite `t`; what
    /// [`Self::pose_bones`] rejects.
    ///
    /// # Performance
    /// As [`Self::play`].
    pub fn pose_clip(
        &mut self,
        colliders: &mut ColliderSet,
        clip: usize,
        t: f32,
        time: ClipTime,
    ) -> Result<()> {
        self.stage_clip(clip, t, time)?;
        self.write_pose(colliders)
    }

    /// Poses many colliders from their clips: `pose_of(i)` gives character `i`'s clip and time.
    /// Sampling the clips and the bone products (the bulk of posing) run on rayon's threads with
    /// the `parallel` feature, one character per task; the writes into `colliders` follow on the
    /// calling thread in slice order. The result equals [`Self::pose_clip`] called on each
    /// character in turn.
    ///
    /// # Errors
    /// The error of the first character (in slice order) whose pose was rejected, as
    /// [`Self::pose_clip`]; a rejected character keeps its previous pose, every other one is
    /// posed.
    ///
    /// # Performance
    /// As [`Self::pose_clip`] per character, spread over the threads; no allocation after
    /// warm-up.
    pub fn pose_clips<F>(
        characters: &mut [SkinnedCollider],
        colliders: &mut ColliderSet,
        pose_of: F,
    ) -> Result<()>
    where
        F: Fn(usize) -> ClipPose + Sync,
    {
        let stage = |(i, c): (usize, &mut SkinnedCollider)| {
            let p = pose_of(i);
            c.stage_error = c.stage_clip(p.clip, p.t, p.time).err();
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            characters.par_iter_mut().enumerate().for_each(stage);
        }
        #[cfg(not(feature = "parallel"))]
        characters.iter_mut().enumerate().for_each(stage);
        let mut first = None;
        for c in characters.iter_mut() {
            let written = match c.stage_error.take() {
                Some(e) => Err(e),
                None => c.write_pose(colliders),
            };
            if let Err(e) = written {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The skin's transforms (and morph weights) at time `t` of clip number `clip`; the collider
    /// in the world is not touched ([`Self::write_pose`] does that).
    fn stage_clip(&mut self, clip: usize, t: f32, time: ClipTime) -> Result<()> {
        if !t.is_finite() {
            return Err(DeformError::InvalidParameter {
                name: "clip time",
                value: t,
                reason: "must be finite",
            });
        }
        let rig = self.rig.as_ref().ok_or(DeformError::NotAvailable {
            what: "SkinnedCollider::pose_clip",
            reason: "the collider was not built from a glTF rig (SkinnedColliderBuilder::from_gltf)",
        })?;
        let clip = rig.clips.get(clip).ok_or(DeformError::IndexOutOfRange {
            what: "clip",
            index: clip,
            len: rig.clips.len(),
        })?;
        let t = match time {
            ClipTime::Loop => clip.looped_time(t),
            ClipTime::Clamp => t.clamp(0.0, clip.duration()),
        };
        let mut bones = std::mem::take(&mut self.pose_buffers.bones);
        rig.bones(Some(clip), t, &mut self.pose_buffers, &mut bones);
        let result = if self.morph.is_none() {
            self.stage_bones(&bones)
        } else {
            let mut weights = std::mem::take(&mut self.pose_buffers.morph_weights);
            weights.clear();
            weights.extend_from_slice(&self.morph_weights);
            rig.morph_weights(
                Some(clip),
                t,
                &mut self.pose_buffers.morph_scratch,
                &mut weights,
            );
            let staged = self.stage_bones_and_morphs(&bones, &weights);
            self.pose_buffers.morph_weights = weights;
            staged
        };
        self.pose_buffers.bones = bones;
        result
    }

    /// The skin's transforms from the bones' world transforms in the model's space (the model
    /// transform applied on top); nothing changes on error.
    fn stage_bones(&mut self, bones: &[Affine]) -> Result<()> {
        self.bones.clear();
        self.bones
            .extend(bones.iter().map(|b| self.root.compose(b)));
        self.skin.set_bone_transforms(&self.bones)
    }

    /// [`Self::stage_bones`] and the morph weights; nothing changes on error.
    fn stage_bones_and_morphs(&mut self, bones: &[Affine], morph_weights: &[f32]) -> Result<()> {
        crate::deformation::check_target_weights(morph_weights, self.morph_weights.len())?;
        self.stage_bones(bones)?;
        self.morph_weights.copy_from_slice(morph_weights);
        Ok(())
    }

    /// Poses the collider at time `t` (seconds) of the clip called `name`, looping or clamping
    /// as `time` says.
    ///
    /// # Errors
    /// [`DeformError::UnknownName`] without a clip of that name; as [`Self::pose_clip`].
    ///
    /// # Performance
    /// As [`Self::play`].
    pub fn pose(
        &mut self,
        colliders: &mut ColliderSet,
        name: &str,
        t: f32,
        time: ClipTime,
    ) -> Result<()> {
        let index = self
            .rig
            .as_ref()
            .and_then(|r| r.clips.iter().position(|c| c.name() == Some(name)))
            .ok_or_else(|| DeformError::UnknownName {
                what: "clip",
                name: name.to_owned(),
            })?;
        self.pose_clip(colliders, index, t, time)
    }

    /// Poses the collider in the bind pose: every governor the identity (the mesh's rest
    /// positions: skinned parts as bound, rigid parts where the rest pose put them), morph
    /// weights unchanged.
    ///
    /// # Errors
    /// As [`Self::pose_bones`].
    ///
    /// # Performance
    /// O(bones).
    pub fn pose_bind(&mut self, colliders: &mut ColliderSet) -> Result<()> {
        self.bones.clear();
        self.bones.resize(self.skin.bone_count(), self.root);
        self.skin.set_skinning_transforms(&self.bones)?;
        self.write_pose(colliders)
    }

    /// Poses the collider from the world transform of every node of its glTF file (indexed by
    /// node, in the model's space, as [`Skeleton::node_world_transforms`] gives them): a game
    /// that animates the glTF hierarchy itself. Morph weights are unchanged.
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] without a glTF rig; [`DeformError::LengthMismatch`] for
    /// not one transform per node; as [`Self::pose_bones`].
    ///
    /// # Performance
    /// O(bones).
    pub fn pose_nodes(&mut self, colliders: &mut ColliderSet, node_world: &[Affine]) -> Result<()> {
        let rig = self.rig.as_ref().ok_or(DeformError::NotAvailable {
            what: "SkinnedCollider::pose_nodes",
            reason: "the collider was not built from a glTF asset",
        })?;
        if node_world.len() != rig.skeleton.node_count() {
            return Err(DeformError::LengthMismatch {
                what: "node world transforms",
                expected: rig.skeleton.node_count(),
                actual: node_world.len(),
            });
        }
        let bones: Vec<Affine> = rig
            .bone_nodes
            .iter()
            .map(|n| {
                n.and_then(|n| node_world.get(n).copied())
                    .unwrap_or(Affine::IDENTITY)
            })
            .collect();
        self.pose_bones(colliders, &bones)
    }

    /// Sets the morph weights (one per target, see [`Self::morph_weights`]); bones unchanged.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] or [`DeformError::InvalidGlobalWeight`]; nothing changes
    /// on error.
    ///
    /// # Performance
    /// O(bones + targets).
    pub fn set_morph_weights(
        &mut self,
        colliders: &mut ColliderSet,
        weights: &[f32],
    ) -> Result<()> {
        crate::deformation::check_target_weights(weights, self.morph_weights.len())?;
        pose_deformable_mesh_with_morphs(colliders, self.collider, self.skin.governors(), weights)?;
        self.morph_weights.copy_from_slice(weights);
        Ok(())
    }

    /// Poses bones ([`Self::pose_bones`]) and morph weights ([`Self::set_morph_weights`]) in
    /// one update.
    ///
    /// # Errors
    /// As both; a rejected pose (wrong lengths, non-finite values) changes nothing.
    ///
    /// # Performance
    /// O(bones + targets).
    pub fn pose_bones_and_morphs(
        &mut self,
        colliders: &mut ColliderSet,
        bones: &[Affine],
        morph_weights: &[f32],
    ) -> Result<()> {
        self.stage_bones_and_morphs(bones, morph_weights)?;
        self.write_pose(colliders)
    }

    /// The current morph weights (one per target: the glTF scene's parts in order, each its
    /// mesh's targets; empty without morph targets).
    pub fn morph_weights(&self) -> &[f32] {
        &self.morph_weights
    }

    /// The morph targets (applied before the skin), if any.
    pub fn morph_targets(&self) -> Option<&MorphDeltas> {
        self.morph.as_ref()
    }

    /// Poses the collider in the rest pose of its glTF hierarchy (the nodes' own transforms, the
    /// default morph weights): what a skin without any clip can be shown in. Without a glTF rig:
    /// the bind pose.
    ///
    /// # Errors
    /// As [`Self::pose_bones`].
    ///
    /// # Performance
    /// O(bones + skeleton nodes).
    pub fn pose_rest(&mut self, colliders: &mut ColliderSet) -> Result<()> {
        self.set_start_pose()?;
        self.write_pose(colliders)
    }

    /// Poses the collider from the world transforms of its bones in the model's space (one per
    /// bone, in skin joint order): what a game's own animation system produces. The model
    /// transform of the builder is applied on top.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] for a wrong number of bones;
    /// [`DeformError::NonFiniteTransform`] naming the first non-finite one;
    /// [`DeformError::UnknownHandle`] when the collider was removed from `colliders`. A rejected
    /// pose changes nothing.
    ///
    /// # Performance
    /// O(bones); no vertex is deformed.
    pub fn pose_bones(&mut self, colliders: &mut ColliderSet, bones: &[Affine]) -> Result<()> {
        self.stage_bones(bones)?;
        self.write_pose(colliders)
    }

    /// Finds the mesh's self-intersecting triangle pairs in its current pose (sorted `[t1, t2]`,
    /// `t1 < t2`, mesh triangle indices). Call after posing (typically after the step).
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] when the builder did not ask for self-collisions.
    ///
    /// Meshes below [`crate::bn_tree::SWEEP_BELOW_TRIANGLES`] triangles are checked by
    /// [`SelfCollisionQuery::run_sweep`] (every pair, in either culling mode), which is faster
    /// than the traversal at that size.
    ///
    /// # Performance
    /// One BN-Tree self-collision query: proportional to the nodes it reaches; a sweep, O(n + T
    /// log T), below the size limit; no allocation after warm-up.
    pub fn find_self_collisions(&mut self) -> Result<&[[u32; 2]]> {
        let state = self
            .self_collisions
            .as_mut()
            .ok_or(DeformError::NotAvailable {
                what: "SkinnedCollider::find_self_collisions",
                reason: "enable them with SkinnedColliderBuilder::self_collisions",
            })?;
        state.stats = state.query.run_by_mesh_size(
            &self.tree,
            self.skin.governors(),
            state.mode,
            &mut state.pairs,
        )?;
        if state.ignore_rest && !state.rest.is_empty() {
            let rest = &state.rest;
            state.pairs.retain(|p| rest.binary_search(p).is_err());
        }
        Ok(&state.pairs)
    }

    /// The triangle pairs that intersect in the bind pose (sorted `[t1, t2]`, `t1 < t2`), found
    /// when the collider was built; empty without self-collisions. Left out of
    /// [`Self::find_self_collisions`] with [`SkinnedColliderBuilder::ignore_rest_contacts`].
    ///
    /// # Performance
    /// O(1).
    pub fn rest_contacts(&self) -> &[[u32; 2]] {
        self.self_collisions
            .as_ref()
            .map_or(&[][..], |s| s.rest.as_slice())
    }

    /// The pairs found by the last [`Self::find_self_collisions`] (empty before the first, or
    /// without self-collisions).
    pub fn last_self_collisions(&self) -> &[[u32; 2]] {
        self.self_collisions
            .as_ref()
            .map_or(&[][..], |s| s.pairs.as_slice())
    }

    /// Counters and timings of the last [`Self::find_self_collisions`] (default values before
    /// the first).
    pub fn self_collision_stats(&self) -> Option<SelfCollisionStats> {
        self.self_collisions.as_ref().map(|s| s.stats)
    }

    /// The collider's BN-Tree (shared with its shape).
    pub fn tree(&self) -> &Arc<BnTree> {
        &self.tree
    }

    fn set_start_pose(&mut self) -> Result<()> {
        self.bones.clear();
        match &self.rig {
            Some(rig) => {
                let mut rest = Vec::new();
                rig.bones(None, 0.0, &mut self.pose_buffers, &mut rest);
                rig.morph_weights(
                    None,
                    0.0,
                    &mut self.pose_buffers.morph_scratch,
                    &mut self.morph_weights,
                );
                self.bones.extend(rest.iter().map(|b| self.root.compose(b)));
                self.skin.set_bone_transforms(&self.bones)
            }
            None => {
                self.bones.resize(self.skin.bone_count(), self.root);
                self.skin.set_skinning_transforms(&self.bones)
            }
        }
    }

    fn write_pose(&mut self, colliders: &mut ColliderSet) -> Result<()> {
        if self.morph.is_some() {
            pose_deformable_mesh_with_morphs(
                colliders,
                self.collider,
                self.skin.governors(),
                &self.morph_weights,
            )?;
        } else {
            // The skin validated its governors when it was posed.
            pose_deformable_mesh_validated(colliders, self.collider, self.skin.governors())?;
        }
        Ok(())
    }

    /// The deformed collision vertices in the model's frame (scaled and transformed by the
    /// builder's model transform), for drawing or debugging: morphed, then skinned.
    ///
    /// # Performance
    /// O(vertices · (influences + morph targets of their part)).
    pub fn deformed_positions(&self, out: &mut Vec<Vec3>) {
        let Some(m) = &self.morph else {
            self.skin.deform_into(out);
            return;
        };
        let rest = self.skin.rest_positions();
        let weights = self.skin.weights();
        let governors = self.skin.governors();
        out.clear();
        out.extend((0..rest.len()).map(|v| {
            let p0 = m.displace_with(&self.morph_weights, v, rest[v]);
            let mut p = Vec3::ZERO;
            for (g, w) in weights.iter_row(v) {
                p += w * governors[g as usize].transform_point(p0);
            }
            p
        }));
    }

    /// Number of bones (governors): what [`Self::pose_bones`] takes one world transform for.
    pub fn bone_count(&self) -> usize {
        self.skin.bone_count()
    }
}
