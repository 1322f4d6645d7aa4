//! Contract: the crossing triangle pairs the BN-Tree with point governors finds equal the brute-force oracle on every frame — the walking RiggedFigure's 48 × 16 skirt (Loop ×1) with and without the garment's self-collision response, a sheet rolled up through itself, a sheet whose pinned edges are pushed past each other; with the response no pair crosses after any frame and no skirt vertex ends deeper than the skin thickness inside the skin, while without it the folded sheet crosses itself.

use super::oracle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions};
use rapier3d_deform::cloth::{
    Cloth, ClothOptions, ClothSelfCollision, ContactThresholds, SelfCollisionOptions, SkinCollision,
};
use rapier3d_deform::governor::{GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::skirt::{SkirtCloth, WalkingFigure};

/// Per frame: BN-Tree pairs before the response, and (with the response) pairs after it.
struct Run {
    before: Vec<usize>,
    after: Vec<usize>,
    reverted: usize,
    projections: usize,
}

fn run(respond: bool, frames: usize) -> Run {
    let mut figure = WalkingFigure::load(1).unwrap();
    let rest = figure.skinning().rest_positions().to_vec();
    let weights = figure.skinning().weights().clone();
    let triangles = figure.mesh().triangles().to_vec();
    let avatar =
        AvatarBoxes::build(figure.mesh(), &rest, &weights, AvatarOptions::default()).unwrap();
    let g0 = figure.governors_at(0.0).unwrap();
    let mut skirt = SkirtCloth::new(&figure, &g0, 48, 16, ClothOptions::default()).unwrap();
    let thresholds = ContactThresholds::default();
    let mut collision = SkinCollision::new(&avatar, thresholds).unwrap();
    let mut self_collision =
        ClothSelfCollision::new(&skirt.cloth, SelfCollisionOptions::default()).unwrap();
    let mesh = skirt.cloth.mesh().clone();
    let dt = 1.0 / 60.0;
    let mut previous = g0;
    let mut posed = Vec::new();
    let mut out = Run {
        before: Vec::new(),
        after: Vec::new(),
        reverted: 0,
        projections: 0,
    };
    for frame in 1..=frames {
        let g = figure.governors_at(frame as f32 * dt).unwrap();
        let targets = skirt.pin_targets(&figure, &g);
        skirt.cloth.set_pin_targets(&targets).unwrap();
        if respond {
            skirt
                .cloth
                .step_with_self_collision(dt, &mut self_collision)
                .unwrap();
            out.projections += self_collision.stats().proximity_projections;
        } else {
            skirt.cloth.step(dt).unwrap();
        }
        collision
            .resolve(&mut skirt.cloth, &avatar, &previous, &g, dt)
            .unwrap();
        let expected = self_collisions_brute_force(&mesh, skirt.cloth.positions()).unwrap();
        let found = self_collision
            .find(skirt.cloth.positions())
            .unwrap()
            .to_vec();
        assert_eq!(found, expected, "frame {frame}: BN-Tree vs brute force");
        out.before.push(found.len());
        if respond {
            let stats = self_collision.resolve(&mut skirt.cloth).unwrap();
            assert_eq!(stats.crossing_pairs, found.len());
            out.reverted += stats.reverted;
            let left = self_collisions_brute_force(&mesh, skirt.cloth.positions()).unwrap();
            assert_eq!(stats.unresolved, left.len());
            out.after.push(left.len());
            deform_vertices(&rest, &weights, &g, &mut posed);
            for (i, &x) in skirt.cloth.positions().iter().enumerate() {
                let d = oracle::signed_distance(&triangles, &posed, x);
                assert!(
                    d >= -thresholds.thickness,
                    "frame {frame} vertex {i} ends {d} inside the skin"
                );
            }
        }
        previous = g;
    }
    out
}

#[test]
fn bn_tree_pairs_equal_brute_force_on_the_free_skirt() {
    // Every frame is compared inside `run`; the walking skirt alone hardly folds onto itself,
    // so the sheets below give the comparison pairs to find.
    let r = run(false, 45);
    assert_eq!(r.before.len(), 45);
}

#[test]
fn bn_tree_pairs_equal_brute_force_on_a_sheet_rolled_through_itself() {
    // The fixture's flat sheet (rest) blended frame by frame into 1.3 turns of a jittered roll:
    // the layers pass through each other part-way.
    let (mesh, rolled) = rapier3d_deform_scenes::self_colliding::crumpled_sheet(34, 24, 3);
    assert!(mesh.triangle_count() > rapier3d_deform::bn_tree::SWEEP_BELOW_TRIANGLES);
    let cloth = Cloth::new(
        mesh.positions().to_vec(),
        mesh.triangles().to_vec(),
        &[],
        ClothOptions::default(),
    )
    .unwrap();
    let mut stage = ClothSelfCollision::new(&cloth, SelfCollisionOptions::default()).unwrap();
    let mut total = 0;
    let mut positions = Vec::new();
    for frame in 0..=20 {
        let f = frame as f32 / 20.0;
        positions.clear();
        positions.extend(
            mesh.positions()
                .iter()
                .zip(&rolled)
                .map(|(a, b)| *a + (*b - *a) * f),
        );
        let expected = self_collisions_brute_force(&mesh, &positions).unwrap();
        let found = stage.find(&positions).unwrap();
        assert_eq!(found, &expected[..], "frame {frame}");
        total += expected.len();
    }
    assert!(total > 200, "the rolled sheet should cross itself: {total}");
}

/// A 1.0 × 0.5 m sheet (41 × 21 vertices) held flat by its two short edges; the right edge is
/// carried on a half circle over the sheet to 6 cm beside the left one (a napkin folded in two)
/// in the first 60 % of `frames` frames, and the two halves hang from there side by side. Per
/// frame, the BN-Tree pairs are compared with brute force; returns the pairs per frame
/// after the frame (after the response when `respond`), the proximity projections and the
/// reverted vertices.
fn folded_sheet(respond: bool, frames: usize) -> (Vec<usize>, usize, usize) {
    let (nx, nz) = (41usize, 21usize);
    let mut positions = Vec::new();
    for j in 0..nz {
        for i in 0..nx {
            positions.push(Vec3::new(
                i as f32 / (nx - 1) as f32 - 0.5,
                1.0,
                0.5 * j as f32 / (nz - 1) as f32,
            ));
        }
    }
    let id = |i: usize, j: usize| (j * nx + i) as u32;
    let mut triangles = Vec::new();
    for j in 0..nz - 1 {
        for i in 0..nx - 1 {
            triangles.push([id(i, j), id(i, j + 1), id(i + 1, j + 1)]);
            triangles.push([id(i, j), id(i + 1, j + 1), id(i + 1, j)]);
        }
    }
    let pinned: Vec<u32> = (0..nz).flat_map(|j| [id(0, j), id(nx - 1, j)]).collect();
    let mut cloth = Cloth::new(positions, triangles, &pinned, ClothOptions::default()).unwrap();
    let mut stage = ClothSelfCollision::new(&cloth, SelfCollisionOptions::default()).unwrap();
    let mesh = cloth.mesh().clone();
    let start: Vec<Vec3> = cloth
        .pinned()
        .iter()
        .map(|&p| cloth.positions()[p as usize])
        .collect();
    let mut out = Vec::new();
    let (mut projections, mut reverted) = (0, 0);
    let dt = 1.0 / 60.0;
    for frame in 1..=frames {
        let f = (frame as f32 / (0.6 * frames as f32)).min(1.0);
        let angle = core::f32::consts::PI * f;
        let targets: Vec<Vec3> = start
            .iter()
            .map(|p| {
                if p.x < 0.0 {
                    *p
                } else {
                    Vec3::new(0.03 + 0.47 * angle.cos(), p.y + 0.47 * angle.sin(), p.z)
                }
            })
            .collect();
        cloth.set_pin_targets(&targets).unwrap();
        if respond {
            cloth.step_with_self_collision(dt, &mut stage).unwrap();
            projections += stage.stats().proximity_projections;
        } else {
            cloth.step(dt).unwrap();
        }
        let expected = self_collisions_brute_force(&mesh, cloth.positions()).unwrap();
        assert_eq!(
            stage.find(cloth.positions()).unwrap(),
            &expected[..],
            "frame {frame}"
        );
        if respond {
            let stats = stage.resolve(&mut cloth).unwrap();
            reverted += stats.reverted;
            let left = self_collisions_brute_force(&mesh, cloth.positions()).unwrap();
            assert_eq!(stats.unresolved, left.len());
            out.push(left.len());
        } else {
            out.push(expected.len());
        }
    }
    (out, projections, reverted)
}

#[test]
fn a_sheet_folded_by_its_pins_crosses_itself_without_the_response_and_never_with_it() {
    let (free, _, _) = folded_sheet(false, 90);
    assert!(
        free.iter().sum::<usize>() > 1000,
        "the folded sheet should cross itself: {free:?}"
    );
    let (held, projections, reverted) = folded_sheet(true, 90);
    eprintln!("folded sheet with response: {projections} projections, {reverted} reverted");
    assert!(held.iter().all(|&n| n == 0), "{held:?}");
    // The proximity constraints act; vertex–triangle proximity alone does not stop edges from
    // passing through each other, so reverting still does much of the work here.
    assert!(projections > 1000, "{projections}");
    assert!(reverted > 0, "{reverted}");
}

#[test]
fn with_the_response_no_pair_crosses_after_any_frame() {
    let r = run(true, 45);
    eprintln!(
        "skirt with self-collision: before {:?}, after {:?}, reverted {}, projections {}",
        r.before, r.after, r.reverted, r.projections
    );
    assert!(r.after.iter().all(|&n| n == 0), "{:?}", r.after);
}
