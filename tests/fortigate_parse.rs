//! The `premarket parse fortigate "<command>"` contract: the fact keys the issue names, paged
//! and CRLF output giving identical facts, and the example site's offline scenarios holding a
//! saved output for every command fw1's plan sends.

use std::path::PathBuf;

use assert_cmd::Command as Bin;
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
    has_keys(&list, &["total", "sessions"], "session list");
    has_keys(
        &list["sessions"][0],
        &[
            "proto",
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
    assert_eq!(list["sessions"][0]["offload_org"], true);

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
    assert_eq!(
        policy["root"]["children"]["firewall policy"]["children"]["1"]["settings"]["auto-asic-offload"]
            [0],
        "disable"
    );
    let global = parse_cli("get system global", "get-system-global/default.txt");
    assert_eq!(global["root"]["settings"]["udp-idle-timer"][0], "180");
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
        for command in &plan.devices[0].commands {
            let path = root
                .join("tests/fixtures/site")
                .join(scenario)
                .join("fw1")
                .join(command.file_name());
            assert!(
                path.is_file(),
                "{scenario}: no saved output for `{command}` ({})",
                path.display()
            );
        }
    }
}
