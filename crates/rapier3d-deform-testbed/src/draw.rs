//! Drawing the crate's shapes in the testbed's kiss3d scene: shaded meshes rewritten every frame (the testbed draws nothing for custom shapes) and a kiss3d line backend for the crate's debug renderer.

use std::error::Error;
use std::path::Path;

use kiss3d::color::Color;
use kiss3d::prelude::SceneNode3d as SceneNode;
use kiss3d::procedural::{IndexBuffer, RenderMesh};
use kiss3d::window::Window;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::prelude::{DebugColor, DebugRenderBackend, DebugRenderObject, Vector};
use rapier3d_deform_scenes::render::Rgb;
use rapier3d_deform_scenes::render::debug_lines::hsla_to_rgb;
use rapier3d_deform_testbed::Demo;

/// One kiss3d node per drawn mesh of a [`Demo`], its vertices rewritten from the mesh's current
/// positions and its pose set to its body's, every frame.
pub struct MeshNodes {
    nodes: Vec<SceneNode>,
    positions: Vec<Vec3>,
}

impl MeshNodes {
    /// Adds a node per mesh of `demo` to `scene` (smooth shading: vertices shared).
    pub fn new(scene: &mut SceneNode, demo: &mut Demo) -> Result<Self, Box<dyn Error>> {
        let mut positions = Vec::new();
        let mut nodes = Vec::with_capacity(demo.meshes().len());
        for index in 0..demo.meshes().len() {
            demo.mesh_positions(index, &mut positions)?;
            let mesh = &demo.meshes()[index];
            let vertices = positions.iter().map(|p| kiss(*p)).collect();
            let mut render = RenderMesh::new(
                vertices,
                None,
                None,
                Some(IndexBuffer::Unified(mesh.triangles.clone())),
            );
            render.recompute_normals();
            let mut node = scene.add_render_mesh(render, kiss3d::glamx::Vec3::ONE);
            let [r, g, b] = mesh.colour;
            node.set_color(Color::new(r, g, b, 1.0));
            node.enable_backface_culling(false);
            nodes.push(node);
        }
        Ok(Self { nodes, positions })
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
