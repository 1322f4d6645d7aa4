//! Contract: `load_gltf_scene` loads every mesh node of every bundled glTF asset whole — its load report's mesh-node, render-vertex, triangle and joint counts equal an independent count made with the `gltf` crate's readers; nodes can be selected by index or name; `GltfContents` lists what a file holds; bad scenes (cycles, joints outside the scene, morph counts that differ between primitives, default or animated weights of the wrong length, clips animating missing nodes) are typed errors, never panics.

use super::gltf_reference::{RefFile, all_gltf_assets};
use super::io_support::{Glb, identity16, ribbon};
use rapier3d_deform::io::{
    BoneKind, GltfContents, LoadError, LoadOptions, NodeSelection, load_gltf_scene,
    load_gltf_scene_slice,
};
use rapier3d_deform_scenes::asset_path;

#[test]
fn every_asset_loads_whole_and_its_report_matches_the_gltf_readers() {
    let assets = all_gltf_assets();
    assert!(assets.len() >= 10, "{assets:?}");
    for path in &assets {
        let (scene, report) = load_gltf_scene(path, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = RefFile::open(path);
        let nodes = r.scene_mesh_nodes();
        let all: Vec<gltf::Node<'_>> = r.doc.nodes().collect();
        let mut triangles = 0;
        let mut vertices = 0;
        let mut skins: Vec<usize> = Vec::new();
        let mut targets = 0;
        for &n in &nodes {
            let mesh = all[n].mesh().unwrap();
            for p in mesh.primitives() {
                triangles += r.triangle_count(&p);
                vertices += p
                    .reader(|b| Some(&r.buffers[b.index()]))
                    .read_positions()
                    .unwrap()
                    .count();
            }
            targets += mesh
                .primitives()
                .next()
                .map_or(0, |p| p.morph_targets().len());
            if let Some(s) = all[n].skin()
                && !skins.contains(&s.index())
            {
                skins.push(s.index());
            }
        }
        let joints: usize = skins
            .iter()
            .map(|&s| r.doc.skins().nth(s).unwrap().joints().count())
            .sum();
        let name = path.display();
        assert_eq!(report.mesh_nodes, nodes, "{name}: mesh nodes");
        assert_eq!(report.render_triangles, triangles, "{name}: triangles");
        assert_eq!(report.render_vertices, vertices, "{name}: render vertices");
        assert_eq!(report.joints, joints, "{name}: joints");
        assert_eq!(report.morph_targets, targets, "{name}: morph targets");
        assert_eq!(scene.parts.len(), nodes.len(), "{name}");
        assert_eq!(scene.render.triangles.len(), triangles, "{name}");
        assert_eq!(
            scene.mesh.triangle_count() + report.dropped_triangles.len(),
            triangles,
            "{name}: every triangle is in the collision mesh or reported dropped"
        );
        assert_eq!(scene.skinning.bone_count(), report.governors, "{name}");
        // The contents list the same nodes and triangles.
        let contents = report.contents.as_ref().unwrap();
        assert_eq!(contents.nodes, all.len(), "{name}");
        assert_eq!(contents.scene_triangles(), triangles, "{name}");
        assert_eq!(contents.skins.len(), r.doc.skins().count(), "{name}");
        assert_eq!(contents.clips.len(), r.doc.animations().count(), "{name}");
        let printed = report.to_string();
        assert!(
            printed.contains(&format!("loaded {} mesh node(s)", nodes.len()))
                && printed.contains(&format!("{triangles} triangles")),
            "{name}: {printed}"
        );
        println!("{name}\n{report}");
    }
}

#[test]
fn the_kenney_character_is_six_rigid_parts_following_its_animated_nodes() {
    let path = asset_path("skinned/kenney_platformer_character.glb");
    let (scene, report) = load_gltf_scene(&path, &LoadOptions::default()).unwrap();
    assert_eq!(scene.parts.len(), 6, "{report}");
    assert!(
        scene
            .parts
            .iter()
            .all(|p| p.skin.is_none() && p.bone.is_some())
    );
    assert!(
        scene.bones.iter().all(|b| b.kind == BoneKind::Node),
        "every part hangs from an animated node: {:?}",
        scene.bones
    );
    // Weight 1 on one bone per vertex.
    let w = rapier3d_deform::governor::GovernedDeformation::weights(&scene.skinning);
    assert_eq!(w.max_influences(), 1);
    for p in &scene.parts {
        for v in p.vertices.clone() {
            assert_eq!(w.row(v).0, &[p.bone.unwrap() as u32]);
        }
    }
    assert_eq!(scene.clips.len(), 4);
}

#[test]
fn nodes_are_selected_by_index_or_name_and_unknown_ones_are_typed_errors() {
    let path = asset_path("skinned/kenney_platformer_character.glb");
    let contents = GltfContents::read(&path).unwrap();
    let named: Vec<_> = contents
        .mesh_nodes
        .iter()
        .filter(|m| m.name.is_some())
        .collect();
    assert!(named.len() >= 2, "{contents}");
    let (a, b) = (named[0], named[1]);
    let opts = LoadOptions {
        nodes: NodeSelection::only([a.name.clone().unwrap().as_str()]),
        ..LoadOptions::default()
    };
    let (one, report) = load_gltf_scene(&path, &opts).unwrap();
    assert_eq!(report.mesh_nodes, vec![a.node]);
    assert_eq!(one.render.triangles.len(), a.triangles);
    let opts = LoadOptions {
        nodes: NodeSelection::only([b.node, a.node]),
        ..LoadOptions::default()
    };
    let (two, report) = load_gltf_scene(&path, &opts).unwrap();
    assert_eq!(report.mesh_nodes, vec![b.node, a.node]);
    assert_eq!(two.render.triangles.len(), a.triangles + b.triangles);
    for bad in [
        NodeSelection::only(["no such node"]),
        NodeSelection::only([10_000usize]),
    ] {
        let opts = LoadOptions {
            nodes: bad,
            ..LoadOptions::default()
        };
        let e = load_gltf_scene(&path, &opts).unwrap_err();
        assert!(matches!(e, LoadError::UnknownNode { .. }), "{e}");
    }
    // A node without a mesh.
    let meshless = (0..contents.nodes)
        .find(|i| contents.mesh_nodes.iter().all(|m| m.node != *i))
        .unwrap();
    let opts = LoadOptions {
        nodes: NodeSelection::only([meshless]),
        ..LoadOptions::default()
    };
    let e = load_gltf_scene(&path, &opts).unwrap_err();
    assert!(
        matches!(&e, LoadError::UnknownNode { reason, .. } if reason.contains("no mesh")),
        "{e}"
    );
}

#[test]
fn contents_list_mesh_nodes_skins_clips_and_morph_targets() {
    let fox = GltfContents::read(asset_path("skinned/Fox.glb")).unwrap();
    assert_eq!(fox.mesh_nodes.len(), 1);
    assert_eq!(fox.mesh_nodes[0].triangles, 576);
    assert_eq!(fox.mesh_nodes[0].skin, Some(0));
    assert_eq!(fox.skins[0].joints.len(), 24);
    let names: Vec<_> = fox.clips.iter().map(|c| c.name.clone().unwrap()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    let morph =
        GltfContents::read(asset_path("morph/MorphStressTest/MorphStressTest.gltf")).unwrap();
    assert_eq!(morph.mesh_nodes[0].morph_targets, 8);
    assert!(
        morph
            .clips
            .iter()
            .all(|c| c.morph_weight_channels == 1 && c.animated_nodes == 0)
    );
    let text = fox.to_string();
    assert!(
        text.contains("576 triangles, skin 0") && text.contains("clip 1 `Walk`"),
        "{text}"
    );
}

/// Two mesh nodes: node 0 (skinned ribbon, mesh 0), node 1 (rigid triangle, mesh 1, accessor 5)
/// under joint node 2; joints are nodes 2 and 3. `nodes`, `mesh1` (mesh 1's primitives),
/// `scenes`, `skins` and `animations` are spliced into the JSON.
struct Scene {
    b: Glb,
    nodes: String,
    mesh1: String,
    scenes: String,
    skins: String,
    animations: String,
}

fn scene() -> Scene {
    let mut b = Glb::new();
    let (p, t) = ribbon(2);
    // Accessors 0..=5, as the JSON of `Scene::glb` names them.
    b.floats(&p, "VEC3");
    b.u16s(&t, "SCALAR", false);
    b.u8s(&[0u8, 1, 0, 0].repeat(6), "VEC4", false);
    b.floats(&[0.5f32, 0.5, 0.0, 0.0].repeat(6), "VEC4");
    let ibm = b.floats(&identity16().repeat(2), "MAT4");
    let tri = b.floats(&[0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0], "VEC3");
    let mesh1 = format!(r#"{{"attributes":{{"POSITION":{tri}}}}}"#);
    Scene {
        nodes: r#"{"mesh":0,"skin":0},{"mesh":1},{"children":[1,3]},{"translation":[1.0,0.0,0.0]}"#
            .into(),
        mesh1,
        scenes: r#"[{"nodes":[0,2]}]"#.into(),
        skins: format!(r#"[{{"joints":[2,3],"inverseBindMatrices":{ibm}}}]"#),
        animations: String::new(),
        b,
    }
}

impl Scene {
    fn glb(&self) -> Vec<u8> {
        let anim = if self.animations.is_empty() {
            String::new()
        } else {
            format!(r#","animations":[{}]"#, self.animations)
        };
        self.b.glb(&format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":2,"WEIGHTS_0":3}},"indices":1}}]}},{{"primitives":[{}]}}],"skins":{},"nodes":[{}],"scenes":{},"scene":0{anim}"#,
            self.mesh1, self.skins, self.nodes, self.scenes
        ))
    }

    fn load(&self) -> Result<(), LoadError> {
        load_gltf_scene_slice(&self.glb(), &LoadOptions::default()).map(|_| ())
    }
}

#[test]
fn the_test_scene_loads_a_skinned_and_a_rigid_part() {
    let (scene, report) = load_gltf_scene_slice(&scene().glb(), &LoadOptions::default()).unwrap();
    assert_eq!(report.mesh_nodes, vec![0, 1], "{report}");
    assert_eq!(scene.parts[0].skin, Some(0));
    assert_eq!(scene.parts[1].bone, Some(2), "joints 0 and 1 come first");
    assert_eq!(scene.bones[2].node, Some(2));
    assert_eq!(report.joints, 2);
}

#[test]
fn a_node_hierarchy_with_a_cycle_is_a_typed_error() {
    let mut s = scene();
    s.nodes = r#"{"mesh":0,"skin":0},{"mesh":1,"children":[2]},{"children":[1,3]},{"translation":[1.0,0.0,0.0]}"#.into();
    let e = s.load().unwrap_err();
    assert!(matches!(e, LoadError::InvalidHierarchy { .. }), "{e}");
}

#[test]
fn a_skin_whose_joints_are_not_in_the_scene_is_a_typed_error() {
    let mut s = scene();
    s.scenes = r#"[{"nodes":[0]}]"#.into();
    let e = s.load().unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::JointNotInScene {
                skin: 0,
                joint: 0,
                node: 2
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("node 2"), "{e}");
}

#[test]
fn morph_target_counts_that_differ_between_primitives_are_a_typed_error() {
    let mut s = scene();
    let d = s.b.floats(&[0.0, 0.0, 0.5].repeat(3), "VEC3");
    let tri =
        s.b.floats(&[2.0, 0.0, 1.0, 3.0, 0.0, 1.0, 2.0, 1.0, 1.0], "VEC3");
    s.mesh1 = format!(
        r#"{{"attributes":{{"POSITION":5}},"targets":[{{"POSITION":{d}}}]}},{{"attributes":{{"POSITION":{tri}}}}}"#
    );
    let e = s.load().unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::MorphTargets {
                mesh: 1,
                primitive: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn default_weights_of_the_wrong_length_are_a_typed_error() {
    let mut s = scene();
    let d = s.b.floats(&[0.0, 0.0, 0.5].repeat(3), "VEC3");
    s.mesh1 = format!(r#"{{"attributes":{{"POSITION":5}},"targets":[{{"POSITION":{d}}}]}}"#);
    s.nodes = r#"{"mesh":0,"skin":0},{"mesh":1,"weights":[0.5,0.5]},{"children":[1,3]},{"translation":[1.0,0.0,0.0]}"#.into();
    let e = s.load().unwrap_err();
    assert!(
        matches!(&e, LoadError::MorphTargets { mesh: 1, reason, .. } if reason.contains("2 default weights for 1")),
        "{e}"
    );
    // The same file with one weight loads and morphs.
    s.nodes = s.nodes.replace("[0.5,0.5]", "[0.5]");
    let (scene, _) = load_gltf_scene_slice(&s.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(scene.morph.as_ref().unwrap().weights(), &[0.5]);
    let posed = scene.posed_positions(None, 0.0);
    let v = scene.parts[1].vertices.start;
    assert!((posed[v].z - 1.25).abs() < 1e-6, "{:?}", posed[v]);
}

#[test]
fn morph_target_accessors_of_the_wrong_length_are_a_typed_error() {
    let mut s = scene();
    let d = s.b.floats(&[0.0, 0.0, 0.5].repeat(2), "VEC3");
    s.mesh1 = format!(r#"{{"attributes":{{"POSITION":5}},"targets":[{{"POSITION":{d}}}]}}"#);
    let e = s.load().unwrap_err();
    assert!(
        matches!(&e, LoadError::MismatchedAccessorCount { accessor, expected: 3, actual: 2, what } if *accessor == d && what.contains("target 0 POSITION")),
        "{e}"
    );
}

#[test]
fn animated_weights_of_the_wrong_length_are_a_typed_error() {
    let mut s = scene();
    let d = s.b.floats(&[0.0, 0.0, 0.5].repeat(3), "VEC3");
    s.mesh1 = format!(
        r#"{{"attributes":{{"POSITION":5}},"targets":[{{"POSITION":{d}}},{{"POSITION":{d}}}]}}"#
    );
    let times = s.b.floats(&[0.0, 1.0], "SCALAR");
    let values = s.b.floats(&[0.0, 1.0, 0.5], "SCALAR");
    s.animations = format!(
        r#"{{"samplers":[{{"input":{times},"output":{values}}}],"channels":[{{"sampler":0,"target":{{"node":1,"path":"weights"}}}}]}}"#
    );
    let e = s.load().unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::MismatchedAccessorCount {
                expected: 4,
                actual: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_clip_that_animates_a_missing_node_is_a_typed_error() {
    let mut s = scene();
    let times = s.b.floats(&[0.0, 1.0], "SCALAR");
    let values = s.b.floats(&[0.0; 6], "VEC3");
    s.animations = format!(
        r#"{{"samplers":[{{"input":{times},"output":{values}}}],"channels":[{{"sampler":0,"target":{{"node":9,"path":"translation"}}}}]}}"#
    );
    let e = s.load().unwrap_err();
    assert!(
        matches!(&e, LoadError::InvalidAnimation { animation: 0, channel: 0, reason } if reason.contains("node 9")),
        "{e}"
    );
}

/// Random byte mutations of the self-contained assets (GLBs and the data-URI SimpleSkin) and of
/// the scene built here: every load is an `Ok` or a typed error, and a loaded scene poses with
/// every clip without panicking (fixed seed; the fuzz target `gltf_slice` does the same
/// open-ended).
#[test]
fn mutated_files_load_or_fail_with_a_typed_error_never_a_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut files: Vec<Vec<u8>> = all_gltf_assets()
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "glb") || p.ends_with("SimpleSkin.gltf"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    files.push(scene().glb());
    let (mut loaded, mut failed) = (0, 0);
    for bytes in &files {
        for _ in 0..300 {
            let mut m = bytes.clone();
            for _ in 0..rng.random_range(1..8) {
                let i = rng.random_range(0..m.len());
                m[i] = rng.random();
            }
            match load_gltf_scene_slice(&m, &LoadOptions::default()) {
                Ok((scene, report)) => {
                    let _ = report.to_string();
                    for clip in &scene.clips {
                        let _ = scene.posed_positions(Some(clip), 0.5 * clip.duration());
                    }
                    loaded += 1;
                }
                Err(e) => {
                    let _ = e.to_string();
                    failed += 1;
                }
            }
        }
    }
    assert!(loaded > 0 && failed > 0, "{loaded} loaded, {failed} failed");
}
