//! Plasticity must not push a mesh through itself: after the cage weights change, the mesh collider is updated and every new self-intersecting triangle pair undoes the weight changes of the cage vertices that moved it (the rule is on [`SelfIntersectionGuard`]).

use super::example_mesh::ExampleMesh;
use crate::error::Result;
use crate::math::Vec3;
use crate::plasticity::PlasticState;
use crate::shape::{DeformableMeshShape, SelfCheckScratch};

/// What one [`SelfIntersectionGuard::apply`] did.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GuardOutcome {
    /// Mesh vertices whose weights were rewritten (first round).
    pub mesh_vertices_updated: usize,
    /// New self-intersecting triangle pairs the change would have created (first round).
    pub new_pairs: usize,
    /// Cage vertices whose weight change was undone.
    pub cage_vertices_reverted: usize,
    /// Check rounds that found new pairs.
    pub rounds: usize,
}

/// Keeps plasticity from pushing a mesh collider through itself.
///
/// **The rule.** After a step of plasticity changes the example weights of a set `C` of cage
/// vertices (their weights before the step are kept), the mesh vertices that read them are
/// re-weighted and the guard looks for *new* self-intersections: triangle pairs that intersect
/// now but did not before the step ([`DeformableMeshShape::new_self_collisions`], exact and
/// topology-aware). Pairs that already intersected are left alone (the guard never makes
/// things worse; it does not repair). For every new pair, each cage vertex of `C` read by a
/// moved vertex of either triangle has its weight change **undone**: its weights go back to
/// their value before the step and its pending change is dropped ([`PlasticState::revert`]),
/// so plasticity stops pushing that region that way. The mesh vertices reading the undone cage
/// vertices are re-weighted and the check repeats until no new pair remains. It terminates:
/// each round undoes at least one more vertex of the finite set `C`, and with all of `C`
/// undone the mesh is back to its positions before the step, bit for bit.
///
/// The change is undone rather than scaled down: a fraction of a change that intersects may
/// still intersect, and finding the largest safe fraction would cost a search per step; the
/// rate-limited accumulation keeps each step's change small, so undoing one step stops the
/// surface within one step's motion of the other side.
///
/// # Performance
/// See [`SelfIntersectionGuard::apply`]; no allocation after warm-up.
#[derive(Clone, Debug, Default)]
pub struct SelfIntersectionGuard {
    /// Changed cage vertices sorted, with their index in the caller's list, and whether undone.
    changed: Vec<(u32, u32, bool)>,
    affected: Vec<u32>,
    moved: Vec<(u32, Vec3)>,
    pairs: Vec<[u32; 2]>,
    offending: Vec<u32>,
    reweight: Vec<u32>,
    scratch: SelfCheckScratch,
}

impl SelfIntersectionGuard {
    /// An empty guard.
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings `shape` (the collider of `mesh`) up to date with the cage vertices `changed` by the
    /// last [`PlasticState::advance`] (`previous`: their rows before it, `E` each, as given by
    /// [`PlasticState::previous_weights`]), and, when `guard` is set, undoes the changes that
    /// create new self-intersections (see the module documentation for the rule). With `guard`
    /// off it only updates the shape.
    ///
    /// # Errors
    /// What [`DeformableMeshShape::update_vertex_weights`] and [`PlasticState::revert`] reject
    /// (not expected for rows the mesh writes itself).
    ///
    /// # Performance
    /// O(k · E · influences) for the k mesh vertices reading changed cage vertices, plus the
    /// local check: O(t · (log T + c)) per round for the t triangles around them with c
    /// candidates each.
    pub fn apply(
        &mut self,
        shape: &mut DeformableMeshShape,
        mesh: &ExampleMesh,
        state: &mut PlasticState,
        changed: &[u32],
        previous: &[f32],
        guard: bool,
    ) -> Result<GuardOutcome> {
        let mut outcome = GuardOutcome::default();
        if changed.is_empty() {
            return Ok(outcome);
        }
        let e = state.example_count();
        self.changed.clear();
        self.changed.extend(
            changed
                .iter()
                .enumerate()
                .map(|(i, &c)| (c, i as u32, false)),
        );
        self.changed.sort_unstable_by_key(|x| x.0);
        self.affected.clear();
        for &c in changed {
            self.affected.extend_from_slice(mesh.readers_of(c));
        }
        self.affected.sort_unstable();
        self.affected.dedup();
        outcome.mesh_vertices_updated = self.affected.len();
        self.moved.clear();
        if guard {
            self.moved
                .extend(self.affected.iter().map(|&v| (v, shape.vertex(v))));
        }
        shape.update_vertex_weights(&self.affected, |v, row| mesh.write_row(v, state, row))?;
        if !guard {
            return Ok(outcome);
        }
        loop {
            shape.new_self_collisions(&self.moved, &mut self.scratch, &mut self.pairs);
            if self.pairs.is_empty() {
                break;
            }
            if outcome.rounds == 0 {
                outcome.new_pairs = self.pairs.len();
            }
            outcome.rounds += 1;
            // The changed, not yet undone cage vertices read by a moved vertex of a new pair.
            self.offending.clear();
            let triangles = shape.tree().mesh().triangles();
            for pair in &self.pairs {
                for &t in pair {
                    for v in triangles[t as usize] {
                        if self.affected.binary_search(&v).is_err() {
                            continue;
                        }
                        if let Some((cage, _)) = mesh.bound().binding(v as usize) {
                            for c in cage {
                                if let Ok(k) = self.changed.binary_search_by_key(&c, |x| x.0)
                                    && !self.changed[k].2
                                {
                                    self.offending.push(c);
                                }
                            }
                        }
                    }
                }
            }
            self.offending.sort_unstable();
            self.offending.dedup();
            if self.offending.is_empty() {
                // Cannot happen (a new pair has a moved vertex, moved by a changed cage vertex
                // not yet undone); undo everything left as a safe fallback.
                self.offending
                    .extend(self.changed.iter().filter(|x| !x.2).map(|x| x.0));
                if self.offending.is_empty() {
                    break;
                }
            }
            for &c in &self.offending {
                if let Ok(k) = self.changed.binary_search_by_key(&c, |x| x.0) {
                    let i = self.changed[k].1 as usize;
                    state.revert(c, &previous[i * e..(i + 1) * e])?;
                    self.changed[k].2 = true;
                    outcome.cage_vertices_reverted += 1;
                }
            }
            // Re-weight the mesh vertices reading the undone cage vertices.
            self.reweight.clear();
            for &c in &self.offending {
                self.reweight.extend_from_slice(mesh.readers_of(c));
            }
            self.reweight.sort_unstable();
            self.reweight.dedup();
            shape.update_vertex_weights(&self.reweight, |v, row| mesh.write_row(v, state, row))?;
        }
        Ok(outcome)
    }
}
