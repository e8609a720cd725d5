//! What on-call reads after a run (issue 32), through the binary and the lab over SSH: a device
//! that could not be inspected is one line per device in "since the previous run" (terminal
//! and email), not one per blocked check; history names runs to the second where they share a
//! minute and lists only the checks that changed; the demo refuses `--dir`; the diff header
//! names the device, the configuration and the run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use mail_parser::MimeHeaders;

fn bin() -> PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `premarket demo ARGS --home HOME`: exit code, stdout, stderr.
fn demo(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .arg("demo")
        .args(args)
        .arg("--home")
        .arg(home)
        .env_remove("PREMARKET_DIR")
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A healthy demo run in a new home, then `scenario`: the home and the scenario's exit code,
/// stdout and stderr.
fn healthy_then(scenario: &str) -> (tempfile::TempDir, i32, String, String) {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = demo(home.path(), &[]);
    assert_eq!(code, 0, "healthy:\n{out}{err}");
    let (code, out, err) = demo(home.path(), &["--scenario", scenario]);
    (home, code, out, err)
}

/// The plain-text body of the email the last demo in `home` wrote.
fn mail_text(home: &Path) -> String {
    let eml = std::fs::read(home.join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    mail.body_text(0).expect("a text body").into_owned()
}

/// The lines of a section: from the line `heading` to the next blank line.
fn section<'a>(report: &'a str, heading: &str) -> Vec<&'a str> {
    report
        .lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// After a login refused on sw1, every one of its checks is blocked: "since the previous run"
/// says so in one line for sw1, in the terminal and in the email, when it starts (newly
/// failing), while it lasts (still failing) and when it ends (fixed).
#[test]
fn a_device_that_could_not_be_inspected_is_one_change_line_not_one_per_check() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = demo(home.path(), &[]);
    assert_eq!(code, 0, "healthy:\n{out}{err}");

    let steps = [
        (
            "auth-fail",
            "newly failing",
            "Newly failing",
            // The lab notes' switch has no MLAG: its check was SKIP, saying so.
            " checks blocked, were 19 OK, 1 SKIP",
        ),
        (
            "auth-fail",
            "still failing",
            "Still failing",
            " checks blocked, were ERROR since",
        ),
        (
            "healthy",
            "fixed",
            "Fixed",
            " checks OK again, were blocked since",
        ),
    ];
    for (scenario, word, label, words) in steps {
        let args: &[&str] = if scenario == "healthy" {
            &[]
        } else {
            &["--scenario", scenario]
        };
        let (_, out, err) = demo(home.path(), args);
        let mail = mail_text(home.path());
        for (report, heading, start) in [
            (&out, "since the previous run:", format!("  {word}: sw1: ")),
            (
                &mail,
                "== Since the previous run ==",
                format!("{label}: sw1: "),
            ),
        ] {
            let lines = section(report, heading);
            let sw1: Vec<&&str> = lines.iter().filter(|l| l.contains("sw1")).collect();
            assert_eq!(sw1.len(), 1, "{scenario}: one line for sw1:\n{report}{err}");
            assert!(
                sw1[0].starts_with(&start) && sw1[0].contains(words),
                "{scenario}: {:?}\n{report}",
                sw1[0]
            );
        }
    }
}

/// `ptp-holdover`: sw1 follows the right grandmaster 11 ns off; the grandmaster is in
/// holdover. The subject, the block's first line and its remedy start at the grandmaster.
#[test]
fn a_grandmaster_in_holdover_is_named_first_not_the_switch() {
    let (home, code, out, err) = healthy_then("ptp-holdover");
    assert_eq!(code, 1, "{out}{err}");
    let first = out
        .lines()
        .find(|l| l.starts_with("FAIL "))
        .unwrap_or_else(|| panic!("no FAIL:\n{out}"));
    assert_eq!(
        first,
        "FAIL sw1 eos.ptp.synchronised — grandmaster 0xec:46:70:ff:fe:00:ff:a8 in holdover (clock class 7)"
    );
    let remedy = section(&out, "remedy:");
    assert!(
        remedy.first().is_some_and(|l| l
            .trim()
            .starts_with("Start at the grandmaster 0xec:46:70:ff:fe:00:ff:a8")),
        "{out}"
    );
    let eml = std::fs::read(home.path().join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    let subject = mail.subject().unwrap_or_default();
    assert!(
        subject.ends_with("— sw1 PTP grandmaster in holdover"),
        "{subject}"
    );
}

/// `premarket history --demo --home HOME`: its standard output.
fn history(home: &Path) -> String {
    let out = Command::new(bin())
        .args(["history", "--demo", "--home"])
        .arg(home)
        .env_remove("PREMARKET_DIR")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("history runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// Three demo runs within a minute: history names each run apart (to the second where runs
/// share a minute), and lists per check only what changed: the PTP check that failed, never a
/// "first run" line for the checks that stayed OK, which one line counts.
#[test]
fn history_names_runs_apart_and_lists_only_the_checks_that_changed() {
    let home = tempfile::tempdir().expect("tempdir");
    for args in [&[][..], &[], &["--scenario", "ptp-holdover"]] {
        let (code, out, err) = demo(home.path(), args);
        assert!(code <= 1, "{args:?}:\n{out}{err}");
    }
    let listing = history(home.path());
    let runs = section(&listing, "Runs, newest first (3 of 3):");
    assert_eq!(runs.len(), 3, "{listing}");
    // "  2026-12-05 02:17:05 +08  FAIL  full ..." : the time is everything before the status.
    let times: Vec<&str> = runs
        .iter()
        .map(|l| {
            let end = [" FAIL ", " OK ", " ERROR "]
                .iter()
                .filter_map(|s| l.find(s))
                .min()
                .unwrap_or(l.len());
            l[..end].trim()
        })
        .collect();
    for (i, a) in times.iter().enumerate() {
        for b in &times[i + 1..] {
            assert_ne!(a, b, "two runs read the same:\n{listing}");
        }
    }
    let changes = listing
        .split("Changes per check")
        .nth(1)
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(changes.contains("eos.ptp.synchronised on sw1"), "{listing}");
    assert!(!changes.contains("eos.version.pinned on sw1"), "{listing}");
    assert_eq!(changes.matches("first run").count(), 1, "{listing}");
    assert!(
        changes.contains("No change in these runs: 37 checks OK, 1 check SKIP throughout"),
        "{listing}"
    );
}

/// `demo` inspects the lab with its built-in example site: a `--dir` on its command line (before
/// or after `demo`) is refused with exit 3 and nothing runs, rather than accepted and ignored.
/// `PREMARKET_DIR` in the environment (a site's shell) does not stop the demo. `history --demo`
/// and `lab` refuse it the same way.
#[test]
fn demo_refuses_dir_and_says_what_to_run_instead() {
    let home = tempfile::tempdir().expect("tempdir");
    let site = tempfile::tempdir().expect("tempdir");
    let site_dir = site.path().to_str().expect("utf-8");
    let home_dir = home.path().to_str().expect("utf-8");
    for args in [
        vec!["--dir", site_dir, "demo", "--home", home_dir],
        vec!["demo", "--dir", site_dir, "--home", home_dir],
        vec!["--dir", site_dir, "history", "--demo", "--home", home_dir],
        vec!["--dir", site_dir, "lab", "serve"],
    ] {
        let out = Command::new(bin())
            .args(&args)
            .env_remove("PREMARKET_DIR")
            .timeout(Duration::from_secs(60))
            .output()
            .expect("runs");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains("--dir"), "{args:?}: {err}");
        assert!(
            !home.path().join("archive").exists(),
            "{args:?}: nothing ran"
        );
    }
    let out = Command::new(bin())
        .args(["demo", "--home", home_dir])
        .env("PREMARKET_DIR", site_dir)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A configuration diff's header names the device, the configuration and the runs, the same in
/// the finding, the email's `sw1.diff` and `premarket diff`: `--- sw1 running-config, run of
/// 12-04 02:17:05`, never `--- previous the run of 02:17`.
#[test]
fn a_diff_header_names_device_configuration_and_run() {
    let (home, _, out, err) = healthy_then("config-changed");
    let archive = home.path().join("archive");
    let mut runs: Vec<String> = std::fs::read_dir(&archive)
        .expect("archive")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    runs.sort();
    // 20261204T021705.123 -> 12-04 02:17:05
    let stamp = |id: &str| {
        format!(
            "{}-{} {}:{}:{}",
            &id[4..6],
            &id[6..8],
            &id[9..11],
            &id[11..13],
            &id[13..15]
        )
    };
    let (before, after) = (stamp(&runs[0]), stamp(&runs[1]));
    let old = format!("--- sw1 running-config, run of {before}");
    let new = "+++ sw1 running-config, this run";
    assert!(
        out.lines().any(|l| l.trim() == old) && out.lines().any(|l| l.trim() == new),
        "{old:?} and {new:?} in the finding:\n{out}{err}"
    );
    assert!(!out.contains("previous the run"), "{out}");

    let eml = std::fs::read(home.path().join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    let diff = mail
        .attachments()
        .find(|a| a.attachment_name() == Some("sw1.diff"))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
        .expect("sw1.diff attached");
    let head: Vec<&str> = diff.lines().take(2).collect();
    assert_eq!(head, [old.as_str(), new], "{diff}");

    let out = Command::new(bin())
        .args(["diff", "--demo", "--home"])
        .arg(home.path())
        .env_remove("PREMARKET_DIR")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("diff runs");
    let printed = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{printed}{}", text(&out.stderr));
    for line in [old, format!("+++ sw1 running-config, run of {after}")] {
        assert!(
            printed.lines().any(|l| l == line),
            "{line:?} in:\n{printed}"
        );
    }
}
