//! Contract: broken or unusual glTF input gives a typed `LoadError` naming the object at fault
//! (missing files, points/lines primitives, skins without inverse bind matrices when strict,
//! mismatched accessor counts, NaN data, zero-sum weights when strict, joints out of range,
//! accessors outside their buffers, unresolvable buffers, invalid hierarchies and animations),
//! and the lenient repairs are counted in the `LoadReport`. Inputs are small GLBs built in memory.

use super::io_support;

use io_support::{Glb, identity16, ribbon};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::io::{LoadError, LoadOptions, load_gltf, load_gltf_slice};
use rapier3d_deform::math::{Mat3, Vec3};

/// A 4-segment ribbon along x skinned to two joints (root at the origin, child at x = 2).
struct Rig {
    b: Glb,
    pos: usize,
    idx: usize,
    joints: usize,
    weights: usize,
    ibm: Option<usize>,
    mode: u32,
    attrs: String,
    nodes: String,
    animations: String,
}

fn rig() -> Rig {
    let mut b = Glb::new();
    let (p, t) = ribbon(4);
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let mut j = Vec::new();
    let mut w = Vec::new();
    for v in 0..10 {
        let x = (v / 2) as f32;
        j.extend([0u8, 1, 0, 0]);
        let a = (1.0 - (x - 1.0).clamp(0.0, 2.0) / 2.0).clamp(0.0, 1.0);
        w.extend([a, 1.0 - a, 0.0, 0.0]);
    }
    let joints = b.u8s(&j, "VEC4", false);
    let weights = b.floats(&w, "VEC4");
    let mut ib = identity16().to_vec();
    let mut ib1 = identity16();
    ib1[12] = -2.0;
    ib.extend(ib1);
    let ibm = Some(b.floats(&ib, "MAT4"));
    Rig {
        b,
        pos,
        idx,
        joints,
        weights,
        ibm,
        mode: 4,
        attrs: String::new(),
        nodes: r#"{"mesh":0,"skin":0},{"children":[2]},{"translation":[2.0,0.0,0.0]}"#.into(),
        animations: String::new(),
    }
}

impl Rig {
    fn glb(&self) -> Vec<u8> {
        let ibm = self
            .ibm
            .map_or(String::new(), |i| format!(r#","inverseBindMatrices":{i}"#));
        let anim = if self.animations.is_empty() {
            String::new()
        } else {
            format!(r#","animations":[{}]"#, self.animations)
        };
        self.b.glb(&format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{},"JOINTS_0":{},"WEIGHTS_0":{}{}}},"indices":{},"mode":{}}}]}}],"skins":[{{"joints":[1,2]{ibm}}}],"nodes":[{}],"scenes":[{{"nodes":[0,1]}}],"scene":0{anim}"#,
            self.pos, self.joints, self.weights, self.attrs, self.idx, self.mode, self.nodes
        ))
    }
}

fn lenient(bytes: &[u8]) -> Result<(), LoadError> {
    load_gltf_slice(bytes, &LoadOptions::default()).map(|_| ())
}

fn strict(bytes: &[u8]) -> Result<(), LoadError> {
    load_gltf_slice(bytes, &LoadOptions::strict()).map(|_| ())
}

#[test]
fn the_base_rig_loads_cleanly_and_bends() {
    let (asset, report) = load_gltf_slice(&rig().glb(), &LoadOptions::strict()).unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(asset.mesh.vertex_count(), 10);
    assert_eq!(asset.mesh.triangle_count(), 8);
    // Rotating the child joint by 90° about z bends the far end of the ribbon up.
    let mut skin = asset.skinning.unwrap();
    let rot = Affine::new(
        Mat3::from_rotation_z(std::f32::consts::FRAC_PI_2),
        Vec3::new(2.0, 0.0, 0.0),
    );
    skin.set_bone_transforms(&[Affine::IDENTITY, rot]).unwrap();
    let p = skin.deformed_positions();
    // Vertex 8 is (4, 0, 0), fully on joint 1: rest offset (2, 0, 0) from the joint → (2, 2, 0).
    assert!(p[8].distance(Vec3::new(2.0, 2.0, 0.0)) < 1e-5, "{:?}", p[8]);
    // Vertex 0 is on joint 0 only and stays.
    assert!(p[0].distance(Vec3::ZERO) < 1e-6);
}

#[test]
fn missing_file_is_an_io_error() {
    let e = load_gltf("/nonexistent/dir/missing.glb", &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Io { .. }), "{e}");
    assert!(e.to_string().contains("missing.glb"));
}

#[test]
fn missing_external_buffer_file_is_an_io_error() {
    let dir = std::env::temp_dir().join(format!("rapier3d_deform_io_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("external.gltf");
    std::fs::write(
        &file,
        r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"absent.bin"}]}"#,
    )
    .unwrap();
    let e = load_gltf(&file, &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(&e, LoadError::Io { path, .. } if path.ends_with("absent.bin")),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn points_and_lines_are_unsupported_primitive_modes() {
    for (mode, name) in [
        (0, "POINTS"),
        (1, "LINES"),
        (2, "LINE_LOOP"),
        (3, "LINE_STRIP"),
    ] {
        let mut r = rig();
        r.mode = mode;
        let e = lenient(&r.glb()).unwrap_err();
        assert!(
            matches!(e, LoadError::UnsupportedPrimitiveMode { mesh: 0, primitive: 0, mode } if mode == name),
            "{e}"
        );
    }
}

#[test]
fn skin_without_inverse_binds_is_an_error_when_strict_and_identity_otherwise() {
    let mut r = rig();
    r.ibm = None;
    let e = strict(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::MissingInverseBindMatrices { skin: 0 }),
        "{e}"
    );
    let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(report.skins_without_inverse_bind, vec![0]);
    assert!(!report.is_clean());
    let skin = asset.skinning.unwrap();
    assert!(skin.inverse_bind().iter().all(|a| *a == Affine::IDENTITY));
}

#[test]
fn mismatched_accessor_counts_are_typed_errors() {
    // NORMAL shorter than POSITION.
    let mut r = rig();
    let n = r.b.floats(&[0.0, 0.0, 1.0].repeat(9), "VEC3");
    r.attrs = format!(r#","NORMAL":{n}"#);
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::MismatchedAccessorCount { accessor, expected: 10, actual: 9, ref what } if accessor == n && what.contains("NORMAL")),
        "{e}"
    );
    // Fewer inverse bind matrices than joints.
    let mut r = rig();
    let ibm = r.b.floats(&identity16(), "MAT4");
    r.ibm = Some(ibm);
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::MismatchedAccessorCount {
                expected: 2,
                actual: 1,
                ..
            }
        ),
        "{e}"
    );
    // Animation output count not matching its input.
    let mut r = rig();
    let times = r.b.floats(&[0.0, 1.0], "SCALAR");
    let values = r.b.floats(&[0.0; 9], "VEC3");
    r.animations = format!(
        r#"{{"samplers":[{{"input":{times},"output":{values}}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"translation"}}}}]}}"#
    );
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::MismatchedAccessorCount { accessor, expected: 2, actual: 3, .. } if accessor == values),
        "{e}"
    );
}

#[test]
fn nan_data_is_a_typed_error() {
    // NaN position.
    let mut r = rig();
    let (mut p, _) = ribbon(4);
    p[3 * 7 + 1] = f32::NAN;
    r.pos = r.b.floats(&p, "VEC3");
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::NonFiniteData { element: 7, ref what, .. } if what.contains("POSITION")),
        "{e}"
    );
    // Infinite inverse bind matrix.
    let mut r = rig();
    let mut ib = identity16().to_vec();
    ib.extend(identity16());
    ib[16 + 13] = f32::INFINITY;
    r.ibm = Some(r.b.floats(&ib, "MAT4"));
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::NonFiniteData { element: 1, .. }),
        "{e}"
    );
    // NaN keyframe time and NaN keyframe value.
    for (times, values) in [
        ([0.0, f32::NAN], [0.0; 6]),
        ([0.0, 1.0], [0.0, 0.0, 0.0, 1.0, f32::NAN, 0.0]),
    ] {
        let mut r = rig();
        let ti = r.b.floats(&times, "SCALAR");
        let vi = r.b.floats(&values, "VEC3");
        r.animations = format!(
            r#"{{"samplers":[{{"input":{ti},"output":{vi}}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"translation"}}}}]}}"#
        );
        let e = lenient(&r.glb()).unwrap_err();
        assert!(
            matches!(e, LoadError::NonFiniteData { element: 1, .. }),
            "{e}"
        );
    }
    // Weights: NaN.
    let mut r = rig();
    let mut w = [1.0f32, 0.0, 0.0, 0.0].repeat(10);
    w[4 * 3] = f32::NAN;
    r.weights = r.b.floats(&w, "VEC4");
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::NonFiniteData { element: 3, .. }),
        "{e}"
    );
}

#[test]
fn non_finite_node_transform_is_a_typed_error() {
    let mut r = rig();
    // 1e39 overflows f32.
    r.nodes = r#"{"mesh":0,"skin":0},{"children":[2]},{"translation":[1e39,0.0,0.0]}"#.into();
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::NonFiniteNodeTransform { node: 2 }),
        "{e}"
    );
}

#[test]
fn zero_weight_rows_bind_to_the_root_or_fail_when_strict() {
    let mut r = rig();
    let mut w = Vec::new();
    for v in 0..10 {
        w.extend(if v == 4 || v == 9 {
            [0.0f32; 4]
        } else {
            [0.0, 1.0, 0.0, 0.0]
        });
    }
    r.weights = r.b.floats(&w, "VEC4");
    let e = strict(&r.glb()).unwrap_err();
    assert!(matches!(e, LoadError::ZeroWeights { vertex: 4 }), "{e}");
    let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(report.zero_weight_vertices, vec![4, 9]);
    assert_eq!(asset.skeleton.root_joint(), 0);
    let skin = asset.skinning.unwrap();
    for v in [4usize, 9] {
        let wv = asset.render.to_welded[v] as usize;
        assert_eq!(skin.weights().row(wv), (&[0u32][..], &[1.0f32][..]));
    }
}

#[test]
fn joint_index_out_of_range_is_a_typed_error_unless_its_weight_is_zero() {
    let mut r = rig();
    let mut j = [0u8, 1, 0, 0].repeat(10);
    j[4 * 6 + 2] = 7; // weight 0 there: ignored
    r.joints = r.b.u8s(&j, "VEC4", false);
    assert!(lenient(&r.glb()).is_ok());
    j[4] = 9; // slot 0 of vertex 1 has weight 1
    r.joints = r.b.u8s(&j, "VEC4", false);
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::JointIndexOutOfRange {
                vertex: 1,
                joint: 9,
                joint_count: 2
            }
        ),
        "{e}"
    );
}

#[test]
fn accessors_outside_their_buffer_are_typed_errors() {
    let mut r = rig();
    // 11 VEC3 floats from a view of 10.
    let view = r.b.views.len();
    let (p, _) = ribbon(4);
    r.b.floats(&p, "VEC3");
    r.pos = r.b.accessor(format!(
        r#"{{"bufferView":{view},"componentType":5126,"count":11,"type":"VEC3","min":[0,0,0],"max":[4,1,0]}}"#
    ));
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::Accessor { accessor, .. } if accessor == r.pos),
        "{e}"
    );
    // Index past the vertices.
    let mut r = rig();
    r.idx = r.b.u16s(&[0, 1, 10], "SCALAR", false);
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::IndexOutOfRange {
                index: 10,
                vertex_count: 10,
                ..
            }
        ),
        "{e}"
    );
    // Float indices.
    let mut r = rig();
    r.idx = r.b.floats(&[0.0, 1.0, 2.0], "SCALAR");
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::Accessor { accessor, .. } if accessor == r.idx),
        "{e}"
    );
    // Buffer shorter than its byteLength.
    let r = rig();
    let json = r.b.json("").replacen(
        &format!(r#""byteLength":{}}}"#, r.b.bin.len()),
        &format!(r#""byteLength":{}}}"#, r.b.bin.len() + 64),
        1,
    );
    let e = lenient(&r.b.glb_with_json(&json)).unwrap_err();
    assert!(matches!(e, LoadError::Buffer { buffer: 0, .. }), "{e}");
}

#[test]
fn unresolvable_buffers_and_garbage_are_typed_errors() {
    let e = lenient(br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"x.bin"}]}"#)
        .unwrap_err();
    assert!(
        matches!(&e, LoadError::Buffer { buffer: 0, reason } if reason.contains("x.bin")),
        "{e}"
    );
    let e = lenient(
        br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":3,"uri":"data:application/octet-stream;base64,A$=="}]}"#,
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::Buffer { buffer: 0, .. }), "{e}");
    let e = lenient(
        br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":3,"uri":"https://example.com/a.bin"}]}"#,
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::Buffer { buffer: 0, .. }), "{e}");
    assert!(matches!(
        lenient(b"not a gltf").unwrap_err(),
        LoadError::Gltf { .. }
    ));
    assert!(matches!(
        lenient(b"glTF\x02\0\0\0").unwrap_err(),
        LoadError::Gltf { .. }
    ));
    // Valid JSON without meshes.
    let e = lenient(br#"{"asset":{"version":"2.0"}}"#).unwrap_err();
    assert!(matches!(e, LoadError::NoMesh { .. }), "{e}");
    // A requested node without a mesh.
    let opts = LoadOptions {
        mesh_node: Some(1),
        ..LoadOptions::default()
    };
    let e = load_gltf_slice(&rig().glb(), &opts).unwrap_err();
    assert!(matches!(e, LoadError::NoMesh { .. }), "{e}");
}

#[test]
fn invalid_hierarchies_are_typed_errors() {
    // Node 2 is a child of nodes 1 and 0.
    let mut r = rig();
    r.nodes = r#"{"mesh":0,"skin":0,"children":[2]},{"children":[2]},{}"#.into();
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::InvalidHierarchy { node: 2, .. }),
        "{e}"
    );
    // A cycle 1 → 2 → 1.
    let mut r = rig();
    r.nodes = r#"{"mesh":0,"skin":0},{"children":[2]},{"children":[1]}"#.into();
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(e, LoadError::InvalidHierarchy { node: 1, .. }),
        "{e}"
    );
}

#[test]
fn invalid_animations_are_typed_errors() {
    // Decreasing keyframe times.
    let mut r = rig();
    let ti = r.b.floats(&[1.0, 0.0], "SCALAR");
    let vi = r.b.floats(&[0.0; 6], "VEC3");
    r.animations = format!(
        r#"{{"samplers":[{{"input":{ti},"output":{vi}}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"translation"}}}}]}}"#
    );
    let e = lenient(&r.glb()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::InvalidAnimation {
                animation: 0,
                channel: 0,
                ..
            }
        ),
        "{e}"
    );
    // Weights channel on a node without morph targets: error when strict, skipped with a warning
    // otherwise.
    let mut r = rig();
    let ti = r.b.floats(&[0.0, 1.0], "SCALAR");
    let vi = r.b.floats(&[0.0, 1.0], "SCALAR");
    r.animations = format!(
        r#"{{"samplers":[{{"input":{ti},"output":{vi}}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"weights"}}}}]}}"#
    );
    let e = strict(&r.glb()).unwrap_err();
    assert!(matches!(e, LoadError::InvalidAnimation { .. }), "{e}");
    let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(asset.clips[0].channels().len(), 0);
    assert_eq!(report.warnings.len(), 1, "{report:?}");
}

#[test]
fn triangles_degenerate_after_welding_are_dropped_and_counted() {
    // Vertex 10 duplicates vertex 2 (a seam); triangle [2, 10, 3] collapses once welded.
    let mut r = rig();
    let (mut p, mut t) = ribbon(4);
    p.extend([1.0, 0.0, 0.0]);
    t.extend([2, 10, 3]);
    r.pos = r.b.floats(&p, "VEC3");
    r.idx = r.b.u16s(&t, "SCALAR", false);
    let mut j = [0u8, 1, 0, 0].repeat(11);
    j.truncate(44);
    r.joints = r.b.u8s(&j, "VEC4", false);
    r.weights = r.b.floats(&[0.5f32, 0.5, 0.0, 0.0].repeat(11), "VEC4");
    let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(report.dropped_triangles, vec![8]);
    assert_eq!(report.render_vertices, 11);
    assert_eq!(report.welded_vertices, 10);
    assert_eq!(asset.render.triangles.len(), 9, "render triangles are kept");
    assert_eq!(asset.mesh.triangle_count(), 8);
    assert_eq!(asset.render.to_welded[10], asset.render.to_welded[2]);
}

#[test]
fn morph_target_mismatches_are_typed_errors() {
    let mut b = Glb::new();
    let (p, t) = ribbon(1);
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let d4 = b.floats(&[0.0, 0.0, 1.0].repeat(4), "VEC3");
    let d3 = b.floats(&[0.0, 0.0, 1.0].repeat(3), "VEC3");
    let doc = |prims: &str, weights: &str| {
        b.glb(&format!(
            r#""meshes":[{{"primitives":[{prims}]{weights}}}],"nodes":[{{"mesh":0}}]"#
        ))
    };
    let with = |d: usize| {
        format!(
            r#"{{"attributes":{{"POSITION":{pos}}},"indices":{idx},"targets":[{{"POSITION":{d}}}]}}"#
        )
    };
    let without = format!(r#"{{"attributes":{{"POSITION":{pos}}},"indices":{idx}}}"#);
    // Valid: one target, default weight from the mesh.
    let (asset, _) = load_gltf_slice(
        &doc(&with(d4), r#","weights":[0.25]"#),
        &LoadOptions::strict(),
    )
    .unwrap();
    assert_eq!(asset.default_morph_weights, vec![0.25]);
    let m = asset.morph.unwrap().deformed_positions();
    assert!((m[0].z - 0.25).abs() < 1e-7);
    // Primitives disagreeing on the number of targets.
    let e = lenient(&doc(&format!("{},{without}", with(d4)), "")).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::MorphTargets {
                mesh: 0,
                primitive: 1,
                ..
            }
        ),
        "{e}"
    );
    // Default weights of the wrong length.
    let e = lenient(&doc(&with(d4), r#","weights":[0.25,1.0]"#)).unwrap_err();
    assert!(matches!(e, LoadError::MorphTargets { mesh: 0, .. }), "{e}");
    // A target with fewer deltas than vertices.
    let e = lenient(&doc(&with(d3), "")).unwrap_err();
    assert!(
        matches!(e, LoadError::MismatchedAccessorCount { accessor, expected: 4, actual: 3, .. } if accessor == d3),
        "{e}"
    );
}

/// Found by the fuzzer: gltf-json 1.4's validation indexes accessors with the POSITION attribute
/// before checking the index; the loader checks it first and returns an error instead of panicking.
#[test]
fn position_accessor_out_of_range_is_an_error_not_a_panic() {
    let json = br#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":1}}]}],"nodes":[{"mesh":0}]}"#;
    let e = lenient(json).unwrap_err();
    assert!(
        matches!(&e, LoadError::Gltf { message } if message.contains("POSITION")),
        "{e}"
    );
}

/// Found by the fuzzer: gltf-json 1.4 does not validate animation channel targets; the loader
/// checks the node index and path itself.
#[test]
fn channel_targets_are_checked() {
    for (target, strict_only) in [
        (r#"{"node":42,"path":"translation"}"#, false),
        (r#"{"node":2,"path":"pointer"}"#, true),
    ] {
        let mut r = rig();
        let ti = r.b.floats(&[0.0, 1.0], "SCALAR");
        let vi = r.b.floats(&[0.0; 6], "VEC3");
        r.animations = format!(
            r#"{{"samplers":[{{"input":{ti},"output":{vi}}}],"channels":[{{"sampler":0,"target":{target}}}]}}"#
        );
        let e = strict(&r.glb()).unwrap_err();
        assert!(
            matches!(
                e,
                LoadError::InvalidAnimation {
                    animation: 0,
                    channel: 0,
                    ..
                }
            ),
            "{e}"
        );
        if strict_only {
            let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
            assert!(asset.clips[0].channels().is_empty());
            assert_eq!(report.warnings.len(), 1);
        } else {
            assert!(lenient(&r.glb()).is_err());
        }
    }
}

/// Weights `[3e38, 3e38]` used to sum to infinity in `f32` and were reported as "weights sum to
/// -0"; the sum is taken in `f64`, so the row renormalises to one half each.
#[test]
fn huge_finite_weights_renormalise_to_their_proportions() {
    let mut r = rig();
    let mut w = Vec::new();
    for v in 0..10 {
        w.extend(if v == 3 {
            [3e38f32, 3e38, 0.0, 0.0]
        } else {
            [1.0, 0.0, 0.0, 0.0]
        });
    }
    r.weights = r.b.floats(&w, "VEC4");
    let (asset, report) = load_gltf_slice(&r.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(report.renormalised_weight_rows, 1);
    let skin = asset.skinning.unwrap();
    let wv = asset.render.to_welded[3] as usize;
    assert_eq!(skin.weights().row(wv), (&[0u32, 1][..], &[0.5f32, 0.5][..]));
}
