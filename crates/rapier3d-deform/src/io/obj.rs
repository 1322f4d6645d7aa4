//! Wavefront OBJ loading (via `tobj`): every object merged, polygons triangulated, positions welded into one collision mesh.

use std::io::BufReader;
use std::path::Path;

use super::weld::weld;
use super::{LoadError, LoadOptions, LoadReport};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// A loaded OBJ file.
///
/// # Performance
/// Memory O(vertices + triangles).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ObjAsset {
    /// The collision mesh over welded positions.
    pub mesh: TriangleMesh,
    /// Object vertex → welded vertex. Object vertices are the objects' vertices concatenated in
    /// file order, each object's in order of first reference by its faces (`v` lines no face
    /// uses are not loaded; a `v` used by two objects appears in both and is welded back).
    pub to_welded: Vec<u32>,
    /// Object / group names, in file order.
    pub object_names: Vec<String>,
}

/// Loads an OBJ file (materials are not read).
///
/// # Errors
/// [`LoadError::Io`], [`LoadError::Obj`] (parse errors, indices out of range, non-finite
/// coordinates), [`LoadError::Deform`] when no triangle survives welding.
///
/// # Performance
/// O(file size + V + T) expected.
pub fn load_obj(
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<(ObjAsset, LoadReport), LoadError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_obj_slice(&bytes, options)
}

/// Loads OBJ text from memory.
///
/// # Errors
/// As [`load_obj`].
///
/// # Performance
/// As [`load_obj`].
pub fn load_obj_slice(
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<(ObjAsset, LoadReport), LoadError> {
    let tobj_options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let mut reader = BufReader::new(bytes);
    let (models, _materials) =
        tobj::load_obj_buf(&mut reader, &tobj_options, |_| Ok(Default::default())).map_err(
            |e| LoadError::Obj {
                message: e.to_string(),
            },
        )?;
    let mut positions: Vec<Vec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut object_names = Vec::with_capacity(models.len());
    for model in &models {
        let base = positions.len();
        let mesh = &model.mesh;
        let n = mesh.positions.len() / 3;
        positions.extend(
            mesh.positions
                .chunks_exact(3)
                .map(|c| Vec3::new(c[0], c[1], c[2])),
        );
        if let Some(index) = positions[base..].iter().position(|p| !p.is_finite()) {
            return Err(LoadError::Obj {
                message: format!("object `{}`: vertex {index} is not finite", model.name),
            });
        }
        for c in mesh.indices.chunks_exact(3) {
            if let Some(&bad) = c.iter().find(|&&i| i as usize >= n) {
                return Err(LoadError::Obj {
                    message: format!(
                        "object `{}`: face index {bad} out of range ({n} vertices)",
                        model.name
                    ),
                });
            }
            let t = [c[0], c[1], c[2]].map(|i| (base + i as usize) as u32);
            triangles.push(t);
        }
        object_names.push(model.name.clone());
    }
    if u32::try_from(positions.len()).is_err() {
        return Err(LoadError::Obj {
            message: "more than 2^32 vertices".into(),
        });
    }
    let mut report = LoadReport {
        render_vertices: positions.len(),
        ..LoadReport::default()
    };
    let welded = weld(&positions, &triangles, options.weld_tolerance)?;
    report.welded_vertices = welded.mesh.vertex_count();
    report.dropped_triangles = welded.dropped;
    Ok((
        ObjAsset {
            mesh: welded.mesh,
            to_welded: welded.render_to_welded,
            object_names,
        },
        report,
    ))
}
