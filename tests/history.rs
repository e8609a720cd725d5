//! The archive across runs: OK -> FAIL -> OK transitions, `premarket history`,
//! `--last-failed` and `premarket check` reruns, and concurrent runs with the run lock.

use crate::email_support;

use email_support::*;
use premarket::Report;

const ARCHIVE: &str = "archive:\n  dir: archive\n  retention_days: 30\n  lock_wait_s: 60\n";

fn json_report(out: &std::process::Output) -> Report {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

fn pairs(list: &[premarket::report::history::Transition]) -> Vec<String> {
    let mut v: Vec<String> = list
        .iter()
        .map(|t| format!("{} {}", t.check, t.device))
        .collect();
    v.sort();
    v
}

#[test]
fn ok_fail_ok_gives_newly_failing_then_fixed() {
    let site = Site::new(ARCHIVE);
    let first = json_report(&site.run("healthy", &["--format", "json", "--no-email"]));
    assert_eq!(first.changes, None, "nothing to compare the first run with");

    let out = site.run("lanz-unsaved", &["--format", "json", "--no-email"]);
    assert_eq!(out.status.code(), Some(1));
    let second = json_report(&out);
    let c = second.changes.expect("changes");
    assert_eq!(c.previous_run_id.as_deref(), Some(first.run_id.as_str()));
    assert_eq!(
        pairs(&c.newly_failing),
        ["eos.config.saved sw1", "eos.lanz.persisted sw1"]
    );
    assert!(c.fixed.is_empty() && c.still_failing.is_empty());

    let out = site.run("lanz-unsaved", &["--format", "json", "--no-email"]);
    let third = json_report(&out);
    let c = third.changes.expect("changes");
    assert_eq!(
        pairs(&c.still_failing),
        ["eos.config.saved sw1", "eos.lanz.persisted sw1"]
    );
    assert_eq!(
        c.still_failing[0].since.as_deref(),
        Some(second.started_at.as_str()),
        "failing since the second run"
    );

    let out = site.run("healthy", &["--format", "json", "--no-email"]);
    assert_eq!(out.status.code(), Some(0));
    let fourth = json_report(&out);
    let c = fourth.changes.expect("changes");
    assert_eq!(
        pairs(&c.fixed),
        ["eos.config.saved sw1", "eos.lanz.persisted sw1"]
    );
    assert!(c.newly_failing.is_empty() && c.still_failing.is_empty());

    // The terminal report says it too.
    let out = site.run("healthy", &["--no-email"]);
    assert!(
        !text(&out.stdout).contains("since the previous run"),
        "no change, nothing to say"
    );

    let out = site
        .cmd(&["history", "--check", "eos.lanz.persisted"])
        .output()
        .unwrap();
    let history = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(history.contains("Runs, newest first (5 of 5)"), "{history}");
    assert!(history.contains("eos.lanz.persisted on sw1"), "{history}");
    let at = |label: &str| {
        history
            .find(label)
            .unwrap_or_else(|| panic!("no {label:?} in\n{history}"))
    };
    assert!(
        at("first run") < at("newly failing") && at("newly failing") < at("fixed"),
        "{history}"
    );
    assert!(
        !history.contains("eos.config.saved on sw1"),
        "--check filters: {history}"
    );

    let out = site.cmd(&["history", "--last", "2"]).output().unwrap();
    let window = text(&out.stdout);
    assert!(window.contains("Runs, newest first (2 of 5)"), "{window}");
    // Results older than the window are not a "first run": the window knows what came before.
    assert!(!window.contains("first run"), "{window}");
    let lanz = window
        .find("eos.lanz.persisted on sw1")
        .unwrap_or_else(|| panic!("{window}"));
    assert!(
        window[lanz..].contains("before these runs: FAIL") && window[lanz..].contains("fixed"),
        "{window}"
    );
    // Offline replays written to the archive are marked as such.
    assert!(window.contains(" offline "), "{window}");
}

#[test]
fn last_failed_reruns_exactly_what_failed_and_a_fixed_rerun_closes_it() {
    let site = Site::new(ARCHIVE);
    let saved = crate::email_support::scenario("lanz-unsaved");
    let out = site
        .cmd(&["run", "--last-failed", "--offline", saved.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "no archive yet: {}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("holds no run yet"),
        "{}",
        text(&out.stderr)
    );

    assert_eq!(
        site.run("lanz-unsaved", &["--no-email"]).status.code(),
        Some(1)
    );

    // Fix one check and rerun it alone: it is "fixed", the report is partial. (It explains
    // nothing, so it is rechecked alone: its cause, eos.lanz.persisted, stands.)
    let out = site
        .cmd(&[
            "check",
            "eos.config.saved",
            "--offline",
            scenario("healthy").to_str().unwrap(),
            "--format",
            "json",
            "--no-email",
            "--archive",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rerun = json_report(&out);
    assert!(rerun.partial);
    assert_eq!(rerun.results.len(), 1);
    // The rerun shows the standing state: lanz.persisted still FAILs from the full run.
    assert_eq!(rerun.standing_status, Some(premarket::Status::Fail));
    let standing: Vec<String> = rerun
        .standing
        .iter()
        .map(|r| format!("{} {} {}", r.status, r.check, r.judged_in.is_some()))
        .collect();
    assert!(
        standing.contains(&"FAIL eos.lanz.persisted true".to_string()),
        "{standing:?}"
    );
    assert!(
        text(&out.stderr).contains("still stand as FAIL or ERROR"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        pairs(&rerun.changes.expect("changes").fixed),
        ["eos.config.saved sw1"]
    );

    // --last-failed now selects only what is still failing.
    let out = site.run(
        "healthy",
        &["--last-failed", "--format", "json", "--no-email"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_report(&out);
    let checks: Vec<&str> = report.results.iter().map(|r| r.check.as_str()).collect();
    assert_eq!(checks, ["eos.lanz.persisted"], "{}", text(&out.stderr));
    assert!(report.partial);
    assert_eq!(
        pairs(&report.changes.expect("changes").fixed),
        ["eos.lanz.persisted sw1"]
    );

    let out = site.run("healthy", &["--last-failed", "--no-email"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("nothing to rerun"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_second_full_run_waits_then_exits_3_while_reruns_go_ahead() {
    let site = Site::new("archive:\n  dir: archive\n  lock_wait_s: 1\n");
    let held = premarket::report::lock::RunLock::acquire(
        &site.archive(),
        std::time::Duration::ZERO,
        "pid 1, full run started by the test",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let out = site.run("healthy", &["--no-email"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("another full run is in progress (pid 1, full run started by the test"),
        "{stderr}"
    );
    assert!(
        start.elapsed() >= std::time::Duration::from_secs(1),
        "waited the bound first"
    );

    let out = site
        .cmd(&[
            "check",
            "eos.lanz.*",
            "--offline",
            scenario("healthy").to_str().unwrap(),
            "--no-email",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "a rerun needs no lock: {}",
        text(&out.stderr)
    );
    drop(held);
    assert_eq!(site.run("healthy", &["--no-email"]).status.code(), Some(0));
}

#[test]
fn concurrent_runs_keep_the_archive_whole() {
    let site = Site::new(ARCHIVE);
    let healthy = scenario("healthy");
    let unsaved = scenario("lanz-unsaved");
    let mut children = Vec::new();
    for i in 0..6 {
        let offline = if i % 2 == 0 { &healthy } else { &unsaved };
        let mut args = vec![
            "run",
            "--offline",
            offline.to_str().unwrap(),
            "--no-email",
            "--archive",
        ];
        if i >= 4 {
            args.extend(["--check", "eos.lanz.persisted"]);
        }
        let mut cmd = std::process::Command::new(bin());
        cmd.arg("--dir")
            .arg(site.path())
            .args(&args)
            .env("PREMARKET_SW1_PASSWORD", SW1_PASSWORD);
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        children.push(cmd.spawn().unwrap());
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            text(&out.stderr)
        );
    }
    let archive = premarket::report::archive::Archive::new(site.archive());
    let (reports, problems) = archive.reports().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(reports.len(), 6);
    let mut ids: Vec<&str> = reports.iter().map(|r| r.run_id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 6, "unique run ids");
    let leftovers: Vec<_> = std::fs::read_dir(site.archive())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    for r in &reports {
        assert!(
            site.archive().join(&r.run_id).join("raw/sw1").is_dir(),
            "{} has its raw outputs",
            r.run_id
        );
    }
}
