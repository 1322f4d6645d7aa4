//! Contract of `scenes::santas`: both surface kinds pose the same vertices as the point-based
//! animation; the crate world's dispatcher pairs every inter-body triangle pair that intersects
//! exactly (brute force, every frame of a short pile-up) and its self-collision query finds every
//! self-intersecting pair of a body folded onto itself; over a short run no body falls through the
//! ground or passes through another; bad input is refused with typed errors.

use std::sync::OnceLock;

use rapier3d_deform::error::DeformError;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::santas::{
    ARENA_RADIUS, MAX_BODIES, SantaAsset, SantaPile, Surface, inter_body_collisions_brute_force,
};
use rapier3d_deform_scenes::teddy::Teddy;

fn asset() -> &'static SantaAsset {
    static ASSET: OnceLock<SantaAsset> = OnceLock::new();
    ASSET.get_or_init(|| {
        SantaAsset::from_obj_file(rapier3d_deform_scenes::asset_path("closed/spot.obj"))
            .expect("spot")
    })
}

fn all_vertices(pile: &SantaPile) -> Vec<Vec<Vec3>> {
    (0..pile.body_count())
        .map(|i| pile.surface_vertices(i).expect("body"))
        .collect()
}

#[test]
fn both_surfaces_pose_the_animation() {
    let mut piles: Vec<SantaPile> = [Surface::Crate, Surface::TriMesh]
        .into_iter()
        .map(|s| SantaPile::new(asset(), 3, s, 11).expect("pile"))
        .collect();
    for pile in &mut piles {
        pile.step().expect("step");
    }
    for i in 0..3 {
        let a = piles[0].surface_vertices(i).expect("body");
        let b = piles[1].surface_vertices(i).expect("body");
        assert_eq!(a.len(), asset().mesh().vertex_count());
        for (p, q) in a.iter().zip(&b) {
            assert!((*p - *q).length() < 1e-4, "body {i}: {p} vs {q}");
        }
    }
    assert_eq!(piles[0].particle_count(), 3 * 24);
    assert_eq!(piles[0].triangle_count(), 3 * 5_856);
}

#[test]
fn inter_body_pairs_match_brute_force_every_frame() {
    // Eight bodies: four on the ground, four falling onto them (first contacts near step 37).
    let mut pile = SantaPile::new(asset(), 8, Surface::Crate, 7).expect("pile");
    let mut intersecting = 0;
    let mut frames_with_contact = 0;
    for step in 0..60 {
        pile.step().expect("step");
        if step < 30 {
            continue;
        }
        let candidates = pile.contact_triangle_pairs(false);
        let oracle = inter_body_collisions_brute_force(asset().mesh(), &all_vertices(&pile));
        let missed: Vec<_> = oracle
            .iter()
            .filter(|p| candidates.binary_search(p).is_err())
            .collect();
        assert!(missed.is_empty(), "step {step}: missed {missed:?}");
        intersecting += oracle.len();
        frames_with_contact += !pile.contact_triangle_pairs(true).is_empty() as usize;
    }
    assert!(
        intersecting > 0,
        "the bodies should interpenetrate somewhere"
    );
    assert!(frames_with_contact >= 10, "{frames_with_contact}");
}

#[test]
fn self_pairs_match_brute_force_on_a_folded_body() {
    // Body 0's particles moved to the teddy's squashed pose (head thrown back onto the body),
    // high above the others.
    let teddy = Teddy::from_obj_file(rapier3d_deform_scenes::asset_path("closed/spot.obj"), 0)
        .expect("spot");
    let mut pile = SantaPile::new(asset(), 2, Surface::Crate, 3).expect("pile");
    let mut found = 0;
    for phase in [0.35f32, 0.5] {
        let targets: Vec<Vec3> = teddy
            .particle_targets(phase)
            .into_iter()
            .map(|p| p + Vec3::new(0.0, 6.0, 0.0))
            .collect();
        pile.set_particle_positions(0, &targets).expect("positions");
        pile.step().expect("step");
        for i in 0..2 {
            let mut mine = pile.self_pairs(i).expect("body").to_vec();
            mine.sort_unstable();
            let vertices = pile.surface_vertices(i).expect("body");
            let oracle = self_collisions_brute_force(asset().mesh(), &vertices).expect("oracle");
            for pair in &oracle {
                assert!(
                    mine.binary_search(pair).is_ok(),
                    "body {i}: missed {pair:?}"
                );
            }
            // Every reported pair intersects (the query's exact test).
            for pair in &mine {
                assert!(
                    oracle.binary_search(pair).is_ok(),
                    "body {i}: false {pair:?}"
                );
            }
            found += oracle.len();
        }
    }
    assert!(found > 0, "the folded body should self-intersect");
}

#[test]
fn nothing_passes_through_over_a_short_run() {
    let mut pile = SantaPile::new(asset(), 8, Surface::Crate, 7).expect("pile");
    let mut deepest = 0.0f32;
    let mut touching = 0;
    for step in 0..75 {
        pile.step().expect("step");
        touching += !pile.contact_triangle_pairs(true).is_empty() as usize;
        if step % 5 == 4 {
            let (_, d) = pile.vertices_inside_others();
            deepest = deepest.max(d);
            assert!(
                pile.lowest_vertex() > -0.25,
                "step {step}: below the ground"
            );
        }
    }
    assert!(touching >= 20, "bodies touched in {touching} steps only");
    // Particles' centroids above the ground.
    for i in 0..8 {
        let x = pile.particle_positions(i).expect("body");
        let y = x.iter().map(|p| p.y).sum::<f32>() / x.len() as f32;
        assert!(y > 0.2, "body {i} centroid at {y}");
    }
    // A vertex through another body would lie a body's half width (~0.3 m) deep.
    assert!(
        deepest < 0.12,
        "deepest vertex inside another body {deepest}"
    );
}

#[test]
fn bad_input_is_refused() {
    for count in [0, MAX_BODIES + 1] {
        assert!(matches!(
            SantaPile::new(asset(), count, Surface::Crate, 1),
            Err(DeformError::InvalidParameter { name: "count", .. })
        ));
    }
    let mut pile = SantaPile::new(asset(), 1, Surface::TriMesh, 1).expect("pile");
    let good = pile.particle_positions(0).expect("body").to_vec();
    assert!(matches!(
        pile.set_particle_positions(1, &good),
        Err(DeformError::IndexOutOfRange {
            what: "body",
            index: 1,
            len: 1
        })
    ));
    assert!(matches!(
        pile.set_particle_positions(0, &good[1..]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut bad = good.clone();
    bad[5].y = f32::NAN;
    assert!(matches!(
        pile.set_particle_positions(0, &bad),
        Err(DeformError::NonFinitePosition { index: 5, .. })
    ));
    // Nothing changed.
    assert_eq!(pile.particle_positions(0).expect("body"), &good[..]);
    assert!(pile.particle_positions(1).is_none());
    assert!(pile.surface_vertices(1).is_none());
    assert!(pile.self_pairs(1).is_none());
}

/// A pile whose particles fly off (a diverged simulation) stops with a typed error naming the
/// particle, before anything is stepped.
#[test]
fn a_diverged_pile_stops_with_an_error() {
    let mut pile = SantaPile::new(asset(), 2, Surface::Crate, 3).expect("pile");
    pile.step().expect("a first step");
    let mut far = pile.particle_positions(1).expect("body").to_vec();
    far[7].x = 2.0 * ARENA_RADIUS;
    pile.set_particle_positions(1, &far)
        .expect("finite positions");
    let steps = pile.steps();
    let particles = pile.particle_positions(0).expect("body").len();
    match pile.step() {
        Err(DeformError::PositionOutOfRange { index, value, .. }) => {
            assert_eq!(index, particles + 7);
            assert_eq!(value, 2.0 * ARENA_RADIUS);
        }
        other => panic!("expected PositionOutOfRange, got {other:?}"),
    }
    assert_eq!(pile.steps(), steps, "nothing stepped");
}
