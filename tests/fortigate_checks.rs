//! Every FortiGate check over recorded outputs, through the real pipeline: the example site's
//! configuration (copied to a temp dir, optionally edited), `Plan`, the offline collector reading
//! fixtures named by `Command::file_name`, parse, evaluate, report. One row per OK/FAIL/ERROR/SKIP
//! case; fixtures live in `tests/fixtures/fortigate/<command>/<case>.txt`.

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
];

struct Row {
    check: &'static str,
    /// `(command folder, case)`; case `""` leaves the file out (not collected); a case with a
    /// `/` is a path under tests/fixtures/fortigate (another command's output).
    fixtures: &'static [(&'static str, &'static str)],
    /// `(from, to)` replacements in the example fw1.yaml.
    baseline: &'static [(&'static str, &'static str)],
    status: Status,
    /// Must appear in the summary (or, prefixed `remedy:`, in the remedy).
    needles: &'static [&'static str],
}

const fn row(
    check: &'static str,
    fixtures: &'static [(&'static str, &'static str)],
    status: Status,
    needles: &'static [&'static str],
) -> Row {
    Row {
        check,
        fixtures,
        baseline: &[],
        status,
        needles,
    }
}

const AP: &[(&str, &str)] = &[("ha: { mode: standalone }", "ha: { mode: a-p, members: 2 }")];
const TWO_ALLOWED: &[(&str, &str)] = &[(
    "      service: MD-UDP-5000",
    "      service: MD-UDP-5000\n      max_sessions: 2",
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
    const LIST: &str = "diagnose-sys-session-list";
    const MCAST: &str = "diagnose-sys-mcast-session-list";
    const FILTER: &str = "diagnose-sys-session-filter";
    vec![
        row(V, &[], Ok, &["FortiOS 7.6.7 as pinned"]),
        row(
            V,
            &[("get-system-status", "v764-drift")],
            Fail,
            &["FortiOS 7.6.4 runs", "7.6.7"],
        ),
        row(
            V,
            &[("get-system-status", "unknown-action")],
            Error,
            &["Unknown action"],
        ),
        row(V, &[("get-system-status", "")], Error, &["missing"]),
        row(HA, &[], Ok, &["standalone"]),
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
        row(CPU, &[], Ok, &["CPU 2% used"]),
        row(
            CPU,
            &[("get-system-performance-status", "idle-paged")],
            Ok,
            &["CPU 2% used"],
        ),
        row(
            CPU,
            &[("get-system-performance-status", "idle-crlf")],
            Ok,
            &["CPU 2% used"],
        ),
        row(
            CPU,
            &[("get-system-performance-status", "cpu-high")],
            Fail,
            &["CPU 77% used, above the 50% ceiling"],
        ),
        row(
            CPU,
            &[(
                "get-system-performance-status",
                "get-system-status/unknown-action",
            )],
            Error,
            &["Unknown action"],
        ),
        row(MEM, &[], Ok, &["memory 31% used"]),
        row(
            MEM,
            &[("get-system-performance-status", "memory-high")],
            Fail,
            &["memory 82% used, above the 70% ceiling"],
        ),
        row(
            MEM,
            &[("get-system-performance-status", "memory-unavailable")],
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
            &["matched policy 7, the baseline says policy 1"],
        ),
        row(
            OFF,
            &[(LIST, "md-unicast-new-source-port")],
            Fail,
            &["8 of 8 session(s) on the CPU path", "not-established"],
        ),
        row(
            OFF,
            &[(MCAST, "md-multicast-cpu")],
            Fail,
            &[
                "md-multicast",
                "in_npuid=0",
                "remedy:`config firewall multicast-policy`",
            ],
        ),
        row(OFF, &[(MCAST, "md-multicast-denied")], Fail, &["npu-deny"]),
        row(
            OFF,
            &[(MCAST, "empty")],
            Fail,
            &["md-multicast", "not established"],
        ),
        row(
            OFF,
            &[(MCAST, "md-multicast-no-npu-info")],
            Error,
            &["cannot tell whether the multicast session is offloaded"],
        ),
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
                "new socket per send",
                "remedy:fixed source port",
            ],
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
            &[("show-firewall-policy", "policy1-offload-disabled")],
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
            &[("show-firewall-policy", "policy1-proxy-av")],
            Fail,
            &[
                "proxy-mode inspection with av-profile \"default\"",
                "remedy:`unset av-profile`",
            ],
        ),
        row(
            POL,
            &[("show-firewall-policy", "missing")],
            Fail,
            &["does not exist"],
        ),
        row(
            POL,
            &[("show-firewall-policy", "cut")],
            Error,
            &["output cut"],
        ),
        row(
            UDP,
            &[],
            Ok,
            &["udp-idle-timer 600 s (service \"MD-UDP-5000\") outlasts the longest pause 300 s"],
        ),
        row(
            UDP,
            &[("show-firewall-service-custom", "md-udp-default")],
            Fail,
            &[
                "udp-idle-timer 180 s (global",
                "not longer than",
                "remedy:`set udp-idle-timer",
            ],
        ),
        row(
            UDP,
            &[("show-firewall-service-custom", "missing")],
            Fail,
            &["does not exist"],
        ),
        row(
            UDP,
            &[
                ("show-firewall-service-custom", "md-udp-default"),
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
        row(IDLE, &[(LIST, "empty")], Skip, &["no session yet"]),
        row(
            IDLE,
            &[(FILTER, "stale-policy")],
            Error,
            &["read back differently"],
        ),
    ]
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

fn run(row: &Row) -> CheckResult {
    let site = site(row.baseline);
    let config = Config::load(site.path()).unwrap_or_else(|e| panic!("{e}"));
    let selection = Selection {
        checks: vec![row.check.into()],
        devices: vec!["fw1".into()],
        tags: Vec::new(),
    };
    let plan = Plan::new(&config, &selection).unwrap_or_else(|e| panic!("{e}"));
    let outputs = tempfile::tempdir().expect("temp dir");
    let fw1 = outputs.path().join("fw1");
    std::fs::create_dir_all(&fw1).expect("mkdir");
    for command in &plan.devices[0].commands {
        let folder = fixture_dir(command);
        let case = row
            .fixtures
            .iter()
            .chain(HEALTHY)
            .find(|(f, _)| *f == folder)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| panic!("no fixture for {folder}"));
        if case.is_empty() {
            continue;
        }
        let source = if case.contains('/') {
            format!("{case}.txt")
        } else {
            format!("{folder}/{case}.txt")
        };
        let source = repo().join("tests/fixtures/fortigate").join(source);
        std::fs::copy(&source, fw1.join(command.file_name()))
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    }
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let report = runtime.block_on(inspect(
        &config,
        &plan,
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
    for row in rows() {
        let result = run(&row);
        let wrong_status = result.status != row.status;
        let missing: Vec<&&str> = row
            .needles
            .iter()
            .filter(|n| match n.strip_prefix("remedy:") {
                Some(n) => !result.remedy.contains(n),
                None => !result.summary.contains(*n),
            })
            .collect();
        if wrong_status || !missing.is_empty() {
            failures.push(format!(
                "{} {:?}: got {} {:?} (remedy {:?}), want {} with {missing:?}",
                row.check, row.fixtures, result.status, result.summary, result.remedy, row.status
            ));
        }
    }
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
        assert_eq!(results.len(), 11, "{scenario}");
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
