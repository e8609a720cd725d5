//! Every input the fuzzers ever crashed on, and their seeds, replayed through the same code
//! the fuzz targets run (`tests/fuzz/harness.rs`) under plain `cargo test`, so a fixed crash
//! stays fixed without a fuzzer installed. Crash inputs live in
//! `tests/fuzz/regressions/<target>/`, seeds in `tests/fuzz/seeds/<target>/`; see
//! tests/fuzz/README.md for how they were found.

#[path = "fuzz/harness.rs"]
mod harness;

use std::path::Path;
use std::time::{Duration, Instant};

/// Longest any one input may take here (debug build). The fuzzers ran with `-timeout=10`
/// on an optimised build; an input slower than this in a test is a runaway, not a slow machine.
const BUDGET: Duration = Duration::from_secs(20);

fn replay(folder: &str) -> usize {
    let mut count = 0;
    for (target, run) in harness::TARGETS {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fuzz")
            .join(folder)
            .join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let started = Instant::now();
            run(&data);
            let took = started.elapsed();
            assert!(took < BUDGET, "{} took {took:?}", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn every_crash_the_fuzzers_found_stays_fixed() {
    replay("regressions");
}

#[test]
fn every_seed_runs_through_its_target() {
    assert!(replay("seeds") > 0, "no seed found under tests/fuzz/seeds");
}
