//! glTF primitives merged into one render mesh: triangles (lists, strips, fans), normals, UVs, every JOINTS_n/WEIGHTS_n set and morph-target deltas.

use gltf::accessor::Dimensions;
use gltf::mesh::{Mode, Semantic};
use rapier3d::parry::glamx::{DMat3, DMat4};

use super::gltf_accessor::{expect_count, read_floats, read_integers, read_vec3s};
use super::gltf_source::GltfSource;
use super::{LoadError, LoadReport};
use crate::math::Vec3;

/// Morph-target position deltas of the merged primitives, per target one entry per render
/// vertex (zero where a target has no `POSITION` accessor). Normal and tangent deltas are not
/// read: collision needs positions only.
#[derive(Default)]
pub(crate) struct MergedMorphs {
    pub position_deltas: Vec<Vec<Vec3>>,
}

/// Render data of the merged primitives.
#[derive(Default)]
pub(crate) struct Merged {
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
    pub uvs: Option<Vec<[f32; 2]>>,
    pub triangles: Vec<[u32; 3]>,
    /// Per render vertex, its `(joint, weight)` pairs over all sets (empty rows for primitives
    /// without skin attributes).
    pub influences: Vec<Vec<(u32, f32)>>,
    pub any_skin_attributes: bool,
    pub morphs: Option<MergedMorphs>,
    primitives: usize,
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

/// Transforms applied to a mesh baked into scene space: points by the matrix, normals by the
/// inverse transpose, morph deltas by the linear part.
struct Bake {
    m: DMat4,
    normal: DMat3,
    linear: DMat3,
}

impl Bake {
    fn new(m: DMat4) -> Self {
        let linear = DMat3::from_mat4(m);
        let normal = if linear.determinant().abs() > 1e-300 {
            linear.inverse().transpose()
        } else {
            linear
        };
        Self { m, normal, linear }
    }
    fn point(&self, p: Vec3) -> Vec3 {
        self.m.transform_point3(p.as_dvec3()).as_vec3()
    }
    fn normal(&self, n: Vec3) -> Vec3 {
        (self.normal * n.as_dvec3()).normalize_or_zero().as_vec3()
    }
    fn vector(&self, v: Vec3) -> Vec3 {
        (self.linear * v.as_dvec3()).as_vec3()
    }
}

impl Merged {
    /// Appends every primitive of `mesh`, baked by `transform` when given; morph targets are read
    /// when `with_morphs`.
    pub(crate) fn append_mesh(
        &mut self,
        src: &GltfSource,
        mesh: &gltf::Mesh<'_>,
        transform: Option<DMat4>,
        with_morphs: bool,
        report: &mut LoadReport,
    ) -> Result<(), LoadError> {
        let bake = transform.map(Bake::new);
        let m = mesh.index();
        for prim in mesh.primitives() {
            let p = prim.index();
            let what = |attr: &str| format!("mesh {m} primitive {p} {attr}");
            let mode = prim.mode();
            if !matches!(
                mode,
                Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
            ) {
                return Err(LoadError::UnsupportedPrimitiveMode {
                    mesh: m,
                    primitive: p,
                    mode: mode_name(mode),
                });
            }
            let pos_acc =
                prim.get(&Semantic::Positions)
                    .ok_or_else(|| LoadError::MissingAttribute {
                        mesh: m,
                        primitive: p,
                        attribute: "POSITION".into(),
                    })?;
            let mut positions = read_vec3s(src, &pos_acc, &what("POSITION"))?;
            let n = positions.len();
            let base = self.positions.len();
            let base_u32 =
                u32::try_from(base + n)
                    .map(|_| base as u32)
                    .map_err(|_| LoadError::Accessor {
                        accessor: pos_acc.index(),
                        what: what("POSITION"),
                        reason: "more than 2^32 merged vertices".into(),
                    })?;

            // Triangles.
            let indices: Vec<u32> = match prim.indices() {
                Some(acc) => {
                    let idx = read_integers(src, &acc, &what("indices"), &[Dimensions::Scalar])?;
                    if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
                        return Err(LoadError::IndexOutOfRange {
                            mesh: m,
                            primitive: p,
                            index: bad,
                            vertex_count: n,
                        });
                    }
                    idx
                }
                None => (0..n as u32).collect(),
            };
            let tri = |a: u32, b: u32, c: u32| [a + base_u32, b + base_u32, c + base_u32];
            match mode {
                Mode::Triangles => {
                    self.triangles
                        .extend(indices.chunks_exact(3).map(|c| tri(c[0], c[1], c[2])));
                    if !indices.len().is_multiple_of(3) {
                        report.warnings.push(format!(
                            "mesh {m} primitive {p}: {} trailing indices do not form a triangle \
                             and are ignored",
                            indices.len() % 3
                        ));
                    }
                }
                // glTF 2.0 §3.7.2.1: strip triangle i = (v_i, v_{i+1+i%2}, v_{i+2-i%2}).
                Mode::TriangleStrip => {
                    for i in 0..indices.len().saturating_sub(2) {
                        let (b, c) = if i % 2 == 0 {
                            (i + 1, i + 2)
                        } else {
                            (i + 2, i + 1)
                        };
                        self.triangles.push(tri(indices[i], indices[b], indices[c]));
                    }
                }
                // fan triangle i = (v_{i+1}, v_{i+2}, v_0).
                _ => {
                    for i in 0..indices.len().saturating_sub(2) {
                        self.triangles
                            .push(tri(indices[i + 1], indices[i + 2], indices[0]));
                    }
                }
            }

            // Normals and UVs: kept only when every primitive has them.
            let normals = match prim.get(&Semantic::Normals) {
                Some(acc) => {
                    expect_count(&acc, &what("NORMAL"), n)?;
                    Some(read_vec3s(src, &acc, &what("NORMAL"))?)
                }
                None => None,
            };
            let uvs = match prim.get(&Semantic::TexCoords(0)) {
                Some(acc) => {
                    expect_count(&acc, &what("TEXCOORD_0"), n)?;
                    let v = read_floats(src, &acc, &what("TEXCOORD_0"), &[Dimensions::Vec2])?;
                    Some(v.chunks_exact(2).map(|c| [c[0], c[1]]).collect::<Vec<_>>())
                }
                None => None,
            };

            // Skin influences: every JOINTS_n / WEIGHTS_n pair.
            let mut sets: Vec<u32> = prim
                .attributes()
                .filter_map(|(s, _)| match s {
                    Semantic::Joints(k) | Semantic::Weights(k) => Some(k),
                    _ => None,
                })
                .collect();
            sets.sort_unstable();
            sets.dedup();
            let mut influences: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
            for &k in &sets {
                let missing = |attribute: String| LoadError::MissingAttribute {
                    mesh: m,
                    primitive: p,
                    attribute,
                };
                let jn = format!("JOINTS_{k}");
                let wn = format!("WEIGHTS_{k}");
                let jacc = prim
                    .get(&Semantic::Joints(k))
                    .ok_or_else(|| missing(jn.clone()))?;
                let wacc = prim
                    .get(&Semantic::Weights(k))
                    .ok_or_else(|| missing(wn.clone()))?;
                expect_count(&jacc, &what(&jn), n)?;
                expect_count(&wacc, &what(&wn), n)?;
                let j = read_integers(src, &jacc, &what(&jn), &[Dimensions::Vec4])?;
                let w = read_floats(src, &wacc, &what(&wn), &[Dimensions::Vec4])?;
                for (v, row) in influences.iter_mut().enumerate() {
                    for c in 0..4 {
                        row.push((j[4 * v + c], w[4 * v + c]));
                    }
                }
            }
            self.any_skin_attributes |= !sets.is_empty();

            // Morph targets.
            let targets: Vec<_> = if with_morphs {
                prim.morph_targets().collect()
            } else {
                Vec::new()
            };
            match (&mut self.morphs, self.primitives) {
                (None, 0) if !targets.is_empty() => {
                    self.morphs = Some(MergedMorphs {
                        position_deltas: vec![Vec::new(); targets.len()],
                    });
                }
                (None, 0) => {}
                (None, _) if targets.is_empty() => {}
                (Some(mm), _) if mm.position_deltas.len() == targets.len() => {}
                (morphs, _) => {
                    let expected = morphs.as_ref().map_or(0, |mm| mm.position_deltas.len());
                    return Err(LoadError::MorphTargets {
                        mesh: m,
                        primitive: p,
                        reason: format!(
                            "{} morph targets where the previous primitives have {expected}",
                            targets.len()
                        ),
                    });
                }
            }
            if let Some(mm) = &mut self.morphs {
                for (ti, target) in targets.iter().enumerate() {
                    let dp = match target.positions() {
                        Some(acc) => {
                            let w = what(&format!("target {ti} POSITION"));
                            expect_count(&acc, &w, n)?;
                            read_vec3s(src, &acc, &w)?
                        }
                        None => vec![Vec3::ZERO; n],
                    };
                    mm.position_deltas[ti].extend(match &bake {
                        Some(b) => dp.into_iter().map(|d| b.vector(d)).collect(),
                        None => dp,
                    });
                }
            }

            // Append render attributes.
            if let Some(b) = &bake {
                for q in &mut positions {
                    *q = b.point(*q);
                }
            }
            let first = self.primitives == 0;
            match (normals, &mut self.normals) {
                (Some(nv), Some(all)) => all.extend(nv.into_iter().map(|v| match &bake {
                    Some(b) => b.normal(v),
                    None => v,
                })),
                (Some(nv), None) if first => {
                    self.normals = Some(match &bake {
                        Some(b) => nv.into_iter().map(|v| b.normal(v)).collect(),
                        None => nv,
                    })
                }
                _ => self.normals = None,
            }
            match (uvs, &mut self.uvs) {
                (Some(uv), Some(all)) => all.extend(uv),
                (Some(uv), None) if first => self.uvs = Some(uv),
                _ => self.uvs = None,
            }
            self.positions.extend(positions);
            self.influences.extend(influences);
            self.primitives += 1;
        }
        Ok(())
    }
}
