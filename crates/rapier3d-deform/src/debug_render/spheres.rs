//! Sphere proxies as lines: three great circles per sphere, in the planes of the collider's axes.

use rapier3d::math::{Pose, Vector};
use rapier3d::pipeline::DebugColor;

use super::world_point;
use crate::shape::SphereProxyShape;

/// Draws, sphere by sphere in the proxy's order, three circles of `segments` lines each (in the
/// collider's xy, yz and zx planes through the centre, the first point on the plane's first
/// axis), every endpoint on the sphere, in world frame.
///
/// # Performance
/// O(S · segments) for S spheres; no allocation.
pub(super) fn draw_spheres(
    proxy: &SphereProxyShape,
    pose: &Pose,
    segments: u32,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) {
    let planes = [
        (Vector::X, Vector::Y),
        (Vector::Y, Vector::Z),
        (Vector::Z, Vector::X),
    ];
    let step = std::f32::consts::TAU / segments as f32;
    for (&c, &r) in proxy.centres().iter().zip(proxy.radii()) {
        for (u, v) in planes {
            let at = |k: u32| {
                // The last point is the first one exactly, so each circle closes.
                let angle = (k % segments) as f32 * step;
                world_point(pose, c + r * (angle.cos() * u + angle.sin() * v))
            };
            let mut a = at(0);
            for k in 1..=segments {
                let b = at(k);
                draw(a, b, color);
                a = b;
            }
        }
    }
}
