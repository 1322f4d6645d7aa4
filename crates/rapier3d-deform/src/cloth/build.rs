//! Building a cloth: validated options, rest mesh, pinned vertices, lumped masses, stretch edges and dihedral bending pairs.

use crate::error::{DeformError, Result};
use crate::math::Vec3;
use crate::mesh::TriangleMesh;

/// Material and solver settings of a [`Cloth`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ClothOptions {
    /// Mass per unit area (kg/m²); a vertex gets a third of the area of each of its triangles.
    pub density: f32,
    /// XPBD compliance of the edge-length constraints (m/N); 0 is inextensible.
    pub stretch_compliance: f32,
    /// XPBD compliance of the dihedral-angle constraints (rad/(N·m)); larger bends more easily.
    pub bend_compliance: f32,
    /// Velocity damping rate (1/s): each substep scales velocities by `max(0, 1 − damping · h)`.
    pub damping: f32,
    /// Substeps per [`Cloth::step`] (XPBD "small steps": one constraint pass per substep).
    pub substeps: u32,
    /// Gravity (m/s²).
    pub gravity: Vec3,
}

impl Default for ClothOptions {
    fn default() -> Self {
        Self {
            density: 0.2,
            stretch_compliance: 1e-7,
            bend_compliance: 0.5,
            damping: 1.0,
            substeps: 8,
            gravity: Vec3::new(0.0, -9.81, 0.0),
        }
    }
}

/// A stretch constraint: an edge and its rest length.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Edge {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) rest: f32,
}

/// A bending constraint across an interior edge: the two opposite vertices `[x1, x2]`, the
/// shared edge `[x3, x4]` and the rest dihedral angle.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Bend {
    pub(crate) v: [u32; 4],
    pub(crate) rest: f32,
}

/// A triangle-mesh cloth simulated with XPBD (Macklin et al. 2016; "small steps", Macklin et
/// al. 2019): edge-length (stretch) and dihedral-angle (bending, Bridson et al. 2003 gradients)
/// constraints, velocity damping, substeps and pinned vertices moved to targets.
///
/// Positions and velocities are world-space. Per step the solver allocates nothing; the
/// collision stage ([`super::SkinCollision`]) reads [`Self::step_start`] and [`Self::positions`]
/// and writes positions, velocities and feedback accelerations back.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Cloth {
    pub(crate) mesh: TriangleMesh,
    pub(crate) positions: Vec<Vec3>,
    pub(crate) velocities: Vec<Vec3>,
    /// Positions when the last step began.
    pub(crate) step_start: Vec<Vec3>,
    /// Positions at the start of the current substep.
    pub(crate) substep_start: Vec<Vec3>,
    pub(crate) inverse_mass: Vec<f32>,
    pub(crate) mass: Vec<f32>,
    /// Pinned vertices, sorted, each once.
    pub(crate) pinned: Vec<u32>,
    pub(crate) pin_from: Vec<Vec3>,
    pub(crate) pin_to: Vec<Vec3>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) bends: Vec<Bend>,
    /// External accelerations for the next step (the collision stage's feedback), then cleared.
    pub(crate) external: Vec<Vec3>,
    pub(crate) options: ClothOptions,
}

impl Cloth {
    /// A cloth over `positions` (world space, the rest shape) and `triangles`, with the
    /// vertices of `pinned` held at targets ([`Self::set_pin_targets`]; initially where they
    /// are).
    ///
    /// # Errors
    /// What [`TriangleMesh::new`] rejects ([`DeformError::NonFinitePosition`] for a NaN
    /// position, [`DeformError::VertexIndexOutOfRange`] for a bad triangle index, degenerate
    /// triangles, limits); [`DeformError::IndexOutOfRange`] (`what = "pinned vertex"`) for a
    /// pinned index past the last vertex; [`DeformError::InvalidParameter`] for a non-finite or
    /// non-positive density, a negative or non-finite compliance or damping, `substeps` outside
    /// `1..=1024` or a non-finite gravity.
    ///
    /// # Performance
    /// O(V + T log T).
    pub fn new(
        positions: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        pinned: &[u32],
        options: ClothOptions,
    ) -> Result<Self> {
        check_options(&options)?;
        let mesh = TriangleMesh::new(positions, triangles)?;
        let n = mesh.vertex_count();
        let mut pinned_sorted = pinned.to_vec();
        for &p in &pinned_sorted {
            if p as usize >= n {
                return Err(DeformError::IndexOutOfRange {
                    what: "pinned vertex",
                    index: p as usize,
                    len: n,
                });
            }
        }
        pinned_sorted.sort_unstable();
        pinned_sorted.dedup();
        let positions = mesh.positions().to_vec();
        // Lumped masses: a third of each triangle's area per corner.
        let mut mass = vec![0f32; n];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            let share = options.density * mesh.triangle_area(&positions, t) / 3.0;
            for &v in tri {
                mass[v as usize] += share;
            }
        }
        let mut inverse_mass: Vec<f32> = mass
            .iter()
            .map(|&m| if m > 0.0 { 1.0 / m } else { 0.0 })
            .collect();
        for &p in &pinned_sorted {
            inverse_mass[p as usize] = 0.0;
        }
        let (edges, bends) = constraints(&mesh, &positions);
        let pin: Vec<Vec3> = pinned_sorted
            .iter()
            .map(|&p| positions[p as usize])
            .collect();
        Ok(Self {
            velocities: vec![Vec3::ZERO; n],
            step_start: positions.clone(),
            substep_start: positions.clone(),
            external: vec![Vec3::ZERO; n],
            positions,
            inverse_mass,
            mass,
            pin_from: pin.clone(),
            pin_to: pin,
            pinned: pinned_sorted,
            edges,
            bends,
            mesh,
            options,
        })
    }

    /// The rest mesh (triangles and rest positions).
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// Current vertex positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Current vertex velocities.
    pub fn velocities(&self) -> &[Vec3] {
        &self.velocities
    }

    /// Vertex positions when the last [`Self::step`] began (the start of each vertex's
    /// trajectory over the step, which the continuous collision test sweeps).
    pub fn step_start(&self) -> &[Vec3] {
        &self.step_start
    }

    /// Lumped vertex masses (kg; pinned vertices keep theirs, but move only with their targets).
    pub fn masses(&self) -> &[f32] {
        &self.mass
    }

    /// Pinned vertices, sorted, each once: the order of [`Self::set_pin_targets`].
    pub fn pinned(&self) -> &[u32] {
        &self.pinned
    }

    /// True when vertex `v` is pinned (or has no mass).
    pub fn is_pinned(&self, v: usize) -> bool {
        self.inverse_mass.get(v).is_some_and(|&w| w == 0.0)
    }

    /// Stretch constraints (edges).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Bending constraints (interior edges between two triangles).
    pub fn bend_count(&self) -> usize {
        self.bends.len()
    }

    /// The options the cloth was built with.
    pub fn options(&self) -> ClothOptions {
        self.options
    }

    /// Where the pinned vertices are at the end of the next step (one per [`Self::pinned`]
    /// entry, in that order); they move linearly from where they are over the step's substeps.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] for a wrong count, [`DeformError::NonFinitePosition`] /
    /// [`DeformError::PositionOutOfRange`] (`what = "pin target"`) for a bad target.
    ///
    /// # Performance
    /// O(pinned).
    pub fn set_pin_targets(&mut self, targets: &[Vec3]) -> Result<()> {
        if targets.len() != self.pinned.len() {
            return Err(DeformError::LengthMismatch {
                what: "pin targets",
                expected: self.pinned.len(),
                actual: targets.len(),
            });
        }
        crate::math::validate_positions("pin target", targets)?;
        self.pin_to.copy_from_slice(targets);
        Ok(())
    }

    /// Adds an acceleration (m/s²) to vertex `v` for the next step only (the seed's feedback
    /// force divided by the vertex mass).
    ///
    /// # Errors
    /// [`DeformError::IndexOutOfRange`] for a bad vertex, [`DeformError::NonFinitePosition`]
    /// (`what = "acceleration"`) for a non-finite acceleration.
    ///
    /// # Performance
    /// O(1).
    pub fn add_acceleration(&mut self, v: usize, acceleration: Vec3) -> Result<()> {
        let n = self.positions.len();
        let Some(slot) = self.external.get_mut(v) else {
            return Err(DeformError::IndexOutOfRange {
                what: "cloth vertex",
                index: v,
                len: n,
            });
        };
        if !acceleration.is_finite() {
            return Err(DeformError::NonFinitePosition {
                what: "acceleration",
                index: v,
            });
        }
        *slot += acceleration;
        Ok(())
    }
}

fn check_options(o: &ClothOptions) -> Result<()> {
    let bad = |name: &'static str, value: f32, reason: &'static str| {
        Err(DeformError::InvalidParameter {
            name,
            value,
            reason,
        })
    };
    if !(o.density.is_finite() && o.density > 0.0) {
        return bad("density", o.density, "must be finite and positive");
    }
    for (name, value) in [
        ("stretch_compliance", o.stretch_compliance),
        ("bend_compliance", o.bend_compliance),
        ("damping", o.damping),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return bad(name, value, "must be finite and non-negative");
        }
    }
    if o.substeps == 0 || o.substeps > 1024 {
        return bad("substeps", o.substeps as f32, "must be in 1..=1024");
    }
    if !o.gravity.is_finite() {
        return bad("gravity", o.gravity.length(), "must be finite");
    }
    Ok(())
}

/// Unique edges with rest lengths, and one bending constraint per edge shared by exactly two
/// triangles.
fn constraints(mesh: &TriangleMesh, positions: &[Vec3]) -> (Vec<Edge>, Vec<Bend>) {
    // (low, high, opposite vertex) per half-edge, sorted: equal keys are the triangles of an edge.
    let mut half: Vec<(u32, u32, u32)> = Vec::with_capacity(3 * mesh.triangle_count());
    for tri in mesh.triangles() {
        for e in 0..3 {
            let (a, b, c) = (tri[e], tri[(e + 1) % 3], tri[(e + 2) % 3]);
            half.push((a.min(b), a.max(b), c));
        }
    }
    half.sort_unstable();
    let mut edges = Vec::new();
    let mut bends = Vec::new();
    let mut i = 0;
    while i < half.len() {
        let mut j = i + 1;
        while j < half.len() && half[j].0 == half[i].0 && half[j].1 == half[i].1 {
            j += 1;
        }
        let (a, b) = (half[i].0, half[i].1);
        edges.push(Edge {
            a,
            b,
            rest: (positions[a as usize] - positions[b as usize]).length(),
        });
        if j - i == 2 {
            let v = [half[i].2, half[i + 1].2, a, b];
            let x = v.map(|k| positions[k as usize]);
            if let Some((angle, _)) = dihedral(x) {
                bends.push(Bend { v, rest: angle });
            }
        }
        i = j;
    }
    (edges, bends)
}

/// The dihedral angle of the bending element `[x1, x2, x3, x4]` (shared edge `x3 x4`) and its
/// gradient with respect to the four vertices (Bridson, Marino & Fedkiw 2003, §4), or `None`
/// for a degenerate element (a zero-area triangle or a zero-length edge).
pub(crate) fn dihedral(x: [Vec3; 4]) -> Option<(f32, [Vec3; 4])> {
    let [x1, x2, x3, x4] = x;
    let n1 = (x1 - x3).cross(x1 - x4);
    let n2 = (x2 - x4).cross(x2 - x3);
    let e = x4 - x3;
    let (l1, l2, le) = (n1.length_squared(), n2.length_squared(), e.length());
    let tiny = 1e-20 * (1.0 + e.length_squared()).powi(2);
    if !(l1 > tiny && l2 > tiny && le > 1e-12) {
        return None;
    }
    let (a, b) = (n1 / l1, n2 / l2);
    let (n1h, n2h, eh) = (n1 / l1.sqrt(), n2 / l2.sqrt(), e / le);
    let angle = n1h.cross(n2h).dot(eh).atan2(n1h.dot(n2h));
    let u1 = a * le;
    let u2 = b * le;
    let u3 = a * ((x1 - x4).dot(e) / le) + b * ((x2 - x4).dot(e) / le);
    let u4 = -(a * ((x1 - x3).dot(e) / le)) - b * ((x2 - x3).dot(e) / le);
    // Bridson's u_i are the gradient of −θ with θ measured as above.
    Some((angle, [-u1, -u2, -u3, -u4]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 for test inputs.
    fn next(state: &mut u64) -> f32 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    #[test]
    fn dihedral_gradient_matches_finite_differences() {
        let mut s = 7u64;
        let mut checked = 0;
        for _ in 0..200 {
            let x: [Vec3; 4] =
                core::array::from_fn(|_| Vec3::new(next(&mut s), next(&mut s), next(&mut s)));
            let Some((angle, grad)) = dihedral(x) else {
                continue;
            };
            // Stay away from the ±π branch cut of atan2.
            if angle.abs() > 2.8 {
                continue;
            }
            let h = 1e-3f64;
            for i in 0..4 {
                for d in 0..3 {
                    let mut xp = x;
                    let mut xm = x;
                    xp[i][d] += h as f32;
                    xm[i][d] -= h as f32;
                    let (Some((ap, _)), Some((am, _))) = (dihedral(xp), dihedral(xm)) else {
                        continue;
                    };
                    let fd = (ap as f64 - am as f64) / (2.0 * h);
                    let g = grad[i][d] as f64;
                    assert!(
                        (fd - g).abs() <= 2e-2 * (1.0 + g.abs()),
                        "vertex {i} axis {d}: analytic {g}, finite difference {fd} (angle {angle})"
                    );
                }
            }
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn flat_pair_has_zero_angle_and_one_bend() {
        let positions = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
        ];
        let cloth = Cloth::new(
            positions,
            vec![[0, 1, 2], [2, 1, 3]],
            &[0],
            ClothOptions::default(),
        )
        .unwrap();
        assert_eq!(cloth.edge_count(), 5);
        assert_eq!(cloth.bend_count(), 1);
        assert!(cloth.bends[0].rest.abs() < 1e-6);
        assert!(cloth.is_pinned(0) && !cloth.is_pinned(3));
    }
}
