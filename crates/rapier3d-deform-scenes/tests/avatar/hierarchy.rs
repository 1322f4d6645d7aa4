//! Contract: the boxes' cell hierarchies bound the skin once per frame only where queries reach it (nodes bounded and vertices posed follow the query points, not the skin's size), and stay conservative when every box touches most of 80 bones (random, incoherent weights).

use super::common::{random_governor, random_weights, rng, tube};
use super::conservative::check_frame;
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery};
use rapier3d_deform::governor::{Affine, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::skirt::WalkingFigure;

#[test]
fn incoherent_weights_over_eighty_bones_stay_conservative() {
    // Every box touches most of the 80 bones, and its nodes carry many weight ranges.
    let mut r = rng(41);
    let mesh = tube(2.0, 16, 12);
    let bones = 80;
    let weights = random_weights(&mut r, mesh.vertex_count(), bones, 4);
    for options in [
        AvatarOptions::default(),
        AvatarOptions {
            triangles_per_slab: 2,
            min_slabs: 1,
            max_slabs: 64,
        },
    ] {
        let avatar = AvatarBoxes::build(&mesh, mesh.positions(), &weights, options).unwrap();
        let mut query = AvatarQuery::new();
        for _ in 0..4 {
            let governors: Vec<Affine> = (0..bones)
                .map(|_| random_governor(&mut r, 0.4, 0.3))
                .collect();
            check_frame(&avatar, &mut query, &governors, &mut r, 0.05, 30);
        }
    }
}

#[test]
fn a_frame_bounds_and_poses_only_the_skin_its_queries_reach() {
    // RiggedFigure Loop x3 (16,384 triangles), walking; points around one posed skin vertex.
    let mut figure = WalkingFigure::load(3).unwrap();
    let rest = figure.skinning().rest_positions().to_vec();
    let weights = figure.skinning().weights().clone();
    let mesh = figure.mesh().clone();
    let options = AvatarOptions {
        triangles_per_slab: 4,
        min_slabs: 1,
        max_slabs: 256,
    };
    let avatar = AvatarBoxes::build(&mesh, &rest, &weights, options).unwrap();
    let stats = avatar.slab_statistics();
    // A binary hierarchy over c cells per box has 2c − 1 nodes.
    let nodes = 2 * stats.slabs - stats.boxes;
    let governors = figure.governors_at(0.4).unwrap();
    let mut posed = Vec::new();
    deform_vertices(&rest, &weights, &governors, &mut posed);
    let mut query = AvatarQuery::new();
    let mut scratch = Vec::new();
    let radius = 0.02;

    // A point far from the skin reaches no node and poses nothing.
    query.begin_frame(&avatar, &governors).unwrap();
    assert_eq!(query.stats().boxes_bounded, avatar.box_count() as u64);
    let far = Vec3::new(50.0, 50.0, 50.0);
    assert!(
        query
            .closest(&avatar, far, radius, &mut scratch)
            .unwrap()
            .is_none()
    );
    let s = query.stats();
    assert_eq!((s.nodes_tested, s.vertices_posed, s.slab_hits), (0, 0, 0));

    for (k, &v) in [0usize, 1 << 12, 5 << 11].iter().enumerate() {
        query.begin_frame(&avatar, &governors).unwrap();
        let centre = posed[v % posed.len()];
        let mut found = 0;
        for i in 0..24 {
            let a = i as f32 * 0.7;
            let p = centre + Vec3::new(a.cos(), (2.0 * a).sin(), a.sin()) * 0.015;
            let contact = query.closest(&avatar, p, radius, &mut scratch).unwrap();
            let best = mesh
                .triangles()
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|v| posed[v as usize]);
                    (Triangle::new(a, b, c).project_local_point(p, true).point - p).length()
                })
                .filter(|d| *d <= radius)
                .fold(None, |m: Option<f32>, d| Some(m.map_or(d, |m| m.min(d))));
            assert_eq!(contact.map(|c| c.distance), best, "vertex {v}, point {i}");
            found += contact.is_some() as usize;
        }
        assert!(found > 0, "the points hug the skin");
        let s = query.stats();
        assert!(
            s.nodes_bounded * 20 < nodes as u64,
            "query {k}: {} of {nodes} nodes bounded",
            s.nodes_bounded
        );
        assert!(
            s.vertices_posed * 20 < rest.len() as u64,
            "query {k}: {} of {} vertices posed",
            s.vertices_posed,
            rest.len()
        );
        assert!(s.nodes_bounded > 0 && s.vertices_posed > 0);
    }
}
