//! Time and archives are hostile input too: a run archived while the clock was ahead (2099)
//! never stays "the newest" for `history` and `--last-failed`, and is flagged; escape sequences
//! stored in an archived report never reach the terminal; a closed stdout or stderr never
//! panics, and the run's exit code stands.

use crate::email_support;

use std::path::{Path, PathBuf};

use email_support::{Site, bin, scenario, text};
use serde_json::Value;

const ARCHIVE: &str = "archive:\n  dir: archive\n";
const FUTURE_ID: &str = "20991130T081500.000";
const FUTURE_AT: &str = "2099-11-30T08:15:00.000+08:00";

/// The archive's run directories.
fn runs(site: &Site) -> Vec<PathBuf> {
    std::fs::read_dir(site.archive())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("report.json").is_file())
        .collect()
}

/// Rewrites a run's report.json through `change`.
fn edit_report(run: &Path, change: impl FnOnce(&mut Value)) {
    let path = run.join("report.json");
    let mut report: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    change(&mut report);
    std::fs::write(&path, serde_json::to_vec_pretty(&report).unwrap()).unwrap();
}

fn run_id(out: &std::process::Output) -> String {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stderr)));
    report["run_id"].as_str().unwrap().to_string()
}

/// The newest run `history` lists (the first line under its heading) and the whole listing.
fn history(site: &Site) -> (String, String) {
    let out = site.cmd(&["history"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    let newest = listing
        .lines()
        .skip_while(|l| !l.starts_with("Runs, newest first"))
        .nth(1)
        .unwrap_or_default()
        .to_string();
    (newest, listing)
}

#[test]
fn a_run_dated_in_the_future_is_flagged_and_never_the_newest() {
    let site = Site::new(ARCHIVE);
    // The clock was ahead once: a run that found two FAILs was archived under 2099.
    assert_eq!(
        site.run("lanz-unsaved", &["--no-email"]).status.code(),
        Some(1)
    );
    let first = runs(&site).pop().unwrap();
    let ahead = site.archive().join(FUTURE_ID);
    std::fs::rename(&first, &ahead).unwrap();
    edit_report(&ahead, |r| {
        r["run_id"] = FUTURE_ID.into();
        r["started_at"] = FUTURE_AT.into();
        r["finished_at"] = FUTURE_AT.into();
    });
    // Later runs, with the clock right, found everything OK.
    let json = ["--format", "json", "--no-email"];
    let second = run_id(&site.run("healthy", &json));
    let third_out = site.run("healthy", &json);
    let third = run_id(&third_out);

    let check = |how: &str| {
        let (newest, listing) = history(&site);
        assert!(
            newest.ends_with(&third),
            "{how}: newest is {newest:?}\n{listing}"
        );
        let flagged = listing
            .lines()
            .find(|l| l.contains(FUTURE_ID))
            .unwrap_or_else(|| panic!("{how}: no 2099 run listed\n{listing}"));
        assert!(
            flagged.contains("dated in the future"),
            "{how}: {flagged}\n{listing}"
        );
        let out = site.run("healthy", &["--last-failed", "--no-email"]);
        assert_eq!(out.status.code(), Some(0), "{how}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!(
                "nothing failed in the latest run ({third}) or the reruns since; nothing to rerun"
            )),
            "{how}: {}",
            text(&out.stderr)
        );
    };
    check("numbered runs");
    let changes = &serde_json::from_slice::<Value>(&third_out.stdout).unwrap()["changes"];
    assert_eq!(
        changes["previous_run_id"].as_str(),
        Some(second.as_str()),
        "the previous run is the one written before, not the one dated last"
    );
    // An archive written before runs were numbered: the same answers.
    for run in runs(&site) {
        let _ = std::fs::remove_file(run.join("sequence"));
    }
    check("runs without a number");
}

#[test]
fn escape_sequences_in_the_archive_never_reach_the_terminal() {
    let site = Site::new(ARCHIVE);
    assert_eq!(
        site.run("lanz-unsaved", &["--no-email"]).status.code(),
        Some(1)
    );
    let run = runs(&site).pop().unwrap();
    edit_report(&run, |r| {
        r["run_id"] = "r1\u{1b}]0;owned\u{7}\nforged: all OK".into();
        r["started_at"] = "\u{1b}[2Jnot a time".into();
        let first = &mut r["results"][0];
        first["check"] = "eos.lanz.persisted\u{1b}[8m".into();
        first["device"] = "sw1\r\u{9b}31m".into();
    });
    let (_, listing) = history(&site);
    for control in ['\u{1b}', '\u{7}', '\r', '\u{9b}'] {
        assert!(
            !listing.contains(control),
            "{control:?} reached the terminal:\n{listing}"
        );
    }
    assert!(
        !listing.lines().any(|l| l.starts_with("forged")),
        "a value read back started a line of its own:\n{listing}"
    );
    assert!(
        listing.contains("r1\\x1b]0;owned\\x07\\nforged: all OK"),
        "{listing}"
    );
    assert!(
        listing.contains("eos.lanz.persisted\\x1b[8m on sw1\\r\\x9b31m"),
        "{listing}"
    );

    // A run that compares with the planted report prints nothing it holds raw either.
    let out = site.run("healthy", &["--no-email"]);
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{9b}'),
        "{shown}"
    );
}

/// `premarket ARGS` whose stdout and stderr are closed before it writes a byte; its exit
/// code, and what it said on the way (nothing, or a panic).
fn closed_pipes(args: &str) -> i32 {
    let script = format!(
        "set -o pipefail; {{ sleep 0.3; exec '{}' {args}; }} 2>&1 | true; echo \"${{PIPESTATUS[0]}}\"",
        bin().display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let said = text(&out.stdout);
    said.trim()
        .parse()
        .unwrap_or_else(|_| panic!("{args}: {said}{}", text(&out.stderr)))
}

#[test]
fn a_closed_stdout_or_stderr_never_panics_and_the_exit_code_stands() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().display();
    let site = Site::new(ARCHIVE);
    assert_eq!(site.run("healthy", &["--no-email"]).status.code(), Some(0));
    let dir = site.path().display();
    let healthy = scenario("healthy");
    let healthy = healthy.display();
    for (args, code) in [
        (format!("demo --home '{home}'"), 0),
        (format!("demo --home '{home}' --scenario lanz-unsaved"), 1),
        (format!("-vv demo --home '{home}'"), 0),
        (format!("--dir '{dir}' list"), 0),
        (format!("--dir '{dir}' history"), 0),
        (
            format!("--dir '{dir}' run --offline '{healthy}' --archive --no-email"),
            0,
        ),
    ] {
        assert_eq!(closed_pipes(&args), code, "premarket {args}");
    }
}
