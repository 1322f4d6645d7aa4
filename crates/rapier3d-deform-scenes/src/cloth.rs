//! The BN-Tree paper's cloth (Fig. 1–2): a 231-vertex mass-spring control mesh whose corners are gathered into a hanging bag, Loop-subdivided for self-collision.
//!
//! Schvartzman et al. (SCA 2009, §5) test self-collision on "a cloth animation \[whose\] control
//! mesh consists of 231 vertices", refined with 2, 3 and 4 levels of Loop subdivision. The
//! original animation is not public; this module makes an equivalent one:
//!
//! * **Control mesh.** A 21 × 11 grid (2.0 m × 1.0 m, 0.1 m spacing, 400 triangles, every
//!   interior vertex of valence 6), oriented with its normals up.
//! * **Simulation.** Unit point masses joined by stretch (grid edges), shear (both cell
//!   diagonals) and bend (every second vertex) springs with damping along each spring, gravity
//!   and air drag, integrated with symplectic Euler at 3 kHz. The cloth starts flat, held by its
//!   four corners (pinned, moved kinematically); between [`GATHER_START`] and [`GATHER_END`] the
//!   corners are brought together above the cloth's centre, like a handkerchief picked up by its
//!   corners, and the cloth hangs as a bag that swings and settles. **The cloth does not handle
//!   its own collisions**, so the walls of the bag pass through each other — which is what the
//!   self-collision benchmarks detect. The seed shifts the gathering point, the corners' final
//!   spots and adds ±2 mm of jitter to the start.
//! * **Subdivision.** [`ClothAnimation::subdivided`] gives a [`LoopSubdivision`] whose governors
//!   are the control points (3,321 / 13,041 / 51,681 vertices and 6,400 / 25,600 / 102,400
//!   triangles for levels 2 / 3 / 4); pose it per frame with
//!   [`LoopSubdivision::set_control_points`].
//!
//! Everything is deterministic for a seed (single-threaded, fixed step). Units are metres and
//! seconds, `+Y` is up.

use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::error::Result;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;

/// Control points along the cloth's long side (`x`).
pub const CLOTH_COLUMNS: usize = 21;
/// Control points along the cloth's short side (`z`).
pub const CLOTH_ROWS: usize = 11;
/// Distance between neighbouring control points at rest (metres).
pub const CLOTH_SPACING: f32 = 0.1;
/// Animation frames per second.
pub const FRAME_RATE: f32 = 60.0;
/// Time (s) at which the corners start moving together.
pub const GATHER_START: f32 = 0.25;
/// Time (s) at which the corners are gathered (then they stay).
pub const GATHER_END: f32 = 1.25;

/// Simulation substeps per frame (3 kHz).
const SUBSTEPS: usize = 50;
/// Starting height of the cloth.
const START_HEIGHT: f32 = 1.5;
/// Stiffness per unit mass (1/s²) of stretch, shear and bend springs.
const K_STRETCH: f32 = 40_000.0;
const K_SHEAR: f32 = 10_000.0;
const K_BEND: f32 = 400.0;
/// Damping ratio of every spring (fraction of critical, per spring).
const SPRING_DAMPING: f32 = 0.02;
/// Air drag (1/s).
const AIR_DRAG: f32 = 0.3;
/// Gravity (m/s²).
const GRAVITY: f32 = 9.81;
/// Half the side of the square the gathered corners end on.
const GATHER_HALF: f32 = 0.06;

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny deterministic generator for the seed's
/// perturbations, so the scene does not depend on `rand`.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// A spring between two control points.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spring {
    a: u32,
    b: u32,
    rest: f32,
    stiffness: f32,
    damping: f32,
}

/// The mass-spring simulation of the control mesh.
///
/// # Performance
/// [`ClothSimulation::step_frame`] is O(substeps · springs): 50 × 1,540 spring evaluations.
#[derive(Clone, Debug)]
pub struct ClothSimulation {
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
    springs: Vec<Spring>,
    /// The pinned corners: control point, start and end of its path.
    pins: [(u32, Vec3, Vec3); 4],
    frame: usize,
}

/// Index of grid point `(column, row)`.
#[inline]
fn grid(column: usize, row: usize) -> u32 {
    (row * CLOTH_COLUMNS + column) as u32
}

/// The control grid's triangles: every cell split along the same diagonal (so interior vertices
/// have valence 6, Loop's regular case), counter-clockwise seen from `+Y`.
fn grid_triangles() -> Vec<[u32; 3]> {
    let mut tris = Vec::with_capacity(2 * (CLOTH_COLUMNS - 1) * (CLOTH_ROWS - 1));
    for r in 0..CLOTH_ROWS - 1 {
        for c in 0..CLOTH_COLUMNS - 1 {
            let (a, b, d, e) = (
                grid(c, r),
                grid(c + 1, r),
                grid(c, r + 1),
                grid(c + 1, r + 1),
            );
            // x runs along columns and z along rows: (x × z) points down, so list a, e, b.
            tris.push([a, e, b]);
            tris.push([a, d, e]);
        }
    }
    tris
}

impl ClothSimulation {
    /// The flat cloth held by its corners at height 1.5 m, with the seed's gathering spots and
    /// ±2 mm of jitter per control point.
    ///
    /// # Performance
    /// O(control points + springs).
    pub fn new(seed: u64) -> Self {
        let mut rng = SplitMix64(seed);
        let half = Vec3::new(
            0.5 * CLOTH_SPACING * (CLOTH_COLUMNS - 1) as f32,
            0.0,
            0.5 * CLOTH_SPACING * (CLOTH_ROWS - 1) as f32,
        );
        let mut positions = Vec::with_capacity(CLOTH_COLUMNS * CLOTH_ROWS);
        for r in 0..CLOTH_ROWS {
            for c in 0..CLOTH_COLUMNS {
                let local = Vec3::new(
                    c as f32 * CLOTH_SPACING,
                    START_HEIGHT,
                    r as f32 * CLOTH_SPACING,
                ) - half;
                let jitter = Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ) * 0.002;
                positions.push(local + jitter);
            }
        }
        let gather = Vec3::new(
            rng.range(-0.3, 0.3),
            START_HEIGHT + rng.range(0.1, 0.3),
            rng.range(-0.1, 0.1),
        );
        let corners = [
            (grid(0, 0), Vec3::new(-1.0, 0.0, -1.0)),
            (grid(CLOTH_COLUMNS - 1, 0), Vec3::new(1.0, 0.0, -1.0)),
            (
                grid(CLOTH_COLUMNS - 1, CLOTH_ROWS - 1),
                Vec3::new(1.0, 0.0, 1.0),
            ),
            (grid(0, CLOTH_ROWS - 1), Vec3::new(-1.0, 0.0, 1.0)),
        ];
        let pins = corners.map(|(i, side)| {
            let spot = gather
                + side * GATHER_HALF
                + Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ) * 0.02;
            (i, positions[i as usize], spot)
        });
        let mut springs = Vec::new();
        let mut add = |a: u32, b: u32, stiffness: f32, positions: &[Vec3]| {
            let rest = (positions[a as usize] - positions[b as usize]).length();
            springs.push(Spring {
                a,
                b,
                rest,
                stiffness,
                // Critical damping of a pair of unit masses: 2 √(2k) / 2 per unit mass.
                damping: SPRING_DAMPING * 2.0 * (2.0 * stiffness).sqrt(),
            });
        };
        for r in 0..CLOTH_ROWS {
            for c in 0..CLOTH_COLUMNS {
                let i = grid(c, r);
                if c + 1 < CLOTH_COLUMNS {
                    add(i, grid(c + 1, r), K_STRETCH, &positions);
                }
                if r + 1 < CLOTH_ROWS {
                    add(i, grid(c, r + 1), K_STRETCH, &positions);
                }
                if c + 1 < CLOTH_COLUMNS && r + 1 < CLOTH_ROWS {
                    add(i, grid(c + 1, r + 1), K_SHEAR, &positions);
                    add(grid(c + 1, r), grid(c, r + 1), K_SHEAR, &positions);
                }
                if c + 2 < CLOTH_COLUMNS {
                    add(i, grid(c + 2, r), K_BEND, &positions);
                }
                if r + 2 < CLOTH_ROWS {
                    add(i, grid(c, r + 2), K_BEND, &positions);
                }
            }
        }
        let velocities = vec![Vec3::ZERO; positions.len()];
        Self {
            positions,
            velocities,
            springs,
            pins,
            frame: 0,
        }
    }

    /// Current control point positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Position and velocity of pinned corner `k` (0–3) at time `t` (seconds): a smoothstep from
    /// its start to its gathering spot between [`GATHER_START`] and [`GATHER_END`].
    fn pin_state(&self, k: usize, t: f32) -> (Vec3, Vec3) {
        let (_, start, end) = self.pins[k];
        let span = GATHER_END - GATHER_START;
        let u = ((t - GATHER_START) / span).clamp(0.0, 1.0);
        let s = u * u * (3.0 - 2.0 * u);
        let ds = if u > 0.0 && u < 1.0 {
            6.0 * u * (1.0 - u) / span
        } else {
            0.0
        };
        (start.lerp(end, s), (end - start) * ds)
    }

    /// The pinned corners' control points.
    pub fn pinned(&self) -> [u32; 4] {
        self.pins.map(|p| p.0)
    }

    /// Frames simulated so far.
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// Advances one frame (1/60 s) in fixed substeps.
    ///
    /// # Performance
    /// O(substeps · (springs + control points)).
    pub fn step_frame(&mut self) {
        let dt = 1.0 / (FRAME_RATE * SUBSTEPS as f32);
        let mut accel = vec![Vec3::ZERO; self.positions.len()];
        for sub in 0..SUBSTEPS {
            let t = (self.frame * SUBSTEPS + sub + 1) as f32 * dt;
            accel.fill(Vec3::new(0.0, -GRAVITY, 0.0));
            for (a, v) in accel.iter_mut().zip(&self.velocities) {
                *a -= AIR_DRAG * *v;
            }
            for s in &self.springs {
                let (a, b) = (s.a as usize, s.b as usize);
                let d = self.positions[b] - self.positions[a];
                let len = d.length();
                if len <= f32::EPSILON {
                    continue;
                }
                let dir = d / len;
                let rel_speed = (self.velocities[b] - self.velocities[a]).dot(dir);
                let f = dir * (s.stiffness * (len - s.rest) + s.damping * rel_speed);
                accel[a] += f;
                accel[b] -= f;
            }
            for ((p, v), a) in self
                .positions
                .iter_mut()
                .zip(&mut self.velocities)
                .zip(&accel)
            {
                *v += *a * dt;
                *p += *v * dt;
            }
            for k in 0..4 {
                let (p, v) = self.pin_state(k, t);
                let i = self.pins[k].0 as usize;
                self.positions[i] = p;
                self.velocities[i] = v;
            }
        }
        self.frame += 1;
    }
}

/// A simulated cloth animation: the control mesh and its control points at every frame.
///
/// ```no_run
/// use rapier3d_deform_scenes::cloth::ClothAnimation;
/// # fn main() -> rapier3d_deform::Result<()> {
/// let anim = ClothAnimation::simulate(1, 120)?;
/// let mut fine = anim.subdivided(3)?;
/// fine.set_control_points(&anim.frames()[60])?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct ClothAnimation {
    control: TriangleMesh,
    frames: Vec<Vec<Vec3>>,
}

impl ClothAnimation {
    /// Simulates `frame_count` frames (frame 0 is the starting pose) with the seed's initial
    /// shift and tilt.
    ///
    /// # Errors
    /// Not expected (the control grid is valid by construction); propagates
    /// [`TriangleMesh::new`]'s errors.
    ///
    /// # Performance
    /// O(frame_count · substeps · springs): about 0.2 s per 100 frames in release.
    pub fn simulate(seed: u64, frame_count: usize) -> Result<Self> {
        let mut sim = ClothSimulation::new(seed);
        let control = TriangleMesh::new(sim.positions().to_vec(), grid_triangles())?;
        let mut frames = Vec::with_capacity(frame_count);
        for f in 0..frame_count {
            if f > 0 {
                sim.step_frame();
            }
            frames.push(sim.positions().to_vec());
        }
        Ok(Self { control, frames })
    }

    /// The control mesh (231 vertices, 400 triangles) in its starting pose.
    pub fn control_mesh(&self) -> &TriangleMesh {
        &self.control
    }

    /// The control points of every frame.
    pub fn frames(&self) -> &[Vec<Vec3>] {
        &self.frames
    }

    /// The control mesh Loop-subdivided `levels` times (rest = starting pose; governors = the
    /// control points).
    ///
    /// # Errors
    /// As [`LoopSubdivision::new`] (`levels` above [`rapier3d_deform::deformation::MAX_LOOP_LEVELS`]).
    ///
    /// # Performance
    /// O(fine vertices · stencil width).
    pub fn subdivided(&self, levels: u32) -> Result<LoopSubdivision> {
        LoopSubdivision::new(self.control.clone(), levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdf_mesh::ManifoldReport;
    use rapier3d_deform::governor::GovernedDeformation;
    use rapier3d_deform::validation::self_collisions_brute_force;
    use std::sync::OnceLock;

    /// 130 frames of seed 5, simulated once for all tests.
    fn animation() -> &'static ClothAnimation {
        static ANIMATION: OnceLock<ClothAnimation> = OnceLock::new();
        ANIMATION.get_or_init(|| ClothAnimation::simulate(5, 130).unwrap())
    }

    #[test]
    fn control_mesh_is_a_regular_upward_grid() {
        let anim = ClothAnimation::simulate(0, 1).unwrap();
        let mesh = anim.control_mesh();
        assert_eq!(mesh.vertex_count(), 231);
        assert_eq!(mesh.triangle_count(), 400);
        for t in 0..mesh.triangle_count() {
            assert!(
                mesh.triangle_normal(mesh.positions(), t).y > 0.95,
                "triangle {t}"
            );
        }
        let report = ManifoldReport::of(mesh.vertex_count(), mesh.triangles()).unwrap();
        assert_eq!(report.non_manifold_edges + report.inconsistent_edges, 0);
        assert_eq!(report.boundary_edges, 2 * (20 + 10));
        assert_eq!((report.components, report.euler_characteristic), (1, 1));
    }

    #[test]
    fn simulation_is_deterministic_finite_and_follows_the_pins() {
        let a = animation();
        let b = ClothAnimation::simulate(5, 30).unwrap();
        let c = ClothAnimation::simulate(6, 30).unwrap();
        assert_eq!(&a.frames()[..30], b.frames());
        assert_ne!(a.frames()[29], c.frames()[29]);
        assert!(a.frames().iter().flatten().all(|p| p.is_finite()));
        // The corners end gathered within a few centimetres of each other.
        let sim = ClothSimulation::new(5);
        let last = a.frames().last().unwrap();
        let corners = sim.pinned().map(|i| last[i as usize]);
        for p in corners {
            for q in corners {
                assert!((p - q).length() < 0.25, "{p} {q}");
            }
        }
        // The springs keep the cloth from stretching apart: every grid edge within 15 % of its
        // rest length.
        for [x, y, z] in a.control_mesh().triangles() {
            for (i, j) in [(x, y), (y, z), (z, x)] {
                let rest = (a.frames()[0][*i as usize] - a.frames()[0][*j as usize]).length();
                let now = (last[*i as usize] - last[*j as usize]).length();
                assert!(
                    (now / rest - 1.0).abs() < 0.15,
                    "edge {i}-{j}: {now} vs {rest}"
                );
            }
        }
    }

    #[test]
    fn subdivided_cloth_self_collides_per_brute_force() {
        let anim = animation();
        let mut fine = anim.subdivided(2).unwrap();
        assert_eq!(fine.mesh().triangle_count(), 6_400);
        assert_eq!(fine.mesh().vertex_count(), 3_321);
        assert!(
            self_collisions_brute_force(fine.mesh(), fine.rest_positions())
                .unwrap()
                .is_empty()
        );
        let mut colliding_frames = 0;
        let mut positions = Vec::new();
        for frame in anim.frames().iter().step_by(10) {
            fine.set_control_points(frame).unwrap();
            fine.deform_into(&mut positions);
            assert!(positions.iter().all(|p| p.is_finite()));
            let pairs = self_collisions_brute_force(fine.mesh(), &positions).unwrap();
            colliding_frames += !pairs.is_empty() as usize;
        }
        assert!(
            colliding_frames >= 3,
            "only {colliding_frames} sampled frames self-collide"
        );
    }
}
