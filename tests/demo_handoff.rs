//! Issue 35's "done when", end to end over real SSH on loopback: after a healthy run, `premarket
//! demo --scenario S` FAILs exactly the named check for each hand-off fault, the FAIL line
//! naming the fault (the peer, the session, the RPF interface, the shared uplink), and the
//! healthy demo, standard and mixed fleet, has no FAIL and no ERROR.

use crate::demo_market::{demo_with as demo, each_fault_fails_exactly, starting};

/// (scenario, the FAIL lines' `device check`, words every such FAIL line must hold).
const FAULTS: &[(&str, &[&str], &str)] = &[
    (
        "bgp-down",
        &["sw1 eos.bgp.peers"],
        "exchange-a (10.1.1.1, VRF default): Active, not Established",
    ),
    (
        "bgp-prefixes-low",
        &["sw1 eos.bgp.peers"],
        "exchange-a (10.1.1.1, VRF default): 1 prefix accepted, at least 10 expected",
    ),
    (
        "bfd-down",
        &["sw1 eos.bfd.peers"],
        "10.1.9.1 (VRF default) on Ethernet9: down",
    ),
    (
        "mroute-wrong-rpf",
        &["sw1 eos.multicast.routes"],
        "(10.10.1.10, 239.1.1.1) arrives on Ethernet9 (its RPF interface), the baseline says Ethernet1 for side A",
    ),
    (
        "feeds-share-uplink",
        &["lab site.feeds.independent"],
        "side A (sw1 Ethernet1) and side B (sw1 Ethernet9) share an uplink: both arrive from carrier-a-pe1",
    ),
];

/// No FAIL, no ERROR; every hand-off check is there (OK, or MLAG's SKIP where none is
/// configured, saying so).
fn healthy(lines: &[String], code: i32, what: &str) {
    let report = lines.join("\n");
    assert_eq!(code, 0, "{what}:\n{report}");
    assert!(
        starting(lines, "FAIL").is_empty() && starting(lines, "ERROR").is_empty(),
        "{what}:\n{report}"
    );
    for check in [
        "eos.bgp.peers",
        "eos.bfd.peers",
        "eos.pim.neighbors",
        "eos.multicast.routes",
        "eos.hardware.drops",
        "site.feeds.independent",
    ] {
        assert!(
            starting(lines, "OK")
                .iter()
                .any(|l| l.contains(&format!(" {check} "))),
            "{what}: {check} not OK:\n{report}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("SKIP  sw1 eos.mlag.healthy  MLAG is not configured")),
        "{what}: sw1's MLAG SKIP:\n{report}"
    );
}

#[test]
fn each_hand_off_fault_fails_its_check_naming_the_fault_and_healthy_has_no_fail() {
    each_fault_fails_exactly(FAULTS, healthy);
}

/// The mixed fleet: side A on sw1 (a 7280R3 on 4.31), side B on sw2 (a 7050X on 4.22, one of
/// an MLAG pair, without the Sand drop counters); the site requires every level. Healthy twice
/// (the second run judges resets and growth against the first), then one carrier behind both.
#[test]
fn the_mixed_fleet_is_healthy_and_a_shared_uplink_across_switches_fails_the_site() {
    let home = tempfile::tempdir().expect("tempdir");
    for run in ["first", "second"] {
        let (code, lines) = demo(&["--fleet", "mixed"], home.path());
        healthy(&lines, code, &format!("mixed fleet, {run} run"));
        let report = lines.join("\n");
        for words in [
            "OK    sw2 eos.mlag.healthy  MLAG is active with its peer",
            "OK    sw2 eos.hardware.drops",
        ] {
            assert!(report.contains(words), "{run}: {words:?}:\n{report}");
        }
    }
    let (code, lines) = demo(
        &["--fleet", "mixed", "--scenario", "feeds-share-uplink@sw2"],
        home.path(),
    );
    let report = lines.join("\n");
    assert_eq!(code, 1, "{report}");
    let fails = starting(&lines, "FAIL");
    assert_eq!(fails.len(), 1, "{report}");
    assert!(
        fails[0].starts_with("FAIL lab site.feeds.independent ")
            && fails[0].contains(
                "side A (sw1 Ethernet1) and side B (sw2 Ethernet9) share an uplink: both arrive from carrier-a-pe1"
            ),
        "{report}"
    );
}
