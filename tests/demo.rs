//! End to end over real SSH on loopback: `premarket demo` starts the emulated FortiGate and
//! switch with one fault, inspects them through the SSH client with the example site, and
//! writes the email. Every scenario must give exactly the expected verdicts; a fault on one
//! device gives that device ERROR with a one-line reason while the other finishes.

use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// (scenario, every result that is not OK as "STATUS device check"). All other checks are OK.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("healthy", &[]),
    (
        "lanz-unsaved",
        &["FAIL sw1 eos.lanz.persisted", "FAIL sw1 eos.config.saved"],
    ),
    (
        "lanz-off",
        &["FAIL sw1 eos.lanz.running", "FAIL sw1 eos.lanz.persisted"],
    ),
    ("config-unsaved", &["FAIL sw1 eos.config.saved"]),
    (
        "offload-disabled",
        &[
            "FAIL fw1 fortigate.flows.offloaded",
            "FAIL fw1 fortigate.policy.offload",
        ],
    ),
    (
        "new-source-port",
        &[
            "FAIL fw1 fortigate.flows.offloaded",
            "FAIL fw1 fortigate.flows.single-session",
            "FAIL fw1 fortigate.sessions.npu",
        ],
    ),
    (
        "not-established",
        &[
            "FAIL fw1 fortigate.flows.offloaded",
            "SKIP fw1 fortigate.flows.single-session",
            "SKIP fw1 fortigate.session.idle-margin",
        ],
    ),
    (
        "idle-expired",
        &[
            "FAIL fw1 fortigate.service.udp-idle",
            "FAIL fw1 fortigate.session.idle-margin",
        ],
    ),
    ("ha-mismatch", &["FAIL fw1 fortigate.ha.state"]),
    (
        "cpu-high",
        &[
            "FAIL fw1 fortigate.cpu.ceiling",
            "FAIL fw1 fortigate.sessions.npu",
        ],
    ),
    (
        "version-drift",
        &[
            "FAIL fw1 fortigate.version.pinned",
            "FAIL sw1 eos.version.pinned",
        ],
    ),
    ("pager", &[]),
    ("banner", &[]),
    ("slow", &[]),
    ("hang", &["ERROR fw1 *"]),
    ("drop", &["ERROR sw1 *"]),
    ("auth-fail", &["ERROR sw1 *"]),
    ("host-key-changed", &["ERROR fw1 *"]),
];

const CHECKS_PER_DEVICE: [(&str, usize); 2] = [("fw1", 10), ("sw1", 4)];

fn demo(scenario: &str, home: &std::path::Path) -> (i32, Value, Duration) {
    let start = Instant::now();
    let out = Command::cargo_bin("premarket")
        .expect("binary")
        .args(["demo", "--scenario", scenario, "--format", "json", "--home"])
        .arg(home)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{scenario}: no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report, start.elapsed())
}

fn expected(pattern: &str, status: &str, device: &str, check: &str) -> bool {
    let mut parts = pattern.split(' ');
    let (s, d, c) = (parts.next(), parts.next(), parts.next());
    s == Some(status) && d == Some(device) && (c == Some("*") || c == Some(check))
}

#[test]
fn every_scenario_gives_the_expected_verdicts() {
    let home = tempfile::tempdir().expect("tempdir");
    for (scenario, not_ok) in SCENARIOS {
        let (code, report, took) = demo(scenario, home.path());
        let results = report["results"].as_array().expect("results");
        let total: usize = CHECKS_PER_DEVICE.iter().map(|(_, n)| n).sum();
        assert_eq!(
            results.len(),
            total,
            "{scenario}: every check of both devices reports"
        );
        let row = |r: &Value| {
            let field = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (
                field("status"),
                field("device"),
                field("check"),
                field("summary"),
            )
        };
        for (status, device, check, summary) in results.iter().map(row) {
            let matched = not_ok.iter().any(|p| expected(p, &status, &device, &check));
            assert_eq!(
                status != "OK",
                matched,
                "{scenario}: {status} {device} {check}: {summary}"
            );
            if status == "ERROR" {
                assert!(
                    !summary.is_empty() && !summary.contains('\n'),
                    "{scenario}: ERROR reason must be one line: {summary:?}"
                );
            }
        }
        for pattern in *not_ok {
            let hits = results
                .iter()
                .map(row)
                .filter(|(s, d, c, _)| expected(pattern, s, d, c))
                .count();
            let want = match CHECKS_PER_DEVICE
                .iter()
                .find(|(d, _)| pattern.ends_with(&format!("{d} *")))
            {
                Some((_, every_check)) => *every_check,
                None => 1,
            };
            assert_eq!(hits, want, "{scenario}: expected {pattern}");
        }
        let want_code = if not_ok.iter().any(|p| p.starts_with("FAIL")) {
            1
        } else if not_ok.iter().any(|p| p.starts_with("ERROR")) {
            2
        } else {
            0
        };
        assert_eq!(code, want_code, "{scenario}: exit code");
        // The demo's command timeout is 5 s; the slow device answers each command 2 s late.
        assert!(took < Duration::from_secs(90), "{scenario} took {took:?}");
    }
}

#[test]
fn host_key_change_is_said_loudly() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_, report, _) = demo("host-key-changed", home.path());
    let summary = report["results"][0]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let all: Vec<&str> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["summary"].as_str())
        .collect();
    assert!(
        all.iter().any(|s| s.contains("HOST KEY CHANGED")),
        "{summary}"
    );
}

#[test]
fn rerun_after_the_fix_shows_it_fixed_and_the_email_is_written() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, _, _) = demo("lanz-unsaved", home.path());
    assert_eq!(code, 1);
    let eml = std::fs::read_to_string(home.path().join("last.eml")).expect("email written");
    assert!(eml.contains("Subject: [premarket] FAIL lab"), "subject");
    // The "fix": the healthy lab has LANZ saved. Rerun the one check.
    let out = Command::cargo_bin("premarket")
        .expect("binary")
        .args(["demo", "--check", "eos.lanz.persisted", "--home"])
        .arg(home.path())
        .timeout(Duration::from_secs(120))
        .output()
        .expect("rerun");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("fixed: eos.lanz.persisted on sw1"),
        "{stdout}"
    );
}
