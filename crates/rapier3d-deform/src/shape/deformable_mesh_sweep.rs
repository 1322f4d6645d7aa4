//! Swept contacts of a [`DeformableMeshShape`]: the pose before the last one, an O(m) bound on how far any vertex moved since, and each vertex's previous position, so that contacts find a body whose centre the surface swept past within one step.

use super::deformable_mesh_shape::DeformableMeshShape;
use crate::error::{DeformError, Result};
use crate::governor::{Affine, deform_vertex};
use crate::math::Vec3;

/// What swept contacts keep between two poses.
#[derive(Clone, Debug)]
pub(super) struct SweepState {
    /// The governors before the last pose.
    previous: Vec<Affine>,
    /// Per governor, the centre and radius of a sphere around the rest positions of the
    /// vertices it moves (radius negative for a governor that moves none).
    reach: Vec<(Vec3, f32)>,
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
    /// # Errors
    /// As [`Self::with_solid_contacts`]; [`DeformError::NotAvailable`] for a mesh with morph
    /// targets (their displacement is not part of the motion bound).
    ///
    /// # Performance
    /// O(vertices · influences) once. Every pose then costs O(m) more (the motion bound), and each contact
    /// pair with a convex shape the continuous test of the triangles within the motion bound
    /// of its centre (four cubic evaluations each for those that do not cross).
    pub fn with_swept_contacts(self) -> Result<Self> {
        if self.morph_targets().is_some() {
            return Err(DeformError::NotAvailable {
                what: "DeformableMeshShape::with_swept_contacts",
                reason: "the mesh has morph targets, whose motion the sweep does not bound",
            });
        }
        let mut shape = if self.has_solid_contacts() {
            self
        } else {
            self.with_solid_contacts()?
        };
        let (rest, weights) = (shape.tree.rest_positions(), shape.tree.weights());
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
        shape.sweep = Some(Box::new(SweepState {
            previous: shape.governors().to_vec(),
            reach,
            motion_bound: 0.0,
        }));
        Ok(shape)
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
        match &self.sweep {
            Some(s) => deform_vertex(
                self.tree.rest_positions(),
                self.tree.weights(),
                &s.previous,
                v as usize,
            ),
            None => self.vertex(v),
        }
    }

    /// Before new governors are copied in: keeps the current ones as the previous pose.
    pub(super) fn remember_pose(&mut self) {
        if let Some(mut s) = self.sweep.take() {
            s.previous.copy_from_slice(self.governors());
            self.sweep = Some(s);
        }
    }

    /// After a pose: the motion bound from the previous governors to the current ones.
    ///
    /// A vertex is `Σ_k w_k (A_k p0 + t_k)` with convex weights, so it moved by at most the
    /// largest move of `A_k p0 + t_k` over its governors, and governor `k` moves the rest
    /// points within `R_k` of `c_k` (the sphere around the vertices it moves) by at most
    /// `‖A'_k − A_k‖_F R_k + |(A'_k − A_k) c_k + t'_k − t_k|`: the bound is the largest of
    /// those.
    pub(super) fn update_motion_bound(&mut self) {
        let Some(mut s) = self.sweep.take() else {
            return;
        };
        s.motion_bound = s
            .previous
            .iter()
            .zip(self.governors())
            .zip(&s.reach)
            .filter(|(_, (_, r))| *r >= 0.0)
            .map(|((a, b), &(c, r))| {
                let d = b.linear - a.linear;
                let frobenius = (d.x_axis.length_squared()
                    + d.y_axis.length_squared()
                    + d.z_axis.length_squared())
                .sqrt();
                frobenius * r + (d * c + b.translation - a.translation).length()
            })
            .fold(0.0f32, f32::max);
        self.sweep = Some(s);
    }
}
