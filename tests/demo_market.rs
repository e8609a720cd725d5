//! Issue 19's "done when", end to end over real SSH on loopback: `premarket demo` after a
//! healthy run FAILs exactly the named check for each market-data fault, the FAIL line naming
//! the fault (the clock class, the stalled group, the NTP offset, the pause frames), and the
//! healthy demo is all OK.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;

/// The binary under test: `PREMARKET_BIN` when set, else cargo's.
fn bin() -> std::path::PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

/// (scenario, the FAIL lines' `device check`, words every such FAIL line must hold).
const FAULTS: &[(&str, &[&str], &str)] = &[
    (
        "ptp-holdover",
        &["sw1 eos.ptp.synchronised"],
        "grandmaster 0xec:46:70:ff:fe:00:ff:a8 in holdover (clock class 7)",
    ),
    // The stalled side's route forwards nothing either (its counter holds still).
    (
        "feed-stalled",
        &["sw1 eos.multicast.flowing", "sw1 eos.multicast.routes"],
        "239.2.1.1",
    ),
    (
        "ntp-offset",
        &["fw1 fortigate.ntp.synchronised", "sw1 eos.ntp.synchronised"],
        "ms from 10.0.0.1, beyond ±100 ms",
    ),
    (
        "pause-frames",
        &["sw1 eos.interfaces.errors"],
        "Ethernet4: +1840 pause frames received since the previous run",
    ),
];

/// The demo's exit code and its text report's lines.
fn demo(scenario: &str, home: &Path) -> (i32, Vec<String>) {
    demo_with(&["--scenario", scenario], home)
}

/// The same with any `demo` arguments (`--fleet mixed`, several scenarios).
pub(crate) fn demo_with(args: &[&str], home: &Path) -> (i32, Vec<String>) {
    let out = Command::new(bin())
        .arg("demo")
        .args(args)
        .arg("--home")
        .arg(home)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    (
        out.status.code().unwrap_or(-1),
        text.lines().map(str::to_string).collect(),
    )
}

/// The report's lines of one status (`FAIL`).
pub(crate) fn starting<'a>(lines: &'a [String], word: &str) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|l| l.starts_with(&format!("{word} ")))
        .collect()
}

/// A faulty run (`args` name the scenario): exit 1 and no ERROR; its FAIL lines, and the whole
/// report for the messages.
pub(crate) fn faulty_run(args: &[&str], home: &Path) -> (Vec<String>, String) {
    let (code, lines) = demo_with(args, home);
    let report = lines.join("\n");
    assert_eq!(code, 1, "{args:?}:\n{report}");
    assert!(starting(&lines, "ERROR").is_empty(), "{args:?}:\n{report}");
    let fails = starting(&lines, "FAIL").into_iter().cloned().collect();
    (fails, report)
}

#[test]
fn each_market_data_fault_fails_its_check_naming_the_fault_and_healthy_is_all_ok() {
    each_fault_fails_exactly(FAULTS, |lines, code, what| {
        let report = lines.join("\n");
        assert_eq!(code, 0, "{what}:\n{report}");
        assert!(
            starting(lines, "FAIL").is_empty() && starting(lines, "ERROR").is_empty(),
            "{what}:\n{report}"
        );
        assert!(
            starting(lines, "OK").len() >= 27,
            "healthy: every check OK:\n{report}"
        );
    });
}

/// For each (scenario, the FAIL lines' `device check`, words each must hold): a healthy run
/// (judged by `healthy`: its lines, exit code, what it is), then the scenario, which FAILs
/// exactly those checks, each line naming the fault, and nothing is ERROR.
pub(crate) fn each_fault_fails_exactly(
    faults: &[(&str, &[&str], &str)],
    healthy: impl Fn(&[String], i32, &str),
) {
    let home = tempfile::tempdir().expect("tempdir");
    for (scenario, checks, words) in faults {
        let (code, lines) = demo_with(&[], home.path());
        healthy(&lines, code, &format!("healthy before {scenario}"));

        let (fails, report) = faulty_run(&["--scenario", scenario], home.path());
        assert_eq!(fails.len(), checks.len(), "{scenario}:\n{report}");
        for check in *checks {
            let line = fails
                .iter()
                .find(|l| l.starts_with(&format!("FAIL {check} ")))
                .unwrap_or_else(|| panic!("{scenario}: no FAIL {check}:\n{report}"));
            assert!(line.contains(words), "{scenario}: {line:?} lacks {words:?}");
        }
    }
}

/// `ha-heartbeat`: the firewall is an A-P cluster in sync (the lab's site says `ha: { mode:
/// a-p, members: 2 }` under this scenario) whose secondary's heartbeat link ha2 counts errors.
/// Counters are judged on growth, so the first run on the cluster records and is all OK; the
/// next FAILs `fortigate.ha.links` alone, naming the port, the member and the counters.
#[test]
fn heartbeat_errors_fail_ha_links_on_the_next_run_naming_member_port_and_counter() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, lines) = demo("ha-heartbeat", home.path());
    let report = lines.join("\n");
    assert_eq!(code, 0, "first run on the cluster:\n{report}");
    assert!(
        starting(&lines, "FAIL").is_empty() && starting(&lines, "ERROR").is_empty(),
        "first run on the cluster:\n{report}"
    );
    for check in ["fortigate.ha.links", "fortigate.ha.state"] {
        assert!(
            starting(&lines, "OK")
                .iter()
                .any(|l| l.contains(&format!(" fw1 {check} "))),
            "{check} OK on the first run:\n{report}"
        );
    }

    let (fails, report) = faulty_run(&["--scenario", "ha-heartbeat"], home.path());
    assert_eq!(fails.len(), 1, "{report}");
    let line = &fails[0];
    assert!(line.starts_with("FAIL fw1 fortigate.ha.links "), "{line}");
    for words in [
        "ha2 on FG201GTK24000009: heartbeat interface, +",
        " receive errors and +",
        " receive drops since the previous run",
    ] {
        assert!(line.contains(words), "{line:?} lacks {words:?}");
    }
}
