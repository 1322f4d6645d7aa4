//! Bounds-checked glTF accessor reading: strides, sparse substitution, normalized integer conversion, finiteness checks.

use gltf::accessor::{Accessor, DataType, Dimensions};

use super::LoadError;
use super::gltf_source::GltfSource;
use crate::math::Vec3;

/// Accessors without a buffer view (all zeros, possibly sparse) may declare at most this many
/// components: their count is not bounded by any stored bytes.
const MAX_UNBACKED_COMPONENTS: usize = 1 << 24;

fn accessor_error(acc: &Accessor<'_>, what: &str, reason: String) -> LoadError {
    LoadError::Accessor {
        accessor: acc.index(),
        what: what.to_owned(),
        reason,
    }
}

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

/// Reads one component of type `ty` at the start of `b` (which holds at least `ty.size()` bytes),
/// normalised to `[0, 1]` / `[-1, 1]` when `normalized`.
fn component(ty: DataType, b: &[u8], normalized: bool) -> f32 {
    match ty {
        DataType::I8 => {
            let c = f32::from(b[0] as i8);
            if normalized { (c / 127.0).max(-1.0) } else { c }
        }
        DataType::U8 => {
            let c = f32::from(b[0]);
            if normalized { c / 255.0 } else { c }
        }
        DataType::I16 => {
            let c = f32::from(i16::from_le_bytes([b[0], b[1]]));
            if normalized {
                (c / 32767.0).max(-1.0)
            } else {
                c
            }
        }
        DataType::U16 => {
            let c = f32::from(u16::from_le_bytes([b[0], b[1]]));
            if normalized { c / 65535.0 } else { c }
        }
        DataType::U32 => {
            let c = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64;
            (if normalized { c / u32::MAX as f64 } else { c }) as f32
        }
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

fn integer(ty: DataType, b: &[u8]) -> u32 {
    match ty {
        DataType::U8 | DataType::I8 => u32::from(b[0]),
        DataType::U16 | DataType::I16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
        DataType::U32 | DataType::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

/// The bytes `[start, start + stride·(count-1) + elem)` of a buffer view, checked against the view
/// and its buffer. Returns the view's bytes from `offset` on.
fn view_bytes<'s>(
    src: &'s GltfSource,
    view: &gltf::buffer::View<'_>,
    offset: usize,
    stride: usize,
    elem: usize,
    count: usize,
) -> Option<&'s [u8]> {
    let buffer = view.buffer();
    let data = src.buffers.get(buffer.index())?;
    let view_end = view.offset().checked_add(view.length())?;
    if view_end > buffer.length() || view_end > data.len() {
        return None;
    }
    let bytes = &data[view.offset()..view_end];
    let needed = if count == 0 {
        0
    } else {
        stride.checked_mul(count - 1)?.checked_add(elem)?
    };
    let end = offset.checked_add(needed)?;
    bytes.get(offset..end)
}

/// Decodes an accessor into `count × width` raw components with `decode`, applying sparse
/// substitution. `Err` names the accessor.
fn decode<T: Copy + Default>(
    src: &GltfSource,
    acc: &Accessor<'_>,
    what: &str,
    decode: impl Fn(DataType, &[u8]) -> T,
) -> Result<Vec<T>, LoadError> {
    let ty = acc.data_type();
    let width = acc.dimensions().multiplicity();
    let csize = ty.size();
    let elem = csize * width;
    let count = acc.count();
    if matches!(acc.dimensions(), Dimensions::Mat2 | Dimensions::Mat3) && csize < 4 {
        return Err(accessor_error(
            acc,
            what,
            "padded MAT2/MAT3 columns of 1- or 2-byte components are not supported".into(),
        ));
    }
    let total = count
        .checked_mul(width)
        .ok_or_else(|| accessor_error(acc, what, format!("count {count} overflows")))?;
    let mut out = Vec::new();
    match acc.view() {
        Some(view) => {
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(accessor_error(
                    acc,
                    what,
                    format!("byteStride {stride} is smaller than an element ({elem} bytes)"),
                ));
            }
            let bytes =
                view_bytes(src, &view, acc.offset(), stride, elem, count).ok_or_else(|| {
                    accessor_error(
                        acc,
                        what,
                        format!(
                            "{count} elements at offset {} with stride {stride} lie outside \
                             buffer view {}",
                            acc.offset(),
                            view.index()
                        ),
                    )
                })?;
            out.reserve_exact(total);
            for i in 0..count {
                let e = &bytes[i * stride..i * stride + elem];
                out.extend((0..width).map(|j| decode(ty, &e[j * csize..(j + 1) * csize])));
            }
        }
        None => {
            if total > MAX_UNBACKED_COMPONENTS {
                return Err(accessor_error(
                    acc,
                    what,
                    format!("{count} elements without a buffer view exceed the loader's limit"),
                ));
            }
            out.resize(total, T::default());
        }
    }
    if let Some(sparse) = acc.sparse() {
        let n = sparse.count();
        if n > count {
            return Err(accessor_error(
                acc,
                what,
                format!("sparse count {n} exceeds the accessor count {count}"),
            ));
        }
        let indices = sparse.indices();
        let ity = match indices.index_type() {
            gltf::accessor::sparse::IndexType::U8 => DataType::U8,
            gltf::accessor::sparse::IndexType::U16 => DataType::U16,
            gltf::accessor::sparse::IndexType::U32 => DataType::U32,
        };
        let isize = ity.size();
        let ibytes = view_bytes(src, &indices.view(), indices.offset(), isize, isize, n)
            .ok_or_else(|| {
                accessor_error(acc, what, "sparse indices lie outside their view".into())
            })?;
        let values = sparse.values();
        let vbytes =
            view_bytes(src, &values.view(), values.offset(), elem, elem, n).ok_or_else(|| {
                accessor_error(acc, what, "sparse values lie outside their view".into())
            })?;
        for k in 0..n {
            let index = integer(ity, &ibytes[k * isize..]) as usize;
            if index >= count {
                return Err(accessor_error(
                    acc,
                    what,
                    format!("sparse index {index} out of range ({count} elements)"),
                ));
            }
            let e = &vbytes[k * elem..(k + 1) * elem];
            for j in 0..width {
                out[index * width + j] = decode(ty, &e[j * csize..(j + 1) * csize]);
            }
        }
    }
    Ok(out)
}

fn check_dims(acc: &Accessor<'_>, what: &str, allowed: &[Dimensions]) -> Result<(), LoadError> {
    if allowed.contains(&acc.dimensions()) {
        Ok(())
    } else {
        Err(accessor_error(
            acc,
            what,
            format!(
                "type {} where {} is required",
                dims_name(acc.dimensions()),
                allowed
                    .iter()
                    .map(|&d| dims_name(d))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ))
    }
}

/// Reads a float-valued accessor (float, or normalized/plain integer components converted to
/// float) of one of the `allowed` types, flattened; every value must be finite.
pub(crate) fn read_floats(
    src: &GltfSource,
    acc: &Accessor<'_>,
    what: &str,
    allowed: &[Dimensions],
) -> Result<Vec<f32>, LoadError> {
    check_dims(acc, what, allowed)?;
    let normalized = acc.normalized();
    let values = decode(src, acc, what, |ty, b| component(ty, b, normalized))?;
    let width = acc.dimensions().multiplicity();
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(LoadError::NonFiniteData {
            accessor: acc.index(),
            what: what.to_owned(),
            element: i / width,
        });
    }
    Ok(values)
}

/// Reads an unsigned-integer accessor (indices, joint indices) of one of the `allowed` types.
pub(crate) fn read_integers(
    src: &GltfSource,
    acc: &Accessor<'_>,
    what: &str,
    allowed: &[Dimensions],
) -> Result<Vec<u32>, LoadError> {
    check_dims(acc, what, allowed)?;
    if !matches!(
        acc.data_type(),
        DataType::U8 | DataType::U16 | DataType::U32
    ) || acc.normalized()
    {
        return Err(accessor_error(
            acc,
            what,
            "must hold unnormalized unsigned integers".into(),
        ));
    }
    decode(src, acc, what, integer)
}

/// Reads a `VEC3` accessor into vectors.
pub(crate) fn read_vec3s(
    src: &GltfSource,
    acc: &Accessor<'_>,
    what: &str,
) -> Result<Vec<Vec3>, LoadError> {
    let v = read_floats(src, acc, what, &[Dimensions::Vec3])?;
    Ok(v.chunks_exact(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect())
}

/// Checks an accessor's element count against the count its use requires.
pub(crate) fn expect_count(
    acc: &Accessor<'_>,
    what: &str,
    expected: usize,
) -> Result<(), LoadError> {
    if acc.count() == expected {
        Ok(())
    } else {
        Err(LoadError::MismatchedAccessorCount {
            accessor: acc.index(),
            what: what.to_owned(),
            expected,
            actual: acc.count(),
        })
    }
}
