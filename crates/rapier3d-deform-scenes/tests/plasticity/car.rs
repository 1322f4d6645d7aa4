//! Contract: on the procedural car, the plasticity model turns a push into the damage example that matches it (a frontal push crushes the front, a side push dents that side), spreads it with the falloff, keeps every row on the simplex, and reads the same Jacobian from A's `ExampleBlend` as from the skinned example poses.

use rapier3d_deform::deformation::ExampleBlend;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::plasticity::{
    ContactSample, PlasticModel, PlasticWorkspace, PlasticityParams,
};
use rapier3d_deform_scenes::car::{CAR_LENGTH, CarOptions, car};

const FRONT: usize = 1;
const LEFT: usize = 3;
const RIGHT: usize = 4;

fn cage() -> CarOptions {
    CarOptions {
        stations: 24,
        segments: 24,
    }
}

fn params() -> PlasticityParams {
    PlasticityParams {
        yield_displacement: 0.01,
        impulse_scale: 40.0,
        kernel_radius: 1.2,
        rate: 0.2,
        ..PlasticityParams::jones_car()
    }
}

fn model() -> (PlasticModel, Vec<Vec3>) {
    let asset = car(&cage()).unwrap();
    let blend = ExampleBlend::new(
        asset.mesh.positions().to_vec(),
        asset.bone_weights.clone(),
        asset.example_bones.clone(),
    )
    .unwrap();
    let model = PlasticModel::from_blend(&asset.mesh, &blend, params()).unwrap();
    (model, asset.mesh.positions().to_vec())
}

/// Applies one contact, lets it settle, returns the state's weights (all caught up).
fn hit(model: &PlasticModel, point: Vec3, displacement: Vec3) -> Vec<f32> {
    let mut state = model.new_state().unwrap();
    let mut ws = PlasticWorkspace::new();
    let mut dents = Vec::new();
    model
        .apply_contacts(
            &mut state,
            &[ContactSample {
                point,
                displacement,
            }],
            &mut ws,
            &mut dents,
        )
        .unwrap();
    for _ in 0..100 {
        state.advance();
    }
    state.catch_up_all();
    let e = model.example_count();
    for (v, row) in state.all_weights().chunks(e).enumerate() {
        assert!(row.iter().all(|x| *x >= 0.0), "vertex {v}: {row:?}");
        assert!(
            (row.iter().sum::<f32>() - 1.0).abs() < 1e-5,
            "vertex {v}: {row:?}"
        );
    }
    state.all_weights().to_vec()
}

fn column(weights: &[f32], e: usize, examples: usize) -> Vec<f32> {
    weights.chunks(examples).map(|row| row[e]).collect()
}

#[test]
fn the_blend_jacobian_equals_the_skinned_example_poses() {
    let asset = car(&cage()).unwrap();
    let (from_blend, _) = model();
    let poses = asset.example_positions().unwrap();
    let from_poses = PlasticModel::from_examples(&asset.mesh, &poses, params()).unwrap();
    for v in 0..asset.mesh.vertex_count() as u32 {
        for (a, b) in from_blend.columns(v).iter().zip(from_poses.columns(v)) {
            assert!((*a - *b).length() < 1e-4, "vertex {v}");
        }
    }
}

#[test]
fn a_frontal_push_crushes_the_front_only() {
    let (model, rest) = model();
    let e = model.example_count();
    let front = Vec3::new(0.5 * CAR_LENGTH, 0.5, 0.0);
    let w = hit(&model, front, Vec3::new(-0.05, 0.0, 0.0));
    let crush = column(&w, FRONT, e);
    let v = model.nearest_vertex(front).unwrap() as usize;
    assert!(
        crush[v] > 0.5,
        "front crush weight at the bumper {}",
        crush[v]
    );
    // Nothing behind the falloff radius (1.2 m along the surface from the bumper).
    for (u, p) in rest.iter().enumerate() {
        if p.x < 0.0 {
            assert_eq!(w[u * e], 1.0, "vertex {u} at {p} moved off the rest pose");
        }
    }
    // Only the front crush gained weight at the source.
    let row = &w[v * e..(v + 1) * e];
    let best = (0..e).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
    assert_eq!(best, FRONT, "{row:?}");
    // The blended bumper moved backwards.
    let moved = model.blend_vertex(v as u32, row);
    assert!(moved.x < rest[v].x - 0.2, "{} → {}", rest[v], moved);
}

#[test]
fn a_side_push_dents_that_side() {
    let (model, rest) = model();
    let e = model.example_count();
    // The left side is −z; a push into it points along +z.
    let left = Vec3::new(0.0, 0.45, -0.9);
    let w = hit(&model, left, Vec3::new(0.0, 0.0, 0.04));
    let v = model.nearest_vertex(left).unwrap() as usize;
    let row = &w[v * e..(v + 1) * e];
    assert!(row[LEFT] > 0.3 && row[RIGHT] == 0.0, "{row:?}");
    let right = Vec3::new(0.0, 0.45, 0.9);
    let w = hit(&model, right, Vec3::new(0.0, 0.0, -0.04));
    let v = model.nearest_vertex(right).unwrap() as usize;
    let row = &w[v * e..(v + 1) * e];
    assert!(row[RIGHT] > 0.3 && row[LEFT] == 0.0, "{row:?}");
    assert!(model.blend_vertex(v as u32, row).z < rest[v].z - 0.1);
}

#[test]
fn the_falloff_decays_with_distance_from_the_hit() {
    let (model, rest) = model();
    let e = model.example_count();
    let front = Vec3::new(0.5 * CAR_LENGTH, 0.5, 0.0);
    let w = hit(&model, front, Vec3::new(-0.05, 0.0, 0.0));
    let crush = column(&w, FRONT, e);
    // Average crush weight in bands of distance from the bumper: non-increasing.
    let mut bands = [(0.0f32, 0usize); 6];
    for (u, p) in rest.iter().enumerate() {
        let d = (*p - front).length();
        let b = (d / 0.25) as usize;
        if b < bands.len() {
            bands[b].0 += crush[u];
            bands[b].1 += 1;
        }
    }
    let means: Vec<f32> = bands
        .iter()
        .filter(|b| b.1 > 0)
        .map(|b| b.0 / b.1 as f32)
        .collect();
    assert!(means.windows(2).all(|m| m[1] <= m[0] + 1e-3), "{means:?}");
    assert!(means[0] > means[means.len() - 1]);
}

#[test]
fn a_push_below_the_yield_does_nothing() {
    let (model, _) = model();
    let w = hit(
        &model,
        Vec3::new(0.5 * CAR_LENGTH, 0.5, 0.0),
        Vec3::new(-0.0099, 0.0, 0.0),
    );
    let e = model.example_count();
    assert!(w.chunks(e).all(|row| row[0] == 1.0));
}
