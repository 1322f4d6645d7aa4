//! Contract: over animated and random poses, `AvatarQuery::candidates` holds every skin triangle within the radius of a point (brute force over every posed triangle), `closest` finds the brute-force minimum, the boxes prune most of the skin, and the seed's rigidly carried boxes miss posed vertices.

use super::common::{random_governor, random_rotation, rng, tube, tube_weights};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;
use rapier3d_deform::avatar::{AvatarBoxes, AvatarOptions, AvatarQuery};
use rapier3d_deform::governor::{Affine, GovernedDeformation, deform_vertices};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::fox::SubdividedFox;

/// Distance from `p` to every posed triangle.
fn distances(avatar: &AvatarBoxes, posed: &[Vec3], p: Vec3) -> Vec<f32> {
    avatar
        .mesh()
        .triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| posed[v as usize]);
            (Triangle::new(a, b, c).project_local_point(p, true).point - p).length()
        })
        .collect()
}

/// Query points: posed surface points pushed off by up to `2 r` in random directions, plus
/// random points in the posed bounding box.
pub(crate) fn query_points(
    r: &mut ChaCha8Rng,
    posed: &[Vec3],
    radius: f32,
    count: usize,
) -> Vec<Vec3> {
    let (lo, hi) = posed.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(l, h), p| (l.min(*p), h.max(*p)),
    );
    (0..count)
        .map(|i| {
            if i % 4 == 3 {
                Vec3::new(
                    r.random_range(lo.x..=hi.x),
                    r.random_range(lo.y..=hi.y),
                    r.random_range(lo.z..=hi.z),
                )
            } else {
                let base = posed[r.random_range(0..posed.len())];
                let dir = Vec3::new(
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                );
                base + dir * (2.0 * radius)
            }
        })
        .collect()
}

/// Checks one frame; returns (points, candidate triangles summed over points).
pub(crate) fn check_frame(
    avatar: &AvatarBoxes,
    query: &mut AvatarQuery,
    governors: &[Affine],
    r: &mut ChaCha8Rng,
    radius: f32,
    points: usize,
) -> (usize, usize) {
    query.begin_frame(avatar, governors).unwrap();
    let mut posed = Vec::new();
    deform_vertices(
        avatar.rest_positions(),
        avatar.weights(),
        governors,
        &mut posed,
    );
    let mut candidates = Vec::new();
    let mut scratch = Vec::new();
    let mut total = 0;
    let pts = query_points(r, &posed, radius, points);
    for (i, &p) in pts.iter().enumerate() {
        query
            .candidates(avatar, p, radius, &mut candidates)
            .unwrap();
        total += candidates.len();
        let d = distances(avatar, &posed, p);
        let mut sorted = candidates.clone();
        sorted.sort_unstable();
        assert!(
            sorted.windows(2).all(|w| w[0] < w[1]),
            "point {i}: a candidate listed twice"
        );
        for (t, &dt) in d.iter().enumerate() {
            if dt <= radius {
                assert!(
                    sorted.binary_search(&(t as u32)).is_ok(),
                    "point {i} {p}: triangle {t} at {dt} ≤ {radius} is not a candidate"
                );
            }
        }
        let best = d
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, x)| *x <= radius)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let contact = query.closest(avatar, p, radius, &mut scratch).unwrap();
        match (best, contact) {
            (None, None) => {}
            (Some((_, dist)), Some(c)) => {
                assert_eq!(c.distance, dist, "point {i}: closest distance");
                assert_eq!(d[c.triangle as usize], dist);
                assert!((c.point - p).length() <= radius * (1.0 + 1e-5));
            }
            (b, c) => panic!("point {i}: brute force {b:?}, query {c:?}"),
        }
    }
    (pts.len(), total)
}

/// The per-bone boxes of the Fox's skin, default options.
fn fox_avatar(fox: &SubdividedFox) -> AvatarBoxes {
    AvatarBoxes::build(
        fox.mesh(),
        fox.skinning().rest_positions(),
        fox.skinning().weights(),
        AvatarOptions::default(),
    )
    .unwrap()
}

#[test]
fn fox_candidates_hold_every_triangle_within_the_radius_over_walk_and_run() {
    let mut fox =
        SubdividedFox::load(rapier3d_deform_scenes::asset_path("skinned/Fox.glb"), 1).unwrap();
    let avatar = fox_avatar(&fox);
    let stats = avatar.slab_statistics();
    assert!(stats.boxes >= 10, "{stats:?}");
    assert!(stats.duplication >= 1.0);
    let mut query = AvatarQuery::new();
    let mut r = rng(17);
    let triangles = avatar.mesh().triangle_count();
    let (mut points, mut candidates) = (0, 0);
    for name in ["Walk", "Run"] {
        let clip = fox.clip(name).unwrap().clone();
        for k in 0..6 {
            let governors = fox
                .governors_at(&clip, clip.duration() * k as f32 / 6.0)
                .unwrap();
            // The Fox is authored in centimetres: a 2 cm cloth thickness.
            let (p, c) = check_frame(&avatar, &mut query, &governors, &mut r, 2.0, 60);
            points += p;
            candidates += c;
        }
    }
    let per_point = candidates as f64 / points as f64;
    assert!(
        per_point < 0.1 * triangles as f64,
        "the boxes should prune most of the skin: {per_point:.1} candidates per point of {triangles}"
    );
}

#[test]
fn random_sliding_skin_under_random_affine_bones_stays_conservative() {
    let mut r = rng(5);
    let mesh = tube(2.0, 24, 16);
    for bones in [1usize, 3, 6] {
        let weights = tube_weights(&mesh, bones, 2.0, 3);
        for options in [
            AvatarOptions::default(),
            AvatarOptions {
                triangles_per_slab: 4,
                min_slabs: 1,
                max_slabs: 64,
            },
        ] {
            let avatar = AvatarBoxes::build(&mesh, mesh.positions(), &weights, options).unwrap();
            let mut query = AvatarQuery::new();
            for _ in 0..8 {
                let governors: Vec<Affine> = (0..bones)
                    .map(|_| random_governor(&mut r, 0.6, 0.5))
                    .collect();
                check_frame(&avatar, &mut query, &governors, &mut r, 0.05, 40);
            }
        }
    }
}

/// Points just off the skin are where a query skips the cells beside its closest point by their
/// plates: under bones that shrink the skin (box frames that stretch distances) and skin that
/// slides, the closest triangle must still be the brute-force one, with any hint.
#[test]
fn closest_stays_exact_with_any_hint_for_points_hugging_the_skin_under_shrinking_sliding_bones() {
    let mut r = rng(11);
    let mesh = tube(2.0, 32, 24);
    let radius = 0.05;
    let mut skipped_cells = 0u64;
    for bones in [2usize, 5] {
        let weights = tube_weights(&mesh, bones, 2.0, 3);
        let options = AvatarOptions {
            triangles_per_slab: 4,
            min_slabs: 1,
            max_slabs: 64,
        };
        let avatar = AvatarBoxes::build(&mesh, mesh.positions(), &weights, options).unwrap();
        let mut query = AvatarQuery::new();
        let mut scratch = Vec::new();
        let mut posed = Vec::new();
        for _ in 0..6 {
            // Uniform shrinks of 0.3–0.7 with bends: box frames stretch distances 1.4–3.3×.
            let governors: Vec<Affine> = (0..bones)
                .map(|_| {
                    let q =
                        rapier3d_deform::math::Quat::IDENTITY.slerp(random_rotation(&mut r), 0.3);
                    let s = r.random_range(0.3..0.7);
                    let t = Vec3::new(
                        r.random_range(-0.1..0.1),
                        r.random_range(-0.1..0.1),
                        r.random_range(-0.1..0.1),
                    );
                    Affine::new(rapier3d_deform::math::Mat3::from_quat(q) * s, t)
                })
                .collect();
            query.begin_frame(&avatar, &governors).unwrap();
            deform_vertices(
                avatar.rest_positions(),
                avatar.weights(),
                &governors,
                &mut posed,
            );
            for i in 0..150 {
                let t = mesh.triangles()[r.random_range(0..mesh.triangle_count())];
                let [a, b, c] = t.map(|v| posed[v as usize]);
                let normal = (b - a).cross(c - a).normalize_or_zero();
                let side = if i % 2 == 0 { 1.0 } else { -1.0 };
                let p = (a + b + c) / 3.0 + normal * side * r.random_range(0.05..0.9) * radius;
                let best = distances(&avatar, &posed, p)
                    .into_iter()
                    .filter(|d| *d <= radius)
                    .fold(None, |m: Option<f32>, d| Some(m.map_or(d, |m| m.min(d))));
                let before = query.stats();
                let contact = query.closest(&avatar, p, radius, &mut scratch).unwrap();
                assert_eq!(
                    contact.map(|c| c.distance),
                    best,
                    "{bones} bones, point {i} at {p}"
                );
                let after = query.stats();
                skipped_cells += (after.nodes_tested - before.nodes_tested)
                    .saturating_sub(after.slab_hits - before.slab_hits);
                // Any hint (the answer, a random triangle, a far one) gives the same answer.
                let hints = [
                    contact.map(|c| c.triangle),
                    Some(r.random_range(0..mesh.triangle_count()) as u32),
                    Some(0),
                ];
                for hint in hints {
                    let hinted = query.closest_with_hint(&avatar, p, radius, hint).unwrap();
                    assert_eq!(hinted, contact, "{bones} bones, point {i}, hint {hint:?}");
                }
            }
        }
    }
    assert!(skipped_cells > 0, "the points exercise the pruning");
}

#[test]
fn seed_fixed_tolerance_boxes_miss_sliding_skin_that_conservative_boxes_keep() {
    let mut fox =
        SubdividedFox::load(rapier3d_deform_scenes::asset_path("skinned/Fox.glb"), 0).unwrap();
    let avatar = fox_avatar(&fox);
    let mut query = AvatarQuery::new();
    let clip = fox.clip("Run").unwrap().clone();
    let mut misses = 0;
    for k in 0..8 {
        let governors = fox
            .governors_at(&clip, clip.duration() * k as f32 / 8.0)
            .unwrap();
        query.begin_frame(&avatar, &governors).unwrap();
        misses += query.seed_tolerance_misses(&avatar, 0.05).unwrap();
        // Every posed vertex finds every triangle around it at radius 0.
        let mut posed = Vec::new();
        deform_vertices(
            avatar.rest_positions(),
            avatar.weights(),
            &governors,
            &mut posed,
        );
        let mut candidates = Vec::new();
        for (t, tri) in avatar.mesh().triangles().iter().enumerate() {
            for &v in tri {
                query
                    .candidates(&avatar, posed[v as usize], 0.0, &mut candidates)
                    .unwrap();
                assert!(
                    candidates.contains(&(t as u32)),
                    "frame {k}: vertex {v}, triangle {t}"
                );
            }
        }
    }
    assert!(misses > 0, "the seed's 5 % boxes should miss running skin");
    // At rest, the seed's boxes hold everything.
    query
        .begin_frame(
            &avatar,
            &vec![Affine::IDENTITY; fox.skinning().bone_count()],
        )
        .unwrap();
    assert_eq!(query.seed_tolerance_misses(&avatar, 0.0).unwrap(), 0);
}

#[test]
fn per_box_margins_hold_every_triangle_within_radius_plus_its_boxs_margin() {
    // Uniform margins give exactly the candidates of the enlarged radius; unequal margins hold
    // every triangle within `radius + margin` of any box listing it, by brute force.
    let mut r = rng(23);
    let mesh = tube(2.0, 24, 16);
    let weights = tube_weights(&mesh, 4, 2.0, 3);
    let avatar =
        AvatarBoxes::build(&mesh, mesh.positions(), &weights, AvatarOptions::default()).unwrap();
    let mut query = AvatarQuery::new();
    let boxes = avatar.box_count();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..6 {
        let governors: Vec<Affine> = (0..4).map(|_| random_governor(&mut r, 0.5, 0.3)).collect();
        query.begin_frame(&avatar, &governors).unwrap();
        let mut posed = Vec::new();
        deform_vertices(
            avatar.rest_positions(),
            avatar.weights(),
            &governors,
            &mut posed,
        );
        let margins: Vec<f32> = (0..boxes).map(|_| r.random_range(0.0..0.3)).collect();
        for p in query_points(&mut r, &posed, 0.1, 30) {
            query
                .candidates_with_margins(&avatar, p, 0.05, &vec![0.1; boxes], &mut a)
                .unwrap();
            query.candidates(&avatar, p, 0.15, &mut b).unwrap();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
            query
                .candidates_with_margins(&avatar, p, 0.05, &margins, &mut a)
                .unwrap();
            let d = distances(&avatar, &posed, p);
            // The smallest margin of any box bounds what every triangle is owed.
            let least = margins.iter().copied().fold(f32::MAX, f32::min);
            for (t, &dt) in d.iter().enumerate() {
                if dt <= 0.05 + least {
                    assert!(a.contains(&(t as u32)), "triangle {t} at {dt}");
                }
            }
        }
    }
}
