//! Contract: once a crash's contacts have formed and its dents are made, the crate's share of a step allocates nothing: every `DeformDispatcher` query of Rapier's step (counted through a wrapper installed as the narrow phase's first dispatcher) and the plasticity pipeline's update, whose only allocations are those Rapier's API makes for the mass writes (`Collider::set_mass_properties` boxes the `MassProperties`, and the first body modified in a step regrows Rapier's modified-bodies list, which it takes every step).

use crate::counting_alloc;

use std::cell::Cell;
use std::sync::Arc;

use rapier3d::math::{Pose, Real, Vector};
use rapier3d::parry::query::details::NormalConstraints;
use rapier3d::parry::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher,
    NonlinearRigidMotion, PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit,
    ShapeCastOptions, ShapeDistance, ShapeIntersection, Unsupported,
};
use rapier3d::parry::shape::Shape;
use rapier3d::prelude::NarrowPhase;
use rapier3d_deform::crash::DeformableCollider;
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform_scenes::crash::{self, CarCollider, CrashOptions, build_crash};

thread_local! {
    /// Allocations made inside `DeformDispatcher` calls on this thread.
    static IN_DISPATCHER: Cell<usize> = const { Cell::new(0) };
    /// `DeformDispatcher` calls that handled their pair.
    static HANDLED: Cell<usize> = const { Cell::new(0) };
}

/// `DeformDispatcher`, counting the allocations made inside its calls.
struct Counted;

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
        counted(|| {
            DeformDispatcher.contact_manifolds(pos12, g1, g2, prediction, manifolds, workspace)
        })
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

#[test]
fn crash_steps_do_not_allocate_once_contacts_and_dents_have_formed() {
    let asset = Arc::new(crash::car_asset("low", None, &mut |_| {}).unwrap());
    // Two cars crash head-on after a 3 m run-up (step 21 at 240 Hz) and dent for a few steps;
    // their centres of mass then catch up with the dents over many steps (a mass write each),
    // while the cars stay pressed together on the ground. Rapier's CCD stays on.
    let options = CrashOptions {
        barrels: false,
        cars: 2,
        run_up: 3.0,
        ..CrashOptions::default()
    };
    let mut scene = build_crash(
        &asset,
        None,
        &CarCollider::Deformable(DeformableCollider::SphereProxy),
        &options,
    )
    .unwrap();
    scene.world.narrow_phase =
        NarrowPhase::with_query_dispatcher(Counted.chain(DefaultQueryDispatcher));
    let cars = scene.cars.clone();
    let (mut dispatcher_allocs, mut pipeline_allocs, mut mass_writes) = (0, 0isize, 0);
    let mut rapier_mass_allocs = 0;
    let mut dent_steps = 0;
    let mut last_dent = 0.0f32;
    for step in 0..80 {
        IN_DISPATCHER.with(|c| c.set(0));
        scene.world.step();
        let before = counting_alloc::allocations();
        scene.pipeline.update(&mut scene.world).unwrap();
        let pipeline = counting_alloc::allocations() - before;
        let writes = scene.pipeline.stats().mass_writes;
        let dent = scene.dent_depth(&cars[0]).unwrap();
        if dent > last_dent {
            dent_steps += 1;
        }
        last_dent = dent;
        // Warm-up: the run-up and the crash (new manifolds and their point lists, the
        // pipeline's buffers grown to the dent).
        if step >= 30 {
            dispatcher_allocs += IN_DISPATCHER.with(Cell::get);
            let rapier = writes + usize::from(writes > 0);
            rapier_mass_allocs += rapier;
            pipeline_allocs += pipeline as isize - rapier as isize;
            mass_writes += writes;
        }
    }
    assert!(last_dent > 0.05, "the cars did not dent: {last_dent} m");
    assert!(dent_steps >= 3, "dented in only {dent_steps} steps");
    assert!(
        HANDLED.with(Cell::get) > 0,
        "the dispatcher handled no pair"
    );
    assert!(mass_writes > 0, "no mass write after the crash");
    assert_eq!(
        dispatcher_allocs, 0,
        "DeformDispatcher allocated {dispatcher_allocs} times after warm-up"
    );
    assert_eq!(
        pipeline_allocs, 0,
        "the pipeline update allocated {pipeline_allocs} times after warm-up beyond the {rapier_mass_allocs} of Rapier's mass API ({mass_writes} mass writes)"
    );
}
