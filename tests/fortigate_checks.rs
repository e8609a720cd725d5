//! Every FortiGate check over recorded outputs, through the real pipeline: the example site's
//! configuration (copied to a temp dir, optionally edited), `Plan`, the offline collector reading
//! fixtures named by `Command::file_name`, parse, evaluate, report. One row per OK/FAIL/ERROR/SKIP
//! case; fixtures live in `tests/fixtures/fortigate/<command>/<case>.txt`.

use crate::previous_support;

use std::path::PathBuf;
use std::sync::Arc;

use premarket::collect::offline::Offline;
use premarket::inspect::{Limits, inspect};
use premarket::report::CheckResult;
use premarket::{Command, Config, Plan, Selection, Status};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture folder for a command (its text without arguments).
fn fixture_dir(command: &Command) -> &'static str {
    let bases = [
        ("get system status", "get-system-status"),
        (
            "get system performance status",
            "get-system-performance-status",
        ),
        ("get system ha status", "get-system-ha-status"),
        ("get system global", "get-system-global"),
        ("diagnose sys session stat", "diagnose-sys-session-stat"),
        ("diagnose sys session list", "diagnose-sys-session-list"),
        ("diagnose sys session filter", "diagnose-sys-session-filter"),
        (
            "diagnose sys mcast-session list",
            "diagnose-sys-mcast-session-list",
        ),
        (
            "show firewall multicast-policy",
            "show-firewall-multicast-policy",
        ),
        ("show firewall policy", "show-firewall-policy"),
        (
            "show firewall service custom",
            "show-firewall-service-custom",
        ),
        ("show system session-ttl", "show-system-session-ttl"),
        ("show system npu", "show-system-npu"),
        ("get system interface", "get-system-interface"),
        ("show system interface", "show-system-interface"),
        ("show system virtual-switch", "show-system-virtual-switch"),
        (
            "diagnose npu np7lite port-list",
            "diagnose-npu-np7lite-port-list",
        ),
        ("diagnose npu np7 port-list", "diagnose-npu-np7-port-list"),
        ("diagnose sys ntp status", "diagnose-sys-ntp-status"),
        // One pseudo-folder per port: its cases are paths under diagnose-hardware-deviceinfo-nic.
        ("diagnose hardware deviceinfo nic x1", "nic-x1"),
        ("diagnose hardware deviceinfo nic x2", "nic-x2"),
        ("get router info bgp summary", "get-router-info-bgp-summary"),
        (
            "diagnose sys ha checksum cluster",
            "diagnose-sys-ha-checksum-cluster",
        ),
        // The NP6 generation's port lists share one folder, as their layout.
        ("diagnose npu np6 port-list", "diagnose-npu-np6-port-list"),
        (
            "diagnose npu np6lite port-list",
            "diagnose-npu-np6-port-list",
        ),
        (
            "diagnose npu np6xlite port-list",
            "diagnose-npu-np6-port-list",
        ),
        ("diagnose npu np6 npu-feature", "diagnose-npu-npu-feature"),
        (
            "diagnose npu np6lite npu-feature",
            "diagnose-npu-npu-feature",
        ),
        (
            "diagnose npu np6xlite npu-feature",
            "diagnose-npu-npu-feature",
        ),
        ("show system np6xlite", "show-system-np6xlite"),
        // Last: every `show ...` above is matched first.
        ("show", "show"),
    ];
    bases
        .iter()
        .find(|(text, _)| command.text == *text || command.text.starts_with(&format!("{text} ")))
        .map(|(_, dir)| *dir)
        .unwrap_or_else(|| panic!("no fixture folder for {command}"))
}

/// The healthy lab: what every command returns unless a row says otherwise.
const HEALTHY: &[(&str, &str)] = &[
    ("get-system-status", "v767-standalone"),
    ("get-system-performance-status", "idle"),
    ("get-system-ha-status", "standalone"),
    ("get-system-global", "default"),
    ("diagnose-sys-session-stat", "healthy"),
    ("diagnose-sys-session-list", "md-unicast-offloaded"),
    ("diagnose-sys-session-filter", "md-unicast"),
    ("diagnose-sys-mcast-session-list", "md-multicast-offloaded"),
    ("show-firewall-multicast-policy", "policy1-offload"),
    ("show-firewall-policy", "policy1-offload"),
    ("show-firewall-service-custom", "md-udp-600"),
    ("show-system-session-ttl", "default"),
    ("show-system-npu", "default"),
    ("get-system-interface", "healthy"),
    ("show-system-interface", "v76-201g-healthy"),
    ("show-system-virtual-switch", "not-on-this-model"),
    ("diagnose-npu-np7lite-port-list", "healthy-inferred"),
    ("diagnose-sys-ntp-status", "synchronized"),
    ("nic-x1", "diagnose-hardware-deviceinfo-nic/x1-v76-healthy"),
    ("nic-x2", "diagnose-hardware-deviceinfo-nic/x2-v76-healthy"),
    ("get-router-info-bgp-summary", "v76-two-peers-established"),
    ("diagnose-sys-ha-checksum-cluster", "standalone"),
    ("diagnose-npu-np6-port-list", "600e-two-chips"),
    ("diagnose-npu-npu-feature", "np6xlite-100f-default"),
    ("show-system-np6xlite", "100f-default"),
    ("show", "healthy"),
];

pub(crate) struct Row {
    pub(crate) check: &'static str,
    /// `(command folder, case)`; case `""` leaves the file out (not collected); a case with a
    /// `/` is a path under tests/fixtures/fortigate (another command's output).
    pub(crate) fixtures: &'static [(&'static str, &'static str)],
    /// `(from, to)` replacements in the example fw1.yaml.
    pub(crate) baseline: &'static [(&'static str, &'static str)],
    /// Fixtures a previous run (an hour ago) collected, `(command folder, case)`, over the
    /// healthy ones; empty: this is the first run.
    pub(crate) previous: &'static [(&'static str, &'static str)],
    pub(crate) status: Status,
    /// Must appear in the summary (or, prefixed `remedy:` / `evidence:`, in those).
    pub(crate) needles: &'static [&'static str],
}

pub(crate) const fn row(
    check: &'static str,
    fixtures: &'static [(&'static str, &'static str)],
    status: Status,
    needles: &'static [&'static str],
) -> Row {
    Row {
        check,
        fixtures,
        baseline: &[],
        previous: &[],
        status,
        needles,
    }
}

const AP: &[(&str, &str)] = &[("ha: { mode: standalone }", "ha: { mode: a-p, members: 2 }")];
const TWO_ALLOWED: &[(&str, &str)] = &[(
    "      service: MD-UDP-5000",
    "      service: MD-UDP-5000\n      max_sessions: 2",
)];
/// The multicast flow without `offload_proof: probe`: the session list must prove offload.
const NO_PROBE: &[(&str, &str)] = &[("      offload_proof: probe\n", "")];
/// A margin above the global timer less one NP refresh (180 - 40 = 140 s).
const MARGIN_160: &[(&str, &str)] = &[("  idle_margin_s: 60\n", "  idle_margin_s: 160\n")];
/// The NP settings `show-system-npu/max-session-timeout-120` prints, as the baseline's.
/// The trading path on a logical interface (issue 18): a VLAN on an aggregate, a VLAN on x1,
/// a hardware switch's port, a software switch.
const ON_VLAN: &[(&str, &str)] = &[(
    "trading_interfaces: [x1, x2]",
    "trading_interfaces: [md-feed-a, x2]",
)];
const ON_SWITCH_PORT: &[(&str, &str)] = &[(
    "trading_interfaces: [x1, x2]",
    "trading_interfaces: [port1, x2]",
)];
const ON_SOFTWARE_SWITCH: &[(&str, &str)] = &[(
    "trading_interfaces: [x1, x2]",
    "trading_interfaces: [md-sw, x2]",
)];
const NPU_AS_SET: &[(&str, &str)] = &[(
    "  npu_settings: {}\n",
    "  npu_settings: { max-session-timeout: \"120\", mcast-session-accounting: session-based }\n",
)];

fn rows() -> Vec<Row> {
    use Status::{Error, Fail, Ok, Skip};
    const V: &str = "fortigate.version.pinned";
    const HA: &str = "fortigate.ha.state";
    const CPU: &str = "fortigate.cpu.ceiling";
    const MEM: &str = "fortigate.memory.ceiling";
    const OFF: &str = "fortigate.flows.offloaded";
    const ONE: &str = "fortigate.flows.single-session";
    const NPU: &str = "fortigate.sessions.npu";
    const POL: &str = "fortigate.policy.offload";
    const UDP: &str = "fortigate.service.udp-idle";
    const IDLE: &str = "fortigate.session.idle-margin";
    const UP: &str = "fortigate.uptime.stable";
    const CONF: &str = "fortigate.config.unchanged";
    const BLOCK: &str = "fortigate.offload.blockers";
    const LIST: &str = "diagnose-sys-session-list";
    const MCAST: &str = "diagnose-sys-mcast-session-list";
    const FILTER: &str = "diagnose-sys-session-filter";
    const PERF: &str = "get-system-performance-status";
    const STATUS: &str = "get-system-status";
    const POLICY: &str = "show-firewall-policy";
    const SERVICE: &str = "show-firewall-service-custom";
    const TTL: &str = "show-system-session-ttl";
    const NP: &str = "show-system-npu";
    const IFACES: &str = "get-system-interface";
    const SHOWIF: &str = "show-system-interface";
    const VSWITCH: &str = "show-system-virtual-switch";
    const PORTS: &str = "diagnose-npu-np7lite-port-list";
    const SHOW: &str = "show";
    vec![
        row(V, &[], Ok, &["FortiOS 7.6.7 as pinned"]),
        row(
            V,
            &[(STATUS, "v764-drift")],
            Fail,
            &["FortiOS 7.6.4 runs", "7.6.7"],
        ),
        row(V, &[(STATUS, "unknown-action")], Error, &["Unknown action"]),
        row(V, &[(STATUS, "")], Error, &["missing"]),
        row(HA, &[], Ok, &["standalone"]),
        row(
            HA,
            &[("get-system-ha-status", "v76-standalone-inferred")],
            Ok,
            &["standalone"],
        ),
        row(
            HA,
            &[("get-system-ha-status", "v60-standalone-flat")],
            Ok,
            &["standalone"],
        ),
        row(
            HA,
            &[("get-system-ha-status", "ap-in-sync")],
            Fail,
            &["HA mode is a-p, the baseline says standalone"],
        ),
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "ap-in-sync")],
                Ok,
                &["HA a-p"],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "ap-out-of-sync")],
                Fail,
                &["FG201GTK24000818 configuration is out-of-sync"],
            )
        },
        // 7.0+ prints each health problem on its own line under `HA Health Status:`.
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "v70-hbdev-down")],
                Fail,
                &[
                    "WARNING: FG201GTK24000817 has hbdev down;",
                    "WARNING: FG201GTK24000818 has hbdev down;",
                    "remedy:heartbeat interface is down",
                ],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "v70-mondev-down-crlf")],
                Fail,
                &["has mondev down;", "remedy:monitored interface is down"],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "standalone")],
                Fail,
                &["HA mode is standalone", "0 member(s)"],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "ap-no-members")],
                Error,
                &["lists no members"],
            )
        },
        row(
            HA,
            &[("get-system-ha-status", "cut-before-mode")],
            Error,
            &["no `Mode:` line"],
        ),
        row(
            HA,
            &[("get-system-ha-status", "unknown-health-line")],
            Error,
            &["unknown line among the HA health messages"],
        ),
        row(CPU, &[], Ok, &["busiest core CPU0 2% used, average 2%"]),
        row(
            CPU,
            &[(PERF, "idle-paged")],
            Ok,
            &["busiest core CPU0 2% used"],
        ),
        row(
            CPU,
            &[(PERF, "idle-crlf")],
            Ok,
            &["busiest core CPU0 2% used"],
        ),
        row(
            CPU,
            &[(PERF, "cpu-high")],
            Fail,
            &["77% used, above the 50% ceiling"],
        ),
        // One core busy in softirq hides in a 19% average: the busiest core is judged.
        row(
            CPU,
            &[(PERF, "one-core-softirq")],
            Fail,
            &[
                "CPU2 73% used, above the 50% ceiling, average 19%",
                "CPU2 at 61% softirq, above the 20% ceiling",
            ],
        ),
        row(
            CPU,
            &[(PERF, "get-system-status/unknown-action")],
            Error,
            &["Unknown action"],
        ),
        row(MEM, &[], Ok, &["memory 31% used"]),
        row(
            MEM,
            &[(PERF, "memory-high")],
            Fail,
            &["memory 82% used, above the 70% ceiling"],
        ),
        row(
            MEM,
            &[(PERF, "memory-unavailable")],
            Error,
            &["Data Unavailable"],
        ),
        row(OFF, &[], Ok, &["all 2 flows as expected"]),
        row(
            OFF,
            &[(LIST, "md-unicast-offloaded-paged")],
            Ok,
            &["all 2 flows"],
        ),
        row(
            OFF,
            &[(LIST, "md-unicast-offloaded-flat")],
            Ok,
            &["all 2 flows"],
        ),
        row(
            OFF,
            &[(LIST, "md-unicast-disabled-by-policy")],
            Fail,
            &[
                "md-unicast",
                "npu_state=0x4000001 no_offload",
                "disabled-by-policy",
                "auto-asic-offload disable",
                "remedy:`set auto-asic-offload enable`",
                "remedy:`edit 1`",
            ],
        ),
        row(
            OFF,
            &[(LIST, "empty")],
            Fail,
            &["no session, not established before the open: log in / start the feed now"],
        ),
        row(
            OFF,
            &[(LIST, "md-unicast-wrong-policy")],
            Fail,
            &["1 of 1 session(s) matched policy 7, the baseline says policy 1"],
        ),
        row(
            OFF,
            &[(LIST, "md-unicast-new-source-port")],
            Fail,
            &["8 of 8 session(s) on the CPU path", "not-established"],
        ),
        // Multicast: `npu-deny` is the only documented sign (offload refused).
        row(
            OFF,
            &[(MCAST, "md-multicast-denied")],
            Fail,
            &[
                "not offloaded",
                "npu-deny",
                "remedy:`set auto-asic-offload enable`",
            ],
        ),
        row(
            OFF,
            &[(MCAST, "md-multicast-state-deny")],
            Fail,
            &["the multicast session is denied"],
        ),
        row(
            OFF,
            &[(MCAST, "empty")],
            Fail,
            &["md-multicast", "not established"],
        ),
        // Zeros in session-npu-info (in_npuid=0) are no proof either way: the baseline leaves
        // the proof to the probe, so only npu-deny could fail it...
        row(OFF, &[(MCAST, "md-multicast-cpu")], Ok, &["all 2 flows"]),
        row(
            OFF,
            &[(MCAST, "md-multicast-no-npu-info")],
            Ok,
            &["all 2 flows"],
        ),
        // ...and without `offload_proof: probe` the check cannot tell, whatever in_npuid says.
        Row {
            baseline: NO_PROBE,
            ..row(
                OFF,
                &[(MCAST, "md-multicast-offloaded")],
                Error,
                &[
                    "cannot tell whether the multicast session is offloaded",
                    "remedy:offload_proof: probe",
                ],
            )
        },
        Row {
            baseline: NO_PROBE,
            ..row(
                OFF,
                &[(MCAST, "md-multicast-cpu")],
                Error,
                &["cannot tell whether the multicast session is offloaded"],
            )
        },
        row(
            OFF,
            &[(FILTER, "stale-policy")],
            Error,
            &["read back differently", "`policy id` is 7, expected any"],
        ),
        row(
            OFF,
            &[(FILTER, "help-text")],
            Error,
            &["not a filter readback"],
        ),
        row(
            OFF,
            &[(LIST, "cut-short")],
            Error,
            &["total session 3", "output cut"],
        ),
        row(OFF, &[(LIST, "")], Error, &["missing"]),
        row(
            OFF,
            &[(FILTER, "md-unicast-range-form")],
            Ok,
            &["all 2 flows"],
        ),
        row(ONE, &[], Ok, &["all 2 flows"]),
        row(
            ONE,
            &[(LIST, "md-unicast-new-source-port")],
            Fail,
            &[
                "8 sessions from 8 different source ports",
                "younger than 3 minutes, 8 not established",
                "new socket per send",
                "remedy:fixed source port",
            ],
        ),
        // Three long-lived sessions: too many, but not the socket-per-send pattern.
        row(
            ONE,
            &[(LIST, "md-unicast-three-old-sessions")],
            Fail,
            &["3 sessions, at most 1 allowed (3 source port(s), the oldest up 41022 s)"],
        ),
        row(
            ONE,
            &[(LIST, "md-unicast-two-sessions-allowed")],
            Fail,
            &["2 sessions, at most 1 allowed"],
        ),
        Row {
            baseline: TWO_ALLOWED,
            ..row(
                ONE,
                &[(LIST, "md-unicast-two-sessions-allowed")],
                Ok,
                &["all 2 flows"],
            )
        },
        row(
            ONE,
            &[(LIST, "empty")],
            Skip,
            &["md-unicast: no session yet"],
        ),
        row(
            ONE,
            &[(FILTER, "stale-policy")],
            Error,
            &["read back differently"],
        ),
        row(NPU, &[], Ok, &["2 NPU session(s), 3 new sessions/s"]),
        row(
            NPU,
            &[("diagnose-sys-session-stat", "npu-zero")],
            Fail,
            &["only 0 session(s) on the NPU"],
        ),
        row(
            NPU,
            &[("diagnose-sys-session-stat", "new-source-port")],
            Fail,
            &["1000 new sessions per second (at most 100)"],
        ),
        row(
            NPU,
            &[("diagnose-sys-session-stat", "old-build-no-npu")],
            Error,
            &["does not print npu_session_count"],
        ),
        row(POL, &[], Ok, &["all 2 policies"]),
        row(
            POL,
            &[(POLICY, "policy1-offload-disabled")],
            Fail,
            &[
                "firewall policy 1",
                "auto-asic-offload disable",
                "remedy:`set auto-asic-offload enable`",
            ],
        ),
        row(
            POL,
            &[("show-firewall-multicast-policy", "policy1-offload-disabled")],
            Fail,
            &["firewall multicast-policy 1"],
        ),
        row(
            POL,
            &[(POLICY, "policy1-proxy-av")],
            Fail,
            &[
                "proxy-mode inspection with av-profile \"default\"",
                "remedy:`unset av-profile`",
            ],
        ),
        // Flow-mode IPS and application control send every session to the IPS engine; the
        // 201G's remedy names its np7lite command.
        row(
            POL,
            &[(POLICY, "policy1-flow-ips")],
            Fail,
            &[
                "flow-mode inspection with application-list \"default\", ips-sensor \"default\"",
                "IPS engine on the CPU",
                "remedy:`unset ips-sensor`",
                "remedy:`diagnose npu np7lite port-list`",
            ],
        ),
        row(POL, &[(POLICY, "missing")], Fail, &["does not exist"]),
        row(POL, &[(POLICY, "cut")], Error, &["output cut"]),
        row(
            UDP,
            &[],
            Ok,
            &[
                "idle timer 600 s (udp-idle-timer of service \"MD-UDP-5000\", as the live session shows) outlasts the longest pause 300 s",
            ],
        ),
        row(
            UDP,
            &[(SERVICE, "md-udp-default")],
            Fail,
            &[
                "idle timer 180 s (global udp-idle-timer",
                "not longer than",
                "remedy:`set udp-idle-timer 450`",
            ],
        ),
        row(UDP, &[(SERVICE, "missing")], Fail, &["does not exist"]),
        // `session-ttl never` on a matching `config system session-ttl` port entry, and the
        // live session printing `expire=never timeout=never`.
        row(
            UDP,
            &[
                (SERVICE, "md-udp-default"),
                (TTL, "md-udp-never"),
                (LIST, "md-unicast-session-ttl-never"),
            ],
            Ok,
            &["never idles out"],
        ),
        // A policy session-ttl overrides the service's udp-idle-timer; the live session's
        // `timeout=0` disagrees, and the live session is the ground truth.
        row(
            UDP,
            &[(POLICY, "policy1-session-ttl-120")],
            Ok,
            &["the live session's timeout; the configuration gives 120 (session-ttl of policy 1)"],
        ),
        row(
            UDP,
            &[(POLICY, "policy1-session-ttl-120"), (LIST, "empty")],
            Fail,
            &[
                "idle timer 120 s (session-ttl of policy 1)",
                "remedy:`config firewall policy`, `edit 1`, `set session-ttl 450`",
            ],
        ),
        // The trading policy does not use the baseline's service: its timers do not apply.
        row(
            UDP,
            &[(POLICY, "policy1-service-all")],
            Fail,
            &[
                "policy 1 matches `set service ALL`, not \"MD-UDP-5000\"",
                "remedy:`set service \"MD-UDP-5000\"`",
            ],
        ),
        row(
            UDP,
            &[
                (SERVICE, "md-udp-default"),
                ("get-system-global", "no-udp-timer"),
            ],
            Error,
            &["no udp-idle-timer"],
        ),
        row(IDLE, &[], Ok, &["all 2 flows"]),
        row(
            IDLE,
            &[(LIST, "md-unicast-expiring")],
            Fail,
            &["expires in 23 s, under the 60 s margin"],
        ),
        // `expire=never` used to be ERROR for ever.
        row(
            IDLE,
            &[(LIST, "md-unicast-session-ttl-never")],
            Ok,
            &["all 2 flows"],
        ),
        // 150 s left of the global 180 s: below a 160 s margin, but an offloaded session's
        // expire is refreshed only every max-session-timeout (40 s), so traffic is flowing...
        Row {
            baseline: MARGIN_160,
            ..row(
                IDLE,
                &[
                    (SERVICE, "md-udp-default"),
                    (LIST, "md-unicast-offloaded-expire-150"),
                ],
                Ok,
                &[
                    "all 2 flows",
                    "evidence:expire 150 s + max-session-timeout 40 s >= its 180 s timer",
                ],
            )
        },
        // ...while the same expire on the CPU path is what it says.
        Row {
            baseline: MARGIN_160,
            ..row(
                IDLE,
                &[
                    (SERVICE, "md-udp-default"),
                    (LIST, "md-unicast-cpu-expire-150"),
                ],
                Fail,
                &["md-unicast: session expires in 150 s, under the 160 s margin"],
            )
        },
        row(IDLE, &[(LIST, "empty")], Skip, &["no session yet"]),
        row(
            IDLE,
            &[(FILTER, "stale-policy")],
            Error,
            &["read back differently"],
        ),
        row(
            IDLE,
            &[(NP, "out-of-range")],
            Error,
            &["outside 10-1000 seconds"],
        ),
        row(
            UP,
            &[],
            Ok,
            &["first run on this device, nothing to compare yet"],
        ),
        // An hour ago the firewall was up an hour less: the same boot.
        Row {
            previous: &[(PERF, "idle-an-hour-earlier")],
            ..row(UP, &[], Ok, &["no reboot since the previous run"])
        },
        // The previous run saw 41 days of uptime; this one 1 minute: a reboot, named.
        Row {
            previous: &[(PERF, "idle-an-hour-earlier")],
            ..row(
                UP,
                &[(PERF, "rebooted"), (STATUS, "v767-power-cycle")],
                Fail,
                &[
                    "rebooted since the previous run",
                    "up only 1 min 0 s",
                    "last reboot reason: power cycle",
                    "must be re-verified",
                    "remedy:diagnose debug crashlog read",
                ],
            )
        },
        // After a reboot the next run compares with the rebooted run: no reboot since.
        Row {
            previous: &[(PERF, "rebooted")],
            ..row(
                UP,
                &[(PERF, "rebooted-an-hour-later")],
                Ok,
                &["no reboot since the previous run"],
            )
        },
        // A boot earlier than the previous run's is a clock change, not a reboot.
        Row {
            previous: &[(PERF, "rebooted-an-hour-later")],
            ..row(UP, &[], Ok, &["a clock change rather than a reboot"])
        },
        row(
            UP,
            &[(PERF, "get-system-status/unknown-action")],
            Error,
            &["Unknown action"],
        ),
        row(CONF, &[], Ok, &["first run on this device", "is recorded"]),
        // An hour ago: another `conf_file_ver` and every ENC blob re-encrypted (same lengths),
        // which is what two reads of an unchanged FortiGate look like.
        Row {
            previous: &[(SHOW, "an-hour-earlier")],
            ..row(CONF, &[], Ok, &["unchanged since the previous run (08:15)"])
        },
        // Since then policy 1 was opened to any source.
        Row {
            previous: &[(SHOW, "an-hour-earlier")],
            ..row(
                CONF,
                &[(SHOW, "policy-widened")],
                Fail,
                &[
                    "configuration changed since the previous run (08:15): 2 lines",
                    "evidence:-        set srcaddr \"md-source\"",
                    "evidence:+        set srcaddr \"all\"",
                ],
            )
        },
        row(
            CONF,
            &[(SHOW, "get-system-status/unknown-action")],
            Error,
            &["Unknown action"],
        ),
        row(
            BLOCK,
            &[],
            Ok,
            &["all 3 parts of the trading path as expected"],
        ),
        row(BLOCK, &[(IFACES, "v70-wide-spacing")], Ok, &["all 3 parts"]),
        row(
            BLOCK,
            &[(IFACES, "sflow-enabled")],
            Fail,
            &[
                "x1: sFlow is enabled (`sflow-sampler: enable`)",
                "remedy:`edit x1`, `set sflow-sampler disable`",
            ],
        ),
        row(
            BLOCK,
            &[(PORTS, "x1-not-on-np")],
            Fail,
            &["x1: not served by the NP (absent from `diagnose npu np7lite port-list`)"],
        ),
        row(
            BLOCK,
            &[(NP, "max-session-timeout-120")],
            Fail,
            &["`set max-session-timeout 120`, which the baseline does not list"],
        ),
        Row {
            baseline: NPU_AS_SET,
            ..row(
                BLOCK,
                &[(NP, "max-session-timeout-120")],
                Ok,
                &["all 3 parts"],
            )
        },
        Row {
            baseline: NPU_AS_SET,
            ..row(
                BLOCK,
                &[],
                Fail,
                &[
                    "`max-session-timeout` is at its default (not printed by `show system npu`), the baseline says 120",
                ],
            )
        },
        row(
            BLOCK,
            &[(IFACES, "not-enable-or-disable")],
            Error,
            &["sflow-sampler"],
        ),
        row(BLOCK, &[(PORTS, "not-supported")], Error, &["np7lite"]),
        // Issue 18: FortiOS's "no such command" on a model premarket does not know is a SKIP
        // naming the model (before: ERROR "the firewall could not parse the command").
        row(
            BLOCK,
            &[(STATUS, "v74-unknown-model"), (PORTS, "not-supported")],
            Skip,
            &[
                "not available on FortiGate-9999Z (7.4.8)",
                "command parse error before 'np7lite'",
            ],
        ),
        // A model known to have another NP: the baseline's `np:` is wrong, said as an ERROR
        // (the NP7Lite command is not even sent to a 601F).
        row(
            BLOCK,
            &[(STATUS, "v74-601f-security-level")],
            Error,
            &["a FortiGate-601F has an NP7", "remedy:Set `np: np7`"],
        ),
        // Issue 18. Before: FAIL "md-feed-a: not served by the NP" (the port list names
        // physical ports only); the VLAN is on an aggregate of port3 and port4 (FortiOS 7.6
        // prints no `set type vlan`).
        Row {
            baseline: ON_VLAN,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v74-vlan-on-aggregate"),
                    (SHOWIF, "v76-vlan-no-type-on-aggregate"),
                ],
                Ok,
                &[
                    "all 3 parts",
                    "evidence:md-feed-a: VLAN 310 on md-lag; md-lag: aggregate of port3, port4",
                ],
            )
        },
        // Before: the same false FAIL on FortiOS 6.4 (`set type vlan`, multi-space records).
        Row {
            baseline: ON_VLAN,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v64-vlan-on-x1"),
                    (SHOWIF, "v64-vlan-with-type-on-x1"),
                ],
                Ok,
                &["all 3 parts", "evidence:md-feed-a: VLAN 310 on x1"],
            )
        },
        // sFlow where it lives: on the aggregate under the VLAN (the VLAN's record says disable).
        Row {
            baseline: ON_VLAN,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v74-sflow-on-the-aggregate"),
                    (SHOWIF, "v76-sflow-on-the-aggregate"),
                ],
                Fail,
                &[
                    "md-feed-a: sFlow is enabled on md-lag",
                    "remedy:`edit md-lag`, `set sflow-sampler disable`",
                ],
            )
        },
        // An aggregate's members are judged: one of them is the HA port, not on the NP.
        Row {
            baseline: ON_VLAN,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v74-vlan-on-aggregate"),
                    (SHOWIF, "v76-aggregate-member-off-the-np"),
                ],
                Fail,
                &["md-feed-a: its port ha is not served by the NP"],
            )
        },
        // Before: ERROR "port1: `get system interface` prints no sflow-sampler" every run (a
        // hardware switch's port prints name/status/type only); its switch's settings apply.
        Row {
            baseline: ON_SWITCH_PORT,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v64-hardswitch-short-records"),
                    (SHOWIF, "hardswitch-lan"),
                    (VSWITCH, "lan-port1-port2"),
                ],
                Ok,
                &[
                    "all 3 parts",
                    "evidence:port1: a port of hardware switch lan",
                ],
            )
        },
        Row {
            baseline: ON_SWITCH_PORT,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v64-hardswitch-sflow"),
                    (SHOWIF, "hardswitch-lan-sflow"),
                    (VSWITCH, "lan-port1-port2"),
                ],
                Fail,
                &["port1: sFlow is enabled on lan"],
            )
        },
        Row {
            baseline: ON_SOFTWARE_SWITCH,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v74-software-switch"),
                    (SHOWIF, "v76-software-switch"),
                ],
                Fail,
                &["md-sw: a software switch (`set type switch`): the NP never offloads"],
            )
        },
    ]
    .into_iter()
    .chain(crate::fortigate_market::rows())
    .chain(crate::fortigate_dataplane::rows())
    .collect()
}

/// A copy of the example configuration with `edits` applied to fw1.yaml.
fn site(edits: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for sub in ["baselines", "checks"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        for entry in std::fs::read_dir(repo().join(sub)).expect("read example") {
            let path = entry.expect("entry").path();
            std::fs::copy(
                &path,
                dir.path().join(sub).join(path.file_name().expect("name")),
            )
            .expect("copy");
        }
    }
    let fw1 = dir.path().join("baselines/fw1.yaml");
    let mut text = std::fs::read_to_string(&fw1).expect("fw1.yaml");
    for (from, to) in edits {
        assert!(text.contains(from), "fw1.yaml has no {from:?}");
        text = text.replace(from, to);
    }
    std::fs::write(&fw1, text).expect("write fw1.yaml");
    dir
}

/// The fixture file of `command` for `case`, or `None` when the case leaves it out.
fn fixture(command: &Command, cases: &[(&str, &str)]) -> Option<PathBuf> {
    let folder = fixture_dir(command);
    let case = cases
        .iter()
        .chain(HEALTHY)
        .find(|(f, _)| *f == folder)
        .map(|(_, c)| *c)
        .unwrap_or_else(|| panic!("no fixture for {folder}"));
    if case.is_empty() {
        return None;
    }
    let source = if case.contains('/') {
        format!("{case}.txt")
    } else {
        format!("{folder}/{case}.txt")
    };
    Some(repo().join("tests/fixtures/fortigate").join(source))
}

fn run(row: &Row) -> CheckResult {
    let site = site(row.baseline);
    let config = Config::load(site.path()).unwrap_or_else(|e| panic!("{e}"));
    let selection = Selection {
        checks: vec![row.check.into()],
        devices: vec!["fw1".into()],
        tags: Vec::new(),
    };
    let mut plan = Plan::new(&config, &selection).unwrap_or_else(|e| panic!("{e}"));
    let outputs = tempfile::tempdir().expect("temp dir");
    let fw1 = outputs.path().join("fw1");
    std::fs::create_dir_all(&fw1).expect("mkdir");
    let mut before = Vec::new();
    for command in &plan.devices[0].commands {
        if let Some(source) = fixture(command, row.fixtures) {
            std::fs::copy(&source, fw1.join(command.file_name()))
                .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        }
        if !row.previous.is_empty()
            && let Some(source) = fixture(command, row.previous)
        {
            let text = std::fs::read_to_string(&source).expect("previous fixture");
            before.push((command.clone(), text));
        }
    }
    if !before.is_empty() {
        let previous =
            previous_support::previous(&plan.devices[0], &before, chrono::Duration::hours(1));
        previous_support::judge_against(&mut plan.devices[0], previous);
    }
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let report = runtime.block_on(inspect(
        &config,
        plan.clone(),
        Arc::new(Offline::new(outputs.path())),
        &Limits::from_config(&config),
    ));
    assert_eq!(report.results.len(), 1, "{:?}", report.results);
    report.results.into_iter().next().expect("one result")
}

#[test]
fn every_check_has_ok_fail_and_error_rows() {
    let rows = rows();
    let checks = premarket::check::registry::builtin();
    for check in checks
        .iter()
        .filter(|c| c.platform() == premarket::Platform::Fortigate)
    {
        for status in [Status::Ok, Status::Fail, Status::Error] {
            assert!(
                rows.iter()
                    .any(|r| r.check == check.id() && r.status == status),
                "{} has no {status} row",
                check.id()
            );
        }
    }
}

#[test]
fn rows_through_the_pipeline() {
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for row in rows() {
        let result = run(&row);
        seen.push((row.check.to_string(), result.status, result.headline()));
        failures.extend(crate::subjects::wrong_about(&result));
        let wrong_status = result.status != row.status;
        let missing: Vec<&&str> = row
            .needles
            .iter()
            .filter(|n| {
                if let Some(n) = n.strip_prefix("remedy:") {
                    !result.remedy.contains(n)
                } else if let Some(n) = n.strip_prefix("evidence:") {
                    !result.evidence.contains(n)
                } else {
                    !result.summary.contains(*n)
                }
            })
            .collect();
        if wrong_status || !missing.is_empty() {
            failures.push(format!(
                "{} {:?}: got {} {:?} (remedy {:?}), want {} with {missing:?}",
                row.check, row.fixtures, result.status, result.summary, result.remedy, row.status
            ));
        }
    }
    crate::explain::assert_examples(&seen);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// `(from, to)` replacements in fw1.yaml.
type Edits = &'static [(&'static str, &'static str)];

#[test]
fn a_missing_baseline_value_is_a_config_error_with_its_position() {
    let cases: [(Edits, &str, &str); 4] = [
        (
            &[("  idle_margin_s: 60\n", "")],
            "fortigate.session.idle-margin",
            "expect.idle_margin_s",
        ),
        (
            &[("      policy: 1\n      service", "      service")],
            "fortigate.policy.offload",
            "expect.flows[md-unicast].policy",
        ),
        (
            &[("      max_pause_s: 300\n", "")],
            "fortigate.service.udp-idle",
            "expect.flows[md-unicast].max_pause_s",
        ),
        (
            &[("  npu_sessions_min: 1\n", "")],
            "fortigate.sessions.npu",
            "expect.npu_sessions_min",
        ),
    ];
    let position =
        regex::Regex::new(r"baselines/fw1\.yaml:\d+:\d+: device fw1: check ").expect("regex");
    for (edits, check, key) in cases {
        let site = site(edits);
        let config = Config::load(site.path()).unwrap_or_else(|e| panic!("{e}"));
        let selection = Selection {
            checks: vec![check.into()],
            ..Selection::default()
        };
        let error = Plan::new(&config, &selection)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains(key), "{check}: {error}");

        assert!(position.is_match(&error), "{error}");
    }
}

/// `(check, status, words in the summary)` of the checks a scenario must flag.
type Expected = &'static [(&'static str, &'static str, &'static str)];

/// The example site's scenarios, judged by the binary as an operator runs it: the lab notes'
/// three CPU-path cases FAIL with the right explanation, the healthy firewall is all OK.
#[test]
fn lab_scenarios_fail_with_the_right_explanations() {
    let cases: [(&str, i32, Expected); 4] = [
        ("healthy", 0, &[]),
        (
            "offload-disabled",
            1,
            &[
                ("fortigate.flows.offloaded", "FAIL", "disabled-by-policy"),
                (
                    "fortigate.policy.offload",
                    "FAIL",
                    "auto-asic-offload disable",
                ),
            ],
        ),
        (
            "new-source-port",
            1,
            &[
                (
                    "fortigate.flows.single-session",
                    "FAIL",
                    "new socket per send",
                ),
                ("fortigate.sessions.npu", "FAIL", "new sessions per second"),
            ],
        ),
        (
            "not-established",
            1,
            &[(
                "fortigate.flows.offloaded",
                "FAIL",
                "not established before the open",
            )],
        ),
    ];
    for (scenario, code, expected) in cases {
        let out = assert_cmd::Command::cargo_bin("premarket")
            .expect("binary")
            .current_dir(repo())
            .args(["run", "--device", "fw1", "--format", "json", "--offline"])
            .arg(format!("tests/fixtures/site/{scenario}"))
            .output()
            .expect("run premarket");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{scenario}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        let results = report["results"].as_array().expect("results");
        assert_eq!(results.len(), 17, "{scenario}");
        for result in results {
            let id = result["check"].as_str().unwrap_or_default();
            match expected.iter().find(|(check, _, _)| *check == id) {
                Some((_, status, needle)) => {
                    assert_eq!(result["status"], *status, "{scenario} {id}");
                    assert!(
                        result["summary"]
                            .as_str()
                            .unwrap_or_default()
                            .contains(needle),
                        "{scenario} {id}: {result}"
                    );
                }
                None if scenario == "healthy" => {
                    assert_eq!(result["status"], "OK", "{scenario} {id}: {result}")
                }
                None => assert_ne!(result["status"], "ERROR", "{scenario} {id}: {result}"),
            }
        }
    }
}
