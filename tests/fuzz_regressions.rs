//! Every input the fuzzers ever crashed on, and their seeds, replayed through the same code
//! the fuzz targets run (`tests/fuzz/harness.rs`) under plain `cargo test`, so a fixed crash
//! stays fixed without a fuzzer installed. Crash inputs live in
//! `tests/fuzz/regressions/<target>/`, seeds in `tests/fuzz/seeds/<target>/`; see
//! tests/fuzz/README.md for how they were found.

use crate::harness;

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

/// Hostile configurations made by hand beside the fuzzer (too big for it to build by mutation):
/// deep nesting, an alias bomb and a huge file must each be a configuration error at a
/// `file:line:column`, in bounded time, never a stack overflow. The first byte picks the file, as for the target.
#[test]
fn hostile_configurations_load_in_bounded_time() {
    let mut laughs = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (prev, name) in "abcdefghi".chars().zip("bcdefghij".chars()) {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        laughs.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let cases: Vec<(&str, u8, String)> = vec![
        ("100,000 nested flow sequences", 0, "[".repeat(100_000)),
        (
            "50,000 nested flow mappings under expect:",
            1,
            format!("platform: eos\nexpect: {}", "{a: ".repeat(50_000)),
        ),
        (
            "1,000-deep block sequence",
            2,
            (0..1_000)
                .map(|i| format!("{}- \n", " ".repeat(i)))
                .collect(),
        ),
        (
            "alias bomb as a device's expect:",
            1,
            format!(
                "platform: fortigate\n{}expect: *j\n",
                laughs.replacen("a: &a", "x: &a", 1)
            ),
        ),
        (
            "10 MB comment in a catalog file",
            3,
            format!("# {}\n", "x".repeat(10_000_000)),
        ),
    ];
    for (what, pick, body) in cases {
        let mut data = vec![pick];
        data.extend_from_slice(body.as_bytes());
        let started = Instant::now();
        let outcome = harness::config_outcome(&data).expect("a temporary directory");
        let took = started.elapsed();
        assert!(took < BUDGET, "{what} took {took:?}");
        // Each is refused with a position (the depth and node budgets of the YAML reader, or
        // the checks left without a catalog), not taken as a configuration.
        assert!(outcome.contains(".yaml:"), "{what}: {outcome}");
    }
}
