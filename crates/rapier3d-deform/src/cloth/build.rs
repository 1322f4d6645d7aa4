//! Building a cloth: validated options, rest mesh, pinned vertices, lumped masses, stretch edges and bending links.

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
    /// XPBD compliance of the bending links (m/N); larger bends more easily.
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
            bend_compliance: 1.0,
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

/// A bending link across an interior edge: the two vertices opposite the edge and their rest
/// distance.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Bend {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) rest: f32,
}

/// A triangle-mesh cloth simulated with XPBD (Macklin et al. 2016; "small steps", Macklin et
/// al. 2019): edge-length constraints (stretch), bending links (the distance between the two
/// vertices opposite each interior edge, Provot 1995), velocity damping, substeps and pinned
/// vertices moved to targets.
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

    /// Bending links (one per interior edge between two triangles).
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

/// Unique edges with rest lengths, and one bending link per edge shared by exactly two
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
            let (c, d) = (half[i].2, half[i + 1].2);
            bends.push(Bend {
                a: c,
                b: d,
                rest: (positions[c as usize] - positions[d as usize]).length(),
            });
        }
        i = j;
    }
    (edges, bends)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quad_has_five_edges_and_one_bending_link() {
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
        assert!((cloth.bends[0].rest - 2f32.sqrt()).abs() < 1e-6);
        assert!(cloth.is_pinned(0) && !cloth.is_pinned(3));
    }
}
