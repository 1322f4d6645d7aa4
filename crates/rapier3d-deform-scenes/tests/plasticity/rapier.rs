//! Contract: the pipeline reads the impulses Rapier applied with the right sign and frame: a box that lands on its bottom dents at the bottom, the same box landing upside down dents at its (local) top, a box at rest does not dent, the impulses read back equal the box's weight, and restitution drops while a dent forms, then recovers.

use std::sync::Arc;

use rapier3d_deform::crash::{
    DeformableCollider, DeformableDesc, PipelineParams, PlasticAsset, PlasticPipeline,
    read_solved_contacts,
};
use rapier3d_deform::math::{Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::PlasticityParams;
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d_deform::rapier3d::prelude::*;
use rapier3d_deform_scenes::crash::insert_ground;

/// A 1.2 × 0.6 × 0.8 box (y from 0 to 0.6), each face a grid, closed and outward-oriented.
fn box_mesh(n: u32) -> TriangleMesh {
    let half = Vec3::new(0.6, 0.3, 0.4);
    let centre = Vec3::new(0.0, 0.3, 0.0);
    let mut positions: Vec<Vec3> = Vec::new();
    let mut triangles = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut vertex = |p: Vec3, positions: &mut Vec<Vec3>| -> u32 {
        let key = (p * 1e4).round().as_ivec3().to_array();
        *index.entry(key).or_insert_with(|| {
            positions.push(p);
            positions.len() as u32 - 1
        })
    };
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let mut grid = vec![0u32; ((n + 1) * (n + 1)) as usize];
            for j in 0..=n {
                for i in 0..=n {
                    let mut p = Vec3::ZERO;
                    p[axis] = sign;
                    p[u] = -1.0 + 2.0 * i as f32 / n as f32;
                    p[v] = -1.0 + 2.0 * j as f32 / n as f32;
                    grid[(j * (n + 1) + i) as usize] = vertex(centre + p * half, &mut positions);
                }
            }
            for j in 0..n {
                for i in 0..n {
                    let a = grid[(j * (n + 1) + i) as usize];
                    let b = grid[(j * (n + 1) + i + 1) as usize];
                    let c = grid[((j + 1) * (n + 1) + i + 1) as usize];
                    let d = grid[((j + 1) * (n + 1) + i) as usize];
                    if sign > 0.0 {
                        triangles.push([a, b, c]);
                        triangles.push([a, c, d]);
                    } else {
                        triangles.push([a, c, b]);
                        triangles.push([a, d, c]);
                    }
                }
            }
        }
    }
    TriangleMesh::new(positions, triangles).unwrap()
}

/// Rest, bottom pushed in (up), top pushed in (down).
fn box_asset() -> PlasticAsset {
    let mesh = box_mesh(8);
    let rest = mesh.positions().to_vec();
    let bottom = rest
        .iter()
        .map(|p| *p + Vec3::Y * 0.2 * (1.0 - p.y / 0.6).powi(2))
        .collect();
    let top = rest
        .iter()
        .map(|p| *p - Vec3::Y * 0.2 * (p.y / 0.6).powi(2))
        .collect();
    let examples = vec![rest, bottom, top];
    let options = ProxyOptions {
        sdf: SdfOptions {
            resolution: 24,
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius: 0.08,
            max_radius: 0.25,
            max_spheres: 200,
        },
    };
    let (proxy, _) = SphereProxy::build(&mesh, &examples, &options).unwrap();
    let params = PlasticityParams {
        yield_displacement: 2e-3,
        impulse_scale: 40.0,
        kernel_radius: 0.5,
        rate: 0.3,
        ..PlasticityParams::jones_car()
    };
    PlasticAsset::new(mesh, &examples, proxy, params).unwrap()
}

struct Drop {
    world: PhysicsWorld,
    pipeline: PlasticPipeline,
    body: RigidBodyHandle,
}

fn drop_box(asset: &Arc<PlasticAsset>, rotation: Quat, height: f32, speed: f32) -> Drop {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = 1.0 / 240.0;
    world.narrow_phase =
        NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
    insert_ground(&mut world);
    // Rotating about the box's centre (0, 0.3, 0).
    let centre = Vec3::new(0.0, 0.3, 0.0);
    let position = Vec3::new(0.0, height, 0.0) + centre - rotation * centre;
    let body = world.insert_body(
        RigidBodyBuilder::dynamic()
            .pose(Pose::from_parts(position, rotation))
            .linvel(Vec3::new(0.0, -speed, 0.0)),
    );
    let mut pipeline = PlasticPipeline::new(PipelineParams::default()).unwrap();
    pipeline
        .insert(
            &mut world.bodies,
            &mut world.colliders,
            body,
            DeformableDesc {
                asset: asset.clone(),
                collider: DeformableCollider::SphereProxy,
                density: 500.0,
            },
            |b| b.restitution(0.5),
        )
        .unwrap();
    Drop {
        world,
        pipeline,
        body,
    }
}

impl Drop {
    /// Steps `n` times; returns the dent events' world points.
    fn run(&mut self, n: usize) -> Vec<Vec3> {
        let mut points = Vec::new();
        for _ in 0..n {
            self.world.step();
            let events = self.pipeline.update(&mut self.world).unwrap();
            points.extend(events.iter().map(|e| e.point));
        }
        points
    }

    /// Largest weight of example `e` over the cage (after catching everything up).
    fn max_weight(&mut self, e: usize) -> f32 {
        let h = rapier3d_deform::crash::DeformableHandle(0);
        let state = self.pipeline.state_mut(h).unwrap();
        state.catch_up_all();
        let n = state.example_count();
        state
            .all_weights()
            .chunks(n)
            .map(|row| row[e])
            .fold(0.0, f32::max)
    }
}

#[test]
fn landing_on_the_bottom_dents_the_bottom() {
    let asset = Arc::new(box_asset());
    let mut drop = drop_box(&asset, Quat::IDENTITY, 0.05, 6.0);
    let points = drop.run(60);
    assert!(!points.is_empty(), "no dent");
    // Every dent point is on the bottom face (world y ≈ 0).
    assert!(points.iter().all(|p| p.y < 0.15), "{points:?}");
    assert!(
        drop.max_weight(1) > 0.05,
        "bottom example weight {}",
        drop.max_weight(1)
    );
    assert_eq!(drop.max_weight(2), 0.0, "the top must not dent");
    // The blended cage moved up at the bottom, not at the top.
    let mut cage = Vec::new();
    drop.pipeline
        .cage_positions(rapier3d_deform::crash::DeformableHandle(0), &mut cage)
        .unwrap();
    let rest = asset.cage().positions();
    let lifted = cage
        .iter()
        .zip(rest)
        .filter(|(_, q)| q.y < 1e-3)
        .map(|(p, q)| p.y - q.y)
        .fold(0.0, f32::max);
    let lowered = cage
        .iter()
        .zip(rest)
        .filter(|(_, q)| q.y > 0.6 - 1e-3)
        .map(|(p, q)| q.y - p.y)
        .fold(0.0, f32::max);
    assert!(
        lifted > 0.01 && lowered == 0.0,
        "lifted {lifted}, lowered {lowered}"
    );
}

#[test]
fn landing_upside_down_dents_the_local_top() {
    let asset = Arc::new(box_asset());
    let mut drop = drop_box(
        &asset,
        Quat::from_rotation_x(std::f32::consts::PI),
        0.05,
        6.0,
    );
    let points = drop.run(60);
    assert!(!points.is_empty(), "no dent");
    assert!(points.iter().all(|p| p.y < 0.15), "{points:?}");
    assert!(
        drop.max_weight(2) > 0.05,
        "top example weight {}",
        drop.max_weight(2)
    );
    assert_eq!(drop.max_weight(1), 0.0, "the local bottom must not dent");
}

#[test]
fn resting_does_not_dent_and_impulses_carry_the_weight() {
    let asset = Arc::new(box_asset());
    let mut drop = drop_box(&asset, Quat::IDENTITY, 0.0, 0.0);
    let points = drop.run(120);
    assert!(points.is_empty(), "a resting box dented: {points:?}");
    assert_eq!(drop.max_weight(1), 0.0);
    // The impulses read back are the support of the weight: Σ j = m g dt, pointing up.
    let h = rapier3d_deform::crash::DeformableHandle(0);
    let (rb, co) = drop.pipeline.handles(h).unwrap();
    let mut contacts = Vec::new();
    read_solved_contacts(
        &drop.world.narrow_phase,
        co,
        &drop.world.colliders[co],
        &mut contacts,
    );
    let total: Vec3 = contacts.iter().map(|c| c.impulse).sum();
    let body = &drop.world.bodies[rb];
    let expected = body.mass() * 9.81 * drop.world.integration_parameters.dt;
    assert!(
        (total.y - expected).abs() < 0.05 * expected,
        "{total} vs {expected}"
    );
    assert!(total.x.abs() < 0.05 * expected && total.z.abs() < 0.05 * expected);
    assert!(drop.world.bodies[drop.body].translation().y.abs() < 0.01);
}

#[test]
fn restitution_drops_while_denting_and_recovers() {
    let asset = Arc::new(box_asset());
    let mut drop = drop_box(&asset, Quat::IDENTITY, 0.05, 6.0);
    let h = rapier3d_deform::crash::DeformableHandle(0);
    let e0 = drop.pipeline.restitution(h).unwrap();
    let (_, co) = drop.pipeline.handles(h).unwrap();
    let mut lowest = e0;
    for _ in 0..40 {
        drop.run(1);
        let e = drop.pipeline.restitution(h).unwrap();
        // The collider carries the coefficient the pipeline computed.
        assert_eq!(drop.world.colliders[co].restitution(), e);
        lowest = lowest.min(e);
    }
    assert!(
        lowest < 0.9 * e0,
        "restitution never dropped below {lowest} (e0 = {e0})"
    );
    drop.run(600);
    assert!(
        (drop.pipeline.restitution(h).unwrap() - e0).abs() < 1e-3,
        "restitution did not recover"
    );
}
