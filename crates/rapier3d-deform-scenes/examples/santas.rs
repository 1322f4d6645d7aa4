//! Colliding point-based bodies (Steinemann & Otaduy's "colliding santas"): Spot under point-based animation with 24 spring-joined Rapier particles, crate deformable mesh colliders, falling into a pile.
//!
//! ```text
//! cargo run --release --example santas [-- <bodies>]
//! ```
//!
//! Runs [`SantaPile`] with crate surfaces (8 bodies unless a count is given) for 3 s at 60 Hz
//! and writes `out/santas/frame_<k>_<t>s.png` at six times: each body in its own colour,
//! labelled with its index, the triangles in a contact manifold of the step red, self-colliding
//! triangles orange, the particles as small dark spheres. The header gives the step's contact
//! points, self pairs, the vertices inside another body and the lowest vertex.

use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, Label, Legend, LegendEntry, MeshColours, Rgb, Shading, WrittenFiles,
    clear_outputs,
};
use rapier3d_deform_scenes::santas::{SantaAsset, SantaPile, Surface};

const OUT: &str = "out/santas";
const SIDE: (usize, usize) = (900, 640);
const STEPS: usize = 180;
const SHOTS: [usize; 6] = [0, 30, 60, 90, 130, 179];
const CONTACT: Rgb = Rgb::new(0.9, 0.1, 0.1);
const SELF: Rgb = Rgb::new(0.98, 0.6, 0.1);
const PALETTE: [Rgb; 8] = [
    Rgb::new(0.55, 0.68, 0.9),
    Rgb::new(0.55, 0.85, 0.55),
    Rgb::new(0.85, 0.75, 0.45),
    Rgb::new(0.75, 0.6, 0.85),
    Rgb::new(0.5, 0.82, 0.82),
    Rgb::new(0.9, 0.6, 0.7),
    Rgb::new(0.7, 0.7, 0.7),
    Rgb::new(0.6, 0.75, 0.55),
];

/// One captured frame.
struct Shot {
    step: usize,
    vertices: Vec<Vec<Vec3>>,
    particles: Vec<Vec<Vec3>>,
    colours: Vec<Vec<Rgb>>,
    subtitle: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(8);
    let asset = SantaAsset::from_obj_file(rapier3d_deform_scenes::asset_path("closed/spot.obj"))?;
    let mut pile = SantaPile::new(&asset, count, Surface::Crate, 7)?;
    let triangles = asset.mesh().triangles().to_vec();
    let mut shots = Vec::new();
    for s in 0..STEPS {
        let stats = pile.step()?;
        if !SHOTS.contains(&s) {
            continue;
        }
        let mut colours: Vec<Vec<Rgb>> = (0..pile.body_count())
            .map(|i| vec![PALETTE[i % PALETTE.len()]; triangles.len()])
            .collect();
        for (a, ta, b, tb) in pile.contact_triangle_pairs(true) {
            colours[a as usize][ta as usize] = CONTACT;
            colours[b as usize][tb as usize] = CONTACT;
        }
        for (i, c) in colours.iter_mut().enumerate() {
            for &[t1, t2] in pile.self_pairs(i).unwrap_or(&[]) {
                c[t1 as usize] = SELF;
                c[t2 as usize] = SELF;
            }
        }
        let (inside, deepest) = pile.vertices_inside_others();
        shots.push(Shot {
            step: s,
            vertices: (0..pile.body_count())
                .filter_map(|i| pile.surface_vertices(i))
                .collect(),
            particles: (0..pile.body_count())
                .filter_map(|i| pile.particle_positions(i).map(<[Vec3]>::to_vec))
                .collect(),
            colours,
            subtitle: format!(
                "{} bodies, {} triangles: {} contacts, {} self pairs, {inside} vertices in \
                 others (deepest {:.0} mm), lowest vertex {:.0} mm",
                pile.body_count(),
                pile.triangle_count(),
                stats.contact_points,
                stats.self_pairs,
                deepest * 1e3,
                pile.lowest_vertex() * 1e3
            ),
        });
    }
    let legend = Legend::new("crate DeformableMeshShape per body")
        .with(LegendEntry::swatch(PALETTE[0], "body (one colour each)"))
        .with(LegendEntry::swatch(
            CONTACT,
            "triangle in a contact manifold",
        ))
        .with(LegendEntry::swatch(SELF, "self-colliding triangle"))
        .with(LegendEntry::swatch(Rgb::new(0.2, 0.2, 0.25), "particle"));
    let all: Vec<Vec3> = shots
        .iter()
        .flat_map(|s| s.vertices.iter().flatten().copied())
        .collect();
    let camera = Camera::fit_points(
        &all,
        Vec3::new(-0.6, -0.45, -1.0),
        0.6,
        SIDE.0 as f32 / SIDE.1 as f32,
        0.05,
        [
            Canvas::header_height(SIDE.0, true) / SIDE.1 as f32,
            0.0,
            (Canvas::legend_size(SIDE.0, &legend).1 + 12.0) / SIDE.1 as f32,
            0.0,
        ],
    )?;
    let (lo, hi) = all
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let ground = [
        Vec3::new(lo.x - 1.0, 0.0, lo.z - 1.0),
        Vec3::new(hi.x + 1.0, 0.0, lo.z - 1.0),
        Vec3::new(hi.x + 1.0, 0.0, hi.z + 1.0),
        Vec3::new(lo.x - 1.0, 0.0, hi.z + 1.0),
    ];
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    let dt = pile.world().integration_parameters.dt;
    for (k, shot) in shots.iter().enumerate() {
        let mut canvas = Canvas::new(SIDE.0, SIDE.1, Rgb::WHITE)?;
        canvas.draw_mesh(
            &camera,
            &ground,
            &[[0, 2, 1], [0, 3, 2]],
            MeshColours::Uniform(Rgb::new(0.88, 0.88, 0.86)),
            Shading::Flat,
        )?;
        let mut labels = Vec::new();
        for (i, (v, c)) in shot.vertices.iter().zip(&shot.colours).enumerate() {
            canvas.draw_mesh(
                &camera,
                v,
                &triangles,
                MeshColours::PerTriangle(c),
                Shading::Smooth,
            )?;
            labels.push(Label::above(v, format!("{i}")));
        }
        for p in shot.particles.iter().flatten() {
            canvas.draw_sphere(&camera, *p, 0.025, Rgb::new(0.2, 0.2, 0.25))?;
        }
        let t = (shot.step + 1) as f32 * dt;
        canvas.draw_header(
            "santas: point-based bodies falling into a pile",
            &shot.subtitle,
            &format!("t = {t:.2} s (step {})", shot.step + 1),
        );
        canvas.draw_labels(&camera, &labels);
        canvas.draw_legend(&legend, Corner::BottomRight);
        written.save_png(
            &canvas,
            format!("{OUT}/frame_{k}_{t:.2}s.png"),
            format!("t = {t:.2} s: {}", shot.subtitle),
        )?;
    }
    written.print_summary();
    Ok(())
}
