//! Fuzz target: every FortiOS parser (the command on the first line, or picked by the first byte), then the FortiOS redaction.
//! What it does with an input lives in `tests/fuzz/harness.rs`, shared with the regression test.
#![no_main]

#[path = "../harness.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::fortios(data));
