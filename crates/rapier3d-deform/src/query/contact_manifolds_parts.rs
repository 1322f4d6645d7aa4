//! Contact manifolds of every part-pair family: one manifold per pair of overlapping parts, keyed `(part of shape 1, part of shape 2)`, re-keyed from the incoming manifold list so that warm starts survive workspace resets, points in the colliders' frames.

use rapier3d::math::{Real, Vector};
use rapier3d::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};

use super::contact_manifolds_deformable_convex::DeformableContactWorkspace;
use super::part_pairs::PartPairs;
use super::part_tree::{Part, part_pos12};

/// Fills `manifolds` with one manifold per candidate part pair of `pairs` (bounds within
/// `prediction`), in traversal order. A manifold with the same `(subshape1, subshape2)` in the
/// incoming list is reused in place ([`ManifoldSlots`]); parry's convex–convex routines then
/// carry its points' solver data over (by feature ids, or in place for a ball). Points and
/// normals are written in the colliders' frames (no sub-shape poses), so that Rapier's contact
/// clustering and the crate's impulse read-back see consistent positions.
pub(super) fn contact_manifolds<ManifoldData, ContactData>(
    pairs: &dyn PartPairs,
    prediction: Real,
    manifolds: &mut Vec<ContactManifold<ManifoldData, ContactData>>,
    workspace: &mut Option<ContactManifoldsWorkspace>,
) where
    ManifoldData: Default + Clone + Send + Sync,
    ContactData: Default + Copy + Send + Sync,
{
    let pos12 = *pairs.pos12();
    let mut slots = ManifoldSlots::new(manifolds);
    pairs.for_each_pair(prediction, Vector::ZERO, &mut |p1, p2| {
        let manifold = slots.next(p1.id, p2.id);
        manifold.mark_shapes_deformed();
        // Back into part 1's frame: parry starts its GJK search from the previous normal.
        if let Some(pose) = p1.pose {
            manifold.local_n1 = pose.rotation.inverse() * manifold.local_n1;
        }
        let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
            &part_pos12(&pos12, p1.pose, p2.pose),
            p1.shape,
            p2.shape,
            p1.normals,
            p2.normals,
            prediction,
            manifold,
        );
        to_collider_frames(manifold, p1, p2);
        true
    });
    slots.finish();
    ensure_workspace(workspace);
}

/// Installs the (empty) [`DeformableContactWorkspace`] unless it is there.
pub(super) fn ensure_workspace(workspace: &mut Option<ContactManifoldsWorkspace>) {
    if workspace
        .as_ref()
        .and_then(|w| w.0.downcast_ref::<DeformableContactWorkspace>())
        .is_none()
    {
        *workspace = Some(ContactManifoldsWorkspace(Box::new(
            DeformableContactWorkspace,
        )));
    }
}

/// Re-keys a pair's incoming manifold list in place while a traversal enumerates this step's
/// part pairs: the `k`-th pair's manifold is swapped into position `k` from wherever it sits
/// at or after `k`, or a fresh one is pushed and swapped in; [`ManifoldSlots::finish`] drops the
/// manifolds no pair claimed.
///
/// The incoming list is the previous step's traversal order, so the manifold is almost always
/// at `k` already, or a few slots later when pairs ended (the stale manifolds bubble along).
/// When it is not in that window (pairs appeared, or the order changed), a sorted index of the
/// remaining keys and their positions is built once for the call (in a per-thread buffer) and
/// kept up to date through the swaps, so a pair costs O(log n) instead of a scan.
///
/// This replaces a hash map keyed by sub-shape pairs: no hashing, no manifold moved out of the
/// list and back, no allocation once the list, its manifolds' point lists and the index buffer
/// have grown.
///
/// # Performance
/// O(1) per pair found within a few slots of where it was; O(n log n) once per call in which
/// some pair is not (the index), then O(log n) per pair.
pub(super) struct ManifoldSlots<'m, ManifoldData, ContactData> {
    manifolds: &'m mut Vec<ContactManifold<ManifoldData, ContactData>>,
    /// Manifolds before this position are claimed by this call's pairs.
    next: usize,
    /// The spares (see [`Self::finish`]) are the manifolds from this position on; between
    /// `next` and here lie the incoming manifolds not claimed yet.
    first_spare: usize,
    /// `(key, position)` of the manifolds at or after the position where it was built, sorted by
    /// key; positions follow the swaps. Empty until a pair is not found near its slot.
    index: Vec<(u64, u32)>,
    indexed: bool,
    /// Position of the fresh manifold handed out by [`Self::next_tentative`] and not settled.
    fresh: Option<usize>,
}

/// How far past its slot a manifold is looked for before the index is built.
const WINDOW: usize = 4;

thread_local! {
    /// The index buffer of [`ManifoldSlots`], reused across calls on a thread.
    static INDEX: std::cell::Cell<Vec<(u64, u32)>> = const { std::cell::Cell::new(Vec::new()) };
}

fn key_of<M, C>(m: &ContactManifold<M, C>) -> u64 {
    (u64::from(m.subshape1) << 32) | u64::from(m.subshape2)
}

impl<'m, ManifoldData: Default, ContactData: Default + Copy>
    ManifoldSlots<'m, ManifoldData, ContactData>
{
    /// Slots over the incoming list.
    pub fn new(manifolds: &'m mut Vec<ContactManifold<ManifoldData, ContactData>>) -> Self {
        let spares = manifolds.iter().rev().take_while(|m| is_spare(m)).count();
        Self {
            first_spare: manifolds.len() - spares,
            manifolds,
            next: 0,
            index: Vec::new(),
            indexed: false,
            fresh: None,
        }
    }

    /// The manifold of the next pair, keyed `(subshape1, subshape2)`: the incoming one of that
    /// key, or a fresh one. Each key is asked for at most once per call.
    pub fn next(
        &mut self,
        subshape1: u32,
        subshape2: u32,
    ) -> &mut ContactManifold<ManifoldData, ContactData> {
        let k = self.next;
        self.next += 1;
        let found = self.find(k, subshape1, subshape2);
        if let Some(j) = found {
            self.swap_tracked(k, j);
        } else if self.first_spare < self.manifolds.len() {
            // The first spare becomes a fresh manifold (its point list keeps its capacity)
            // and trades places with the unclaimed manifold at `k`.
            let j = self.first_spare;
            self.first_spare += 1;
            let spare = &mut self.manifolds[j];
            let points = std::mem::take(&mut spare.points);
            *spare = ContactManifold::with_data(subshape1, subshape2, ManifoldData::default());
            spare.points = points;
            self.swap_tracked(k, j);
        } else {
            self.manifolds.push(ContactManifold::with_data(
                subshape1,
                subshape2,
                ManifoldData::default(),
            ));
            let last = self.manifolds.len() - 1;
            self.first_spare = self.manifolds.len();
            self.swap_tracked(k, last);
        }
        &mut self.manifolds[k]
    }

    /// The position (at or after `k`) of the incoming manifold of key `want`, through the index
    /// (built on first use from the manifolds at or after `k`).
    fn lookup(&mut self, k: usize, want: u64) -> Option<usize> {
        if !self.indexed {
            self.indexed = true;
            self.index = INDEX.with(std::cell::Cell::take);
            self.index.clear();
            self.index.extend(
                self.manifolds[k..self.first_spare]
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (key_of(m), (k + i) as u32)),
            );
            self.index.sort_unstable();
        }
        let i = self.index.binary_search_by_key(&want, |e| e.0).ok()?;
        let pos = self.index[i].1 as usize;
        (pos >= k).then_some(pos)
    }

    /// Swaps two slots, keeping the index's positions right.
    fn swap_tracked(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.manifolds.swap(a, b);
        if self.indexed {
            for pos in [a, b] {
                let key = key_of(&self.manifolds[pos]);
                if let Ok(i) = self.index.binary_search_by_key(&key, |e| e.0) {
                    self.index[i].1 = pos as u32;
                }
            }
        }
    }

    /// The position (at or after `k`, before the spares) of the incoming manifold of key
    /// `(subshape1, subshape2)`: a few slots from `k`, else through the index.
    fn find(&mut self, k: usize, subshape1: u32, subshape2: u32) -> Option<usize> {
        let want = (u64::from(subshape1) << 32) | u64::from(subshape2);
        let end = self.first_spare;
        let near = self.manifolds[k.min(end)..end.min(k + WINDOW)]
            .iter()
            .position(|m| key_of(m) == want);
        match near {
            Some(j) => Some(k + j),
            None if k < end => self.lookup(k, want),
            None => None,
        }
    }

    /// The manifold of the next pair, like [`Self::next`], but held until [`Self::settle`] says
    /// whether the pair keeps it: the incoming manifold of the key is claimed as by `next`; a
    /// fresh one is set up in place in the first spare (grown by one when there is none) and
    /// only moved to the pair's slot if it is kept. A pair within reach but out of contact, the
    /// common case of a mesh near a large shape, then costs no move of a manifold.
    pub fn next_tentative(
        &mut self,
        subshape1: u32,
        subshape2: u32,
    ) -> &mut ContactManifold<ManifoldData, ContactData> {
        let k = self.next;
        if let Some(j) = self.find(k, subshape1, subshape2) {
            self.next += 1;
            self.swap_tracked(k, j);
            self.fresh = None;
            return &mut self.manifolds[k];
        }
        let j = self.first_spare;
        let fresh = ContactManifold::with_data(subshape1, subshape2, ManifoldData::default());
        if j < self.manifolds.len() {
            let spare = &mut self.manifolds[j];
            let points = std::mem::take(&mut spare.points);
            *spare = fresh;
            spare.points = points;
        } else {
            self.manifolds.push(fresh);
        }
        self.fresh = Some(j);
        &mut self.manifolds[j]
    }

    /// Ends the pair of the last [`Self::next_tentative`]: with `keep`, its manifold takes the
    /// pair's slot (a fresh one is claimed as by [`Self::next`]); without, an incoming manifold
    /// joins the spares and the next pair takes its slot, and a fresh one goes back to being
    /// the first spare, unmoved.
    pub fn settle(&mut self, keep: bool) {
        match (self.fresh.take(), keep) {
            (None, true) => {}
            (None, false) => {
                self.next -= 1;
                self.first_spare -= 1;
                make_spare(&mut self.manifolds[self.next]);
                self.swap_tracked(self.next, self.first_spare);
            }
            (Some(j), true) => {
                let k = self.next;
                self.next += 1;
                self.first_spare += 1;
                self.swap_tracked(k, j);
            }
            (Some(j), false) => make_spare(&mut self.manifolds[j]),
        }
    }

    /// Turns the incoming manifolds no pair claimed into spares: no points (Rapier makes no
    /// solver contact from them) and a key no pair has, at the end of the list, where later
    /// calls reuse them before growing the list. A pair's list therefore never holds more
    /// manifolds than it needed at once, and a pair whose contacts move from part to part
    /// allocates nothing once its list and their point lists have grown.
    pub fn finish(self) {
        for spare in &mut self.manifolds[self.next..] {
            make_spare(spare);
        }
    }
}

/// The key of a spare manifold: sub-shape ids no part or triangle has.
const SPARE: u32 = u32::MAX;

fn is_spare<M, C>(m: &ContactManifold<M, C>) -> bool {
    m.subshape1 == SPARE && m.subshape2 == SPARE
}

pub(super) fn make_spare<M, C>(m: &mut ContactManifold<M, C>) {
    m.points.clear();
    m.subshape1 = SPARE;
    m.subshape2 = SPARE;
}

impl<ManifoldData, ContactData> Drop for ManifoldSlots<'_, ManifoldData, ContactData> {
    fn drop(&mut self) {
        if self.indexed {
            let index = std::mem::take(&mut self.index);
            INDEX.with(|b| b.set(index));
        }
    }
}

/// Moves points and normals computed in the parts' frames into the colliders' frames.
fn to_collider_frames<ManifoldData, ContactData: Copy>(
    manifold: &mut ContactManifold<ManifoldData, ContactData>,
    p1: &Part<'_>,
    p2: &Part<'_>,
) {
    if let Some(pose) = p1.pose {
        manifold.local_n1 = pose.rotation * manifold.local_n1;
        for p in &mut manifold.points {
            p.local_p1 = pose * p.local_p1;
        }
    }
    if let Some(pose) = p2.pose {
        manifold.local_n2 = pose.rotation * manifold.local_n2;
        for p in &mut manifold.points {
            p.local_p2 = pose * p.local_p2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic xorshift for the random key sequences.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn slots_reuse_each_incoming_manifold_of_a_key_in_any_order_and_keep_the_rest_as_spares() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            // Old list: distinct keys in random order, data = a marker derived from the key.
            let key = |k: u64| ((k % 7) as u32, (k / 7 % 9) as u32);
            let mut old_keys: Vec<u64> = (0..63)
                .filter(|_| next(&mut state).is_multiple_of(2))
                .collect();
            for i in (1..old_keys.len()).rev() {
                old_keys.swap(i, next(&mut state) as usize % (i + 1));
            }
            let mut list: Vec<ContactManifold<u64, ()>> = old_keys
                .iter()
                .map(|&k| ContactManifold::with_data(key(k).0, key(k).1, 1000 + k))
                .collect();
            // New sequence: mostly the old order with some keys dropped and some added.
            let mut new_keys: Vec<u64> = old_keys
                .iter()
                .copied()
                .filter(|_| !next(&mut state).is_multiple_of(5))
                .collect();
            for k in 0..63u64 {
                if !old_keys.contains(&k) && next(&mut state).is_multiple_of(6) {
                    let at = next(&mut state) as usize % (new_keys.len() + 1);
                    new_keys.insert(at, k);
                }
            }
            // Now and then a new order altogether.
            if next(&mut state).is_multiple_of(3) {
                for i in (1..new_keys.len()).rev() {
                    new_keys.swap(i, next(&mut state) as usize % (i + 1));
                }
            }
            let mut slots = ManifoldSlots::new(&mut list);
            for &k in &new_keys {
                let (s1, s2) = key(k);
                let m = slots.next(s1, s2);
                assert_eq!((m.subshape1, m.subshape2), (s1, s2));
            }
            slots.finish();
            // The manifolds no key claimed stay behind the claimed ones as spares.
            assert!(
                list[new_keys.len()..]
                    .iter()
                    .all(|m| is_spare(m) && m.points.is_empty())
            );
            list.truncate(new_keys.len());
            let got: Vec<(u32, u32, u64)> = list
                .iter()
                .map(|m| (m.subshape1, m.subshape2, m.data))
                .collect();
            let expected: Vec<(u32, u32, u64)> = new_keys
                .iter()
                .map(|&k| {
                    let data = if old_keys.contains(&k) { 1000 + k } else { 0 };
                    (key(k).0, key(k).1, data)
                })
                .collect();
            assert_eq!(got, expected);
        }
    }

    /// `next_tentative` + `settle` against the rule: the kept pairs' manifolds end up in the
    /// order of the pairs, each the incoming manifold of its key (its data) or a fresh one, and
    /// every other manifold is a spare behind them; random old lists, key sequences and keep
    /// decisions, with `next` calls mixed in, and lists with and without spares to start with.
    #[test]
    fn tentative_slots_keep_exactly_the_settled_pairs() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for round in 0..1000 {
            let key = |k: u64| ((k % 7) as u32, (k / 7 % 9) as u32);
            let mut old_keys: Vec<u64> = (0..63)
                .filter(|_| next(&mut state).is_multiple_of(2))
                .collect();
            for i in (1..old_keys.len()).rev() {
                old_keys.swap(i, next(&mut state) as usize % (i + 1));
            }
            let mut list: Vec<ContactManifold<u64, ()>> = old_keys
                .iter()
                .map(|&k| ContactManifold::with_data(key(k).0, key(k).1, 1000 + k))
                .collect();
            // Some lists start with spares (from an earlier call).
            for _ in 0..(round % 4) {
                let mut m = ContactManifold::with_data(0, 0, 7);
                make_spare(&mut m);
                list.push(m);
            }
            let mut new_keys: Vec<u64> = old_keys
                .iter()
                .copied()
                .filter(|_| !next(&mut state).is_multiple_of(4))
                .collect();
            for k in 0..63u64 {
                if !old_keys.contains(&k) && next(&mut state).is_multiple_of(3) {
                    let at = next(&mut state) as usize % (new_keys.len() + 1);
                    new_keys.insert(at, k);
                }
            }
            if next(&mut state).is_multiple_of(3) {
                for i in (1..new_keys.len()).rev() {
                    new_keys.swap(i, next(&mut state) as usize % (i + 1));
                }
            }
            let mut kept = Vec::new();
            let mut slots = ManifoldSlots::new(&mut list);
            for &k in &new_keys {
                let (s1, s2) = key(k);
                let r = next(&mut state) % 8;
                if r == 0 {
                    // A plain `next` (always kept).
                    let m = slots.next(s1, s2);
                    assert_eq!((m.subshape1, m.subshape2), (s1, s2));
                    kept.push(k);
                    continue;
                }
                let m = slots.next_tentative(s1, s2);
                assert_eq!((m.subshape1, m.subshape2), (s1, s2));
                let expected = if old_keys.contains(&k) { 1000 + k } else { 0 };
                assert_eq!(m.data, expected, "key {k}");
                let keep = r.is_multiple_of(2);
                slots.settle(keep);
                if keep {
                    kept.push(k);
                }
            }
            slots.finish();
            assert!(
                list[kept.len()..]
                    .iter()
                    .all(|m| is_spare(m) && m.points.is_empty()),
                "round {round}: a manifold behind the kept ones is not a spare"
            );
            list.truncate(kept.len());
            let got: Vec<(u32, u32, u64)> = list
                .iter()
                .map(|m| (m.subshape1, m.subshape2, m.data))
                .collect();
            let expected: Vec<(u32, u32, u64)> = kept
                .iter()
                .map(|&k| {
                    let data = if old_keys.contains(&k) { 1000 + k } else { 0 };
                    (key(k).0, key(k).1, data)
                })
                .collect();
            assert_eq!(got, expected, "round {round}");
        }
    }
}
