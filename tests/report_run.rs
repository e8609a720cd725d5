//! The run as on-call and monitoring meet it, through the binary: a mistake in the catalog
//! still reports (an ERROR email and metrics listing every error, exit 3), a closed market
//! contacts nothing but still tells the metrics, an archive that cannot be written never stops
//! the inspection, offline runs stay out of the live history, device control characters are
//! shown escaped, and `| head` ends quietly.

use crate::email_support;

use email_support::*;

fn lines_starting(text: &str, word: &str) -> usize {
    text.lines().filter(|l| l.starts_with(word)).count()
}

#[test]
fn a_broken_catalog_still_emails_every_error_and_exits_3() {
    let site = Site::new("metrics:\n  textfile: metrics/premarket.prom\n");
    let eml = site.path().join("config-error.eml");
    // A mistake in the catalog (every device's) stops the run; the one in the device file
    // (alone it would make sw1 one ERROR) is listed with it.
    let catalog = site.path().join("checks/eos.yaml");
    let text_before = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(
        &catalog,
        text_before.replacen("- id: eos.lanz.running", "- id: eos.lanz.runing", 1),
    )
    .unwrap();
    let sw1 = site.path().join("baselines/sw1.yaml");
    let text_before = std::fs::read_to_string(&sw1).unwrap();
    std::fs::write(&sw1, format!("{text_before}  lanzz: true\n")).unwrap();
    let out = site
        .cmd(&[
            "run",
            "--email-to-file",
            eml.to_str().unwrap(),
            "--device",
            "sw1",
        ])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("sw1.yaml:"), "{stderr}");
    let mail = parse_mail(&std::fs::read(&eml).expect("an email about the error"));
    assert!(
        mail.subject.starts_with("[premarket] ERROR lab ")
            && mail.subject.contains("configuration error: "),
        "{}",
        mail.subject
    );
    for body in [&mail.text, &mail.html] {
        assert!(
            body.contains("explains eos.lanz.running, which is not in the catalog"),
            "{body}"
        );
        assert!(body.contains("unknown key `expect.lanzz`"), "{body}");
        assert!(
            body.contains("sw1.yaml:"),
            "file:line:column in the email: {body}"
        );
        assert!(!body.contains("Nothing needs attention"), "{body}");
    }
    let metrics = std::fs::read_to_string(site.path().join("metrics/premarket.prom"))
        .expect("metrics written");
    assert!(
        metrics.contains("premarket_config_errors{site=\"lab\"} 2"),
        "{metrics}"
    );
}

#[test]
fn when_the_email_settings_themselves_are_broken_stderr_says_so_first() {
    let site = Site::new("email:\n  host: relay\n  from: not an address\n  to: [a@b.test]\n");
    let out = site.cmd(&["run", "--device", "sw1"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.contains("no email can report this"), "{stderr}");
    assert!(stderr.contains("email.from"), "{stderr}");
}

#[test]
fn a_closed_market_contacts_nothing_but_the_metrics_say_the_run_happened() {
    // Every day a holiday: today is closed whatever the date.
    let days: Vec<String> = (-1..=1)
        .map(|d| {
            (chrono::Utc::now().with_timezone(&chrono_tz::Asia::Taipei) + chrono::Duration::days(d))
                .format("\"%Y-%m-%d\"")
                .to_string()
        })
        .collect();
    let site = Site::new(&format!(
        "calendar:\n  holidays: [{}]\nmetrics:\n  textfile: premarket.prom\n",
        days.join(", ")
    ));
    // Live run: no --offline; the device (127.0.0.1:1) would refuse if it were contacted.
    let out = site.cmd(&["run", "--no-email"]).output().unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains("market closed") && stdout.contains("exchange holiday"),
        "{stdout}"
    );
    assert!(
        !site.archive().exists(),
        "nothing inspected, nothing archived"
    );
    let metrics = std::fs::read_to_string(site.path().join("premarket.prom")).unwrap();
    assert!(
        metrics.contains("premarket_trading_day{site=\"lab\"} 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("premarket_run_timestamp_seconds{site=\"lab\"}"),
        "{metrics}"
    );
    // --force inspects anyway (and finds the device unreachable).
    let out = site
        .cmd(&["run", "--no-email", "--force"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
}

#[test]
fn an_unwritable_archive_never_stops_the_inspection() {
    // A file where the archive directory should be.
    let site = Site::new("archive:\n  dir: archive\n");
    std::fs::write(site.archive(), b"not a directory").unwrap();
    let eml = site.path().join("out.eml");
    let out = site.run("healthy", &["--email-to-file", eml.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "all OK, but not archived: {stderr}"
    );
    assert!(
        stdout.contains("OK    sw1 eos.lanz.persisted"),
        "inspected: {stdout}"
    );
    assert!(stderr.contains("not archived"), "{stderr}");
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    assert!(
        mail.text.contains("this run is not archived"),
        "{}",
        mail.text
    );
}

#[test]
fn offline_runs_stay_out_of_the_live_history_and_never_email_unless_asked() {
    let port = free_port();
    let site = Site::new(&format!(
        "email:\n  host: 127.0.0.1\n  port: {port}\n  tls: none\n  from: a@b.test\n  to: [a@b.test]\n  timeout_s: 1\n  retry_for_s: 1\n"
    ));
    let offline = scenario("lanz-unsaved");
    let out = site
        .cmd(&["run", "--offline", offline.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!site.archive().exists(), "no live history: {stderr}");
    assert!(!stderr.contains("email"), "no email: {stderr}");
    assert!(
        text(&out.stdout).contains("offline: saved outputs"),
        "marked offline"
    );
}

#[test]
fn device_control_characters_are_shown_escaped_everywhere() {
    let outputs = tempfile::tempdir().unwrap();
    let sw1 = outputs.path().join("sw1");
    std::fs::create_dir_all(&sw1).unwrap();
    for entry in std::fs::read_dir(scenario("lanz-unsaved").join("sw1")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), sw1.join(entry.file_name())).unwrap();
    }
    // An unsaved line whose text clears the screen and rewrites the line before it.
    let diffs = sw1.join("show-running-config-diffs.txt");
    let mut text_diffs = std::fs::read_to_string(&diffs).unwrap();
    text_diffs = text_diffs.replacen(
        "+queue-monitor length\n",
        "+queue-monitor length \u{1b}[2J\u{1b}[1A\rOK    everything fine\u{7}\n",
        1,
    );
    std::fs::write(&diffs, text_diffs).unwrap();
    let site = Site::new("");
    let eml = site.path().join("out.eml");
    for format in ["text", "json"] {
        let out = site
            .cmd(&[
                "run",
                "--offline",
                outputs.path().to_str().unwrap(),
                "--format",
                format,
                "--email-to-file",
                eml.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stdout = text(&out.stdout);
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\r'),
            "{stdout}"
        );
        assert!(
            !stdout.contains("\\u001b"),
            "JSON escapes are still obeyed by readers: {stdout}"
        );
        assert!(
            stdout.contains("\\x1b[2J"),
            "{format}: shown escaped: {stdout}"
        );
        if format == "text" {
            assert_eq!(lines_starting(&stdout, "OK    everything"), 0, "{stdout}");
        }
    }
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    for part in [
        mail.text.clone(),
        mail.html.clone(),
        text(mail.attachment("raw-sw1.txt")),
    ] {
        assert!(
            !part.contains('\u{1b}') && !part.contains('\u{7}'),
            "{part}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let site = Site::new("");
    // The reader is gone before premarket writes a byte.
    let script = format!(
        "{{ sleep 0.3; exec '{}' --dir '{}' list; }} | true",
        bin().display(),
        site.path().display()
    );
    let out = std::process::Command::new("bash")
        .args(["-o", "pipefail", "-c", &script])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 141)),
        "{:?} {stderr}",
        out.status
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
}

/// A value a device prints without end (an 8 MB serial number, as text, in `show version |
/// json`) is kept in the report only up to its cap, marked as cut: in the check's `actual` and
/// in what changed since the previous run. Before, it was copied whole into report.json (a
/// 60 MB string twice: 120 MB).
#[test]
fn the_report_keeps_a_bounded_part_of_one_value_and_says_it_was_cut() {
    let site = Site::new("");
    let first = site.run("healthy", &["--no-email"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let copied = tempfile::tempdir().unwrap();
    let outputs = outputs("healthy", copied.path());
    let version = outputs.join("sw1/show-version-json.txt");
    let huge = "7".repeat(8 << 20);
    let text_before = std::fs::read_to_string(&version).unwrap();
    std::fs::write(&version, text_before.replace("JPE00000001", &huge)).unwrap();
    let out = site
        .cmd(&[
            "run",
            "--offline",
            outputs.to_str().unwrap(),
            "--archive",
            "--no-email",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.stdout.len() < 1 << 20,
        "the JSON report is {} bytes",
        out.stdout.len()
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pinned = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == "eos.version.pinned")
        .unwrap();
    let actual = pinned["actual"].as_str().unwrap();
    assert!(
        actual.contains("7777") && actual.contains("[cut:"),
        "{}",
        &actual[actual.len() - 200..]
    );
    let after = report["changed_facts"][0]["after"].as_str().unwrap();
    assert!(after.contains("[cut:"), "{}", &after[after.len() - 200..]);
}
