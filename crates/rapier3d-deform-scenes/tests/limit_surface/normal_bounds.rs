//! Contract: for every valence 3..=12 and `SAMPLES` random control neighbourhoods each (fixed seeds), every limit
//! normal sampled at the 2145 vertices of the patch's level-6 refinement (the crate's `LoopSubdivision` stencils,
//! Loop's exact limit tangent masks) lies in the eq. 3 eigenbasis cone, in the §4 tightened cone and, at valence 6, in
//! the regular Bézier cone (tolerance `TOL`, the f32 stencils' noise); the eq. 3 cone of the corner subpatch shrinks
//! under refinement to a cone around the limit normal at the irregular vertex. The ignored test runs the 10⁵
//! neighbourhoods per valence.

use super::local::{NormalOracle, angle, random_neighbourhood, spread};
use crate::common::rng;
use rapier3d_deform::limit_surface::{
    MAX_VALENCE, MIN_VALENCE, NormalBound, eigen_normal_bound, loop_eigen, regular_normal_bound,
    tightened_normal_bound,
};

/// Neighbourhoods per valence in the default run.
const SAMPLES: usize = 2_000;
/// Neighbourhoods per valence in the ignored full run (the count).
const FULL_SAMPLES: usize = 100_000;
/// Refinement level of the normal samples (2145 limit normals per patch).
const LEVEL: u32 = 6;
/// The slack (half-angle minus the sampled normals' spread) is measured on every this-many-th
/// neighbourhood (the spread costs more than everything else).
const SLACK_EVERY: usize = 10;
/// Angular tolerance (radians) for the f32 stencils of the sampled normals (about 2e-5 observed).
const TOL: f64 = 1e-4;

#[derive(Default)]
struct Stats {
    bounded: [usize; 3],
    /// Cones that a sampled normal would leave were their half-angle 5 % smaller.
    tight_cones: [usize; 3],
    worst_excess: f64,
    slack: [Vec<f64>; 3],
}

fn check(
    bound: NormalBound,
    normals: &[[f64; 3]],
    true_spread: Option<f64>,
    which: usize,
    st: &mut Stats,
    what: &str,
) {
    if let NormalBound::Cone(c) = bound {
        st.bounded[which] += 1;
        let mut widest = 0.0f64;
        for n in normals {
            widest = widest.max(c.angle_to(*n));
            let excess = c.angle_to(*n) - c.half_angle();
            st.worst_excess = st.worst_excess.max(excess);
            assert!(
                excess <= TOL,
                "{what}: a normal is {excess:e} rad outside the cone"
            );
        }
        st.tight_cones[which] += (widest > 0.95 * c.half_angle()) as usize;
        if let Some(sp) = true_spread {
            st.slack[which].push((c.half_angle() - sp).to_degrees());
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(samples: usize, seed: u64) {
    println!(
        "valence  samples  bounded(eq3/tight/regular)  median slack deg (eq3/tight/regular)  largest (angle − half-angle) rad  seconds"
    );
    for n in MIN_VALENCE..=MAX_VALENCE {
        let t0 = std::time::Instant::now();
        let oracle = NormalOracle::new(n, LEVEL);
        assert_eq!(oracle.sample_count(), 2145);
        let mut r = rng(seed ^ n as u64);
        let mut st = Stats {
            worst_excess: f64::NEG_INFINITY,
            ..Stats::default()
        };
        for s in 0..samples {
            let p = random_neighbourhood(&mut r, n);
            let normals = oracle.normals(&p);
            let sp = (s % SLACK_EVERY == 0).then(|| spread(&normals));
            let what = format!("valence {n}, sample {s}");
            check(
                eigen_normal_bound(n, &p, 0).unwrap(),
                &normals,
                sp,
                0,
                &mut st,
                &what,
            );
            check(
                tightened_normal_bound(n, &p).unwrap(),
                &normals,
                sp,
                1,
                &mut st,
                &what,
            );
            if n == 6 {
                check(
                    regular_normal_bound(&p).unwrap(),
                    &normals,
                    sp,
                    2,
                    &mut st,
                    &what,
                );
            }
        }
        let [a, b, c] = &mut st.slack;
        println!(
            "{n:7}  {samples:7}  {:6}/{:6}/{:6}  {:8.3}/{:8.3}/{:8.3}  {:.2e}  {:.1}",
            st.bounded[0],
            st.bounded[1],
            st.bounded[2],
            median(a),
            median(b),
            median(c),
            st.worst_excess,
            t0.elapsed().as_secs_f64()
        );
        // The tightened bound exists whenever eq. 3's does, and the test must exercise cones.
        assert!(st.bounded[1] >= st.bounded[0]);
        // The oracle is sharp: most tightened cones would be violated 5 % narrower.
        assert!(
            st.tight_cones[1] * 2 > st.bounded[1],
            "valence {n}: {}",
            st.tight_cones[1]
        );
        println!("         tight within 5 %: {:?}", st.tight_cones);
        assert!(
            st.bounded[1] > samples / 2 && st.bounded[1] < samples,
            "valence {n}: only {} cones",
            st.bounded[1]
        );
    }
}

#[test]
fn sampled_limit_normals_lie_in_the_cones() {
    run(SAMPLES, 0x11_6175);
}

#[test]
#[ignore = "the issue's full count: 10⁵ neighbourhoods per valence (minutes in release)"]
fn sampled_limit_normals_lie_in_the_cones_full_count() {
    run(FULL_SAMPLES, 0x22_6175);
}

#[test]
fn corner_cone_shrinks_to_the_limit_normal_under_refinement() {
    let mut r = rng(0xc0_2e);
    for n in MIN_VALENCE..=MAX_VALENCE {
        let eig = loop_eigen(n).unwrap();
        let mut tested = 0;
        while tested < 50 {
            let p = random_neighbourhood(&mut r, n);
            let c = eig.coefficients(&p).unwrap();
            let limit_normal = super::local::cross(c[1], c[2]);
            let angles: Vec<Option<f64>> = (0..=80)
                .map(|j| {
                    eigen_normal_bound(n, &p, j)
                        .unwrap()
                        .cone()
                        .map(|c| c.half_angle())
                })
                .collect();
            let Some(first) = angles.iter().position(Option::is_some) else {
                continue;
            };
            tested += 1;
            // Once bounded, always bounded, and never wider (up to rounding) after the Jordan
            // term's first steps; tends to 0 around the limit normal.
            let from = first.max(4);
            for j in from..80 {
                let (a, b) = (angles[j].unwrap(), angles[j + 1].unwrap());
                assert!(
                    b <= a * (1.0 + 1e-6) + 1e-8,
                    "valence {n}: step {j} {a} → {b}"
                );
            }
            let last = eigen_normal_bound(n, &p, 80).unwrap();
            let cone = last.cone().unwrap();
            assert!(
                cone.half_angle() < 1e-3,
                "valence {n}: {}",
                cone.half_angle()
            );
            assert!(angle(cone.axis(), limit_normal) < 2e-3);
            let a0 = angles[first].unwrap();
            assert!(cone.half_angle() < a0 || a0 < 1e-9);
        }
    }
}
