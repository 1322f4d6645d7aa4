//! Contract: for real skinned assets (RiggedSimple, RiggedFigure, Fox), the loaded linear blend
//! skinning posed by `Skeleton::world_transforms(clip, t)` reproduces, for every render vertex and at
//! several times of every clip, the position given by the glTF 2.0 specification's formulas
//! (joint world matrix × inverse bind matrix, weighted sum of normalised weights) evaluated here
//! independently: raw accessors read with the `gltf` crate's own readers, the node hierarchy
//! walked in f64 from raw TRS/matrices and raw LINEAR keyframes (slerp for rotations).
//! Tolerance: 1e-5 relative to the reference's bounding-box diagonal.

use std::path::Path;

use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::{GltfAsset, LoadOptions, LoadReport, MeshSpace, load_gltf};

type M4 = [[f64; 4]; 4]; // column-major: m[column][row]

const IDENTITY: M4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn mul(a: &M4, b: &M4) -> M4 {
    let mut c = [[0.0; 4]; 4];
    for j in 0..4 {
        for i in 0..4 {
            c[j][i] = (0..4).map(|k| a[k][i] * b[j][k]).sum();
        }
    }
    c
}

fn apply(m: &M4, p: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (i, o) in out.iter_mut().enumerate() {
        *o = m[0][i] * p[0] + m[1][i] * p[1] + m[2][i] * p[2] + m[3][i];
    }
    out
}

/// `T · R · S` from the glTF specification (§5.25, node.rotation as unit quaternion x, y, z, w).
fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> M4 {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let [x, y, z, w] = q.map(|c| c / n);
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let mut m = IDENTITY;
    for j in 0..3 {
        for i in 0..3 {
            m[j][i] = r[j][i] * s[j];
        }
    }
    m[3][0] = t[0];
    m[3][1] = t[1];
    m[3][2] = t[2];
    m
}

fn slerp(a: [f64; 4], b: [f64; 4], s: f64) -> [f64; 4] {
    let norm = |q: [f64; 4]| {
        let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        q.map(|c| c / n)
    };
    let a = norm(a);
    let mut b = norm(b);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        b = b.map(|c| -c);
        d = -d;
    }
    let theta = d.min(1.0).acos();
    if theta < 1e-12 {
        return a;
    }
    let (wa, wb) = (
        ((1.0 - s) * theta).sin() / theta.sin(),
        (s * theta).sin() / theta.sin(),
    );
    norm([0, 1, 2, 3].map(|i| wa * a[i] + wb * b[i]))
}

/// A channel as raw keyframes.
struct RawChannel {
    node: usize,
    path: gltf::animation::Property,
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
}

impl RawChannel {
    fn sample(&self, t: f64) -> Vec<f64> {
        let n = self.times.len();
        if t <= self.times[0] {
            return self.values[0].clone();
        }
        if t >= self.times[n - 1] {
            return self.values[n - 1].clone();
        }
        let k = (0..n - 1)
            .find(|&k| self.times[k] <= t && t < self.times[k + 1])
            .unwrap();
        let s = (t - self.times[k]) / (self.times[k + 1] - self.times[k]);
        let (a, b) = (&self.values[k], &self.values[k + 1]);
        if self.path == gltf::animation::Property::Rotation {
            slerp([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]], s).to_vec()
        } else {
            a.iter().zip(b).map(|(x, y)| x + s * (y - x)).collect()
        }
    }
}

/// The independent reference: everything read raw from the file.
struct Reference {
    parents: Vec<Option<usize>>,
    rest: Vec<gltf::scene::Transform>,
    joints: Vec<usize>,
    inverse_bind: Vec<M4>,
    positions: Vec<[f64; 3]>,
    influences: Vec<Vec<(usize, f64)>>,
    clips: Vec<(Option<String>, Vec<RawChannel>)>,
}

impl Reference {
    fn read(path: &Path) -> Self {
        let gltf = gltf::Gltf::open(path).unwrap();
        let blob = gltf.blob.clone().unwrap();
        let get = |_: gltf::Buffer<'_>| Some(blob.as_slice());
        let doc = &gltf.document;
        let mut parents = vec![None; doc.nodes().len()];
        for n in doc.nodes() {
            for c in n.children() {
                parents[c.index()] = Some(n.index());
            }
        }
        let rest = doc.nodes().map(|n| n.transform()).collect();
        let node = doc.nodes().find(|n| n.skin().is_some()).unwrap();
        let skin = node.skin().unwrap();
        let joints = skin.joints().map(|j| j.index()).collect();
        let inverse_bind = skin
            .reader(get)
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| m.map(|c| c.map(f64::from)))
            .collect();
        let mut positions = Vec::new();
        let mut influences = Vec::new();
        for prim in node.mesh().unwrap().primitives() {
            let r = prim.reader(get);
            let p: Vec<[f64; 3]> = r
                .read_positions()
                .unwrap()
                .map(|p| p.map(f64::from))
                .collect();
            let mut inf = vec![Vec::new(); p.len()];
            let mut set = 0;
            while let (Some(j), Some(w)) = (r.read_joints(set), r.read_weights(set)) {
                for (v, (j, w)) in j.into_u16().zip(w.into_f32()).enumerate() {
                    for c in 0..4 {
                        inf[v].push((j[c] as usize, w[c] as f64));
                    }
                }
                set += 1;
            }
            positions.extend(p);
            influences.extend(inf);
        }
        let mut clips = Vec::new();
        for anim in doc.animations() {
            let mut channels = Vec::new();
            for ch in anim.channels() {
                assert_eq!(
                    ch.sampler().interpolation(),
                    gltf::animation::Interpolation::Linear
                );
                let r = ch.reader(get);
                let times: Vec<f64> = r.read_inputs().unwrap().map(f64::from).collect();
                use gltf::animation::util::ReadOutputs;
                let values: Vec<Vec<f64>> = match r.read_outputs().unwrap() {
                    ReadOutputs::Translations(it) | ReadOutputs::Scales(it) => {
                        it.map(|v| v.map(f64::from).to_vec()).collect()
                    }
                    ReadOutputs::Rotations(it) => {
                        it.into_f32().map(|v| v.map(f64::from).to_vec()).collect()
                    }
                    ReadOutputs::MorphTargetWeights(_) => continue,
                };
                channels.push(RawChannel {
                    node: ch.target().node().index(),
                    path: ch.target().property(),
                    times,
                    values,
                });
            }
            clips.push((anim.name().map(str::to_owned), channels));
        }
        Self {
            parents,
            rest,
            joints,
            inverse_bind,
            positions,
            influences,
            clips,
        }
    }

    /// Skinned positions at time `t` of clip `clip` (`None`: rest pose).
    fn skinned(&self, clip: Option<usize>, t: f64) -> Vec<[f64; 3]> {
        let n = self.rest.len();
        let mut local: Vec<M4> = Vec::with_capacity(n);
        for (i, tr) in self.rest.iter().enumerate() {
            let (mut t3, mut q, mut s) = match tr.clone() {
                gltf::scene::Transform::Matrix { matrix } => {
                    let animated =
                        clip.is_some_and(|c| self.clips[c].1.iter().any(|ch| ch.node == i));
                    assert!(!animated, "animated matrix node {i}");
                    local.push(matrix.map(|c| c.map(f64::from)));
                    continue;
                }
                gltf::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => (
                    translation.map(f64::from),
                    rotation.map(f64::from),
                    scale.map(f64::from),
                ),
            };
            if let Some(c) = clip {
                for ch in self.clips[c].1.iter().filter(|ch| ch.node == i) {
                    let v = ch.sample(t);
                    match ch.path {
                        gltf::animation::Property::Translation => t3 = [v[0], v[1], v[2]],
                        gltf::animation::Property::Rotation => q = [v[0], v[1], v[2], v[3]],
                        gltf::animation::Property::Scale => s = [v[0], v[1], v[2]],
                        gltf::animation::Property::MorphTargetWeights => {}
                    }
                }
            }
            local.push(trs(t3, q, s));
        }
        let world = |mut i: usize| {
            let mut m = local[i];
            while let Some(p) = self.parents[i] {
                m = mul(&local[p], &m);
                i = p;
            }
            m
        };
        let skin: Vec<M4> = self
            .joints
            .iter()
            .zip(&self.inverse_bind)
            .map(|(&j, ib)| mul(&world(j), ib))
            .collect();
        self.positions
            .iter()
            .zip(&self.influences)
            .map(|(p, inf)| {
                let sum: f64 = inf.iter().map(|x| x.1).sum();
                let mut out = [0.0; 3];
                for &(j, w) in inf.iter().filter(|x| x.1 != 0.0) {
                    let q = apply(&skin[j], *p);
                    for c in 0..3 {
                        out[c] += w / sum * q[c];
                    }
                }
                out
            })
            .collect()
    }
}

fn diagonal(points: &[[f64; 3]]) -> f64 {
    let mut lo = [f64::MAX; 3];
    let mut hi = [f64::MIN; 3];
    for p in points {
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    (0..3).map(|c| (hi[c] - lo[c]).powi(2)).sum::<f64>().sqrt()
}

/// Largest distance between our skinned render vertices and the reference, relative to the
/// reference's bounding-box diagonal.
fn relative_error(
    asset: &GltfAsset,
    world: Option<&[rapier3d_deform::governor::Affine]>,
    reference: &[[f64; 3]],
) -> f64 {
    let mut skin = asset.skinning.clone().unwrap();
    let w = match world {
        Some(w) => w.to_vec(),
        None => asset.skeleton.rest_world_transforms(),
    };
    skin.set_bone_transforms(&w).unwrap();
    let welded = skin.deformed_positions();
    let mut render = Vec::new();
    asset.render.gather_positions(&welded, &mut render).unwrap();
    assert_eq!(render.len(), reference.len());
    let diag = diagonal(reference);
    render
        .iter()
        .zip(reference)
        .map(|(p, q)| {
            let d: f64 = (0..3).map(|c| (p[c] as f64 - q[c]).powi(2)).sum();
            d.sqrt() / diag
        })
        .fold(0.0, f64::max)
}

fn check_asset(file: &str, expect_renormalised: bool) -> (GltfAsset, LoadReport) {
    let path = rapier3d_deform_scenes::asset_path("skinned").join(file);
    let (asset, report) = load_gltf(&path, &LoadOptions::default()).unwrap();
    let reference = Reference::read(&path);
    assert_eq!(asset.space, MeshSpace::Skinned);
    assert_eq!(report.welded_attribute_conflicts, 0, "{file}: {report:?}");
    assert!(report.zero_weight_vertices.is_empty(), "{file}: {report:?}");
    assert_eq!(
        report.renormalised_weight_rows > 0,
        expect_renormalised,
        "{file}: {report:?}"
    );
    assert_eq!(report.render_vertices, reference.positions.len());
    assert_eq!(asset.skeleton.joints().len(), reference.joints.len());
    // Render positions are the file's positions, unchanged.
    for (p, q) in asset.render.positions.iter().zip(&reference.positions) {
        for c in 0..3 {
            assert_eq!(p[c] as f64, q[c]);
        }
    }
    // Rest pose.
    let e = relative_error(&asset, None, &reference.skinned(None, 0.0));
    assert!(e < 1e-5, "{file} rest pose: relative error {e:e}");
    assert_eq!(asset.clips.len(), reference.clips.len());
    for (c, clip) in asset.clips.iter().enumerate() {
        assert_eq!(clip.name(), reference.clips[c].0.as_deref());
        let d = clip.duration();
        for f in [0.0f32, 0.137, 0.37, 0.5, 0.731, 0.91, 1.0, 1.3] {
            let t = f * d;
            let world = asset.skeleton.world_transforms(clip, t);
            let e = relative_error(&asset, Some(&world), &reference.skinned(Some(c), t as f64));
            assert!(
                e < 1e-5,
                "{file} clip {c} ({:?}) t = {t}: relative error {e:e}",
                clip.name()
            );
        }
    }
    (asset, report)
}

/// The collision mesh is closed once seams are welded (every edge has two triangles), as the
/// asset catalogue measured for these three characters.
fn assert_closed(asset: &GltfAsset) {
    for (t, n) in asset.mesh.edge_neighbours().iter().enumerate() {
        assert!(
            n.iter().all(|&x| x != u32::MAX),
            "triangle {t} has a border edge"
        );
    }
}

#[test]
fn rigged_simple_matches_spec_reference() {
    let (asset, report) = check_asset("RiggedSimple.glb", false);
    assert_eq!(asset.skeleton.joints().len(), 2);
    assert_eq!(report.render_vertices, 96);
    assert_closed(&asset);
}

#[test]
fn rigged_figure_matches_spec_reference_after_renormalising() {
    // Weight sums go down to 0.2 in this asset: rows are renormalised and counted.
    let (asset, report) = check_asset("RiggedFigure.glb", true);
    assert_eq!(asset.skeleton.joints().len(), 19);
    assert_eq!(asset.render.triangles.len(), 256);
    assert!(report.renormalised_weight_rows > 0);
    assert_closed(&asset);
}

#[test]
fn fox_matches_spec_reference_for_every_clip() {
    let (asset, report) = check_asset("Fox.glb", false);
    assert_eq!(asset.skeleton.joints().len(), 24);
    assert_eq!(report.render_vertices, 1728);
    assert!(report.dropped_triangles.is_empty());
    let names: Vec<_> = asset.clips.iter().map(|c| c.name().unwrap()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    let walk = asset.clip("Walk").unwrap();
    assert!((walk.duration() - 0.7083).abs() < 1e-3);
    assert_closed(&asset);
    // Welding by position: as many collision vertices as distinct positions.
    let mut distinct: Vec<[u32; 3]> = asset
        .render
        .positions
        .iter()
        .map(|p| [p.x, p.y, p.z].map(f32::to_bits))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(asset.mesh.vertex_count(), distinct.len());
}
