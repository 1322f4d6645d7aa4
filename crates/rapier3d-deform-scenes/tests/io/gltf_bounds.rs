//! Contract: on the loaded characters (RiggedSimple, RiggedFigure, Fox), the foundation's
//! conservativeness properties hold on every frame (30 fps, plus each clip's last keyframe) of
//! every clip: for every node of a patch hierarchy over the welded collision mesh, the O(m)
//! limited-convex-combination AABB contains every deformed vertex of the node and the BN-Tree
//! normal cone contains every deformed triangle normal (checked by brute force in f64).

use rapier3d_deform_scenes::asset_path;

use rapier3d_deform::bounds::{BoundsWorkspace, PatchBounds, PatchHierarchy};
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::{LoadOptions, load_gltf};
use rapier3d_deform::validation::{count_aabb_violations, count_cone_violations, exact_cone};

fn check(file: &str) {
    let path = asset_path("skinned").join(file);
    let (asset, _) = load_gltf(&path, &LoadOptions::default()).unwrap();
    let mut skin = asset.skinning.clone().unwrap();
    let mesh = &asset.mesh;
    let hierarchy = PatchHierarchy::build(mesh, 4);
    let patches: Vec<PatchBounds> = (0..hierarchy.nodes().len())
        .map(|i| {
            PatchBounds::new(
                mesh.positions(),
                skin.weights(),
                mesh,
                hierarchy.node_triangles(i),
            )
        })
        .collect();
    let mut ws = BoundsWorkspace::default();
    let mut deformed = Vec::new();
    let mut frames = 0;
    let (mut nonempty, mut exact_nonempty) = (0usize, 0usize);
    for clip in &asset.clips {
        let n = (clip.duration() * 30.0).ceil() as usize;
        for k in 0..=n {
            let t = (k as f32 / 30.0).min(clip.duration());
            skin.set_bone_transforms(&asset.skeleton.world_transforms(clip, t))
                .unwrap();
            skin.deform_into(&mut deformed);
            for (i, patch) in patches.iter().enumerate() {
                let aabb = patch.aabb(skin.governors(), &mut ws);
                let bad = count_aabb_violations(&aabb, &deformed, hierarchy.node_vertices(i));
                assert_eq!(bad, 0, "{file} {:?} t = {t}: node {i} AABB", clip.name());
                let cone = patch.normal_cone(skin.governors(), &mut ws);
                nonempty += usize::from(!cone.is_empty());
                let exact = exact_cone(mesh, &deformed, hierarchy.node_triangles(i));
                exact_nonempty += usize::from(!exact.is_empty());
                let bad = count_cone_violations(cone, mesh, &deformed, hierarchy.node_triangles(i));
                assert_eq!(
                    bad,
                    0,
                    "{file} {:?} t = {t}: node {i} normal cone",
                    clip.name()
                );
            }
            frames += 1;
        }
    }
    assert!(frames > 10, "{file}: {frames} frames");
    // The cone check is not vacuous: many patches whose exact cone is non-empty keep a
    // non-empty bound.
    eprintln!(
        "{file}: {frames} frames, {nonempty} non-empty cone bounds, {exact_nonempty} non-empty exact cones"
    );
    assert!(
        10 * nonempty > exact_nonempty,
        "{file}: {nonempty} vs {exact_nonempty}"
    );
}

#[test]
fn rigged_simple_bounds_are_conservative_on_every_frame() {
    check("RiggedSimple.glb");
}

#[test]
fn rigged_figure_bounds_are_conservative_on_every_frame() {
    check("RiggedFigure.glb");
}

#[test]
fn fox_bounds_are_conservative_on_every_frame_of_every_clip() {
    check("Fox.glb");
}
