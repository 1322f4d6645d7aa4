//! Fuzz target: bytes → a structured API case (`rapier3d_deform_scenes::api_fuzz::ApiCase`, built with `arbitrary`) → its calls; a panic or a broken invariant is a crash.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use rapier3d_deform_scenes::api_fuzz::{ApiCase, run_case};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if let Ok(case) = ApiCase::arbitrary(&mut u)
        && let Err(violation) = run_case(&case)
    {
        panic!("{violation}\n{case:#?}");
    }
});
