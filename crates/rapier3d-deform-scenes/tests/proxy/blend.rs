//! Contract: run-time blends of a sphere proxy are conservative and finite — for any convex
//! per-vertex or global example weights, every blended radius lies between the sphere's smallest
//! and largest example radius, every centre in the box of its example centres, and the shape's
//! BVH bounds exactly the blended balls after the update.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rapier3d_deform::governor::ConvexWeights;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::proxy::metrics::random_example_weights;
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::rapier3d::parry::shape::Shape;
use rapier3d_deform::shape::SphereProxyShape;
use rapier3d_deform_scenes::barrel::{BarrelOptions, barrel};
use std::sync::OnceLock;

fn proxy() -> &'static (SphereProxy, usize) {
    static PROXY: OnceLock<(SphereProxy, usize)> = OnceLock::new();
    PROXY.get_or_init(|| {
        let asset = barrel(&BarrelOptions::COARSE).unwrap();
        let examples = asset.example_positions().unwrap();
        let options = ProxyOptions {
            sdf: SdfOptions {
                resolution: 24,
                ..SdfOptions::default()
            },
            pack: PackOptions {
                min_radius: 0.06,
                max_radius: 0.2,
                max_spheres: 64,
            },
        };
        let (proxy, _) = SphereProxy::build(&asset.mesh, &examples, &options).unwrap();
        (proxy, asset.mesh.vertex_count())
    })
}

fn check(proxy: &SphereProxy, centres: &[Vec3], radii: &[f32]) {
    assert_eq!(centres.len(), proxy.sphere_count());
    for s in 0..proxy.sphere_count() {
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        let (mut cmin, mut cmax) = (Vec3::MAX, Vec3::MIN);
        for e in 0..proxy.example_count() {
            let sphere = proxy.example_sphere(e, s).unwrap();
            lo = lo.min(sphere.radius);
            hi = hi.max(sphere.radius);
            cmin = cmin.min(sphere.centre);
            cmax = cmax.max(sphere.centre);
        }
        assert!(radii[s].is_finite() && centres[s].is_finite());
        assert!(radii[s] >= lo - 1e-5 && radii[s] <= hi + 1e-5, "{s}");
        let slack = Vec3::splat(1e-5);
        assert!((centres[s] + slack).cmpge(cmin).all() && (centres[s] - slack).cmple(cmax).all());
    }
}

/// A uniform point of the probability simplex of dimension `n` (normalised exponentials).
fn simplex(rng: &mut ChaCha8Rng, n: usize) -> Vec<f32> {
    let w: Vec<f32> = (0..n)
        .map(|_| -(1.0 - rng.random::<f32>()).ln() + 1e-6)
        .collect();
    let sum: f32 = w.iter().sum();
    w.iter().map(|x| x / sum).collect()
}

/// Arbitrary (non-smooth) per-vertex weights: an independent random simplex point per vertex,
/// some rows one-hot.
fn raw_weights(seed: u64, vertices: usize, examples: usize) -> ConvexWeights {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rows: Vec<Vec<(u32, f32)>> = (0..vertices)
        .map(|_| {
            if rng.random::<f32>() < 0.2 {
                vec![(rng.random_range(0..examples as u32), 1.0)]
            } else {
                (0..examples as u32)
                    .zip(simplex(&mut rng, examples))
                    .collect()
            }
        })
        .collect();
    ConvexWeights::from_rows(rows, examples).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn per_vertex_blends_are_conservative(seed in any::<u64>(), smooth in any::<bool>()) {
        let (proxy, vertices) = proxy();
        let e = proxy.example_count();
        let weights = if smooth {
            let rest: Vec<Vec3> = (0..*vertices).map(|v| Vec3::splat(v as f32)).collect();
            random_example_weights(seed, &rest, e, 10.0 * *vertices as f32, true).unwrap()
        } else {
            raw_weights(seed, *vertices, e)
        };
        let (mut c, mut r) = (Vec::new(), Vec::new());
        proxy.blend_into(&weights, &mut c, &mut r).unwrap();
        check(proxy, &c, &r);
        let mut shape = SphereProxyShape::from_proxy(proxy).unwrap();
        shape.blend_from(proxy, &weights).unwrap();
        prop_assert_eq!(shape.centres(), &c[..]);
        // The refit BVH's root box is exactly the union of the balls' boxes.
        let (mut lo, mut hi) = (Vec3::MAX, Vec3::MIN);
        for (p, q) in c.iter().zip(&r) {
            lo = lo.min(*p - Vec3::splat(*q));
            hi = hi.max(*p + Vec3::splat(*q));
        }
        let aabb = shape.compute_local_aabb();
        prop_assert!((aabb.mins - lo).abs().max_element() < 1e-6);
        prop_assert!((aabb.maxs - hi).abs().max_element() < 1e-6);
        prop_assert!(shape.ccd_thickness() > 0.0);
    }

    #[test]
    fn global_blends_are_conservative(seed in any::<u64>()) {
        let (proxy, _) = proxy();
        let w = simplex(&mut ChaCha8Rng::seed_from_u64(seed), proxy.example_count());
        let (mut c, mut r) = (Vec::new(), Vec::new());
        proxy.blend_global_into(&w, &mut c, &mut r).unwrap();
        check(proxy, &c, &r);
    }
}
