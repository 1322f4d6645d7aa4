//! Self-interference of a partially everted Loop sphere (Grinspun & Schröder 2001, Fig. 12): the north cap of a sphere cage pushed down through the southern hemisphere, the interference found on the limit surface at three tolerances and drawn on the level-3 mesh.
//!
//! ```text
//! cargo run --release --example subdiv_sphere
//! ```
//!
//! Writes `out/subdiv_sphere/push_<p>_tol<t>.png` for pushes 1.2, 1.8 and 2.4 and tolerances 0.2,
//! 0.1 and 0.05 (seen from the side, slightly below): each level-3 triangle coloured red where a reported pair's flat polygons interfere,
//! orange where a pair was not ruled out at the tolerance, otherwise one of two blues by control
//! patch; beside each, `depth_push_<p>_tol<t>.png` colours the depth where refinement stopped
//! (seed Fig. 10).

use rapier3d_deform::math::Vec3;
use rapier3d_deform_scenes::subdiv::pictures::{SeriesPose, write_tolerance_pictures};
use rapier3d_deform_scenes::subdiv::{SPHERE_TOLERANCES, evert_cap, sphere_cage};

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
    let found = write_tolerance_pictures(
        "out/subdiv_sphere",
        "subdiv_sphere",
        &cage,
        &poses,
        &SPHERE_TOLERANCES,
        Vec3::new(0.9, 0.3, 0.45),
    )?;
    println!("(interfering regions, deepest sub-patch) per push and tolerance: {found:?}");
    Ok(())
}
