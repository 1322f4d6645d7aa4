//! Contract: `LimitInterferenceQuery` (seed Fig. 6) on the limit surface of a closed control mesh covers every crossing of the level-k Loop mesh (brute force over all triangle pairs) with a reported pair of sub-patches whose domains hold the crossing triangles, reports no interfering polygons on a jittered sphere, gives the same answer after lazy per-frame refits (all or some control points moved) as a hierarchy posed once, lists the sub-patches it reached, finds overlapping surfaces pairwise, and refuses bad control meshes with typed errors.

use rapier3d_deform::DeformError;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::limit_surface::{
    InterferenceRegion, LimitHierarchy, LimitInterference, LimitInterferenceQuery, SizeTolerance,
    SubPatch, SubPatchView, ToleranceOracle,
};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::validation::self_collisions_brute_force;
use rapier3d_deform_scenes::subdiv::{bend, sphere_cage, tube_cage};

const RADIUS: f32 = 0.5;
const LENGTH: f32 = 4.0;

/// The tube cage bent by `angle` over an arc short enough (radius 0.8 · tube radius at π) that the
/// fold interpenetrates.
fn posed_tube(angle: f32) -> (TriangleMesh, Vec<Vec3>) {
    let cage = tube_cage(8, 8, RADIUS, LENGTH);
    let posed = bend(
        cage.positions(),
        1.6,
        0.8 * RADIUS * std::f32::consts::PI,
        angle,
    );
    (cage, posed)
}

/// Barycentric corners (over the control triangle's vertex order) of level-`k` triangle `f`
/// of `LoopSubdivision` (children `[a, ab, ca]`, `[ab, b, bc]`, `[ca, bc, c]`, `[ab, bc, ca]`).
fn fine_domain(f: usize, k: u32) -> (usize, [[f64; 3]; 3]) {
    let mut d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for l in (0..k).rev() {
        let child = (f >> (2 * l)) & 3;
        let mid = |a: [f64; 3], b: [f64; 3]| [0, 1, 2].map(|i| 0.5 * (a[i] + b[i]));
        let (ab, bc, ca) = (mid(d[0], d[1]), mid(d[1], d[2]), mid(d[2], d[0]));
        d = match child {
            0 => [d[0], ab, ca],
            1 => [ab, d[1], bc],
            2 => [ca, bc, d[2]],
            _ => [ab, bc, ca],
        };
    }
    (f >> (2 * k), d)
}

/// Whether the centroid of `inner` lies in the triangle `outer` (barycentric domains).
fn holds(outer: &[[f64; 3]; 3], inner: &[[f64; 3]; 3]) -> bool {
    let c = [0, 1, 2].map(|i| (inner[0][i] + inner[1][i] + inner[2][i]) / 3.0);
    // Solve c = α o0 + β o1 + γ o2 in the (x1, x2) chart.
    let (o0, o1, o2) = (outer[0], outer[1], outer[2]);
    let det = (o1[1] - o0[1]) * (o2[2] - o0[2]) - (o2[1] - o0[1]) * (o1[2] - o0[2]);
    let beta = ((c[1] - o0[1]) * (o2[2] - o0[2]) - (o2[1] - o0[1]) * (c[2] - o0[2])) / det;
    let gamma = ((o1[1] - o0[1]) * (c[2] - o0[2]) - (c[1] - o0[1]) * (o1[2] - o0[2])) / det;
    let eps = 1e-12;
    beta >= -eps && gamma >= -eps && beta + gamma <= 1.0 + eps
}

fn covers(r: &InterferenceRegion, fa: (usize, [[f64; 3]; 3]), fb: (usize, [[f64; 3]; 3])) -> bool {
    let hit = |s: &SubPatch, f: &(usize, [[f64; 3]; 3])| s.patch == f.0 && holds(&s.domain, &f.1);
    (hit(&r.a, &fa) && hit(&r.b, &fb)) || (hit(&r.a, &fb) && hit(&r.b, &fa))
}

/// Every crossing pair of the level-`k` mesh lies in a reported pair of sub-patches.
fn assert_level_k_covered(cage: &TriangleMesh, posed: &[Vec3], k: u32) -> (usize, usize) {
    let mut oracle = SizeTolerance {
        tolerance: 0.0,
        max_depth: k,
    };
    let (crossings, res) = assert_covered_with(cage, posed, k, &mut oracle);
    (crossings, res.interfering().count())
}

/// The query with `oracle` on `cage` posed at `posed`, and every crossing pair of the level-`k`
/// mesh (brute force) asserted to lie in a reported pair of sub-patches: the number of
/// crossings and the query's result.
pub(crate) fn assert_covered_with(
    cage: &TriangleMesh,
    posed: &[Vec3],
    k: u32,
    oracle: &mut dyn ToleranceOracle,
) -> (usize, LimitInterference) {
    let mut h = LimitHierarchy::new(cage).unwrap();
    h.set_control_points(posed).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let res = q.detect_self(&mut h, oracle).unwrap().clone();
    let posed_cage = TriangleMesh::new(posed.to_vec(), cage.triangles().to_vec()).unwrap();
    let fine = LoopSubdivision::new(posed_cage, k).unwrap();
    let pairs = self_collisions_brute_force(fine.mesh(), fine.mesh().positions()).unwrap();
    for [f1, f2] in &pairs {
        let (da, db) = (fine_domain(*f1 as usize, k), fine_domain(*f2 as usize, k));
        assert!(
            res.regions.iter().any(|r| covers(r, da, db)),
            "level-{k} crossing {f1}–{f2} (patches {} and {}) not covered by {} regions",
            da.0,
            db.0,
            res.regions.len()
        );
    }
    (pairs.len(), res)
}

#[test]
fn folded_tube_covers_every_level_k_crossing() {
    let (cage, posed) = posed_tube(std::f32::consts::PI);
    for k in [1, 2] {
        let (crossings, interfering) = assert_level_k_covered(&cage, &posed, k);
        assert!(
            crossings > 50,
            "the fold must cross at level {k}: {crossings}"
        );
        assert!(interfering > 0, "level {k}: no interfering polygons");
    }
}

#[test]
fn straight_and_mildly_bent_tubes_report_no_interfering_polygons() {
    for angle in [0.0, 0.6] {
        let (cage, posed) = posed_tube(angle);
        let (crossings, interfering) = assert_level_k_covered(&cage, &posed, 2);
        assert_eq!((crossings, interfering), (0, 0), "angle {angle}");
    }
}

#[test]
fn jittered_sphere_reports_no_interference_at_the_finest_tolerance() {
    let cage = sphere_cage(2, 0.02);
    let mut h = LimitHierarchy::new(&cage).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut oracle = SizeTolerance {
        tolerance: 0.0,
        max_depth: 4,
    };
    let res = q.detect_self(&mut h, &mut oracle).unwrap();
    assert_eq!(res.interfering().count(), 0);
    assert!(res.unresolved_self.is_empty(), "{:?}", res.unresolved_self);
    // The hierarchy and the refinement prune: under 1 % of the level-4 sub-patch pairs are tested.
    let subs = h.patch_count() as u64 * 256;
    assert!(res.stats.pair_tests < subs * subs / 200, "{:?}", res.stats);
}

#[test]
fn lazy_refits_over_frames_match_a_hierarchy_posed_once() {
    let cage = tube_cage(8, 8, RADIUS, LENGTH);
    let mut live = LimitHierarchy::new(&cage).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut oracle = SizeTolerance {
        tolerance: 0.05,
        max_depth: 2,
    };
    let frames = [0.0f32, 0.8, 1.6, 2.4, std::f32::consts::PI];
    let mut counts = Vec::new();
    for &angle in &frames {
        let posed = bend(
            cage.positions(),
            1.6,
            0.8 * RADIUS * std::f32::consts::PI,
            angle,
        );
        live.set_control_points(&posed).unwrap();
        let got = q.detect_self(&mut live, &mut oracle).unwrap().clone();
        let mut fresh = LimitHierarchy::new(&cage).unwrap();
        fresh.set_control_points(&posed).unwrap();
        let mut q2 = LimitInterferenceQuery::new();
        let want = q2.detect_self(&mut fresh, &mut oracle).unwrap();
        assert_eq!(got.regions, want.regions, "angle {angle}");
        assert_eq!(got.unresolved_self, want.unresolved_self, "angle {angle}");
        counts.push(got.interfering().count());
    }
    assert_eq!(counts[0], 0);
    assert!(counts[frames.len() - 1] > 0, "{counts:?}");
}

/// Frames that move only some control points (a random subset, a few at a time) keep the bounds
/// of the untouched patches: every frame's result equals a hierarchy posed once, fewer patch
/// bounds are recomputed than there are patches, and a query without the contour condition in
/// between does not leak its weaker star outcomes into a later query with it.
#[test]
fn frames_moving_some_control_points_match_a_hierarchy_posed_once() {
    let (cage, bent) = posed_tube(std::f32::consts::PI);
    let mut live = LimitHierarchy::new(&cage).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut loose = LimitInterferenceQuery::new().without_contour();
    let mut oracle = SizeTolerance {
        tolerance: 0.05,
        max_depth: 2,
    };
    let mut seed = 0x853c_49e6_748f_ea9bu64;
    let mut next = || {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut posed = bent.clone();
    live.set_control_points(&posed).unwrap();
    q.detect_self(&mut live, &mut oracle).unwrap();
    for frame in 0..6 {
        // Move about 5 % of the control points by up to 2 cm.
        for p in posed.iter_mut() {
            if next() < 0.05 {
                *p += Vec3::new(
                    next() as f32 - 0.5,
                    next() as f32 - 0.5,
                    next() as f32 - 0.5,
                ) * 0.04;
            }
        }
        live.set_control_points(&posed).unwrap();
        if frame % 2 == 1 {
            loose.detect_self(&mut live, &mut oracle).unwrap();
        }
        let got = q.detect_self(&mut live, &mut oracle).unwrap().clone();
        let mut fresh = LimitHierarchy::new(&cage).unwrap();
        fresh.set_control_points(&posed).unwrap();
        let mut q2 = LimitInterferenceQuery::new();
        let want = q2.detect_self(&mut fresh, &mut oracle).unwrap();
        assert_eq!(got.regions, want.regions, "frame {frame}");
        assert_eq!(got.unresolved_self, want.unresolved_self, "frame {frame}");
        assert!(got.interfering().count() > 0, "frame {frame}");
        assert!(
            got.stats.patch_bounds_computed < want.stats.patch_bounds_computed,
            "frame {frame}: {} recomputed, {} from scratch",
            got.stats.patch_bounds_computed,
            want.stats.patch_bounds_computed
        );
        for t in 0..cage.triangle_count() {
            assert_eq!(
                live.patch_aabb(t).unwrap(),
                fresh.patch_aabb(t).unwrap(),
                "frame {frame} patch {t}"
            );
        }
    }
}

/// `subpatches` lists what the query reached (seed Fig. 10): as many items as patches entered
/// and sub-patches created, every reported region's two sub-patches among them, depths within
/// the oracle's, and every deeper sub-patch's domain inside one a level up on the same patch.
#[test]
fn subpatches_list_where_refinement_stopped() {
    let (cage, posed) = posed_tube(std::f32::consts::PI);
    let mut h = LimitHierarchy::new(&cage).unwrap();
    h.set_control_points(&posed).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut oracle = SizeTolerance {
        tolerance: 0.05,
        max_depth: 2,
    };
    q.detect_self(&mut h, &mut oracle).unwrap();
    let res = q.result();
    let subs: Vec<SubPatch> = q.subpatches().collect();
    assert_eq!(
        subs.len() as u64,
        res.stats.patches_entered + res.stats.subpatches_created
    );
    assert!(
        subs.iter().any(|s| s.depth == 2),
        "the fold refines to depth 2"
    );
    for r in &res.regions {
        for x in [r.a, r.b] {
            assert!(subs.contains(&x), "{x:?}");
        }
    }
    let contains = |outer: &SubPatch, p: [f64; 3]| {
        let o = outer.domain;
        // Barycentric coordinates of p in the outer domain (2D over components 1 and 2).
        let det =
            (o[1][1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (o[1][2] - o[0][2]);
        let b =
            ((p[1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (p[2] - o[0][2])) / det;
        let g =
            ((o[1][1] - o[0][1]) * (p[2] - o[0][2]) - (p[1] - o[0][1]) * (o[1][2] - o[0][2])) / det;
        b >= -1e-12 && g >= -1e-12 && b + g <= 1.0 + 1e-12
    };
    for s in subs.iter().filter(|s| s.depth > 0) {
        assert!(s.depth <= 2);
        let centroid = [0, 1, 2].map(|i| (s.domain[0][i] + s.domain[1][i] + s.domain[2][i]) / 3.0);
        let parent = subs
            .iter()
            .find(|p| p.patch == s.patch && p.depth + 1 == s.depth && contains(p, centroid))
            .unwrap_or_else(|| panic!("no parent of {s:?}"));
        for c in s.domain {
            assert!(contains(parent, c), "{s:?} outside {parent:?}");
        }
    }
}

#[test]
fn two_surfaces_interfere_only_when_they_overlap() {
    let a = sphere_cage(1, 0.0);
    let mut ha = LimitHierarchy::new(&a).unwrap();
    let mut hb = LimitHierarchy::new(&a).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut oracle = |x: &SubPatchView<'_>, _: &SubPatchView<'_>| x.sub.depth < 3;
    for (dx, expect) in [(1.5f32, true), (2.5, false)] {
        let moved: Vec<Vec3> = a.positions().iter().map(|&p| p + Vec3::X * dx).collect();
        hb.set_control_points(&moved).unwrap();
        let res = q.detect_pair(&mut ha, &mut hb, &mut oracle).unwrap();
        assert_eq!(res.interfering().count() > 0, expect, "dx {dx}");
        for r in &res.regions {
            assert_eq!((r.a.surface, r.b.surface), (0, 1));
        }
    }
}

#[test]
fn bad_control_meshes_and_points_are_typed_errors() {
    // An open grid: boundary vertices.
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
    let open = TriangleMesh::new(p, vec![[0, 1, 2], [1, 3, 2]]).unwrap();
    assert!(matches!(
        LimitHierarchy::new(&open),
        Err(DeformError::BoundaryVertex { .. })
    ));
    // Two tetrahedra glued along one edge: a non-manifold edge.
    let p = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::new(0.3, -1.0, 0.2),
        Vec3::new(0.2, 0.3, -1.0),
    ];
    let t = vec![
        [0, 2, 1],
        [0, 1, 3],
        [1, 2, 3],
        [0, 3, 2],
        [0, 1, 4],
        [1, 5, 4],
        [0, 4, 5],
        [0, 5, 1],
    ];
    let bad = TriangleMesh::new(p, t).unwrap();
    assert!(matches!(
        LimitHierarchy::new(&bad),
        Err(DeformError::NonManifoldEdge { .. } | DeformError::InconsistentOrientation { .. })
    ));
    let cage = sphere_cage(1, 0.0);
    let mut h = LimitHierarchy::new(&cage).unwrap();
    assert!(matches!(
        h.set_control_points(&[Vec3::ZERO]),
        Err(DeformError::LengthMismatch { .. })
    ));
    let mut nan = cage.positions().to_vec();
    nan[3].y = f32::NAN;
    assert!(matches!(
        h.set_control_points(&nan),
        Err(DeformError::NonFinitePosition { index: 3, .. })
    ));
    // A collapsed pose (every control point at one place) and an oracle that always refines:
    // the budget ends the query, nothing panics, nothing is dropped.
    h.set_control_points(&vec![Vec3::ONE; cage.vertex_count()])
        .unwrap();
    let mut q = LimitInterferenceQuery::new().with_budget(512);
    let mut always = |_: &SubPatchView<'_>, _: &SubPatchView<'_>| true;
    let res = q.detect_self(&mut h, &mut always).unwrap();
    assert!(res.budget_reached);
    assert!(!res.regions.is_empty());
}

/// Closest distance from `p` to triangle `t` (f64; Ericson's region tests).
fn point_triangle_distance(p: [f64; 3], t: [[f64; 3]; 3]) -> f64 {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (a, b, c) = (t[0], t[1], t[2]);
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    let at = |q: [f64; 3]| dot(sub(p, q), sub(p, q)).sqrt();
    let along =
        |o: [f64; 3], e: [f64; 3], s: f64| [o[0] + s * e[0], o[1] + s * e[1], o[2] + s * e[2]];
    if d1 <= 0.0 && d2 <= 0.0 {
        return at(a);
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return at(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return at(along(a, ab, d1 / (d1 - d3)));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return at(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return at(along(a, ac, d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return at(along(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    at([0, 1, 2].map(|i| a[i] + ab[i] * v + ac[i] * w))
}

/// A surface lying between the limit surface and the level-k mesh near an irregular vertex: a
/// small closed blob centred at the limit point of a valence-12 apex crosses the limit surface
/// (the apex's limit point lies on it and inside the blob), yet the blob's level-k mesh stays
/// farther than the level-k mesh of the apex is from that point, so the level-k meshes do not
/// cross. The limit-surface query reports the pair; the brute-force level-k test finds nothing.
#[test]
fn limit_crossing_that_the_level_k_mesh_misses_near_an_irregular_vertex() {
    let n = 12usize;
    let mut p = vec![Vec3::new(0.0, 0.0, 0.6), Vec3::new(0.0, 0.0, -0.6)];
    for i in 0..n {
        let a = std::f32::consts::TAU * i as f32 / n as f32;
        p.push(Vec3::new(a.cos(), a.sin(), 0.0));
    }
    let mut t = Vec::new();
    for i in 0..n as u32 {
        let (a, b) = (2 + i, 2 + (i + 1) % n as u32);
        t.push([0, a, b]);
        t.push([1, b, a]);
    }
    let coarse = TriangleMesh::new(p, t).unwrap();
    let cage = LoopSubdivision::new(coarse, 1).unwrap().mesh().clone();
    // Limit point of the apex (vertex 0 keeps its index and valence 12): Loop's limit mask.
    let ring: Vec<u32> = {
        let mut r: Vec<u32> = cage
            .triangles()
            .iter()
            .filter(|tri| tri.contains(&0))
            .flat_map(|tri| tri.iter().copied().filter(|&v| v != 0))
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    };
    assert_eq!(ring.len(), n);
    let beta = {
        let c = 0.375 + 0.25 * (std::f64::consts::TAU / n as f64).cos();
        (0.625 - c * c) / n as f64
    };
    let chi = 1.0 / (3.0 / (8.0 * beta) + n as f64);
    let q = |v: u32| {
        let x = cage.positions()[v as usize];
        [x.x as f64, x.y as f64, x.z as f64]
    };
    let mut c0 = q(0).map(|x| (1.0 - n as f64 * chi) * x);
    for &r in &ring {
        let x = q(r);
        for (c, xd) in c0.iter_mut().zip(x) {
            *c += chi * xd;
        }
    }
    let k = 2;
    let fine1 = LoopSubdivision::new(cage.clone(), k).unwrap();
    let corners = |m: &TriangleMesh, tri: [u32; 3]| {
        tri.map(|v| {
            let x = m.positions()[v as usize];
            [x.x as f64, x.y as f64, x.z as f64]
        })
    };
    let gap = fine1
        .mesh()
        .triangles()
        .iter()
        .map(|&tri| point_triangle_distance(c0, corners(fine1.mesh(), tri)))
        .fold(f64::INFINITY, f64::min);
    assert!(
        gap > 1e-3,
        "the level-{k} mesh passes within {gap} of the limit apex"
    );
    // The blob: an octahedron of radius 0.45 · gap around the limit apex, one Loop step.
    let eps = 0.45 * gap as f32;
    let centre = Vec3::new(c0[0] as f32, c0[1] as f32, c0[2] as f32);
    let blob_cage = {
        let s = sphere_cage(1, 0.0);
        let pts: Vec<Vec3> = s.positions().iter().map(|&x| centre + eps * x).collect();
        TriangleMesh::new(pts, s.triangles().to_vec()).unwrap()
    };
    let fine2 = LoopSubdivision::new(blob_cage.clone(), k).unwrap();
    // Level k: no triangle pair of the two meshes meets (every blob vertex is within eps of the
    // centre, every apex-mesh point at least gap away).
    for &a in fine1.mesh().triangles() {
        for &b in fine2.mesh().triangles() {
            assert!(!rapier3d_deform::geometry::triangles_intersect(
                a.map(|v| fine1.mesh().positions()[v as usize]),
                b.map(|v| fine2.mesh().positions()[v as usize]),
            ));
        }
    }
    // Limit: the query reports the blob against the apex patches.
    let mut h1 = LimitHierarchy::new(&cage).unwrap();
    let mut h2 = LimitHierarchy::new(&blob_cage).unwrap();
    let mut q = LimitInterferenceQuery::new();
    let mut oracle = SizeTolerance {
        tolerance: 0.0,
        max_depth: k,
    };
    let res = q.detect_pair(&mut h1, &mut h2, &mut oracle).unwrap();
    let apex_patches: Vec<usize> = (0..cage.triangle_count())
        .filter(|&t| cage.triangles()[t].contains(&0))
        .collect();
    assert!(
        res.regions
            .iter()
            .any(|r| apex_patches.contains(&r.a.patch)),
        "no region at the apex: {:?}",
        res.stats
    );
    // The flat polygons run through limit points (the apex sub-patches have a corner at the limit
    // apex, inside the blob): they interfere too.
    assert!(
        res.interfering().any(|r| apex_patches.contains(&r.a.patch)),
        "{} regions, none interfering at the apex",
        res.regions.len()
    );
}
