//! Merging of coincident contact points across a pair's per-triangle manifolds: a mesh vertex in contact lies in every triangle around it, and each of those triangles' manifolds would carry its own copy of the point.

use std::cell::Cell;

use rapier3d::parry::query::ContactManifold;

use super::contact_manifolds_parts::make_spare;

/// Normals within this cosine (5.1°) count as one contact plane: Rapier's solver clusters
/// manifolds at the same angle (`COS_MERGE_ANGLE` of `contact_clustering.rs`).
const COS_SAME_PLANE: f32 = 0.996;

/// One contact point: the bits of its position on the mesh side (the sort key), its manifold
/// and its index in that manifold's point list.
type Entry = ([u32; 3], u32, u32);

/// A point to remove: its manifold and its index in that manifold's point list.
type Removal = (u32, u32);

thread_local! {
    /// The point list and the removal list, reused across calls on a thread.
    static SCRATCH: Cell<(Vec<Entry>, Vec<Removal>)> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// Keeps one copy of every contact point that several manifolds of `manifolds` hold at the same
/// position on one shape (bit for bit; `mesh_is_first`: that shape, a mesh, is the pair's first,
/// so its side of a point is `local_p1`) with normals within 5.1° of each other: the copy of the
/// manifold with the smallest key among those in its plane. With `retire_emptied`, manifolds
/// left without points become spares and move behind the others, which keep their order;
/// without, they stay where they are, keyed, as candidates without points.
///
/// Rapier's solver merges such copies anyway (points of one normal cluster closer than a quarter
/// of the prediction distance, deepest kept; copies of one point in one plane differ in depth
/// only by the cosine between their normals), one point against every point kept so far; merging
/// them here, in O(p log p) for p points, hands it a fifth of the points of a mesh resting on a
/// face.
///
/// # Performance
/// O(p log p) for the pair's p points; no allocation once the thread's scratch lists have held
/// as many points.
pub(super) fn merge_coincident_points<M, C>(
    manifolds: &mut [ContactManifold<M, C>],
    mesh_is_first: bool,
    retire_emptied: bool,
) {
    let total: usize = manifolds.iter().map(|m| m.points.len()).sum();
    if total < 2 {
        return;
    }
    let (mut entries, mut removed) = SCRATCH.take();
    entries.clear();
    removed.clear();
    for (i, m) in manifolds.iter().enumerate() {
        for (k, p) in m.points.iter().enumerate() {
            let at = if mesh_is_first {
                p.local_p1
            } else {
                p.local_p2
            };
            // `+ 0.0` turns -0.0 into 0.0, so both zeros share a key.
            let key = [at.x, at.y, at.z].map(|c| (c + 0.0).to_bits());
            entries.push((key, i as u32, k as u32));
        }
    }
    entries.sort_unstable();
    let mut start = 0;
    while start < entries.len() {
        let mut end = start + 1;
        while end < entries.len() && entries[end].0 == entries[start].0 {
            end += 1;
        }
        if end - start > 1 {
            merge_group(manifolds, &mut entries[start..end], &mut removed);
        }
        start = end;
    }
    if !removed.is_empty() {
        // Highest index first, so the indices still to remove stay valid.
        removed.sort_unstable_by(|a, b| b.cmp(a));
        for &(i, k) in &removed {
            manifolds[i as usize].points.remove(k as usize);
        }
        if retire_emptied {
            retire_empty(manifolds);
        }
    }
    SCRATCH.set((entries, removed));
}

/// Within one group of points at the same position, keeps a point unless a kept point of a
/// manifold with a smaller key `(subshape1, subshape2)` lies in its plane, and records the others
/// in `removed`: every dropped point has a kept copy in its plane, and no two kept points share a
/// plane. The copy kept is the same from one step to the next while its triangle stays in
/// contact, so its warm start (carried per manifold by feature ids) survives when Rapier's
/// clustering is off.
fn merge_group<M, C>(
    manifolds: &[ContactManifold<M, C>],
    group: &mut [Entry],
    removed: &mut Vec<Removal>,
) {
    let key = |&(_, m, k): &Entry| {
        let m = &manifolds[m as usize];
        (m.subshape1, m.subshape2, k)
    };
    let normal = |&(_, m, _): &Entry| manifolds[m as usize].local_n1;
    group.sort_unstable_by_key(key);
    let mut kept = 0;
    for j in 0..group.len() {
        let n = normal(&group[j]);
        if group[..kept]
            .iter()
            .any(|e| normal(e).dot(n) >= COS_SAME_PLANE)
        {
            removed.push((group[j].1, group[j].2));
        } else {
            group.swap(kept, j);
            kept += 1;
        }
    }
}

/// Turns the manifolds that lost all their points into spares and moves them behind the
/// others, which keep their order.
fn retire_empty<M, C>(manifolds: &mut [ContactManifold<M, C>]) {
    let mut kept = 0;
    for i in 0..manifolds.len() {
        if !manifolds[i].points.is_empty() {
            manifolds.swap(kept, i);
            kept += 1;
        }
    }
    for m in &mut manifolds[kept..] {
        make_spare(m);
    }
}
