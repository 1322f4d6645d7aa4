//! The collision stage's face pass: skin vertices against cloth faces and skin edges against cloth edges, so that the skin cannot pass between the vertices of a cloth triangle.

use super::build::Cloth;
use super::collide::{SkinCollision, VertexState, respond_velocity};
use crate::avatar::AvatarBoxes;
use crate::error::Result;
use crate::math::Vec3;

/// Edge `e` of a triangle runs from corner `e` to corner `(e + 1) % 3`; its neighbour across
/// it is `neighbours[t][e]` (the layout of [`crate::mesh::TriangleMesh::edge_neighbours`]).
const EDGES: [[usize; 2]; 3] = [[0, 1], [1, 2], [2, 0]];

/// A barycentric or segment parameter this close to a feature's end belongs to the vertex
/// (the vertex tests handle it).
const FEATURE_EPS: f32 = 1e-4;

/// Which cloth triangles the face pass visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FaceSelection {
    /// Those with a vertex in [`VertexState::Contact`] ([`SkinCollision::resolve`]). Visiting
    /// triangles with no vertex within OUTSIDE as well pushed cloth over the whole body (a
    /// triangle spanning two limbs is pushed by both), so a triangle larger than OUTSIDE that
    /// the skin enters far from all three vertices is not caught.
    InContact,
    /// Those with a vertex marked in `face_marks` ([`SkinCollision::push_out`]).
    Marked,
}

/// A cloth feature to push out: its vertices, their barycentric weights, the outward
/// direction, how far the feature's point must move, and the skin's velocity there.
struct Push {
    vertices: [usize; 3],
    weights: [f32; 3],
    normal: Vec3,
    depth: f32,
    /// The farthest a skin feature may lie beyond the cloth feature and still be pushed
    /// through (OUTSIDE: farther, it belongs to another part of the body), and the farthest a
    /// vertex moves.
    reach: f32,
    skin_velocity: Vec3,
}

impl SkinCollision {
    /// The face pass of [`Self::resolve`] (after every vertex's own tests) and of
    /// [`Self::push_out`].
    ///
    /// For each cloth triangle `selection` picks, the skin
    /// triangles within its circumscribing ball plus [`super::ContactThresholds::thickness`]
    /// ([`crate::avatar::AvatarQuery::candidates`]):
    ///
    /// * **vertex–face**: a skin vertex whose projection falls inside the cloth triangle and
    ///   which lies less than the thickness below it, or above it by at most
    ///   [`super::ContactThresholds::outside`] (it passed through), along the cloth normal
    ///   oriented by the skin vertex's angle-weighted pseudo-normal;
    /// * **edge–edge**: a skin edge and a cloth edge whose closest points are interior to both,
    ///   with the same test along their common normal oriented by the skin edge's
    ///   pseudo-normal (the sum of its two faces' normals).
    ///
    /// The cloth feature's point is moved to the thickness outside the skin feature by moving
    /// its free vertices along the normal by `wᵢ δ / Σ wⱼ²` (Bridson, Fedkiw & Anderson 2002
    /// §7.1, the skin side immovable), each by at most [`super::ContactThresholds::outside`],
    /// and their velocity into the skin is removed as for a repositioned vertex.
    ///
    /// # Performance
    /// Per cloth triangle in contact: one candidate query and, per candidate skin triangle
    /// whose box comes within OUTSIDE of the cloth triangle's box, three projections and nine
    /// segment pairs.
    pub(super) fn resolve_faces(
        &mut self,
        cloth: &mut Cloth,
        avatar: &AvatarBoxes,
        dt: f32,
        selection: FaceSelection,
    ) -> Result<()> {
        let th = self.thresholds;
        let triangles = cloth.mesh().triangles().len();
        for ct in 0..triangles {
            let tri = cloth.mesh().triangles()[ct].map(|v| v as usize);
            let selected = match selection {
                FaceSelection::InContact => {
                    tri.iter().any(|&v| self.states[v] == VertexState::Contact)
                }
                FaceSelection::Marked => tri.iter().any(|&v| self.face_marks[v]),
            };
            if !selected || tri.iter().all(|&v| cloth.is_pinned(v)) {
                continue;
            }
            let x = tri.map(|v| cloth.positions[v]);
            let centre = (x[0] + x[1] + x[2]) / 3.0;
            let reach = x
                .iter()
                .map(|p| (*p - centre).length())
                .fold(0.0f32, f32::max)
                + th.thickness;
            self.query
                .candidates(avatar, centre, reach, &mut self.candidates)?;
            self.stats.triangles_faces += self.candidates.len() as u64;
            for k in 0..self.candidates.len() {
                let t = self.candidates[k];
                // Every test below needs the skin feature within OUTSIDE of the cloth triangle
                // (where the pushes so far have put it).
                let x = tri.map(|v| cloth.positions[v]);
                let (lo, hi) = (
                    x[0].min(x[1]).min(x[2]) - Vec3::splat(th.outside),
                    x[0].max(x[1]).max(x[2]) + Vec3::splat(th.outside),
                );
                let skin = self.current_corners(avatar, t)?;
                let (s_lo, s_hi) = (
                    skin[0].min(skin[1]).min(skin[2]),
                    skin[0].max(skin[1]).max(skin[2]),
                );
                if s_lo.cmpgt(hi).any() || s_hi.cmplt(lo).any() {
                    continue;
                }
                let ids = avatar.mesh().triangles()[t as usize];
                for (corner, &s) in skin.iter().enumerate() {
                    let x = tri.map(|v| cloth.positions[v]);
                    if let Some(push) = self.vertex_face(avatar, &tri, x, s, ids[corner], dt)? {
                        self.apply(cloth, &push);
                    }
                }
                for (e, [a, b]) in EDGES.iter().enumerate() {
                    for [c, d] in EDGES {
                        let x = tri.map(|v| cloth.positions[v]);
                        let push = self.edge_edge(
                            avatar,
                            (t, e),
                            [skin[*a], skin[*b]],
                            [tri[c], tri[d]],
                            [x[c], x[d]],
                            dt,
                        )?;
                        if let Some(push) = push {
                            self.apply(cloth, &push);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The vertex–face test of skin vertex `v` at `s` against the cloth triangle `tri` at `x`.
    fn vertex_face(
        &mut self,
        avatar: &AvatarBoxes,
        tri: &[usize; 3],
        x: [Vec3; 3],
        s: Vec3,
        v: u32,
        dt: f32,
    ) -> Result<Option<Push>> {
        let th = self.thresholds;
        let normal = (x[1] - x[0]).cross(x[2] - x[0]);
        let area2 = normal.length_squared();
        if area2 <= 0.0 || !area2.is_finite() {
            return Ok(None);
        }
        let unit = normal / area2.sqrt();
        let height = (s - x[0]).dot(unit);
        let reach = th.outside;
        if height.abs() >= reach {
            return Ok(None);
        }
        let u = (x[1] - s).cross(x[2] - s).dot(normal) / area2;
        let w = (x[2] - s).cross(x[0] - s).dot(normal) / area2;
        let bary = [u, w, 1.0 - u - w];
        if bary.iter().any(|b| *b < FEATURE_EPS) {
            return Ok(None);
        }
        let outward = self.vertex_normal(avatar, v)?;
        let n = if unit.dot(outward) >= 0.0 {
            unit
        } else {
            -unit
        };
        // The skin vertex's height above the cloth plane on the outward side.
        let above = (s - x[0]).dot(n);
        if above <= -th.thickness || above >= reach {
            return Ok(None);
        }
        let before = self.previous_vertex(avatar, v);
        Ok(Some(Push {
            vertices: *tri,
            weights: bary,
            normal: n,
            depth: above + th.thickness,
            reach,
            skin_velocity: (s - before) / dt,
        }))
    }

    /// The edge–edge test of edge `e` of skin triangle `t` (at `skin`) against the cloth edge
    /// of vertices `cloth_vertices` at `x`.
    fn edge_edge(
        &mut self,
        avatar: &AvatarBoxes,
        (t, e): (u32, usize),
        skin: [Vec3; 2],
        cloth_vertices: [usize; 2],
        x: [Vec3; 2],
        dt: f32,
    ) -> Result<Option<Push>> {
        let th = self.thresholds;
        let Some((a, b)) = closest_parameters(x, skin) else {
            return Ok(None);
        };
        if !(FEATURE_EPS..=1.0 - FEATURE_EPS).contains(&a)
            || !(FEATURE_EPS..=1.0 - FEATURE_EPS).contains(&b)
        {
            return Ok(None);
        }
        let on_cloth = x[0] + (x[1] - x[0]) * a;
        let on_skin = skin[0] + (skin[1] - skin[0]) * b;
        let reach = th.outside;
        if (on_skin - on_cloth).length() >= reach {
            return Ok(None);
        }
        let common = (x[1] - x[0]).cross(skin[1] - skin[0]).normalize_or_zero();
        if common == Vec3::ZERO {
            return Ok(None);
        }
        let outward = self.edge_normal(avatar, t, e)?;
        let n = if common.dot(outward) >= 0.0 {
            common
        } else {
            -common
        };
        let above = (on_skin - on_cloth).dot(n);
        if above <= -th.thickness || above >= reach {
            return Ok(None);
        }
        let ids = avatar.mesh().triangles()[t as usize];
        let [p, q] = EDGES[e].map(|k| ids[k]);
        let before =
            self.previous_vertex(avatar, p) * (1.0 - b) + self.previous_vertex(avatar, q) * b;
        Ok(Some(Push {
            vertices: [cloth_vertices[0], cloth_vertices[1], usize::MAX],
            weights: [1.0 - a, a, 0.0],
            normal: n,
            depth: above + th.thickness,
            reach,
            skin_velocity: (on_skin - before) / dt,
        }))
    }

    /// Moves the free vertices of `push` so that its point moves by `push.depth` along its
    /// normal (each by at most `push.reach`), removing their velocity into the skin.
    fn apply(&mut self, cloth: &mut Cloth, push: &Push) {
        let th = self.thresholds;
        let free = push
            .vertices
            .map(|v| v != usize::MAX && !cloth.is_pinned(v));
        let sum: f32 = push
            .weights
            .iter()
            .zip(free)
            .filter(|(_, free)| *free)
            .map(|(w, _)| w * w)
            .sum();
        if sum <= 1e-6 || !push.depth.is_finite() {
            return;
        }
        for ((&v, w), free) in push.vertices.iter().zip(push.weights).zip(free) {
            if !free || w <= 0.0 {
                continue;
            }
            cloth.positions[v] += push.normal * (push.depth * w / sum).min(push.reach);
            respond_velocity(cloth, v, push.skin_velocity, push.normal, th.friction);
        }
        self.stats.face_contacts += 1;
    }

    /// The angle-weighted pseudo-normal of skin vertex `v`, not normalised (zero when its ring
    /// is degenerate; Bærentzen & Aanæs 2005).
    pub(super) fn vertex_normal(&mut self, avatar: &AvatarBoxes, v: u32) -> Result<Vec3> {
        let (r0, r1) = (
            self.ring_start[v as usize] as usize,
            self.ring_start[v as usize + 1] as usize,
        );
        let mut sum = Vec3::ZERO;
        for r in r0..r1 {
            let t = self.ring[r];
            let corners = self.current_corners(avatar, t)?;
            let ids = avatar.mesh().triangles()[t as usize];
            let j = ids.iter().position(|&x| x == v).unwrap_or(0);
            let (p, q, s) = (corners[j], corners[(j + 1) % 3], corners[(j + 2) % 3]);
            let angle = (q - p).angle_between(s - p);
            if angle.is_finite() {
                sum += (q - p).cross(s - p).normalize_or_zero() * angle;
            }
        }
        Ok(sum)
    }

    /// The pseudo-normal of edge `e` of skin triangle `t`: the sum of its faces' unit normals
    /// (the triangle's own alone on a border edge), not normalised.
    pub(super) fn edge_normal(&mut self, avatar: &AvatarBoxes, t: u32, e: usize) -> Result<Vec3> {
        let face = |s: &mut Self, t: u32| -> Result<Vec3> {
            let [a, b, c] = s.current_corners(avatar, t)?;
            Ok((b - a).cross(c - a).normalize_or_zero())
        };
        let mut n = face(self, t)?;
        let other = self.neighbours[t as usize][e];
        if other != u32::MAX {
            n += face(self, other)?;
        }
        Ok(n)
    }
}

/// The parameters `(a, b)` of the closest points `p₀ + a (p₁ − p₀)` and `q₀ + b (q₁ − q₀)` of
/// two segments (Ericson 2005 §5.1.9), or `None` for a degenerate or nearly parallel pair (the
/// vertex tests cover those).
fn closest_parameters(p: [Vec3; 2], q: [Vec3; 2]) -> Option<(f32, f32)> {
    let (d1, d2, r) = (p[1] - p[0], q[1] - q[0], p[0] - q[0]);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (b, c) = (d1.dot(d2), d1.dot(r));
    let denom = a * e - b * b;
    if a <= 1e-12 || e <= 1e-12 || denom <= 1e-6 * a * e {
        return None;
    }
    let s = ((b * f - c * e) / denom).clamp(0.0, 1.0);
    let mut t = (b * s + f) / e;
    let s = if t < 0.0 {
        t = 0.0;
        (-c / a).clamp(0.0, 1.0)
    } else if t > 1.0 {
        t = 1.0;
        ((b - c) / a).clamp(0.0, 1.0)
    } else {
        s
    };
    Some((s, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closest points of random segment pairs against a dense sampling of both.
    #[test]
    fn closest_parameters_match_sampling() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        for _ in 0..300 {
            let p = [
                Vec3::new(next(), next(), next()),
                Vec3::new(next(), next(), next()),
            ];
            let q = [
                Vec3::new(next(), next(), next()),
                Vec3::new(next(), next(), next()),
            ];
            let Some((a, b)) = closest_parameters(p, q) else {
                continue;
            };
            let at = |s: [Vec3; 2], u: f32| s[0] + (s[1] - s[0]) * u;
            let best = (at(p, a) - at(q, b)).length();
            let mut sampled = f32::MAX;
            for i in 0..=200 {
                for j in 0..=200 {
                    let d = (at(p, i as f32 / 200.0) - at(q, j as f32 / 200.0)).length();
                    sampled = sampled.min(d);
                }
            }
            assert!(best <= sampled + 1e-5, "{best} > sampled {sampled}");
            assert!(best >= sampled - 0.02, "{best} far below sampled {sampled}");
        }
    }

    #[test]
    fn parallel_segments_are_left_to_the_vertex_tests() {
        let p = [Vec3::ZERO, Vec3::X];
        let q = [Vec3::Y, Vec3::Y + Vec3::X * 2.0];
        assert_eq!(closest_parameters(p, q), None);
    }
}
