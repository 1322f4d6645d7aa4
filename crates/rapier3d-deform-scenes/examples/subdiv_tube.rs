//! Self-interference of a Loop limit surface (Grinspun & Schröder 2001, Fig. 1): a capsule cage bent until it folds onto itself, its interference regions found on the limit surface to a tolerance and drawn on the level-3 mesh.
//!
//! ```text
//! cargo run --release --example subdiv_tube
//! ```
//!
//! Writes `out/subdiv_tube/bend_<k>_<angle>deg.png` for bends of 0°, 120°, 165° and 180°: each level-3 triangle is coloured by where the
//! limit-surface query stopped over it: red where a reported pair's flat polygons interfere,
//! orange where a pair was not ruled out at the tolerance (its bounds still meet), otherwise one of
//! two blues by control patch (ruled out at a coarser level or never reached). Beside each,
//! `depth_<k>_<angle>deg.png` colours every level-3 triangle by the depth where refinement stopped
//! over it (seed Fig. 10): grey where the limit patch was ruled out at the hierarchy's nodes, then
//! one colour per depth of the deepest sub-patch the query reached there (`subpatches`).

use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::limit_surface::{
    LimitHierarchy, LimitInterferenceQuery, SizeTolerance, SubPatch,
};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform_scenes::render::{
    Camera, Canvas, Corner, Legend, LegendEntry, MeshColours, Rgb, Shading, WrittenFiles,
    clear_outputs,
};
use rapier3d_deform_scenes::subdiv::{bend, tube_cage};

const OUT: &str = "out/subdiv_tube";
const SIDE: (usize, usize) = (640, 420);
const LEVEL: u32 = 3;
const RADIUS: f32 = 0.5;
const INTERFERING: Rgb = Rgb::new(0.85, 0.1, 0.1);
const NOT_RULED_OUT: Rgb = Rgb::new(0.98, 0.6, 0.15);
const BLUES: [Rgb; 2] = [Rgb::new(0.55, 0.68, 0.86), Rgb::new(0.42, 0.55, 0.76)];
/// Fig. 10 colours: ruled out at the nodes, then depth 0, 1, 2, 3 (the oracle's deepest).
const NODE_LEVEL: Rgb = Rgb::new(0.8, 0.8, 0.8);
const DEPTHS: [Rgb; 4] = [
    Rgb::new(0.45, 0.7, 0.95),
    Rgb::new(0.35, 0.75, 0.45),
    Rgb::new(0.95, 0.75, 0.2),
    Rgb::new(0.85, 0.2, 0.15),
];

/// Barycentric corners of level-`k` triangle `f` over its control triangle (`LoopSubdivision`'s
/// child order).
fn fine_domain(f: usize, k: u32) -> (usize, [f64; 3]) {
    let mut d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for l in (0..k).rev() {
        let mid = |a: [f64; 3], b: [f64; 3]| [0, 1, 2].map(|i| 0.5 * (a[i] + b[i]));
        let (ab, bc, ca) = (mid(d[0], d[1]), mid(d[1], d[2]), mid(d[2], d[0]));
        d = match (f >> (2 * l)) & 3 {
            0 => [d[0], ab, ca],
            1 => [ab, d[1], bc],
            2 => [ca, bc, d[2]],
            _ => [ab, bc, ca],
        };
    }
    let c = [0, 1, 2].map(|i| (d[0][i] + d[1][i] + d[2][i]) / 3.0);
    (f >> (2 * k), c)
}

/// Whether the barycentric point `c` lies in the sub-patch's domain.
fn inside(s: &SubPatch, c: [f64; 3]) -> bool {
    let o = s.domain;
    let det = (o[1][1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (o[1][2] - o[0][2]);
    let b = ((c[1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (c[2] - o[0][2])) / det;
    let g = ((o[1][1] - o[0][1]) * (c[2] - o[0][2]) - (c[1] - o[0][1]) * (o[1][2] - o[0][2])) / det;
    b >= -1e-12 && g >= -1e-12 && b + g <= 1.0 + 1e-12
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cage = tube_cage(8, 8, RADIUS, 4.0);
    let mut hierarchy = LimitHierarchy::new(&cage)?;
    let mut query = LimitInterferenceQuery::new();
    let tolerance = 0.05;
    let mut oracle = SizeTolerance {
        tolerance,
        max_depth: LEVEL,
    };
    let angles_deg = [0.0f32, 120.0, 165.0, 180.0];
    let poses: Vec<Vec<Vec3>> = angles_deg
        .iter()
        .map(|a| {
            bend(
                cage.positions(),
                1.6,
                0.8 * RADIUS * std::f32::consts::PI,
                a.to_radians(),
            )
        })
        .collect();
    let legend = Legend::new("limit-surface query")
        .with(LegendEntry::swatch(INTERFERING, "flat polygons interfere"))
        .with(LegendEntry::swatch(
            NOT_RULED_OUT,
            "not ruled out at the tolerance",
        ))
        .with(LegendEntry::swatch(
            BLUES[0],
            "ruled out (patches in two blues)",
        ));
    let mut depth_legend = Legend::new("refinement stopped at (seed Fig. 10)")
        .with(LegendEntry::swatch(NODE_LEVEL, "hierarchy node"));
    for (d, c) in DEPTHS.iter().enumerate() {
        depth_legend = depth_legend.with(LegendEntry::swatch(
            *c,
            if d == 0 {
                "limit patch (depth 0)".to_string()
            } else {
                format!("sub-patch depth {d}")
            },
        ));
    }
    let all: Vec<Vec3> = poses.iter().flatten().copied().collect();
    let camera = Camera::fit_points(
        &all,
        Vec3::new(0.2, -0.35, -1.0),
        0.6,
        SIDE.0 as f32 / SIDE.1 as f32,
        0.06,
        [
            Canvas::header_height(SIDE.0, true) / SIDE.1 as f32,
            0.0,
            (Canvas::legend_size(SIDE.0, &legend)
                .1
                .max(Canvas::legend_size(SIDE.0, &depth_legend).1)
                + 12.0)
                / SIDE.1 as f32,
            0.0,
        ],
    )?;
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    for (k, (posed, angle)) in poses.iter().zip(angles_deg).enumerate() {
        hierarchy.set_control_points(posed)?;
        query.detect_self(&mut hierarchy, &mut oracle)?;
        let res = query.result();
        let posed_cage = TriangleMesh::new(posed.clone(), cage.triangles().to_vec())?;
        let fine = LoopSubdivision::new(posed_cage, LEVEL)?;
        let colours: Vec<Rgb> = (0..fine.mesh().triangle_count())
            .map(|f| {
                let (t, c) = fine_domain(f, LEVEL);
                let hit = |r: &&rapier3d_deform::limit_surface::InterferenceRegion| {
                    [r.a, r.b].iter().any(|s| s.patch == t && inside(s, c))
                };
                if res.interfering().any(|r| hit(&r)) {
                    INTERFERING
                } else if res.regions.iter().any(|r| hit(&r)) {
                    NOT_RULED_OUT
                } else {
                    BLUES[t % 2]
                }
            })
            .collect();
        // The depth where refinement stopped over each level-3 triangle: the deepest sub-patch
        // holding its centroid.
        let mut deepest: Vec<Vec<&SubPatch>> = vec![Vec::new(); cage.triangle_count()];
        let subs: Vec<SubPatch> = query.subpatches().collect();
        for s in &subs {
            deepest[s.patch].push(s);
        }
        let depth_colours: Vec<Rgb> = (0..fine.mesh().triangle_count())
            .map(|f| {
                let (t, c) = fine_domain(f, LEVEL);
                deepest[t]
                    .iter()
                    .filter(|s| inside(s, c))
                    .map(|s| s.depth as usize)
                    .max()
                    .map_or(NODE_LEVEL, |d| DEPTHS[d.min(DEPTHS.len() - 1)])
            })
            .collect();
        let mut canvas = Canvas::new(SIDE.0, SIDE.1, Rgb::WHITE)?;
        canvas.draw_mesh(
            &camera,
            fine.mesh().positions(),
            fine.mesh().triangles(),
            MeshColours::PerTriangle(&depth_colours),
            Shading::Flat,
        )?;
        canvas.draw_header(
            "subdiv_tube: where refinement stopped",
            &format!(
                "{} control points, tolerance {tolerance}: {} patches entered, {} sub-patches",
                cage.vertex_count(),
                subs.iter().filter(|s| s.depth == 0).count(),
                subs.iter().filter(|s| s.depth > 0).count()
            ),
            &format!("bend {angle:.0}°"),
        );
        canvas.draw_legend(&depth_legend, Corner::BottomRight);
        written.save_png(
            &canvas,
            format!("{OUT}/depth_{k}_{angle:.0}deg.png"),
            format!("bend {angle:.0}°: depth where refinement stopped (seed Fig. 10)"),
        )?;
        let mut canvas = Canvas::new(SIDE.0, SIDE.1, Rgb::WHITE)?;
        canvas.draw_mesh(
            &camera,
            fine.mesh().positions(),
            fine.mesh().triangles(),
            MeshColours::PerTriangle(&colours),
            Shading::Flat,
        )?;
        canvas.draw_header(
            "subdiv_tube: limit-surface interference",
            &format!(
                "{} control points, tolerance {tolerance}: {} regions, {} interfering",
                cage.vertex_count(),
                res.regions.len(),
                res.interfering().count()
            ),
            &format!("bend {angle:.0}°"),
        );
        canvas.draw_legend(&legend, Corner::BottomRight);
        let path = format!("{OUT}/bend_{k}_{angle:.0}deg.png");
        written.save_png(
            &canvas,
            path,
            format!(
                "bend {angle:.0}°: {} regions, {} with interfering polygons",
                res.regions.len(),
                res.interfering().count()
            ),
        )?;
    }
    written.print_summary();
    Ok(())
}
