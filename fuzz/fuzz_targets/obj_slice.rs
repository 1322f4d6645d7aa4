//! Fuzz target: arbitrary bytes → `load_obj_slice` with exact and tolerant welding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rapier3d_deform::io::{LoadOptions, load_obj_slice};

fuzz_target!(|data: &[u8]| {
    let _ = load_obj_slice(data, &LoadOptions::default());
    let exact = LoadOptions {
        weld_tolerance: 0.0,
        ..LoadOptions::default()
    };
    let _ = load_obj_slice(data, &exact);
});
