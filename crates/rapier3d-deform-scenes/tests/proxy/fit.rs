//! Contract: the `proxy_fit` scene body runs (quick variant) and reports, for the car at the
//! three resolutions, sphere counts at most the paper's 66 / 114 / 320, finite errors with
//! median ≤ max, errors that shrink as spheres are added, and no more than a few clamped radii.

use rapier3d_deform_scenes::car::proxy_fit_report;

#[test]
fn quick_proxy_fit_report() {
    let metrics = proxy_fit_report(true).unwrap();
    let get = |name: &str| {
        metrics
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("missing metric {name}"))
    };
    for (res, cap) in [("low", 66.0), ("mid", 114.0), ("high", 320.0)] {
        let spheres = get(&format!("spheres_{res}"));
        assert!(spheres > 0.5 * cap && spheres <= cap, "{res}: {spheres}");
        let median = get(&format!("median_error_rel_{res}"));
        let max = get(&format!("max_error_rel_{res}"));
        assert!(median.is_finite() && median > 0.0 && median <= max, "{res}");
        assert!(get(&format!("pack_seconds_{res}")) > 0.0);
        let volume = get(&format!("volume_ratio_rest_{res}"));
        assert!(volume > 0.5 && volume < 1.0, "{res}: {volume}");
    }
    assert!(get("median_error_rel_high") < get("median_error_rel_low"));
    // Even on the coarse body the high resolution meets the targets.
    assert!(get("median_error_rel_high") <= 0.01);
    assert!(get("max_error_rel_high") <= 0.05);
}
