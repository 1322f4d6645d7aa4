//! Pictures of a limit-surface interference query on the level-3 mesh (Grinspun & Schröder 2001, Fig. 1, 10–12): the interference regions, and the depth where refinement stopped.

use super::{EdgeTolerance, level_resolving};
use crate::render::{
    Camera, Canvas, Corner, Legend, LegendEntry, MeshColours, Rgb, Shading, WrittenFiles,
    clear_outputs,
};
use rapier3d_deform::Result;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::limit_surface::{
    InterferenceRegion, LimitHierarchy, LimitInterferenceQuery, SubPatch,
};
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;

/// Level of the mesh the pictures colour.
pub const PICTURE_LEVEL: u32 = 3;
/// A reported pair whose flat polygons interfere.
pub const INTERFERING: Rgb = Rgb::new(0.85, 0.1, 0.1);
/// A reported pair not ruled out at the tolerance (its bounds still meet).
pub const NOT_RULED_OUT: Rgb = Rgb::new(0.98, 0.6, 0.15);
/// Ruled out: two blues alternating by control patch.
pub const BLUES: [Rgb; 2] = [Rgb::new(0.55, 0.68, 0.86), Rgb::new(0.42, 0.55, 0.76)];
/// Seed Fig. 10: ruled out at the hierarchy's nodes.
pub const NODE_LEVEL: Rgb = Rgb::new(0.8, 0.8, 0.8);
/// Seed Fig. 10: the deepest sub-patch reached, depth 0, 1, 2, 3 and deeper.
pub const DEPTHS: [Rgb; 4] = [
    Rgb::new(0.45, 0.7, 0.95),
    Rgb::new(0.35, 0.75, 0.45),
    Rgb::new(0.95, 0.75, 0.2),
    Rgb::new(0.85, 0.2, 0.15),
];

/// Barycentric centroid of level-`k` triangle `f` over its control triangle
/// (`LoopSubdivision`'s child order `[a, ab, ca]`, `[ab, b, bc]`, `[ca, bc, c]`, `[ab, bc, ca]`),
/// with the control triangle's index.
///
/// # Performance
/// O(k).
pub fn fine_centroid(f: usize, k: u32) -> (usize, [f64; 3]) {
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
///
/// # Performance
/// O(1).
pub fn domain_holds(s: &SubPatch, c: [f64; 3]) -> bool {
    let o = s.domain;
    let det = (o[1][1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (o[1][2] - o[0][2]);
    let b = ((c[1] - o[0][1]) * (o[2][2] - o[0][2]) - (o[2][1] - o[0][1]) * (c[2] - o[0][2])) / det;
    let g = ((o[1][1] - o[0][1]) * (c[2] - o[0][2]) - (c[1] - o[0][1]) * (o[1][2] - o[0][2])) / det;
    b >= -1e-12 && g >= -1e-12 && b + g <= 1.0 + 1e-12
}

/// The legend of [`QueryPictures`]' region picture.
///
/// # Performance
/// O(1).
pub fn region_legend() -> Legend {
    Legend::new("limit-surface query")
        .with(LegendEntry::swatch(INTERFERING, "flat polygons interfere"))
        .with(LegendEntry::swatch(
            NOT_RULED_OUT,
            "not ruled out at the tolerance",
        ))
        .with(LegendEntry::swatch(
            BLUES[0],
            "ruled out (patches in two blues)",
        ))
}

/// The legend of [`QueryPictures`]' depth picture (seed Fig. 10).
///
/// # Performance
/// O(1).
pub fn depth_legend() -> Legend {
    let mut legend = Legend::new("refinement stopped at (seed Fig. 10)")
        .with(LegendEntry::swatch(NODE_LEVEL, "hierarchy node"));
    for (d, c) in DEPTHS.iter().enumerate() {
        legend = legend.with(LegendEntry::swatch(
            *c,
            if d == 0 {
                "limit patch (depth 0)".to_string()
            } else if d + 1 == DEPTHS.len() {
                format!("sub-patch depth {d} or deeper")
            } else {
                format!("sub-patch depth {d}")
            },
        ));
    }
    legend
}

/// A camera that frames `points` seen along `direction` on a `side` canvas with a header and
/// room for both legends at the bottom.
///
/// # Errors
/// As [`Camera::fit_points`].
///
/// # Performance
/// O(points).
pub fn fit_camera(points: &[Vec3], direction: Vec3, side: (usize, usize)) -> Result<Camera> {
    let legend_height = Canvas::legend_size(side.0, &region_legend())
        .1
        .max(Canvas::legend_size(side.0, &depth_legend()).1);
    Camera::fit_points(
        points,
        direction,
        0.6,
        side.0 as f32 / side.1 as f32,
        0.06,
        [
            Canvas::header_height(side.0, true) / side.1 as f32,
            0.0,
            (legend_height + 12.0) / side.1 as f32,
            0.0,
        ],
    )
}

/// Draws a query's result on the level-[`PICTURE_LEVEL`] mesh of the posed cage: every triangle
/// coloured by the sub-patches holding its centroid.
#[derive(Clone, Copy, Debug)]
pub struct QueryPictures<'a> {
    /// The scene's name, first in every title.
    pub scene: &'a str,
    /// The camera of every picture.
    pub camera: &'a Camera,
    /// Canvas width and height in pixels.
    pub side: (usize, usize),
}

impl QueryPictures<'_> {
    /// Writes two pictures of the query's last result on `cage` posed at `posed`: `region_path`
    /// (red where a reported pair's flat polygons interfere, orange where a pair was not ruled
    /// out at the tolerance, otherwise one of two blues by control patch) and `depth_path` (the
    /// depth of the deepest sub-patch the query reached over each triangle, grey where the
    /// patch was ruled out at the hierarchy's nodes; seed Fig. 10). `subtitle` follows the
    /// counts in the headers; `stamp` is the headers' right-hand label and starts the file
    /// descriptions.
    ///
    /// # Errors
    /// A mesh error when `posed` does not fit the cage; the canvas's and the file's errors.
    ///
    /// # Performance
    /// O(4^level · triangles · sub-patches per patch) plus the rasterisation.
    #[allow(clippy::too_many_arguments)]
    pub fn save(
        &self,
        written: &mut WrittenFiles,
        cage: &TriangleMesh,
        posed: &[Vec3],
        query: &LimitInterferenceQuery,
        subtitle: &str,
        stamp: &str,
        region_path: String,
        depth_path: String,
    ) -> Result<()> {
        let res = query.result();
        let posed_cage = TriangleMesh::new(posed.to_vec(), cage.triangles().to_vec())?;
        let fine = LoopSubdivision::new(posed_cage, PICTURE_LEVEL)?;
        let triangles = fine.mesh().triangle_count();
        let colours: Vec<Rgb> = (0..triangles)
            .map(|f| {
                let (t, c) = fine_centroid(f, PICTURE_LEVEL);
                let hit = |r: &&InterferenceRegion| {
                    [r.a, r.b]
                        .iter()
                        .any(|s| s.patch == t && domain_holds(s, c))
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
        let mut per_patch: Vec<Vec<SubPatch>> = vec![Vec::new(); cage.triangle_count()];
        for s in query.subpatches() {
            if let Some(list) = per_patch.get_mut(s.patch) {
                list.push(s);
            }
        }
        let entered = per_patch.iter().flatten().filter(|s| s.depth == 0).count();
        let created = per_patch.iter().flatten().filter(|s| s.depth > 0).count();
        let depth_colours: Vec<Rgb> = (0..triangles)
            .map(|f| {
                let (t, c) = fine_centroid(f, PICTURE_LEVEL);
                per_patch[t]
                    .iter()
                    .filter(|s| domain_holds(s, c))
                    .map(|s| s.depth as usize)
                    .max()
                    .map_or(NODE_LEVEL, |d| DEPTHS[d.min(DEPTHS.len() - 1)])
            })
            .collect();
        let points = cage.vertex_count();
        let pictures = [
            (
                &depth_colours,
                format!("{}: where refinement stopped", self.scene),
                format!(
                    "{points} control points, {subtitle}: {entered} patches entered, {created} sub-patches"
                ),
                depth_legend(),
                depth_path,
                format!("{stamp}: depth where refinement stopped (seed Fig. 10)"),
            ),
            (
                &colours,
                format!("{}: limit-surface interference", self.scene),
                format!(
                    "{points} control points, {subtitle}: {} regions, {} interfering",
                    res.regions.len(),
                    res.interfering().count()
                ),
                region_legend(),
                region_path,
                format!(
                    "{stamp}: {} regions, {} with interfering polygons",
                    res.regions.len(),
                    res.interfering().count()
                ),
            ),
        ];
        for (colours, title, sub, legend, path, what) in pictures {
            let mut canvas = Canvas::new(self.side.0, self.side.1, Rgb::WHITE)?;
            canvas.draw_mesh(
                self.camera,
                fine.mesh().positions(),
                fine.mesh().triangles(),
                MeshColours::PerTriangle(colours),
                Shading::Flat,
            )?;
            canvas.draw_header(&title, &sub, stamp);
            canvas.draw_legend(&legend, Corner::BottomRight);
            written.save_png(&canvas, path, what)?;
        }
        Ok(())
    }
}

/// One posed frame of [`save_tolerance_series`].
#[derive(Clone, Debug)]
pub struct SeriesPose {
    /// The headers' right-hand label, e.g. `push 1.00`.
    pub label: String,
    /// The file-name part, e.g. `push_1.00`.
    pub stem: String,
    /// The control points.
    pub points: Vec<Vec3>,
}

/// The examples' series of seed Fig. 11–12: for every pose and every tolerance, the query with
/// [`EdgeTolerance`] (at most the level that resolves the tolerance, [`level_resolving`]) and
/// its two pictures ([`QueryPictures::save`]) as `<out>/<stem>_tol<tolerance>.png` and
/// `<out>/depth_<stem>_tol<tolerance>.png`. Returns per pose and tolerance the number of
/// regions with interfering polygons and the deepest sub-patch reached.
///
/// # Errors
/// A typed error when the cage is not a valid closed control mesh or a pose does not fit it;
/// the pictures' errors.
///
/// # Performance
/// One query and two level-3 pictures per pose and tolerance.
pub fn save_tolerance_series(
    written: &mut WrittenFiles,
    pictures: &QueryPictures<'_>,
    out: &str,
    cage: &TriangleMesh,
    poses: &[SeriesPose],
    tolerances: &[f64],
) -> Result<Vec<(usize, u32)>> {
    let mut found = Vec::new();
    for pose in poses {
        for &tolerance in tolerances {
            let mut hierarchy = LimitHierarchy::new(cage)?;
            hierarchy.set_control_points(&pose.points)?;
            let k = level_resolving(cage, tolerance, 5);
            let mut oracle = EdgeTolerance {
                tolerance,
                max_depth: k,
            };
            let mut query = LimitInterferenceQuery::new();
            query.detect_self(&mut hierarchy, &mut oracle)?;
            found.push((
                query.result().interfering().count(),
                query.subpatches().map(|s| s.depth).max().unwrap_or(0),
            ));
            pictures.save(
                written,
                cage,
                &pose.points,
                &query,
                &format!("tolerance {tolerance} (≤ {k} steps)"),
                &format!("{}, tolerance {tolerance}", pose.label),
                format!("{out}/{}_tol{tolerance}.png", pose.stem),
                format!("{out}/depth_{}_tol{tolerance}.png", pose.stem),
            )?;
        }
    }
    Ok(found)
}

/// An example's whole output (seed Fig. 11–12): clears the PNGs in `out`, frames every pose seen
/// along `direction`, writes [`save_tolerance_series`] and prints the files written. Returns
/// what [`save_tolerance_series`] returns.
///
/// # Errors
/// As [`save_tolerance_series`], [`fit_camera`] and [`clear_outputs`].
///
/// # Performance
/// As [`save_tolerance_series`].
pub fn write_tolerance_pictures(
    out: &str,
    scene: &str,
    cage: &TriangleMesh,
    poses: &[SeriesPose],
    tolerances: &[f64],
    direction: Vec3,
) -> Result<Vec<(usize, u32)>> {
    const SIDE: (usize, usize) = (640, 480);
    let all: Vec<Vec3> = poses.iter().flat_map(|p| p.points.clone()).collect();
    let camera = fit_camera(&all, direction, SIDE)?;
    let pictures = QueryPictures {
        scene,
        camera: &camera,
        side: SIDE,
    };
    clear_outputs(out, &["png"])?;
    let mut written = WrittenFiles::new();
    let found = save_tolerance_series(&mut written, &pictures, out, cage, poses, tolerances)?;
    written.print_summary();
    Ok(found)
}
