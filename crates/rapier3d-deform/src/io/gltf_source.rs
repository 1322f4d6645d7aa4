//! glTF sources: parses JSON or GLB, then resolves every buffer (GLB binary chunk, base64 data URI or external file).

use std::path::Path;

use super::LoadError;

/// A validated glTF document and the bytes of each of its buffers (indexed like `document.buffers()`).
pub(crate) struct GltfSource {
    pub document: gltf::Document,
    pub buffers: Vec<Vec<u8>>,
}

/// Reads `path` and every external buffer it names (relative to its folder).
pub(crate) fn read_path(path: &Path) -> Result<GltfSource, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    read_slice(&bytes, Some(base))
}

/// Parses `bytes` (JSON or GLB); external buffers are read from `base` when given.
pub(crate) fn read_slice(bytes: &[u8], base: Option<&Path>) -> Result<GltfSource, LoadError> {
    let invalid = |e: gltf::Error| LoadError::Gltf {
        message: e.to_string(),
    };
    let gltf::Gltf { document, mut blob } =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(invalid)?;
    let root = document.into_json();
    precheck(&root)?;
    let document = gltf::Document::from_json(root).map_err(invalid)?;
    let mut buffers = Vec::with_capacity(document.buffers().len());
    for buffer in document.buffers() {
        let index = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => blob.take().ok_or_else(|| LoadError::Buffer {
                buffer: index,
                reason: "refers to the GLB binary chunk, which is missing or already used".into(),
            })?,
            gltf::buffer::Source::Uri(uri) => read_uri(index, uri, base)?,
        };
        if data.len() < buffer.length() {
            return Err(LoadError::Buffer {
                buffer: index,
                reason: format!(
                    "byteLength is {} but only {} bytes are present",
                    buffer.length(),
                    data.len()
                ),
            });
        }
        buffers.push(data);
    }
    Ok(GltfSource { document, buffers })
}

/// Checks what `gltf-json` 1.4's validation reads before checking it: its primitive hook indexes
/// the accessors with the `POSITION` attribute unchecked, which panics on an out-of-range index.
fn precheck(root: &gltf::json::Root) -> Result<(), LoadError> {
    use gltf::json::validation::Checked;
    let position = Checked::Valid(gltf::json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(index) = prim.attributes.get(&position)
                && index.value() >= root.accessors.len()
            {
                return Err(LoadError::Gltf {
                    message: format!(
                        "mesh {m} primitive {p}: POSITION accessor {} does not exist",
                        index.value()
                    ),
                });
            }
        }
    }
    Ok(())
}

fn read_uri(buffer: usize, uri: &str, base: Option<&Path>) -> Result<Vec<u8>, LoadError> {
    let bad = |reason: String| LoadError::Buffer { buffer, reason };
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, payload)) = rest.split_once(";base64,") else {
            return Err(bad("data URI is not base64-encoded".into()));
        };
        return decode_base64(payload).ok_or_else(|| bad("data URI holds invalid base64".into()));
    }
    if uri.contains(':') {
        return Err(bad(format!(
            "URI scheme of `{}` is not supported (data URIs and relative paths are)",
            uri.chars().take(40).collect::<String>()
        )));
    }
    let Some(base) = base else {
        return Err(bad(format!(
            "refers to external file `{uri}`, but the asset was loaded from memory"
        )));
    };
    let relative = percent_decode(uri).ok_or_else(|| bad(format!("URI `{uri}` is malformed")))?;
    let path = base.join(relative);
    std::fs::read(&path).map_err(|source| LoadError::Io { path, source })
}

/// Decodes `%XX` escapes; `None` when an escape is malformed or the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Standard or URL-safe base64 with optional padding; whitespace is ignored. `None` on any other
/// character or a dangling single sextet.
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut padding = false;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                padding = true;
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        if padding {
            return None;
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (bits < 6).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(
                decode_base64(enc).as_deref(),
                Some(plain.as_bytes()),
                "{enc}"
            );
        }
        assert_eq!(decode_base64("Zm9v!"), None);
        assert_eq!(decode_base64("Z"), None);
        assert_eq!(decode_base64("Zg==Zg"), None);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b.bin").as_deref(), Some("a b.bin"));
        assert_eq!(percent_decode("a%2"), None);
        assert_eq!(percent_decode("%ff%fe"), None);
    }
}
