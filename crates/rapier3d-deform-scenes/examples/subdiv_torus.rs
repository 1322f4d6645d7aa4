//! Self-interference of a higher-genus Loop limit surface (Grinspun & Schröder 2001, Fig. 11): a three-handled torus whose bridge is pushed down through its cross bar until the two tubes cross in the centre, the interference found on the limit surface at three tolerances and drawn on the level-3 mesh.
//!
//! ```text
//! cargo run --release --example subdiv_torus
//! ```
//!
//! Writes `out/subdiv_torus/push_<p>_tol<t>.png` for pushes 0, 0.5 and 1 and tolerances 0.2, 0.1
//! and 0.05: each level-3 triangle coloured red where a reported pair's flat polygons interfere,
//! orange where a pair was not ruled out at the tolerance, otherwise one of two blues by control
//! patch; beside each, `depth_push_<p>_tol<t>.png` colours the depth where refinement stopped
//! (seed Fig. 10).

use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{WrittenFiles, clear_outputs};
use rapier3d_deform_scenes::subdiv::pictures::{
    QueryPictures, SeriesPose, fit_camera, save_tolerance_series,
};
use rapier3d_deform_scenes::subdiv::{TORUS_TOLERANCES, push_bridge, torus_cage};

const OUT: &str = "out/subdiv_torus";
const SIDE: (usize, usize) = (640, 480);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cage = torus_cage();
    let poses: Vec<SeriesPose> = [0.0f32, 0.5, 1.0]
        .iter()
        .map(|&p| SeriesPose {
            label: format!("push {p:.2}"),
            stem: format!("push_{p:.2}"),
            points: push_bridge(cage.positions(), p),
        })
        .collect();
    let all: Vec<Vec3> = poses.iter().flat_map(|p| p.points.clone()).collect();
    let camera = fit_camera(&all, Vec3::new(0.45, 0.75, -0.8), SIDE)?;
    let pictures = QueryPictures {
        scene: "subdiv_torus",
        camera: &camera,
        side: SIDE,
    };
    clear_outputs(OUT, &["png"])?;
    let mut written = WrittenFiles::new();
    let found = save_tolerance_series(
        &mut written,
        &pictures,
        OUT,
        &cage,
        &poses,
        &TORUS_TOLERANCES,
    )?;
    written.print_summary();
    println!("(interfering regions, deepest sub-patch) per push and tolerance: {found:?}");
    Ok(())
}
