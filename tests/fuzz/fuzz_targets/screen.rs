//! Fuzz target: the SSH screen/pager reader: no panic, and the same text, pager prompts and prompt whatever the packet size.
//! What it does with an input lives in `tests/fuzz/harness.rs`, shared with the regression test.
#![no_main]

#[path = "../harness.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::screen(data));
