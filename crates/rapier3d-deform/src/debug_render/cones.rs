//! BN-Tree normal cones as lines: per node down to a depth, the cone's axis from the centre of the node's box and the circle where the cone at its half-angle meets the sphere of the axis' length.

use rapier3d::math::{Pose, Vector};
use rapier3d::pipeline::DebugColor;

use super::world_point;
use crate::bounds::BoundsWorkspace;
use crate::math::Vec3;
use crate::shape::DeformableMeshShape;

/// Generator lines drawn from the apex to the circle of each cone.
pub(super) const GENERATORS: u32 = 4;

/// A normal cone: unit `axis` and `half_angle` (radians, below π/2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cone {
    pub axis: Vec3,
    pub half_angle: f32,
}

/// The cone of node `i` of `mesh` in the collider's frame: from the node's O(m) normal bound
/// (Schvartzman et al. 2009, eq. 17, what the self-collision query prunes with) when it has
/// patch data and the shape no morph targets, else from the normals of its posed triangles.
/// `None` when no cone narrower than a half-space holds them.
///
/// # Performance
/// O(m log m) for a node with patch data, O(triangles of the node) otherwise.
pub(super) fn node_cone(
    mesh: &DeformableMeshShape,
    i: u32,
    workspace: &mut BoundsWorkspace,
) -> Option<Cone> {
    let tree = mesh.tree();
    match tree.node_patch(i as usize) {
        Some(patch) if mesh.morph_targets().is_none() => {
            let n = patch.normal_bound(mesh.governors(), workspace);
            let corners: [Vec3; 8] = core::array::from_fn(|k| {
                Vec3::new(
                    if k & 1 == 0 { n.x.lo } else { n.x.hi },
                    if k & 2 == 0 { n.y.lo } else { n.y.hi },
                    if k & 4 == 0 { n.z.lo } else { n.z.hi },
                )
            });
            // The box is convex: a cone narrower than a half-space holding its corners holds
            // every vector of the box, so every normal the bound holds.
            let axis =
                Vec3::new(n.x.lo + n.x.hi, n.y.lo + n.y.hi, n.z.lo + n.z.hi).normalize_or_zero();
            cone_around(axis, corners.into_iter())
        }
        _ => {
            let normals = || {
                tree.node_triangles(i as usize).iter().map(|&t| {
                    let tri = mesh.triangle(t);
                    (tri.b - tri.a).cross(tri.c - tri.a).normalize_or_zero()
                })
            };
            let axis = normals().sum::<Vec3>().normalize_or_zero();
            cone_around(axis, normals().filter(|n| *n != Vec3::ZERO))
        }
    }
}

/// The cone around unit `axis` holding every vector of `vectors` (their largest angle to the
/// axis), or `None` for a zero axis or a vector at a right angle or more.
fn cone_around(axis: Vec3, vectors: impl Iterator<Item = Vec3>) -> Option<Cone> {
    if axis == Vec3::ZERO || !axis.is_finite() {
        return None;
    }
    let mut least_cos = 1.0f32;
    for v in vectors {
        let len = v.length();
        if !(len > 0.0 && len.is_finite()) {
            return None;
        }
        least_cos = least_cos.min(axis.dot(v) / len);
    }
    // A right angle or more: no cone narrower than a half-space.
    if least_cos.is_nan() || least_cos <= 1e-6 {
        return None;
    }
    // Widened by 1e-3 rad: near an angle of 0, acos turns an ulp of the cosine into ~5e-4 rad.
    let half_angle = least_cos.min(1.0).acos() + 1e-3;
    Some(Cone { axis, half_angle })
}

/// Draws the cone of every BN-Tree node of depth at most `max_depth` (depth first, like the
/// node boxes) that has one ([`node_cone`]): the axis from the centre `c` of the node's box to
/// `c + L axis` (`L` half the box's half-diagonal), then the circle of `segments` lines where
/// the cone meets the sphere of radius `L` around `c`, then [`GENERATORS`] lines from `c` to
/// that circle; in world frame. Returns the number of cones drawn.
///
/// # Performance
/// Per node, its box ([`DeformableMeshShape::node_aabb`]) and its cone ([`node_cone`]), plus
/// O(segments).
pub(super) fn draw_node_cones(
    mesh: &DeformableMeshShape,
    pose: &Pose,
    max_depth: u32,
    segments: u32,
    workspace: &mut BoundsWorkspace,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) -> usize {
    let nodes = mesh.tree().nodes();
    if nodes.is_empty() {
        return 0;
    }
    let mut drawn = 0;
    let mut stack = vec![(0u32, 0u32)];
    while let Some((i, depth)) = stack.pop() {
        if let Some(cone) = node_cone(mesh, i, workspace) {
            let aabb = mesh.node_aabb(i);
            let centre = (aabb.mins + aabb.maxs) * 0.5;
            let length = 0.25 * (aabb.maxs - aabb.mins).length();
            let (u, v) = cone.axis.any_orthonormal_pair();
            let (sin, cos) = cone.half_angle.sin_cos();
            let rim = |k: u32| {
                let phi = (k % segments) as f32 * core::f32::consts::TAU / segments as f32;
                let dir = cos * cone.axis + sin * (phi.cos() * u + phi.sin() * v);
                world_point(pose, centre + length * dir)
            };
            let apex = world_point(pose, centre);
            draw(apex, world_point(pose, centre + length * cone.axis), color);
            let mut a = rim(0);
            for k in 1..=segments {
                let b = rim(k);
                draw(a, b, color);
                a = b;
            }
            for g in 0..GENERATORS {
                draw(apex, rim(g * segments / GENERATORS), color);
            }
            drawn += 1;
        }
        if depth < max_depth
            && let Some([l, r]) = nodes[i as usize].children
        {
            stack.push((r, depth + 1));
            stack.push((l, depth + 1));
        }
    }
    drawn
}
