//! Swept contacts of a [`DeformableMeshShape`]: the pose before the last one, an O(m) bound on how far any vertex moved since, and each vertex's previous position, so that contacts find a body whose centre the surface swept past within one step.

use super::deformable_mesh_shape::DeformableMeshShape;
use crate::error::Result;
use crate::governor::{Affine, deform_vertex};
use crate::math::{Vec3, frobenius};

/// What swept contacts keep between two poses.
#[derive(Clone, Debug)]
pub(super) struct SweepState {
    /// The governors before the last pose.
    previous: Vec<Affine>,
    /// The morph weights before the last pose (empty without morph targets).
    previous_morph: Vec<f32>,
    /// Per governor, the centre and radius of a sphere around the rest positions of the
    /// vertices it moves (radius negative for a governor that moves none).
    reach: Vec<(Vec3, f32)>,
    /// Per governor and morph target (`targets` entries per governor): the longest delta of
    /// the target among the vertices the governor moves (empty without morph targets).
    target_reach: Vec<f32>,
    /// No vertex moved farther than this from the previous pose to the current one.
    motion_bound: f32,
}

impl DeformableMeshShape {
    /// Contacts with convex shapes also follow the surface's motion between the last two poses
    /// (on top of [`Self::with_solid_contacts`], which this enables): a convex body whose
    /// centre the surface swept past during the step is pushed back out on the side it was
    /// met from, by a contact on the triangle that swept over it, until its centre is in front
    /// of that triangle again; the usual contacts would push it on through a thin limb as soon
    /// as its centre is nearer the far side. So a limb moving up to a ball's radius plus its
    /// own thickness per step no longer passes through the ball.
    ///
    /// The motion is each vertex's straight line from the previous pose to the current one
    /// (the poses are those of [`Self::set_governors`] / [`Self::set_pose`]: pose once per
    /// step); the other body's centre is taken as still during the step (Rapier's CCD handles
    /// the bodies' rigid motion). A pair remembers its entry triangle in its manifold list
    /// ([`crate::query::DeformDispatcher`]).
    ///
    /// With morph targets ([`Self::with_morph_targets`], before or after this call) a vertex
    /// moves with the morph weights too: its straight line runs from its previous morphed and
    /// posed position to the current one, and the motion bound covers the change of weights.
    ///
    /// # Errors
    /// As [`Self::with_solid_contacts`].
    ///
    /// # Performance
    /// O(vertices · (influences + influences · morph targets)) once. Every pose then costs
    /// O(m · (1 + morph targets)) more (the motion bound), and each contact pair with a convex
    /// shape the continuous test of the triangles within the motion bound of its centre (four
    /// cubic evaluations each for those that do not cross).
    pub fn with_swept_contacts(self) -> Result<Self> {
        let mut shape = if self.has_solid_contacts() {
            self
        } else {
            self.with_solid_contacts()?
        };
        shape.sweep = Some(Box::new(shape.new_sweep_state()));
        Ok(shape)
    }

    /// The sweep state of the current pose (no motion yet): the spheres around each governor's
    /// rest vertices and, with morph targets, each target's longest delta per governor.
    pub(super) fn new_sweep_state(&self) -> SweepState {
        let (rest, weights) = (self.tree.rest_positions(), self.tree.weights());
        let m = weights.governor_count();
        let mut boxes = vec![(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)); m];
        for (v, p) in rest.iter().enumerate() {
            for (g, _) in weights.iter_row(v) {
                let b = &mut boxes[g as usize];
                *b = (b.0.min(*p), b.1.max(*p));
            }
        }
        let mut reach: Vec<(Vec3, f32)> = boxes
            .iter()
            .map(|(lo, hi)| ((*lo + *hi) * 0.5, -1.0))
            .collect();
        for (v, p) in rest.iter().enumerate() {
            for (g, _) in weights.iter_row(v) {
                let r = &mut reach[g as usize];
                r.1 = r.1.max((*p - r.0).length());
            }
        }
        let targets = self.morph_weights().len();
        let mut target_reach = vec![0.0f32; m * targets];
        if let Some(morph) = self.morph_targets() {
            for group in morph.groups() {
                for (j, deltas) in group.targets().iter().enumerate() {
                    let target = group.first_weight() + j;
                    for (local, d) in deltas.iter().enumerate() {
                        let v = group.first_vertex() + local;
                        for (g, _) in weights.iter_row(v) {
                            let r = &mut target_reach[g as usize * targets + target];
                            *r = r.max(d.length());
                        }
                    }
                }
            }
        }
        SweepState {
            previous: self.governors().to_vec(),
            previous_morph: self.morph_weights().to_vec(),
            reach,
            target_reach,
            motion_bound: 0.0,
        }
    }

    /// Whether contacts follow the surface's motion ([`Self::with_swept_contacts`]).
    pub fn has_swept_contacts(&self) -> bool {
        self.sweep.is_some()
    }

    /// A bound on how far any vertex moved from the previous pose to the current one (`None`
    /// without swept contacts).
    ///
    /// # Performance
    /// O(1) (computed with each pose).
    pub fn swept_motion_bound(&self) -> Option<f32> {
        self.sweep.as_ref().map(|s| s.motion_bound)
    }

    /// The position of vertex `v` in the previous pose (the current one without swept
    /// contacts).
    ///
    /// # Panics
    /// If `v` is out of range.
    ///
    /// # Performance
    /// O(influences of `v`); not cached.
    pub fn previous_vertex(&self, v: u32) -> Vec3 {
        let (Some(s), v) = (&self.sweep, v as usize) else {
            return self.vertex(v);
        };
        match self.morph_targets() {
            None => deform_vertex(
                self.tree.rest_positions(),
                self.tree.weights(),
                &s.previous,
                v,
            ),
            Some(morph) => self.morphed_vertex_with(morph, &s.previous, &s.previous_morph, v),
        }
    }

    /// Before new governors are copied in: keeps the current ones as the previous pose.
    pub(super) fn remember_pose(&mut self) {
        if let Some(mut s) = self.sweep.take() {
            s.previous.copy_from_slice(self.governors());
            s.previous_morph.copy_from_slice(self.morph_weights());
            self.sweep = Some(s);
        }
    }

    /// After a pose: the motion bound from the previous governors and morph weights to the
    /// current ones.
    ///
    /// A vertex is `Σ_k w_k (A_k q + t_k)` with convex weights, `q = p0 + Σ_j μ_j Δ_j` its
    /// morphed rest position, so it moved by
    /// `|Σ_k w_k ((A'_k − A_k) q + t'_k − t_k + A'_k (q' − q))|`, at most the largest term over
    /// its governors. Governor `k` moves rest points within `R_k` of `c_k` (the sphere around
    /// the vertices it moves); their morphed positions lie within `R_k + Σ_j |μ_j| D_kj` of it
    /// and move by at most `Σ_j |μ'_j − μ_j| D_kj` (`D_kj` the longest delta of target `j`
    /// among them). So the term of `k` is at most
    /// `‖A'_k − A_k‖_F (R_k + Σ_j |μ_j| D_kj) + |(A'_k − A_k) c_k + t'_k − t_k|
    ///  + ‖A'_k‖_F Σ_j |μ'_j − μ_j| D_kj`, and the bound is the largest of those.
    pub(super) fn update_motion_bound(&mut self) {
        let Some(mut s) = self.sweep.take() else {
            return;
        };
        let (current, morph) = (self.governors(), self.morph_weights());
        let targets = morph.len();
        let mut bound = 0.0f32;
        for (k, ((a, b), &(c, r))) in s.previous.iter().zip(current).zip(&s.reach).enumerate() {
            if r < 0.0 {
                continue;
            }
            let (mut radius, mut morph_motion) = (r, 0.0f32);
            if targets > 0 {
                let reach = &s.target_reach[k * targets..(k + 1) * targets];
                for ((d, before), now) in reach.iter().zip(&s.previous_morph).zip(morph) {
                    radius += before.abs() * d;
                    morph_motion += (now - before).abs() * d;
                }
            }
            let change = b.linear - a.linear;
            bound = bound.max(
                frobenius(&change) * radius
                    + (change * c + b.translation - a.translation).length()
                    + frobenius(&b.linear) * morph_motion,
            );
        }
        s.motion_bound = bound;
        self.sweep = Some(s);
    }
}
