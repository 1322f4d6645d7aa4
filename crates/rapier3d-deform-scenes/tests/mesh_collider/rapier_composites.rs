//! Contract: with `DeformDispatcher` first in Rapier's narrow phase, dynamic bodies whose colliders are a parry `TriMesh`, a `Compound` or a `SphereProxyShape` rest on a kinematic skinned `DeformableMeshShape` re-posed every step, and a dynamic skinned `DeformableMeshShape` rests on a `HeightField` (internal edges fixed), a `TriMesh` ground, a half-space and the skinned mesh (drift ≤ 1 mm over 5 s; on a plain height field it creeps exactly as parry's own `Compound` of the same triangles); in steady contact almost every solver contact keeps its warm-start impulse (measured per scene); a mixed rain of these bodies gives identical results for 1 and 2 threads (with `parallel`).

use crate::common;

use rapier3d::geometry::NEW_CONTACT_BIT;
use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d::parry::shape::PackedFeatureId;
use rapier3d::parry::shape::{Cuboid, HeightFieldFlags, Shape};
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::{DeformableMeshShape, SphereProxyShape};

const SURFACE_Y: f32 = 0.2;

/// The skinned grid lifted to `SURFACE_Y`, its second bone stretching it along x: the surface
/// stays the plane y = `SURFACE_Y` while its vertices move.
fn grid_pose(time: f32) -> Vec<Affine> {
    let stretch = 1.2 + 0.1 * (2.0 * time).sin();
    vec![
        Affine::new(Mat3::IDENTITY, Vec3::new(0.0, SURFACE_Y, 0.0)),
        Affine::new(
            Mat3::from_diagonal(Vec3::new(stretch, 1.0, 1.0)),
            Vec3::new(0.0, SURFACE_Y, 0.0),
        ),
    ]
}

/// Half-height of [`square_tube`]'s cross-section.
const HALF: f32 = std::f32::consts::FRAC_1_SQRT_2 * 0.3;

/// A closed tube 0.8 long with a square cross-section (half-height [`HALF`], a face down),
/// skinned to two bones blended by height (the bottom face follows the first bone only).
fn square_tube() -> std::sync::Arc<BnTree> {
    let base = common::tube(0.8, 4, 4);
    let rot = Quat::from_rotation_x(std::f32::consts::FRAC_PI_4);
    let positions: Vec<Vec3> = base
        .positions()
        .iter()
        .map(|p| {
            let q = rot * Vec3::new(0.0, p.y, p.z) * 0.3;
            Vec3::new(p.x - 0.4, q.y, q.z)
        })
        .collect();
    let mesh = TriangleMesh::new(positions.clone(), base.triangles().to_vec()).unwrap();
    let rows: Vec<Vec<(u32, f32)>> = positions
        .iter()
        .map(|p| {
            let w1 = ((p.y + HALF) / (2.0 * HALF)).clamp(0.0, 1.0);
            vec![(0, 1.0 - w1), (1, w1)]
        })
        .collect();
    let weights = rapier3d_deform::governor::ConvexWeights::from_rows(rows, 2).unwrap();
    std::sync::Arc::new(BnTree::build(&mesh, &positions, &weights).unwrap())
}

/// The second bone scales the tube's height about its bottom face: the bottom stays put while
/// the top breathes (±5 %).
fn tube_pose(time: f32) -> Vec<Affine> {
    let s = 1.0 + 0.05 * (3.0 * time).sin();
    let m = Mat3::from_diagonal(Vec3::new(1.0, s, 1.0));
    vec![
        Affine::IDENTITY,
        Affine::new(m, Vec3::new(0.0, -HALF + s * HALF, 0.0)),
    ]
}

fn block_proxy() -> SphereProxyShape {
    let mut centres = Vec::new();
    for x in [-0.2, 0.2] {
        for z in [-0.2, 0.2] {
            centres.push(Vec3::new(x, 0.0, z));
        }
    }
    SphereProxyShape::new(centres, vec![0.15; 4]).unwrap()
}

fn box_trimesh(half: Vec3) -> SharedShape {
    let (v, i) = Cuboid::new(half).to_trimesh();
    SharedShape::trimesh(v, i).unwrap()
}

/// A flat height field at y = 0 over [-5, 5]² (1 m cells).
fn flat_height_field(flags: HeightFieldFlags) -> SharedShape {
    SharedShape::heightfield_with_flags(
        rapier3d::parry::utils::Array2::new(11, 11, vec![0.0; 121]),
        Vec3::new(10.0, 1.0, 10.0),
        flags,
    )
}

fn flat_trimesh_ground() -> SharedShape {
    box_trimesh(Vec3::new(5.0, 0.5, 5.0))
}

/// Warm-start counts over solver contacts.
#[derive(Clone, Copy, Debug, Default)]
struct WarmStart {
    /// Solver contacts.
    total: usize,
    /// Solver contacts flagged new (`NEW_CONTACT_BIT`: no impulse carried in, including those
    /// whose impulse was zero at the previous step).
    new: usize,
    /// Solver contacts whose contact (same collider pair, manifold key and feature ids) had a
    /// non-zero impulse at the previous step: their warm start should be carried over.
    eligible: usize,
    /// Eligible contacts flagged new: warm starts lost.
    lost: usize,
}

impl WarmStart {
    fn add(&mut self, o: WarmStart) {
        self.total += o.total;
        self.new += o.new;
        self.eligible += o.eligible;
        self.lost += o.lost;
    }
}

type ContactKey = (
    ColliderHandle,
    ColliderHandle,
    u32,
    u32,
    PackedFeatureId,
    PackedFeatureId,
);

/// Remembers the impulses of the previous step's solver contacts.
#[derive(Default)]
struct WarmStartTracker {
    previous: std::collections::HashMap<ContactKey, f32>,
}

impl WarmStartTracker {
    fn count(&mut self, world: &PhysicsWorld, colliders: &[ColliderHandle]) -> WarmStart {
        let mut out = WarmStart::default();
        let mut current = std::collections::HashMap::new();
        for c in colliders {
            for pair in world.narrow_phase.contact_pairs_with(*c) {
                for m in pair.solver_manifolds() {
                    for sc in &m.data.solver_contacts {
                        let point = &m.points[(sc.contact_id[0] & !NEW_CONTACT_BIT) as usize];
                        let key = (
                            pair.collider1,
                            pair.collider2,
                            m.subshape1,
                            m.subshape2,
                            point.fid1,
                            point.fid2,
                        );
                        let new = sc.contact_id[0] & NEW_CONTACT_BIT != 0;
                        out.total += 1;
                        out.new += usize::from(new);
                        if self.previous.get(&key).is_some_and(|i| *i > 0.0) {
                            out.eligible += 1;
                            out.lost += usize::from(new);
                        }
                        let slot = current.entry(key).or_insert(0.0f32);
                        *slot = slot.max(point.data.impulse);
                    }
                }
            }
        }
        self.previous = current;
        out
    }
}

/// Makes a collider shape.
type MakeShape = fn() -> SharedShape;

/// Governors of a deformable collider at a time.
type PoseFn = fn(f32) -> Vec<Affine>;

struct Scene {
    world: PhysicsWorld,
    /// Deformable colliders re-posed every step.
    animated: Vec<(ColliderHandle, PoseFn)>,
    /// Watched dynamic bodies and their colliders.
    bodies: Vec<(RigidBodyHandle, ColliderHandle)>,
    time: f32,
    warm: WarmStartTracker,
}

impl Scene {
    fn new(threads: usize) -> Self {
        let mut world = PhysicsWorld::default();
        #[cfg(feature = "parallel")]
        world.configure_thread_pool(threads).unwrap();
        let _ = threads;
        world.narrow_phase =
            NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
        Self {
            world,
            animated: Vec::new(),
            bodies: Vec::new(),
            time: 0.0,
            warm: WarmStartTracker::default(),
        }
    }

    fn fixed(&mut self, shape: SharedShape, y: f32) -> ColliderHandle {
        let w = &mut self.world;
        let b = w
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, y, 0.0)));
        w.colliders
            .insert_with_parent(ColliderBuilder::new(shape), b, &mut w.bodies)
    }

    fn skinned_grid(&mut self) {
        let options = BnTreeOptions::default();
        let shape =
            DeformableMeshShape::new(common::skinned_grid(16, options), &grid_pose(0.0)).unwrap();
        let w = &mut self.world;
        let b = w
            .bodies
            .insert(RigidBodyBuilder::kinematic_position_based());
        let h = w.colliders.insert_with_parent(
            ColliderBuilder::new(SharedShape::new(shape)),
            b,
            &mut w.bodies,
        );
        self.animated.push((h, grid_pose));
    }

    fn dynamic(&mut self, shape: SharedShape, at: Vec3) -> RigidBodyHandle {
        let w = &mut self.world;
        let b = w
            .bodies
            .insert(RigidBodyBuilder::dynamic().translation(at).can_sleep(false));
        let c = w.colliders.insert_with_parent(
            ColliderBuilder::new(shape).density(500.0),
            b,
            &mut w.bodies,
        );
        self.bodies.push((b, c));
        b
    }

    fn dynamic_tube(&mut self, at: Vec3) -> RigidBodyHandle {
        let shape = DeformableMeshShape::new(square_tube(), &tube_pose(0.0)).unwrap();
        let b = self.dynamic(SharedShape::new(shape), at);
        let c = self.bodies.last().unwrap().1;
        self.animated.push((c, tube_pose));
        b
    }

    /// Re-poses every deformable collider (through `shape_mut`) and steps; returns the
    /// warm-start counts of the watched bodies' solver contacts.
    fn step(&mut self) -> WarmStart {
        self.time += self.world.integration_parameters.dt;
        for (h, pose) in &self.animated {
            self.world.colliders[*h]
                .shape_mut()
                .as_shape_mut::<DeformableMeshShape>()
                .unwrap()
                .set_governors(&pose(self.time))
                .unwrap();
        }
        self.world.step();
        let handles: Vec<ColliderHandle> = self.bodies.iter().map(|b| b.1).collect();
        self.warm.count(&self.world, &handles)
    }

    fn positions(&self) -> Vec<Vec3> {
        self.bodies
            .iter()
            .map(|(b, _)| self.world.bodies[*b].translation())
            .collect()
    }

    /// Settles for 1 s, then steps `seconds` more; returns the largest displacement of any
    /// watched body from its settled position and the warm-start counts of the last second.
    fn rest(&mut self, seconds: f32) -> (f32, WarmStart) {
        let dt = self.world.integration_parameters.dt;
        for _ in 0..(1.0 / dt).round() as usize {
            self.step();
        }
        let settled = self.positions();
        let steps = (seconds / dt).round() as usize;
        let last_second = (1.0 / dt).round() as usize;
        let (mut drift, mut warm) = (0.0f32, WarmStart::default());
        for k in 0..steps {
            let w = self.step();
            if k + last_second >= steps {
                warm.add(w);
            }
            for (p, q) in self.positions().iter().zip(&settled) {
                drift = drift.max((*p - *q).length());
            }
        }
        (drift, warm)
    }
}

/// Runs the scene `build` makes twice: with Rapier's default contact clustering (the drift and
/// the fraction of new solver contacts users get), and without clustering, where the solver sees
/// the dispatcher's manifolds and the data they carry: there, no contact that had an impulse at
/// the previous step may come in without it. (Clustered points carry the sub-shape ids of their
/// cluster's first manifold, so a per-contact count is only exact without clustering; Rapier
/// moves clustered warm starts by position itself.) Checks the resting height (`y`) in both
/// runs and returns the drifts (clustered, unclustered); unclustered, the solver gets every
/// manifold's points, and triangle–triangle face contacts creep more (printed, not asserted).
fn check_rest(name: &str, build: &dyn Fn(&mut Scene), y: f32) -> (f32, f32) {
    let mut drifts = [0.0; 2];
    for (k, clustering) in [true, false].into_iter().enumerate() {
        let mut scene = Scene::new(1);
        scene.world.integration_parameters.contact_clustering = clustering;
        build(&mut scene);
        let (drift, warm) = scene.rest(5.0);
        let at = scene.positions()[0].y;
        println!(
            "{name} (clustering {clustering}): y {at:.4}, drift {drift:.2e} m, last second {warm:?}"
        );
        assert!((at - y).abs() < 0.01, "{name}: y {at} vs {y}");
        assert!(warm.total > 0, "{name}: no contact");
        if !clustering {
            assert!(warm.eligible * 4 >= warm.total, "{name}: {warm:?}");
            assert_eq!(warm.lost, 0, "{name}: warm starts lost: {warm:?}");
        }
        drifts[k] = drift;
    }
    (drifts[0], drifts[1])
}

#[test]
fn bodies_rest_on_a_skinned_mesh() {
    let cases: [(&str, MakeShape, f32); 3] = [
        (
            "trimesh box",
            || box_trimesh(Vec3::new(0.3, 0.2, 0.25)),
            0.2,
        ),
        (
            "compound",
            || {
                SharedShape::compound(vec![
                    (
                        Pose::from_translation(Vec3::new(-0.2, 0.0, 0.0)),
                        SharedShape::cuboid(0.15, 0.1, 0.2),
                    ),
                    (
                        Pose::from_translation(Vec3::new(0.2, 0.05, 0.0)),
                        SharedShape::cuboid(0.15, 0.15, 0.2),
                    ),
                ])
            },
            0.1,
        ),
        ("sphere proxy", || SharedShape::new(block_proxy()), 0.15),
    ];
    for (name, shape, bottom) in cases {
        let build = |scene: &mut Scene| {
            scene.skinned_grid();
            scene.dynamic(shape(), Vec3::new(0.3, SURFACE_Y + bottom + 0.01, -0.2));
        };
        let (drift, _) = check_rest(name, &build, SURFACE_Y + bottom);
        assert!(drift <= 1e-3, "{name}: drift {drift} m");
    }
}

#[test]
fn a_skinned_body_rests_on_height_field_trimesh_and_half_space() {
    let grounds: [(&str, MakeShape, f32); 3] = [
        (
            "height field",
            || flat_height_field(HeightFieldFlags::FIX_INTERNAL_EDGES),
            0.0,
        ),
        ("trimesh", flat_trimesh_ground, -0.5),
        ("half-space", || SharedShape::halfspace(Vec3::Y), 0.0),
    ];
    for (name, ground, y) in grounds {
        let build = |scene: &mut Scene| {
            scene.fixed(ground(), y);
            scene.dynamic_tube(Vec3::new(0.1, HALF + 0.01, 0.2));
        };
        let (drift, _) = check_rest(name, &build, HALF);
        assert!(drift <= 1e-3, "{name}: drift {drift} m");
    }
}

/// The drift over 5 s of parry's `TriMesh` of the rest tube on a `TriMesh` of the rest grid,
/// both flagged `SHAPE` every step through `set_shape` (what the skinned pair goes through).
fn parry_trimeshes_drift() -> f32 {
    let grid = DeformableMeshShape::new(
        common::skinned_grid(16, BnTreeOptions::default()),
        &grid_pose(0.0),
    )
    .unwrap();
    let tube = DeformableMeshShape::new(square_tube(), &tube_pose(0.0)).unwrap();
    let trimesh = |m: &DeformableMeshShape| {
        SharedShape::trimesh(m.deformed_vertices(), m.tree().mesh().triangles().to_vec()).unwrap()
    };
    let (grid_shape, tube_shape) = (trimesh(&grid), trimesh(&tube));
    let mut scene = Scene::new(1);
    let g = scene.fixed(grid_shape.clone(), 0.0);
    let w = &mut scene.world;
    let b = w.bodies.insert(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(0.1, SURFACE_Y + HALF + 0.01, 0.2))
            .can_sleep(false),
    );
    let c = w.colliders.insert_with_parent(
        ColliderBuilder::new(tube_shape.clone()).mass_properties(tube.mass_properties(500.0)),
        b,
        &mut w.bodies,
    );
    let dt = scene.world.integration_parameters.dt;
    let settle = (1.0 / dt).round() as usize;
    let (mut settled, mut drift) = (Vec3::ZERO, 0.0f32);
    for k in 1..=(6.0 / dt).round() as usize {
        scene.world.colliders[c].set_shape(tube_shape.clone());
        scene.world.colliders[g].set_shape(grid_shape.clone());
        scene.world.step();
        let p = scene.world.bodies[b].translation();
        if k == settle {
            settled = p;
        } else if k > settle {
            drift = drift.max((p - settled).length());
        }
    }
    drift
}

/// Mesh on mesh: the skinned tube on the skinned grid, both re-posed every step and refit
/// lazily by the dual traversal. Triangle–triangle contacts over the grid's internal edges
/// creep under Rapier's contact clustering; parry's own `TriMesh` pair (rest shapes, re-flagged
/// every step) creeps as much when the poses do not change, and the breathing, stretching pair
/// stays within twice that.
#[test]
fn a_skinned_body_rests_on_a_skinned_mesh_like_parry_trimeshes() {
    let moving = |scene: &mut Scene| {
        scene.skinned_grid();
        scene.dynamic_tube(Vec3::new(0.1, SURFACE_Y + HALF + 0.01, 0.2));
    };
    let still = |scene: &mut Scene| {
        moving(scene);
        scene.animated[0].1 = |_| grid_pose(0.0);
        scene.animated[1].1 = |_| tube_pose(0.0);
    };
    let (ours_moving, _) = check_rest(
        "skinned tube on the skinned grid",
        &moving,
        SURFACE_Y + HALF,
    );
    let (ours_still, _) = check_rest(
        "skinned tube on the skinned grid, still",
        &still,
        SURFACE_Y + HALF,
    );
    let parry = parry_trimeshes_drift();
    println!(
        "drift over 5 s: ours {ours_still:.2e} m still, {ours_moving:.2e} m moving; parry TriMesh pair {parry:.2e} m"
    );
    assert!(ours_still <= 1.3 * parry + 1e-4, "{ours_still} vs {parry}");
    assert!(
        ours_moving <= 2.0 * parry + 1e-3,
        "{ours_moving} vs {parry}"
    );
}

/// On a height field without internal-edge fixing, triangle–triangle contacts under per-step
/// shape updates creep (measured: ~6 mm over 5 s). The same triangles as a parry `Compound`
/// (parry's own height-field path, same mass, the same per-step `SHAPE` change through
/// `set_shape`) creep as much: the drift is the contact model's, not the dispatcher's.
#[test]
fn on_a_plain_height_field_the_mesh_drifts_no_more_than_parry_compound() {
    let hf = || flat_height_field(HeightFieldFlags::empty());
    let mut ours = Scene::new(1);
    ours.fixed(hf(), 0.0);
    ours.dynamic_tube(Vec3::new(0.1, HALF + 0.01, 0.2));
    let (drift_ours, _) = ours.rest(5.0);

    let tube = DeformableMeshShape::new(square_tube(), &tube_pose(0.0)).unwrap();
    let verts = tube.deformed_vertices();
    let compound = SharedShape::compound(
        tube.tree()
            .mesh()
            .triangles()
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|v| verts[v as usize]);
                (Pose::IDENTITY, SharedShape::triangle(a, b, c))
            })
            .collect(),
    );
    let mut parry = Scene::new(1);
    parry.fixed(hf(), 0.0);
    let w = &mut parry.world;
    let b = w.bodies.insert(
        RigidBodyBuilder::dynamic()
            .translation(Vec3::new(0.1, HALF + 0.01, 0.2))
            .can_sleep(false),
    );
    let c = w.colliders.insert_with_parent(
        ColliderBuilder::new(compound.clone()).mass_properties(tube.mass_properties(500.0)),
        b,
        &mut w.bodies,
    );
    parry.bodies.push((b, c));
    let dt = parry.world.integration_parameters.dt;
    let mut settled = Vec3::ZERO;
    let mut drift_parry = 0.0f32;
    for k in 0..(6.0 / dt).round() as usize {
        parry.world.colliders[c].set_shape(compound.clone());
        parry.world.step();
        let p = parry.world.bodies[b].translation();
        if k + 1 == (1.0 / dt).round() as usize {
            settled = p;
        } else if k + 1 > (1.0 / dt).round() as usize {
            drift_parry = drift_parry.max((p - settled).length());
        }
    }
    println!("drift over 5 s: ours {drift_ours:.2e} m, parry compound {drift_parry:.2e} m");
    assert!(
        drift_ours <= 1.1 * drift_parry + 1e-4,
        "{drift_ours} vs {drift_parry}"
    );
}

/// A mixed rain on a bending skinned grid next to a height field; returns the final positions.
fn rain(threads: usize) -> Vec<Vec3> {
    let mut scene = Scene::new(threads);
    scene.skinned_grid();
    scene.animated[0].1 = |t| {
        let r = Mat3::from_rotation_z(0.3 * (1.5 * t).sin());
        vec![
            Affine::new(Mat3::IDENTITY, Vec3::new(0.0, SURFACE_Y, 0.0)),
            Affine::new(r, Vec3::new(0.0, SURFACE_Y, 0.0)),
        ]
    };
    scene.fixed(
        flat_height_field(HeightFieldFlags::FIX_INTERNAL_EDGES),
        -1.0,
    );
    for k in 0..24 {
        let (i, j) = (k % 6, k / 6);
        let at = Vec3::new(
            -1.5 + 0.6 * i as f32,
            1.0 + 0.1 * (k % 5) as f32,
            -1.2 + 0.8 * j as f32,
        );
        match k % 4 {
            0 => scene.dynamic(box_trimesh(Vec3::splat(0.12)), at),
            1 => scene.dynamic(SharedShape::new(block_proxy()), at),
            2 => scene.dynamic(
                SharedShape::compound(vec![
                    (Pose::IDENTITY, SharedShape::ball(0.1)),
                    (
                        Pose::from_translation(Vec3::new(0.15, 0.0, 0.0)),
                        SharedShape::cuboid(0.1, 0.08, 0.08),
                    ),
                ]),
                at,
            ),
            _ => scene.dynamic_tube(at),
        };
    }
    for _ in 0..60 {
        scene.step();
    }
    scene.positions()
}

#[test]
fn rain_is_deterministic_across_thread_counts() {
    let a = rain(1);
    let b = rain(2);
    assert_eq!(a, b, "results depend on the thread count");
    // Something landed on the grid (nothing fell through it).
    assert!(a.iter().all(|p| p.is_finite()));
    let on_grid = a
        .iter()
        .filter(|p| p.x.abs() < 1.8 && p.z.abs() < 1.8 && p.y > -0.4)
        .count();
    assert!(on_grid >= 12, "{a:?}");
}
