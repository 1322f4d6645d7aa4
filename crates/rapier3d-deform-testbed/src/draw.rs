//! Drawing the crate's shapes in the testbed's kiss3d scene: shaded meshes rewritten every frame (the testbed draws nothing for custom shapes), coloured per vertex through a palette texture, and a kiss3d line backend for the crate's debug renderer.
//!
//! kiss3d 0.45 has no per-vertex colour attribute (its shader multiplies the object's colour, an
//! instance colour and a texture sample): a mesh with a palette gets a texture of one texel per
//! palette colour, sampled without filtering, and each vertex the texture coordinate of its
//! colour's texel, rewritten every frame with its positions. Across a triangle whose vertices
//! pick different colours the coordinate runs through the texels between them, so the colours
//! change in steps, in palette order.

use std::error::Error;
use std::path::Path;

use kiss3d::color::Color;
use kiss3d::prelude::SceneNode3d as SceneNode;
use kiss3d::procedural::{IndexBuffer, RenderMesh};
use kiss3d::resource::TextureManager;
use kiss3d::window::Window;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::{DebugColor, DebugRenderBackend, DebugRenderObject, Vector};
use rapier3d_deform_scenes::render::Rgb;
use rapier3d_deform_scenes::render::debug_lines::hsla_to_rgb;
use rapier3d_deform_testbed::Demo;

/// One kiss3d node per drawn mesh of a [`Demo`], its vertices rewritten from the mesh's current
/// positions (and, with a palette, their texture coordinates from the mesh's colours) and its
/// pose set to its body's, every frame.
pub struct MeshNodes {
    nodes: Vec<SceneNode>,
    positions: Vec<Vec3>,
    colours: Vec<u32>,
}

impl MeshNodes {
    /// Adds a node per mesh of `demo` to `scene` (smooth shading: vertices shared); a mesh
    /// with a palette gets its palette texture and white as its colour.
    pub fn new(scene: &mut SceneNode, demo: &mut Demo) -> Result<Self, Box<dyn Error>> {
        let mut positions = Vec::new();
        let mut colours = Vec::new();
        let mut nodes = Vec::with_capacity(demo.meshes().len());
        for index in 0..demo.meshes().len() {
            demo.mesh_positions(index, &mut positions)?;
            demo.mesh_colours(index, &mut colours)?;
            let mesh = &demo.meshes()[index];
            let vertices = positions.iter().map(|p| kiss(*p)).collect();
            let uvs = palette_uvs(&colours, mesh.palette.len(), positions.len());
            let mut render = RenderMesh::new(
                vertices,
                None,
                Some(uvs),
                Some(IndexBuffer::Unified(mesh.triangles.clone())),
            );
            render.recompute_normals();
            let mut node = scene.add_render_mesh(render, kiss3d::glamx::Vec3::ONE);
            if mesh.palette.is_empty() {
                let [r, g, b] = mesh.colour;
                node.set_color(Color::new(r, g, b, 1.0));
            } else {
                let png = palette_png(&mesh.palette)?;
                let name = format!("rapier3d-deform palette {:?}", mesh.palette);
                let texture = TextureManager::get_global_manager(|tm| {
                    tm.add_image_from_memory_pixelated(&png, &name)
                });
                node.set_color(Color::new(1.0, 1.0, 1.0, 1.0));
                node.set_texture(texture);
            }
            node.enable_backface_culling(false);
            nodes.push(node);
        }
        Ok(Self {
            nodes,
            positions,
            colours,
        })
    }

    /// Rewrites every node's vertices from the demo's meshes (dents, poses) and sets its pose
    /// to its body's.
    pub fn update(&mut self, demo: &mut Demo) -> Result<(), Box<dyn Error>> {
        for (index, node) in self.nodes.iter_mut().enumerate() {
            demo.mesh_positions(index, &mut self.positions)?;
            let positions = &self.positions;
            node.modify_vertices(&mut |vertices: &mut Vec<kiss3d::glamx::Vec3>| {
                if vertices.len() == positions.len() {
                    for (v, p) in vertices.iter_mut().zip(positions) {
                        *v = kiss(*p);
                    }
                }
            });
            node.recompute_normals();
            demo.mesh_colours(index, &mut self.colours)?;
            let palette = demo.meshes()[index].palette.len();
            if !self.colours.is_empty() {
                let uvs = palette_uvs(&self.colours, palette, positions.len());
                node.modify_uvs(&mut |old: &mut Vec<kiss3d::glamx::Vec2>| {
                    if old.len() == uvs.len() {
                        old.copy_from_slice(&uvs);
                    }
                });
            }
            let body = demo.meshes()[index].body;
            if let Some(rb) = demo.world().bodies.get(body) {
                node.set_pose(*rb.position());
            }
        }
        Ok(())
    }
}

fn kiss(p: Vec3) -> kiss3d::glamx::Vec3 {
    kiss3d::glamx::Vec3::new(p.x, p.y, p.z)
}

/// Texture coordinates of `vertices` vertices picking `colours` from a palette of `palette`
/// texels (the centre of each texel; all at the first without colours).
fn palette_uvs(colours: &[u32], palette: usize, vertices: usize) -> Vec<kiss3d::glamx::Vec2> {
    let n = palette.max(1) as f32;
    (0..vertices)
        .map(|v| {
            let c = colours.get(v).copied().unwrap_or(0) as f32;
            kiss3d::glamx::Vec2::new((c + 0.5) / n, 0.5)
        })
        .collect()
}

/// The palette as a one-row RGB PNG, each linear colour encoded to sRGB (kiss3d decodes
/// textures as sRGB).
fn palette_png(palette: &[[f32; 3]]) -> Result<Vec<u8>, Box<dyn Error>> {
    let srgb = |x: f32| {
        let x = x.clamp(0.0, 1.0);
        let e = if x <= 0.003_130_8 {
            12.92 * x
        } else {
            1.055 * x.powf(1.0 / 2.4) - 0.055
        };
        (e * 255.0).round() as u8
    };
    let pixels: Vec<u8> = palette.iter().flatten().map(|&x| srgb(x)).collect();
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, palette.len() as u32, 1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&pixels)?;
    Ok(bytes)
}

/// Rapier's debug-render backend drawing into the kiss3d window (lines 2 px wide), for the
/// crate's [`rapier3d_deform::debug_render::DeformDebugRenderer`].
pub struct KissLines<'a> {
    window: &'a mut Window,
}

impl<'a> KissLines<'a> {
    /// Lines into `window` (drawn with the next frame).
    pub fn new(window: &'a mut Window) -> Self {
        Self { window }
    }
}

impl DebugRenderBackend for KissLines<'_> {
    fn draw_line(&mut self, _: DebugRenderObject, a: Vector, b: Vector, color: DebugColor) {
        let Rgb { r, g, b: b_ } = hsla_to_rgb(color);
        let alpha = color[3];
        self.window
            .draw_line(kiss(a), kiss(b), Color::new(r, g, b_, alpha), 2.0, false);
    }
}

/// Writes the window's last frame to `path` (RGB PNG).
pub fn save_png(window: &Window, path: &Path) -> Result<(), Box<dyn Error>> {
    let image = window.snap_image();
    let (width, height) = (image.width(), image.height());
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()?
        .write_image_data(&image.into_raw())?;
    println!("wrote {}", path.display());
    Ok(())
}
