//! Scene `proxy_fit`: sphere-union proxies of the procedural car at about 66, 114 and 320 spheres, their error against the deformed mesh over every example and 100 random blends, and the packing time (issue 4).

use crate::runner::{RunOptions, SceneReport};
use rapier3d_deform_scenes::car::proxy_fit_report;

/// Runs the scene; metric names come from `proxy_fit_report` (`spheres_low`, `median_error_rel_low`,
/// `max_error_rel_low`, `pack_seconds_low`, and the same for `mid` and `high`).
pub fn run(options: &RunOptions) -> SceneReport {
    let mut report = SceneReport::new("proxy_fit");
    match proxy_fit_report(options.quick) {
        Ok(metrics) => {
            for (name, value) in metrics {
                // Metric names are static in the runner; this scene's set is small and fixed.
                let name: &'static str = Box::leak(name.into_boxed_str());
                report.metric(name, value, "");
            }
        }
        Err(e) => eprintln!("proxy_fit failed: {e}"),
    }
    report
}
