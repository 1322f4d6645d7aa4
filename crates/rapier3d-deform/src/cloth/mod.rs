//! Cloth simulated with XPBD whose collision stage against a skinned avatar is the seed's per-vertex OBB → slab → closest-triangle test (Pelechano 2002 §3.4, §4.3–4.4) with a continuous test added.
//!
//! **Why the crate simulates the cloth.** Rapier 0.36.1 has soft bodies that can be cloth
//! (`SoftBodyBuilder::cloth`, `cloth_tube`, `trimesh`: particles, structural edges, dihedral
//! bending), and their contacts with a rigid collider do go through the narrow phase's query
//! dispatcher (`pair_update.rs`: `query_dispatcher.contact_manifolds(pos12, shape1, shape2, …)`,
//! the soft surface being a parry `TriMesh`), so a crate collider — a skinned
//! [`crate::shape::DeformableMeshShape`] — would be hit. What that route gives is the soft
//! solver's response to triangle–triangle manifolds (one per cloth triangle); its per-vertex
//! predictive contacts are skipped for a non-convex collider (`detect_rigid_vertices` returns
//! when `!shape.is_convex()`), and the seed's per-vertex stage (thresholds, feedback,
//! repositioning) and a continuous test against the moving skin would have to run outside the
//! step on the particles anyway (`SoftBody::set_particle_position`), with the collision cost
//! not separable from the soft solver's for the baselines. The crate therefore steps its own
//! cloth ([`Cloth`]) and runs [`SkinCollision`] after each step.
//!
//! * [`Cloth`] — XPBD (Macklin, Müller & Chentanez 2016) with small steps (Macklin et al.
//!   2019): edge-length constraints (stretch), bending links between the vertices opposite each
//!   interior edge (Provot 1995), velocity damping, pinned vertices driven to targets;
//!   validated construction, no allocation per step. Links rather than dihedral-angle
//!   constraints: with Bridson, Marino & Fedkiw's gradients (checked against finite
//!   differences) a flared tube hanging under gravity diverged at 8–32 substeps, while the links
//!   settle (`solve.rs` tests).
//! * [`SkinCollision`] — per free vertex a continuous test (vertex trajectory against the moving
//!   skin triangles: the seed's §2.1.1 coplanarity cubic) within a radius that the O(m)
//!   per-box motion bound makes conservative, then the seed's discrete test through
//!   [`crate::avatar::AvatarQuery::closest`] (conservative boxes, slab cells, closest triangle)
//!   and its three thresholds OUTSIDE / ON SURFACE / INSIDE (§4.4): feedback acceleration
//!   `gain · (outside − d)` along the normal, repositioning to the cloth thickness outside
//!   the skin, Coulomb friction on request ([`ContactThresholds::friction`]); then, on request
//!   ([`ContactThresholds::face_contacts`]), a face pass (skin vertices against cloth faces, skin edges against cloth edges, Bridson, Fedkiw &
//!   Anderson 2002 §7.1) for the skin passing between a cloth triangle's vertices.
//! * [`ClothSelfCollision`] — the garment against itself: vertex–triangle proximity constraints
//!   at the cloth's thickness inside the substeps ([`Cloth::step_with_self_collision`]), and
//!   after the skin stage the crossing triangle pairs found by a BN-Tree whose governors are the
//!   cloth's own vertices (Schvartzman, Gascón & Otaduy 2009 §5, point governors), their
//!   vertices reverted to the step's start until none crosses.
//!
//! ```text
//! step:    x ← x + h v (gravity, feedback); stretch, bending (XPBD, α/h²); v ← Δx / h, damped   × substeps
//! collide: per vertex: sweep p₀→p₁ against the skin moving G'→G (radius |p₁−p₀| + M)
//!          → closest triangle within OUTSIDE → feedback, reposition below ON SURFACE
//!          (opt-in) per cloth triangle in contact: skin vertex–face, skin edge–cloth edge → push out
//! ```

mod build;
mod collide;
mod collide_faces;
mod self_collision;
mod solve;

pub use build::{Cloth, ClothOptions};
pub use collide::{ContactThresholds, SkinCollision, SkinCollisionStats, VertexState};
pub use self_collision::{ClothSelfCollision, ClothSelfCollisionStats, SelfCollisionOptions};
