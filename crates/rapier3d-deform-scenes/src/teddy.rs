//! The BN-Tree paper's point-based teddy (Fig. 4): a closed mesh under point-based animation with 24 particles, squashed with its head pressed onto its back.
//!
//! Schvartzman et al. (SCA 2009, §5) animate "a teddy bear model with 26402 vertices \[...\] using
//! point-based animation with 24 particles". The teddy is not public; this module uses Keenan
//! Crane's *Spot* (`assets/closed/spot.obj`, CC0, 2,930 vertices, 5,856 triangles, closed and
//! genus 0) Loop-subdivided once (11,714 vertices, 23,424 triangles; about the paper's triangle
//! count, half its vertex count):
//!
//! * **Particles.** 24 particles at the centroids of a k-means clustering of the rest vertices
//!   (seeded by farthest-point sampling from the vertex nearest the centroid; a fixed number of
//!   Lloyd rounds), so each sits inside the part it governs (head, legs, body, tail…). The kernel
//!   support radius is [`Teddy::SUPPORT_FACTOR`] times the largest vertex-to-nearest-particle
//!   distance, so every vertex is covered and most have several particles.
//! * **Animation.** Over a cycle ([`Teddy::particle_motion`]) the body squashes vertically
//!   towards the ground (and bulges sideways), and the head is thrown back about the neck by up
//!   to [`Teddy::HEAD_BEND`] radians, pressing the crown and horns onto the back and pinching the
//!   nape; then everything returns. Each particle turns rigidly by its own angle (full in the head, fading over the
//!   neck), so the particles act like a chain of bones and the neck pinches. (Estimating the
//!   fields by moving least squares from the particle positions alone smears the head's rotation
//!   into the neck and extrudes the nose, with 24 particles.)
//!
//! Spot faces `−Z`, `+Y` is up, and its hooves rest near `y = −0.74`.

use std::path::Path;

use rapier3d_deform::deformation::{LoopSubdivision, PointBasedAnimation};
use rapier3d_deform::error::Result;
use rapier3d_deform::governor::GovernedDeformation;
use rapier3d_deform::io::{LoadError, LoadOptions, load_obj};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;

/// Number of particles of the point-based animation (the paper's 24).
pub const TEDDY_PARTICLES: usize = 24;

/// The point-based teddy: mesh, animation model and the particles' rest layout.
///
/// # Performance
/// [`Teddy::pose`] is O(particles · neighbours); deforming the mesh is O(vertex influences).
#[derive(Clone, Debug)]
pub struct Teddy {
    mesh: TriangleMesh,
    animation: PointBasedAnimation,
    floor: f32,
}

impl Teddy {
    /// Kernel support radius over the largest distance from a vertex to its nearest particle.
    pub const SUPPORT_FACTOR: f32 = 1.6;
    /// Largest bend of the head about the neck (radians, thrown back: nose up, crown towards
    /// the back).
    pub const HEAD_BEND: f32 = 1.9;
    /// Largest vertical squash of the body (fraction of its height above the floor).
    pub const SQUASH: f32 = 0.22;
    /// Lloyd rounds of the particle clustering.
    const LLOYD_ROUNDS: usize = 12;
    /// The neck pivot the head bends about (rest coordinates of Spot).
    const NECK_PIVOT: Vec3 = Vec3::new(0.0, 0.12, -0.22);

    /// Loads an OBJ (Spot: `assets/closed/spot.obj`) and builds the teddy with `levels` Loop
    /// subdivisions (the scene uses 1; tests use 0).
    ///
    /// # Errors
    /// The loader's [`LoadError`]s, and [`LoadError::Deform`] for the errors of
    /// [`Teddy::new`].
    ///
    /// # Performance
    /// Loading plus [`Teddy::new`].
    pub fn from_obj_file(
        path: impl AsRef<Path>,
        levels: u32,
    ) -> std::result::Result<Self, LoadError> {
        let (asset, _report) = load_obj(path, &LoadOptions::default())?;
        Ok(Self::new(asset.mesh, levels)?)
    }

    /// Subdivides `control` `levels` times and places the particles (see the module docs).
    ///
    /// # Errors
    /// As [`LoopSubdivision::new`] (a non-manifold or inconsistently oriented mesh) and
    /// [`PointBasedAnimation::new`].
    ///
    /// # Performance
    /// O(V · (particles · Lloyd rounds + particles in range)) after subdivision.
    pub fn new(control: TriangleMesh, levels: u32) -> Result<Self> {
        let mesh = if levels == 0 {
            control
        } else {
            LoopSubdivision::new(control, levels)?.mesh().clone()
        };
        let rest = mesh.positions();
        let particles = cluster_centres(rest, TEDDY_PARTICLES, Self::LLOYD_ROUNDS);
        let cover = rest
            .iter()
            .map(|&v| {
                particles
                    .iter()
                    .map(|&p| (v - p).length())
                    .fold(f32::MAX, f32::min)
            })
            .fold(0.0f32, f32::max);
        let animation =
            PointBasedAnimation::new(rest.to_vec(), particles, Self::SUPPORT_FACTOR * cover)?;
        let floor = mesh.bounds().0.y;
        Ok(Self {
            mesh,
            animation,
            floor,
        })
    }

    /// The rest mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The point-based animation (governors = particles).
    pub fn animation(&self) -> &PointBasedAnimation {
        &self.animation
    }

    /// The particle motion at `phase` ∈ [0, 1) of the cycle (rest at 0; fully squashed with
    /// the head thrown back at 0.5; phases outside wrap around) for a particle at rest position
    /// `p`: its position and affine field.
    ///
    /// A particle in front of the neck turns about the neck pivot by up to
    /// [`Teddy::HEAD_BEND`], the angle fading smoothly to zero over the neck (like a chain of
    /// bones: rigid per particle, blended between particles); then the whole body squashes
    /// towards the floor and bulges sideways. The field is that rotation followed by the squash.
    ///
    /// # Performance
    /// O(1).
    pub fn particle_motion(&self, phase: f32, p: Vec3) -> (Vec3, Mat3) {
        let s = 0.5 - 0.5 * (core::f32::consts::TAU * phase.rem_euclid(1.0)).cos();
        let turn = Mat3::from_rotation_x(Self::HEAD_BEND * s * smoothstep(-0.1, -0.3, p.z));
        let q = Self::NECK_PIVOT + turn * (p - Self::NECK_PIVOT);
        let squash = 1.0 - Self::SQUASH * s;
        let bulge = 1.0 + 0.5 * Self::SQUASH * s;
        let out = Vec3::new(q.x * bulge, self.floor + (q.y - self.floor) * squash, q.z);
        (
            out,
            Mat3::from_diagonal(Vec3::new(bulge, squash, 1.0)) * turn,
        )
    }

    /// Particle positions at `phase` (see [`Teddy::particle_motion`]).
    ///
    /// # Performance
    /// O(particles).
    pub fn particle_targets(&self, phase: f32) -> Vec<Vec3> {
        self.animation
            .particle_rest_positions()
            .iter()
            .map(|&p| self.particle_motion(phase, p).0)
            .collect()
    }

    /// Poses the animation at `phase`: particle positions and affine fields from
    /// [`Teddy::particle_motion`].
    ///
    /// # Errors
    /// Not expected (the map is finite); see [`PointBasedAnimation::set_particles`].
    ///
    /// # Performance
    /// O(particles).
    pub fn pose(&mut self, phase: f32) -> Result<()> {
        let (positions, fields): (Vec<Vec3>, Vec<Mat3>) = self
            .animation
            .particle_rest_positions()
            .iter()
            .map(|&p| self.particle_motion(phase, p))
            .unzip();
        self.animation.set_particles(&positions, &fields)
    }

    /// Deformed vertex positions of the current pose.
    ///
    /// # Performance
    /// O(vertex influences).
    pub fn deform_into(&self, out: &mut Vec<Vec3>) {
        self.animation.deform_into(out);
    }
}

/// `0` at `edge0`, `1` at `edge1`, Hermite in between (edges may be decreasing).
fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// `k` cluster centres of `points`: farthest-point seeding from the point nearest the centroid,
/// then `rounds` Lloyd iterations (deterministic; an emptied cluster keeps its centre).
fn cluster_centres(points: &[Vec3], k: usize, rounds: usize) -> Vec<Vec3> {
    let centroid = points.iter().copied().sum::<Vec3>() / points.len().max(1) as f32;
    let nearest = |c: Vec3| {
        points
            .iter()
            .enumerate()
            .min_by(|a, b| {
                (*a.1 - c)
                    .length_squared()
                    .total_cmp(&(*b.1 - c).length_squared())
            })
            .map_or(0, |(i, _)| i)
    };
    let mut centres = vec![points[nearest(centroid)]];
    let mut dist: Vec<f32> = points
        .iter()
        .map(|p| (*p - centres[0]).length_squared())
        .collect();
    while centres.len() < k.min(points.len()) {
        let far = dist
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        let c = points[far];
        centres.push(c);
        for (d, p) in dist.iter_mut().zip(points) {
            *d = d.min((*p - c).length_squared());
        }
    }
    for _ in 0..rounds {
        let mut sums = vec![(Vec3::ZERO, 0usize); centres.len()];
        for p in points {
            let best = centres
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    (*a.1 - *p)
                        .length_squared()
                        .total_cmp(&(*b.1 - *p).length_squared())
                })
                .map_or(0, |(i, _)| i);
            sums[best].0 += *p;
            sums[best].1 += 1;
        }
        for (c, (sum, n)) in centres.iter_mut().zip(sums) {
            if n > 0 {
                *c = sum / n as f32;
            }
        }
    }
    centres
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdf_mesh::ManifoldReport;
    use rapier3d_deform::validation::self_collisions_brute_force;

    fn spot(levels: u32) -> Teddy {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/closed/spot.obj");
        Teddy::from_obj_file(path, levels).unwrap()
    }

    #[test]
    fn mesh_is_closed_and_particles_cover_it() {
        let teddy = spot(0);
        let report =
            ManifoldReport::of(teddy.mesh().vertex_count(), teddy.mesh().triangles()).unwrap();
        assert_eq!(
            (
                report.boundary_edges,
                report.non_manifold_edges,
                report.inconsistent_edges
            ),
            (0, 0, 0)
        );
        assert_eq!((report.components, report.euler_characteristic), (1, 2));
        let anim = teddy.animation();
        assert_eq!(anim.particle_count(), TEDDY_PARTICLES);
        assert_eq!(anim.weights().vertex_count(), teddy.mesh().vertex_count());
        // Most vertices blend several particles (a smooth field, not a partition).
        let multi = (0..anim.weights().vertex_count())
            .filter(|&v| anim.weights().row(v).0.len() >= 2)
            .count();
        assert!(multi * 10 >= anim.weights().vertex_count() * 9, "{multi}");
        // The rest mesh does not self-collide.
        assert!(
            self_collisions_brute_force(teddy.mesh(), teddy.mesh().positions())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn animation_is_finite_periodic_and_presses_parts_together() {
        let mut teddy = spot(0);
        let mut positions = Vec::new();
        teddy.pose(0.0).unwrap();
        teddy.deform_into(&mut positions);
        for (p, r) in positions.iter().zip(teddy.mesh().positions()) {
            assert!((*p - *r).length() < 1e-4, "phase 0 is the rest pose");
        }
        let mut colliding = 0;
        for phase in [0.2, 0.35, 0.5, 0.65] {
            teddy.pose(phase).unwrap();
            teddy.deform_into(&mut positions);
            assert!(positions.iter().all(|p| p.is_finite()));
            let pairs = self_collisions_brute_force(teddy.mesh(), &positions).unwrap();
            colliding += !pairs.is_empty() as usize;
        }
        assert!(colliding >= 2, "the head should be pressed into the body");
    }

    #[test]
    fn subdivided_once_has_the_scene_size() {
        let teddy = spot(1);
        assert_eq!(teddy.mesh().vertex_count(), 11_714);
        assert_eq!(teddy.mesh().triangle_count(), 23_424);
    }
}
