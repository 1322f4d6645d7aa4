//! Contract: on the walking RiggedFigure (Loop ×1) with a 48 × 16 skirt, every frame the collision stage's closest skin triangle per cloth vertex equals brute force over all skin triangles, its skin motion bound holds every skin vertex's motion, and after the stage no cloth vertex is deeper than the thickness inside the posed skin (winding-number oracle).

use super::oracle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{ClothOptions, ContactThresholds, SkinCollision};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};

#[test]
fn skirt_contacts_equal_brute_force_and_no_vertex_ends_inside_the_skin() {
    let mut figure = WalkingFigure::load(1).unwrap();
    let rest = figure.skinning().rest_positions().to_vec();
    let weights = figure.skinning().weights().clone();
    let triangles = figure.mesh().triangles().to_vec();
    let avatar =
        AvatarBoxes::build(figure.mesh(), &rest, &weights, AvatarOptions::default()).unwrap();
    let g0 = figure.governors_at(0.0).unwrap();
    let mut skirt = SkirtCloth::new(&figure, &g0, 48, 16, ClothOptions::default()).unwrap();
    // With the stage's face pass, which the assertions below hold to: the skin never passes
    // between a cloth triangle's vertices.
    let thresholds = ContactThresholds {
        face_contacts: true,
        ..ContactThresholds::default()
    };
    let mut collision = SkinCollision::new(&avatar, thresholds).unwrap();
    let dt = 1.0 / 60.0;
    let mut previous = g0;
    let mut posed = Vec::new();
    let mut posed_before = Vec::new();
    deform_vertices(&rest, &weights, &previous, &mut posed_before);
    let (mut contacts, mut repositioned, mut compared) = (0, 0, 0);
    for frame in 1..=45 {
        let g = figure.governors_at(frame as f32 * dt).unwrap();
        let targets = skirt.pin_targets(&figure, &g);
        skirt.cloth.set_pin_targets(&targets).unwrap();
        skirt.cloth.step(dt).unwrap();
        collision
            .resolve(&mut skirt.cloth, &avatar, &previous, &g, dt)
            .unwrap();
        deform_vertices(&rest, &weights, &g, &mut posed);
        let stats = collision.stats();
        // The continuous test's motion bound holds every skin vertex's motion over the step.
        let moved = posed
            .iter()
            .zip(&posed_before)
            .fold(0f32, |m, (a, b)| m.max((*a - *b).length()));
        assert!(
            moved <= stats.skin_motion_bound && stats.skin_motion_bound < 10.0 * moved + 1e-3,
            "frame {frame}: skin moved {moved}, bound {}",
            stats.skin_motion_bound
        );
        contacts += stats.contacts;
        repositioned += stats.repositioned;
        compared += oracle::assert_contacts_equal_brute_force(
            &collision,
            &skirt.cloth,
            &triangles,
            &posed,
            thresholds.outside,
            frame,
        );
        oracle::assert_outside(
            &skirt.cloth,
            &triangles,
            &posed,
            thresholds.thickness,
            frame,
            thresholds.face_contacts,
        );
        previous = g;
        std::mem::swap(&mut posed, &mut posed_before);
    }
    assert!(compared > 30_000, "{compared}");
    assert!(
        contacts > 500,
        "the skirt should touch the legs: {contacts}"
    );
    assert!(repositioned > 50, "{repositioned}");
}
