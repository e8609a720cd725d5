//! The command line as cron and operators use it: every exit code of DESIGN §3, the report
//! formats, selection, plan and parse.

use crate::common;

use assert_cmd::Command;

/// The binary under test: `PREMARKET_BIN` when set (an installed build, or a worktree's own
/// build when several share a target directory), else cargo's.
fn bin() -> std::path::PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

fn premarket(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .current_dir(common::repo())
        .env_remove("PREMARKET_DIR")
        .args(args)
        .output()
        .expect("run");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn exit_codes() {
    let missing = tempfile::tempdir().expect("tempdir");
    let missing = missing.path().to_str().expect("utf-8 path");
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &[
                "run",
                "--offline",
                "tests/fixtures/site/healthy",
                "--device",
                "sw1",
            ],
            0,
            "OK: 20 OK, 1 SKIP",
        ),
        (
            &[
                "run",
                "--offline",
                "tests/fixtures/site/lanz-incident",
                "--device",
                "sw1",
            ],
            1,
            "FAIL",
        ),
        (
            &["run", "--offline", missing, "--device", "sw1"],
            2,
            "ERROR: 21 ERROR",
        ),
        (
            &[
                "check",
                "eos.lanz.persisted",
                "--offline",
                "tests/fixtures/site/lanz-incident",
            ],
            1,
            "eos.lanz.persisted",
        ),
        (
            &[
                "check",
                "eos.lanz.running",
                "--offline",
                "tests/fixtures/site/lanz-incident",
            ],
            0,
            "1 OK",
        ),
        (
            &["run", "--check", "eos.nothing.here", "--offline", missing],
            3,
            "no check matches eos.nothing.here",
        ),
        (
            &["run", "--check", "eos.lanz.persistd", "--offline", missing],
            3,
            "did you mean eos.lanz.persisted?",
        ),
        (
            &[
                "check",
                "fortigate.ha.state",
                "--device",
                "sw1",
                "--offline",
                missing,
            ],
            3,
            "fortigate.ha.state is a fortigate check, and sw1 is not a fortigate device (fortigate: fw1)",
        ),
        (
            &["run", "--device", "sw2", "--offline", missing],
            3,
            "no device is named sw2; did you mean sw1?",
        ),
        (
            &["run", "--offline", "/nonexistent/saved"],
            3,
            "--offline /nonexistent/saved: no such directory",
        ),
        (
            &["run", "--device", "sw9", "--offline", missing],
            3,
            "no device is named sw9",
        ),
        (&["run", "--frobnicate"], 3, "--frobnicate"),
        (
            &["run", "--dir", "/nonexistent", "--offline", missing],
            3,
            "give the configuration directory with --dir DIR or PREMARKET_DIR=DIR",
        ),
        (&["--help"], 0, "Usage"),
        (&["validate"], 0, "configuration OK"),
    ];
    for (args, code, needle) in cases {
        let (got, stdout, stderr) = premarket(args);
        assert_eq!(got, *code, "{args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        assert!(
            stdout.contains(needle) || stderr.contains(needle),
            "{args:?}: {needle:?} not in\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn text_report_puts_failures_first_and_has_no_colour_off_a_terminal() {
    let (_, stdout, _) = premarket(&[
        "run",
        "--offline",
        "tests/fixtures/site/lanz-incident",
        "--device",
        "sw1",
    ]);
    let fail = stdout
        .find("FAIL sw1 eos.lanz.persisted")
        .expect("FAIL row");
    let ok = stdout.find("OK    sw1 eos.lanz.running").expect("OK row");
    assert!(fail < ok, "{stdout}");
    assert!(
        stdout.contains("remedy:") && stdout.contains("write memory"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\u{1b}'),
        "escape codes in piped output:\n{stdout}"
    );
}

/// Each finding is one line a script can grep: `FAIL|ERROR DEVICE CHECK — ...` at column 0, one
/// per result that needs attention and in the JSON report's order; no other line starts with a
/// verdict word. On the saved morning of a sender that opens a socket per send, the cause comes
/// first and its symptoms (not offloaded, setup rate, CPU) follow it.
#[test]
fn findings_are_one_greppable_line_each_in_the_json_order() {
    let scenarios = [
        "healthy",
        "lanz-incident",
        "new-source-port",
        "offload-disabled",
        "not-established",
        "ntp-unsynchronised",
        "crc-errors",
    ];
    for scenario in scenarios {
        let dir = format!("tests/fixtures/site/{scenario}");
        let (_, text, _) = premarket(&["run", "--offline", &dir]);
        let (_, json, _) = premarket(&["run", "--offline", &dir, "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let field = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap_or("?").to_string();
        let want: Vec<String> = report["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter(|r| matches!(r["status"].as_str(), Some("FAIL" | "ERROR")))
            .map(|r| {
                let (status, device) = (field(r, "status"), field(r, "device"));
                format!("{status} {device} {} — ", field(r, "check"))
            })
            .collect();
        let got: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("FAIL") || l.starts_with("ERROR"))
            .collect();
        assert_eq!(
            got.len(),
            want.len(),
            "{scenario}: {got:#?}\nwant {want:#?}"
        );
        for (line, start) in got.iter().zip(&want) {
            assert!(
                line.starts_with(start.as_str()),
                "{scenario}: {line:?} is not {start:?}"
            );
        }
        if scenario == "new-source-port" {
            let at = |id: &str| want.iter().position(|w| w.contains(id));
            let cause = at("fortigate.flows.single-session");
            assert_eq!(cause, Some(0), "{want:#?}");
            for symptom in [
                "fortigate.flows.offloaded",
                "fortigate.sessions.npu",
                "fortigate.cpu.ceiling",
            ] {
                assert!(at(symptom) > cause, "{symptom} before its cause: {want:#?}");
            }
        }
    }
}

#[test]
fn json_report_has_the_design_keys() {
    let (code, stdout, _) = premarket(&[
        "run",
        "--offline",
        "tests/fixtures/site/lanz-incident",
        "--device",
        "sw1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    for key in [
        "run_id",
        "site",
        "started_at",
        "finished_at",
        "status",
        "counts",
        "results",
    ] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    assert_eq!(report["status"], "FAIL");
    assert_eq!(report["counts"]["fail"], 2);
    assert!(
        report["started_at"]
            .as_str()
            .expect("string")
            .ends_with("+08:00"),
        "site time zone offset"
    );
    let result = &report["results"].as_array().expect("results")[0];
    for key in [
        "check",
        "device",
        "status",
        "title",
        "summary",
        "expected",
        "actual",
        "evidence",
        "remedy",
        "duration_ms",
    ] {
        assert!(result.get(key).is_some(), "result lacks {key}");
    }
}

#[test]
fn plan_sends_each_command_once_in_order() {
    let (code, stdout, _) = premarket(&["plan", "--device", "sw1"]);
    assert_eq!(code, 0);
    // Two checks need the LANZ status; it is sent once.
    assert_eq!(
        stdout
            .matches("show queue-monitor length status | json")
            .count(),
        1,
        "{stdout}"
    );
    let version = stdout.find("show version | json").expect("version");
    let diffs = stdout.find("show running-config diffs").expect("diffs");
    assert!(version < diffs);
}

#[test]
fn list_shows_checks_devices_commands_and_tags() {
    let (code, stdout, _) = premarket(&["list", "--tag", "lanz"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("eos.lanz.persisted") && stdout.contains("tags: lanz, config"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("eos.version.pinned"),
        "tag filter ignored:\n{stdout}"
    );
}

#[test]
fn parse_prints_contract_keys_or_fails_with_an_excerpt() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "show version",
            "eos/show-version/text-old-padded-crlf.txt",
            &["version", "model", "serial"],
        ),
        (
            "show version | json",
            "eos/show-version/json-4.31.6M.txt",
            &["version", "model", "serial"],
        ),
        (
            "show queue-monitor length status",
            "eos/show-queue-monitor-length-status/text-enabled.txt",
            &["lanz_enabled"],
        ),
        (
            "show running-config diffs",
            "eos/show-running-config-diffs/unsaved.txt",
            &["empty", "added", "removed"],
        ),
        (
            "show startup-config",
            "eos/show-startup-config/lanz-saved.txt",
            &["has_queue_monitor_length", "hostname"],
        ),
    ];
    for (command, fixture, keys) in cases {
        let path = common::fixture(fixture);
        let (code, stdout, stderr) =
            premarket(&["parse", "eos", command, path.to_str().expect("path")]);
        assert_eq!(code, 0, "{command}: {stderr}");
        let facts: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        for key in *keys {
            assert!(facts.get(*key).is_some(), "{command}: no {key} in {stdout}");
        }
    }
    let bad = common::fixture("eos/show-startup-config/not-privileged.txt");
    let (code, _, stderr) = premarket(&[
        "parse",
        "eos",
        "show startup-config",
        bad.to_str().expect("path"),
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("privileged mode required") && stderr.contains("excerpt"),
        "{stderr}"
    );
}

#[test]
fn parse_reads_standard_input() {
    let out = Command::new(bin())
        .args(["parse", "eos", "show queue-monitor length status | json"])
        .write_stdin("{\"lanzEnabled\": false}\n")
        .output()
        .expect("run");
    assert!(out.status.success());
    let facts: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(facts["lanz_enabled"], false);
}

#[test]
fn every_flag_has_help_and_completions_and_a_man_page_are_generated() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&premarket::cli::Cli::command(), "premarket", &mut missing);
    assert!(missing.is_empty(), "flags without --help text: {missing:?}");

    // The script registers premarket itself as the completer: the candidates come from the
    // site when the shell asks.
    let (code, bash, _) = premarket(&["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(
        bash.contains("COMPLETE=\"bash\"") && bash.contains("complete -o nospace"),
        "{bash}"
    );
    let complete = |words: &[&str]| {
        let out = Command::new(bin())
            .current_dir(common::repo())
            .env_remove("PREMARKET_DIR")
            .env("COMPLETE", "bash")
            .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
            .env("_CLAP_IFS", "\n")
            .arg("--")
            .args(words)
            .output()
            .expect("run");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let ids = complete(&["premarket", "check", "eos.lanz.pers"]);
    assert!(ids.lines().any(|l| l == "eos.lanz.persisted"), "{ids}");
    let devices = complete(&["premarket", "run", "--device", ""]);
    assert!(devices.lines().any(|l| l == "fw1"), "{devices}");
    assert!(devices.lines().any(|l| l == "sw1"), "{devices}");
    let scenarios = complete(&["premarket", "demo", "--scenario", "micro"]);
    assert!(scenarios.lines().any(|l| l == "microburst"), "{scenarios}");
    let (_, help, _) = premarket(&["--help"]);
    assert!(
        help.contains("completions") && help.contains("man"),
        "{help}"
    );
    let (_, demo_help, _) = premarket(&["demo", "--help"]);
    for scenario in [
        "new-source-port",
        "hang",
        "rebooted",
        "microburst",
        "lanz-unsaved",
    ] {
        assert!(
            demo_help.contains(scenario),
            "{scenario} not in demo --help:\n{demo_help}"
        );
    }
    let (code, man, _) = premarket(&["man"]);
    assert_eq!(code, 0);
    assert!(man.contains(".TH premarket 1"), "{man}");
    for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "PREMARKET_DIR"] {
        assert!(man.contains(section), "{section} not in the man page");
    }
    let pages = tempfile::tempdir().expect("tempdir");
    let out = pages.path().to_str().expect("utf-8 path");
    let (code, said, _) = premarket(&["man", "--out", out]);
    assert_eq!(code, 0, "{said}");
    for page in [
        "premarket.1",
        "premarket-run.1",
        "premarket-check.1",
        "premarket-history.1",
    ] {
        let text = std::fs::read_to_string(pages.path().join(page)).expect(page);
        assert!(text.contains(".SH \"EXIT STATUS\""), "{page}");
    }
}
