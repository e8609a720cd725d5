//! Hostile device output, class by class (issue 9 §3), through the entry the pipeline uses
//! (`premarket::platform::parse_json`, what `premarket parse` runs): deep nesting, impossible values, keys printed twice with two values,
//! another command's output, inputs built to be slow, and control characters. Each must be an
//! error with a short, escaped excerpt, never a panic, a stack overflow or a plausible fact.
//! (The new trading-check parsers get the same classes in `parse_props.rs`.)

use std::time::{Duration, Instant};

use premarket::Platform::{self, Eos, Fortigate};
use premarket::platform::parse_json;

fn fixture(path: &str) -> String {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(
    platform: Platform,
    command: &str,
    raw: &str,
) -> Result<serde_json::Value, premarket::parse::ParseError> {
    parse_json(platform, command, raw)
}

/// Every existing (platform, command) with a healthy fixture.
const EXISTING: &[(Platform, &str, &str)] = &[
    (
        Eos,
        "show version | json",
        "eos/show-version/json-4.31.6M.txt",
    ),
    (Eos, "show version", "eos/show-version/text-new.txt"),
    (
        Eos,
        "show queue-monitor length status | json",
        "eos/show-queue-monitor-length-status/json-enabled.txt",
    ),
    (
        Eos,
        "show startup-config",
        "eos/show-startup-config/lanz-saved.txt",
    ),
    (
        Eos,
        "show running-config diffs",
        "eos/show-running-config-diffs/unsaved.txt",
    ),
    (
        Fortigate,
        "get system status",
        "fortigate/get-system-status/v767-standalone.txt",
    ),
    (
        Fortigate,
        "get system performance status",
        "fortigate/get-system-performance-status/idle.txt",
    ),
    (
        Fortigate,
        "get system ha status",
        "fortigate/get-system-ha-status/ap-in-sync.txt",
    ),
    (
        Fortigate,
        "get system global",
        "fortigate/get-system-global/default.txt",
    ),
    (
        Fortigate,
        "diagnose sys session stat",
        "fortigate/diagnose-sys-session-stat/healthy.txt",
    ),
    (
        Fortigate,
        "diagnose sys session filter",
        "fortigate/diagnose-sys-session-filter/md-unicast.txt",
    ),
    (
        Fortigate,
        "diagnose sys session list",
        "fortigate/diagnose-sys-session-list/md-unicast-offloaded.txt",
    ),
    (
        Fortigate,
        "diagnose sys mcast-session list",
        "fortigate/diagnose-sys-mcast-session-list/md-multicast-offloaded.txt",
    ),
    (
        Fortigate,
        "show firewall policy 1",
        "fortigate/show-firewall-policy/policy1-offload.txt",
    ),
];

/// The same output edited: `to` replaces the first `from` (which must be there).
fn edited(path: &str, from: &str, to: &str) -> String {
    let text = fixture(path);
    assert!(text.contains(from), "{path} has no {from:?}");
    text.replacen(from, to, 1)
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // 100,000 nested blocks overflowed the stack of the first release and aborted the run.
    let configs = format!(
        "{}{}",
        "config a\n".repeat(100_000),
        "end\n".repeat(100_000)
    );
    let edits = format!(
        "config firewall policy\n{}{}end\n",
        "edit 1\n".repeat(100_000),
        "next\n".repeat(100_000)
    );
    for raw in [&configs, &edits] {
        for command in ["show firewall policy 1", "get system global"] {
            assert!(parse(Fortigate, command, raw).is_err(), "{command}");
        }
    }
    let json = format!("{}{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let arrays = format!(
        "{{\"version\": \"4.32.2F\", \"x\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    for raw in [&json, &arrays] {
        for command in [
            "show version | json",
            "show queue-monitor length status | json",
        ] {
            assert!(parse(Eos, command, raw).is_err(), "{command}");
        }
    }
}

#[test]
fn impossible_values_are_errors() {
    let perf = "fortigate/get-system-performance-status/idle.txt";
    let stat = "fortigate/diagnose-sys-session-stat/healthy.txt";
    let list = "fortigate/diagnose-sys-session-list/md-unicast-offloaded.txt";
    let mcast = "fortigate/diagnose-sys-mcast-session-list/md-multicast-offloaded.txt";
    let status = "fortigate/get-system-status/v767-standalone.txt";
    let rows: &[(&str, &str, &str, &str)] = &[
        (
            "get system performance status",
            perf,
            "98% idle",
            "NaN% idle",
        ),
        (
            "get system performance status",
            perf,
            "98% idle",
            "198% idle",
        ),
        ("get system performance status", perf, "1% user", "-1% user"),
        ("get system performance status", perf, "(31.0%)", "(131.0%)"),
        (
            "get system performance status",
            perf,
            "Average sessions: 312",
            "Average sessions: -312",
        ),
        (
            "get system performance status",
            perf,
            "Average NPU sessions: 2",
            "Average NPU sessions: 99999999999999999999999",
        ),
        (
            "get system performance status",
            perf,
            "41 days",
            "999999999999999999 days",
        ),
        (
            "diagnose sys session stat",
            stat,
            "session_count=312",
            "session_count=99999999999",
        ),
        (
            "diagnose sys session stat",
            stat,
            "npu_session_count=2",
            "npu_session_count=-2",
        ),
        (
            "diagnose sys session list",
            list,
            "expire=179",
            "expire=-179",
        ),
        (
            "diagnose sys session list",
            list,
            "duration=412",
            "duration=99999999999999999999",
        ),
        ("diagnose sys session list", list, "proto=17", "proto=999"),
        (
            "diagnose sys session list",
            list,
            "total session 1",
            "total session 99999999999",
        ),
        (
            "diagnose sys mcast-session list",
            mcast,
            "expire=",
            "expire=-",
        ),
        ("get system status", status, "build3651", "build99999999999"),
    ];
    for (command, path, from, to) in rows {
        let raw = edited(path, from, to);
        assert!(
            parse(Fortigate, command, &raw).is_err(),
            "{command}: {to} was accepted"
        );
    }
    for (from, to) in [
        ("\"version\"", "\"uptime\": -5, \"version\""),
        ("\"version\"", "\"uptime\": 1e300, \"version\""),
    ] {
        let raw = edited("eos/show-version/json-4.31.6M.txt", from, to);
        assert!(parse(Eos, "show version | json", &raw).is_err(), "{to}");
    }
}

#[test]
fn keys_printed_twice_with_two_values_are_errors() {
    // (platform, command, fixture, text, the same text repeated identically, repeated with another value)
    let rows: &[(Platform, &str, &str, &str, &str, &str)] = &[
        (
            Fortigate,
            "get system status",
            "fortigate/get-system-status/v767-standalone.txt",
            "Hostname: FGT201G\n",
            "Hostname: FGT201G\nHostname: FGT201G\n",
            "Hostname: FGT201G\nHostname: other\n",
        ),
        (
            Fortigate,
            "get system performance status",
            "fortigate/get-system-performance-status/idle.txt",
            "Uptime: 41 days,  3 hours,  12 minutes\n",
            "Uptime: 41 days,  3 hours,  12 minutes\nUptime: 41 days, 3 hours, 12 minutes\n",
            "Uptime: 41 days,  3 hours,  12 minutes\nUptime: 1 days, 0 hours, 0 minutes\n",
        ),
        (
            Fortigate,
            "get system ha status",
            "fortigate/get-system-ha-status/ap-in-sync.txt",
            "Mode: HA A-P\n",
            "Mode: HA A-P\nMode: HA A-P\n",
            "Mode: HA A-P\nMode: standalone\n",
        ),
        (
            Fortigate,
            "diagnose sys session stat",
            "fortigate/diagnose-sys-session-stat/healthy.txt",
            "setup_rate=3",
            "setup_rate=3 setup_rate=3",
            "setup_rate=3 setup_rate=900",
        ),
        (
            Fortigate,
            "diagnose sys session filter",
            "fortigate/diagnose-sys-session-filter/md-unicast.txt",
            "proto: 17\n",
            "proto: 17\n        proto: 17\n",
            "proto: 17\n        proto: 6\n",
        ),
        (
            Fortigate,
            "diagnose sys session list",
            "fortigate/diagnose-sys-session-list/md-unicast-offloaded.txt",
            "policy_id=1 ",
            "policy_id=1 policy_id=1 ",
            "policy_id=1 policy_id=7 ",
        ),
        (
            Fortigate,
            "show firewall policy 1",
            "fortigate/show-firewall-policy/policy1-offload.txt",
            "set action accept\n",
            "set action accept\n        set action accept\n",
            "set action accept\n        set action deny\n",
        ),
        (
            Eos,
            "show version | json",
            "eos/show-version/json-4.31.6M.txt",
            "\"version\"",
            "\"version\": \"4.31.6M\", \"version\"",
            "\"version\": \"9.9.9F\", \"version\"",
        ),
        (
            Eos,
            "show queue-monitor length status | json",
            "eos/show-queue-monitor-length-status/json-enabled.txt",
            "\"lanzEnabled\"",
            "\"lanzEnabled\": true, \"lanzEnabled\"",
            "\"lanzEnabled\": false, \"lanzEnabled\"",
        ),
    ];
    for (platform, command, path, from, same, other) in rows {
        let repeated = edited(path, from, same);
        assert!(
            parse(*platform, command, &repeated).is_ok(),
            "{command}: an identical repeat was refused"
        );
        let disagreeing = edited(path, from, other);
        assert!(
            parse(*platform, command, &disagreeing).is_err(),
            "{command}: a disagreeing repeat was accepted"
        );
    }
}

#[test]
fn another_commands_output_is_an_error() {
    let shared = |a: &str, b: &str| {
        let tree = ["get system global", "show firewall policy 1"];
        (tree.contains(&a) && tree.contains(&b))
            || (a.starts_with("show version") && b.starts_with("show version"))
    };
    for (platform, command, _) in EXISTING {
        for (other_platform, other, path) in EXISTING {
            if command == other || shared(command, other) {
                continue;
            }
            let raw = fixture(path);
            if let Ok(json) = parse(*platform, command, &raw) {
                panic!("{command} accepted the output of {other_platform} `{other}`: {json}");
            }
        }
    }
}

/// Inputs built to make a quadratic parser slow must finish in (debug-build) seconds. The bound
/// separates linear from quadratic, not fast from slow (speed is measured in benchmarks): each
/// input is 60,000 to 600,000 lines, read in 1-3 s by a debug build on a loaded 2-core machine,
/// where a parser quadratic in lines would take minutes.
#[test]
fn crafted_inputs_finish_in_linear_time() {
    let limit = Duration::from_secs(30);
    let members: String = (0..60_000)
        .map(|n| format!("Primary     : FGT , FG201GTK{n:08}, HA cluster index = 1\n"))
        .collect();
    let prompts = format!("{}{{\"version\": \"4.32.2F\"}}\n", "sw1#\n".repeat(200_000));
    let text_prompts = format!(
        "{}Software image version: 4.32.2F\n",
        "sw1#\n".repeat(200_000)
    );
    let chain = format!("{}{}", "config a\n".repeat(60), "end\n".repeat(60)).repeat(3_000);
    let cases: Vec<(Platform, &str, String)> = vec![
        (
            Fortigate,
            "get system ha status",
            format!("Mode: HA A-P\n{members}"),
        ),
        (Eos, "show version | json", prompts),
        (Eos, "show version", text_prompts),
        (Fortigate, "get system global", chain),
    ];
    for (platform, command, raw) in cases {
        let start = Instant::now();
        let _ = parse(platform, command, &raw);
        let took = start.elapsed();
        assert!(took < limit, "{command}: {took:?} for {} bytes", raw.len());
    }
}

#[test]
fn excerpts_escape_control_characters() {
    let hostile = "\u{1b}[2J\u{1b}[H\u{7}OK: all checks passed\r\u{9b}31m\u{8}\u{8}\n";
    for (platform, command, _) in EXISTING {
        let Err(e) = parse(*platform, command, hostile) else {
            panic!("{command}: accepted terminal escapes");
        };
        for text in [&e.reason, &e.excerpt] {
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{command}: control characters in {text:?}"
            );
        }
        assert!(e.excerpt.len() < 2_000, "{command}: a long excerpt");
    }
}
