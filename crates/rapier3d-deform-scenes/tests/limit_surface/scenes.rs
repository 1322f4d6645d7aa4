//! Contract: the control meshes of the `subdiv_torus` and `subdiv_sphere` scenes (seed Fig. 11, 12) are closed oriented manifolds of the intended genus (the torus with irregular vertices), their prescribed deformations self-intersect only at the end, and at every scene tolerance the limit-surface query covers every crossing of the level-k mesh (brute force) with a reported pair of sub-patches, finds interfering polygons where the level-k mesh crosses, and refines deeper as the tolerance shrinks.

use super::detect::assert_covered_with;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::limit_surface::{LimitHierarchy, LimitInterferenceQuery};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::subdiv::{
    EdgeTolerance, SPHERE_PUSH, SPHERE_TOLERANCES, TORUS_TOLERANCES, evert_cap, level_resolving,
    push_bridge, sphere_cage, torus_cage, torus_cells, voxel_surface,
};
use std::collections::{HashMap, HashSet};

/// Checks closedness, orientation and single-fan vertices by brute force; the genus and the
/// valence of every vertex, or what is wrong.
fn closed_manifold_genus(mesh: &TriangleMesh) -> Result<(i64, Vec<usize>), String> {
    let mut next: HashMap<(u32, u32), u32> = HashMap::new();
    for t in mesh.triangles() {
        for c in 0..3 {
            let e = (t[c], t[(c + 1) % 3]);
            if next.insert(e, t[(c + 2) % 3]).is_some() {
                return Err(format!("directed edge {e:?} twice"));
            }
        }
    }
    if let Some((a, b)) = next.keys().find(|(a, b)| !next.contains_key(&(*b, *a))) {
        return Err(format!("edge {a}–{b} has one side"));
    }
    let mut incident = vec![0usize; mesh.vertex_count()];
    let mut any = vec![u32::MAX; mesh.vertex_count()];
    for t in mesh.triangles() {
        for c in 0..3 {
            incident[t[c] as usize] += 1;
            any[t[c] as usize] = t[(c + 1) % 3];
        }
    }
    let mut valences = Vec::new();
    for v in 0..mesh.vertex_count() as u32 {
        if incident[v as usize] < 3 {
            return Err(format!("vertex {v} unused or degenerate"));
        }
        // Walk the fan around v: one cycle through every incident triangle.
        let start = any[v as usize];
        let (mut r, mut steps) = (start, 0);
        loop {
            r = next[&(v, r)];
            steps += 1;
            if r == start || steps > incident[v as usize] {
                break;
            }
        }
        if steps != incident[v as usize] {
            return Err(format!("vertex {v}: several fans"));
        }
        valences.push(steps);
    }
    let (v, e, f) = (
        mesh.vertex_count() as i64,
        next.len() as i64 / 2,
        mesh.triangle_count() as i64,
    );
    let chi = v - e + f;
    if chi % 2 != 0 {
        return Err(format!("odd Euler characteristic {chi}"));
    }
    Ok(((2 - chi) / 2, valences))
}

fn level_k_crossings(cage: &TriangleMesh, posed: &[Vec3], k: u32) -> usize {
    let posed_cage = TriangleMesh::new(posed.to_vec(), cage.triangles().to_vec()).unwrap();
    let fine = LoopSubdivision::new(posed_cage, k).unwrap();
    self_collisions_brute_force(fine.mesh(), fine.mesh().positions())
        .unwrap()
        .len()
}

#[test]
fn torus_cage_is_a_closed_genus_three_manifold_with_irregular_vertices() {
    let coarse = voxel_surface(&torus_cells(), 1.0, Vec3::ZERO).unwrap();
    let (genus, valences) = closed_manifold_genus(&coarse).unwrap();
    assert_eq!(genus, 3);
    let kinds: HashSet<usize> = valences.iter().copied().collect();
    assert!(
        kinds.len() >= 3 && kinds.contains(&6) && kinds.iter().any(|&n| n != 6),
        "{kinds:?}"
    );
    let cage = torus_cage();
    let (genus, valences) = closed_manifold_genus(&cage).unwrap();
    assert_eq!(genus, 3);
    let irregular = valences.iter().filter(|&&n| n != 6).count();
    assert!(
        irregular > 20 && irregular < cage.vertex_count() / 4,
        "{irregular}"
    );
    // No triangle with two irregular corners (the limit patches' requirement), and the cage
    // is accepted as a control mesh.
    for t in cage.triangles() {
        let odd = t.iter().filter(|&&v| valences[v as usize] != 6).count();
        assert!(odd <= 1, "{t:?}");
    }
    LimitHierarchy::new(&cage).unwrap();
    // The checker is not blind: two voxels meeting only along an edge make a non-manifold
    // edge, and one voxel is a closed genus-0 cube.
    let bad = voxel_surface(&[[0, 0, 0], [1, 1, 0]], 1.0, Vec3::ZERO).unwrap();
    assert!(closed_manifold_genus(&bad).is_err());
    let cube = voxel_surface(&[[0, 0, 0]], 1.0, Vec3::ZERO).unwrap();
    assert_eq!(closed_manifold_genus(&cube).unwrap().0, 0);
}

#[test]
fn the_level_that_resolves_a_tolerance_is_the_smallest() {
    let longest = |cage: &TriangleMesh, k: u32| {
        let s = LoopSubdivision::new(cage.clone(), k).unwrap();
        let p = s.mesh().positions();
        s.mesh()
            .triangles()
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .map(|(a, b)| p[a as usize].distance(p[b as usize]) as f64)
            .fold(0.0, f64::max)
    };
    for (cage, tolerances) in [
        (torus_cage(), TORUS_TOLERANCES),
        (sphere_cage(3, 0.0), SPHERE_TOLERANCES),
    ] {
        let mut previous = 0;
        for t in tolerances {
            let k = level_resolving(&cage, t, 5);
            assert!(k >= previous && k < 5, "tolerance {t}: level {k}");
            assert!(longest(&cage, k) <= t, "tolerance {t}: level {k}");
            if k > 0 {
                assert!(longest(&cage, k - 1) > t, "tolerance {t}: level {k}");
            }
            previous = k;
        }
    }
}

#[test]
fn sphere_cage_is_a_closed_genus_zero_manifold() {
    let cage = sphere_cage(3, 0.0);
    let (genus, valences) = closed_manifold_genus(&cage).unwrap();
    assert_eq!(genus, 0);
    assert_eq!(valences.iter().filter(|&&n| n != 6).count(), 6);
    LimitHierarchy::new(&cage).unwrap();
}

#[test]
fn prescribed_deformations_self_intersect_only_at_the_end() {
    let torus = torus_cage();
    // Points on the frame and the bar (z ≤ ¼) never move; the middle of the bridge moves fully.
    let pushed = push_bridge(torus.positions(), 1.0);
    for (p, q) in torus.positions().iter().zip(&pushed) {
        if p.z <= 0.25 {
            assert_eq!(p, q);
        }
        if p.z >= 0.75 && p.y.abs() <= 0.5 {
            assert!((p.z - q.z - 1.0).abs() < 1e-5);
        }
    }
    assert_eq!(level_k_crossings(&torus, torus.positions(), 2), 0);
    assert_eq!(
        level_k_crossings(&torus, &push_bridge(torus.positions(), 0.3), 2),
        0
    );
    assert!(level_k_crossings(&torus, &pushed, 2) > 50);
    let sphere = sphere_cage(3, 0.0);
    assert_eq!(
        level_k_crossings(&sphere, &evert_cap(sphere.positions(), 1.0), 3),
        0
    );
    assert!(level_k_crossings(&sphere, &evert_cap(sphere.positions(), SPHERE_PUSH), 3) > 50);
}

/// Per tolerance (coarse to fine): coverage of the level-k crossings, interfering polygons
/// found, and the deepest sub-patch and the number created, which grow as the tolerance
/// shrinks.
fn tolerances_cover_and_deepen(cage: &TriangleMesh, posed: &[Vec3], tolerances: &[f64]) {
    let mut last = (0u32, 0u64);
    for (i, &tolerance) in tolerances.iter().enumerate() {
        let k = level_resolving(cage, tolerance, 5);
        let mut oracle = EdgeTolerance {
            tolerance,
            max_depth: k,
        };
        let (crossings, res) = assert_covered_with(cage, posed, k, &mut oracle);
        assert!(crossings > 0, "tolerance {tolerance}: level {k} must cross");
        assert!(res.interfering().count() > 0, "tolerance {tolerance}");
        assert!(!res.budget_reached);
        let mut h = LimitHierarchy::new(cage).unwrap();
        h.set_control_points(posed).unwrap();
        let mut q = LimitInterferenceQuery::new();
        q.detect_self(&mut h, &mut oracle).unwrap();
        let deepest = q.subpatches().map(|s| s.depth).max().unwrap();
        let created = q.result().stats.subpatches_created;
        assert_eq!(deepest, k, "tolerance {tolerance}");
        if i > 0 {
            assert!(
                deepest > last.0 && created > last.1,
                "tolerance {tolerance}: depth {deepest}, {created} sub-patches after {last:?}"
            );
        }
        last = (deepest, created);
    }
}

#[test]
fn torus_interference_is_covered_and_refined_at_every_tolerance() {
    let cage = torus_cage();
    let posed = push_bridge(cage.positions(), 1.0);
    tolerances_cover_and_deepen(&cage, &posed, &TORUS_TOLERANCES);
}

#[test]
fn everted_sphere_interference_is_covered_and_refined_at_every_tolerance() {
    let cage = sphere_cage(3, 0.0);
    let posed = evert_cap(cage.positions(), SPHERE_PUSH);
    tolerances_cover_and_deepen(&cage, &posed, &SPHERE_TOLERANCES);
}

#[test]
fn rest_poses_report_no_interfering_polygons_at_any_tolerance() {
    for (cage, tolerances) in [
        (torus_cage(), TORUS_TOLERANCES),
        (sphere_cage(3, 0.0), SPHERE_TOLERANCES),
    ] {
        let mut h = LimitHierarchy::new(&cage).unwrap();
        let mut q = LimitInterferenceQuery::new();
        for tolerance in tolerances {
            let mut oracle = EdgeTolerance {
                tolerance,
                max_depth: level_resolving(&cage, tolerance, 5),
            };
            let res = q.detect_self(&mut h, &mut oracle).unwrap();
            assert_eq!(res.interfering().count(), 0, "tolerance {tolerance}");
        }
    }
}
