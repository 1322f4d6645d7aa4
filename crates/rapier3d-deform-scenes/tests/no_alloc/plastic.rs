//! Contract: once a crash's contacts have formed and its dents are made, the crate's share of a step allocates nothing: every `DeformDispatcher` query of Rapier's step (counted through a wrapper installed as the narrow phase's first dispatcher) and the plasticity pipeline's update, whose only allocations are those Rapier's API makes for the mass writes (`Collider::set_mass_properties` boxes the `MassProperties`, and the first body modified in a step regrows Rapier's modified-bodies list, which it takes every step).

use crate::counted_dispatcher::{self, Counted};
use crate::counting_alloc;

use std::sync::Arc;

use rapier3d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier3d::prelude::NarrowPhase;
use rapier3d_deform::crash::DeformableCollider;
use rapier3d_deform_scenes::crash::{self, CarCollider, CrashOptions, build_crash};

#[test]
fn crash_steps_do_not_allocate_once_contacts_and_dents_have_formed() {
    counted_dispatcher::on_one_thread(|| {
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
            counted_dispatcher::reset();
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
                dispatcher_allocs += counted_dispatcher::allocations();
                let rapier = writes + usize::from(writes > 0);
                rapier_mass_allocs += rapier;
                pipeline_allocs += pipeline as isize - rapier as isize;
                mass_writes += writes;
            }
        }
        assert!(last_dent > 0.05, "the cars did not dent: {last_dent} m");
        assert!(dent_steps >= 3, "dented in only {dent_steps} steps");
        assert!(
            counted_dispatcher::handled() > 0,
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
    });
}
