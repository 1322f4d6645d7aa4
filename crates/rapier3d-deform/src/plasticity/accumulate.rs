//! Phase 4: rate-limited accumulation of weight changes and projection back onto the simplex, eager for the vertices colliders read and lazy (replayed on demand, bit-identically) for the rest.

use super::params::{DEGENERATE_ROW_SUM, PlasticityParams};
use crate::error::{DeformError, Result};

/// The plastic state of one body: per-vertex example weights `β_v` (the rows of a
/// row-stochastic `V × E` matrix) and the pending changes `Δ_v` still to be applied.
///
/// Each step ([`PlasticState::advance`]) applies to every vertex
///
/// ```text
/// β ← β + rate · Δ ⊙ s;   Δ ← (1 − rate) · Δ;   β ← max(β, 0) / Σ max(β, 0)
/// ```
///
/// (a row whose clamped sum is below `1e-4` resets to the rest pose `(1, 0, …, 0)`), and drops
/// `Δ` once its largest entry is below the settle threshold.
///
/// Only *eager* vertices (those a collider reads: the sphere proxy's driving vertices) are
/// updated at every step. Every other vertex remembers how many steps it has seen and replays
/// the missing ones when it is read or receives a new change, with the same arithmetic in the
/// same order, so its weights are bit-identical to an eager update; a settled vertex catches up
/// in O(1). A body then pays per step only for the few vertices its collider needs.
///
/// # Performance
/// Memory O(V · E). [`PlasticState::advance`] is O(E) per eager vertex with a pending change;
/// reading a lazy vertex costs O(E) per missed step while its change is pending, O(1) after.
#[derive(Clone, Debug)]
pub struct PlasticState {
    examples: usize,
    rate: f32,
    scale: Vec<f32>,
    settle: f32,
    beta: Vec<f32>,
    delta: Vec<f32>,
    /// Steps applied to each vertex (`== now` for eager vertices after `advance`).
    applied: Vec<u32>,
    now: u32,
    eager: Vec<bool>,
    /// Eager vertices with a pending change.
    active: Vec<u32>,
    in_active: Vec<bool>,
    changed: Vec<u32>,
    /// The rows of `changed` before the last `advance` (`E` each, aligned with `changed`).
    previous: Vec<f32>,
    /// Σ of the magnitudes of the deposited changes, decayed like `Δ`.
    pending: f32,
}

impl PlasticState {
    /// Every vertex at the rest pose (`β = (1, 0, …, 0)`), nothing pending, no eager vertex.
    ///
    /// # Errors
    /// [`DeformError::Empty`] for no vertex or no example; what
    /// [`PlasticityParams::validate`] rejects.
    ///
    /// # Performance
    /// O(V · E).
    pub fn new(
        vertex_count: usize,
        example_count: usize,
        params: &PlasticityParams,
    ) -> Result<Self> {
        params.validate()?;
        if vertex_count == 0 {
            return Err(DeformError::Empty {
                what: "plastic vertices",
            });
        }
        if example_count == 0 {
            return Err(DeformError::Empty { what: "examples" });
        }
        let mut beta = vec![0.0; vertex_count * example_count];
        for row in beta.chunks_exact_mut(example_count) {
            row[0] = 1.0;
        }
        Ok(Self {
            examples: example_count,
            rate: params.rate,
            scale: (0..example_count)
                .map(|e| params.example_multiplier(e))
                .collect(),
            settle: params.settle_threshold,
            beta,
            delta: vec![0.0; vertex_count * example_count],
            applied: vec![0; vertex_count],
            now: 0,
            eager: vec![false; vertex_count],
            active: Vec::new(),
            in_active: vec![false; vertex_count],
            changed: Vec::new(),
            previous: Vec::new(),
            pending: 0.0,
        })
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.applied.len()
    }

    /// Number of examples.
    pub fn example_count(&self) -> usize {
        self.examples
    }

    /// Steps advanced so far.
    pub fn steps(&self) -> u32 {
        self.now
    }

    /// Marks vertices as eager (updated at every step; see the type's documentation).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a bad vertex; the valid ones before it are marked.
    ///
    /// # Performance
    /// O(E · missed steps) per newly eager vertex with a pending change, O(1) otherwise.
    pub fn set_eager(&mut self, vertices: impl IntoIterator<Item = u32>) -> Result<()> {
        for v in vertices {
            self.check(v)?;
            self.catch_up(v);
            self.eager[v as usize] = true;
            self.activate(v);
        }
        Ok(())
    }

    /// Is `v` eager? (`false` out of range.)
    pub fn is_eager(&self, v: u32) -> bool {
        self.eager.get(v as usize).copied().unwrap_or(false)
    }

    /// Adds `change` (one entry per example) to vertex `v`'s pending change. It starts to apply
    /// at the next [`PlasticState::advance`].
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`], [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteWeight`] (nothing changes on error).
    ///
    /// # Performance
    /// O(E) plus the vertex's lazy catch-up.
    pub fn deposit(&mut self, v: u32, change: &[f32]) -> Result<()> {
        self.check(v)?;
        if change.len() != self.examples {
            return Err(DeformError::LengthMismatch {
                what: "example weight change",
                expected: self.examples,
                actual: change.len(),
            });
        }
        if let Some(slot) = change.iter().position(|x| !x.is_finite()) {
            return Err(DeformError::NonFiniteWeight {
                vertex: v as usize,
                slot,
            });
        }
        self.catch_up(v);
        let e = self.examples;
        let row = &mut self.delta[v as usize * e..(v as usize + 1) * e];
        let mut magnitude = 0.0f32;
        for (d, c) in row.iter_mut().zip(change) {
            *d += c;
            magnitude += c.abs();
        }
        self.pending += magnitude;
        if self.eager[v as usize] {
            self.activate(v);
        }
        Ok(())
    }

    /// Advances one step: applies the pending changes of the eager vertices (lazy ones catch up
    /// when read) and returns the eager vertices whose weights changed.
    ///
    /// # Performance
    /// O(E) per eager vertex with a pending change.
    pub fn advance(&mut self) -> &[u32] {
        self.now = self.now.wrapping_add(1);
        self.pending *= 1.0 - self.rate;
        if self.pending < self.settle {
            self.pending = 0.0;
        }
        self.changed.clear();
        self.previous.clear();
        let e = self.examples;
        let mut i = 0;
        while i < self.active.len() {
            let v = self.active[i];
            let start = self.previous.len();
            let vi = v as usize;
            self.previous
                .extend_from_slice(&self.beta[vi * e..(vi + 1) * e]);
            let moved = self.catch_up(v);
            if moved {
                self.changed.push(v);
            } else {
                self.previous.truncate(start);
            }
            if self.is_settled(v) {
                self.in_active[v as usize] = false;
                self.active.swap_remove(i);
            } else {
                i += 1;
            }
        }
        &self.changed
    }

    /// The weights the vertices returned by the last [`PlasticState::advance`] had before it,
    /// `E` per vertex in the same order (what [`PlasticState::revert`] restores).
    pub fn previous_weights(&self) -> &[f32] {
        &self.previous
    }

    /// Undoes a weight change of `v` locally: its weights become `beta` (renormalised) and its
    /// pending change is dropped, so plasticity stops pushing it that way. Used when a change
    /// would push a mesh through itself (see [`crate::crash::SelfIntersectionGuard`]).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`], [`DeformError::LengthMismatch`],
    /// [`DeformError::NonFiniteWeight`], [`DeformError::NegativeWeight`],
    /// [`DeformError::WeightSumOff`]; nothing changes on error.
    ///
    /// # Performance
    /// O(E) plus O(active eager vertices) (a removal from the active list) plus the vertex's
    /// lazy catch-up.
    pub fn revert(&mut self, v: u32, beta: &[f32]) -> Result<()> {
        self.check(v)?;
        if beta.len() != self.examples {
            return Err(DeformError::LengthMismatch {
                what: "example weights of a vertex",
                expected: self.examples,
                actual: beta.len(),
            });
        }
        let sum = crate::governor::check_row(v as usize, beta)?;
        self.catch_up(v);
        let e = self.examples;
        let vi = v as usize;
        for (b, x) in self.beta[vi * e..(vi + 1) * e].iter_mut().zip(beta) {
            *b = x / sum;
        }
        let dropped: f32 = self.delta[vi * e..(vi + 1) * e]
            .iter()
            .map(|d| d.abs())
            .sum();
        self.delta[vi * e..(vi + 1) * e].fill(0.0);
        self.pending = (self.pending - dropped).max(0.0);
        self.defer(v);
        Ok(())
    }

    /// Stops updating eager vertex `v` at every step until it is read or receives a new change
    /// (it then catches up like a lazy vertex, bit-identically). A caller that can bound what
    /// the rest of `v`'s pending change may still do (see
    /// [`PlasticState::pending_bound`]) uses this to stop paying for changes it does not need
    /// yet. No effect on a lazy, settled or out-of-range vertex.
    ///
    /// # Performance
    /// O(active eager vertices) (a removal from the active list).
    pub fn defer(&mut self, v: u32) {
        let vi = v as usize;
        if vi < self.in_active.len() && self.in_active[vi] {
            self.in_active[vi] = false;
            if let Some(i) = self.active.iter().position(|&u| u == v) {
                self.active.swap_remove(i);
            }
        }
    }

    /// An upper bound of how far (in the `L1` norm) the pending change of `v` can still move its
    /// weights, now and in all later steps: `2 Σ_e |Δ_e s_e|` (each step adds `rate · Δ ⊙ s`;
    /// clamping moves no entry further than that, and renormalising moves the row by at most
    /// the same again). `0` for a settled or out-of-range vertex.
    ///
    /// # Performance
    /// O(E).
    pub fn pending_bound(&self, v: u32) -> f32 {
        let e = self.examples;
        self.delta
            .get(v as usize * e..(v as usize + 1) * e)
            .map_or(0.0, |d| {
                2.0 * d
                    .iter()
                    .zip(&self.scale)
                    .map(|(x, s)| (x * s).abs())
                    .sum::<f32>()
            })
    }

    /// The current example weights of `v` (catching it up first if it is lazy).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`].
    ///
    /// # Performance
    /// O(E) per missed step while a change is pending, O(E) otherwise.
    pub fn weights(&mut self, v: u32) -> Result<&[f32]> {
        self.check(v)?;
        self.catch_up(v);
        let e = self.examples;
        Ok(&self.beta[v as usize * e..(v as usize + 1) * e])
    }

    /// The example weights of `v` as last updated, without catching up: current for eager
    /// vertices and after [`PlasticState::catch_up_all`]. `None` out of range.
    pub fn weights_as_stored(&self, v: u32) -> Option<&[f32]> {
        let e = self.examples;
        self.beta.get(v as usize * e..(v as usize + 1) * e)
    }

    /// Brings every vertex up to date; afterwards [`PlasticState::all_weights`] is current.
    ///
    /// # Performance
    /// O(V) plus O(E) per missed step of each vertex with a pending change.
    pub fn catch_up_all(&mut self) {
        for v in 0..self.applied.len() as u32 {
            self.catch_up(v);
        }
    }

    /// All example weights as stored, row-major `V × E` (call [`PlasticState::catch_up_all`]
    /// first for current values).
    pub fn all_weights(&self) -> &[f32] {
        &self.beta
    }

    /// The pending change of `v` as stored (`None` out of range).
    pub fn pending_change(&self, v: u32) -> Option<&[f32]> {
        let e = self.examples;
        self.delta.get(v as usize * e..(v as usize + 1) * e)
    }

    /// The decayed total magnitude of the deposited changes (`Σ |δβ|`, decayed by `1 − rate`
    /// per step): the measure of "still deforming" that lowers restitution.
    pub fn pending_magnitude(&self) -> f32 {
        self.pending
    }

    /// Is no eager vertex still being updated at every step (all settled or deferred)?
    pub fn eager_settled(&self) -> bool {
        self.active.is_empty()
    }

    /// The restitution coefficient while deforming (Jones et al.):
    /// `min(e₀, e_prev + dt · recovery, exp(−exponent · pending / V) · e₀)`.
    ///
    /// # Performance
    /// O(1).
    pub fn restitution(&self, e0: f32, previous: f32, dt: f32, params: &PlasticityParams) -> f32 {
        let per_vertex = self.pending / self.vertex_count() as f32;
        let damped = (-params.restitution_exponent * per_vertex).exp() * e0;
        e0.min(previous + dt * params.restitution_recovery)
            .min(damped)
            .max(0.0)
    }

    fn check(&self, v: u32) -> Result<()> {
        if (v as usize) < self.applied.len() {
            Ok(())
        } else {
            Err(DeformError::IndexOutOfRange {
                what: "plastic vertex",
                index: v as usize,
                len: self.applied.len(),
            })
        }
    }

    fn activate(&mut self, v: u32) {
        if !self.in_active[v as usize] && !self.is_settled(v) {
            self.in_active[v as usize] = true;
            self.active.push(v);
        }
    }

    fn is_settled(&self, v: u32) -> bool {
        let e = self.examples;
        self.delta[v as usize * e..(v as usize + 1) * e]
            .iter()
            .all(|&d| d == 0.0)
    }

    /// Replays the steps `v` missed; returns whether its weights changed.
    fn catch_up(&mut self, v: u32) -> bool {
        let vi = v as usize;
        let e = self.examples;
        let mut moved = false;
        while self.applied[vi] != self.now {
            if self.is_settled(v) {
                self.applied[vi] = self.now;
                break;
            }
            let beta = &mut self.beta[vi * e..(vi + 1) * e];
            let delta = &mut self.delta[vi * e..(vi + 1) * e];
            step_row(beta, delta, &self.scale, self.rate, self.settle);
            self.applied[vi] = self.applied[vi].wrapping_add(1);
            moved = true;
        }
        moved
    }
}

/// One step of one row: apply, decay, project onto the simplex, settle.
#[inline]
fn step_row(beta: &mut [f32], delta: &mut [f32], scale: &[f32], rate: f32, settle: f32) {
    let mut largest = 0.0f32;
    for ((b, d), s) in beta.iter_mut().zip(delta.iter_mut()).zip(scale) {
        *b += rate * *d * s;
        *d *= 1.0 - rate;
        largest = largest.max(d.abs());
    }
    project_row(beta);
    if largest < settle {
        delta.fill(0.0);
    }
}

/// Projects a row back onto the simplex the authors' way: clamp negative entries to 0 and divide
/// by the sum; a row whose sum is below `1e-4` (or not finite) resets to the rest pose
/// `(1, 0, …, 0)`.
///
/// # Performance
/// O(E).
pub fn project_row(beta: &mut [f32]) {
    let mut sum = 0.0f32;
    for b in beta.iter_mut() {
        *b = b.max(0.0);
        sum += *b;
    }
    if !(sum.is_finite() && sum >= DEGENERATE_ROW_SUM) {
        beta.fill(0.0);
        if let Some(first) = beta.first_mut() {
            *first = 1.0;
        }
        return;
    }
    let inv = 1.0 / sum;
    for b in beta.iter_mut() {
        *b *= inv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(rate: f32) -> PlasticityParams {
        PlasticityParams {
            rate,
            ..PlasticityParams::jones_car()
        }
    }

    #[test]
    fn projection_clamps_renormalises_and_resets() {
        let mut row = [0.5, -0.2, 1.5];
        project_row(&mut row);
        assert_eq!(row, [0.25, 0.0, 0.75]);
        let mut row = [-1.0, 5e-5, 0.0];
        project_row(&mut row);
        assert_eq!(row, [1.0, 0.0, 0.0]);
        let mut row = [f32::INFINITY, 1.0];
        project_row(&mut row);
        assert_eq!(row, [1.0, 0.0]);
        // NaN entries count as 0 (`deposit` rejects non-finite changes, so none arise).
        let mut row = [f32::NAN, 1.0];
        project_row(&mut row);
        assert_eq!(row, [0.0, 1.0]);
    }

    #[test]
    fn rate_spreads_the_change_geometrically() {
        // No clamping involved: the applied fraction after k steps is 1 − (1 − rate)^k.
        let mut s = PlasticState::new(1, 2, &params(0.25)).unwrap();
        s.set_eager([0]).unwrap();
        // Start from (0.5, 0.5) so a ±0.2 change stays inside the simplex.
        s.deposit(0, &[-0.5, 0.5]).unwrap();
        for _ in 0..200 {
            s.advance();
        }
        let mid = s.weights(0).unwrap().to_vec();
        assert!(
            (mid[0] - 0.5).abs() < 1e-4 && (mid[1] - 0.5).abs() < 1e-4,
            "{mid:?}"
        );
        s.deposit(0, &[0.2, -0.2]).unwrap();
        for k in 1..=6 {
            s.advance();
            let applied = 0.2 * (1.0 - 0.75f64.powi(k));
            let w = s.weights(0).unwrap();
            assert!(
                (w[0] as f64 - (mid[0] as f64 + applied)).abs() < 2e-6,
                "step {k}: {w:?}"
            );
        }
        let w = s.weights(0).unwrap();
        assert!(w.iter().all(|&x| x >= 0.0) && (w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rate_one_applies_at_once_and_settles() {
        let mut s = PlasticState::new(2, 3, &params(1.0)).unwrap();
        s.set_eager([1]).unwrap();
        s.deposit(1, &[-0.3, 0.1, 0.2]).unwrap();
        assert_eq!(s.advance(), &[1]);
        let w = s.weights(1).unwrap().to_vec();
        assert!((w[0] - 0.7).abs() < 1e-6 && (w[2] - 0.2).abs() < 1e-6);
        assert!(s.eager_settled());
        assert!(s.advance().is_empty());
    }

    /// Lazy vertices, read at arbitrary times, equal an all-eager run bit for bit.
    #[test]
    fn lazy_replay_is_bit_identical_to_eager_updates() {
        let p = params(0.07);
        let (n, e) = (40usize, 4usize);
        let mut eager = PlasticState::new(n, e, &p).unwrap();
        eager.set_eager(0..n as u32).unwrap();
        let mut lazy = PlasticState::new(n, e, &p).unwrap();
        lazy.set_eager([3, 17]).unwrap();
        let mut seed = 99u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as f32 / (1u64 << 31) as f32
        };
        for step in 0..300 {
            if step % 13 == 0 && step < 200 {
                for _ in 0..5 {
                    let v = (rnd() * n as f32) as u32 % n as u32;
                    let change: Vec<f32> = (0..e).map(|_| 2.0 * rnd() - 1.0).collect();
                    eager.deposit(v, &change).unwrap();
                    lazy.deposit(v, &change).unwrap();
                }
            }
            eager.advance();
            lazy.advance();
            if step % 29 == 0 {
                let v = (rnd() * n as f32) as u32 % n as u32;
                assert_eq!(eager.weights(v).unwrap(), lazy.weights(v).unwrap());
            }
            for v in [3u32, 17] {
                assert_eq!(eager.weights_as_stored(v), lazy.weights_as_stored(v));
            }
        }
        lazy.catch_up_all();
        assert_eq!(eager.all_weights(), lazy.all_weights());
        for row in lazy.all_weights().chunks(e) {
            assert!(row.iter().all(|&x| x >= 0.0));
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    /// The bound holds over the whole remaining decay, clamping included.
    #[test]
    fn pending_bound_covers_every_later_step() {
        let p = params(0.3);
        let mut s = PlasticState::new(3, 4, &p).unwrap();
        s.set_eager([0, 1, 2]).unwrap();
        s.deposit(0, &[-0.8, 0.5, 0.6, -0.1]).unwrap();
        s.deposit(1, &[3.0, -2.0, 0.5, 0.2]).unwrap();
        s.deposit(2, &[0.01, -0.02, 0.0, 0.0]).unwrap();
        for _ in 0..3 {
            s.advance();
        }
        for v in 0..3 {
            let bound = s.pending_bound(v);
            let start = s.weights(v).unwrap().to_vec();
            let mut largest = 0.0f32;
            for _ in 0..200 {
                s.advance();
                let now = s.weights(v).unwrap();
                largest = largest.max(now.iter().zip(&start).map(|(a, b)| (a - b).abs()).sum());
            }
            assert!(
                largest <= bound + 1e-6,
                "vertex {v}: moved {largest}, bound {bound}"
            );
        }
    }

    #[test]
    fn deferred_vertices_catch_up_identically() {
        let p = params(0.2);
        let mut a = PlasticState::new(2, 3, &p).unwrap();
        a.set_eager([0, 1]).unwrap();
        let mut b = a.clone();
        for s in [&mut a, &mut b] {
            s.deposit(1, &[-0.4, 0.3, 0.1]).unwrap();
            s.advance();
        }
        b.defer(1);
        assert!(b.eager_settled() && !a.eager_settled());
        for _ in 0..7 {
            assert!(a.advance().contains(&1));
            assert!(b.advance().is_empty());
        }
        assert_eq!(a.weights(1).unwrap(), b.weights(1).unwrap());
        // A new change re-activates a deferred vertex.
        b.deposit(1, &[0.1, -0.1, 0.0]).unwrap();
        assert!(!b.eager_settled());
    }

    #[test]
    fn restitution_drops_while_deforming_and_recovers() {
        let p = PlasticityParams {
            restitution_exponent: 1.0,
            restitution_recovery: 300.0,
            ..params(0.5)
        };
        let mut s = PlasticState::new(10, 2, &p).unwrap();
        assert_eq!(s.restitution(0.5, 0.5, 0.01, &p), 0.5);
        s.deposit(0, &[-20.0, 20.0]).unwrap();
        // Closed form: pending 40 over 10 vertices.
        let e1 = s.restitution(0.5, 0.5, 0.01, &p);
        assert!((e1 - 0.5 * (-4.0f32).exp()).abs() < 1e-6);
        for _ in 0..40 {
            s.advance();
        }
        // Recovery is limited by dt · recovery per step.
        let e2 = s.restitution(0.5, e1, 0.001, &p);
        assert!((e2 - (e1 + 0.3)).abs() < 1e-6);
    }

    #[test]
    fn bad_input_is_typed() {
        let p = params(0.5);
        assert!(matches!(
            PlasticState::new(0, 2, &p),
            Err(DeformError::Empty { .. })
        ));
        assert!(matches!(
            PlasticState::new(2, 0, &p),
            Err(DeformError::Empty { .. })
        ));
        let mut s = PlasticState::new(2, 2, &p).unwrap();
        assert!(matches!(
            s.deposit(2, &[0.0, 0.0]),
            Err(DeformError::IndexOutOfRange { .. })
        ));
        assert!(matches!(
            s.deposit(0, &[0.0]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            s.deposit(0, &[0.0, f32::NAN]),
            Err(DeformError::NonFiniteWeight { vertex: 0, slot: 1 })
        ));
        assert!(s.set_eager([5]).is_err());
        assert!(PlasticState::new(2, 2, &params(0.0)).is_err());
    }
}
