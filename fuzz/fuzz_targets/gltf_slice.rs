//! Fuzz target: arbitrary bytes → `load_gltf_slice` and `load_gltf_scene_slice` (lenient and
//! strict); a loaded asset or scene is then posed with every clip at a few times, morphed and
//! skinned, so evaluation paths run on fuzzed data too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::{GltfContents, LoadOptions, load_gltf_scene_slice, load_gltf_slice};

fuzz_target!(|data: &[u8]| {
    let _ = GltfContents::from_slice(data).map(|c| c.to_string());
    let _ = load_gltf_scene_slice(data, &LoadOptions::strict());
    if let Ok((scene, report)) = load_gltf_scene_slice(data, &LoadOptions::default()) {
        let _ = report.to_string();
        let _ = scene.posed_positions(None, 0.0);
        for clip in &scene.clips {
            for f in [-0.5f32, 0.5, 2.0] {
                let _ = scene.posed_positions(Some(clip), f * clip.duration());
            }
        }
    }
    let _ = load_gltf_slice(data, &LoadOptions::strict());
    let Ok((asset, _report)) = load_gltf_slice(data, &LoadOptions::default()) else {
        return;
    };
    let mut skin = asset.skinning.clone();
    for clip in &asset.clips {
        for f in [-0.5f32, 0.0, 0.3, 1.0, 2.0] {
            let t = f * clip.duration();
            let _ = asset.skeleton.node_world_transforms(Some(clip), t);
            let mut weights = Vec::new();
            for c in clip.channels() {
                let _ = clip.morph_weights_into(c.node, t, &mut weights);
            }
            if let Some(skin) = skin.as_mut() {
                let world = asset.skeleton.world_transforms(clip, t);
                if skin.set_bone_transforms(&world).is_ok() {
                    let deformed = skin.deformed_positions();
                    let mut render = Vec::new();
                    let _ = asset.render.gather_positions(&deformed, &mut render);
                }
            }
        }
    }
});
