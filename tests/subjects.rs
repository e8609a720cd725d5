//! What each check's FAIL is about (`subjects`, issue 32): an acknowledgement binds to them, so
//! a FAIL that names another port, flow, member or changed line is not covered by the ack of
//! the first. One row per check, built-in and declarative: what it names when it can name
//! several things, or `None` when it judges one thing on the device (a version, the clock,
//! LANZ) and an ack binds to the check as a whole. The check tables (`eos_checks`,
//! `fortigate_checks`, `rule_checks`) hold every check's FAIL rows through the whole pipeline
//! and assert each against this table with [`assert_about`].

use premarket::Status;
use premarket::report::CheckResult;

/// Each check and what its FAIL names, when it can name several things.
pub(crate) const ABOUT: &[(&str, Option<&str>)] = &[
    ("eos.version.pinned", None),
    ("eos.lanz.running", None),
    ("eos.lanz.persisted", None),
    ("eos.config.saved", None),
    ("eos.interfaces.errors", Some("trading ports")),
    ("eos.ptp.synchronised", None),
    ("eos.multicast.feeds", Some("feeds")),
    ("eos.multicast.flowing", Some("feed sides")),
    ("eos.lanz.congestion", Some("trading ports")),
    ("eos.uptime.stable", None),
    ("eos.config.unchanged", Some("changed lines")),
    ("eos.transceivers.light", Some("trading ports' optics")),
    ("eos.ports.errors-absent", Some("ports")),
    ("eos.ntp.synchronised", None),
    ("eos.bgp.peers", Some("BGP peers")),
    ("eos.bfd.peers", Some("BFD sessions")),
    ("eos.pim.neighbors", Some("hand-off interfaces")),
    ("eos.multicast.routes", Some("feed sides")),
    // One MLAG domain per switch.
    ("eos.mlag.healthy", None),
    (
        "eos.hardware.drops",
        Some("drop counters and trading ports"),
    ),
    ("site.feeds.independent", Some("feeds")),
    ("fortigate.version.pinned", None),
    ("fortigate.ha.state", Some("members and cluster problems")),
    ("fortigate.ha.links", Some("members' links")),
    ("fortigate.cpu.ceiling", None),
    ("fortigate.memory.ceiling", None),
    ("fortigate.flows.offloaded", Some("flows")),
    ("fortigate.flows.single-session", Some("flows")),
    ("fortigate.sessions.npu", None),
    ("fortigate.policy.offload", Some("policies")),
    ("fortigate.service.udp-idle", Some("services")),
    ("fortigate.session.idle-margin", Some("flows")),
    ("fortigate.uptime.stable", None),
    ("fortigate.config.unchanged", Some("changed lines")),
    (
        "fortigate.offload.blockers",
        Some("trading interfaces and NP settings"),
    ),
    ("fortigate.ntp.synchronised", None),
    ("fortigate.ports.errors", Some("trading interfaces' ports")),
    ("fortigate.bgp.peers", Some("peers")),
    ("probe.latency.offloaded", None),
];

/// A FAIL of a check that names what it is about names at least one thing; one of a check
/// that judges one thing names nothing (the ack binds to the check on the device).
pub(crate) fn assert_about(result: &CheckResult) {
    if let Some(wrong) = wrong_about(result) {
        panic!("{wrong}");
    }
}

/// What [`assert_about`] would say, for tables that gather every failure before asserting.
pub(crate) fn wrong_about(result: &CheckResult) -> Option<String> {
    if result.status != Status::Fail {
        return (!result.subjects.is_empty()).then(|| {
            format!(
                "{} {}: only a FAIL has subjects: {:?}",
                result.check, result.status, result.subjects
            )
        });
    }
    let Some((_, about)) = ABOUT.iter().find(|(id, _)| *id == result.check) else {
        return Some(format!(
            "{} is not in tests/subjects.rs ABOUT",
            result.check
        ));
    };
    match about {
        Some(what) if result.subjects.is_empty() => Some(format!(
            "{}: a FAIL names the {what} it is about, got none ({})",
            result.check, result.summary
        )),
        None if !result.subjects.is_empty() => Some(format!(
            "{}: judges one thing, but names {:?}",
            result.check, result.subjects
        )),
        _ => None,
    }
}

#[test]
fn every_check_says_what_its_fail_is_about() {
    let config = premarket::config::Config::load(&crate::common::repo()).expect("example site");
    let mut ids: Vec<String> = premarket::check::registry::ids();
    ids.extend(config.catalog.iter().map(|e| e.id.clone()));
    ids.sort();
    ids.dedup();
    let mut listed: Vec<String> = ABOUT.iter().map(|(id, _)| id.to_string()).collect();
    listed.sort();
    assert_eq!(ids, listed, "every check, and only those, has a row");
}
