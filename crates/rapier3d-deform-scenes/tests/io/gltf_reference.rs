//! An independent glTF evaluation for tests: the `gltf` crate's own readers, node hierarchy, keyframe sampling, morph targets and skinning written out per vertex in f64 (glTF 2.0 §3.5.2, §3.7.2.2, §3.7.3, §3.11, appendix C).

#![allow(dead_code)]

use std::path::Path;

use rapier3d::parry::glamx::{DMat4, DQuat, DVec3};

/// A node's translation, rotation, scale.
type Trs = (DVec3, DQuat, DVec3);

/// A parsed file with its buffers (GLB chunk, data URI or external file).
pub struct RefFile {
    pub doc: gltf::Document,
    pub buffers: Vec<Vec<u8>>,
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

impl RefFile {
    pub fn open(path: &Path) -> Self {
        let gltf::Gltf { document, mut blob } =
            gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let buffers = document
            .buffers()
            .map(|b| match b.source() {
                gltf::buffer::Source::Bin => blob.take().unwrap(),
                gltf::buffer::Source::Uri(uri) => match uri.split_once(";base64,") {
                    Some((_, data)) => base64(data),
                    None => std::fs::read(path.parent().unwrap().join(uri)).unwrap(),
                },
            })
            .collect();
        Self {
            doc: document,
            buffers,
        }
    }

    pub fn parents(&self) -> Vec<Option<usize>> {
        let mut p = vec![None; self.doc.nodes().len()];
        for n in self.doc.nodes() {
            for c in n.children() {
                p[c.index()] = Some(n.index());
            }
        }
        p
    }

    /// Mesh nodes reachable from the default (else first) scene, depth first.
    pub fn scene_mesh_nodes(&self) -> Vec<usize> {
        let scene = self
            .doc
            .default_scene()
            .or_else(|| self.doc.scenes().next())
            .unwrap();
        fn visit(n: gltf::Node<'_>, out: &mut Vec<usize>) {
            if n.mesh().is_some() {
                out.push(n.index());
            }
            for c in n.children() {
                visit(c, out);
            }
        }
        let mut out = Vec::new();
        for n in scene.nodes() {
            visit(n, &mut out);
        }
        out
    }

    /// Triangles of a primitive as stored (lists /3, strips and fans −2).
    pub fn triangle_count(&self, p: &gltf::Primitive<'_>) -> usize {
        let r = p.reader(|b| Some(&self.buffers[b.index()]));
        let n = match r.read_indices() {
            Some(i) => i.into_u32().count(),
            None => r.read_positions().unwrap().count(),
        };
        match p.mode() {
            gltf::mesh::Mode::Triangles => n / 3,
            gltf::mesh::Mode::TriangleStrip | gltf::mesh::Mode::TriangleFan => n.saturating_sub(2),
            _ => 0,
        }
    }

    /// Every keyframe time of an animation (sorted, deduplicated).
    pub fn keyframe_times(&self, anim: &gltf::Animation<'_>) -> Vec<f32> {
        let mut t: Vec<f32> = anim
            .channels()
            .flat_map(|c| {
                c.reader(|b| Some(&self.buffers[b.index()]))
                    .read_inputs()
                    .unwrap()
                    .collect::<Vec<_>>()
            })
            .collect();
        t.sort_by(f32::total_cmp);
        t.dedup();
        t
    }

    /// Local TRS of every node at time `t` of `anim` (rest where not animated), and the morph
    /// weights each channel sets.
    fn locals(
        &self,
        anim: Option<&gltf::Animation<'_>>,
        t: f32,
    ) -> (Vec<Trs>, Vec<Option<Vec<f64>>>) {
        let mut locals: Vec<_> = self
            .doc
            .nodes()
            .map(|n| {
                let (tr, r, s) = n.transform().decomposed();
                (
                    DVec3::from_array(tr.map(f64::from)),
                    DQuat::from_array(r.map(f64::from)).normalize(),
                    DVec3::from_array(s.map(f64::from)),
                )
            })
            .collect();
        let mut weights = vec![None; locals.len()];
        let Some(anim) = anim else {
            return (locals, weights);
        };
        for c in anim.channels() {
            let r = c.reader(|b| Some(&self.buffers[b.index()]));
            let times: Vec<f64> = r.read_inputs().unwrap().map(f64::from).collect();
            let out: Vec<f64> = match r.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::Translations(v) => {
                    v.flatten().map(f64::from).collect()
                }
                gltf::animation::util::ReadOutputs::Rotations(v) => {
                    v.into_f32().flatten().map(f64::from).collect()
                }
                gltf::animation::util::ReadOutputs::Scales(v) => {
                    v.flatten().map(f64::from).collect()
                }
                gltf::animation::util::ReadOutputs::MorphTargetWeights(v) => {
                    v.into_f32().map(f64::from).collect()
                }
            };
            let interp = c.sampler().interpolation();
            let cubic = interp == gltf::animation::Interpolation::CubicSpline;
            let width = out.len() / times.len() / if cubic { 3 } else { 1 };
            let value = |k: usize| -> Vec<f64> {
                if cubic {
                    out[(3 * k + 1) * width..(3 * k + 2) * width].to_vec()
                } else {
                    out[k * width..(k + 1) * width].to_vec()
                }
            };
            let t = f64::from(t);
            let is_rot = c.target().property() == gltf::animation::Property::Rotation;
            let v: Vec<f64> = if t <= times[0] {
                value(0)
            } else if t >= times[times.len() - 1] {
                value(times.len() - 1)
            } else {
                let k = times.iter().rposition(|&x| x <= t).unwrap();
                let (t0, t1) = (times[k], times[k + 1]);
                let s = (t - t0) / (t1 - t0);
                match interp {
                    gltf::animation::Interpolation::Step => value(k),
                    gltf::animation::Interpolation::Linear if is_rot => {
                        let q = |v: Vec<f64>| DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
                        let (a, mut b) = (q(value(k)), q(value(k + 1)));
                        if a.dot(b) < 0.0 {
                            b = -b;
                        }
                        let d = a.dot(b).clamp(-1.0, 1.0);
                        let theta = d.acos();
                        let r = if theta < 1e-9 {
                            (a + (b - a) * s).normalize()
                        } else {
                            (a * ((1.0 - s) * theta).sin() + b * (s * theta).sin()) / theta.sin()
                        };
                        r.to_array().to_vec()
                    }
                    gltf::animation::Interpolation::Linear => value(k)
                        .iter()
                        .zip(value(k + 1))
                        .map(|(a, b)| a + s * (b - a))
                        .collect(),
                    gltf::animation::Interpolation::CubicSpline => {
                        let td = t1 - t0;
                        let g = |i: usize| out[i * width..(i + 1) * width].to_vec();
                        let (v0, b0, a1, v1) =
                            (g(3 * k + 1), g(3 * k + 2), g(3 * k + 3), g(3 * k + 4));
                        let (s2, s3) = (s * s, s * s * s);
                        (0..width)
                            .map(|j| {
                                (2.0 * s3 - 3.0 * s2 + 1.0) * v0[j]
                                    + (s3 - 2.0 * s2 + s) * td * b0[j]
                                    + (-2.0 * s3 + 3.0 * s2) * v1[j]
                                    + (s3 - s2) * td * a1[j]
                            })
                            .collect()
                    }
                }
            };
            let n = c.target().node().index();
            match c.target().property() {
                gltf::animation::Property::Translation => {
                    locals[n].0 = DVec3::new(v[0], v[1], v[2])
                }
                gltf::animation::Property::Rotation => {
                    locals[n].1 = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
                }
                gltf::animation::Property::Scale => locals[n].2 = DVec3::new(v[0], v[1], v[2]),
                gltf::animation::Property::MorphTargetWeights => weights[n] = Some(v),
            }
        }
        (locals, weights)
    }

    /// World matrices of every node at time `t` of `anim` (`None`: rest pose). Nodes given as a
    /// matrix keep it unless animated.
    pub fn world(
        &self,
        anim: Option<&gltf::Animation<'_>>,
        t: f32,
    ) -> (Vec<DMat4>, Vec<Option<Vec<f64>>>) {
        let (locals, weights) = self.locals(anim, t);
        let animated: Vec<bool> = {
            let mut a = vec![false; locals.len()];
            if let Some(anim) = anim {
                for c in anim.channels() {
                    if c.target().property() != gltf::animation::Property::MorphTargetWeights {
                        a[c.target().node().index()] = true;
                    }
                }
            }
            a
        };
        let parents = self.parents();
        let local: Vec<DMat4> = self
            .doc
            .nodes()
            .map(|n| {
                let i = n.index();
                match n.transform() {
                    gltf::scene::Transform::Matrix { matrix } if !animated[i] => {
                        DMat4::from_cols_array_2d(&matrix.map(|c| c.map(f64::from)))
                    }
                    _ => DMat4::from_scale_rotation_translation(
                        locals[i].2,
                        locals[i].1,
                        locals[i].0,
                    ),
                }
            })
            .collect();
        let mut world = vec![None; local.len()];
        fn get(
            i: usize,
            parents: &[Option<usize>],
            local: &[DMat4],
            world: &mut Vec<Option<DMat4>>,
        ) -> DMat4 {
            if let Some(w) = world[i] {
                return w;
            }
            let w = match parents[i] {
                Some(p) => get(p, parents, local, world) * local[i],
                None => local[i],
            };
            world[i] = Some(w);
            w
        }
        let out = (0..local.len())
            .map(|i| get(i, &parents, &local, &mut world))
            .collect();
        (out, weights)
    }

    /// Every render vertex of `nodes` (in order, primitives in order) at time `t` of `anim`:
    /// base + Σ wᵢ Δᵢ, then Σ_j w_j (world_j · inverseBind_j) (weights divided by their sum),
    /// or the node's world transform when not skinned.
    pub fn posed(&self, nodes: &[usize], anim: Option<&gltf::Animation<'_>>, t: f32) -> Vec<DVec3> {
        let (world, animated_weights) = self.world(anim, t);
        let all: Vec<gltf::Node<'_>> = self.doc.nodes().collect();
        let mut out = Vec::new();
        for &i in nodes {
            let node = &all[i];
            let mesh = node.mesh().unwrap();
            let targets = mesh
                .primitives()
                .next()
                .map_or(0, |p| p.morph_targets().len());
            let mw: Vec<f64> = animated_weights[i].clone().unwrap_or_else(|| {
                node.weights()
                    .or_else(|| mesh.weights())
                    .map_or(vec![0.0; targets], |w| {
                        w.iter().map(|&x| f64::from(x)).collect()
                    })
            });
            let joint_matrices: Option<Vec<DMat4>> = node.skin().map(|skin| {
                let r = skin.reader(|b| Some(&self.buffers[b.index()]));
                let ibm: Vec<DMat4> = match r.read_inverse_bind_matrices() {
                    Some(m) => m
                        .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
                        .collect(),
                    None => vec![DMat4::IDENTITY; skin.joints().count()],
                };
                skin.joints()
                    .zip(ibm)
                    .map(|(j, b)| world[j.index()] * b)
                    .collect()
            });
            for p in mesh.primitives() {
                let r = p.reader(|b| Some(&self.buffers[b.index()]));
                let mut pos: Vec<DVec3> = r
                    .read_positions()
                    .unwrap()
                    .map(|v| DVec3::from_array(v.map(f64::from)))
                    .collect();
                for (k, (dp, _, _)) in r.read_morph_targets().enumerate() {
                    if let Some(dp) = dp {
                        for (q, d) in pos.iter_mut().zip(dp) {
                            *q += mw[k] * DVec3::from_array(d.map(f64::from));
                        }
                    }
                }
                match &joint_matrices {
                    Some(jm) => {
                        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); pos.len()];
                        let mut set = 0;
                        while let (Some(js), Some(ws)) = (r.read_joints(set), r.read_weights(set)) {
                            for (v, (j, w)) in js.into_u16().zip(ws.into_f32()).enumerate() {
                                for c in 0..4 {
                                    if w[c] != 0.0 {
                                        rows[v].push((j[c] as usize, f64::from(w[c])));
                                    }
                                }
                            }
                            set += 1;
                        }
                        for (q, row) in pos.iter().zip(rows) {
                            let sum: f64 = row.iter().map(|x| x.1).sum();
                            let mut acc = DVec3::ZERO;
                            for (j, w) in row {
                                acc += w / sum * jm[j].transform_point3(*q);
                            }
                            out.push(acc);
                        }
                    }
                    None => out.extend(pos.iter().map(|q| world[i].transform_point3(*q))),
                }
            }
        }
        out
    }
}

/// Every `.gltf` and `.glb` under the repository's `assets/`, sorted.
pub fn all_gltf_assets() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("gltf" | "glb")) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&rapier3d_deform_scenes::asset_path(""), &mut out);
    out.sort();
    out
}
