//! Test support for tests/io/*: builds small GLB files in memory (buffer views, accessors, JSON).

#![allow(dead_code)]

/// Accumulates a binary chunk and the JSON of its buffer views and accessors.
#[derive(Default)]
pub struct Glb {
    pub bin: Vec<u8>,
    pub views: Vec<String>,
    pub accessors: Vec<String>,
}

pub fn width(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => panic!("type {ty}"),
    }
}

impl Glb {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes as a new buffer view (4-byte aligned); returns its index.
    pub fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let stride = stride.map_or(String::new(), |s| format!(r#","byteStride":{s}"#));
        self.views.push(format!(
            r#"{{"buffer":0,"byteOffset":{offset},"byteLength":{}{stride}}}"#,
            bytes.len()
        ));
        self.views.len() - 1
    }

    /// Adds an accessor given as JSON; returns its index.
    pub fn accessor(&mut self, json: String) -> usize {
        self.accessors.push(json);
        self.accessors.len() - 1
    }

    /// A float accessor over a new view (with min/max for VEC3, as POSITION requires).
    pub fn floats(&mut self, data: &[f32], ty: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let v = self.view(&bytes, None);
        let w = width(ty);
        let count = data.len() / w;
        let minmax = if ty == "VEC3" && count > 0 {
            let mut lo = [f32::MAX; 3];
            let mut hi = [f32::MIN; 3];
            for c in data.chunks(3) {
                for i in 0..3 {
                    lo[i] = lo[i].min(c[i]);
                    hi[i] = hi[i].max(c[i]);
                }
            }
            let f = |a: [f32; 3]| {
                a.iter()
                    .map(|x| {
                        if x.is_finite() {
                            format!("{x:?}")
                        } else {
                            "0.0".into()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            format!(r#","min":[{}],"max":[{}]"#, f(lo), f(hi))
        } else {
            String::new()
        };
        self.accessor(format!(
            r#"{{"bufferView":{v},"componentType":5126,"count":{count},"type":"{ty}"{minmax}}}"#
        ))
    }

    pub fn u16s(&mut self, data: &[u16], ty: &str, normalized: bool) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let v = self.view(&bytes, None);
        let count = data.len() / width(ty);
        self.accessor(format!(
            r#"{{"bufferView":{v},"componentType":5123,"count":{count},"type":"{ty}","normalized":{normalized}}}"#
        ))
    }

    pub fn u8s(&mut self, data: &[u8], ty: &str, normalized: bool) -> usize {
        let v = self.view(data, None);
        let count = data.len() / width(ty);
        self.accessor(format!(
            r#"{{"bufferView":{v},"componentType":5121,"count":{count},"type":"{ty}","normalized":{normalized}}}"#
        ))
    }

    /// The JSON document with `rest` (extra top-level members, comma-separated, no braces).
    pub fn json(&self, rest: &str) -> String {
        let sep = if rest.is_empty() { "" } else { "," };
        format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}]{sep}{rest}}}"#,
            self.bin.len(),
            self.views.join(","),
            self.accessors.join(",")
        )
    }

    /// A GLB container holding `json` and the binary chunk.
    pub fn glb_with_json(&self, json: &str) -> Vec<u8> {
        let mut j = json.as_bytes().to_vec();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        let mut b = self.bin.clone();
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        let total = 12 + 8 + j.len() + 8 + b.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&j);
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
        out
    }

    /// `glb_with_json(json(rest))`.
    pub fn glb(&self, rest: &str) -> Vec<u8> {
        self.glb_with_json(&self.json(rest))
    }
}

/// Positions of a flat ribbon along x: `2 × (n + 1)` vertices (y = 0 and y = 1), `2n` triangles
/// facing +z.
pub fn ribbon(n: usize) -> (Vec<f32>, Vec<u16>) {
    let mut p = Vec::new();
    for i in 0..=n {
        p.extend([i as f32, 0.0, 0.0, i as f32, 1.0, 0.0]);
    }
    let mut t = Vec::new();
    for i in 0..n as u16 {
        let (a, b, c, d) = (2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1);
        t.extend([a, b, c, a, c, d]);
    }
    (p, t)
}

/// Row-major 4×4 identity flattened column-major, as glTF stores matrices.
pub fn identity16() -> [f32; 16] {
    let mut m = [0.0; 16];
    for i in 0..4 {
        m[5 * i] = 1.0;
    }
    m
}
