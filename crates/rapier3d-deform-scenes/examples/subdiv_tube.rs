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

use rapier3d_deform::limit_surface::{LimitHierarchy, LimitInterferenceQuery, SizeTolerance};
use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{WrittenFiles, clear_outputs};
use rapier3d_deform_scenes::subdiv::pictures::{PICTURE_LEVEL, QueryPictures, fit_camera};
use rapier3d_deform_scenes::subdiv::{bend, tube_cage};

const OUT: &str = "out/subdiv_tube";
const SIDE: (usize, usize) = (640, 420);
const RADIUS: f32 = 0.5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cage = tube_cage(8, 8, RADIUS, 4.0);
    let mut hierarchy = LimitHierarchy::new(&cage)?;
    let mut query = LimitInterferenceQuery::new();
    let tolerance = 0.05;
    let mut oracle = SizeTolerance {
        tolerance,
        max_depth: PICTURE_LEVEL,
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
    let all: Vec<Vec3> = poses.iter().flatten().copied().collect();
    let camera = fit_camera(&all, Vec3::new(0.2, -0.35, -1.0), SIDE)?;
    let pictures = QueryPictures {
        scene: "subdiv_tube",
        camera: &camera,
        side: SIDE,
    };
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    for (k, (posed, angle)) in poses.iter().zip(angles_deg).enumerate() {
        hierarchy.set_control_points(posed)?;
        query.detect_self(&mut hierarchy, &mut oracle)?;
        pictures.save(
            &mut written,
            &cage,
            posed,
            &query,
            &format!("tolerance {tolerance}"),
            &format!("bend {angle:.0}°"),
            format!("{OUT}/bend_{k}_{angle:.0}deg.png"),
            format!("{OUT}/depth_{k}_{angle:.0}deg.png"),
        )?;
    }
    written.print_summary();
    Ok(())
}
