//! The plastic car and barrel assets of the crash scenes (Jones et al. 2016, example-based plasticity), built once per process: a scene restart or switch reuses them.

use std::sync::{Arc, Mutex, PoisonError};

use rapier3d_deform::crash::PlasticAsset;
use rapier3d_deform::error::Result;
use rapier3d_deform_scenes::barrel::BarrelOptions;
use rapier3d_deform_scenes::car::CarOptions;
use rapier3d_deform_scenes::crash;

static CAR: Mutex<Option<Arc<PlasticAsset>>> = Mutex::new(None);
static BARREL: Mutex<Option<Arc<PlasticAsset>>> = Mutex::new(None);

/// The cached asset, built under the lock on first use (so concurrent callers build it once).
fn cached(
    cell: &Mutex<Option<Arc<PlasticAsset>>>,
    build: impl FnOnce() -> Result<PlasticAsset>,
) -> Result<Arc<PlasticAsset>> {
    let mut slot = cell.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(asset) = slot.as_ref() {
        return Ok(asset.clone());
    }
    let built = Arc::new(build()?);
    *slot = Some(built.clone());
    Ok(built)
}

/// The car of the `car_crash` example: cage `crash::CAR_CAGE`, the `"high"` proxy, the full
/// render mesh ([`CarOptions::FULL`]) bound to the cage.
///
/// # Errors
/// What [`crash::car_asset`] rejects.
///
/// # Performance
/// Seconds on the first call (proxy packing and fitting); a clone of an `Arc` afterwards.
pub fn car() -> Result<Arc<PlasticAsset>> {
    cached(&CAR, || {
        crash::car_asset("high", Some(CarOptions::FULL), &mut |_| {})
    })
}

/// The barrel of the `barrel_drop` example: cage `crash::BARREL_CAGE` and the full render
/// mesh ([`BarrelOptions::FULL`]).
///
/// # Errors
/// What [`crash::barrel_asset`] rejects.
///
/// # Performance
/// About a second on the first call; a clone of an `Arc` afterwards.
pub fn barrel() -> Result<Arc<PlasticAsset>> {
    cached(&BARREL, || {
        crash::barrel_asset(Some(BarrelOptions::FULL), &mut |_| {})
    })
}
