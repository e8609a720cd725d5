//! Issue 35's firewall "done when", end to end over real SSH on loopback: `premarket demo` and
//! `premarket demo --fleet mixed` are free of FAIL and ERROR; after such a run `--scenario
//! fw-port-errors` FAILs `fortigate.ports.errors` alone, naming the port and its counters, and
//! on the mixed fleet `--scenario np-cross-chip` FAILs `fortigate.offload.blockers` alone on the
//! 200E, naming both ports and both chips.

use crate::demo_market::{demo_with as demo, faulty_run, starting};

/// A healthy run (no FAIL, no ERROR), then the fault: exactly one FAIL, `check` on `device`,
/// its line holding every one of `words`.
fn healthy_then_fault(fleet: &[&str], scenario: &str, fail: &str, words: &[&str]) {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, lines) = demo(fleet, home.path());
    let report = lines.join("\n");
    assert_eq!(code, 0, "healthy {fleet:?}:\n{report}");
    assert!(
        starting(&lines, "FAIL").is_empty() && starting(&lines, "ERROR").is_empty(),
        "healthy {fleet:?}:\n{report}"
    );
    let mut args = fleet.to_vec();
    args.extend(["--scenario", scenario]);
    let (fails, report) = faulty_run(&args, home.path());
    assert_eq!(fails.len(), 1, "{scenario}:\n{report}");
    assert!(
        fails[0].starts_with(&format!("FAIL {fail} ")),
        "{}",
        fails[0]
    );
    for w in words {
        assert!(
            fails[0].contains(w),
            "{scenario}: {:?} lacks {w:?}",
            fails[0]
        );
    }
}

#[test]
fn fw_port_errors_fails_ports_errors_naming_the_port_and_counters() {
    healthy_then_fault(
        &[],
        "fw-port-errors",
        "fw1 fortigate.ports.errors",
        &[
            "x1: +",
            " Rx Crc err, +",
            " Rx errors since the previous run",
        ],
    );
}

#[test]
fn np_cross_chip_fails_offload_blockers_on_the_200e_naming_ports_and_chips() {
    healthy_then_fault(
        &["--fleet", "mixed"],
        "np-cross-chip",
        "fw5 fortigate.offload.blockers",
        &[
            "NP chips: md-unicast, md-multicast enter on x1 (np6lite_1) and leave on x2 (np6lite_0)",
            "this FortiGate-200E does not offload between NP chips",
        ],
    );
}
