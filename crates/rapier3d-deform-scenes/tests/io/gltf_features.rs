//! Contract: glTF features beyond the sample characters load as the specification defines them:
//! several JOINTS_n/WEIGHTS_n sets (more than 4 influences) with normalized u8/u16 weights,
//! triangle strips and fans, STEP and CUBICSPLINE samplers, sparse and interleaved accessors,
//! data-URI buffers, and several mesh nodes merged in scene space. Each is checked against values
//! computed here from the raw data.

use super::io_support;

use io_support::{Glb, identity16, ribbon};
use rapier3d_deform::governor::{Affine, GovernedDeformation};
use rapier3d_deform::io::{Interpolation, LoadOptions, MeshSpace, Property, load_gltf_slice};
use rapier3d_deform::math::{Mat3, Vec3};

/// Deterministic pseudo-random numbers in [0, 1) (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn six_influences_from_two_sets_with_normalized_u8_and_u16_weights() {
    let mut b = Glb::new();
    let (p, t) = ribbon(5);
    let n = p.len() / 3;
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Set 0: u8 normalized weights on joints (v, v+1, v+2, v+3) mod 6; set 1: u16 normalized on
    // (v+4, v+5) mod 6 and two zero slots.
    let mut j0 = Vec::new();
    let mut w0 = Vec::new();
    let mut j1 = Vec::new();
    let mut w1 = Vec::new();
    for v in 0..n {
        for k in 0..4 {
            j0.push(((v + k) % 6) as u8);
            w0.push((1 + (rng.next() * 254.0) as u32) as u8);
        }
        for k in 4..6 {
            j1.push(((v + k) % 6) as u16);
            w1.push((1 + (rng.next() * 65534.0) as u32) as u16);
        }
        j1.extend([0u16, 0]);
        w1.extend([0u16, 0]);
    }
    let j0a = b.u8s(&j0, "VEC4", false);
    let w0a = b.u8s(&w0, "VEC4", true);
    let j1a = b.u16s(&j1, "VEC4", false);
    let w1a = b.u16s(&w1, "VEC4", true);
    let ibm = b.floats(&identity16().repeat(6), "MAT4");
    let glb = b.glb(&format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{pos},"JOINTS_0":{j0a},"WEIGHTS_0":{w0a},"JOINTS_1":{j1a},"WEIGHTS_1":{w1a}}},"indices":{idx}}}]}}],"skins":[{{"joints":[1,2,3,4,5,6],"inverseBindMatrices":{ibm}}}],"nodes":[{{"mesh":0,"skin":0}},{{}},{{}},{{}},{{}},{{}},{{}}]"#
    ));
    let (asset, report) = load_gltf_slice(&glb, &LoadOptions::strict()).unwrap();
    let mut skin = asset.skinning.unwrap();
    assert_eq!(skin.weights().max_influences(), 6);
    // Normalized integer weights do not sum to 1: every row is renormalised and counted.
    assert_eq!(report.renormalised_weight_rows, n);
    let bones: Vec<Affine> = (0..6)
        .map(|k| {
            let a = k as f32 * 0.4;
            Affine::new(
                Mat3::from_rotation_y(a) * (1.0 + 0.1 * k as f32),
                Vec3::new(0.3 * k as f32, -0.2, 0.05 * k as f32),
            )
        })
        .collect();
    skin.set_bone_transforms(&bones).unwrap();
    let ours = skin.deformed_positions();
    for v in 0..n {
        let mut inf: Vec<(usize, f64)> = Vec::new();
        for k in 0..4 {
            inf.push((j0[4 * v + k] as usize, w0[4 * v + k] as f64 / 255.0));
            inf.push((j1[4 * v + k] as usize, w1[4 * v + k] as f64 / 65535.0));
        }
        let sum: f64 = inf.iter().map(|x| x.1).sum();
        let p0 = [p[3 * v] as f64, p[3 * v + 1] as f64, p[3 * v + 2] as f64];
        let mut want = [0.0f64; 3];
        for (jt, w) in inf {
            let bone = &bones[jt];
            let m = bone.linear.to_cols_array();
            for r in 0..3 {
                let q = (0..3).map(|c| m[3 * c + r] as f64 * p0[c]).sum::<f64>()
                    + bone.translation[r] as f64;
                want[r] += w / sum * q;
            }
        }
        let got = ours[asset.render.to_welded[v] as usize];
        for r in 0..3 {
            assert!(
                (got[r] as f64 - want[r]).abs() < 1e-5,
                "vertex {v}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn strips_and_fans_follow_the_spec_winding() {
    // A zig-zag strip of 6 vertices and a fan of 5 around the origin, all in the z = 0 plane.
    let mut b = Glb::new();
    let strip: Vec<f32> = (0..6)
        .flat_map(|i| [(i / 2) as f32, (i % 2) as f32, 0.0])
        .collect();
    let fan: Vec<f32> = [0.0f32, 0.0, 0.0]
        .into_iter()
        .chain((0..4).flat_map(|k| {
            let a = k as f32 * 0.5;
            [a.cos(), a.sin(), 0.0]
        }))
        .collect();
    let sp = b.floats(&strip, "VEC3");
    let fp = b.floats(&fan, "VEC3");
    let glb = b.glb(&format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{sp}}},"mode":5}},{{"attributes":{{"POSITION":{fp}}},"mode":6}}]}}],"nodes":[{{"mesh":0}}]"#
    ));
    let (asset, _) = load_gltf_slice(&glb, &LoadOptions::default()).unwrap();
    assert_eq!(asset.space, MeshSpace::Node(0));
    // Strip triangle i = (i, i+1+i%2, i+2-i%2); fan triangle i = (i+1, i+2, 0); fan offset 6.
    let expected: Vec<[u32; 3]> = vec![
        [0, 1, 2],
        [1, 3, 2],
        [2, 3, 4],
        [3, 5, 4],
        [7, 8, 6],
        [8, 9, 6],
        [9, 10, 6],
    ];
    assert_eq!(asset.render.triangles, expected);
    // Consistent winding: every strip triangle has the same facing; so has every fan triangle.
    let facing = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| asset.render.positions[i as usize]);
        (b - a).cross(c - a).z.signum()
    };
    let strip_facing: Vec<f32> = expected[..4].iter().map(facing).collect();
    assert!(
        strip_facing.iter().all(|&f| f == strip_facing[0]),
        "{strip_facing:?}"
    );
    assert!(expected[4..].iter().all(|t| facing(t) > 0.0));
}

#[test]
fn step_and_cubic_spline_samplers_drive_node_transforms() {
    let mut b = Glb::new();
    let (p, t) = ribbon(1);
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let times = b.floats(&[0.0, 1.0, 2.5], "SCALAR");
    let steps = b.floats(&[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, -1.0, 0.0, 0.0], "VEC3");
    // Cubic spline on x of the scale: f(t) = t³ − t + 2 with exact derivative tangents.
    let f = |t: f64| t * t * t - t + 2.0;
    let df = |t: f64| 3.0 * t * t - 1.0;
    let mut cs = Vec::new();
    for tk in [0.0, 1.0, 2.5] {
        for v in [df(tk), f(tk), df(tk)] {
            cs.extend([v as f32, 1.0, 1.0]);
        }
    }
    // The y and z tangents above are 1, not 0: make them 0 so y = z = 1 throughout.
    for k in 0..9 {
        if k % 3 != 1 {
            cs[3 * k + 1] = 0.0;
            cs[3 * k + 2] = 0.0;
        }
    }
    let cubic = b.floats(&cs, "VEC3");
    let glb = b.glb(&format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx}}}]}}],"nodes":[{{"mesh":0,"children":[1]}},{{}}],"animations":[{{"name":"mixed","samplers":[{{"input":{times},"output":{steps},"interpolation":"STEP"}},{{"input":{times},"output":{cubic},"interpolation":"CUBICSPLINE"}}],"channels":[{{"sampler":0,"target":{{"node":1,"path":"translation"}}}},{{"sampler":1,"target":{{"node":1,"path":"scale"}}}}]}}]"#
    ));
    let (asset, _) = load_gltf_slice(&glb, &LoadOptions::strict()).unwrap();
    let clip = asset.clip("mixed").unwrap();
    assert_eq!(clip.duration(), 2.5);
    assert_eq!(
        clip.channels()[0].sampler.interpolation(),
        Interpolation::Step
    );
    assert_eq!(clip.channels()[1].property, Property::Scale);
    for t in [0.0f32, 0.4, 0.99, 1.0, 1.7, 2.49, 2.5, 4.0] {
        let w = asset.skeleton.node_world_transforms(Some(clip), t)[1];
        let step = if t < 1.0 {
            Vec3::ZERO
        } else if t < 2.5 {
            Vec3::new(1.0, 2.0, 3.0)
        } else {
            Vec3::new(-1.0, 0.0, 0.0)
        };
        assert!(
            w.translation.distance(step) < 1e-6,
            "t = {t}: {:?}",
            w.translation
        );
        let sx = f((t as f64).min(2.5)) as f32;
        assert!(
            (w.linear.x_axis.x - sx).abs() < 1e-4 * sx,
            "t = {t}: {} vs {sx}",
            w.linear.x_axis.x
        );
        assert!((w.linear.y_axis.y - 1.0).abs() < 1e-6);
    }
}

#[test]
fn sparse_and_interleaved_accessors() {
    let mut b = Glb::new();
    let (p, t) = ribbon(2);
    // Interleave positions with a dummy float per vertex: stride 16.
    let mut bytes = Vec::new();
    for v in p.chunks(3) {
        for x in v.iter().chain(&[99.0f32]) {
            bytes.extend(x.to_le_bytes());
        }
    }
    let view = b.view(&bytes, Some(16));
    let base = b.accessor(format!(
        r#"{{"bufferView":{view},"componentType":5126,"count":6,"type":"VEC3","min":[0,0,0],"max":[2,1,0]}}"#
    ));
    let idx = b.u16s(&t, "SCALAR", false);
    // Sparse: vertices 1 and 4 get z = 0.5 and 0.25.
    let si = b.view(&[1u8, 4], None);
    let sv_bytes: Vec<u8> = [0.0f32, 1.0, 0.5, 2.0, 0.0, 0.25]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let sv = b.view(&sv_bytes, None);
    let sparse = b.accessor(format!(
        r#"{{"bufferView":{view},"componentType":5126,"count":6,"type":"VEC3","min":[0,0,0],"max":[2,1,0.5],"sparse":{{"count":2,"indices":{{"bufferView":{si},"componentType":5121}},"values":{{"bufferView":{sv}}}}}}}"#
    ));
    for (acc, expect_z) in [(base, [0.0; 6]), (sparse, [0.0, 0.5, 0.0, 0.0, 0.25, 0.0])] {
        let glb = b.glb(&format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{acc}}},"indices":{idx}}}]}}],"nodes":[{{"mesh":0}}]"#
        ));
        let (asset, _) = load_gltf_slice(&glb, &LoadOptions::default()).unwrap();
        for v in 0..6 {
            let q = asset.render.positions[v];
            let want = Vec3::new(p[3 * v], p[3 * v + 1], expect_z[v]);
            assert_eq!(q, want, "accessor {acc} vertex {v}");
        }
    }
}

#[test]
fn several_mesh_nodes_merge_in_scene_space() {
    let mut b = Glb::new();
    let (p, t) = ribbon(1);
    let pos = b.floats(&p, "VEC3");
    let idx = b.u16s(&t, "SCALAR", false);
    let glb = b.glb(&format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx}}}]}}],"nodes":[{{"children":[1,2],"translation":[0,0,5]}},{{"mesh":0}},{{"mesh":0,"translation":[10,0,0],"scale":[2,2,2]}}],"scenes":[{{"nodes":[0]}}]"#
    ));
    let (asset, report) = load_gltf_slice(&glb, &LoadOptions::default()).unwrap();
    assert_eq!(asset.space, MeshSpace::Scene);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(asset.mesh.vertex_count(), 8);
    assert_eq!(asset.mesh.triangle_count(), 4);
    for v in 0..4 {
        let q = Vec3::new(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
        assert_eq!(asset.render.positions[v], q + Vec3::new(0.0, 0.0, 5.0));
        assert_eq!(
            asset.render.positions[4 + v],
            2.0 * q + Vec3::new(10.0, 0.0, 5.0)
        );
    }
    // Picking one node keeps its local space.
    let opts = LoadOptions {
        mesh_node: Some(2),
        ..LoadOptions::default()
    };
    let (one, report) = load_gltf_slice(&glb, &opts).unwrap();
    assert_eq!(one.space, MeshSpace::Node(2));
    assert_eq!(one.mesh.vertex_count(), 4);
    assert_eq!(report.warnings.len(), 1, "node 1 is reported as not loaded");
}

#[test]
fn simple_skin_with_data_uri_buffers_loads_from_memory() {
    let bytes = std::fs::read(rapier3d_deform_scenes::asset_path(
        "skinned/SimpleSkin.gltf",
    ))
    .unwrap();
    let (asset, report) = load_gltf_slice(&bytes, &LoadOptions::strict()).unwrap();
    assert_eq!(report.render_vertices, 10);
    assert_eq!(asset.render.triangles.len(), 8);
    assert_eq!(asset.skeleton.joints().len(), 2);
    assert_eq!(asset.clips.len(), 1);
    assert!((asset.clips[0].duration() - 5.5).abs() < 1e-6);
    // At rest both joints have world transform translate(0, 1, 0) and both inverse binds are
    // translate(-0.5, -1, 0) (as stored in the file), so joint world × inverse bind moves every
    // vertex by (-0.5, 0, 0) whatever its weights.
    let mut skin = asset.skinning.unwrap();
    skin.set_bone_transforms(&asset.skeleton.rest_world_transforms())
        .unwrap();
    for (a, b) in skin.deformed_positions().iter().zip(asset.mesh.positions()) {
        assert!(
            a.distance(*b + Vec3::new(-0.5, 0.0, 0.0)) < 1e-6,
            "{a:?} vs {b:?}"
        );
    }
}
