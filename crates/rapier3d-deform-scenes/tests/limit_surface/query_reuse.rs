//! Contract: a `LimitInterferenceQuery` reused over frames, hierarchies and surface pairs (it keeps the sub-patches, self-test and pair outcomes of patches whose control points did not move) answers exactly as a fresh query on a freshly posed hierarchy — the same regions, unresolved sub-patches, budget flag, counters (but the hierarchy's own patch-bound count) and reached sub-patches — and its kept scratch memory is compacted.

use rapier3d_deform::limit_surface::{
    LimitHierarchy, LimitInterference, LimitInterferenceQuery, SizeTolerance, SubPatch,
};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform_scenes::subdiv::{SPHERE_PUSH, bend, evert_cap, sphere_cage, tube_cage};

/// SplitMix64 in `[0, 1)`.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// A query's answer and the sub-patches it reached.
fn answer(q: &LimitInterferenceQuery) -> (LimitInterference, Vec<SubPatch>) {
    (q.result().clone(), q.subpatches().collect())
}

fn assert_same(
    got: &(LimitInterference, Vec<SubPatch>),
    want: &(LimitInterference, Vec<SubPatch>),
    what: &str,
) {
    assert_eq!(got.0.regions, want.0.regions, "{what}: regions");
    assert_eq!(
        got.0.unresolved_self, want.0.unresolved_self,
        "{what}: unresolved"
    );
    assert_eq!(
        got.0.budget_reached, want.0.budget_reached,
        "{what}: budget"
    );
    // Every counter but the limit-patch bounds, which the hierarchy keeps for unmoved patches.
    let (mut g, mut w) = (got.0.stats, want.0.stats);
    g.patch_bounds_computed = 0;
    w.patch_bounds_computed = 0;
    assert_eq!(g, w, "{what}: counters");
    if got.1 != want.1 {
        let i = got
            .1
            .iter()
            .zip(&want.1)
            .take_while(|(g, w)| g == w)
            .count();
        panic!(
            "{what}: reached sub-patches differ at {i} of {} / {}: {:?} / {:?}",
            got.1.len(),
            want.1.len(),
            got.1.get(i),
            want.1.get(i)
        );
    }
}

/// A fresh hierarchy of `cage` posed at `posed` and a fresh query with `budget`, self test.
fn fresh_self(
    cage: &TriangleMesh,
    posed: &[Vec3],
    budget: usize,
    oracle: &mut SizeTolerance,
) -> (LimitInterference, Vec<SubPatch>) {
    let mut h = LimitHierarchy::new(cage).unwrap();
    h.set_control_points(posed).unwrap();
    let mut q = LimitInterferenceQuery::new().with_budget(budget);
    q.detect_self(&mut h, oracle).unwrap();
    answer(&q)
}

#[test]
fn a_reused_query_answers_as_a_fresh_one_over_frames_hierarchies_and_pairs() {
    let sphere = sphere_cage(2, 0.02);
    let tube = tube_cage(6, 4, 0.5, 2.0);
    let tube_posed = bend(
        tube.positions(),
        0.6,
        0.4 * std::f32::consts::PI,
        std::f32::consts::PI,
    );
    let mut hs = LimitHierarchy::new(&sphere).unwrap();
    let mut other = LimitHierarchy::new(&sphere).unwrap();
    let mut ht = LimitHierarchy::new(&tube).unwrap();
    ht.set_control_points(&tube_posed).unwrap();
    let mut q = LimitInterferenceQuery::new();
    const SMALL: usize = 600;
    let mut small = LimitInterferenceQuery::new().with_budget(SMALL);
    let mut oracle = SizeTolerance {
        tolerance: 0.1,
        max_depth: 3,
    };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut jitter = vec![Vec3::ZERO; sphere.vertex_count()];
    let (mut kept_max, mut compacted, mut budget_hit, mut interfering) =
        (0usize, false, false, 0usize);
    const FRAMES: usize = 16;
    for frame in 0..FRAMES {
        // The cap moves every frame; about 3 % of the control points also move on their own.
        for j in jitter.iter_mut() {
            if uniform(&mut seed) < 0.03 {
                *j += Vec3::new(
                    uniform(&mut seed) as f32 - 0.5,
                    uniform(&mut seed) as f32 - 0.5,
                    uniform(&mut seed) as f32 - 0.5,
                ) * 0.02;
            }
        }
        let push = SPHERE_PUSH * frame as f32 / (FRAMES - 1) as f32;
        let posed: Vec<Vec3> = evert_cap(sphere.positions(), push)
            .iter()
            .zip(&jitter)
            .map(|(p, j)| *p + *j)
            .collect();
        hs.set_control_points(&posed).unwrap();
        q.detect_self(&mut hs, &mut oracle).unwrap();
        let got = answer(&q);
        let want = fresh_self(&sphere, &posed, usize::MAX, &mut oracle);
        assert_same(&got, &want, &format!("frame {frame}, sphere"));
        interfering += got.0.interfering().count();
        small.detect_self(&mut hs, &mut oracle).unwrap();
        let got = answer(&small);
        budget_hit |= got.0.budget_reached;
        assert_same(
            &got,
            &fresh_self(&sphere, &posed, SMALL, &mut oracle),
            &format!("frame {frame}, budget {SMALL}"),
        );
        if frame % 3 == 0 {
            // Another hierarchy through the same query.
            q.detect_self(&mut ht, &mut oracle).unwrap();
            let got = answer(&q);
            assert_same(
                &got,
                &fresh_self(&tube, &tube_posed, usize::MAX, &mut oracle),
                &format!("frame {frame}, tube"),
            );
        }
        if frame % 4 == 1 {
            // Two surfaces: the sphere and a copy shifted along x, both through the query.
            let dx = 1.6 + 0.2 * uniform(&mut seed) as f32;
            let moved: Vec<Vec3> = sphere
                .positions()
                .iter()
                .map(|&p| p + Vec3::X * dx)
                .collect();
            other.set_control_points(&moved).unwrap();
            q.detect_pair(&mut hs, &mut other, &mut oracle).unwrap();
            let got = answer(&q);
            let mut fa = LimitHierarchy::new(&sphere).unwrap();
            fa.set_control_points(&posed).unwrap();
            let mut fb = LimitHierarchy::new(&sphere).unwrap();
            fb.set_control_points(&moved).unwrap();
            let mut fresh = LimitInterferenceQuery::new();
            fresh.detect_pair(&mut fa, &mut fb, &mut oracle).unwrap();
            assert_same(&got, &answer(&fresh), &format!("frame {frame}, pair"));
            assert!(
                got.0.interfering().count() > 0,
                "frame {frame}: the shifted spheres overlap"
            );
        }
        let kept = q.kept_subpatches();
        compacted |= kept < kept_max;
        kept_max = kept_max.max(kept);
    }
    assert!(interfering > 0, "the cap crosses the far side");
    assert!(budget_hit, "the small budget stops some frame");
    assert!(
        compacted,
        "stale sub-patches were dropped (at most {kept_max} kept)"
    );
}
