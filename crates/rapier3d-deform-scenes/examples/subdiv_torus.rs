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
use rapier3d_deform_scenes::subdiv::pictures::{SeriesPose, write_tolerance_pictures};
use rapier3d_deform_scenes::subdiv::{TORUS_TOLERANCES, push_bridge, torus_cage};

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
    let found = write_tolerance_pictures(
        "out/subdiv_torus",
        "subdiv_torus",
        &cage,
        &poses,
        &TORUS_TOLERANCES,
        Vec3::new(0.45, 0.75, -0.8),
    )?;
    println!("(interfering regions, deepest sub-patch) per push and tolerance: {found:?}");
    Ok(())
}
