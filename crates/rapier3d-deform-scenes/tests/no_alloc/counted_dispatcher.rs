//! `DeformDispatcher` wrapped to count the allocations made inside its calls on the test's thread, and those beyond the growth of the pairs' manifold lists.

use crate::counting_alloc;

use std::cell::Cell;

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, NonlinearRigidMotion,
    PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit, ShapeCastOptions, ShapeDistance,
    ShapeIntersection, Unsupported,
};
use rapier3d::parry::shape::Shape;
use rapier3d_deform::query::DeformDispatcher;

thread_local! {
    /// Allocations made inside `DeformDispatcher` calls on this thread.
    static IN_DISPATCHER: Cell<usize> = const { Cell::new(0) };
    /// Of those, the allocations made by `contact_manifolds` calls beyond growing the pair's
    /// manifold list or giving a manifold its first point storage.
    static BEYOND_GROWTH: Cell<usize> = const { Cell::new(0) };
    /// The longest incoming manifold list whose call grew the key index on this thread.
    static LONGEST_INDEXED: Cell<usize> = const { Cell::new(0) };
    /// `DeformDispatcher` calls that handled their pair.
    static HANDLED: Cell<usize> = const { Cell::new(0) };
}

/// `DeformDispatcher`, counting the allocations made inside its calls (install it first in
/// the narrow phase's chain).
pub struct Counted;

/// Zeroes the allocation counters of this thread (the handled-call count keeps running).
pub fn reset() {
    IN_DISPATCHER.with(|c| c.set(0));
    BEYOND_GROWTH.with(|c| c.set(0));
}

/// Allocations inside `DeformDispatcher` calls on this thread since [`reset`].
pub fn allocations() -> usize {
    IN_DISPATCHER.with(Cell::get)
}

/// Allocations since [`reset`] inside `contact_manifolds` calls beyond growth: of a pair's
/// manifold list past its largest capacity so far (one per doubling), of manifolds given their
/// first point storage (one each), and of the thread's key index when a list longer than any
/// indexed before is indexed (one).
pub fn allocations_beyond_growth() -> usize {
    BEYOND_GROWTH.with(Cell::get)
}

/// Manifolds of a list that hold point storage.
fn with_point_storage<M, C>(manifolds: &[ContactManifold<M, C>]) -> usize {
    manifolds.iter().filter(|m| m.points.capacity() > 0).count()
}

/// Allocations a `Vec` makes when pushes grow its capacity from `from` to `to` (the first to
/// four elements, then doubling).
fn list_growth_allocations(from: usize, to: usize) -> usize {
    let (mut capacity, mut n) = (from, 0);
    while capacity < to {
        capacity = if capacity == 0 { 4 } else { 2 * capacity };
        n += 1;
    }
    n
}

/// `DeformDispatcher` calls on this thread that handled their pair.
pub fn handled() -> usize {
    HANDLED.with(Cell::get)
}

fn counted<T>(f: impl FnOnce() -> Result<T, Unsupported>) -> Result<T, Unsupported> {
    let before = counting_alloc::allocations();
    let r = f();
    let n = counting_alloc::allocations() - before;
    IN_DISPATCHER.with(|c| c.set(c.get() + n));
    if r.is_ok() {
        HANDLED.with(|c| c.set(c.get() + 1));
    }
    r
}

impl QueryDispatcher for Counted {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        counted(|| DeformDispatcher.intersection_test(pos12, g1, g2))
    }

    fn distance(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeDistance, Unsupported> {
        counted(|| DeformDispatcher.distance(pos12, g1, g2))
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
    ) -> Result<Option<Contact>, Unsupported> {
        counted(|| DeformDispatcher.contact(pos12, g1, g2, prediction))
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: Real,
    ) -> Result<ClosestPoints, Unsupported> {
        counted(|| DeformDispatcher.closest_points(pos12, g1, g2, max_dist))
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        counted(|| DeformDispatcher.cast_shapes(pos12, local_vel12, g1, g2, options))
    }

    fn cast_shapes_nonlinear(
        &self,
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: Real,
        end_time: Real,
        stop_at_penetration: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        counted(|| {
            DeformDispatcher.cast_shapes_nonlinear(
                motion1,
                g1,
                motion2,
                g2,
                start_time,
                end_time,
                stop_at_penetration,
            )
        })
    }
}

impl<M, C> PersistentQueryDispatcher<M, C> for Counted
where
    M: Default + Clone + Send + Sync,
    C: Default + Copy + Send + Sync,
{
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
        manifolds: &mut Vec<ContactManifold<M, C>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        let (capacity, holding) = (manifolds.capacity(), with_point_storage(manifolds));
        let incoming = manifolds.len();
        let before = allocations();
        let r = counted(|| {
            DeformDispatcher.contact_manifolds(pos12, g1, g2, prediction, manifolds, workspace)
        });
        let growth = list_growth_allocations(capacity, manifolds.capacity())
            + with_point_storage(manifolds).saturating_sub(holding);
        let mut beyond = (allocations() - before).saturating_sub(growth);
        // The per-thread buffer that indexes a list's keys (built only when a pair is not found
        // near its slot) grows with the longest list indexed: one allocation is the index's
        // when the list is longer than any whose call grew it before.
        if beyond > 0 {
            LONGEST_INDEXED.with(|l| {
                if incoming > l.get() {
                    l.set(incoming);
                    beyond -= 1;
                }
            });
        }
        BEYOND_GROWTH.with(|c| c.set(c.get() + beyond));
        r
    }

    fn contact_manifold_convex_convex(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        normal_constraints1: Option<&dyn NormalConstraints>,
        normal_constraints2: Option<&dyn NormalConstraints>,
        prediction: Real,
        manifold: &mut ContactManifold<M, C>,
    ) -> Result<(), Unsupported> {
        PersistentQueryDispatcher::<M, C>::contact_manifold_convex_convex(
            &DeformDispatcher,
            pos12,
            g1,
            g2,
            normal_constraints1,
            normal_constraints2,
            prediction,
            manifold,
        )
    }
}

/// Runs `f` where Rapier's parallel narrow phase (feature `parallel`) stays on one thread, so
/// that the per-thread counts see every dispatcher call: inside a one-thread rayon pool, whose
/// parallel iterators run on the calling worker; without the feature, on this thread.
pub fn on_one_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool")
            .install(f)
    }
    #[cfg(not(feature = "parallel"))]
    {
        f()
    }
}
