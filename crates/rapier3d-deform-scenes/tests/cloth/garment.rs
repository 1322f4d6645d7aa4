//! Contract: the body derived from the MakeHuman sportsuit (Loop ×0, the `--quick` size) is closed, outward-oriented and inside the suit at its clearance; with the suit walking on it, every frame the collision stage's closest skin triangle per free cloth vertex equals brute force, the garment's crossing pairs found by the BN-Tree equal brute force, no cloth vertex ends deeper than the thickness inside the posed skin (winding-number oracle), pinned vertices follow their skin points, and the suit stays on the body (no vertex farther than 6 cm from the skin); a level above the limit and wrong skin matrices get typed errors.

use super::oracle;
use rapier3d_deform::DeformError;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{
    ClothOptions, ClothSelfCollision, SelfCollisionOptions, SkinCollision,
};
use rapier3d_deform::governor::{Affine, deform_vertices};
use rapier3d_deform::io::LoadError;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::sportsuit::{
    BONES, MAX_BODY_LEVELS, SHINS, SKIN_CLEARANCE, Sportsuit, SuitBody,
};

#[test]
fn the_body_is_closed_outward_and_fits_inside_the_suit() {
    let body = SuitBody::load(0).unwrap();
    let mesh = body.mesh();
    assert!(open_edges(mesh.triangles()).is_empty(), "the body is open");
    let p = mesh.positions();
    let volume: f32 = mesh
        .triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| p[v as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    // A slim adult's torso and legs: a few tens of litres.
    assert!((0.02..0.08).contains(&volume), "volume {volume} m³");
    // Every free garment vertex is outside the body, near the clearance; the turned hems
    // (pinned) lie on the body.
    let garment = body.garment();
    let mut hem = vec![false; garment.vertex_count()];
    for [a, b] in open_edges(garment.triangles()) {
        hem[a as usize] = true;
        hem[b as usize] = true;
    }
    let (mut lo, mut hi, mut hem_lo) = (f32::MAX, f32::MIN, f32::MAX);
    for (i, &x) in garment.positions().iter().enumerate() {
        let d = oracle::signed_distance(mesh.triangles(), p, x);
        if hem[i] {
            hem_lo = hem_lo.min(d);
        } else {
            lo = lo.min(d);
            hi = hi.max(d);
        }
    }
    eprintln!("garment to body at rest: free {lo}..{hi} m, hems from {hem_lo} m");
    assert!(
        lo > 0.4 * SKIN_CLEARANCE && hi <= 1.01 * SKIN_CLEARANCE,
        "{lo}..{hi}"
    );
    assert!(hem_lo > -0.001, "{hem_lo}");
    // The skeleton stands in the suit: hips below the waistband, knees halfway to the ankles,
    // shoulders between the neck and the sleeves; the skin below each knee follows its shin.
    let s = body.skeleton();
    for side in 0..2 {
        assert!(s.hips[side].y < s.pelvis.y + 1e-6 && s.hips[side].y > s.knees[side].y);
        assert!(s.knees[side].y > s.ankles[side].y + 0.25, "{s:?}");
        assert!(s.shoulders[side].y < s.neck.y && s.shoulders[side].y > s.sleeves[side].y);
        assert!(s.shoulders[side].x.abs() < s.sleeves[side].x.abs());
    }
    for (v, &q) in p.iter().enumerate() {
        let side = usize::from(q.x < 0.0);
        if q.y < s.knees[side].y - 0.05 {
            let (bone, _) =
                body.weights().iter_row(v).fold(
                    (u32::MAX, 0.0),
                    |b, (g, w)| if w > b.1 { (g, w) } else { b },
                );
            assert_eq!(bone as usize, SHINS[side], "vertex {v} at {q}");
        }
    }
}

/// The directed edges of `triangles` whose reverse no triangle has.
fn open_edges(triangles: &[[u32; 3]]) -> Vec<[u32; 2]> {
    let mut directed = std::collections::BTreeSet::new();
    for t in triangles {
        for e in 0..3 {
            assert!(directed.insert((t[e], t[(e + 1) % 3])), "edge used twice");
        }
    }
    directed
        .iter()
        .filter(|&&(a, b)| !directed.contains(&(b, a)))
        .map(|&(a, b)| [a, b])
        .collect()
}

#[test]
fn suit_contacts_equal_brute_force_and_no_vertex_ends_inside_the_body() {
    let body = SuitBody::load(0).unwrap();
    let rest = body.rest_positions().to_vec();
    let weights = body.weights().clone();
    let triangles = body.mesh().triangles().to_vec();
    let avatar =
        AvatarBoxes::build(body.mesh(), &rest, &weights, AvatarOptions::default()).unwrap();
    let g0 = body.governors_at(0.0);
    let mut suit = Sportsuit::new(&body, &g0, ClothOptions::default()).unwrap();
    let thresholds = Sportsuit::thresholds();
    let mut collision = SkinCollision::new(&avatar, thresholds).unwrap();
    let mut self_collision =
        ClothSelfCollision::new(&suit.cloth, SelfCollisionOptions::default()).unwrap();
    let suit_mesh = suit.cloth.mesh().clone();
    let dt = 1.0 / 60.0;
    let mut previous = g0;
    let mut posed = Vec::new();
    let (mut contacts, mut compared, mut farthest, mut crossings) = (0, 0, 0f32, 0);
    for frame in 1..=60 {
        let g = body.governors_at(frame as f32 * dt);
        let targets = suit.pin_targets(&body, &g);
        suit.cloth.set_pin_targets(&targets).unwrap();
        suit.cloth
            .step_with_self_collision(dt, &mut self_collision)
            .unwrap();
        collision
            .resolve(&mut suit.cloth, &avatar, &previous, &g, dt)
            .unwrap();
        deform_vertices(&rest, &weights, &g, &mut posed);
        contacts += collision.stats().contacts;
        compared += oracle::assert_contacts_equal_brute_force(
            &collision,
            &suit.cloth,
            &triangles,
            &posed,
            thresholds.outside,
            frame,
        );
        for (k, &i) in suit.cloth.pinned().iter().enumerate() {
            let off = (suit.cloth.positions()[i as usize] - targets[k]).length();
            assert!(
                off <= 1e-6,
                "frame {frame} pin {i} {off} m from its skin point"
            );
        }
        let expected = self_collisions_brute_force(&suit_mesh, suit.cloth.positions()).unwrap();
        assert_eq!(
            self_collision.find(suit.cloth.positions()).unwrap(),
            &expected[..],
            "frame {frame}: BN-Tree vs brute force"
        );
        self_collision.resolve(&mut suit.cloth).unwrap();
        collision
            .push_out(&mut suit.cloth, &avatar, self_collision.reverted(), dt)
            .unwrap();
        let (far, crossed) = oracle::assert_outside(
            &suit.cloth,
            &triangles,
            &posed,
            thresholds.thickness,
            frame,
            // The suit runs without the face pass (`Sportsuit::thresholds`): its crossings
            // are counted, not ruled out.
            thresholds.face_contacts,
        );
        farthest = farthest.max(far);
        crossings += crossed;
        previous = g;
    }
    eprintln!(
        "suit: {compared} compared, {contacts} contacts, farthest {farthest} m, \
         {crossings} cloth triangles crossed between their vertices"
    );
    assert!(compared > 90_000, "{compared}");
    // A tight suit: most of it touches the body every frame.
    assert!(contacts > compared / 2, "{contacts} of {compared}");
    // It stays on: no vertex ever gets more than 6 cm from the skin (the suit starts 12 mm
    // off it; folds bridging the crotch and the backs of the knees reach about 4 cm).
    assert!(farthest < 0.06, "a vertex {farthest} m from the skin");
}

#[test]
fn suit_bad_input_gets_typed_errors() {
    match SuitBody::load(MAX_BODY_LEVELS + 1) {
        Err(LoadError::Deform(DeformError::InvalidParameter { name, .. })) => {
            assert_eq!(name, "levels")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let body = SuitBody::load(0).unwrap();
    let g = body.governors_at(0.3);
    assert!(matches!(
        Sportsuit::new(&body, &g[..BONES - 1], ClothOptions::default()),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut bad = g.clone();
    bad[3] = Affine::new(bad[3].linear, Vec3::new(f32::NAN, 0.0, 0.0));
    assert!(matches!(
        Sportsuit::new(&body, &bad, ClothOptions::default()),
        Err(DeformError::NonFiniteTransform { governor: 3, .. })
    ));
}
