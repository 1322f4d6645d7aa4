//! The contour test (Volino & Magnenat-Thalmann 1994; Grinspun & Schröder 2001 §3.6): a patch whose normals all see a direction d is free of self-intersections if its boundary, projected onto the plane orthogonal to d, is a set of simple, pairwise disjoint closed curves.

use super::build::BnTree;
use super::traverse::{Bounds, Walker};
use crate::bounds::NormalCone;
use std::time::Instant;

/// One projected boundary segment.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Segment {
    from: u32,
    to: u32,
    p: [f64; 2],
    q: [f64; 2],
}

/// Scratch memory of the contour test.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContourScratch {
    edges: Vec<(u32, u32)>,
    /// Per mesh vertex: `serial << 2 | flags` of the last test that touched it, flags
    /// [`LEFT`] (an edge left it) and [`ENTERED`] (an edge entered it).
    loop_stamp: Vec<u32>,
    /// Serial of the current test (stamps equal to it are this test's).
    serial: u32,
    segments: Vec<Segment>,
    /// Sweep order: each segment's smallest sweep coordinate quantised to 8 or 16 bits (a monotone
    /// map, [`SweepQuantizer`]) in the high half, the segment index in the low half.
    keys: Vec<u64>,
    /// Second buffer of the radix sort of `keys`.
    keys_spare: Vec<u64>,
    /// The segments' sweep data in sweep order.
    sweep: Vec<SweepEntry>,
}

/// What the sweep reads of one segment, stored in sweep order so that the scan for candidates
/// runs over contiguous memory.
#[derive(Clone, Copy, Debug, Default)]
struct SweepEntry {
    /// Quantised smallest and largest sweep coordinate ([`SweepQuantizer`]).
    key_lo: u32,
    key_hi: u32,
    /// Exact range of the filter coordinate.
    y_lo: f64,
    y_hi: f64,
    /// Index into the segments.
    segment: u32,
}

impl ContourScratch {
    /// Bytes held (per-vertex stamps and the scratch lists).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.loop_stamp.capacity() * 4
            + self.edges.capacity() * 8
            + self.segments.capacity() * core::mem::size_of::<Segment>()
            + (self.keys.capacity() + self.keys_spare.capacity()) * 8
            + self.sweep.capacity() * core::mem::size_of::<SweepEntry>()
    }
}

/// A monotone (non-decreasing) map of sweep coordinates to 8- or 16-bit keys over `[lo, hi]` (below:
/// 0, above: larger keys): `key(a) > key(b)` implies `a > b` (subtraction, multiplication by
/// a positive constant and the saturating cast are each monotone under IEEE rounding), so
/// stopping the sweep at the first key above `key(s_max)` never skips a segment starting at or
/// before `s_max`.
#[derive(Clone, Copy, Debug)]
struct SweepQuantizer {
    lo: f64,
    scale: f64,
}

impl SweepQuantizer {
    /// Keys `0..=max_key` over `[lo, hi]`.
    fn new(lo: f64, hi: f64, max_key: u32) -> Self {
        let range = hi - lo;
        let scale = if range > 0.0 {
            f64::from(max_key) / range
        } else {
            0.0
        };
        Self { lo, scale }
    }

    /// At most `u16::MAX` for `x <= hi` (the product rounds to at most `u16::MAX`).
    #[inline]
    fn key(self, x: f64) -> u32 {
        ((x - self.lo) * self.scale) as u32
    }
}

/// Sorts `items` by their high half, a key below `buckets^passes`, with stable counting passes
/// of 8 bits each using `buckets` (at most 256) counters: one pass of fewer counters for keys of
/// fewer bits.
///
/// # Panics
/// When `buckets > 256`, or a digit of a key is `≥ buckets` (a caller bug).
///
/// # Performance
/// O(n + buckets) per pass, no allocation once `spare` has grown.
fn radix_sort_by_key(items: &mut Vec<u64>, spare: &mut Vec<u64>, passes: u32, buckets: usize) {
    for shift in (0..passes).map(|pass| 32 + 8 * pass) {
        let mut counters = [0u32; 256];
        let offsets = &mut counters[..buckets];
        for &item in items.iter() {
            offsets[((item >> shift) & 0xff) as usize] += 1;
        }
        if offsets.contains(&(items.len() as u32)) {
            // Every item has the same digit: the pass would not move anything.
            continue;
        }
        let mut sum = 0;
        for slot in offsets.iter_mut() {
            (*slot, sum) = (sum, sum + *slot);
        }
        spare.clear();
        spare.resize(items.len(), 0);
        for &item in items.iter() {
            let slot = &mut offsets[((item >> shift) & 0xff) as usize];
            spare[*slot as usize] = item;
            *slot += 1;
        }
        core::mem::swap(items, spare);
    }
}

/// Two vectors spanning the plane orthogonal to cone direction `dir`, with integer components so
/// that projecting `f32` points is (nearly) exact in `f64`. They are not orthonormal: the map
/// `p ↦ (u·p, w·p)` is an invertible linear image of the orthogonal projection, which preserves
/// whether segments intersect.
fn plane_basis(dir: usize) -> ([f64; 3], [f64; 3]) {
    let d = NormalCone::DIRECTIONS[dir];
    let d = [d.x as f64, d.y as f64, d.z as f64];
    let u = if d[0] != 0.0 && d[1] == 0.0 && d[2] == 0.0 {
        [0.0, 1.0, 0.0]
    } else if d[0] == 0.0 && d[2] == 0.0 {
        [0.0, 0.0, 1.0]
    } else if d[0] == 0.0 && d[1] == 0.0 {
        [1.0, 0.0, 0.0]
    } else {
        [d[1], -d[0], 0.0]
    };
    let w = [
        d[1] * u[2] - d[2] * u[1],
        d[2] * u[0] - d[0] * u[2],
        d[0] * u[1] - d[1] * u[0],
    ];
    (u, w)
}

#[inline]
fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

#[inline]
fn on_segment(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> bool {
    p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[1] >= a[1].min(b[1])
        && p[1] <= a[1].max(b[1])
}

/// Closed-segment intersection (touching counts).
fn segments_intersect(s: &Segment, t: &Segment) -> bool {
    let o1 = orient(s.p, s.q, t.p);
    let o2 = orient(s.p, s.q, t.q);
    let o3 = orient(t.p, t.q, s.p);
    let o4 = orient(t.p, t.q, s.q);
    if ((o1 > 0.0 && o2 < 0.0) || (o1 < 0.0 && o2 > 0.0))
        && ((o3 > 0.0 && o4 < 0.0) || (o3 < 0.0 && o4 > 0.0))
    {
        return true;
    }
    (o1 == 0.0 && on_segment(s.p, s.q, t.p))
        || (o2 == 0.0 && on_segment(s.p, s.q, t.q))
        || (o3 == 0.0 && on_segment(t.p, t.q, s.p))
        || (o4 == 0.0 && on_segment(t.p, t.q, s.q))
}

/// Two segments sharing the endpoint `shared`: they only fail when they fold back onto each
/// other (collinear and pointing the same way from the shared point).
fn consecutive_segments_fold(s: &Segment, t: &Segment, shared: u32) -> bool {
    let (o, a) = if s.from == shared {
        (s.p, s.q)
    } else {
        (s.q, s.p)
    };
    let b = if t.from == shared { t.q } else { t.p };
    orient(o, a, b) == 0.0 && (a[0] - o[0]) * (b[0] - o[0]) + (a[1] - o[1]) * (b[1] - o[1]) > 0.0
}

impl Walker {
    /// The contour test of node `a`, or of the union of adjacent nodes `a` and `b`, projected
    /// along cone direction `dir`. True means "the projected contour is simple": together with
    /// the normal test, the patch cannot self-intersect.
    ///
    /// Fails (conservatively) on an empty boundary, on a boundary vertex with more than one
    /// incoming or outgoing boundary edge (a pinch, e.g. two patches touching at one vertex),
    /// and on any touching or crossing of projected segments.
    ///
    /// # Performance
    /// O(E log E) for E boundary edges (sort-and-sweep), plus the lazy deformation of the
    /// boundary vertices.
    pub(crate) fn contour_is_simple<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        a: u32,
        b: Option<u32>,
        dir: usize,
    ) -> bool {
        let start = Instant::now();
        self.stats.contour_tests += 1;
        let result = self.contour_is_simple_inner(bounds, tree, a, b, dir);
        self.stats.contour_nanos += start.elapsed().as_nanos() as u64;
        if !result {
            self.stats.contour_failures += 1;
        }
        result
    }

    fn contour_is_simple_inner<B: Bounds>(
        &mut self,
        bounds: &mut B,
        tree: &BnTree,
        a: u32,
        b: Option<u32>,
        dir: usize,
    ) -> bool {
        let na = tree.nodes[a as usize];
        let nb = b.map(|b| tree.nodes[b as usize]);
        if b.is_none() && !na.loops {
            // Precomputed: the patch's own boundary is pinched.
            self.stats.contour_pinched += 1;
            return false;
        }
        let mut scratch = core::mem::take(&mut self.contour);
        scratch.edges.clear();
        let (a0, a1) = na.boundary;
        for e in &tree.boundary[a0 as usize..a1 as usize] {
            if nb.is_none_or(|nb| !nb.contains_position(e.across)) {
                scratch.edges.push((e.from, e.to));
            }
        }
        let shared_edges = ((a1 - a0) as usize).saturating_sub(scratch.edges.len());
        if nb.is_some() && shared_edges == 0 {
            // The patches share vertices but no edge: their union is pinched at those vertices.
            self.stats.contour_pinched += 1;
            self.contour = scratch;
            return false;
        }
        if let Some(nb) = nb {
            let (b0, b1) = nb.boundary;
            for e in &tree.boundary[b0 as usize..b1 as usize] {
                if !na.contains_position(e.across) {
                    scratch.edges.push((e.from, e.to));
                }
            }
        }
        // A single node's loops were checked at build time (`loops`, tested above).
        let loops_ok = !scratch.edges.is_empty()
            && (nb.is_none() || edges_form_simple_loops(&mut scratch, tree.rest.len()));
        if !loops_ok {
            self.stats.contour_pinched += 1;
        }
        let simple = loops_ok && {
            project_segments(bounds, tree, &mut scratch, dir);
            projected_segments_are_disjoint(
                &scratch.segments,
                &mut scratch.keys,
                &mut scratch.keys_spare,
                &mut scratch.sweep,
            )
        };
        self.contour = scratch;
        simple
    }
}

/// Projects the scratch's boundary edges onto the plane orthogonal to cone direction `dir`.
fn project_segments<B: Bounds>(
    bounds: &mut B,
    tree: &BnTree,
    scratch: &mut ContourScratch,
    dir: usize,
) {
    let (u, w) = plane_basis(dir);
    scratch.segments.clear();
    for i in 0..scratch.edges.len() {
        let (from, to) = scratch.edges[i];
        let proj = |p: crate::math::Vec3| {
            let p = [p.x as f64, p.y as f64, p.z as f64];
            [
                u[0] * p[0] + u[1] * p[1] + u[2] * p[2],
                w[0] * p[0] + w[1] * p[1] + w[2] * p[2],
            ]
        };
        let p = proj(bounds.vertex(tree, from));
        let q = proj(bounds.vertex(tree, to));
        scratch.segments.push(Segment { from, to, p, q });
    }
}

/// Every boundary vertex has exactly one outgoing and one incoming boundary edge: no vertex
/// leaves twice, none is entered twice, and every vertex entered is also left (with as many
/// edges entering as leaving, the two vertex sets are then equal).
///
/// # Performance
/// O(E) with per-vertex stamps (no sort, no clearing).
fn edges_form_simple_loops(scratch: &mut ContourScratch, vertex_count: usize) -> bool {
    if scratch.loop_stamp.len() != vertex_count {
        scratch.loop_stamp = vec![0; vertex_count];
        scratch.serial = 0;
    }
    scratch.serial += 1;
    if scratch.serial >= 1 << 30 {
        scratch.loop_stamp.fill(0);
        scratch.serial = 1;
    }
    let current = scratch.serial << 2;
    // This test's flags of a vertex (none if another test stamped it).
    let flags = |stamp: u32| if stamp & !3 == current { stamp & 3 } else { 0 };
    for &(from, to) in &scratch.edges {
        let (from, to) = (from as usize, to as usize);
        let f = flags(scratch.loop_stamp[from]);
        if f & LEFT != 0 {
            return false;
        }
        scratch.loop_stamp[from] = current | f | LEFT;
        let t = flags(scratch.loop_stamp[to]);
        if t & ENTERED != 0 {
            return false;
        }
        scratch.loop_stamp[to] = current | t | ENTERED;
    }
    scratch
        .edges
        .iter()
        .all(|&(_, to)| flags(scratch.loop_stamp[to as usize]) & LEFT != 0)
}

/// Flag of [`ContourScratch::loop_stamp`]: a boundary edge left the vertex in this test.
const LEFT: u32 = 1;
/// Flag of [`ContourScratch::loop_stamp`]: a boundary edge entered the vertex in this test.
const ENTERED: u32 = 2;

/// Sort-and-sweep along the projected coordinate of larger extent (fewer segments overlap
/// along it); segments sharing a vertex only fail by folding back, all others by touching or
/// crossing.
///
/// # Performance
/// O(E + overlapping candidates) (a radix sort), no allocation once the scratch lists have
/// grown.
fn projected_segments_are_disjoint(
    segments: &[Segment],
    keys: &mut Vec<u64>,
    spare: &mut Vec<u64>,
    sweep: &mut Vec<SweepEntry>,
) -> bool {
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for s in segments {
        for k in 0..2 {
            lo[k] = lo[k].min(s.p[k].min(s.q[k]));
            hi[k] = hi[k].max(s.p[k].max(s.q[k]));
        }
    }
    // Sweep axis `x`, filter axis `y`.
    let (x, y) = if hi[0] - lo[0] >= hi[1] - lo[1] {
        (0, 1)
    } else {
        (1, 0)
    };
    // One counting pass up to 512 segments, with about twice as many buckets as segments (4 to
    // 8 bits): buckets about as fine as the segments, so ties add few candidates, and a contour
    // of 45 segments (the Fox's usual) does not pay for 256 counters. Two 8-bit passes above.
    let (passes, buckets) = if segments.len() <= 512 {
        let bits = (usize::BITS - segments.len().leading_zeros() + 1).clamp(4, 8);
        (1, 1usize << bits)
    } else {
        (2, 256)
    };
    let max_key = if passes == 1 {
        buckets as u32 - 1
    } else {
        u32::from(u16::MAX)
    };
    let quantizer = SweepQuantizer::new(lo[x], hi[x], max_key);
    keys.clear();
    keys.extend(
        segments
            .iter()
            .enumerate()
            .map(|(i, s)| (u64::from(quantizer.key(s.p[x].min(s.q[x]))) << 32) | i as u64),
    );
    radix_sort_by_key(keys, spare, passes, buckets);
    sweep.clear();
    sweep.extend(keys.iter().map(|&key| {
        let i = (key & 0xffff_ffff) as u32;
        let s = &segments[i as usize];
        SweepEntry {
            key_lo: (key >> 32) as u32,
            key_hi: quantizer.key(s.p[x].max(s.q[x])),
            y_lo: s.p[y].min(s.q[y]),
            y_hi: s.p[y].max(s.q[y]),
            segment: i,
        }
    }));
    for (k, e) in sweep.iter().enumerate() {
        for f in &sweep[k + 1..] {
            // Stop on the keys (non-decreasing along the sweep), not on exact values: equal
            // keys may hold unsorted exact values.
            if f.key_lo > e.key_hi {
                break;
            }
            if f.y_hi < e.y_lo || f.y_lo > e.y_hi {
                continue;
            }
            let (s, t) = (&segments[e.segment as usize], &segments[f.segment as usize]);
            let shared = if s.from == t.to {
                Some(s.from)
            } else if s.to == t.from {
                Some(s.to)
            } else {
                None
            };
            let bad = match shared {
                Some(v) => consecutive_segments_fold(s, t, v),
                None => segments_intersect(s, t),
            };
            if bad {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(from: u32, to: u32, p: [f64; 2], q: [f64; 2]) -> Segment {
        Segment { from, to, p, q }
    }

    fn disjoint(segments: &[Segment]) -> bool {
        projected_segments_are_disjoint(segments, &mut Vec::new(), &mut Vec::new(), &mut Vec::new())
    }

    /// The all-pairs oracle with the same pair rules as the sweep.
    fn disjoint_all_pairs(segments: &[Segment]) -> bool {
        for (i, s) in segments.iter().enumerate() {
            for t in &segments[i + 1..] {
                let bad = if s.from == t.to {
                    consecutive_segments_fold(s, t, s.from)
                } else if s.to == t.from {
                    consecutive_segments_fold(s, t, s.to)
                } else {
                    segments_intersect(s, t)
                };
                if bad {
                    return false;
                }
            }
        }
        true
    }

    /// Random closed loops (star-shaped, jittered, some crossing themselves, some on a coarse
    /// grid so that keys tie and segments touch) and their duplicates shifted far away: the
    /// radix-sorted sweep answers exactly as the all-pairs oracle, and both answers occur.
    #[test]
    fn sweep_equals_all_pairs_on_random_loops() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (mut keys, mut spare, mut sweep) = (Vec::new(), Vec::new(), Vec::new());
        let mut answers = [0usize; 2];
        for case in 0..6000 {
            let n = rng.random_range(3..700);
            let jitter: f64 = rng.random_range(0.0..1.5);
            let grid = case % 3 == 0;
            let points: Vec<[f64; 2]> = (0..n)
                .map(|i| {
                    let angle = core::f64::consts::TAU * i as f64 / n as f64;
                    let r = 10.0 * (1.0 + jitter * (rng.random::<f64>() - 0.5));
                    let p = [r * angle.cos(), 0.3 * r * angle.sin()];
                    if grid { p.map(|c| c.round()) } else { p }
                })
                .collect();
            let mut segments: Vec<Segment> = (0..n)
                .map(|i| {
                    seg(
                        i as u32,
                        ((i + 1) % n) as u32,
                        points[i],
                        points[(i + 1) % n],
                    )
                })
                .collect();
            if case % 4 == 1 {
                // A far copy: a second loop with its own vertex ids.
                let copy: Vec<Segment> = segments
                    .iter()
                    .map(|s| {
                        let shift = |p: [f64; 2]| [p[0] + 1e4, p[1]];
                        seg(s.from + n as u32, s.to + n as u32, shift(s.p), shift(s.q))
                    })
                    .collect();
                segments.extend(copy);
            }
            let expected = disjoint_all_pairs(&segments);
            answers[expected as usize] += 1;
            assert_eq!(
                projected_segments_are_disjoint(&segments, &mut keys, &mut spare, &mut sweep),
                expected,
                "case {case}"
            );
        }
        assert!(answers[0] > 500 && answers[1] > 500, "{answers:?}");
    }

    #[test]
    fn square_is_simple_and_figure_eight_is_not() {
        let sq = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let s: Vec<Segment> = (0..4)
            .map(|i| seg(i, (i + 1) % 4, sq[i as usize], sq[(i as usize + 1) % 4]))
            .collect();
        assert!(disjoint(&s));
        // A bow tie: (0,0) → (1,1) → (1,0) → (0,1) → back.
        let bt = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        let s: Vec<Segment> = (0..4)
            .map(|i| seg(i, (i + 1) % 4, bt[i as usize], bt[(i as usize + 1) % 4]))
            .collect();
        assert!(!disjoint(&s));
    }

    /// Loop topology with one stamp array reused across tests: closed loops pass, a vertex left
    /// or entered twice fails, an open chain fails, and one test's stamps never leak into the
    /// next.
    #[test]
    fn loop_topology_checks() {
        let mut scratch = ContourScratch::default();
        let mut check = |edges: &[(u32, u32)]| {
            scratch.edges.clear();
            scratch.edges.extend_from_slice(edges);
            edges_form_simple_loops(&mut scratch, 10)
        };
        for _ in 0..3 {
            assert!(check(&[(0, 1), (1, 2), (2, 0)]));
            assert!(
                check(&[(0, 1), (1, 0), (2, 3), (3, 4), (4, 2)]),
                "two loops"
            );
            assert!(!check(&[(0, 1), (1, 2)]), "open chain");
            assert!(!check(&[(0, 1), (0, 2), (1, 0), (2, 0)]), "0 left twice");
            assert!(!check(&[(1, 0), (2, 0), (0, 1), (0, 2)]), "0 entered twice");
        }
    }

    /// Keys never decrease with the coordinate (also outside the range and for a zero range),
    /// stay at most their largest key inside the range, and the radix sort orders by key with
    /// 256 or fewer counters per pass.
    #[test]
    fn quantized_keys_are_monotone_and_radix_sort_orders_them() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for (lo, hi) in [(-3.0, 7.5), (1e-9, 1e-9 + 1e-12), (2.0, 2.0), (-1e6, 1e6)] {
            let mut xs: Vec<f64> = (0..2000).map(|_| rng.random_range(lo..=hi)).collect();
            xs.extend([lo, hi, lo - 1.0, hi + 1.0]);
            xs.sort_by(f64::total_cmp);
            for (max_key, passes, buckets) in [
                (u32::from(u16::MAX), 2, 256),
                (u32::from(u8::MAX), 1, 256),
                (127, 1, 128),
                (15, 1, 16),
            ] {
                let q = SweepQuantizer::new(lo, hi, max_key);
                for w in xs.windows(2) {
                    assert!(q.key(w[0]) <= q.key(w[1]), "{w:?} in [{lo}, {hi}]");
                }
                assert!(xs.iter().all(|&x| x > hi || q.key(x) <= max_key));
                let mut items: Vec<u64> = xs
                    .iter()
                    .rev()
                    .enumerate()
                    .map(|(i, &x)| u64::from(q.key(x).min(max_key)) << 32 | i as u64)
                    .collect();
                radix_sort_by_key(&mut items, &mut Vec::new(), passes, buckets);
                assert!(items.windows(2).all(|w| w[0] >> 32 <= w[1] >> 32));
            }
        }
    }

    #[test]
    fn sweep_axis_choice_does_not_change_answers() {
        // A tall, thin zig-zag that crosses itself once near the top.
        let pts = [
            [0.0, 0.0],
            [1.0, 10.0],
            [0.0, 20.0],
            [1.0, 19.0],
            [-0.5, 15.0],
        ];
        let n = pts.len();
        let open: Vec<Segment> = (0..n - 1)
            .map(|i| seg(i as u32, i as u32 + 1, pts[i], pts[i + 1]))
            .collect();
        assert!(!disjoint(&open));
        let transposed: Vec<Segment> = open
            .iter()
            .map(|s| seg(s.from, s.to, [s.p[1], s.p[0]], [s.q[1], s.q[0]]))
            .collect();
        assert!(!disjoint(&transposed));
        let clean: Vec<Segment> = open[..2].to_vec();
        assert!(disjoint(&clean));
    }

    #[test]
    fn touching_counts_as_intersecting() {
        let a = seg(0, 1, [0.0, 0.0], [2.0, 0.0]);
        let b = seg(2, 3, [1.0, 0.0], [1.0, 1.0]);
        assert!(segments_intersect(&a, &b));
        let c = seg(2, 3, [1.0, 0.5], [1.0, 1.0]);
        assert!(!segments_intersect(&a, &c));
    }

    #[test]
    fn folding_back_is_caught() {
        let a = seg(0, 1, [0.0, 0.0], [2.0, 0.0]);
        let b = seg(1, 2, [2.0, 0.0], [1.0, 0.0]);
        assert!(consecutive_segments_fold(&a, &b, 1));
        let c = seg(1, 2, [2.0, 0.0], [3.0, 0.0]);
        assert!(!consecutive_segments_fold(&a, &c, 1));
    }

    #[test]
    fn plane_bases_are_orthogonal_to_their_direction() {
        for dir in 0..14 {
            let d = NormalCone::DIRECTIONS[dir];
            let (u, w) = plane_basis(dir);
            let dot = |a: [f64; 3]| a[0] * d.x as f64 + a[1] * d.y as f64 + a[2] * d.z as f64;
            assert_eq!(dot(u), 0.0);
            assert_eq!(dot(w), 0.0);
            let cross = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            assert!(cross.iter().any(|c| *c != 0.0));
        }
    }
}
