mod common;
use common::*;
use rapier3d_deform::bounds::validation::exact_cone;
use rapier3d_deform::bounds::{BoundsWorkspace, PatchHierarchy};
use rapier3d_deform::deformation::{Affine, GovernedDeformation, LinearBlendSkinning};
use rapier3d_deform::math::*;
#[test]
fn agreement() {
    let mut r = rng(5);
    let length = 8.0;
    let mesh = tube(length, 40, 32);
    let bones = 8;
    let weights = tube_weights(&mesh, bones, length, 4);
    let mut skin = LinearBlendSkinning::new(mesh.positions().to_vec(), weights.clone(), vec![Affine::IDENTITY; bones]).unwrap();
    let h = PatchHierarchy::build(&mesh, 4);
    let patches = patches(&mesh, mesh.positions(), &weights, &h);
    let mut ws = BoundsWorkspace::default();
    for amp in [0.0f32, 0.05, 0.1, 0.2] {
        let (mut both, mut exact_n, mut vol) = (0, 0, Vec::new());
        for _ in 0..20 {
            // chain of rotations: bone k world = rotation about z of accumulated angle around joint
            let mut pose = Vec::new();
            let mut acc = Affine::IDENTITY;
            for b in 0..bones {
                let joint = Vec3::new(length * b as f32 / bones as f32, 0.0, 0.0);
                let q = Quat::from_axis_angle(Vec3::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0),r.random_range(-1.0..1.0)).normalize(), amp * 3.0);
                let local = Affine::new(Mat3::from_quat(q), joint - Mat3::from_quat(q) * joint);
                acc = acc.compose(&local);
                pose.push(acc);
            }
            skin.set_skinning_transforms(&pose).unwrap();
            let d = skin.deformed_positions();
            for i in 0..patches.len() {
                let e = exact_cone(&mesh, &d, h.node_triangles(i));
                let c = patches[i].normal_cone(skin.governors(), &mut ws);
                if !e.is_empty() { exact_n += 1; if !c.is_empty() { both += 1; } }
                let a = patches[i].aabb(skin.governors(), &mut ws);
                let ex = rapier3d_deform::bounds::validation::exact_aabb(&d, h.node_vertices(i));
                let v = |b: &Aabb| { let e = b.maxs - b.mins; e.x*e.y*e.z };
                if h.nodes()[i].depth >= 3 && h.nodes()[i].depth <= 10 { vol.push(v(&a)/v(&ex)); }
            }
        }
        vol.sort_by(|a,b| a.total_cmp(b));
        eprintln!("amp {amp}: agreement {}/{} = {:.3}, vol median {:.3} p90 {:.3}", both, exact_n, both as f32/exact_n as f32, vol[vol.len()/2], vol[vol.len()*9/10]);
    }
}
use rand::Rng;
