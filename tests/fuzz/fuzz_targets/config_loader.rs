//! Fuzz target: the configuration loader: one file of the example configuration replaced, then load + plan as `premarket validate` does.
//! What it does with an input lives in `tests/fuzz/harness.rs`, shared with the regression test.
#![no_main]

#[path = "../harness.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::config(data));
