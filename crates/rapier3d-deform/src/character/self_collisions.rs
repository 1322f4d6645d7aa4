//! Self-collisions of deformable mesh colliders, once per step: one reusable BN-Tree `SelfCollisionQuery` per registered `DeformableMeshShape` collider, run on the tree and governors the shape holds, results kept until the next update.

use rapier3d::geometry::{ColliderHandle, ColliderSet};

use crate::bn_tree::{CullingMode, SelfCollisionQuery, SelfCollisionStats};
use crate::error::{DeformError, Result};
use crate::shape::DeformableMeshShape;

/// One registered collider.
#[derive(Clone, Debug)]
struct Entry {
    collider: ColliderHandle,
    query: SelfCollisionQuery,
    pairs: Vec<[u32; 2]>,
    stats: SelfCollisionStats,
}

/// The self-collisions of deformable mesh colliders, updated once per step.
///
/// Rapier never pairs a collider with itself, so a mesh's self-intersections are found here:
/// register each [`DeformableMeshShape`] collider once, call [`Self::update`] after each
/// `step()` (or after posing the meshes), then read [`Self::pairs`]. Each collider keeps its own
/// [`SelfCollisionQuery`] (the BN-Tree's per-frame caches, update front and scratch memory), run
/// on the tree and governors its shape holds, so after warm-up an update allocates nothing.
///
/// ```text
/// pose_deformable_mesh(&mut world.colliders, cat, &bones)?;   // O(m)
/// world.step();
/// self_collisions.update(&world.colliders)?;                   // BN-Tree query per mesh
/// for [t1, t2] in self_collisions.pairs(cat)? { … }
/// ```
///
/// Meshes below [`crate::bn_tree::SWEEP_BELOW_TRIANGLES`] triangles (game-size characters) are checked by
/// [`SelfCollisionQuery::run_sweep`] instead, which finds every pair (in either culling mode)
/// faster than the traversal at that size.
///
/// # Performance
/// [`Self::update`] costs one BN-Tree self-collision query per registered mesh (proportional to
/// the nodes it reaches, see [`SelfCollisionQuery::run`]), or one sweep for a small mesh (O(n +
/// T log T)); memory O(nodes + vertices) per mesh.
#[derive(Clone, Debug)]
pub struct DeformableMeshSelfCollisions {
    mode: CullingMode,
    entries: Vec<Entry>,
}

impl Default for DeformableMeshSelfCollisions {
    /// Conservative culling (the result equals the exhaustive one).
    fn default() -> Self {
        Self::new(CullingMode::Conservative)
    }
}

impl DeformableMeshSelfCollisions {
    /// An empty set; `mode` is the culling mode of every query ([`CullingMode::Conservative`]
    /// finds every pair; [`CullingMode::Fast`] is the seed paper's, which may miss some).
    pub fn new(mode: CullingMode) -> Self {
        Self {
            mode,
            entries: Vec::new(),
        }
    }

    /// Registers `collider` (its shape must be a [`DeformableMeshShape`]). Registering it again
    /// does nothing.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`], or [`DeformError::InvalidParameter`] when the shape is
    /// not a [`DeformableMeshShape`].
    ///
    /// # Performance
    /// O(nodes + vertices) (the query's state).
    pub fn insert(&mut self, colliders: &ColliderSet, collider: ColliderHandle) -> Result<()> {
        if self.entries.iter().any(|e| e.collider == collider) {
            return Ok(());
        }
        let shape = DeformableMeshShape::of_collider(colliders, collider)?;
        self.entries.push(Entry {
            collider,
            query: SelfCollisionQuery::new(shape.tree()),
            pairs: Vec::new(),
            stats: SelfCollisionStats::default(),
        });
        Ok(())
    }

    /// Unregisters `collider`; returns whether it was registered.
    pub fn remove(&mut self, collider: ColliderHandle) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.collider != collider);
        self.entries.len() != before
    }

    /// Number of registered colliders.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No collider registered?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Runs the self-collision query of every registered mesh in its current pose (the
    /// governors and weights its shape holds).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when a registered collider was removed from `colliders`
    /// (unregister it with [`Self::remove`]); [`DeformError::InvalidParameter`] when its shape
    /// was replaced by another kind. Meshes before it in registration order are updated.
    ///
    /// # Performance
    /// One query per mesh; no allocation after warm-up.
    pub fn update(&mut self, colliders: &ColliderSet) -> Result<()> {
        for entry in &mut self.entries {
            let shape = DeformableMeshShape::of_collider(colliders, entry.collider)?;
            entry.stats = entry.query.run_by_mesh_size(
                shape.tree(),
                shape.governors(),
                self.mode,
                &mut entry.pairs,
            )?;
        }
        Ok(())
    }

    /// The colliding triangle pairs of `collider` found by the last [`Self::update`], sorted
    /// `[t1, t2]` with `t1 < t2` (mesh triangle indices).
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when `collider` is not registered.
    pub fn pairs(&self, collider: ColliderHandle) -> Result<&[[u32; 2]]> {
        Ok(&self.entry(collider)?.pairs)
    }

    /// Counters and timings of `collider`'s last query.
    ///
    /// # Errors
    /// [`DeformError::UnknownHandle`] when `collider` is not registered.
    pub fn stats(&self, collider: ColliderHandle) -> Result<SelfCollisionStats> {
        Ok(self.entry(collider)?.stats)
    }

    fn entry(&self, collider: ColliderHandle) -> Result<&Entry> {
        self.entries
            .iter()
            .find(|e| e.collider == collider)
            .ok_or(DeformError::UnknownHandle {
                what: "registered deformable mesh collider",
                index: collider.into_raw_parts().0,
            })
    }
}
