//! Contract: `DeformDebugRenderer` draws every collider whose shape is one of the crate's and no other: a posed `DeformableMeshShape` (non-identity body and collider poses) as its wireframe with each mesh edge exactly once and every endpoint a posed vertex on the posed surface (parry's `TriMesh` of vertices deformed here), or only the edges of the leaves refit since the pose, and its node boxes (the root box holds every posed vertex); a `SphereProxyShape` as three circles per sphere with every endpoint on its sphere in world frame; in Rapier's collider colours, honouring the backend's filter; Rapier's own contact lines for a ball touching the mesh end on the posed surface and on the ball; given triangle pairs are highlighted edge by edge once; a tracked mesh's contact velocities are arrows from its posed surface along `SurfaceVelocityHooks`' surface velocity; bad pair indices, an untracked collider or a collider of another shape are typed errors.

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::{tube, tube_weights};
use rapier3d::parry::query::{DefaultQueryDispatcher, PointQuery, QueryDispatcher};
use rapier3d::parry::shape::TriMesh;
use rapier3d::prelude::*;
use rapier3d_deform::DeformError;
use rapier3d_deform::bn_tree::{BnTree, BnTreeOptions};
use rapier3d_deform::character::SurfaceVelocityHooks;
use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer, MeshWireframe};
use rapier3d_deform::governor::Affine;
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::{DeformableMeshShape, SphereProxyShape};

const TOL: f32 = 1e-4;
const LENGTH: f32 = 6.0;
const BONES: usize = 6;

/// One recorded line: the collider it was drawn for (`None` for other objects), its ends and
/// colour.
type Line = (Option<ColliderHandle>, Vec3, Vec3, DebugColor);

/// A backend that records every line, optionally filtering one collider out.
#[derive(Default)]
struct Recorder {
    lines: Vec<Line>,
    reject: Option<ColliderHandle>,
}

impl DebugRenderBackend for Recorder {
    fn filter_object(&self, object: DebugRenderObject) -> bool {
        !matches!(object, DebugRenderObject::Collider(h, _) if Some(h) == self.reject)
    }

    fn draw_line(&mut self, object: DebugRenderObject, a: Vector, b: Vector, color: DebugColor) {
        let handle = match object {
            DebugRenderObject::Collider(h, _) => Some(h),
            _ => None,
        };
        self.lines.push((handle, a, b, color));
    }
}

impl Recorder {
    fn of(&self, h: ColliderHandle) -> Vec<Line> {
        self.lines
            .iter()
            .copied()
            .filter(|l| l.0 == Some(h))
            .collect()
    }
}

/// A bone chain along x bent at every joint by `angle` about a tilted axis.
fn bent(angle: f32) -> Vec<Affine> {
    let axis = Vec3::new(0.2, 0.4, 1.0).normalize();
    let mut acc = Affine::IDENTITY;
    (0..BONES)
        .map(|b| {
            let joint = Vec3::new(LENGTH * b as f32 / BONES as f32, 0.0, 0.0);
            let rot = Mat3::from_quat(Quat::from_axis_angle(axis, angle));
            acc = acc.compose(&Affine::new(rot, joint - rot * joint));
            acc
        })
        .collect()
}

struct Scene {
    world: PhysicsWorld,
    mesh: ColliderHandle,
    proxy: ColliderHandle,
    /// A ball on the mesh's body and a cuboid on the proxy's: Rapier draws them.
    ball: ColliderHandle,
    cuboid: ColliderHandle,
    parentless: ColliderHandle,
}

fn scene() -> Scene {
    let mesh = tube(LENGTH, 12, 10);
    let weights = tube_weights(&mesh, BONES, LENGTH, 3);
    let options = BnTreeOptions {
        leaf_triangles: 4,
        governor_cost: 0.0,
    };
    let tree = Arc::new(BnTree::build_with(&mesh, mesh.positions(), &weights, options).unwrap());
    let mut world = PhysicsWorld::default();
    let kinematic = world.bodies.insert(
        RigidBodyBuilder::kinematic_position_based()
            .pose(Pose::new(
                Vec3::new(1.0, 2.0, -3.0),
                Vec3::new(0.3, -0.5, 0.8),
            ))
            .build(),
    );
    let shape = DeformableMeshShape::new(tree, &bent(0.25)).unwrap();
    let mesh = world.colliders.insert_with_parent(
        ColliderBuilder::new(SharedShape::new(shape))
            .position(Pose::new(
                Vec3::new(0.5, -0.2, 0.1),
                Vec3::new(-0.4, 0.2, 0.1),
            ))
            .build(),
        kinematic,
        &mut world.bodies,
    );
    let ball = world.colliders.insert_with_parent(
        ColliderBuilder::ball(0.5).build(),
        kinematic,
        &mut world.bodies,
    );
    let dynamic = world.bodies.insert(
        RigidBodyBuilder::dynamic()
            .pose(Pose::new(
                Vec3::new(-4.0, 1.0, 2.0),
                Vec3::new(0.7, 0.1, -0.6),
            ))
            .build(),
    );
    let proxy = SphereProxyShape::new(
        vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.8, 0.3, -0.2),
            Vec3::new(-0.5, 0.9, 0.4),
        ],
        vec![0.6, 0.35, 0.5],
    )
    .unwrap();
    let proxy = world.colliders.insert_with_parent(
        ColliderBuilder::new(SharedShape::new(proxy))
            .position(Pose::new(
                Vec3::new(0.0, 0.3, 0.0),
                Vec3::new(0.0, 0.0, 0.9),
            ))
            .build(),
        dynamic,
        &mut world.bodies,
    );
    let cuboid = world.colliders.insert_with_parent(
        ColliderBuilder::cuboid(0.2, 0.3, 0.4).build(),
        dynamic,
        &mut world.bodies,
    );
    let parentless = world.colliders.insert(
        ColliderBuilder::ball(1.0)
            .translation(Vec3::new(10.0, 0.0, 0.0))
            .build(),
    );
    Scene {
        world,
        mesh,
        proxy,
        ball,
        cuboid,
        parentless,
    }
}

fn mesh_shape(world: &PhysicsWorld, h: ColliderHandle) -> &DeformableMeshShape {
    world.colliders[h]
        .shape()
        .as_shape::<DeformableMeshShape>()
        .unwrap()
}

/// The mesh's vertices deformed here (`p = Σ_k w_k (A_k p0 + t_k)`), then posed by the collider.
fn posed_vertices(shape: &DeformableMeshShape, pose: &Pose) -> Vec<Vec3> {
    let tree = shape.tree();
    (0..tree.rest_positions().len())
        .map(|v| {
            let p0 = tree.rest_positions()[v];
            let p = tree.weights().iter_row(v).fold(Vec3::ZERO, |acc, (g, w)| {
                acc + w * shape.governors()[g as usize].transform_point(p0)
            });
            *pose * p
        })
        .collect()
}

/// The mesh's unique edges among `triangles`, as (smaller, larger) vertex pairs.
fn unique_edges(tris: impl Iterator<Item = [u32; 3]>) -> BTreeSet<(u32, u32)> {
    let mut edges = BTreeSet::new();
    for t in tris {
        for k in 0..3 {
            let (i, j) = (t[k], t[(k + 1) % 3]);
            edges.insert((i.min(j), i.max(j)));
        }
    }
    edges
}

/// The one posed vertex within `TOL` of `p`.
fn vertex_at(posed: &[Vec3], p: Vec3) -> u32 {
    let near: Vec<usize> = (0..posed.len())
        .filter(|&v| posed[v].distance(p) <= TOL)
        .collect();
    assert_eq!(
        near.len(),
        1,
        "endpoint {p} is not one posed vertex: {near:?}"
    );
    near[0] as u32
}

/// Checks that `lines` are exactly `expected` edges, each once, with endpoints (and midpoints)
/// on the posed surface.
fn assert_wireframe(
    lines: &[Line],
    posed: &[Vec3],
    tris: &[[u32; 3]],
    expected: &BTreeSet<(u32, u32)>,
) {
    let surface = TriMesh::new(posed.to_vec(), tris.to_vec()).unwrap();
    let mut drawn = BTreeSet::new();
    for &(_, a, b, _) in lines {
        for p in [a, b, 0.5 * (a + b)] {
            let proj = surface.project_local_point(p, false);
            assert!(
                proj.point.distance(p) <= TOL,
                "{p} is {} off the posed surface",
                proj.point.distance(p)
            );
        }
        let (i, j) = (vertex_at(posed, a), vertex_at(posed, b));
        assert!(
            drawn.insert((i.min(j), i.max(j))),
            "edge ({i}, {j}) drawn twice"
        );
    }
    assert_eq!(lines.len(), expected.len());
    assert_eq!(&drawn, expected);
}

#[test]
fn the_crate_shapes_are_drawn_on_their_surfaces_and_nothing_else() {
    let s = scene();
    let world = &s.world;
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, world);

    // Only the crate's shapes, both of them.
    for h in [s.ball, s.cuboid, s.parentless] {
        assert!(rec.of(h).is_empty(), "a Rapier shape got lines");
    }
    assert_eq!(
        rec.lines.len(),
        rec.of(s.mesh).len() + rec.of(s.proxy).len()
    );

    // The mesh: each edge once, on the posed surface.
    let shape = mesh_shape(world, s.mesh);
    let pose = world.colliders[s.mesh].position();
    assert_ne!(*pose, Pose::IDENTITY);
    let posed = posed_vertices(shape, pose);
    let tris = shape.tree().mesh().triangles();
    let all = unique_edges(tris.iter().copied());
    assert_wireframe(&rec.of(s.mesh), &posed, tris, &all);

    // The spheres: three circles of `subdivisions` segments each, sphere by sphere, on the
    // sphere in world frame, reaching the collider's axes.
    let proxy = world.colliders[s.proxy]
        .shape()
        .as_shape::<SphereProxyShape>()
        .unwrap();
    let ppose = *world.colliders[s.proxy].position();
    let segments = renderer.options.style.subdivisions as usize;
    let lines = rec.of(s.proxy);
    assert_eq!(lines.len(), proxy.sphere_count() * 3 * segments);
    for (k, chunk) in lines.chunks(3 * segments).enumerate() {
        let (c, r) = (ppose * proxy.centres()[k], proxy.radii()[k]);
        for &(_, a, b, _) in chunk {
            for p in [a, b] {
                let d = p.distance(c);
                assert!((d - r).abs() <= TOL, "sphere {k}: |p - c| = {d}, r = {r}");
            }
        }
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            let e = ppose.rotation * axis;
            let reach = chunk
                .iter()
                .map(|l| (l.1 - c).dot(e))
                .fold(f32::MIN, f32::max);
            assert!((reach - r).abs() <= TOL, "sphere {k} misses axis {axis}");
        }
    }

    // Rapier's own pipeline draws the others and nothing for the crate's shapes; the crate's
    // shapes get the colour Rapier gives a collider of the same body.
    let mut rapier = Recorder::default();
    DebugRenderPipeline::default().render(
        &mut rapier,
        &world.bodies,
        &world.colliders,
        &world.impulse_joints,
        &world.multibody_joints,
        &world.narrow_phase,
        &world.soft_bodies,
    );
    assert!(rapier.of(s.mesh).is_empty() && rapier.of(s.proxy).is_empty());
    for (ours, theirs) in [(s.mesh, s.ball), (s.proxy, s.cuboid)] {
        let color = rapier.of(theirs)[0].3;
        assert!(rec.of(ours).iter().all(|l| l.3 == color));
    }
}

#[test]
fn refit_leaves_node_boxes_and_the_backend_filter() {
    let mut s = scene();
    let options = DeformDebugRenderOptions {
        mesh_wireframe: MeshWireframe::RefitLeaves,
        node_box_depth: None,
        proxy_spheres: false,
        ..Default::default()
    };
    let mut renderer = DeformDebugRenderer::new(options);
    {
        let co = &mut s.world.colliders[s.mesh];
        let shape = co
            .shape_mut()
            .as_shape_mut::<DeformableMeshShape>()
            .unwrap();
        shape.set_governors(&bent(0.4)).unwrap();
    }
    // Right after the pose no leaf is refit: nothing is drawn (and the proxy is off).
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, &s.world);
    assert!(rec.lines.is_empty());

    // A point query near one end refits some leaves: their edges are drawn, each once.
    let shape = mesh_shape(&s.world, s.mesh);
    let near = shape.vertex(0) + Vec3::new(0.0, 0.3, 0.0);
    let _ = shape.project_local_point(near, false);
    let tree = shape.tree();
    let tris = tree.mesh().triangles();
    let refit: Vec<usize> = (0..tree.nodes().len())
        .filter(|&n| tree.nodes()[n].is_leaf() && shape.node_is_refit(n as u32))
        .collect();
    let leaves = tree.nodes().iter().filter(|n| n.is_leaf()).count();
    assert!(
        !refit.is_empty() && refit.len() < leaves,
        "{} of {leaves}",
        refit.len()
    );
    let expected = unique_edges(
        refit
            .iter()
            .flat_map(|&n| tree.node_triangles(n).iter().map(|&t| tris[t as usize])),
    );
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, &s.world);
    let pose = s.world.colliders[s.mesh].position();
    let posed = posed_vertices(shape, pose);
    assert_wireframe(&rec.of(s.mesh), &posed, tris, &expected);
    assert!(expected.len() < unique_edges(tris.iter().copied()).len());

    // Node boxes to depth 2: twelve lines per node; the root box holds every posed vertex.
    renderer.options.mesh_wireframe = MeshWireframe::Off;
    renderer.options.node_box_depth = Some(2);
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, &s.world);
    let mut count = 0;
    let mut stack = vec![(0usize, 0u32)];
    while let Some((n, d)) = stack.pop() {
        count += 1;
        if let (true, Some([l, r])) = (d < 2, tree.nodes()[n].children) {
            stack.extend([(l as usize, d + 1), (r as usize, d + 1)]);
        }
    }
    let lines = rec.of(s.mesh);
    assert_eq!(lines.len(), 12 * count);
    let root: Vec<Vec3> = lines[..12]
        .iter()
        .flat_map(|l| [l.1, l.2])
        .map(|p| pose.inverse_transform_point(p))
        .collect();
    let lo = root.iter().fold(Vec3::splat(f32::MAX), |a, &p| a.min(p));
    let hi = root.iter().fold(Vec3::splat(f32::MIN), |a, &p| a.max(p));
    for p in &posed {
        let q = pose.inverse_transform_point(*p);
        assert!(
            q.cmpge(lo - TOL).all() && q.cmple(hi + TOL).all(),
            "{q} outside the root box"
        );
    }
    // Every box line is axis-aligned in the collider's frame (one coordinate changes).
    for l in &lines {
        let d = pose.inverse_transform_point(l.2) - pose.inverse_transform_point(l.1);
        let moving = d.to_array().iter().filter(|x| x.abs() > TOL).count();
        assert!(moving <= 1, "box edge {d} is not axis-aligned");
    }
    assert!(
        lines
            .iter()
            .all(|l| l.3 == renderer.options.style.collider_aabb_color)
    );

    // The backend's filter is honoured.
    renderer.options = DeformDebugRenderOptions::default();
    let mut rec = Recorder {
        reject: Some(s.mesh),
        ..Default::default()
    };
    renderer.render_world(&mut rec, &s.world);
    assert!(rec.of(s.mesh).is_empty());
    assert!(!rec.of(s.proxy).is_empty());
}

#[test]
fn triangle_pairs_are_highlighted_and_bad_pairs_are_typed_errors() {
    let s = scene();
    let world = &s.world;
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
    let shape = mesh_shape(world, s.mesh);
    let tris = shape.tree().mesh().triangles();
    let pairs = [[0u32, 7], [7, 31], [40, 2]];
    let mut rec = Recorder::default();
    renderer
        .render_triangle_pairs(&mut rec, &world.colliders, s.mesh, &pairs)
        .unwrap();
    let expected = unique_edges([0usize, 7, 31, 40, 2].map(|t| tris[t]).into_iter());
    let posed = posed_vertices(shape, world.colliders[s.mesh].position());
    assert_wireframe(&rec.lines, &posed, tris, &expected);
    assert!(
        rec.lines
            .iter()
            .all(|l| l.0 == Some(s.mesh) && l.3 == renderer.options.pair_color)
    );

    let len = shape.triangle_count();
    let mut rec = Recorder::default();
    let bad = [[0, 1], [2, len as u32 + 3]];
    assert!(matches!(
        renderer.render_triangle_pairs(&mut rec, &world.colliders, s.mesh, &bad),
        Err(DeformError::IndexOutOfRange { what: "triangle", index, len: l }) if index == len + 3 && l == len
    ));
    assert!(matches!(
        renderer.render_triangle_pairs(&mut rec, &world.colliders, s.proxy, &pairs),
        Err(DeformError::InvalidParameter { .. })
    ));
    assert!(rec.lines.is_empty());
    let mut rec = Recorder {
        reject: Some(s.mesh),
        ..Default::default()
    };
    renderer
        .render_triangle_pairs(&mut rec, &world.colliders, s.mesh, &pairs)
        .unwrap();
    assert!(rec.lines.is_empty());
}

/// A weightless dynamic ball overlapping the scene's mesh by 0.01 next to a middle-ring vertex,
/// outside the tube: its collider, its radius and the posed surface (world frame) it touches.
fn touching_ball(s: &mut Scene) -> (ColliderHandle, f32, TriMesh) {
    let pose = *s.world.colliders[s.mesh].position();
    let shape = mesh_shape(&s.world, s.mesh);
    let posed = posed_vertices(shape, &pose);
    let surface = TriMesh::new(posed.clone(), shape.tree().mesh().triangles().to_vec()).unwrap();
    let ring: Vec3 = posed[60..70].iter().copied().sum::<Vec3>() / 10.0;
    let centre = posed[60] + 0.4 * (posed[60] - ring).normalize();
    let radius = surface
        .project_local_point(centre, false)
        .point
        .distance(centre)
        + 0.01;
    let body = s.world.bodies.insert(
        RigidBodyBuilder::dynamic()
            .translation(centre)
            .gravity_scale(0.0)
            .build(),
    );
    let ball = s.world.colliders.insert_with_parent(
        ColliderBuilder::ball(radius).build(),
        body,
        &mut s.world.bodies,
    );
    (ball, radius, surface)
}

#[test]
fn rapier_draws_the_contacts_of_the_crate_shapes() {
    let mut s = scene();
    s.world.narrow_phase =
        NarrowPhase::with_query_dispatcher(DeformDispatcher.chain(DefaultQueryDispatcher));
    let (ball, radius, surface) = touching_ball(&mut s);
    s.world.step();
    let world = &s.world;
    let mut rec = Recorder::default();
    DebugRenderPipeline::new(DebugRenderStyle::default(), DebugRenderMode::CONTACTS).render(
        &mut rec,
        &world.bodies,
        &world.colliders,
        &world.impulse_joints,
        &world.multibody_joints,
        &world.narrow_phase,
        &world.soft_bodies,
    );
    let style = DebugRenderStyle::default();
    let depth: Vec<Line> = rec
        .lines
        .iter()
        .copied()
        .filter(|l| l.3 == style.contact_depth_color)
        .collect();
    let pair = world.narrow_phase.contact_pair(s.mesh, ball).unwrap();
    let points: usize = pair.manifolds().iter().map(|m| m.points.len()).sum();
    assert!(points > 0);
    assert!(depth.len() >= points);
    let ball_pos = *world.colliders[ball].position();
    let on_mesh = |p: Vec3| surface.project_local_point(p, false).point.distance(p) <= TOL;
    let on_ball = |p: Vec3| (p.distance(ball_pos.translation) - radius).abs() <= TOL;
    let touching = depth
        .iter()
        .filter(|l| (on_mesh(l.1) && on_ball(l.2)) || (on_mesh(l.2) && on_ball(l.1)))
        .count();
    assert_eq!(touching, points, "{depth:?}");
}

/// The contact velocities of a tracked mesh: one arrow (a shaft and two head strokes, in the
/// options' colour) per active contact point, starting on the posed surface and ending
/// `seconds` of the surface's velocity further (its body's velocity plus the rotated
/// deformation velocity of `SurfaceVelocityHooks`); an untracked collider and a non-finite
/// duration are typed errors.
#[test]
fn contact_velocities_are_arrows_from_the_surface_along_its_velocity() {
    let mut s = scene();
    s.world.narrow_phase = DeformDispatcher::narrow_phase();
    let mut hooks = SurfaceVelocityHooks::new();
    hooks.track(&mut s.world.colliders, s.mesh).unwrap();
    let (ball, _, _) = touching_ball(&mut s);
    // Two poses a step apart: the surface moves.
    let dt = s.world.integration_parameters.dt;
    hooks.update(&s.world.colliders, dt).unwrap();
    rapier3d_deform::character::pose_deformable_mesh(&mut s.world.colliders, s.mesh, &bent(0.27))
        .unwrap();
    hooks.update(&s.world.colliders, dt).unwrap();
    s.world.step_with_events(&hooks, &());
    let world = &s.world;
    let seconds = 0.5;
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
    let mut rec = Recorder::default();
    let arrows = renderer
        .render_contact_velocities(&mut rec, world, &hooks, s.mesh, seconds)
        .unwrap();
    let pair = world.narrow_phase.contact_pair(s.mesh, ball).unwrap();
    assert!(pair.has_any_active_contact());
    let first = pair.collider1 == s.mesh;
    let pose = *world.colliders[s.mesh].position();
    let mesh_body = &world.bodies[world.colliders[s.mesh].parent().unwrap()];
    let mut expected = Vec::new();
    for m in pair.manifolds() {
        let t = if first { m.subshape1 } else { m.subshape2 };
        for p in &m.points {
            let local = if first { p.local_p1 } else { p.local_p2 };
            let at = pose.transform_point(local);
            let v = mesh_body.velocity_at_point(at)
                + pose.rotation
                    * hooks
                        .surface_velocity(&world.colliders, s.mesh, t, local)
                        .unwrap();
            expected.push((at, at + v * seconds));
        }
    }
    assert!(!expected.is_empty());
    assert_eq!(arrows, expected.len());
    let lines = rec.of(s.mesh);
    assert_eq!(lines.len(), 3 * arrows, "a shaft and two head strokes each");
    let colour = DeformDebugRenderOptions::default().velocity_color;
    assert!(lines.iter().all(|l| l.3 == colour));
    let now = mesh_shape(world, s.mesh);
    let surface = TriMesh::new(
        posed_vertices(now, &pose),
        now.tree().mesh().triangles().to_vec(),
    )
    .unwrap();
    let moving = expected
        .iter()
        .filter(|(a, b)| a.distance(*b) > 1e-3)
        .count();
    assert!(moving > 0, "the surface did not move under the ball");
    for (k, (at, tip)) in expected.iter().enumerate() {
        let shaft = lines[3 * k];
        assert!(shaft.1.distance(*at) <= TOL && shaft.2.distance(*tip) <= TOL);
        // The shaft starts on the posed surface.
        let on = surface.project_local_point(shaft.1, false).point;
        assert!(
            on.distance(shaft.1) <= TOL,
            "arrow {k} starts {} off the surface",
            on.distance(shaft.1)
        );
        for stroke in &lines[3 * k + 1..3 * k + 3] {
            assert!(stroke.1.distance(*tip) <= TOL);
        }
    }
    // Bad input.
    let untracked = SurfaceVelocityHooks::new();
    assert!(matches!(
        renderer.render_contact_velocities(&mut rec, world, &untracked, s.mesh, seconds),
        Err(DeformError::InvalidParameter {
            name: "collider",
            ..
        })
    ));
    assert!(matches!(
        renderer.render_contact_velocities(&mut rec, world, &hooks, s.mesh, f32::NAN),
        Err(DeformError::InvalidParameter {
            name: "seconds",
            ..
        })
    ));
    assert!(
        renderer
            .render_contact_velocities(&mut rec, world, &hooks, ball, seconds)
            .is_err()
    );
}

/// The cones of one mesh collider drawn to every depth, split per cone (axis, circle,
/// generators), with the node each starts at; checks each against the node's posed triangle
/// normals. Returns (cones drawn, cones whose node has O(m) patch data).
fn check_cones(world: &PhysicsWorld, h: ColliderHandle) -> (usize, usize) {
    let shape = mesh_shape(world, h);
    let pose = world.colliders[h].position();
    let options = DeformDebugRenderOptions {
        mesh_wireframe: MeshWireframe::Off,
        proxy_spheres: false,
        normal_cone_depth: Some(u32::MAX),
        ..Default::default()
    };
    let segments = options.style.subdivisions.max(4) as usize;
    let per_cone = 1 + segments + 4;
    let mut renderer = DeformDebugRenderer::new(options);
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, world);
    let lines = rec.of(h);
    assert!(!lines.is_empty());
    assert_eq!(lines.len() % per_cone, 0);
    assert!(lines.iter().all(|l| l.3 == options.cone_color));
    let tree = shape.tree();
    let posed = posed_vertices(shape, pose);
    let tris = tree.mesh().triangles();
    let mut used = vec![false; tree.nodes().len()];
    let (mut cones, mut patches) = (0, 0);
    for cone in lines.chunks(per_cone) {
        let apex = cone[0].1;
        let local = pose.inverse_transform_point(apex);
        // The node this cone starts at: the first unused one (depth first) whose box centre it is.
        let node = (0..tree.nodes().len())
            .find(|&n| {
                let b = shape.node_aabb(n as u32);
                !used[n] && ((b.mins + b.maxs) * 0.5).distance(local) <= TOL
            })
            .unwrap_or_else(|| panic!("cone apex {local} is no node's box centre"));
        used[node] = true;
        let b = shape.node_aabb(node as u32);
        assert!(local.cmpge(b.mins).all() && local.cmple(b.maxs).all());
        let length = 0.25 * (b.maxs - b.mins).length();
        let axis = (cone[0].2 - apex) / length;
        assert!(
            (axis.length() - 1.0).abs() <= 1e-4,
            "axis of length {}",
            axis.length()
        );
        // The circle: closed, every point at the axis' length from the apex, at one angle.
        let rim = &cone[1..=segments];
        assert!(rim[0].1.distance(rim[segments - 1].2) <= TOL);
        let half = axis.angle_between(rim[0].1 - apex);
        for l in rim {
            assert!((l.1.distance(apex) - length).abs() <= 1e-4 * length.max(1.0));
            assert!((axis.angle_between(l.1 - apex) - half).abs() <= 1e-3);
        }
        for g in &cone[1 + segments..] {
            assert!(g.1.distance(apex) <= TOL);
            assert!((g.2.distance(apex) - length).abs() <= 1e-4 * length.max(1.0));
        }
        assert!(half < std::f32::consts::FRAC_PI_2);
        // Every posed normal of the node's triangles lies in the cone.
        let mut widest = 0.0f32;
        for &t in tree.node_triangles(node) {
            let [p, q, r] = tris[t as usize].map(|v| posed[v as usize]);
            let n = (q - p).cross(r - p);
            let angle = axis.angle_between(n);
            widest = widest.max(angle);
            assert!(
                angle <= half + 1e-3,
                "node {node}: normal at {angle} rad outside the cone of {half}"
            );
        }
        let patch = tree.node_patch(node).is_some();
        patches += usize::from(patch);
        if !patch {
            // Without patch data the cone is that of the normals themselves: tight.
            assert!(half <= widest + 3e-3, "node {node}: {half} vs {widest}");
        }
        cones += 1;
    }
    (cones, patches)
}

#[test]
fn normal_cones_hold_the_posed_normals_of_their_nodes() {
    let mesh = tube(LENGTH, 12, 10);
    let weights = tube_weights(&mesh, BONES, LENGTH, 3);
    let mut world = PhysicsWorld::default();
    let body = world.bodies.insert(
        RigidBodyBuilder::kinematic_position_based()
            .pose(Pose::new(
                Vec3::new(1.0, 2.0, -3.0),
                Vec3::new(0.3, -0.5, 0.8),
            ))
            .build(),
    );
    // Every node with O(m) patch data (cones from the normal bound), and the collider preset
    // (leaves and small nodes without: cones from the posed normals).
    let mut handles = Vec::new();
    for options in [
        BnTreeOptions {
            leaf_triangles: 4,
            governor_cost: 0.0,
        },
        BnTreeOptions::COLLIDER,
    ] {
        let tree =
            Arc::new(BnTree::build_with(&mesh, mesh.positions(), &weights, options).unwrap());
        let shape = DeformableMeshShape::new(tree, &bent(0.3)).unwrap();
        handles.push(
            world.colliders.insert_with_parent(
                ColliderBuilder::new(SharedShape::new(shape))
                    .position(Pose::new(
                        Vec3::new(0.5, -0.2, 0.1),
                        Vec3::new(-0.4, 0.2, 0.1),
                    ))
                    .build(),
                body,
                &mut world.bodies,
            ),
        );
    }
    let (cones, patches) = check_cones(&world, handles[0]);
    eprintln!("bound tree: {cones} cones, {patches} from normal bounds");
    assert!(
        cones >= 20 && patches > 0,
        "{cones} cones, {patches} from bounds"
    );
    let (cones, patches) = check_cones(&world, handles[1]);
    eprintln!("collider tree: {cones} cones, {patches} from normal bounds");
    assert!(cones > patches, "{cones} cones, {patches} from bounds");
    // To depth 0 only the root is considered: a tube's root has normals all around, no cone.
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions {
        mesh_wireframe: MeshWireframe::Off,
        normal_cone_depth: Some(0),
        ..Default::default()
    });
    let mut rec = Recorder::default();
    renderer.render_world(&mut rec, &world);
    assert!(rec.of(handles[0]).is_empty());
}
