//! `DeformableMeshShape`: a triangle mesh under a governed deformation as a parry shape, with an O(m) root AABB and BN-Tree node boxes and deformed vertices refit lazily, thread-safely, under `&self`.
//!
//! The shape holds a shared [`BnTree`] (rest mesh, weights, node hierarchy and O(m) patch data)
//! and the current governors. [`DeformableMeshShape::set_governors`] copies O(m) data, bumps an
//! epoch and recomputes the root box in O(m) — no vertex is touched. Queries (ray casts, point
//! projections, the contact traversal of [`crate::query::DeformDispatcher`]) then refit only the
//! nodes and deform only the vertices they reach, each at most once per epoch.
//!
//! The lazy caches are arrays of atomics stamped with the epoch: an entry whose stamp equals the
//! current epoch is valid. Every writer of an entry in a given epoch computes bit-identical values
//! from the same `&self` state, so concurrent refits of the same node by Rapier's `parallel`
//! narrow phase are benign races on atomics (no lock, no `unsafe`), and results do not depend on
//! thread order. The epoch only changes under `&mut self`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rapier3d::math::{Pose, Real};
use rapier3d::parry::bounding_volume::{Aabb, BoundingSphere, BoundingVolume};
use rapier3d::parry::glamx::Vec3A;
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::query::{PointProjection, PointQuery, Ray, RayCast, RayIntersection};
use rapier3d::parry::shape::{FeatureId, Shape, Triangle, TrianglePseudoNormals};

use crate::bn_tree::{BnTree, VertexLeaves};
use crate::bounds::{BoundsWorkspace, MorphMarginBounds, PatchBounds};
use crate::deformation::{MorphDeltas, check_target_weights};
use crate::error::{DeformError, Result};
use crate::governor::{
    Affine, WideAffine, blend_wide, deform_vertex, validate_governors, widen_governors,
};

use super::deformable_mesh_sweep::SweepState;
use super::leaf_blocks::LeafBlocks;
use super::node_stack::NodeStack;
use crate::math::Vec3;

/// The leaf demand (slots of the distinct leaves whose boxes an epoch's queries read, over the
/// mesh's vertex count) from which the next epoch of a tree with O(m) data at internal nodes is
/// refit whole ([`DeformableMeshShape::refit_whole`]: every vertex deformed once, every box
/// bottom-up) instead of leaf by leaf. A slot costs about what a vertex of the whole pass costs
/// (a vertex has about 1.5–1.9 slots when every leaf is read), and the leaf-by-leaf route adds
/// the O(m) boxes of the internal nodes it passes.
const WHOLE_REFIT_DEMAND: f64 = 0.75;

thread_local! {
    /// Scratch memory of the O(m) bounds evaluated under `&self` (one per thread).
    static BOUNDS_WS: RefCell<BoundsWorkspace> = RefCell::new(BoundsWorkspace::default());
}

/// Epoch-stamped lazy caches (node boxes and deformed vertices) readable and writable under
/// `&self` from several threads.
#[derive(Debug)]
pub(super) struct LazyCache {
    pub node_stamp: Box<[AtomicU32]>,
    pub node_aabb: Box<[[AtomicU32; 6]]>,
    pub vertex_stamp: Box<[AtomicU32]>,
    pub vertex: Box<[[AtomicU32; 3]]>,
    /// Posed positions of the leaf blocks' slots, valid while their leaf's node stamp is.
    slot: Box<[[AtomicU32; 3]]>,
    /// The epoch of the last whole-mesh refit (`DeformableMeshShape::refit_whole`): while it is
    /// current, every entry of `vertex` is.
    pub whole_stamp: AtomicU32,
    pub node_refits: AtomicU64,
    pub vertices_deformed: AtomicU64,
    /// Per node (leaves only; empty for a tree that is always refit whole): the epoch in which
    /// a query last read the leaf's box while the epoch was refit whole.
    leaf_read: Box<[AtomicU32]>,
    /// Slots of the distinct leaves whose boxes this epoch's queries read: what refitting leaf
    /// by leaf costs (or would have cost, in an epoch refit whole).
    leaf_demand: AtomicU64,
}

/// A point cached as three atomics (bits of its coordinates), as [`store_point`] wrote it.
#[inline]
pub(super) fn load_point(a: &[AtomicU32; 3]) -> Vec3 {
    Vec3::new(
        f32::from_bits(a[0].load(Ordering::Relaxed)),
        f32::from_bits(a[1].load(Ordering::Relaxed)),
        f32::from_bits(a[2].load(Ordering::Relaxed)),
    )
}

/// Caches `p` in three atomics (its coordinates' bits); the caller publishes it with a stamp.
#[inline]
pub(super) fn store_point(a: &[AtomicU32; 3], p: Vec3) {
    for (a, x) in a.iter().zip(p.to_array()) {
        a.store(x.to_bits(), Ordering::Relaxed);
    }
}

impl LazyCache {
    fn new(nodes: usize, vertices: usize, slots: usize) -> Self {
        // Leaf demand is only tracked where the per-epoch choice exists (slots are kept).
        let leaf_read_len = if slots > 0 { nodes } else { 0 };
        Self {
            node_stamp: (0..nodes).map(|_| AtomicU32::new(0)).collect(),
            node_aabb: (0..nodes).map(|_| Default::default()).collect(),
            vertex_stamp: (0..vertices).map(|_| AtomicU32::new(0)).collect(),
            vertex: (0..vertices).map(|_| Default::default()).collect(),
            slot: (0..slots).map(|_| Default::default()).collect(),
            whole_stamp: AtomicU32::new(0),
            node_refits: AtomicU64::new(0),
            vertices_deformed: AtomicU64::new(0),
            leaf_read: (0..leaf_read_len).map(|_| AtomicU32::new(0)).collect(),
            leaf_demand: AtomicU64::new(0),
        }
    }

    pub(super) fn clear_stamps(&mut self) {
        for s in self
            .node_stamp
            .iter_mut()
            .chain(self.vertex_stamp.iter_mut())
            .chain(self.leaf_read.iter_mut())
        {
            *s.get_mut() = 0;
        }
        *self.whole_stamp.get_mut() = 0;
    }
}

/// Counters of the lazy refits since the last [`DeformableMeshShape::set_governors`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyRefitStats {
    /// Node boxes computed (O(m) patch bounds or unions of children / leaf triangles).
    pub node_refits: u64,
    /// Vertices deformed: by [`DeformableMeshShape::vertex`], and once per leaf that holds the
    /// vertex when a leaf's box is refit (a vertex on a leaf border counts once per leaf); a
    /// whole-mesh refit (trees without O(m) data at internal nodes) counts every vertex once.
    pub vertices_deformed: u64,
}

/// A triangle mesh under a governed deformation (`p = Σ_k w_k (A_k p0 + t_k)`) as a parry
/// [`Shape`] (`ShapeType::Custom`), bounded by a [`BnTree`] whose node boxes are refit on demand.
///
/// * [`Shape::compute_local_aabb`] is the O(m) bound of the whole mesh (the union of the root
///   patch's per-governor boxes, [`PatchBounds::hull_aabb`]), computed once per
///   [`Self::set_governors`].
/// * Ray casts and point projections traverse the tree, refitting only the nodes they reach; they
///   return the same hits as a parry `TriMesh` built on the deformed vertices (the mesh is a
///   surface: like a `TriMesh` without pseudo-normals, a projection is never `is_inside`). Hits
///   carry the mesh's triangle index as sub-shape id.
/// * Contacts with other shapes go through [`crate::query::DeformDispatcher`], which must be
///   installed first in the narrow phase's dispatcher chain.
/// * Mass properties are explicit: by default those of the closed rest mesh at unit density
///   (parry's `MassProperties::from_trimesh` on the rest positions), or of the rest AABB as a
///   solid box when the rest mesh does not enclose a positive volume (open or inward-facing
///   meshes). They do not follow the deformation; replace them with
///   [`Self::set_unit_mass_properties`]. A skinned mesh is usually kinematic, where they do not
///   matter.
///
/// Cloning shares the tree and copies the governors; the clone starts with empty caches.
///
/// # Performance
/// [`Self::set_governors`] is O(m) in the number of governors; a query touching `k` nodes costs
/// O(k · m) the first time in an epoch and O(k) after that. A leaf is refit from its packed
/// block of vertices (rest positions and weight rows side by side, in the tree's order), so a
/// refit reads contiguous memory. After an epoch whose queries read the boxes of leaves holding
/// at least 3/4 of the vertex count in slots (dense contact on a small mesh), the next epoch's
/// first query deforms every vertex once and builds every box bottom-up instead (O(V + nodes),
/// as a tree without O(m) data at internal nodes always does). Memory beside the shared tree:
/// 32 bytes per node and 16 per vertex of cache, and the leaf blocks (shared by clones): about 60 bytes per slot (a vertex
/// has one slot per leaf it touches, about 1.9 on a closed mesh with 16-triangle leaves) and
/// 12 per triangle.
#[derive(Debug)]
pub struct DeformableMeshShape {
    pub(super) tree: Arc<BnTree>,
    /// O(m) data bounding the whole mesh (the root's patch, or one built for the whole mesh).
    root_bounds: Arc<PatchBounds>,
    /// Some vertex weights changed since the build: `root_bounds` no longer holds, the root box
    /// is the lazy box of node 0.
    pub(super) root_stale: bool,
    governors: Vec<Affine>,
    /// `governors` as 4-lane columns for the leaf refits (refreshed with every epoch).
    pub(super) wide_governors: Vec<WideAffine>,
    epoch: u32,
    pub(super) root_aabb: Aabb,
    unit_mass: MassProperties,
    ccd_thickness: f32,
    pub(super) cache: LazyCache,
    /// No internal node of the tree has O(m) data: the first node box of every epoch refits the
    /// whole mesh in one pass ([`Self::refit_whole`]), and leaf triangles are read from the
    /// vertex cache.
    pub(super) whole_refit: bool,
    /// The current epoch is refit whole: always when [`Self::whole_refit`], else when the
    /// previous epoch's queries read the boxes of leaves holding at least
    /// [`WHOLE_REFIT_DEMAND`] of the mesh's vertex count in slots (dense contact on a small
    /// mesh), where one pass over every vertex costs less than refitting those leaves one by one.
    whole_epoch: bool,
    /// Per leaf, its vertices' rest positions and weights packed (copy-on-write like the tree).
    pub(super) blocks: Arc<LeafBlocks>,
    /// Vertex → leaves and vertex → triangles, built on first use, shared by clones.
    pub(super) incidence: Arc<OnceLock<MeshIncidence>>,
    /// Scratch rows of [`Self::update_vertex_weights`].
    pub(super) weight_scratch: Vec<f32>,
    /// Scratch of [`Self::update_vertex_weights`]: the nodes above the changed vertices.
    pub(super) dirty_nodes: Vec<u32>,
    /// Morph targets applied before the governors, with their per-node margins.
    morph: Option<Arc<ShapeMorph>>,
    /// Current morph weights (empty without morph targets).
    morph_weights: Vec<f32>,
    /// Contacts with convex shapes use triangle pseudo-normals
    /// ([`Self::with_fixed_internal_edges`]).
    fix_internal_edges: bool,
    /// `Some(s)` for a closed mesh contacted as a solid ([`Self::with_solid_contacts`]): `s`
    /// times a triangle's winding normal points out of it (`-1` for an inward-wound mesh).
    solid_orientation: Option<f32>,
    /// Contact points that coincide across triangles are merged
    /// ([`Self::with_contact_points_per_triangle`] turns it off).
    merge_contact_points: bool,
    /// The previous pose and the motion bound of swept contacts
    /// ([`Self::with_swept_contacts`]).
    pub(super) sweep: Option<Box<SweepState>>,
}

/// Morph targets of a [`DeformableMeshShape`] and the displacement margins of the nodes that
/// have O(m) patch data (and of the root).
#[derive(Debug)]
struct ShapeMorph {
    deltas: MorphDeltas,
    /// Per tree node: the margin of nodes with patch data (`None` for the others, whose boxes
    /// come from their children or deformed triangles).
    node_margins: Vec<Option<MorphMarginBounds>>,
    root_margin: MorphMarginBounds,
}

/// Which leaves and triangles use each vertex (built once, on first use).
#[derive(Debug)]
pub(super) struct MeshIncidence {
    pub leaves: VertexLeaves,
    pub triangle_offsets: Vec<u32>,
    pub triangles: Vec<u32>,
    /// The leaf holding each triangle.
    pub triangle_leaf: Vec<u32>,
    /// Per triangle, the triangle across each edge (corners 0–1, 1–2, 2–0), `u32::MAX` on a
    /// boundary ([`crate::mesh::TriangleMesh::edge_neighbours`]).
    pub edge_neighbors: Vec<[u32; 3]>,
}

impl MeshIncidence {
    fn new(tree: &BnTree) -> Self {
        let n = tree.rest_positions().len();
        let mut triangle_offsets = vec![0u32; n + 1];
        for t in tree.mesh().triangles() {
            for &v in t {
                triangle_offsets[v as usize + 1] += 1;
            }
        }
        for v in 0..n {
            triangle_offsets[v + 1] += triangle_offsets[v];
        }
        let mut fill = triangle_offsets.clone();
        let mut triangles = vec![0u32; triangle_offsets[n] as usize];
        for (t, tri) in tree.mesh().triangles().iter().enumerate() {
            for &v in tri {
                triangles[fill[v as usize] as usize] = t as u32;
                fill[v as usize] += 1;
            }
        }
        let mut triangle_leaf = vec![0u32; tree.mesh().triangle_count()];
        for (i, node) in tree.nodes().iter().enumerate() {
            if node.is_leaf() {
                for &t in tree.node_triangles(i) {
                    triangle_leaf[t as usize] = i as u32;
                }
            }
        }
        let edge_neighbors = tree.mesh().edge_neighbours();
        Self {
            leaves: tree.vertex_leaves(),
            triangle_offsets,
            triangles,
            triangle_leaf,
            edge_neighbors,
        }
    }

    /// Triangles using vertex `v`.
    pub fn triangles_of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.triangles[self.triangle_offsets[v] as usize..self.triangle_offsets[v + 1] as usize]
    }
}

impl Clone for DeformableMeshShape {
    fn clone(&self) -> Self {
        Self {
            tree: self.tree.clone(),
            root_bounds: self.root_bounds.clone(),
            root_stale: self.root_stale,
            governors: self.governors.clone(),
            wide_governors: self.wide_governors.clone(),
            epoch: 1,
            root_aabb: self.root_aabb,
            unit_mass: self.unit_mass,
            ccd_thickness: self.ccd_thickness,
            cache: LazyCache::new(
                self.cache.node_stamp.len(),
                self.cache.vertex_stamp.len(),
                self.cache.slot.len(),
            ),
            whole_refit: self.whole_refit,
            whole_epoch: self.whole_epoch,
            blocks: self.blocks.clone(),
            incidence: self.incidence.clone(),
            weight_scratch: Vec::new(),
            dirty_nodes: Vec::new(),
            morph: self.morph.clone(),
            morph_weights: self.morph_weights.clone(),
            fix_internal_edges: self.fix_internal_edges,
            solid_orientation: self.solid_orientation,
            merge_contact_points: self.merge_contact_points,
            sweep: self.sweep.clone(),
        }
    }
}

impl DeformableMeshShape {
    /// The shape of `collider` in `colliders`.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when the collider does not exist,
    /// [`DeformError::InvalidParameter`] when its shape is not a [`DeformableMeshShape`].
    ///
    /// # Performance
    /// O(1).
    pub fn of_collider(
        colliders: &rapier3d::geometry::ColliderSet,
        collider: rapier3d::geometry::ColliderHandle,
    ) -> Result<&Self> {
        colliders
            .get(collider)
            .ok_or(DeformError::UnknownHandle {
                what: "collider",
                index: collider.into_raw_parts().0,
            })?
            .shape()
            .as_shape::<Self>()
            .ok_or(DeformError::InvalidParameter {
                name: "collider shape",
                value: f32::NAN,
                reason: "the collider's shape is not a DeformableMeshShape",
            })
    }

    /// A shape over `tree` posed by `governors` (one per governor of the tree's weights).
    ///
    /// # Errors
    /// [`crate::DeformError::LengthMismatch`] when `governors` does not have one entry per
    /// governor of the weights; [`crate::DeformError::NonFiniteTransform`] naming the first
    /// non-finite governor.
    ///
    /// # Performance
    /// O(m) plus, when the tree's root has no O(m) patch data, one O(T · i · log m) patch
    /// precomputation over the whole mesh; O(T) for the rest-pose mass properties.
    pub fn new(tree: Arc<BnTree>, governors: &[Affine]) -> Result<Self> {
        validate_governors(governors, tree.weights().governor_count())?;
        let root_bounds = match tree.node_patch(0) {
            Some(p) => Arc::new(p.clone()),
            None => {
                let all: Vec<u32> = (0..tree.mesh().triangle_count() as u32).collect();
                Arc::new(PatchBounds::new(
                    tree.rest_positions(),
                    tree.weights(),
                    tree.mesh(),
                    &all,
                ))
            }
        };
        let unit_mass = rest_mass_properties(&tree);
        let ccd_thickness = rest_ccd_thickness(&tree);
        let blocks = Arc::new(LeafBlocks::new(&tree));
        let whole_refit = Self::tree_is_refit_whole(&tree);
        // A tree refit whole reads its triangles from the vertex cache: no slot cache.
        let cache = LazyCache::new(
            tree.nodes().len(),
            tree.rest_positions().len(),
            if whole_refit { 0 } else { blocks.slot_count() },
        );
        let mut shape = Self {
            tree,
            root_bounds,
            root_stale: false,
            governors: governors.to_vec(),
            wide_governors: Vec::new(),
            epoch: 1,
            root_aabb: Aabb::new_invalid(),
            unit_mass,
            ccd_thickness,
            cache,
            whole_refit,
            whole_epoch: whole_refit,
            blocks,
            incidence: Arc::new(OnceLock::new()),
            weight_scratch: Vec::new(),
            dirty_nodes: Vec::new(),
            morph: None,
            morph_weights: Vec::new(),
            fix_internal_edges: false,
            solid_orientation: None,
            merge_contact_points: true,
            sweep: None,
        };
        widen_governors(&shape.governors, &mut shape.wide_governors);
        shape.root_aabb = shape.compute_root_aabb();
        Ok(shape)
    }

    /// Adds morph targets applied *before* the governors (glTF 2.0 §3.7.2.2 then §3.7.3: a
    /// vertex is `Σ_k w_k A_k (p0 + Σ_i m_i Δ_i)`), with the weights `morph.weights()`.
    ///
    /// Node boxes stay O(m): each node with patch data adds its
    /// [`MorphMarginBounds::margin`] (O(targets + patch governors)) to its un-morphed box.
    /// The tree's self-collision queries ([`crate::bn_tree::SelfCollisionQuery`]) bound normals
    /// from the governors only and do not see the morph; contacts, ray casts and point queries
    /// do.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `morph` is not over the tree's vertex count.
    ///
    /// # Performance
    /// O(Σ over nodes with patch data of their vertices · targets) once.
    pub fn with_morph_targets(mut self, morph: MorphDeltas) -> Result<Self> {
        let n = self.tree.rest_positions().len();
        if morph.vertex_count() != n {
            return Err(DeformError::LengthMismatch {
                what: "morph target vertices",
                expected: n,
                actual: morph.vertex_count(),
            });
        }
        let rest = self.tree.rest_positions();
        let influences = self.tree.weights().max_influences();
        let tris = self.tree.mesh().triangles();
        let node_vertices = |i: usize| {
            let mut v: Vec<u32> = self
                .tree
                .node_triangles(i)
                .iter()
                .flat_map(|&t| tris[t as usize])
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let node_margins = (0..self.tree.nodes().len())
            .map(|i| {
                self.tree
                    .node_patch(i)
                    .map(|_| MorphMarginBounds::new(&morph, rest, node_vertices(i), influences))
            })
            .collect();
        let root_margin = MorphMarginBounds::new(&morph, rest, 0..n as u32, influences);
        self.morph_weights = morph.weights().to_vec();
        self.morph = Some(Arc::new(ShapeMorph {
            deltas: morph,
            node_margins,
            root_margin,
        }));
        self.bump_epoch();
        if self.sweep.is_some() {
            // Swept contacts bound the morph's motion too: their state covers the targets.
            self.sweep = Some(Box::new(self.new_sweep_state()));
        }
        Ok(self)
    }

    /// The morph targets, if any ([`Self::with_morph_targets`]); their weights are those given
    /// then, the current ones are [`Self::morph_weights`].
    pub fn morph_targets(&self) -> Option<&MorphDeltas> {
        self.morph.as_deref().map(|m| &m.deltas)
    }

    /// The current morph weights (empty without morph targets).
    pub fn morph_weights(&self) -> &[f32] {
        &self.morph_weights
    }

    /// Poses the mesh with new governors and morph weights in one epoch (see
    /// [`Self::set_governors`]). On error nothing changes.
    ///
    /// # Errors
    /// As [`Self::set_governors`]; [`DeformError::LengthMismatch`] or
    /// [`DeformError::InvalidGlobalWeight`] for morph weights of the wrong length (one per
    /// target; empty without targets) or not finite.
    ///
    /// # Performance
    /// O(m + targets); no vertex is deformed.
    pub fn set_pose(&mut self, governors: &[Affine], morph_weights: &[f32]) -> Result<()> {
        validate_governors(governors, self.governors.len())?;
        check_target_weights(morph_weights, self.morph_weights.len())?;
        self.remember_pose();
        self.governors.copy_from_slice(governors);
        self.morph_weights.copy_from_slice(morph_weights);
        self.bump_epoch();
        self.update_motion_bound();
        Ok(())
    }

    fn bump_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Stamps wrapped around: clear them so no stale entry looks fresh.
            self.cache.clear_stamps();
            self.epoch = 1;
        }
        *self.cache.node_refits.get_mut() = 0;
        *self.cache.vertices_deformed.get_mut() = 0;
        let demand = std::mem::take(self.cache.leaf_demand.get_mut());
        self.whole_epoch = self.whole_refit
            || demand as f64 >= WHOLE_REFIT_DEMAND * self.tree.rest_positions().len() as f64;
        widen_governors(&self.governors, &mut self.wide_governors);
        self.root_aabb = self.compute_root_aabb();
    }

    /// Poses the mesh with new governors: O(m) — an epoch bump invalidates every cached node box
    /// and vertex, and the root box is recomputed from the governors. On error nothing changes.
    ///
    /// # Errors
    /// As [`Self::new`].
    ///
    /// # Performance
    /// O(m); no vertex is deformed.
    pub fn set_governors(&mut self, governors: &[Affine]) -> Result<()> {
        validate_governors(governors, self.governors.len())?;
        self.set_validated_governors(governors)
    }

    /// [`Self::set_governors`] for governors that already passed [`validate_governors`] (a
    /// skin's, which validates every pose it is given): only their number is checked here.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `governors` does not have one entry per governor.
    ///
    /// # Performance
    /// O(m); no vertex is deformed.
    pub(crate) fn set_validated_governors(&mut self, governors: &[Affine]) -> Result<()> {
        if governors.len() != self.governors.len() {
            return Err(DeformError::LengthMismatch {
                what: "governor transforms",
                expected: self.governors.len(),
                actual: governors.len(),
            });
        }
        debug_assert!(validate_governors(governors, self.governors.len()).is_ok());
        self.remember_pose();
        self.governors.copy_from_slice(governors);
        self.bump_epoch();
        self.update_motion_bound();
        Ok(())
    }

    pub(super) fn compute_root_aabb(&self) -> Aabb {
        if self.root_stale {
            return self.node_aabb(0);
        }
        // The union of the governors' boxes, not the linear program: the root box only feeds
        // the broad phase (node boxes below prune every query), it costs a tenth as much, and at
        // the root of a skin, where each bone moves some vertex alone, it is the same box.
        let aabb = self.root_bounds.hull_aabb(&self.governors);
        match &self.morph {
            Some(m) => self.with_margin(aabb, &m.root_margin, self.root_bounds.governors()),
            None => aabb,
        }
    }

    /// `aabb` grown by the morph margin of a patch using `patch_governors`.
    fn with_margin(&self, aabb: Aabb, margin: &MorphMarginBounds, patch_governors: &[u32]) -> Aabb {
        let (lo, hi) = margin.margin(&self.morph_weights, &self.governors, patch_governors);
        Aabb::new(aabb.mins + lo, aabb.maxs + hi)
    }

    /// Builds the mesh's topology tables now rather than on first use: vertex → triangles,
    /// vertex → leaves and the triangle across each edge, which weight updates
    /// ([`Self::update_vertex_weights`]), self-intersection checks and contact normal cones read.
    /// Clones made afterwards share them, so shapes cloned from one prepared shape (the bodies
    /// of one asset) build them once, not each on its first use. Calling it again does nothing.
    ///
    /// # Performance
    /// O(V + T log T) the first time (about 26 M instructions for a 14k-triangle mesh), O(1)
    /// after.
    pub fn build_topology(&self) {
        let _ = self.incidence();
    }

    /// Whether the topology tables of [`Self::build_topology`] are built, and shared with
    /// `other` (a clone made after they were built, or before they were first used). Reading it
    /// changes nothing.
    ///
    /// # Performance
    /// O(1).
    pub fn shares_built_topology_with(&self, other: &DeformableMeshShape) -> bool {
        self.incidence.get().is_some() && Arc::ptr_eq(&self.incidence, &other.incidence)
    }

    /// Vertex → leaves and vertex → triangles (built on first use).
    pub(super) fn incidence(&self) -> &MeshIncidence {
        self.incidence
            .get_or_init(|| MeshIncidence::new(&self.tree))
    }

    /// The current epoch (bumped by [`Self::set_governors`]).
    pub(super) fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The shared tree.
    pub fn tree(&self) -> &Arc<BnTree> {
        &self.tree
    }

    /// The current governors.
    pub fn governors(&self) -> &[Affine] {
        &self.governors
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.tree.mesh().triangle_count()
    }

    /// Unit-density mass properties (what [`Shape::mass_properties`] scales by the density).
    pub fn unit_mass_properties(&self) -> MassProperties {
        self.unit_mass
    }

    /// Replaces the unit-density mass properties.
    pub fn set_unit_mass_properties(&mut self, unit_mass: MassProperties) {
        self.unit_mass = unit_mass;
    }

    /// Lazy refits done since the last [`Self::set_governors`] (racing threads may both count
    /// the same refit).
    pub fn refit_stats(&self) -> LazyRefitStats {
        LazyRefitStats {
            node_refits: self.cache.node_refits.load(Ordering::Relaxed),
            vertices_deformed: self.cache.vertices_deformed.load(Ordering::Relaxed),
        }
    }

    /// The deformed position of vertex `v`, computed at most once per epoch.
    ///
    /// # Panics
    /// If `v` is out of range.
    ///
    /// # Performance
    /// O(influences of `v`) the first time in an epoch, O(1) after.
    pub fn vertex(&self, v: u32) -> Vec3 {
        let vu = v as usize;
        let slot = &self.cache.vertex[vu];
        if self.cache.vertex_stamp[vu].load(Ordering::Acquire) == self.epoch
            || self.cache.whole_stamp.load(Ordering::Acquire) == self.epoch
        {
            return load_point(slot);
        }
        let p = match self.morph.as_deref() {
            None => deform_vertex(
                self.tree.rest_positions(),
                self.tree.weights(),
                &self.governors,
                vu,
            ),
            Some(m) => self.morphed_vertex(m, vu),
        };
        store_point(slot, p);
        self.cache.vertex_stamp[vu].store(self.epoch, Ordering::Release);
        self.cache.vertices_deformed.fetch_add(1, Ordering::Relaxed);
        p
    }

    /// Vertex `v` morphed, then deformed by the governors.
    fn morphed_vertex(&self, m: &ShapeMorph, v: usize) -> Vec3 {
        self.morphed_vertex_with(&m.deltas, &self.governors, &self.morph_weights, v)
    }

    /// Vertex `v` morphed by `morph` with `morph_weights`, then deformed by `governors`.
    pub(super) fn morphed_vertex_with(
        &self,
        morph: &MorphDeltas,
        governors: &[Affine],
        morph_weights: &[f32],
        v: usize,
    ) -> Vec3 {
        let p0 = morph.displace_with(morph_weights, v, self.tree.rest_positions()[v]);
        let mut p = Vec3::ZERO;
        for (g, w) in self.tree.weights().iter_row(v) {
            p += w * governors[g as usize].transform_point(p0);
        }
        p
    }

    /// Deforms every slot of leaf `leaf`'s block into the slot cache and returns their box (the
    /// leaf's box: its slots are exactly its triangles' vertices). The caller stamps the node.
    ///
    /// Each slot is computed like [`Self::vertex`] (same rest point, same influences in the same
    /// order; 4-lane vectors in the scalar order of operations), so block triangles equal
    /// [`Self::triangle`] bit for bit.
    fn refit_leaf_block(&self, leaf: usize) -> Aabb {
        let mut lo = Vec3::splat(f32::MAX);
        let mut hi = Vec3::splat(f32::MIN);
        let slots = self.blocks.slots_of(leaf);
        let count = slots.len() as u64;
        for s in slots {
            let p0 = match self.morph.as_deref() {
                None => self.blocks.rest(s),
                Some(m) => m.deltas.displace_with(
                    &self.morph_weights,
                    self.blocks.vertex(s) as usize,
                    self.blocks.rest(s),
                ),
            };
            let p = blend_wide(p0, self.blocks.influences(s), &self.wide_governors);
            store_point(&self.cache.slot[s], p);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        self.cache
            .vertices_deformed
            .fetch_add(count, Ordering::Relaxed);
        self.cache.leaf_demand.fetch_add(count, Ordering::Relaxed);
        Aabb::new(lo, hi)
    }

    /// Counts leaf `i`'s slots in the epoch's leaf demand the first time a query reads its box
    /// in an epoch refit whole (a refit leaf by leaf counts them in [`Self::refit_leaf_block`]).
    #[inline]
    fn note_leaf_read(&self, i: usize) {
        let Some(stamp) = self.cache.leaf_read.get(i) else {
            return;
        };
        let slots = self.blocks.slots_of(i).len() as u64;
        if slots > 0 && stamp.load(Ordering::Relaxed) != self.epoch {
            stamp.store(self.epoch, Ordering::Relaxed);
            self.cache.leaf_demand.fetch_add(slots, Ordering::Relaxed);
        }
    }

    /// Calls `f(triangle index, deformed triangle)` for every triangle of leaf node `leaf`, in
    /// the tree's order, from the leaf's block (refit first if stale), until `f` returns
    /// `false`; returns `false` if it did.
    ///
    /// # Performance
    /// O(triangles of the leaf), plus the leaf's refit the first time in an epoch.
    pub(crate) fn for_each_leaf_triangle(
        &self,
        leaf: u32,
        mut f: impl FnMut(u32, &Triangle) -> bool,
    ) -> bool {
        let _ = self.node_aabb(leaf);
        if self.whole_epoch {
            // Refit whole: the vertex cache holds every vertex of the epoch.
            let triangles = self.tree.mesh().triangles();
            let vertex = |v: u32| load_point(&self.cache.vertex[v as usize]);
            for &t in self.tree.node_triangles(leaf as usize) {
                let [a, b, c] = triangles[t as usize].map(vertex);
                if !f(t, &Triangle::new(a, b, c)) {
                    return false;
                }
            }
            return true;
        }
        let node = self.tree.nodes()[leaf as usize];
        let first = node.first as usize;
        let slot = |s: u32| load_point(&self.cache.slot[s as usize]);
        for (k, &t) in self.tree.node_triangles(leaf as usize).iter().enumerate() {
            let [a, b, c] = self.blocks.corners(first + k).map(slot);
            if !f(t, &Triangle::new(a, b, c)) {
                return false;
            }
        }
        true
    }

    /// Contacts with convex shapes constrain each triangle's contact normal to the normal cone
    /// of its posed neighbourhood, like a parry `TriMesh` with
    /// `TriMeshFlags::FIX_INTERNAL_EDGES`: a body touching an edge or vertex between two
    /// triangles is pushed along the surface's normal there, not sideways along an edge normal
    /// that exists only because of the tessellation. This matters when the surface moves into a
    /// body: a sideways normal at an internal edge lets a swung limb slide past a ball, or push
    /// it back through the limb, instead of carrying it.
    ///
    /// Without it (the default), contacts equal those of a `TriMesh` with only
    /// `TriMeshFlags::DEFORMABLE` on the same posed vertices.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when the tree's mesh is not an oriented manifold (a
    /// neighbour's normal must point to the same side as the triangle's for their bisector to
    /// bound the surface's normals). The cones are two-sided (parry's
    /// `FIX_INTERNAL_EDGES_TWO_SIDED`): a mesh whose normals all point inwards, or an open
    /// surface touched from behind, is handled alike.
    ///
    /// # Performance
    /// O(1) here; O(T) once for the edge adjacency. Each contact triangle then costs its three
    /// neighbours' posed normals (their vertices deformed through the vertex cache).
    pub fn with_fixed_internal_edges(mut self) -> Result<Self> {
        if !self.tree.prunes_by_normals() {
            return Err(DeformError::InvalidParameter {
                name: "fix_internal_edges",
                value: 1.0,
                reason: "the mesh is not an oriented manifold: its triangle normals do not give one-sided normal cones",
            });
        }
        let _ = self.incidence();
        self.fix_internal_edges = true;
        Ok(self)
    }

    /// Whether contacts use triangle pseudo-normals ([`Self::with_fixed_internal_edges`]).
    pub fn fixes_internal_edges(&self) -> bool {
        self.fix_internal_edges
    }

    /// [`Self::with_fixed_internal_edges`] with one-sided cones pointing out of a closed mesh
    /// (parry's `FIX_INTERNAL_EDGES` on a mesh wound outwards): the mesh is contacted as a
    /// solid. A body whose centre a fast limb has carried past the surface, but not through
    /// the limb, is pushed back out on the side it came from; with two-sided cones it is pushed
    /// on through. The outward side comes from the rest mesh's signed volume, so an
    /// inward-wound mesh works too.
    ///
    /// On a bar 0.2 m thick swung into balls of radius 0.1 m, the balls stay in front of it
    /// while the bar moves up to 0.15 m per step where it hits them (two-sided cones: 0.09 m).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] (`solid_contacts`) when the mesh is not a closed
    /// oriented manifold (an edge without a neighbour, or a signed volume of zero); as
    /// [`Self::with_fixed_internal_edges`].
    ///
    /// # Performance
    /// O(T) once (edge adjacency and the rest volume); contacts cost as with
    /// [`Self::with_fixed_internal_edges`].
    pub fn with_solid_contacts(self) -> Result<Self> {
        let mut shape = self.with_fixed_internal_edges()?;
        let open = shape
            .incidence()
            .edge_neighbors
            .iter()
            .position(|n| n.contains(&u32::MAX));
        if let Some(t) = open {
            return Err(DeformError::InvalidParameter {
                name: "solid_contacts",
                value: t as f32,
                reason: "the mesh is not closed: this triangle (value) has an edge without a neighbour",
            });
        }
        let rest = shape.tree.rest_positions();
        let volume: f64 = shape
            .tree
            .mesh()
            .triangles()
            .iter()
            .map(|tri| {
                let [a, b, c] = tri.map(|v| rest[v as usize].as_dvec3());
                a.dot(b.cross(c))
            })
            .sum();
        if volume == 0.0 || !volume.is_finite() {
            return Err(DeformError::InvalidParameter {
                name: "solid_contacts",
                value: volume as f32,
                reason: "the closed mesh encloses no volume",
            });
        }
        shape.solid_orientation = Some(volume.signum() as f32);
        Ok(shape)
    }

    /// Whether contacts treat the mesh as a solid ([`Self::with_solid_contacts`]).
    pub fn has_solid_contacts(&self) -> bool {
        self.solid_orientation.is_some()
    }

    /// Contacts keep every triangle's points, exactly as parry's `TriMesh` reports them. By
    /// default a point that several triangles of one contact pair share on this mesh (a mesh
    /// vertex on the ground lies in every triangle around it: about six copies on a closed
    /// mesh) is kept once among the triangles whose normals agree within Rapier's clustering
    /// angle (5.1°), in the manifold of the smallest triangle index, so the same copy stays
    /// from step to step. Rapier's solver merges such
    /// copies itself (`cluster_manifolds_for_solver`, quadratic in a pair's points), so both
    /// settings give the solver the same contacts; the default hands it a fifth of the points.
    /// Per-triangle points are for code that reads every triangle's own manifold.
    ///
    /// # Performance
    /// O(1). The merge it turns off costs a sort of the pair's points per contact update.
    pub fn with_contact_points_per_triangle(mut self) -> Self {
        self.merge_contact_points = false;
        self
    }

    /// Whether coincident contact points are merged across triangles (the default; see
    /// [`Self::with_contact_points_per_triangle`]).
    pub fn merges_contact_points(&self) -> bool {
        self.merge_contact_points
    }

    /// `Some(s)` for a solid: `s` times a triangle's winding normal points out of the mesh.
    pub(crate) fn solid_orientation(&self) -> Option<f32> {
        self.solid_orientation
    }

    /// The normal cone of triangle `t` (posed as `tri`) for contacts, when
    /// [`Self::with_fixed_internal_edges`] is on: its face normal and, per edge, the bisector
    /// of its normal and its neighbour's across the edge (the face normal on a boundary edge or
    /// where a neighbour is degenerate), mirrored for directions behind the triangle unless the
    /// mesh is contacted as a solid ([`Self::with_solid_contacts`]: one-sided, pointing out).
    /// `None` when the option is off or `tri` is degenerate.
    ///
    /// # Performance
    /// O(1): three neighbour triangles through the vertex cache.
    pub fn contact_normal_cone(&self, t: u32, tri: &Triangle) -> Option<TrianglePseudoNormals> {
        if !self.fix_internal_edges {
            return None;
        }
        let sgn = self.solid_orientation.unwrap_or(1.0);
        let face = sgn * tri.normal()?;
        let neighbors = self.incidence().edge_neighbors.get(t as usize)?;
        let edges = neighbors.map(|u| {
            if u == u32::MAX {
                return face;
            }
            self.triangle(u)
                .normal()
                .and_then(|n| (face + sgn * n).try_normalize())
                .unwrap_or(face)
        });
        Some(TrianglePseudoNormals {
            face,
            edges,
            two_sided: self.solid_orientation.is_none(),
        })
    }

    /// Deformed triangle `t` (a mesh triangle index).
    ///
    /// # Panics
    /// If `t` is out of range.
    ///
    /// # Performance
    /// O(3 influences) the first time its vertices are needed in an epoch.
    pub fn triangle(&self, t: u32) -> Triangle {
        let [a, b, c] = self.tree.mesh().triangles()[t as usize].map(|v| self.vertex(v));
        Triangle::new(a, b, c)
    }

    /// Every deformed vertex (the O(n) reference; fills the vertex cache).
    ///
    /// # Performance
    /// O(total influences).
    pub fn deformed_vertices(&self) -> Vec<Vec3> {
        (0..self.tree.rest_positions().len() as u32)
            .map(|v| self.vertex(v))
            .collect()
    }

    /// The box of node `i` in this epoch: O(m) from its governors if it has patch data, else the
    /// union of its children (leaves: of their deformed triangles).
    ///
    /// # Performance
    /// O(m) or O(subtree) the first time in an epoch, O(1) after.
    pub fn node_aabb(&self, i: u32) -> Aabb {
        let iu = i as usize;
        if self.cache.node_stamp[iu].load(Ordering::Acquire) == self.epoch {
            if self.whole_epoch {
                self.note_leaf_read(iu);
            }
            return self.stored_node_aabb(iu);
        }
        if self.whole_epoch {
            self.note_leaf_read(iu);
            return self.refit_whole(iu);
        }
        let node = self.tree.nodes()[iu];
        let aabb = match (node.children, self.tree.node_patch(iu)) {
            (None, _) => self.refit_leaf_block(iu),
            (Some(_), Some(patch)) => {
                let aabb = BOUNDS_WS.with(|ws| patch.aabb(&self.governors, &mut ws.borrow_mut()));
                match self
                    .morph
                    .as_deref()
                    .and_then(|m| m.node_margins[iu].as_ref())
                {
                    Some(margin) => self.with_margin(aabb, margin, patch.governors()),
                    None => aabb,
                }
            }
            (Some([l, r]), None) => self.node_aabb(l).merged(&self.node_aabb(r)),
        };
        self.store_node_aabb(iu, &aabb);
        self.cache.node_refits.fetch_add(1, Ordering::Relaxed);
        aabb
    }

    /// Node `i`'s box as last stored, whatever its stamp (callers know it is current).
    #[inline]
    fn stored_node_aabb(&self, i: usize) -> Aabb {
        let slot = &self.cache.node_aabb[i];
        let f = |k: usize| f32::from_bits(slot[k].load(Ordering::Relaxed));
        Aabb::new(Vec3::new(f(0), f(1), f(2)), Vec3::new(f(3), f(4), f(5)))
    }

    /// Stores node `i`'s box of the current epoch and stamps it.
    pub(super) fn store_node_aabb(&self, i: usize, aabb: &Aabb) {
        let slot = &self.cache.node_aabb[i];
        for (a, x) in slot
            .iter()
            .zip(aabb.mins.to_array().into_iter().chain(aabb.maxs.to_array()))
        {
            a.store(x.to_bits(), Ordering::Relaxed);
        }
        self.cache.node_stamp[i].store(self.epoch, Ordering::Release);
    }

    /// Whether node `i`'s box was computed in the current epoch (since the last
    /// [`Self::set_governors`] / [`Self::set_pose`]): for a leaf, whether its triangles were
    /// deformed by a query. `false` for an index out of range. Reading it changes nothing.
    ///
    /// # Performance
    /// O(1).
    pub fn node_is_refit(&self, i: u32) -> bool {
        self.cache
            .node_stamp
            .get(i as usize)
            .is_some_and(|s| s.load(Ordering::Acquire) == self.epoch)
    }

    /// Calls `f(triangle index, deformed triangle)` for every triangle whose box intersects
    /// `aabb` (mesh frame), in a deterministic depth-first order, refitting the nodes reached.
    ///
    /// # Performance
    /// O(nodes reached · m) in the first query of an epoch.
    pub fn for_each_triangle_in_aabb(&self, aabb: &Aabb, f: impl FnMut(u32, &Triangle)) {
        self.for_each_triangle_in_aabb_where(aabb, |_| true, f);
    }

    /// [`Self::for_each_triangle_in_aabb`], skipping the subtrees whose node box `keep_node`
    /// rejects (a tighter test than the box: an oriented box, a plane). The triangles of the
    /// leaves kept are still tested against `aabb` only.
    ///
    /// # Performance
    /// As [`Self::for_each_triangle_in_aabb`], plus one `keep_node` call per node whose box meets
    /// `aabb`.
    pub fn for_each_triangle_in_aabb_where(
        &self,
        aabb: &Aabb,
        keep_node: impl Fn(&Aabb) -> bool,
        mut f: impl FnMut(u32, &Triangle),
    ) {
        if self.whole_epoch {
            self.for_each_triangle_in_aabb_whole(aabb, keep_node, f);
            return;
        }
        let (lo, hi) = (Vec3A::from(aabb.mins), Vec3A::from(aabb.maxs));
        // Depth-first with the left child first.
        let mut stack = NodeStack::<u32>::new();
        stack.push(0);
        while let Some(i) = stack.pop() {
            let node_box = self.node_aabb(i);
            if !node_box.intersects(aabb) || !keep_node(&node_box) {
                continue;
            }
            let node = self.tree.nodes()[i as usize];
            match node.children {
                Some([l, r]) => {
                    stack.push(r);
                    stack.push(l);
                }
                None => {
                    self.for_each_leaf_triangle(i, |t, tri| {
                        if triangle_box_meets([tri.a, tri.b, tri.c].map(Vec3A::from), lo, hi) {
                            f(t, tri);
                        }
                        true
                    });
                }
            }
        }
    }

    /// [`Self::for_each_triangle_in_aabb`] in an epoch refit whole: the whole-mesh refit is
    /// made current first (if no query did yet), after which every node box and every vertex
    /// of the epoch is in the caches, so the traversal reads boxes and corners directly, with no
    /// per-node stamp test and no second read of a leaf's box. Same nodes, same order, same
    /// triangles (bit for bit) and the same leaf-demand accounting as the general traversal.
    ///
    /// # Performance
    /// O(nodes reached + triangles of the leaves reached), plus the whole refit
    /// (O(vertices + nodes)) if it is the epoch's first query.
    fn for_each_triangle_in_aabb_whole(
        &self,
        aabb: &Aabb,
        keep_node: impl Fn(&Aabb) -> bool,
        mut f: impl FnMut(u32, &Triangle),
    ) {
        if self.cache.whole_stamp.load(Ordering::Acquire) != self.epoch {
            // Every vertex and node box of the epoch; the whole-mesh stamp is stored last.
            let _ = self.refit_whole(0);
        }
        let nodes = self.tree.nodes();
        let triangles = self.tree.mesh().triangles();
        let track_leaves = !self.cache.leaf_read.is_empty();
        let vertex = |v: u32| Vec3A::from(load_point(&self.cache.vertex[v as usize]));
        let (lo, hi) = (Vec3A::from(aabb.mins), Vec3A::from(aabb.maxs));
        // Depth-first with the left child first.
        let mut stack = NodeStack::<u32>::new();
        stack.push(0);
        while let Some(i) = stack.pop() {
            let iu = i as usize;
            if track_leaves {
                self.note_leaf_read(iu);
            }
            let node_box = self.stored_node_aabb(iu);
            if !node_box.intersects(aabb) || !keep_node(&node_box) {
                continue;
            }
            match nodes[iu].children {
                Some([l, r]) => {
                    stack.push(r);
                    stack.push(l);
                }
                None => {
                    for &t in self.tree.node_triangles(iu) {
                        let corners = triangles[t as usize].map(vertex);
                        if triangle_box_meets(corners, lo, hi) {
                            let [a, b, c] = corners.map(Vec3::from);
                            f(t, &Triangle::new(a, b, c));
                        }
                    }
                }
            }
        }
    }

    /// Branch-and-bound over the tree: `node_cost(box)` is a lower bound of the cost of anything
    /// inside (or `None` to prune); `leaf(t, triangle, best)` returns a cost below `best` to
    /// accept the triangle. Returns the best accepted value.
    pub(crate) fn find_best<T>(
        &self,
        max_cost: Real,
        node_cost: impl Fn(&Aabb, Real) -> Option<Real>,
        mut leaf: impl FnMut(u32, &Triangle, Real) -> Option<(Real, T)>,
    ) -> Option<T> {
        let mut best = max_cost;
        let mut result = None;
        let mut stack = NodeStack::<(u32, Real)>::new();
        if let Some(cost) = node_cost(&self.node_aabb(0), best) {
            stack.push((0u32, cost));
        }
        while let Some((i, lower)) = stack.pop() {
            if lower > best {
                continue;
            }
            let node = self.tree.nodes()[i as usize];
            match node.children {
                Some(children) => {
                    let costs = children.map(|c| (c, node_cost(&self.node_aabb(c), best)));
                    // Visit the cheaper child first (pushed last).
                    let ordered =
                        if costs[0].1.unwrap_or(Real::MAX) <= costs[1].1.unwrap_or(Real::MAX) {
                            [costs[1], costs[0]]
                        } else {
                            costs
                        };
                    for (c, cost) in ordered {
                        if let Some(cost) = cost.filter(|&x| x <= best) {
                            stack.push((c, cost));
                        }
                    }
                }
                None => {
                    self.for_each_leaf_triangle(i, |t, tri| {
                        if let Some((cost, value)) = leaf(t, tri, best)
                            && cost <= best
                        {
                            best = cost;
                            result = Some(value);
                        }
                        true
                    });
                }
            }
        }
        result
    }
}

/// Whether the box of the triangle with corners `corners` meets the box `[lo, hi]`: the outcome
/// of `Triangle::local_aabb().intersects(..)` for finite corners (4-lane minima and maxima are
/// exact, and the comparisons do not see the sign of a zero), in a third of its instructions
/// (parry's box takes NaN-aware scalar minima).
///
/// # Performance
/// O(1): four minima/maxima and two 4-lane comparisons.
#[inline(always)]
pub(crate) fn triangle_box_meets([a, b, c]: [Vec3A; 3], lo: Vec3A, hi: Vec3A) -> bool {
    (a.min(b).min(c).cmple(hi) & a.max(b).max(c).cmpge(lo)).all()
}

/// Unit-density rest mass properties: the closed rest mesh, or its AABB as a solid box.
fn rest_mass_properties(tree: &BnTree) -> MassProperties {
    let mesh = tree.mesh();
    let mp = MassProperties::from_trimesh(1.0, tree.rest_positions(), mesh.triangles());
    if mp.mass().is_finite() && mp.mass() > 0.0 && mp.local_com.is_finite() {
        return mp;
    }
    let aabb = Aabb::from_points(tree.rest_positions().iter().copied());
    let half = (aabb.half_extents()).max(Vec3::splat(1e-6));
    MassProperties::from_cuboid(1.0, half).transform_by(&Pose::from_translation(aabb.center()))
}

/// Half the mean rest edge length (never zero).
fn rest_ccd_thickness(tree: &BnTree) -> f32 {
    let (rest, tris) = (tree.rest_positions(), tree.mesh().triangles());
    let mut sum = 0.0f64;
    for t in tris {
        for e in 0..3 {
            sum += (rest[t[e] as usize] - rest[t[(e + 1) % 3] as usize]).length() as f64;
        }
    }
    let mean = sum / (3 * tris.len()).max(1) as f64;
    ((0.5 * mean) as f32).max(1e-6)
}

impl RayCast for DeformableMeshShape {
    fn cast_local_ray_and_get_normal(
        &self,
        ray: &Ray,
        max_time_of_impact: Real,
        solid: bool,
    ) -> Option<RayIntersection> {
        self.find_best(
            max_time_of_impact,
            |aabb, best| aabb.cast_local_ray(ray, best, true),
            |t, tri, best| {
                tri.cast_local_ray_and_get_normal(ray, best, solid)
                    .map(|hit| (hit.time_of_impact, hit.with_subshape(t)))
            },
        )
    }
}

impl PointQuery for DeformableMeshShape {
    fn project_local_point(&self, point: Vec3, solid: bool) -> PointProjection {
        self.find_best(
            Real::MAX,
            |aabb, _| Some(aabb.distance_to_local_point(point, true)),
            |t, tri, _| {
                let proj = tri.project_local_point(point, solid);
                Some(((proj.point - point).length(), proj.with_subshape(t)))
            },
        )
        .unwrap_or(PointProjection::new(false, point))
    }

    /// The nearest point within `max_dist` only: subtrees whose box is farther are never
    /// refit nor visited (parry's default projects onto the whole mesh first).
    fn project_local_point_with_max_dist(
        &self,
        point: Vec3,
        solid: bool,
        max_dist: Real,
    ) -> Option<PointProjection> {
        self.find_best(
            max_dist,
            |aabb, _| Some(aabb.distance_to_local_point(point, true)),
            |t, tri, _| {
                let proj = tri.project_local_point(point, solid);
                Some(((proj.point - point).length(), proj.with_subshape(t)))
            },
        )
    }

    fn project_local_point_and_get_feature(&self, point: Vec3) -> (PointProjection, FeatureId) {
        self.find_best(
            Real::MAX,
            |aabb, _| Some(aabb.distance_to_local_point(point, true)),
            |t, tri, _| {
                let (proj, feature) = tri.project_local_point_and_get_feature(point);
                Some((
                    (proj.point - point).length(),
                    (proj.with_subshape(t), feature),
                ))
            },
        )
        .unwrap_or((PointProjection::new(false, point), FeatureId::Unknown))
    }
}

impl Shape for DeformableMeshShape {
    fn compute_local_aabb(&self) -> Aabb {
        self.root_aabb
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        self.root_aabb.bounding_sphere()
    }

    fn scale_dyn(&self, _scale: Vec3, _num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        // Scaling would need a new tree (rest data and patch bounds); scale the governors instead.
        None
    }

    custom_shape_methods!();

    fn ccd_angular_thickness(&self) -> Real {
        std::f32::consts::FRAC_PI_4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::{ConvexWeights, deform_vertex};
    use crate::math::Mat3;
    use crate::mesh::TriangleMesh;
    use rapier3d::parry::shape::{ShapeType, TypedShape};

    /// A closed tube along x (length 2, radius 0.5) skinned to bones at x = 0, 1, 2.
    fn tube(nx: usize, nr: usize) -> Arc<BnTree> {
        let (p, t) = super::super::capped_tube(nx, nr, 2.0, 0.5, (0.0, 2.0));
        let rows: Vec<Vec<(u32, f32)>> = p
            .iter()
            .map(|q| {
                if q.x <= 1.0 {
                    vec![(0, 1.0 - q.x), (1, q.x)]
                } else {
                    vec![(1, 2.0 - q.x), (2, q.x - 1.0)]
                }
            })
            .collect();
        let weights = ConvexWeights::from_rows(rows, 3).unwrap();
        let mesh = TriangleMesh::new(p.clone(), t).unwrap();
        // Small leaves give the 384-triangle tube enough nodes for laziness to show, and O(m)
        // data on every internal node makes the refit count measure laziness alone (not the
        // build heuristic that trades O(m) data for bottom-up refits).
        let options = crate::bn_tree::BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: 0.0,
        };
        Arc::new(BnTree::build_with(&mesh, &p, &weights, options).unwrap())
    }

    fn bent(angle: f32) -> Vec<Affine> {
        let pivot = Vec3::new(1.0, 0.0, 0.0);
        let r1 = Mat3::from_rotation_z(angle);
        let r2 = Mat3::from_rotation_z(2.0 * angle) * Mat3::from_diagonal(Vec3::new(1.0, 1.1, 0.9));
        vec![
            Affine::IDENTITY,
            Affine::new(r1, pivot - r1 * pivot),
            Affine::new(r2, pivot - r2 * pivot + Vec3::new(0.0, 0.05, 0.0)),
        ]
    }

    #[test]
    fn clones_of_a_shape_with_built_topology_share_it_through_weight_updates() {
        let tree = tube(16, 12);
        let prototype = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        assert!(
            prototype.incidence.get().is_none(),
            "built on first use only"
        );
        prototype.build_topology();
        let mut a = prototype.clone();
        let mut b = prototype.clone();
        // A weight change copies the tree (copy-on-write) but not the topology tables.
        let even = |_: u32, out: &mut [f32]| out.fill(1.0 / out.len() as f32);
        a.update_vertex_weights(&[3, 40], even).unwrap();
        b.update_vertex_weights(&[7], even).unwrap();
        assert!(!Arc::ptr_eq(a.tree(), &tree) && !Arc::ptr_eq(b.tree(), &tree));
        assert!(Arc::ptr_eq(&a.incidence, &prototype.incidence));
        assert!(Arc::ptr_eq(&b.incidence, &prototype.incidence));
        // The shared tables are those a fresh shape builds.
        let fresh = MeshIncidence::new(&tree);
        let shared = a.incidence();
        assert_eq!(shared.triangles, fresh.triangles);
        assert_eq!(shared.triangle_offsets, fresh.triangle_offsets);
        assert_eq!(shared.triangle_leaf, fresh.triangle_leaf);
        assert_eq!(shared.edge_neighbors, fresh.edge_neighbors);
    }

    #[test]
    fn leaf_block_triangles_equal_vertex_path_triangles_bit_for_bit() {
        let tree = tube(16, 12);
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        let mut seen = 0;
        for angle in [0.3f32, -0.7] {
            shape.set_governors(&bent(angle)).unwrap();
            for (i, node) in tree.nodes().iter().enumerate() {
                if node.children.is_some() {
                    continue;
                }
                shape.for_each_leaf_triangle(i as u32, |t, tri| {
                    let reference = shape.triangle(t);
                    for (a, b) in [
                        (tri.a, reference.a),
                        (tri.b, reference.b),
                        (tri.c, reference.c),
                    ] {
                        assert_eq!(
                            a.to_array().map(f32::to_bits),
                            b.to_array().map(f32::to_bits)
                        );
                    }
                    seen += 1;
                    true
                });
            }
        }
        assert_eq!(seen, 2 * tree.mesh().triangle_count());
    }

    /// The tube's tree without O(m) data at any node: refit whole.
    fn tube_refit_whole(nx: usize, nr: usize) -> Arc<BnTree> {
        let tree = tube(nx, nr);
        let options = crate::bn_tree::BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: f32::MAX,
        };
        let weights = tree.weights().clone();
        Arc::new(BnTree::build_with(tree.mesh(), tree.rest_positions(), &weights, options).unwrap())
    }

    #[test]
    fn whole_refit_equals_independent_vertices_and_tight_boxes() {
        let tree = tube_refit_whole(16, 12);
        assert_eq!(tree.governor_bounded_nodes(), 0);
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        assert!(shape.whole_refit);
        for angle in [0.3f32, -0.7, 1.1] {
            let governors = bent(angle);
            shape.set_governors(&governors).unwrap();
            let expected: Vec<Vec3> = (0..tree.rest_positions().len())
                .map(|v| deform_vertex(tree.rest_positions(), tree.weights(), &governors, v))
                .collect();
            // The first box asked for refits everything, once.
            let leaf = tree.nodes().iter().position(|n| n.is_leaf()).unwrap() as u32;
            let _ = shape.node_aabb(leaf);
            let stats = shape.refit_stats();
            assert_eq!(stats.node_refits as usize, tree.nodes().len());
            assert_eq!(stats.vertices_deformed as usize, expected.len());
            // Leaf triangles and vertices equal the independent per-vertex evaluation bit for bit.
            let bits = |p: Vec3| p.to_array().map(f32::to_bits);
            for (i, node) in tree.nodes().iter().enumerate() {
                let mut lo = Vec3::splat(f32::MAX);
                let mut hi = Vec3::splat(f32::MIN);
                for &t in tree.node_triangles(i) {
                    for v in tree.mesh().triangles()[t as usize] {
                        lo = lo.min(expected[v as usize]);
                        hi = hi.max(expected[v as usize]);
                    }
                }
                // Boxes are the tight boxes of their triangles' vertices.
                let aabb = shape.node_aabb(i as u32);
                assert_eq!(
                    (bits(aabb.mins), bits(aabb.maxs)),
                    (bits(lo), bits(hi)),
                    "node {i}"
                );
                if node.is_leaf() {
                    shape.for_each_leaf_triangle(i as u32, |t, tri| {
                        let [a, b, c] = tree.mesh().triangles()[t as usize];
                        assert_eq!(bits(tri.a), bits(expected[a as usize]));
                        assert_eq!(bits(tri.b), bits(expected[b as usize]));
                        assert_eq!(bits(tri.c), bits(expected[c as usize]));
                        true
                    });
                }
            }
            for (v, p) in expected.iter().enumerate() {
                assert_eq!(bits(shape.vertex(v as u32)), bits(*p), "vertex {v}");
            }
            assert_eq!(shape.refit_stats(), stats, "nothing refit twice");
        }
    }

    /// Triangles `for_each_triangle_in_aabb` reports for `aabb`, as (index, corner bits), in its
    /// order.
    fn reported(shape: &DeformableMeshShape, aabb: &Aabb) -> Vec<(u32, [[u32; 3]; 3])> {
        let bits = |p: Vec3| p.to_array().map(f32::to_bits);
        let mut out = Vec::new();
        shape.for_each_triangle_in_aabb(aabb, |t, tri| {
            out.push((t, [bits(tri.a), bits(tri.b), bits(tri.c)]));
        });
        out
    }

    #[test]
    fn dense_epochs_refit_whole_and_report_the_lazy_routes_triangles() {
        // O(m) data on every internal node: the tree is refit leaf by leaf unless an epoch's
        // leaf demand makes the next one refit whole.
        let tree = tube(16, 12);
        assert!(!DeformableMeshShape::tree_is_refit_whole(&tree));
        let vertices = tree.rest_positions().len();
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        // Epoch 1, lazy: every leaf read (a box around the whole tube).
        shape.set_governors(&bent(0.2)).unwrap();
        assert!(!shape.whole_epoch);
        let everything = Aabb::new(Vec3::splat(-5.0), Vec3::splat(5.0));
        assert_eq!(
            reported(&shape, &everything).len(),
            tree.mesh().triangle_count()
        );
        for round in 0..6 {
            let governors = bent(1.2 * next() - 0.6);
            shape.set_governors(&governors).unwrap();
            // Every round before read every leaf: this epoch is refit whole.
            assert!(shape.whole_epoch, "round {round}");
            let boxes: Vec<Aabb> = (0..24)
                .map(|_| {
                    let c = Vec3::new(2.4 * next() - 0.2, 1.4 * next() - 0.7, next() - 0.5);
                    Aabb::from_half_extents(c, Vec3::splat(0.02 + 0.3 * next()))
                })
                .collect();
            // The reference: a fresh shape in the same pose, refit leaf by leaf.
            let lazy = DeformableMeshShape::new(tree.clone(), &governors).unwrap();
            assert!(!lazy.whole_epoch);
            let brute: Vec<Triangle> = (0..tree.mesh().triangle_count() as u32)
                .map(|t| lazy.triangle(t))
                .collect();
            for (k, aabb) in boxes.iter().enumerate() {
                let got = reported(&shape, aabb);
                assert_eq!(got, reported(&lazy, aabb), "round {round} box {k}");
                let mut expected: Vec<u32> = brute
                    .iter()
                    .enumerate()
                    .filter(|(_, tri)| tri.local_aabb().intersects(aabb))
                    .map(|(t, _)| t as u32)
                    .collect();
                let mut found: Vec<u32> = got.iter().map(|g| g.0).collect();
                expected.sort_unstable();
                found.sort_unstable();
                assert_eq!(found, expected, "round {round} box {k}");
            }
            // One pass over the mesh: every vertex deformed once, every box computed once.
            let stats = shape.refit_stats();
            assert_eq!(stats.vertices_deformed as usize, vertices, "round {round}");
            assert_eq!(
                stats.node_refits as usize,
                tree.nodes().len(),
                "round {round}"
            );
            for i in 0..tree.nodes().len() {
                let aabb = shape.node_aabb(i as u32);
                for &t in tree.node_triangles(i) {
                    let tri = brute[t as usize];
                    for p in [tri.a, tri.b, tri.c] {
                        assert!(aabb.contains_local_point(p), "round {round} node {i}");
                    }
                }
            }
        }
        // A sparse epoch (one small box) brings the next one back to leaf-by-leaf refits.
        shape.set_governors(&bent(0.3)).unwrap();
        let probe = Aabb::from_half_extents(Vec3::new(0.0, 0.5, 0.0), Vec3::splat(0.05));
        let _ = reported(&shape, &probe);
        shape.set_governors(&bent(0.35)).unwrap();
        assert!(!shape.whole_epoch);
        assert!(!reported(&shape, &probe).is_empty());
        let stats = shape.refit_stats();
        assert!(
            (stats.vertices_deformed as usize) < vertices / 2,
            "{stats:?} of {vertices} vertices"
        );
    }

    #[test]
    fn whole_refit_follows_weight_changes_within_an_epoch() {
        let tree = tube_refit_whole(16, 12);
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        let governors = bent(0.6);
        shape.set_governors(&governors).unwrap();
        let _ = shape.node_aabb(0);
        // Move vertices with two influences fully onto their first one.
        let changed: Vec<u32> = (0..tree.rest_positions().len() as u32)
            .filter(|&v| tree.weights().row(v as usize).0.len() == 2)
            .step_by(7)
            .collect();
        assert!(!changed.is_empty());
        shape
            .update_vertex_weights(&changed, |_, row| {
                row[0] = 1.0;
                row[1] = 0.0;
            })
            .unwrap();
        let weights = shape.tree().weights().clone();
        let expected: Vec<Vec3> = (0..tree.rest_positions().len())
            .map(|v| deform_vertex(tree.rest_positions(), &weights, &governors, v))
            .collect();
        for (i, node) in shape.tree().nodes().iter().enumerate() {
            let aabb = shape.node_aabb(i as u32);
            if node.is_leaf() {
                shape.for_each_leaf_triangle(i as u32, |t, tri| {
                    let [a, b, c] = shape.tree().mesh().triangles()[t as usize];
                    for (p, v) in [(tri.a, a), (tri.b, b), (tri.c, c)] {
                        assert_eq!(p, expected[v as usize], "vertex {v}");
                        assert!(aabb.contains_local_point(p), "node {i} vertex {v}");
                    }
                    true
                });
            }
        }
        for (v, p) in expected.iter().enumerate() {
            assert_eq!(shape.vertex(v as u32), *p, "vertex {v}");
        }
    }

    #[test]
    fn root_and_node_boxes_contain_the_deformed_triangles() {
        let tree = tube(16, 12);
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.0)).unwrap();
        for angle in [0.2f32, -0.5, 0.9] {
            shape.set_governors(&bent(angle)).unwrap();
            let verts = shape.deformed_vertices();
            let root = shape.compute_local_aabb();
            for i in 0..tree.nodes().len() {
                let aabb = shape.node_aabb(i as u32);
                for &t in tree.node_triangles(i) {
                    for v in tree.mesh().triangles()[t as usize] {
                        let p = verts[v as usize];
                        assert!(aabb.contains_local_point(p), "node {i} vertex {v}");
                        assert!(root.contains_local_point(p), "root vertex {v}");
                    }
                }
            }
        }
    }

    #[test]
    fn set_governors_is_lazy_and_rejects_bad_input() {
        let tree = tube(16, 12);
        let mut shape = DeformableMeshShape::new(tree.clone(), &bent(0.1)).unwrap();
        shape.set_governors(&bent(0.3)).unwrap();
        assert_eq!(shape.refit_stats(), LazyRefitStats::default());
        // A small query reaches only part of the tree.
        let probe = Aabb::from_half_extents(Vec3::new(0.0, 0.5, 0.0), Vec3::splat(0.05));
        let mut hits = 0;
        shape.for_each_triangle_in_aabb(&probe, |_, _| hits += 1);
        assert!(hits > 0);
        let stats = shape.refit_stats();
        assert!(
            (stats.node_refits as usize) < tree.nodes().len() / 2,
            "{stats:?} of {} nodes",
            tree.nodes().len()
        );
        assert!((stats.vertices_deformed as usize) < tree.rest_positions().len() / 2);
        let before = shape.governors().to_vec();
        assert!(shape.set_governors(&before[..2]).is_err());
        let mut nan = before.clone();
        nan[1].translation.x = f32::NAN;
        assert!(shape.set_governors(&nan).is_err());
        assert_eq!(shape.governors(), &before[..]);
        assert!(DeformableMeshShape::new(tree, &before[..1]).is_err());
    }

    #[test]
    fn concurrent_lazy_refits_equal_sequential_ones() {
        let tree = tube(24, 16);
        let shape = DeformableMeshShape::new(tree.clone(), &bent(0.4)).unwrap();
        let reference = shape.clone();
        let expected: Vec<Aabb> = (0..tree.nodes().len() as u32)
            .map(|i| reference.node_aabb(i))
            .collect();
        let results: Vec<Vec<Aabb>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|k| {
                    let shape = &shape;
                    let n = tree.nodes().len() as u32;
                    s.spawn(move || {
                        // Each thread walks the nodes in a different order.
                        let mut out = vec![Aabb::new_invalid(); n as usize];
                        for j in 0..n {
                            let i = if k % 2 == 0 { j } else { n - 1 - j };
                            out[i as usize] = shape.node_aabb(i);
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in results {
            for (a, b) in r.iter().zip(&expected) {
                assert_eq!((a.mins, a.maxs), (b.mins, b.maxs));
            }
        }
    }

    #[test]
    fn shape_trait_facts() {
        let tree = tube(32, 32);
        let shape = DeformableMeshShape::new(tree, &bent(0.0)).unwrap();
        // Closed 32-gon tube: volume of the prism of the inscribed polygon.
        let n = 32.0f32;
        let exact = 0.5 * n * 0.25 * (std::f32::consts::TAU / n).sin() * 2.0;
        let mp = shape.mass_properties(2.0);
        assert!(
            (mp.mass() - 2.0 * exact).abs() < 1e-3 * exact,
            "{}",
            mp.mass()
        );
        assert!((mp.local_com - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-4);
        assert!(shape.ccd_thickness() > 0.0);
        assert!(shape.scale_dyn(Vec3::splat(2.0), 0).is_none());
        assert_eq!(shape.shape_type(), ShapeType::Custom);
        assert!(matches!(shape.as_typed_shape(), TypedShape::Custom(_)));
        let copy = shape.clone_dyn();
        assert_eq!(
            copy.compute_local_aabb().mins,
            shape.compute_local_aabb().mins
        );
    }
}
