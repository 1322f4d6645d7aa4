//! The cloth's collision stage against a skinned avatar: per vertex the continuous test over the step, then the seed's OBB → slab → closest-triangle test with its three thresholds, feedback acceleration and repositioning.

use super::build::Cloth;
use super::collide_faces::FaceSelection;
use crate::avatar::{AvatarBoxes, AvatarQuery, SkinContact};
use crate::bounds::BoundsWorkspace;
use crate::error::{DeformError, Result};
use crate::geometry::first_crossing;
use crate::governor::{Affine, deform_vertex, validate_governors};
use crate::math::{Vec3, frobenius};

/// The seed's three distance thresholds (Pelechano 2002 §4.4) and the response's parameters.
///
/// A vertex whose signed distance to the skin `d` (negative inside) is below
/// [`Self::outside`] gets the feedback acceleration `feedback_gain · (outside − d)` along the
/// skin's outward normal for the next step; below [`Self::surface`] (on the surface, or
/// inside) it is also moved to [`Self::thickness`] outside the skin along that normal, and the
/// part of its velocity relative to the skin that points into the skin is removed, its
/// tangential part reduced by [`Self::friction`] times the normal part removed (Coulomb).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ContactThresholds {
    /// OUTSIDE: the distance within which a vertex is approaching the skin (m).
    pub outside: f32,
    /// ON SURFACE: the distance below which a vertex is repositioned (m).
    pub surface: f32,
    /// Where a repositioned vertex is put: this far outside the skin (m), the cloth thickness.
    pub thickness: f32,
    /// Feedback acceleration per metre below [`Self::outside`] (1/s²).
    pub feedback_gain: f32,
    /// Coulomb friction coefficient of a repositioned vertex against the skin (0: it slides
    /// freely, the seed's response).
    pub friction: f32,
    /// Whether the stage also runs its face pass: skin vertices against cloth faces and skin
    /// edges against cloth edges, for the skin passing between a cloth triangle's vertices
    /// (which the per-vertex tests cannot see). Off by default: on the running Fox's cape it
    /// costs about five times the rest of the stage at 36,864 skin triangles and still leaves a
    /// few crossings and a vertex 12 mm inside the skin; a garment whose large triangles bridge
    /// two limbs (a crotch spanned by one face) is pushed by both in turn and driven off the
    /// body. On the skirt and the cape at the tests' sizes it leaves no such crossing.
    pub face_contacts: bool,
}

impl Default for ContactThresholds {
    fn default() -> Self {
        Self {
            outside: 0.02,
            surface: 0.008,
            thickness: 0.01,
            feedback_gain: 2000.0,
            friction: 0.0,
            face_contacts: false,
        }
    }
}

/// What the collision stage found for a cloth vertex (the seed's colour code, Fig. 20).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VertexState {
    /// In no bone box (green).
    #[default]
    NoBox,
    /// In a bone box, but no skin triangle within [`ContactThresholds::outside`] (blue).
    BoxOnly,
    /// Within [`ContactThresholds::outside`] of the skin, or crossed it during the step (red).
    Contact,
}

/// Counters of the last [`SkinCollision::resolve`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkinCollisionStats {
    /// Free (not pinned) vertices tested.
    pub vertices: usize,
    /// Vertices in at least one bone box.
    pub in_box: usize,
    /// Vertices within [`ContactThresholds::outside`] of the skin (or crossing it).
    pub contacts: usize,
    /// Vertices moved to [`ContactThresholds::thickness`] outside the skin.
    pub repositioned: usize,
    /// Vertices whose trajectory crossed the moving skin during the step.
    pub continuous_hits: usize,
    /// Skin triangles the discrete test read (the cells scanned by the closest-triangle search,
    /// first query per vertex).
    pub triangles_discrete: u64,
    /// Skin triangles the continuous test swept.
    pub triangles_continuous: u64,
    /// Skin triangles the face pass read (vertex–face and edge–edge tests).
    pub triangles_faces: u64,
    /// Cloth faces and edges the face pass pushed out (a skin vertex through a cloth face, a
    /// skin edge through a cloth edge).
    pub face_contacts: usize,
    /// Bound on how far any skin vertex moved over the step (O(m) per box).
    pub skin_motion_bound: f32,
    /// Most negative signed distance to the skin a vertex had before the response (0 if none
    /// was inside).
    pub deepest: f32,
}

/// The collision stage of a [`Cloth`] against an [`AvatarBoxes`] (Pelechano 2002 §3.4, §4.3–4.4,
/// with a continuous test added).
///
/// Per free cloth vertex, after [`Cloth::step`]:
///
/// 1. **Continuous test.** The vertex moved from `p₀` ([`Cloth::step_start`]) to `p₁`; the skin
///    from the previous pose to the current one, each skin vertex linearly. A crossing at time
///    `t` and barycentric point `b` leaves `p₁` within `|p₁ − p₀| + M_b` of the current triangle
///    for any box `b` holding it (`M_b` bounds the motion of box `b`'s skin vertices: the O(m)
///    bound of `Σ w_k (G_k − G'_k) p₀`), so the triangles of
///    [`AvatarQuery::candidates_with_margins`] are swept (after a swept-box test): the
///    coplanarity cubic of the seed's §2.1.1, from the outside only. The first crossing puts the
///    vertex at the crossing point's current position, [`ContactThresholds::thickness`]
///    outside.
/// 2. **Discrete test.** [`AvatarQuery::closest_with_hint`] within
///    [`ContactThresholds::outside`], starting from the triangle the vertex found last: the
///    boxes in their frames (one transform and the comparisons of §3.4.1), the cells hit, the
///    closest triangle (§3.4.2, §4.3). Its sign comes from the closest feature's pseudo-normal
///    (face, edge: the two faces; vertex: angle-weighted ring), so a point near a convex edge or
///    a vertex is classified as the closed skin would. The seed's three thresholds apply
///    ([`ContactThresholds`]); a repositioned vertex is tested again (up to three times), so a
///    vertex pushed out of one limb into another is pushed out again.
/// 3. **Face pass** ([`ContactThresholds::face_contacts`]). The skin can also pass between a cloth triangle's vertices (a shoulder
///    point through a cape's face, a ridge across a cloth edge) with every vertex outside: per
///    cloth triangle with a vertex in contact, skin vertices against the face and skin edges
///    against its edges, each pushed to the thickness outside (`collide_faces.rs`).
///
/// Nothing is allocated per call after the first (buffers sized by the cloth and skin).
#[derive(Clone, Debug)]
pub struct SkinCollision {
    pub(super) thresholds: ContactThresholds,
    pub(super) query: AvatarQuery,
    previous: Vec<Affine>,
    delta: Vec<Affine>,
    /// Per box, a bound on how far its skin moved over the step.
    box_motion: Vec<f32>,
    workspace: BoundsWorkspace,
    epoch: u32,
    previous_stamp: Vec<u32>,
    previous_vertices: Vec<Vec3>,
    /// Per skin triangle, the triangles across its edges `(0,1)`, `(1,2)`, `(2,0)`.
    pub(super) neighbours: Vec<[u32; 3]>,
    /// Per skin vertex, its triangles (CSR).
    pub(super) ring_start: Vec<u32>,
    pub(super) ring: Vec<u32>,
    pub(super) candidates: Vec<u32>,
    pub(super) states: Vec<VertexState>,
    first_contacts: Vec<Option<SkinContact>>,
    /// Per cloth vertex, the skin triangle its last query found: where the next query starts
    /// ([`AvatarQuery::closest_with_hint`]).
    hints: Vec<Option<u32>>,
    queried: Vec<Vec3>,
    pub(super) stats: SkinCollisionStats,
    /// Per cloth vertex, whether [`Self::push_out`]'s face pass visits its triangles.
    pub(super) face_marks: Vec<bool>,
}

impl SkinCollision {
    /// The stage for `avatar` with `thresholds`.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a non-finite or negative threshold, a zero
    /// thickness, `surface > outside` or `thickness > outside`.
    ///
    /// # Performance
    /// O(T log T) for the skin's adjacency.
    pub fn new(avatar: &AvatarBoxes, thresholds: ContactThresholds) -> Result<Self> {
        let t = thresholds;
        let bad = |name: &'static str, value: f32, reason: &'static str| {
            Err(DeformError::InvalidParameter {
                name,
                value,
                reason,
            })
        };
        for (name, value) in [
            ("outside", t.outside),
            ("surface", t.surface),
            ("thickness", t.thickness),
            ("feedback_gain", t.feedback_gain),
            ("friction", t.friction),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return bad(name, value, "must be finite and non-negative");
            }
        }
        if t.thickness <= 0.0 {
            return bad("thickness", t.thickness, "must be positive");
        }
        if t.surface > t.outside {
            return bad("surface", t.surface, "must not exceed outside");
        }
        if t.thickness > t.outside {
            return bad("thickness", t.thickness, "must not exceed outside");
        }
        let mesh = avatar.mesh();
        let n = mesh.vertex_count();
        let mut ring_start = vec![0u32; n + 1];
        for tri in mesh.triangles() {
            for &v in tri {
                ring_start[v as usize + 1] += 1;
            }
        }
        for v in 0..n {
            ring_start[v + 1] += ring_start[v];
        }
        let mut fill = ring_start.clone();
        let mut ring = vec![0u32; 3 * mesh.triangle_count()];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            for &v in tri {
                ring[fill[v as usize] as usize] = t as u32;
                fill[v as usize] += 1;
            }
        }
        Ok(Self {
            thresholds,
            query: AvatarQuery::new(),
            previous: Vec::new(),
            delta: Vec::new(),
            box_motion: Vec::new(),
            workspace: BoundsWorkspace::default(),
            epoch: 0,
            previous_stamp: vec![0; n],
            previous_vertices: vec![Vec3::ZERO; n],
            neighbours: mesh.edge_neighbours(),
            ring_start,
            ring,
            candidates: Vec::new(),
            states: Vec::new(),
            first_contacts: Vec::new(),
            hints: Vec::new(),
            queried: Vec::new(),
            stats: SkinCollisionStats::default(),
            face_marks: Vec::new(),
        })
    }

    /// The thresholds.
    pub fn thresholds(&self) -> ContactThresholds {
        self.thresholds
    }

    /// The avatar query of the last [`Self::resolve`] (its frame is the current pose: use it
    /// for [`AvatarQuery::seed_tolerance_misses`] or its counters).
    pub fn query_mut(&mut self) -> &mut AvatarQuery {
        &mut self.query
    }

    /// Per cloth vertex, what the last [`Self::resolve`] found (pinned vertices: [`VertexState::NoBox`]).
    pub fn states(&self) -> &[VertexState] {
        &self.states
    }

    /// Per cloth vertex, the closest skin triangle within [`ContactThresholds::outside`] of
    /// [`Self::queried_positions`] found by the first discrete query of the last
    /// [`Self::resolve`] (`None` for pinned vertices and vertices farther away).
    pub fn first_contacts(&self) -> &[Option<SkinContact>] {
        &self.first_contacts
    }

    /// Per cloth vertex, where the first discrete query of the last [`Self::resolve`] was made
    /// (after the continuous test's repositioning).
    pub fn queried_positions(&self) -> &[Vec3] {
        &self.queried
    }

    /// Counters of the last [`Self::resolve`].
    pub fn stats(&self) -> SkinCollisionStats {
        self.stats
    }

    /// Runs the stage on `cloth` after a [`Cloth::step`] of `dt` seconds during which the skin
    /// moved from the skin matrices `previous` to `current` (one per governor of the avatar's
    /// weights). Moves vertices, updates their velocities and adds feedback accelerations for
    /// the next step ([`Cloth::add_acceleration`]).
    ///
    /// # Errors
    /// What [`validate_governors`] rejects for either pose; [`DeformError::InvalidParameter`]
    /// for a non-finite or non-positive `dt`; [`DeformError::LengthMismatch`] for an avatar
    /// whose skin is not the one the stage was built for.
    ///
    /// # Performance
    /// Per free vertex: one [`AvatarQuery::candidates`] within `|p₁ − p₀| + M` and a cubic per
    /// candidate (most are dismissed by four evaluations), then one to three
    /// [`AvatarQuery::closest`]; O(boxes · m log m) for the motion bound. Skin vertices are posed
    /// only where a query reaches them.
    pub fn resolve(
        &mut self,
        cloth: &mut Cloth,
        avatar: &AvatarBoxes,
        previous: &[Affine],
        current: &[Affine],
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "dt",
                value: dt,
                reason: "must be finite and positive",
            });
        }
        if avatar.mesh().triangle_count() != self.neighbours.len()
            || avatar.rest_positions().len() + 1 != self.ring_start.len()
        {
            return Err(DeformError::LengthMismatch {
                what: "avatar skin triangles (not the avatar the stage was built for)",
                expected: self.neighbours.len(),
                actual: avatar.mesh().triangle_count(),
            });
        }
        let count = avatar.weights().governor_count();
        validate_governors(previous, count)?;
        self.query.begin_frame(avatar, current)?;
        self.previous.clear();
        self.previous.extend_from_slice(previous);
        self.next_epoch(avatar);
        let motion = self.motion_bound(avatar, current);
        let n = cloth.positions.len();
        self.states.clear();
        self.states.resize(n, VertexState::NoBox);
        self.first_contacts.clear();
        self.first_contacts.resize(n, None);
        self.hints.resize(n, None);
        self.queried.clear();
        self.queried.extend_from_slice(&cloth.positions);
        self.stats = SkinCollisionStats {
            skin_motion_bound: motion,
            ..SkinCollisionStats::default()
        };
        let th = self.thresholds;
        for i in 0..n {
            if cloth.is_pinned(i) {
                continue;
            }
            self.stats.vertices += 1;
            let (p0, p1) = (cloth.step_start[i], cloth.positions[i]);
            let mut moved = false;
            // 1. Continuous test: box b's triangles within |p₁ − p₀| + M_b.
            let before = self.query.stats().candidate_triangles;
            self.query.candidates_with_margins(
                avatar,
                p1,
                (p1 - p0).length(),
                &self.box_motion,
                &mut self.candidates,
            )?;
            self.stats.triangles_continuous += self.query.stats().candidate_triangles - before;
            let mut first: Option<(f32, u32, Vec3)> = None;
            for k in 0..self.candidates.len() {
                let t = self.candidates[k];
                let [a1, b1, c1] = self.current_corners(avatar, t)?;
                let [a0, b0, c0] = self.previous_corners(avatar, t);
                // Swept boxes first: the point's segment against the triangle's six corners.
                let lo = a0.min(b0).min(c0).min(a1).min(b1).min(c1);
                let hi = a0.max(b0).max(c0).max(a1).max(b1).max(c1);
                let pad = 1e-3 * (hi - lo).max_element();
                if (p0.min(p1) - hi).max_element() > pad || (lo - p0.max(p1)).max_element() > pad {
                    continue;
                }
                if let Some(hit) = first_crossing([p0, p1], [a0, a1], [b0, b1], [c0, c1])
                    && first.is_none_or(|f| hit.time < f.0)
                {
                    first = Some((hit.time, t, hit.barycentric));
                }
            }
            if let Some((_, t, bary)) = first {
                let [a1, b1, c1] = self.current_corners(avatar, t)?;
                let [a0, b0, c0] = self.previous_corners(avatar, t);
                let point = a1 * bary.x + b1 * bary.y + c1 * bary.z;
                let before = a0 * bary.x + b0 * bary.y + c0 * bary.z;
                let normal = (b1 - a1).cross(c1 - a1).normalize_or_zero();
                cloth.positions[i] = point + normal * th.thickness;
                respond_velocity(cloth, i, (point - before) / dt, normal, th.friction);
                self.stats.continuous_hits += 1;
                moved = true;
                self.states[i] = VertexState::Contact;
            }
            // 2. Discrete test with the seed's thresholds.
            self.queried[i] = cloth.positions[i];
            for pass in 0..3 {
                let x = cloth.positions[i];
                let stats_before = self.query.stats();
                let contact = self
                    .query
                    .closest_with_hint(avatar, x, th.outside, self.hints[i])?;
                if let Some(c) = contact {
                    self.hints[i] = Some(c.triangle);
                }
                let stats_after = self.query.stats();
                if pass == 0 {
                    self.stats.triangles_discrete +=
                        stats_after.candidate_triangles - stats_before.candidate_triangles;
                    self.first_contacts[i] = contact;
                    if stats_after.box_hits > stats_before.box_hits
                        && self.states[i] == VertexState::NoBox
                    {
                        self.states[i] = VertexState::BoxOnly;
                    }
                }
                let Some(c) = contact else {
                    break;
                };
                self.states[i] = VertexState::Contact;
                let (signed, normal) = self.signed_distance(avatar, x, &c)?;
                if pass == 0 {
                    self.stats.deepest = self.stats.deepest.min(signed);
                    let accel = normal * (th.feedback_gain * (th.outside - signed));
                    if accel.is_finite() {
                        cloth.external[i] += accel;
                    }
                }
                if signed >= th.surface {
                    break;
                }
                cloth.positions[i] = c.point + normal * th.thickness;
                let skin_velocity = self.skin_velocity(avatar, &c, dt)?;
                respond_velocity(cloth, i, skin_velocity, normal, th.friction);
                moved = true;
            }
            if self.states[i] == VertexState::Contact {
                self.stats.contacts += 1;
            }
            if self.states[i] != VertexState::NoBox {
                self.stats.in_box += 1;
            }
            if moved {
                self.stats.repositioned += 1;
            }
        }
        // 3. The face pass: the skin between a cloth triangle's vertices.
        if th.face_contacts {
            self.resolve_faces(cloth, avatar, dt, FaceSelection::InContact)?;
        }
        Ok(())
    }

    /// After [`Self::resolve`] (same frame, same avatar and pose), the discrete test again for
    /// the cloth vertices `vertices` that another stage moved (the garment's self-collision
    /// stage reverting vertices to the step's start, [`super::ClothSelfCollision::reverted`]):
    /// each found below [`ContactThresholds::surface`] is moved to the thickness outside the
    /// skin and its velocity into the skin removed, up to three times; then the face pass
    /// (skin vertices against cloth faces, skin edges against cloth edges) over the cloth
    /// triangles of those vertices. Returns how many vertices the discrete test moved.
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a vertex past the cloth's last; the query's errors.
    ///
    /// # Performance
    /// One to three [`AvatarQuery::closest_with_hint`] per vertex, O(cloth triangles) to select the face
    /// pass's triangles and its tests on them.
    pub fn push_out(
        &mut self,
        cloth: &mut Cloth,
        avatar: &AvatarBoxes,
        vertices: &[u32],
        dt: f32,
    ) -> Result<usize> {
        let th = self.thresholds;
        let mut moved = 0;
        for &v in vertices {
            let i = v as usize;
            if i >= cloth.positions.len() {
                return Err(DeformError::IndexOutOfRange {
                    what: "cloth vertex",
                    index: i,
                    len: cloth.positions.len(),
                });
            }
            if cloth.is_pinned(i) {
                continue;
            }
            let mut touched = false;
            for _ in 0..3 {
                let x = cloth.positions[i];
                let Some(c) = self.query.closest_with_hint(
                    avatar,
                    x,
                    th.outside,
                    self.hints.get(i).copied().flatten(),
                )?
                else {
                    break;
                };
                let (signed, normal) = self.signed_distance(avatar, x, &c)?;
                if signed >= th.surface {
                    break;
                }
                cloth.positions[i] = c.point + normal * th.thickness;
                let skin_velocity = self.skin_velocity(avatar, &c, dt)?;
                respond_velocity(cloth, i, skin_velocity, normal, th.friction);
                touched = true;
            }
            if touched {
                moved += 1;
            }
        }
        if th.face_contacts && !vertices.is_empty() {
            self.face_marks.clear();
            self.face_marks.resize(cloth.positions.len(), false);
            for &v in vertices {
                self.face_marks[v as usize] = true;
            }
            self.resolve_faces(cloth, avatar, dt, FaceSelection::Marked)?;
        }
        Ok(moved)
    }

    /// Per box (into `box_motion`), a bound on how far its skin vertices move from the previous
    /// pose to `current`: the O(m) box of `Σ w_k (G_k − G'_k) p₀` over its triangles, plus the
    /// rounding of the two posed positions; returns the largest.
    fn motion_bound(&mut self, avatar: &AvatarBoxes, current: &[Affine]) -> f32 {
        self.delta.clear();
        let mut magnitude = 0f32;
        for (g, p) in current.iter().zip(&self.previous) {
            self.delta.push(Affine::new(
                g.linear - p.linear,
                g.translation - p.translation,
            ));
            for x in [g, p] {
                magnitude = magnitude
                    .max(frobenius(&x.linear) * avatar.rest_radius + x.translation.length());
            }
        }
        let influences = avatar.max_influences as f32;
        let slack = 4.0 * (2.0 * influences + 4.0) * f32::EPSILON * magnitude;
        self.box_motion.clear();
        let mut bound = 0f32;
        for b in &avatar.boxes {
            let aabb = b.bounds.aabb(&self.delta, &mut self.workspace);
            let far = aabb.mins.abs().max(aabb.maxs.abs());
            let m = far.length() * (1.0 + 1e-5) + slack;
            self.box_motion
                .push(if m.is_finite() { m } else { f32::MAX });
            bound = bound.max(m);
        }
        bound
    }

    fn next_epoch(&mut self, avatar: &AvatarBoxes) {
        let n = avatar.rest_positions().len();
        if self.previous_stamp.len() != n {
            self.previous_stamp = vec![0; n];
            self.previous_vertices = vec![Vec3::ZERO; n];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.previous_stamp.fill(0);
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    pub(super) fn previous_vertex(&mut self, avatar: &AvatarBoxes, v: u32) -> Vec3 {
        let v = v as usize;
        if self.previous_stamp[v] != self.epoch {
            self.previous_stamp[v] = self.epoch;
            self.previous_vertices[v] =
                deform_vertex(avatar.rest_positions(), avatar.weights(), &self.previous, v);
        }
        self.previous_vertices[v]
    }

    fn previous_corners(&mut self, avatar: &AvatarBoxes, t: u32) -> [Vec3; 3] {
        avatar.mesh().triangles()[t as usize].map(|v| self.previous_vertex(avatar, v))
    }

    pub(super) fn current_corners(&mut self, avatar: &AvatarBoxes, t: u32) -> Result<[Vec3; 3]> {
        let [a, b, c] = avatar.mesh().triangles()[t as usize];
        Ok([
            self.query.skin_vertex(avatar, a)?,
            self.query.skin_vertex(avatar, b)?,
            self.query.skin_vertex(avatar, c)?,
        ])
    }

    /// Barycentric coordinates of `point` in triangle `t` (posed now).
    fn barycentric(&mut self, avatar: &AvatarBoxes, t: u32, point: Vec3) -> Result<Vec3> {
        let [a, b, c] = self.current_corners(avatar, t)?;
        let n = (b - a).cross(c - a);
        let area2 = n.length_squared();
        if area2 <= 0.0 {
            return Ok(Vec3::splat(1.0 / 3.0));
        }
        let u = (b - point).cross(c - point).dot(n) / area2;
        let v = (c - point).cross(a - point).dot(n) / area2;
        Ok(Vec3::new(u, v, 1.0 - u - v))
    }

    /// The signed distance of `x` from the skin at its closest point `c` (negative inside, the
    /// side from the feature's pseudo-normal) and the outward unit normal there (from the
    /// point, or the pseudo-normal when the point lies on the skin).
    fn signed_distance(
        &mut self,
        avatar: &AvatarBoxes,
        x: Vec3,
        c: &SkinContact,
    ) -> Result<(f32, Vec3)> {
        let pseudo = self.pseudo_normal(avatar, c)?;
        let offset = x - c.point;
        let outside = offset.dot(pseudo) >= 0.0;
        let signed = if outside { c.distance } else { -c.distance };
        let normal = if c.distance > 1e-7 {
            if outside {
                offset / c.distance
            } else {
                -offset / c.distance
            }
        } else {
            pseudo
        };
        Ok((signed, normal))
    }

    /// The outward pseudo-normal of the skin feature holding the contact point: the face's
    /// normal inside the triangle, the sum of the two faces' unit normals on an edge, the
    /// angle-weighted sum of the ring's unit normals at a vertex (Bærentzen & Aanæs 2005).
    fn pseudo_normal(&mut self, avatar: &AvatarBoxes, c: &SkinContact) -> Result<Vec3> {
        let bary = self.barycentric(avatar, c.triangle, c.point)?;
        let eps = 1e-5;
        let zeros = bary.to_array().map(|x| x <= eps);
        let tri = avatar.mesh().triangles()[c.triangle as usize];
        let n = match zeros.iter().filter(|z| **z).count() {
            0 => c.normal,
            1 => {
                // The edge opposite corner k is (k+1, k+2): edge (k+1) % 3.
                let k = zeros.iter().position(|z| *z).unwrap_or(0);
                self.edge_normal(avatar, c.triangle, (k + 1) % 3)?
            }
            _ => {
                let k = zeros.iter().position(|z| !*z).unwrap_or(0);
                self.vertex_normal(avatar, tri[k])?
            }
        };
        let n = n.normalize_or_zero();
        Ok(if n == Vec3::ZERO { c.normal } else { n })
    }

    /// Velocity of the skin at the contact point over the step.
    fn skin_velocity(&mut self, avatar: &AvatarBoxes, c: &SkinContact, dt: f32) -> Result<Vec3> {
        let bary = self.barycentric(avatar, c.triangle, c.point)?;
        let [a0, b0, c0] = self.previous_corners(avatar, c.triangle);
        let before = a0 * bary.x + b0 * bary.y + c0 * bary.z;
        Ok((c.point - before) / dt)
    }
}

/// Removes the part of vertex `i`'s velocity relative to the skin that points into it, and
/// `friction` times that much of its tangential part (at most all of it).
pub(super) fn respond_velocity(
    cloth: &mut Cloth,
    i: usize,
    skin: Vec3,
    normal: Vec3,
    friction: f32,
) {
    let relative = cloth.velocities[i] - skin;
    let into = relative.dot(normal);
    if into < 0.0 && skin.is_finite() {
        let tangential = relative - normal * into;
        let speed = tangential.length();
        let keep = if speed > 0.0 {
            (1.0 - friction * -into / speed).max(0.0)
        } else {
            1.0
        };
        cloth.velocities[i] = skin + tangential * keep;
    }
}
