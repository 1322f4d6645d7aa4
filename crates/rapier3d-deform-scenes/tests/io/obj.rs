//! Contract: OBJ files load into a welded, validated `TriangleMesh`: Keenan Crane's Spot keeps
//! its published counts (2,930 vertices, 5,856 triangles, closed); polygons are fan-triangulated;
//! objects are merged and welded across; bad input (missing file, index out of range, garbage)
//! is a typed error; degenerate faces are dropped and counted.

use rapier3d_deform_scenes::asset_path;

use rapier3d_deform::io::{LoadError, LoadOptions, load_obj, load_obj_slice};

#[test]
fn spot_loads_closed_with_its_published_counts() {
    let path = asset_path("closed/spot.obj");
    let (asset, report) = load_obj(&path, &LoadOptions::default()).unwrap();
    assert_eq!(asset.mesh.vertex_count(), 2930);
    assert_eq!(asset.mesh.triangle_count(), 5856);
    assert!(report.dropped_triangles.is_empty());
    assert!(
        asset
            .mesh
            .edge_neighbours()
            .iter()
            .all(|n| n.iter().all(|&x| x != u32::MAX)),
        "Spot is closed"
    );
    // Euler characteristic of a sphere: V − E + F = 2 with E = 3F/2.
    let v = asset.mesh.vertex_count() as i64;
    let f = asset.mesh.triangle_count() as i64;
    assert_eq!(v - 3 * f / 2 + f, 2);
    // The welded vertices are exactly the distinct `v` positions of the file.
    let text = std::fs::read_to_string(&path).unwrap();
    let mut raw: Vec<[u32; 3]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let c: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [c[0], c[1], c[2]].map(f32::to_bits)
        })
        .collect();
    raw.sort_unstable();
    raw.dedup();
    let mut ours: Vec<[u32; 3]> = asset
        .mesh
        .positions()
        .iter()
        .map(|p| [p.x, p.y, p.z].map(f32::to_bits))
        .collect();
    ours.sort_unstable();
    assert_eq!(ours, raw);
    assert_eq!(report.render_vertices, asset.to_welded.len());
}

#[test]
fn quads_are_triangulated_and_objects_welded_across() {
    // Two objects sharing an edge (repeated `v` lines): a quad and a triangle.
    let obj = b"o a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\no b\nv 1 0 0\nv 2 0 0\nv 1 1 0\nf 5 6 7\n";
    let (asset, report) = load_obj_slice(obj, &LoadOptions::default()).unwrap();
    assert_eq!(asset.object_names, ["a", "b"]);
    assert_eq!(report.render_vertices, 7);
    assert_eq!(asset.mesh.vertex_count(), 5);
    assert_eq!(asset.mesh.triangle_count(), 3);
    let area: f32 = (0..3)
        .map(|t| asset.mesh.triangle_area(asset.mesh.positions(), t))
        .sum();
    assert!((area - 1.5).abs() < 1e-6);
    // Two interior edges (the quad's diagonal and the edge (1,0,0)–(1,1,0) shared across the
    // objects), each seen from both of its triangles.
    let shared = asset
        .mesh
        .edge_neighbours()
        .iter()
        .flatten()
        .filter(|&&x| x != u32::MAX)
        .count();
    assert_eq!(shared, 4);
}

#[test]
fn degenerate_faces_are_dropped_and_counted() {
    let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nf 1 2 4\n";
    let (asset, report) = load_obj_slice(obj, &LoadOptions::default()).unwrap();
    assert_eq!(report.dropped_triangles, vec![1]);
    assert_eq!(asset.mesh.triangle_count(), 1);
}

#[test]
fn bad_obj_input_is_a_typed_error() {
    let e = load_obj("/nonexistent/spot.obj", &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Io { .. }), "{e}");
    let e = load_obj_slice(b"v 0 0 0\nv 1 0 0\nf 1 2 7\n", &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Obj { .. }), "{e}");
    let e = load_obj_slice(b"v 0 0 x\nf 1 1 1\n", &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Obj { .. }), "{e}");
    let e = load_obj_slice(
        b"v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::Obj { .. }), "{e}");
    let e = load_obj_slice(b"# nothing\n", &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Deform(_)), "{e}");
}
