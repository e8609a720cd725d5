//! The demo's scenarios in sequence in one home (issue 32), end to end over real SSH with
//! `premarket demo`: each scenario set judges against its own copy of the healthy morning's
//! references, so a scenario that moves a reference (a reboot's counters went down, judged OK)
//! leaves nothing behind for the scenarios after it or for the healthy lab, and the printed
//! rerun of a scenario judges against the same store as its run.

use serde_json::Value;

use crate::references::{LAB_SKIP, SW, demo, not_ok, result};

/// A healthy morning, then each scenario that moves a comparison's reference, its printed rerun
/// with nothing fixed, and the healthy lab again, all in one home: (scenario, runs, what its
/// last run does not find OK, the rerun's device and check). Each scenario shows only its own
/// faults, its rerun still FAILs, and the healthy lab after it is all OK: each scenario set
/// judges against its own copy of the healthy morning's references.
const SEQUENCE: &[Step] = &[
    (
        "rebooted",
        1,
        &[
            "FAIL fw1 fortigate.uptime.stable",
            // Every BGP session restarted with the switch.
            "FAIL sw1 eos.bgp.peers",
            "FAIL sw1 eos.uptime.stable",
            LAB_SKIP,
        ],
        ("sw1", "eos.uptime.stable"),
    ),
    (
        "config-changed",
        1,
        &[
            "FAIL fw1 fortigate.config.unchanged",
            "FAIL sw1 eos.config.unchanged",
            LAB_SKIP,
        ],
        SW,
    ),
    (
        "version-drift",
        1,
        &[
            "FAIL fw1 fortigate.version.pinned",
            "FAIL sw1 eos.config.unchanged",
            "FAIL sw1 eos.version.pinned",
            LAB_SKIP,
        ],
        SW,
    ),
    (
        "ha-heartbeat",
        2,
        &[
            "FAIL fw1 fortigate.config.unchanged",
            "FAIL fw1 fortigate.ha.links",
            LAB_SKIP,
        ],
        ("fw1", "fortigate.ha.links"),
    ),
    (
        "crc-errors",
        1,
        &[
            "FAIL sw1 eos.interfaces.errors",
            "FAIL sw1 eos.ports.errors-absent",
            LAB_SKIP,
        ],
        ("sw1", "eos.interfaces.errors"),
    ),
    (
        "pause-frames",
        1,
        &["FAIL sw1 eos.interfaces.errors", LAB_SKIP],
        ("sw1", "eos.interfaces.errors"),
    ),
    (
        "microburst",
        1,
        &["FAIL sw1 eos.lanz.congestion", LAB_SKIP],
        ("sw1", "eos.lanz.congestion"),
    ),
    (
        "fw-port-errors",
        1,
        &["FAIL fw1 fortigate.ports.errors", LAB_SKIP],
        ("fw1", "fortigate.ports.errors"),
    ),
];

#[test]
fn healthy_then_each_scenario_its_rerun_and_healthy_again_in_one_home() {
    std::thread::scope(|scope| {
        for part in SEQUENCE.chunks(SEQUENCE.len().div_ceil(2)) {
            scope.spawn(move || scenarios_in_one_home(part));
        }
    });
}

/// (scenario, runs, what its last run does not find OK, the rerun's (device, check)).
type Step = (
    &'static str,
    usize,
    &'static [&'static str],
    (&'static str, &'static str),
);

fn scenarios_in_one_home(part: &[Step]) {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    let healthy = |after: &str| {
        let (code, report) = demo(home, &[]);
        assert_eq!(
            (code, not_ok(&report)),
            (0, vec![LAB_SKIP.to_string()]),
            "the healthy lab after {after}"
        );
    };
    healthy("nothing");
    // The first scenario again at the end: later ones left nothing in its store.
    for (scenario, runs, faults, (device, check)) in part.iter().chain(&part[..1]) {
        let mut morning = (0, Value::Null);
        for _ in 0..*runs {
            morning = demo(home, &["--scenario", scenario]);
        }
        let found: Vec<String> = not_ok(&morning.1)
            .into_iter()
            .filter(|f| {
                let mut parts = f.split(' ');
                let (status, check) = (parts.next(), parts.nth(1));
                let (status, check) = (status.unwrap_or(""), check.unwrap_or(""));
                !crate::common::told_only_after_a_minute(scenario, status, check)
            })
            .collect();
        assert_eq!(
            (morning.0, found),
            (1, faults.iter().map(|f| f.to_string()).collect()),
            "{scenario}: only its own faults"
        );
        let rerun = ["--scenario", scenario, "--check", check, "--device", device];
        let (code, again) = demo(home, &rerun);
        let r = result(&again, device, check);
        assert_eq!(
            (code, r["status"].as_str()),
            (1, Some("FAIL")),
            "{scenario}: the rerun without a fix: {r}"
        );
        assert_eq!(again["standing_status"], "FAIL", "{scenario}");
        healthy(scenario);
    }
}
