//! Contract: glTF morph targets load into `MorphTargets` over the welded vertices such that, for
//! MorphStressTest (2 primitives × 8 targets, external .bin) at several times of each of its three
//! weight animations, every render vertex equals `base + Σ wᵢ Δᵢ` computed here independently
//! (raw accessors read with the `gltf` crate's readers, weights sampled from raw LINEAR keyframes
//! in f64), within 1e-5 of the bounding-box diagonal; the animated weights themselves match the
//! raw keyframes; default weights come from the mesh (SimpleMorph: 0.5, 0.5).

use std::path::{Path, PathBuf};

use rapier3d_deform::io::{GltfAsset, LoadOptions, MeshSpace, load_gltf};

fn asset_path(rel: &str) -> PathBuf {
    rapier3d_deform_scenes::asset_path("morph").join(rel)
}

/// A weights animation: name, keyframe times, per keyframe the weights.
type RawClip = (Option<String>, Vec<f64>, Vec<Vec<f64>>);

struct Reference {
    base: Vec<[f64; 3]>,
    /// Per target, per render vertex.
    deltas: Vec<Vec<[f64; 3]>>,
    /// Per animation: (name, times, per key the weights).
    clips: Vec<RawClip>,
    mesh_weights: Option<Vec<f64>>,
}

impl Reference {
    fn read(path: &Path) -> Self {
        let gltf = gltf::Gltf::open(path).unwrap();
        let dir = path.parent().unwrap();
        let buffers: Vec<Vec<u8>> = gltf
            .document
            .buffers()
            .map(|b| match b.source() {
                gltf::buffer::Source::Uri(uri) => std::fs::read(dir.join(uri)).unwrap(),
                gltf::buffer::Source::Bin => gltf.blob.clone().unwrap(),
            })
            .collect();
        let get = |b: gltf::Buffer<'_>| Some(buffers[b.index()].as_slice());
        let mesh = gltf.document.meshes().next().unwrap();
        let mut base = Vec::new();
        let mut deltas: Vec<Vec<[f64; 3]>> = Vec::new();
        for prim in mesh.primitives() {
            let r = prim.reader(get);
            let p: Vec<[f64; 3]> = r
                .read_positions()
                .unwrap()
                .map(|p| p.map(f64::from))
                .collect();
            for (t, (pos, _, _)) in r.read_morph_targets().enumerate() {
                if deltas.len() <= t {
                    deltas.push(Vec::new());
                }
                match pos {
                    Some(it) => deltas[t].extend(it.map(|d| d.map(f64::from))),
                    None => deltas[t].extend(std::iter::repeat_n([0.0; 3], p.len())),
                }
            }
            base.extend(p);
        }
        let targets = deltas.len();
        let mut clips = Vec::new();
        for anim in gltf.document.animations() {
            let ch = anim.channels().next().unwrap();
            assert_eq!(
                ch.sampler().interpolation(),
                gltf::animation::Interpolation::Linear
            );
            let r = ch.reader(get);
            let times: Vec<f64> = r.read_inputs().unwrap().map(f64::from).collect();
            let flat: Vec<f64> = match r.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => {
                    w.into_f32().map(f64::from).collect()
                }
                _ => panic!("not a weights channel"),
            };
            let keys = flat.chunks(targets).map(<[f64]>::to_vec).collect();
            clips.push((anim.name().map(str::to_owned), times, keys));
        }
        let mesh_weights = mesh
            .weights()
            .map(|w| w.iter().map(|&x| x as f64).collect());
        Self {
            base,
            deltas,
            clips,
            mesh_weights,
        }
    }

    fn weights_at(&self, clip: usize, t: f64) -> Vec<f64> {
        let (_, times, keys) = &self.clips[clip];
        let n = times.len();
        if t <= times[0] {
            return keys[0].clone();
        }
        if t >= times[n - 1] {
            return keys[n - 1].clone();
        }
        let k = (0..n - 1)
            .find(|&k| times[k] <= t && t < times[k + 1])
            .unwrap();
        let s = (t - times[k]) / (times[k + 1] - times[k]);
        keys[k]
            .iter()
            .zip(&keys[k + 1])
            .map(|(a, b)| a + s * (b - a))
            .collect()
    }

    fn positions(&self, w: &[f64]) -> Vec<[f64; 3]> {
        (0..self.base.len())
            .map(|v| {
                let mut p = self.base[v];
                for (i, d) in self.deltas.iter().enumerate() {
                    for c in 0..3 {
                        p[c] += w[i] * d[v][c];
                    }
                }
                p
            })
            .collect()
    }
}

/// Largest distance between our render positions (morph at weights `w`) and `reference`, over
/// the reference's bounding-box diagonal.
fn relative_error(asset: &GltfAsset, w: &[f32], reference: &[[f64; 3]]) -> f64 {
    let mut morph = asset.morph.clone().unwrap();
    morph.set_weights(w).unwrap();
    let welded = morph.deformed_positions();
    let mut render = Vec::new();
    asset.render.gather_positions(&welded, &mut render).unwrap();
    assert_eq!(render.len(), reference.len());
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in reference {
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let diag = (0..3).map(|c| (hi[c] - lo[c]).powi(2)).sum::<f64>().sqrt();
    render
        .iter()
        .zip(reference)
        .map(|(p, q)| {
            (0..3)
                .map(|c| (p[c] as f64 - q[c]).powi(2))
                .sum::<f64>()
                .sqrt()
                / diag
        })
        .fold(0.0, f64::max)
}

#[test]
fn morph_stress_test_matches_base_plus_weighted_deltas() {
    let path = asset_path("MorphStressTest/MorphStressTest.gltf");
    let (asset, report) = load_gltf(&path, &LoadOptions::strict()).unwrap();
    let reference = Reference::read(&path);
    assert_eq!(asset.space, MeshSpace::Node(0));
    assert_eq!(asset.mesh_node, Some(0));
    assert_eq!(report.render_vertices, 1528);
    assert_eq!(report.welded_attribute_conflicts, 0, "{report:?}");
    let morph = asset.morph.as_ref().unwrap();
    assert_eq!(morph.target_count(), 8);
    assert_eq!(asset.default_morph_weights, vec![0.0; 8]);
    let names: Vec<_> = asset.clips.iter().map(|c| c.name().unwrap()).collect();
    assert_eq!(names, ["Individuals", "TheWave", "Pulse"]);
    let mut w = Vec::new();
    let mut nonzero_seen = false;
    for (c, clip) in asset.clips.iter().enumerate() {
        for f in [0.0f32, 0.11, 0.25, 0.4, 0.5, 0.63, 0.8, 0.97, 1.0, 1.2] {
            let t = f * clip.duration();
            assert!(clip.morph_weights_into(0, t, &mut w));
            let want = reference.weights_at(c, t as f64);
            for (a, b) in w.iter().zip(&want) {
                assert!(
                    (*a as f64 - b).abs() < 1e-6,
                    "clip {c} t {t}: {w:?} vs {want:?}"
                );
            }
            nonzero_seen |= want.iter().any(|&x| x.abs() > 0.1);
            let e = relative_error(&asset, &w, &reference.positions(&want));
            assert!(e < 1e-5, "clip {c} t {t}: relative error {e:e}");
        }
    }
    assert!(nonzero_seen, "the sampled times exercise non-zero weights");
    // All eight targets at once, beyond [0, 1].
    let w: Vec<f32> = (0..8).map(|i| 1.5 - 0.4 * i as f32).collect();
    let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
    let e = relative_error(&asset, &w, &reference.positions(&w64));
    assert!(e < 1e-5, "all targets: relative error {e:e}");
}

#[test]
fn simple_morph_default_weights_come_from_the_mesh() {
    let path = asset_path("SimpleMorph/SimpleMorph.gltf");
    let (asset, _) = load_gltf(&path, &LoadOptions::strict()).unwrap();
    let reference = Reference::read(&path);
    let want = reference.mesh_weights.clone().unwrap();
    assert_eq!(want, vec![0.5, 0.5]);
    assert_eq!(asset.default_morph_weights, vec![0.5, 0.5]);
    let morph = asset.morph.as_ref().unwrap();
    assert_eq!(morph.weights(), &[0.5, 0.5]);
    let e = relative_error(&asset, morph.weights(), &reference.positions(&want));
    assert!(e < 1e-6, "{e:e}");
    // The mesh's rest shape is the base (weights 0), not the default-weighted shape.
    for (p, q) in asset.mesh.positions().iter().zip(&reference.base) {
        for c in 0..3 {
            assert_eq!(p[c] as f64, q[c]);
        }
    }
}
