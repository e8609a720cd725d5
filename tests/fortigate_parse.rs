//! The `premarket parse fortigate "<command>"` contract: the fact keys the issue names, paged
//! and CRLF output giving identical facts, and the example site's offline scenarios holding a
//! saved output for every command fw1's plan sends.

use crate::parse_support;

use std::path::PathBuf;

use assert_cmd::Command as Bin;
use parse_support::Want::{Error, Facts};
use parse_support::{PARSERS, Want, check_keys, check_rows, v};
use premarket::Platform;
use premarket::platform::parse_json;

fn parse_text(command: &str, raw: &str) -> Result<Value, premarket::parse::ParseError> {
    parse_json(Platform::Fortigate, command, raw)
}
use premarket::{Config, Plan, Selection};
use serde_json::Value;

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fortigate")
        .join(path)
}

fn parse_cli(command: &str, file: &str) -> Value {
    let out = Bin::cargo_bin("premarket")
        .expect("binary")
        .args(["parse", "fortigate", command])
        .arg(fixture(file))
        .output()
        .expect("run premarket parse");
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn has_keys(value: &Value, keys: &[&str], what: &str) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object: {value}"));
    for key in keys {
        assert!(
            object.contains_key(*key),
            "{what}: no key {key:?} in {value}"
        );
    }
}

#[test]
fn fact_keys_are_the_contract() {
    let status = parse_cli("get system status", "get-system-status/v767-standalone.txt");
    has_keys(
        &status,
        &[
            "version",
            "build",
            "model",
            "serial",
            "hostname",
            "ha_mode",
            "operation_mode",
            "vdom_mode",
        ],
        "status",
    );
    assert_eq!(status["version"], "7.6.7");

    let perf = parse_cli(
        "get system performance status",
        "get-system-performance-status/idle.txt",
    );
    has_keys(
        &perf,
        &[
            "cpu",
            "per_cpu",
            "memory_used_percent",
            "average_sessions",
            "average_setup_rate",
            "average_npu_sessions",
            "uptime_s",
        ],
        "performance",
    );
    has_keys(&perf["cpu"], &["user", "system", "nice", "idle"], "cpu");

    let ha = parse_cli(
        "get system ha status",
        "get-system-ha-status/ap-in-sync.txt",
    );
    has_keys(&ha, &["mode", "health", "members"], "ha");
    has_keys(
        &ha["members"][0],
        &["serial", "role", "in_sync"],
        "ha member",
    );

    let list = parse_cli(
        "diagnose sys session list",
        "diagnose-sys-session-list/md-unicast-offloaded.txt",
    );
    // The pipeline's bounded summary of the list (issue 11): counts, tallies and a few
    // sessions kept as examples, never every session.
    has_keys(
        &list,
        &[
            "total",
            "sessions",
            "offloaded",
            "distinct_source_ports",
            "policies",
            "no_ofld_reasons",
            "proto_states",
            "timeouts",
            "ages",
            "least_expire",
            "oldest_s",
            "first",
            "first_not_offloaded",
            "least_expire_offloaded",
            "least_expire_not_offloaded",
            "policy_examples",
        ],
        "session list",
    );
    assert_eq!(
        (list["sessions"].as_u64(), list["offloaded"].as_u64()),
        (Some(1), Some(1))
    );
    has_keys(
        &list["first"][0],
        &[
            "proto",
            "proto_state",
            "duration",
            "src",
            "sport",
            "dst",
            "dport",
            "policy_id",
            "expire",
            "timeout",
            "org_packets",
            "reply_packets",
            "npu_state",
            "offload_org",
            "offload_reply",
            "no_ofld_reason",
        ],
        "session",
    );
    assert_eq!(list["first"][0]["offload_org"], true);

    let stat = parse_cli(
        "diagnose sys session stat",
        "diagnose-sys-session-stat/healthy.txt",
    );
    has_keys(
        &stat,
        &[
            "session_count",
            "setup_rate",
            "exp_count",
            "clash",
            "memory_tension_drop",
            "ephemeral_current",
            "ephemeral_limit",
            "removeable",
            "npu_session_count",
            "delete",
            "flush",
        ],
        "session stat",
    );

    let mcast = parse_cli(
        "diagnose sys mcast-session list",
        "diagnose-sys-mcast-session-list/md-multicast-offloaded.txt",
    );
    has_keys(
        &mcast["sessions"][0],
        &[
            "src",
            "sport",
            "group",
            "dport",
            "expire",
            "offloaded",
            "paths",
        ],
        "mcast session",
    );

    let policy = parse_cli(
        "show firewall policy 1",
        "show-firewall-policy/policy1-offload-disabled.txt",
    );
    has_keys(
        &policy["policy"],
        &[
            "id",
            "enabled",
            "auto_asic_offload",
            "np_acceleration",
            "inspection_mode",
            "profiles",
            "services",
            "session_ttl",
        ],
        "policy",
    );
    assert_eq!(policy["policy"]["auto_asic_offload"], false);
    let global = parse_cli("get system global", "get-system-global/default.txt");
    assert_eq!(global["udp_idle_timer_s"], 180);
    assert_eq!(global["settings"]["udp-idle-timer"], "180");
}

#[test]
fn paged_crlf_and_flattened_outputs_give_identical_facts() {
    let pairs = [
        (
            "diagnose sys session list",
            "diagnose-sys-session-list/md-unicast-offloaded.txt",
            "diagnose-sys-session-list/md-unicast-offloaded-paged.txt",
        ),
        (
            "diagnose sys session list",
            "diagnose-sys-session-list/md-unicast-offloaded.txt",
            "diagnose-sys-session-list/md-unicast-offloaded-flat.txt",
        ),
        (
            "get system performance status",
            "get-system-performance-status/idle.txt",
            "get-system-performance-status/idle-paged.txt",
        ),
        (
            "get system performance status",
            "get-system-performance-status/idle.txt",
            "get-system-performance-status/idle-crlf.txt",
        ),
    ];
    for (command, plain, other) in pairs {
        let read = |f: &str| std::fs::read_to_string(fixture(f)).expect("fixture");
        let a = parse_text(command, &read(plain)).expect("plain parses");
        let b = parse_text(command, &read(other)).expect("variant parses");
        assert_eq!(a, b, "{other}");
    }
    // Paging every line of every fixture must not change any fact either.
    for (command, dir) in [
        ("get system status", "get-system-status"),
        ("get system ha status", "get-system-ha-status"),
        ("diagnose sys session stat", "diagnose-sys-session-stat"),
        ("diagnose sys session filter", "diagnose-sys-session-filter"),
        (
            "diagnose sys mcast-session list",
            "diagnose-sys-mcast-session-list",
        ),
        ("show firewall policy 1", "show-firewall-policy"),
        ("get system global", "get-system-global"),
    ] {
        for entry in std::fs::read_dir(fixture(dir)).expect("fixture dir") {
            let path = entry.expect("entry").path();
            let raw = std::fs::read_to_string(&path).expect("read");
            let paged: String = raw
                .lines()
                .map(|l| format!("--More-- \r            \r{l}\r\n"))
                .collect();
            match (parse_text(command, &raw), parse_text(command, &paged)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", path.display()),
                (Err(_), Err(_)) => {}
                (a, b) => panic!(
                    "{}: plain {:?} vs paged {:?}",
                    path.display(),
                    a.is_ok(),
                    b.is_ok()
                ),
            }
        }
    }
}

#[test]
fn unknown_commands_and_garbage_are_errors_not_panics() {
    assert!(parse_text("execute reboot", "whatever").is_err());
    let garbage = [
        "",
        "\u{0}\u{1}\u{2}",
        "session info: proto=999999999999999999999999 expire=-1 ->:->:",
        "config\nedit\nset\nnext\nend\nend",
        "Total x sessions",
        "CPU states: % user",
    ];
    for command in [
        "get system status",
        "get system performance status",
        "get system ha status",
        "diagnose sys session list",
        "diagnose sys session stat",
        "diagnose sys mcast-session list",
        "diagnose sys session filter",
        "show firewall policy 1",
        "get system global",
    ] {
        for raw in garbage {
            let _ = parse_text(command, raw);
        }
    }
}

#[test]
fn example_site_scenarios_hold_every_planned_fw1_output() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = Config::load(&root).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::new(
        &config,
        &Selection {
            devices: vec!["fw1".into()],
            ..Selection::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for scenario in [
        "healthy",
        "offload-disabled",
        "new-source-port",
        "not-established",
        "lanz-incident",
    ] {
        // A scenario holds what differs from the healthy day; `based-on` supplies the rest.
        let saved = premarket::collect::offline::Offline::new(
            root.join("tests/fixtures/site").join(scenario),
        );
        for command in &plan.devices[0].commands {
            let path = saved
                .folder_of("fw1", &command.file_name())
                .unwrap_or_else(|e| panic!("{scenario}: {e}"))
                .join(command.file_name());
            assert!(
                path.is_file(),
                "{scenario}: no saved output for `{command}` ({})",
                path.display()
            );
        }
    }
}

/// The trading checks' FortiGate commands and the real-device fixes, fixture by fixture.
const ROWS: &[(&str, &str, Want)] = &[
    (
        "get system interface",
        "healthy.txt",
        Facts(&[
            ("/interfaces/x1/sflow_sampler", v!(false)),
            ("/interfaces/x1/netflow_sampler", v!(false)),
            ("/interfaces/x1/type", v!("physical")),
            ("/interfaces/x1/status", v!("up")),
            ("/interfaces/ssl.root/type", v!("tunnel")),
        ]),
    ),
    (
        "get system interface",
        "sflow-enabled.txt",
        Facts(&[
            ("/interfaces/x1/sflow_sampler", v!(true)),
            ("/interfaces/x2/sflow_sampler", v!(false)),
        ]),
    ),
    (
        "get system interface",
        "v70-wide-spacing.txt",
        Facts(&[("/interfaces/x1/sflow_sampler", v!(false))]),
    ),
    (
        "get system interface",
        "not-enable-or-disable.txt",
        Error(&["sflow-sampler", "sampled"]),
    ),
    (
        "show system npu",
        "default.txt",
        Facts(&[
            ("/max_session_timeout_s", v!(40)),
            ("/max_session_timeout_set", v!(false)),
            ("/settings", v!({})),
        ]),
    ),
    (
        "show system npu",
        "max-session-timeout-120.txt",
        Facts(&[
            ("/max_session_timeout_s", v!(120)),
            ("/max_session_timeout_set", v!(true)),
            ("/settings/mcast-session-accounting", v!("session-based")),
        ]),
    ),
    ("show system npu", "out-of-range.txt", Error(&["10-1000"])),
    (
        "show system session-ttl",
        "default.txt",
        Facts(&[
            ("/default", v!(3600)),
            ("/default_set", v!(false)),
            ("/ports", v!([])),
        ]),
    ),
    (
        "show system session-ttl",
        "default-never.txt",
        Facts(&[("/default", v!("never"))]),
    ),
    (
        "show system session-ttl",
        "md-udp-never.txt",
        Facts(&[
            ("/ports/0/protocol", v!(17)),
            ("/ports/0/start_port", v!(5000)),
            ("/ports/0/end_port", v!(5000)),
            ("/ports/0/timeout", v!("never")),
            ("/ports/1/timeout", v!(7200)),
        ]),
    ),
    (
        "diagnose npu np7lite port-list",
        "healthy-inferred.txt",
        Facts(&[
            ("/ports/x1/np_group", v!("NP#0")),
            ("/ports/x2/max_speed_mbps", v!(10000)),
            ("/ports/np0_0", v!(null)),
        ]),
    ),
    (
        "diagnose npu np7lite port-list",
        "not-supported.txt",
        Error(&["command parse error"]),
    ),
    (
        "diagnose npu np7lite port-list",
        "unknown-layout.txt",
        Error(&["header"]),
    ),
    (
        "diagnose sys ntp status",
        "synchronized.txt",
        Facts(&[
            ("/synchronized", v!(true)),
            ("/ntpsync", v!(true)),
            ("/servers/0/address", v!("10.0.0.1")),
            ("/servers/0/selected", v!(true)),
            ("/servers/0/stratum", v!(2)),
            ("/servers/0/offset_s", v!(0.000412)),
        ]),
    ),
    (
        "diagnose sys ntp status",
        "unsynchronized.txt",
        Facts(&[
            ("/synchronized", v!(false)),
            ("/servers/0/reachable", v!(false)),
            ("/servers/0/selected", v!(false)),
        ]),
    ),
    (
        "diagnose sys ntp status",
        "selected-wrapped-crlf.txt",
        Facts(&[
            ("/servers/0/selected", v!(false)),
            ("/servers/1/selected", v!(true)),
            ("/servers/1/offset_s", v!(-0.000652)),
        ]),
    ),
    (
        "get system ha status",
        "v70-hbdev-down.txt",
        Facts(&[
            ("/mode", v!("a-p")),
            (
                "/health_messages",
                v!([
                    "WARNING: FG201GTK24000817 has hbdev down;",
                    "WARNING: FG201GTK24000818 has hbdev down;"
                ]),
            ),
            ("/members/0/role", v!("primary")),
        ]),
    ),
    (
        "get system ha status",
        "v70-mondev-down-crlf.txt",
        Facts(&[
            (
                "/health_messages",
                v!(["WARNING: FG201GTK24000818 has mondev down;"]),
            ),
            ("/health", v!("WARNING: FG201GTK24000818 has mondev down;")),
        ]),
    ),
    (
        "get system ha status",
        "v76-standalone-inferred.txt",
        Facts(&[
            ("/mode", v!("standalone")),
            ("/health", v!("OK")),
            ("/members", v!([])),
            ("/group", v!(null)),
        ]),
    ),
    (
        "get system ha status",
        "v60-standalone-flat.txt",
        Facts(&[("/mode", v!("standalone")), ("/group", v!("0"))]),
    ),
    (
        "get system ha status",
        "unknown-health-line.txt",
        Error(&["health", "NOTICE"]),
    ),
    (
        "get system performance status",
        "one-core-softirq.txt",
        Facts(&[
            ("/per_cpu/2/cpu", v!(2)),
            ("/per_cpu/2/softirq", v!(61.0)),
            ("/per_cpu/2/idle", v!(27.0)),
            ("/cpu/idle", v!(81.0)),
        ]),
    ),
    (
        "get system performance status",
        "rebooted.txt",
        Facts(&[("/uptime_s", v!(60))]),
    ),
    (
        "get system performance status",
        "idle.txt",
        Facts(&[("/uptime_s", v!(41 * 86_400 + 3 * 3_600 + 12 * 60))]),
    ),
    (
        "get system status",
        "v767-power-cycle.txt",
        Facts(&[("/last_reboot_reason", v!("power cycle"))]),
    ),
    (
        "get system status",
        "v767-standalone.txt",
        Facts(&[("/last_reboot_reason", v!("warm reboot"))]),
    ),
    (
        "diagnose sys session list",
        "md-unicast-session-ttl-never.txt",
        Facts(&[
            ("/first/0/expire", v!("never")),
            ("/first/0/timeout", v!("never")),
            ("/least_expire", v!("never")),
            ("/timeouts/never", v!(1)),
        ]),
    ),
    (
        "diagnose sys session list",
        "md-unicast-offloaded.txt",
        Facts(&[
            ("/first/0/expire", v!(179)),
            ("/first/0/timeout", v!(0)),
            ("/least_expire", v!(179)),
            ("/timeouts/0", v!(1)),
        ]),
    ),
];

#[test]
fn trading_fixtures_give_the_facts_checks_read() {
    check_rows(ROWS);
}

#[test]
fn every_fortigate_fact_round_trips_and_reads_alike_paged() {
    for p in PARSERS.iter().filter(|p| p.platform == Platform::Fortigate) {
        for (name, raw) in p.fixtures() {
            let paged: String = raw
                .lines()
                .map(|l| format!("--More-- \r            \r{l}\r\n"))
                .collect();
            match ((p.parse)(&raw), (p.parse)(&paged)) {
                (Ok(a), Ok(b)) => {
                    assert!(
                        a.round_trips,
                        "{} {name}: the fact does not read back from {}",
                        p.command, a.json
                    );
                    assert_eq!(
                        a.json, b.json,
                        "{} {name}: paging changed the fact",
                        p.command
                    );
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!(
                    "{} {name}: plain {:?} vs paged {:?}",
                    p.command,
                    a.is_ok(),
                    b.is_ok()
                ),
            }
        }
    }
}

/// The top-level keys of each new FortiGate fact, as `premarket parse` prints them.
#[test]
fn trading_fact_keys_are_the_contract() {
    let keys: &[(&str, &[&str])] = &[
        ("get system interface", &["interfaces"]),
        (
            "show system npu",
            &[
                "max_session_timeout_s",
                "max_session_timeout_set",
                "settings",
                "blocks",
            ],
        ),
        (
            "show system session-ttl",
            &["default", "default_set", "ports"],
        ),
        ("diagnose npu np7lite port-list", &["ports"]),
        (
            "diagnose sys ntp status",
            &["synchronized", "ntpsync", "server_mode", "servers"],
        ),
        (
            "get system ha status",
            &[
                "mode",
                "health",
                "health_messages",
                "links",
                "model",
                "group",
                "members",
            ],
        ),
        (
            "get system status",
            &[
                "version",
                "build",
                "release",
                "model",
                "serial",
                "hostname",
                "ha_mode",
                "ha_role",
                "operation_mode",
                "vdom_mode",
                "current_vdom",
                "last_reboot_reason",
            ],
        ),
    ];
    check_keys(keys);
}
