//! Sphere-union proxies (`SphereProxyShape`): conservative run-time blends, typed errors, the fit report, behaviour in Rapier and the serde round trip.

#[path = "proxy/blend.rs"]
mod blend;
#[path = "proxy/errors.rs"]
mod errors;
#[path = "proxy/fit.rs"]
mod fit;
#[path = "proxy/rapier.rs"]
mod rapier;
#[path = "proxy/serde_round_trip.rs"]
mod serde_round_trip;
