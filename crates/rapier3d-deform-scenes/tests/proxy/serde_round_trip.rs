//! Contract: a precomputed sphere proxy survives a serde round trip unchanged (feature
//! `serde-serialize`), so a game can pack once offline and load the result.
#![cfg(feature = "serde-serialize")]

use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::shape::SphereProxyShape;
use rapier3d_deform_scenes::barrel::{BarrelOptions, barrel};

#[test]
fn proxy_round_trips_through_json() {
    let asset = barrel(&BarrelOptions::COARSE).unwrap();
    let examples = asset.example_positions().unwrap();
    let options = ProxyOptions {
        sdf: SdfOptions {
            resolution: 20,
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius: 0.06,
            max_radius: 0.2,
            max_spheres: 40,
        },
    };
    let (proxy, _) = SphereProxy::build(&asset.mesh, &examples, &options).unwrap();
    let json = serde_json::to_string(&proxy).unwrap();
    let loaded: SphereProxy = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded, proxy);
    loaded.validate().unwrap();
    let a = SphereProxyShape::from_proxy(&proxy).unwrap();
    let b = SphereProxyShape::from_proxy(&loaded).unwrap();
    assert_eq!(a.centres(), b.centres());
    assert_eq!(a.radii(), b.radii());
    // A truncated file is rejected by validation instead of panicking later.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["radii"].as_array_mut().unwrap().pop();
    let broken: SphereProxy = serde_json::from_value(value).unwrap();
    assert!(broken.validate().is_err());
    assert!(SphereProxyShape::from_proxy(&broken).is_err());
}
