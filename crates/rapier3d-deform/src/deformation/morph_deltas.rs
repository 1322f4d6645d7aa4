//! Morph targets applied before a governed deformation (glTF order: morph, then skin), each mesh part with its own targets over a contiguous vertex range.

use crate::deformation::check_target_weights;
use crate::error::{DeformError, Result};
use crate::math::{Vec3, validate_positions};

/// The morph targets of one contiguous range of vertices (one mesh part).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphGroup {
    first_vertex: u32,
    vertex_count: u32,
    first_weight: u32,
    /// One delta per vertex of the range, per target.
    targets: Vec<Vec<Vec3>>,
}

impl MorphGroup {
    /// The first vertex of the range.
    pub fn first_vertex(&self) -> usize {
        self.first_vertex as usize
    }

    /// Vertices in the range.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count as usize
    }

    /// The index of this group's first target in [`MorphDeltas::weights`].
    pub fn first_weight(&self) -> usize {
        self.first_weight as usize
    }

    /// The position deltas of each target (one per vertex of the range).
    pub fn targets(&self) -> &[Vec<Vec3>] {
        &self.targets
    }
}

/// Morph targets laid over a mesh made of parts: vertex `v` of a part with targets `Δ_i` is
/// displaced to `p0[v] + Σ_i m_i Δ_i[v]` *before* the governed deformation (glTF 2.0 §3.7.2.2
/// "Morph Targets", then §3.7.3 "Skins": the morphed position is what the skin transforms).
/// Vertices outside every group are not displaced. The weights `m` are global, one per target
/// of every group, in group order; like glTF they may be any finite number.
///
/// [`crate::shape::DeformableMeshShape::with_morph_targets`] bounds a shape that carries them;
/// its node boxes cover the displacement for the current weights in O(targets + governors) per
/// node.
///
/// # Performance
/// Memory O(Σ group vertices · group targets); [`Self::displace`] is O(targets of the vertex's
/// group); setting weights O(targets).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MorphDeltas {
    vertex_count: usize,
    groups: Vec<MorphGroup>,
    /// Per vertex its group, or `u32::MAX`.
    group_of: Vec<u32>,
    weights: Vec<f32>,
}

impl MorphDeltas {
    /// Morph targets over a mesh of `vertex_count` vertices, with no group yet.
    ///
    /// # Performance
    /// O(vertex_count).
    pub fn new(vertex_count: usize) -> Self {
        Self {
            vertex_count,
            groups: Vec::new(),
            group_of: vec![u32::MAX; vertex_count],
            weights: Vec::new(),
        }
    }

    /// Adds the targets of vertices `first_vertex..first_vertex + n` (`n` = the length of every
    /// target); their weights start at 0. Returns the index of the group's first weight.
    ///
    /// # Errors
    /// [`DeformError::Empty`] without targets or with empty targets;
    /// [`DeformError::LengthMismatch`] when targets differ in length;
    /// [`DeformError::IndexOutOfRange`] (`what` = `"morph group vertex"`) when the range passes
    /// the mesh or overlaps an earlier group; [`DeformError::NonFinitePosition`]
    /// (`"target delta"`). Nothing changes on error.
    ///
    /// # Performance
    /// O(n · targets).
    pub fn add_group(&mut self, first_vertex: usize, targets: Vec<Vec<Vec3>>) -> Result<usize> {
        let n = match targets.first() {
            Some(t) if !t.is_empty() => t.len(),
            _ => {
                return Err(DeformError::Empty {
                    what: "morph targets",
                });
            }
        };
        for t in &targets {
            if t.len() != n {
                return Err(DeformError::LengthMismatch {
                    what: "deltas of a morph target",
                    expected: n,
                    actual: t.len(),
                });
            }
            validate_positions("target delta", t)?;
        }
        let end = first_vertex.saturating_add(n);
        if end > self.vertex_count {
            return Err(DeformError::IndexOutOfRange {
                what: "morph group vertex",
                index: end - 1,
                len: self.vertex_count,
            });
        }
        if let Some(v) = (first_vertex..end).find(|&v| self.group_of[v] != u32::MAX) {
            return Err(DeformError::IndexOutOfRange {
                what: "morph group vertex (already in a group)",
                index: v,
                len: self.vertex_count,
            });
        }
        let g = self.groups.len() as u32;
        self.group_of[first_vertex..end].fill(g);
        let first_weight = self.weights.len();
        self.weights.resize(first_weight + targets.len(), 0.0);
        self.groups.push(MorphGroup {
            first_vertex: first_vertex as u32,
            vertex_count: n as u32,
            first_weight: first_weight as u32,
            targets,
        });
        Ok(first_weight)
    }

    /// Vertices of the mesh.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Targets over all groups (the length of [`Self::weights`]).
    pub fn target_count(&self) -> usize {
        self.weights.len()
    }

    /// The groups, in the order they were added.
    pub fn groups(&self) -> &[MorphGroup] {
        &self.groups
    }

    /// The group holding vertex `v`, if any.
    pub fn group_of(&self, v: usize) -> Option<&MorphGroup> {
        self.group_of
            .get(v)
            .and_then(|&g| self.groups.get(g as usize))
    }

    /// Current weights (one per target, groups in order).
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Sets every weight (any finite values).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`], [`DeformError::InvalidGlobalWeight`]; nothing changes on
    /// error.
    ///
    /// # Performance
    /// O(targets).
    pub fn set_weights(&mut self, weights: &[f32]) -> Result<()> {
        check_target_weights(weights, self.weights.len())?;
        self.weights.copy_from_slice(weights);
        Ok(())
    }

    /// `p0 + Σ_i m_i Δ_i[v]` for vertex `v` with rest position `p0`, accumulated in f32 in target
    /// order from `p0` (targets of weight 0 skipped), as [`crate::deformation::MorphTargets`]
    /// evaluates it.
    ///
    /// # Performance
    /// O(targets of `v`'s group).
    #[inline]
    pub fn displace(&self, v: usize, p0: Vec3) -> Vec3 {
        Self::displace_with(self, &self.weights, v, p0)
    }

    /// [`Self::displace`] with other weights (one per target; missing weights count as 0).
    ///
    /// # Performance
    /// O(targets of `v`'s group).
    #[inline]
    pub fn displace_with(&self, weights: &[f32], v: usize, p0: Vec3) -> Vec3 {
        let Some(g) = self.group_of(v) else {
            return p0;
        };
        let local = v - g.first_vertex as usize;
        let mut p = p0;
        for (i, t) in g.targets.iter().enumerate() {
            let w = weights
                .get(g.first_weight as usize + i)
                .copied()
                .unwrap_or(0.0);
            if w != 0.0 {
                p += w * t[local];
            }
        }
        p
    }

    /// Every rest position displaced ([`Self::displace`]) into `out`.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `rest` has not one position per vertex.
    ///
    /// # Performance
    /// O(vertices + Σ group vertices · targets).
    pub fn morph_into(&self, rest: &[Vec3], out: &mut Vec<Vec3>) -> Result<()> {
        if rest.len() != self.vertex_count {
            return Err(DeformError::LengthMismatch {
                what: "rest positions",
                expected: self.vertex_count,
                actual: rest.len(),
            });
        }
        out.clear();
        out.extend(rest.iter().enumerate().map(|(v, &p)| self.displace(v, p)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_displace_only_their_range_and_reject_overlaps() {
        let mut m = MorphDeltas::new(5);
        let w0 = m
            .add_group(1, vec![vec![Vec3::X; 2], vec![Vec3::Y; 2]])
            .unwrap();
        assert_eq!(w0, 0);
        assert_eq!(m.add_group(3, vec![vec![Vec3::Z; 2]]).unwrap(), 2);
        m.set_weights(&[2.0, -1.0, 0.5]).unwrap();
        let rest = [Vec3::ZERO; 5];
        let mut out = Vec::new();
        m.morph_into(&rest, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                Vec3::ZERO,
                Vec3::new(2.0, -1.0, 0.0),
                Vec3::new(2.0, -1.0, 0.0),
                Vec3::new(0.0, 0.0, 0.5),
                Vec3::new(0.0, 0.0, 0.5)
            ]
        );
        assert!(matches!(
            m.add_group(4, vec![vec![Vec3::X; 1]]),
            Err(DeformError::IndexOutOfRange { index: 4, .. })
        ));
        assert!(matches!(
            m.add_group(0, vec![vec![Vec3::X; 6]]),
            Err(DeformError::IndexOutOfRange {
                index: 5,
                len: 5,
                ..
            })
        ));
        assert!(matches!(
            m.add_group(0, vec![vec![Vec3::X; 1], vec![Vec3::X; 2]]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(matches!(
            m.set_weights(&[1.0]),
            Err(DeformError::LengthMismatch { .. })
        ));
        assert!(m.set_weights(&[1.0, f32::NAN, 0.0]).is_err());
        assert_eq!(m.weights(), &[2.0, -1.0, 0.5], "unchanged on error");
    }
}
