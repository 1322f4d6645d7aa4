//! Spot as a Rapier 0.36 soft body squashed under a plate, stepped with and without Rapier's self contacts, its embedded surface recorded as point governors (the tet particles) for the crate's self-collision routes.
//!
//! The soft body fills Spot with tetrahedra (`SoftBodyBuilder::volumetric`) and embeds the Spot
//! surface in them as its collision skin (`skin` + `skin_collision`), so both worlds collide with
//! exactly the mesh the crate queries. Each skin vertex is a fixed barycentric combination of the
//! four particles of its cell (`SoftCollisionMesh::vertex_anchors`): the particles are the crate's
//! point governors and the barycentric coordinates its convex weights, the reduced deformation of
//! an embedded mesh.
//!
//! Two worlds step in alternation: `self_contacts(true)` and `self_contacts(false)`, with the same
//! body, ground and a kinematic plate that presses the body to a third of its height and lifts
//! again. Rapier runs its self-contact passes (vertex–surface, edge–edge, self-overlap regions) only
//! in the first, so the difference of their step times is what those passes cost; once the
//! surface folds onto itself the two bodies' motions differ, so the difference also holds the
//! solver work of the self contacts and the other consequences of the diverging motion.

use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::rapier3d::dynamics::{
    RigidBodyBuilder, RigidBodyHandle, SoftBody, SoftBodyBuilder, SoftCollisionMesh,
};
use rapier3d_deform::rapier3d::geometry::ColliderBuilder;
use rapier3d_deform::rapier3d::math::Vector;
use rapier3d_deform::rapier3d::pipeline::PhysicsWorld;
use std::time::Instant;

/// The contact thickness of the body's particles and skin (m). The builder's default, half the
/// mean cell edge, is centimetres at these cell sizes: Spot's ears, horns and legs would start in
/// contact with each other.
const PARTICLE_RADIUS: f32 = 0.01;

/// What the two soft-body worlds produced.
pub struct SoftSpotRun {
    /// The embedded surface (Spot's triangles over its skin vertices).
    pub mesh: TriangleMesh,
    /// Skin vertices at the start (the crate's rest positions).
    pub rest: Vec<Vec3>,
    /// Skin vertex → its cell's particles (barycentric weights, clamped to be convex).
    pub weights: ConvexWeights,
    /// Particles at the start (the point governors' rest points).
    pub particle_rest: Vec<Vec3>,
    /// Per recorded frame of the self-contact world: one `Affine::constant` per particle.
    pub frames: Vec<Vec<Affine>>,
    /// Per step: ms with Rapier's self contacts, ms without.
    pub step_ms: Vec<(f64, f64)>,
    /// Particles and tetrahedral cells of the body.
    pub particles: usize,
    /// Skin vertices whose barycentric weights had a negative entry (clamped and renormalised:
    /// the crate's surface then differs from Rapier's by at most the clamped amount).
    pub clamped_vertices: usize,
    /// Largest distance between a skin vertex and its convex re-embedding, over every frame.
    pub max_embedding_error: f32,
}

/// The plate's underside at step `k` of `steps`: above the body's cells (`top`) while it
/// settles, pressing down to a third of the surface's `height`, holding, and lifting back.
fn plate_height(k: usize, steps: usize, top: f32, height: f32) -> f32 {
    let t = k as f32 / steps as f32;
    let low = height / 3.0;
    let s = if t < 0.15 {
        0.0
    } else if t < 0.55 {
        (t - 0.15) / 0.4
    } else if t < 0.7 {
        1.0
    } else {
        1.0 - (t - 0.7) / 0.3
    };
    top + (low - top) * s.clamp(0.0, 1.0)
}

/// One world: ground, the soft Spot, the kinematic plate (returned with the height of the
/// body's highest particle, where the plate starts).
fn world(
    rest: &[Vec3],
    triangles: &[[u32; 3]],
    cell: f32,
    self_contacts: bool,
) -> (PhysicsWorld, RigidBodyHandle, f32) {
    let mut world = PhysicsWorld::new();
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, -0.5, 0.0)),
        ColliderBuilder::cuboid(10.0, 0.5, 10.0),
    );
    let builder = SoftBodyBuilder::volumetric(rest, triangles, cell)
        .unwrap_or_else(|| panic!("Spot could not be filled with cells of {cell} m"));
    // The cells cover the surface with a margin: the body's lowest particle goes on the ground.
    let (lo, hi) = builder
        .particle_positions()
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    let lift = Vector::new(0.0, 2.0 * PARTICLE_RADIUS - lo, 0.0);
    let shifted: Vec<Vec3> = rest.iter().map(|p| *p + lift).collect();
    let builder = builder
        .translated(lift)
        .skin(shifted, triangles.to_vec())
        .skin_collision(true)
        .self_contacts(self_contacts)
        .particle_radius(PARTICLE_RADIUS)
        .mass(20.0);
    world.insert_soft_body(builder);
    let top = hi - lo + 2.0 * cell;
    let (plate, _) = world.insert(
        RigidBodyBuilder::kinematic_position_based().translation(Vector::new(0.0, top + 0.05, 0.0)),
        ColliderBuilder::cuboid(4.0, 0.05, 4.0),
    );
    (world, plate, top)
}

/// The world's soft body and its collision skin (the embedded Spot surface).
fn body_and_skin(world: &PhysicsWorld) -> (&SoftBody, &SoftCollisionMesh) {
    let body = world
        .soft_bodies
        .iter()
        .next()
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no soft body"));
    let skin = body
        .meshes()
        .find(|m| m.is_skinned() && m.collision_enabled())
        .unwrap_or_else(|| panic!("the soft body has no collision skin"));
    (body, skin)
}

/// Skin vertex `v` as the crate poses it: its convex weights over the particles `points`.
fn embedded(weights: &ConvexWeights, points: &[Vec3], v: usize) -> Vec3 {
    weights
        .iter_row(v)
        .fold(Vec3::ZERO, |q, (g, w)| q + w * points[g as usize])
}

/// Simulates `steps` steps of both worlds (alternating which steps first), recording every
/// `record_every`-th frame of the self-contact world. `mesh` is Spot at rest, feet on `y = 0`,
/// `height` tall; `cell` the tetrahedra's size.
pub fn simulate(
    mesh: &TriangleMesh,
    height: f32,
    cell: f32,
    steps: usize,
    record_every: usize,
) -> SoftSpotRun {
    let rest: Vec<Vec3> = mesh.positions().to_vec();
    let triangles = mesh.triangles().to_vec();
    let (mut on, plate_on, top) = world(&rest, &triangles, cell, true);
    let (mut off, plate_off, _) = world(&rest, &triangles, cell, false);

    let (body, skin) = body_and_skin(&on);
    assert_eq!(
        skin.vertex_count(),
        rest.len(),
        "the skin keeps Spot's vertices"
    );
    let particles = body.num_particles();
    let particle_rest: Vec<Vec3> = body.particle_positions().collect();
    let mut clamped_vertices = 0;
    let rows: Vec<Vec<(u32, f32)>> = (0..rest.len())
        .map(|v| {
            let (anchors, weights) = skin.vertex_anchors(body, v);
            let mut row: Vec<(u32, f32)> = anchors
                .iter()
                .zip(weights)
                .filter(|(a, _)| **a != u32::MAX)
                .map(|(&a, w)| (a, w))
                .collect();
            if row.iter().any(|(_, w)| *w < 0.0) {
                clamped_vertices += 1;
                for (_, w) in &mut row {
                    *w = w.max(0.0);
                }
            }
            row.retain(|(_, w)| *w > 0.0);
            row
        })
        .collect();
    let (weights, _) = ConvexWeights::from_rows_renormalised(rows, particles)
        .unwrap_or_else(|e| panic!("the skin's embedding weights: {e}"));
    // The crate's rest surface: the embedding at the start (Spot lifted onto the ground).
    let rest: Vec<Vec3> = (0..rest.len())
        .map(|v| embedded(&weights, &particle_rest, v))
        .collect();
    let crate_mesh = TriangleMesh::new(rest.clone(), triangles.clone())
        .unwrap_or_else(|e| panic!("Spot's mesh: {e}"));

    let mut frames = Vec::new();
    let mut step_ms = Vec::with_capacity(steps);
    let mut max_embedding_error = 0f32;
    for k in 0..steps {
        let y = plate_height(k + 1, steps, top, height) + 0.05;
        for (w, plate) in [(&mut on, plate_on), (&mut off, plate_off)] {
            if let Some(rb) = w.bodies.get_mut(plate) {
                rb.set_next_kinematic_translation(Vector::new(0.0, y, 0.0));
            }
        }
        let time = |w: &mut PhysicsWorld| {
            let t = Instant::now();
            w.step();
            t.elapsed().as_secs_f64() * 1e3
        };
        let (ms_on, ms_off) = if k % 2 == 0 {
            let a = time(&mut on);
            (a, time(&mut off))
        } else {
            let b = time(&mut off);
            (time(&mut on), b)
        };
        step_ms.push((ms_on, ms_off));
        if k % record_every == 0 {
            let (body, skin) = body_and_skin(&on);
            let points: Vec<Vec3> = body.particle_positions().collect();
            for (v, p) in skin.vertex_positions(body).enumerate() {
                max_embedding_error =
                    max_embedding_error.max((p - embedded(&weights, &points, v)).length());
            }
            frames.push(points.into_iter().map(Affine::constant).collect());
        }
    }
    SoftSpotRun {
        mesh: crate_mesh,
        rest,
        weights,
        particle_rest,
        frames,
        step_ms,
        particles,
        clamped_vertices,
        max_embedding_error,
    }
}
