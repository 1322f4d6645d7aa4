//! Contract: `DeformDebugRenderer::render_avatar_boxes` draws twelve edges per bone box (and per cell when asked) through the backend, for the object it is given and honouring the backend's filter; at the bind pose the drawn boxes are the seed's rest PCA boxes (up to the query's rounding pad), under a rigid motion of every bone they move with it, under the Fox's Run clip and random non-rigid governors their corners are those of the box the query tests (`AvatarQuery::posed_box`), every posed skin vertex of a box's triangles lies inside its drawn box and inside one of its drawn cells; without a frame the call is a typed error.

use super::common::{random_governor, rng, tube, tube_weights};
use rapier3d::prelude::*;
use rapier3d_deform::DeformError;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery};
use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer};
use rapier3d_deform::governor::{Affine, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::{Mat3, Quat, Vec3};
use rapier3d_deform_scenes::fox::SubdividedFox;

const TOL: f32 = 1e-4;
/// The query pads every box by a bound on its frame's rounding (a few 1e-4 on this 4 m tube):
/// drawn boxes match the rest boxes up to it.
const SLACK: f32 = 1e-3;

/// Records the lines and whether they were drawn for the given collider.
#[derive(Default)]
struct Recorder {
    lines: Vec<(Vec3, Vec3, DebugColor)>,
    reject_all: bool,
    foreign: usize,
}

impl DebugRenderBackend for Recorder {
    fn filter_object(&self, _: DebugRenderObject) -> bool {
        !self.reject_all
    }

    fn draw_line(&mut self, object: DebugRenderObject, a: Vector, b: Vector, color: DebugColor) {
        if !matches!(object, DebugRenderObject::Collider(h, _) if h == ColliderHandle::from_raw_parts(7, 0))
        {
            self.foreign += 1;
        }
        self.lines.push((a, b, color));
    }
}

/// The eight corners of a drawn box from its twelve lines (`PosedBox::EDGES` order: the first
/// four run along box axis 0 from corners 0, 2, 4, 6 to 1, 3, 5, 7).
fn corners(lines: &[(Vec3, Vec3, DebugColor)]) -> [Vec3; 8] {
    let mut c = [Vec3::ZERO; 8];
    for (k, l) in lines[..4].iter().enumerate() {
        c[2 * k] = l.0;
        c[2 * k + 1] = l.1;
    }
    // The other eight edges join corners already found.
    let edges = [
        [0, 2],
        [1, 3],
        [4, 6],
        [5, 7],
        [0, 4],
        [1, 5],
        [2, 6],
        [3, 7],
    ];
    for (l, [i, j]) in lines[4..12].iter().zip(edges) {
        assert!(l.0.distance(c[i]) <= TOL && l.1.distance(c[j]) <= TOL);
    }
    c
}

/// True when `p` lies in the parallelepiped of `c` (corner 0 and the edges to 1, 2, 4), up to
/// `tol` in each edge's relative coordinate.
fn inside(c: &[Vec3; 8], p: Vec3, tol: f32) -> bool {
    let m = Mat3::from_cols(c[1] - c[0], c[2] - c[0], c[4] - c[0]);
    let u = m.inverse() * (p - c[0]);
    u.is_finite() && u.cmpge(Vec3::splat(-tol)).all() && u.cmple(Vec3::splat(1.0 + tol)).all()
}

/// Draws `avatar`'s boxes for `governors` with and without cells; checks them against the
/// query's boxes and the posed skin. Returns the lines drawn per box without cells.
fn check(avatar: &AvatarBoxes, governors: &[Affine]) -> Vec<[Vec3; 8]> {
    let collider = ColliderBuilder::ball(1.0).build();
    let object = DebugRenderObject::Collider(ColliderHandle::from_raw_parts(7, 0), &collider);
    let mut query = AvatarQuery::new();
    query.begin_frame(avatar, governors).unwrap();
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions {
        avatar_cell_color: None,
        ..Default::default()
    });
    let mut rec = Recorder::default();
    let boxes = renderer
        .render_avatar_boxes(&mut rec, object, avatar, &mut query)
        .unwrap();
    assert_eq!(boxes, avatar.box_count());
    assert_eq!(rec.lines.len(), 12 * boxes);
    assert_eq!(rec.foreign, 0);
    let color = renderer.options.avatar_box_color;
    assert!(rec.lines.iter().all(|l| l.2 == color));
    let mut posed = Vec::new();
    deform_vertices(
        avatar.rest_positions(),
        avatar.weights(),
        governors,
        &mut posed,
    );
    let tris = avatar.mesh().triangles();
    let mut drawn = Vec::new();
    for index in 0..boxes {
        let c = corners(&rec.lines[12 * index..12 * (index + 1)]);
        let queried = query.posed_box(avatar, index).unwrap().corners();
        for (a, b) in c.iter().zip(&queried) {
            assert!(a.distance(*b) <= TOL, "box {index}: drawn {a}, queried {b}");
        }
        for &t in avatar.box_triangles(index).unwrap() {
            for v in tris[t as usize] {
                let p = posed[v as usize];
                assert!(
                    inside(&c, p, 1e-5),
                    "box {index}: skin vertex {v} at {p} outside"
                );
            }
        }
        drawn.push(c);
    }
    // With cells: after each box, twelve lines per cell; each posed vertex of the box's
    // triangles lies in one of them.
    renderer.options.avatar_cell_color = DeformDebugRenderOptions::default().avatar_cell_color;
    let mut rec = Recorder::default();
    renderer
        .render_avatar_boxes(&mut rec, object, avatar, &mut query)
        .unwrap();
    let mut at = 0;
    for index in 0..boxes {
        let cells = avatar.box_cell_count(index).unwrap();
        assert!(rec.lines[at..at + 12].iter().all(|l| l.2 == color));
        let cell_boxes: Vec<[Vec3; 8]> = (0..cells)
            .map(|k| corners(&rec.lines[at + 12 * (k + 1)..at + 12 * (k + 2)]))
            .collect();
        for &t in avatar.box_triangles(index).unwrap() {
            for v in tris[t as usize] {
                let p = posed[v as usize];
                assert!(
                    cell_boxes.iter().any(|c| inside(c, p, 1e-5)),
                    "box {index}: skin vertex {v} in no cell"
                );
            }
        }
        at += 12 * (cells + 1);
    }
    assert_eq!(at, rec.lines.len());
    eprintln!("{boxes} boxes, {} lines with cells", rec.lines.len());
    drawn
}

fn tube_avatar() -> AvatarBoxes {
    let mesh = tube(4.0, 24, 12);
    let weights = tube_weights(&mesh, 4, 4.0, 3);
    AvatarBoxes::build(&mesh, mesh.positions(), &weights, AvatarOptions::default()).unwrap()
}

#[test]
fn bind_pose_boxes_are_the_rest_boxes_and_move_with_a_rigid_motion() {
    let avatar = tube_avatar();
    let bones = avatar.weights().governor_count();
    let at_rest = check(&avatar, &vec![Affine::IDENTITY; bones]);
    for (index, c) in at_rest.iter().enumerate() {
        let rest = avatar.rest_box(index).unwrap().corners();
        for (a, b) in c.iter().zip(&rest) {
            assert!(a.distance(*b) <= SLACK, "box {index}: drawn {a}, rest {b}");
        }
    }
    let rotation = Mat3::from_quat(Quat::from_axis_angle(
        Vec3::new(0.3, 1.0, -0.2).normalize(),
        0.9,
    ));
    let motion = Affine::new(rotation, Vec3::new(2.0, -1.0, 0.5));
    let moved = check(&avatar, &vec![motion; bones]);
    for (index, (c, r)) in moved.iter().zip(&at_rest).enumerate() {
        for (a, b) in c.iter().zip(r) {
            let expected = motion.transform_point(*b);
            assert!(
                a.distance(expected) <= SLACK,
                "box {index}: {a} vs {expected}"
            );
        }
    }
}

#[test]
fn posed_boxes_hold_their_skin_under_random_governors_and_the_fox_run() {
    let avatar = tube_avatar();
    let bones = avatar.weights().governor_count();
    let mut r = rng(2024);
    for _ in 0..8 {
        let governors: Vec<Affine> = (0..bones)
            .map(|_| random_governor(&mut r, 0.4, 0.3))
            .collect();
        check(&avatar, &governors);
    }
    let mut fox =
        SubdividedFox::load(rapier3d_deform_scenes::asset_path("skinned/Fox.glb"), 1).unwrap();
    let avatar = AvatarBoxes::build(
        fox.mesh(),
        fox.skinning().rest_positions(),
        fox.skinning().weights(),
        AvatarOptions::default(),
    )
    .unwrap();
    let clip = fox.clip("Run").unwrap().clone();
    for k in 0..4 {
        let governors = fox
            .governors_at(&clip, clip.duration() * k as f32 / 4.0)
            .unwrap();
        check(&avatar, &governors);
    }
}

#[test]
fn filtered_out_or_frameless_avatar_boxes_draw_nothing() {
    let avatar = tube_avatar();
    let collider = ColliderBuilder::ball(1.0).build();
    let object = DebugRenderObject::Collider(ColliderHandle::from_raw_parts(7, 0), &collider);
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions::default());
    let mut query = AvatarQuery::new();
    let mut rec = Recorder::default();
    let err = renderer
        .render_avatar_boxes(&mut rec, object, &avatar, &mut query)
        .unwrap_err();
    assert!(matches!(err, DeformError::NotAvailable { .. }), "{err:?}");
    assert!(rec.lines.is_empty());
    let bones = avatar.weights().governor_count();
    query
        .begin_frame(&avatar, &vec![Affine::IDENTITY; bones])
        .unwrap();
    assert!(matches!(
        query.posed_box(&avatar, avatar.box_count()),
        Err(DeformError::IndexOutOfRange { .. })
    ));
    let mut rec = Recorder {
        reject_all: true,
        ..Default::default()
    };
    let drawn = renderer
        .render_avatar_boxes(&mut rec, object, &avatar, &mut query)
        .unwrap();
    assert_eq!(drawn, 0);
    assert!(rec.lines.is_empty());
}
