//! Sphere-union proxies (`SphereProxyShape`): conservative run-time blends, typed errors, the fit report, contact manifolds against parry's on the same balls, behaviour in Rapier and the serde round trip.

#[path = "proxy/blend.rs"]
mod blend;
#[path = "proxy/errors.rs"]
mod errors;
#[path = "proxy/fit.rs"]
mod fit;
#[path = "proxy/manifolds.rs"]
mod manifolds;
#[path = "proxy/rapier.rs"]
mod rapier;
#[path = "proxy/serde_round_trip.rs"]
mod serde_round_trip;
