//! Self-interference of a partially everted Loop sphere (Grinspun & Schröder 2001, Fig. 12): the north cap of a sphere cage pushed down through the southern hemisphere, the interference found on the limit surface at three tolerances and drawn on the level-3 mesh.
//!
//! ```text
//! cargo run --release --example subdiv_sphere
//! ```
//!
//! Writes `out/subdiv_sphere/push_<p>_tol<t>.png` for pushes 1.2, 1.8 and 2.4 and tolerances 0.2,
//! 0.1 and 0.05 (seen from below): each level-3 triangle coloured red where a reported pair's flat polygons interfere,
//! orange where a pair was not ruled out at the tolerance, otherwise one of two blues by control
//! patch; beside each, `depth_push_<p>_tol<t>.png` colours the depth where refinement stopped
//! (seed Fig. 10).

use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::render::{WrittenFiles, clear_outputs};
use rapier3d_deform_scenes::subdiv::pictures::{
    QueryPictures, SeriesPose, fit_camera, save_tolerance_series,
};
use rapier3d_deform_scenes::subdiv::{SPHERE_TOLERANCES, evert_cap, sphere_cage};

const OUT: &str = "out/subdiv_sphere";
const SIDE: (usize, usize) = (640, 480);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cage = sphere_cage(3, 0.0);
    let poses: Vec<SeriesPose> = [1.2f32, 1.8, 2.4]
        .iter()
        .map(|&p| SeriesPose {
            label: format!("push {p:.2}"),
            stem: format!("push_{p:.2}"),
            points: evert_cap(cage.positions(), p),
        })
        .collect();
    let all: Vec<Vec3> = poses.iter().flat_map(|p| p.points.clone()).collect();
    let camera = fit_camera(&all, Vec3::new(0.35, 0.55, 0.75), SIDE)?;
    let pictures = QueryPictures {
        scene: "subdiv_sphere",
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
        &SPHERE_TOLERANCES,
    )?;
    written.print_summary();
    println!("(interfering regions, deepest sub-patch) per push and tolerance: {found:?}");
    Ok(())
}
