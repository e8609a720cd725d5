//! Acknowledging a known FAIL until a date (issue 32), as on-call does it: `premarket ack` after
//! a FAIL, the next runs, and the file a reviewer reads (`baselines/acks.yaml`). The clock is
//! driven by the dates written, never by sleeping: an ack until tomorrow holds now, one until
//! today has ended (it holds until the start of its day in the site's time zone).

use crate::common;
use crate::email_support::{bin, text, tomorrow};

use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use chrono::{Duration, NaiveDate};
use serde_json::Value;

/// Today in the example site's time zone.
fn today() -> NaiveDate {
    chrono::Utc::now()
        .with_timezone(&chrono_tz::Asia::Taipei)
        .date_naive()
}

/// The login name `ack` records.
fn login() -> String {
    let out = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("id -un");
    text(&out.stdout).trim().to_string()
}

/// A copy of the example site whose runs are archived.
struct Site(common::Site);

impl Site {
    fn new() -> Site {
        Site(common::Site::example())
    }

    fn cmd(&self, args: &[&str]) -> Output {
        Command::new(bin())
            .arg("--dir")
            .arg(self.0.path())
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("PREMARKET_DIR")
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .expect("premarket")
    }

    /// `run --offline tests/fixtures/site/<scenario> --archive --no-email ARGS`.
    fn run(&self, scenario: &str, args: &[&str]) -> Output {
        let saved = common::fixture(&format!("site/{scenario}"));
        let mut all = vec![
            "run",
            "--offline",
            saved.to_str().expect("utf-8"),
            "--archive",
        ];
        if !args.contains(&"--email-to-file") {
            all.push("--no-email");
        }
        all.extend_from_slice(args);
        self.cmd(&all)
    }

    fn ack(&self, args: &[&str]) -> Output {
        let mut all = vec!["ack"];
        all.extend_from_slice(args);
        self.cmd(&all)
    }

    /// The optic on Ethernet3 FAILs, and is acknowledged until tomorrow.
    fn fail_and_ack(&self) {
        assert_eq!(code(&self.run("low-light-ethernet3", &[])), Some(1));
        let acked = self.ack(&[
            OPTICS,
            "--device",
            "sw1",
            "--until",
            &tomorrow(),
            "--reason",
            "optic on order",
        ]);
        assert_eq!(code(&acked), Some(0), "{}", said(&acked));
    }

    fn acks(&self) -> String {
        self.0.read("baselines/acks.yaml")
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn said(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    )
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", said(out)))
}

fn result<'a>(report: &'a Value, check: &str) -> &'a Value {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .chain(report["standing"].as_array().into_iter().flatten())
        .find(|r| r["check"] == check && r["device"] == "sw1")
        .unwrap_or_else(|| panic!("no {check} on sw1 in {report}"))
}

const OPTICS: &str = "eos.transceivers.light";

/// The terminal report has a `VERDICT sw1 eos.transceivers.light — ...` block.
fn assert_block(stdout: &str, verdict: &str) {
    let start = format!("{verdict} sw1 {OPTICS}");
    assert!(
        stdout.lines().any(|l| l.starts_with(&start)),
        "no {start} block:\n{stdout}"
    );
}

#[test]
fn an_acknowledged_fail_reads_ok_everywhere_and_another_finding_is_not_covered() {
    let site = Site::new();
    let first = site.run("low-light-ethernet3", &[]);
    assert_eq!(code(&first), Some(1), "{}", said(&first));
    let until = today() + Duration::days(7);
    let until_arg = until.format("%Y-%m-%d").to_string();
    let acked = site.ack(&[
        OPTICS,
        "--device",
        "sw1",
        "--until",
        &until_arg,
        "--reason",
        "optic on order: RMA 4411",
        "--ticket",
        "CHG123",
    ]);
    assert_eq!(code(&acked), Some(0), "{}", said(&acked));
    let file = site.acks();
    assert!(file.contains("subjects: [\"Ethernet3\"]"), "{file}");
    assert!(file.contains(&format!("until: {until_arg}")), "{file}");
    assert!(file.contains(&format!("by: \"{}\"", login())), "{file}");

    // The same FAIL again: acknowledged, the run reads OK and exits 0; every channel says so.
    let eml = site.file("report.eml");
    let junit = site.file("junit.xml");
    let metrics = site.file("premarket.prom");
    let out = site.run(
        "low-light-ethernet3",
        &[
            "--format",
            "json",
            "--email-to-file",
            eml.to_str().expect("utf-8"),
            "--junit",
            junit.to_str().expect("utf-8"),
            "--metrics-file",
            metrics.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", said(&out));
    let report = json(&out);
    assert_eq!(report["status"], "OK", "{report}");
    assert_eq!(report["counts"]["fail"], 0, "{report}");
    assert_eq!(report["counts"]["acknowledged"], 1, "{report}");
    let optics = result(&report, OPTICS);
    assert_eq!(optics["status"], "FAIL", "the result keeps its status");
    assert_eq!(optics["subjects"], serde_json::json!(["Ethernet3"]));
    let ack = &optics["acknowledged"];
    assert_eq!(ack["until"], until_arg.as_str(), "{ack}");
    assert_eq!(ack["ticket"], "CHG123", "{ack}");
    assert_eq!(ack["reason"], "optic on order: RMA 4411", "{ack}");
    assert_eq!(ack["by"], login().as_str(), "{ack}");

    let heading = format!("Acknowledged (until {}, CHG123)", until.format("%m-%d"));
    let mail = std::fs::read_to_string(&eml).expect("email written");
    let mail = crate::email_support::parse_mail(mail.as_bytes());
    assert!(
        mail.subject.starts_with("[premarket] OK lab "),
        "{}",
        mail.subject
    );
    assert!(!mail.subject.contains("light"), "{}", mail.subject);
    for body in [&mail.text, &mail.html] {
        assert!(body.contains(&heading), "{heading} not in:\n{body}");
        assert!(body.contains("optic on order: RMA 4411"), "{body}");
        assert!(body.contains(&login()), "{body}");
        assert!(body.contains("1 acknowledged"), "{body}");
    }
    assert!(!mail.text.contains("== Needs attention"), "{}", mail.text);
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(
        xml.contains("<skipped message=\"acknowledged until") && xml.contains("CHG123"),
        "{xml}"
    );
    let prom = std::fs::read_to_string(&metrics).expect("metrics written");
    for line in [
        "premarket_check_result{site=\"lab\",device=\"sw1\",check=\"eos.transceivers.light\",result=\"fail\"} 0",
        "premarket_check_result{site=\"lab\",device=\"sw1\",check=\"eos.transceivers.light\",result=\"acknowledged\"} 1",
        "premarket_checks{site=\"lab\",result=\"fail\"} 0",
        "premarket_checks{site=\"lab\",result=\"acknowledged\"} 1",
    ] {
        assert!(prom.contains(line), "{line} not in\n{prom}");
    }

    // The terminal: no FAIL block, the Acknowledged line with who and why.
    let out = site.run("low-light-ethernet3", &[]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), Some(0), "{}", said(&out));
    assert!(stdout.starts_with("premarket lab OK: "), "{stdout}");
    assert!(stdout.contains("1 acknowledged"), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("FAIL")), "{stdout}");
    assert!(stdout.contains(&heading), "{stdout}");
    assert!(stdout.contains("optic on order: RMA 4411"), "{stdout}");

    // Another optic failing: the ack of Ethernet3 does not cover Ethernet4.
    let other = site.run("low-light-ethernet4", &[]);
    let stdout = text(&other.stdout);
    assert_eq!(code(&other), Some(1), "{}", said(&other));
    assert_block(&stdout, "FAIL");
    assert!(!stdout.contains("Acknowledged"), "{stdout}");
}

#[test]
fn an_ack_ends_at_the_start_of_its_date() {
    let site = Site::new();
    site.fail_and_ack();
    let tomorrow = tomorrow();
    assert_eq!(code(&site.run("low-light-ethernet3", &[])), Some(0));
    // The same ack written until today: it ended at midnight, the FAIL is a FAIL again.
    let today = today().format("%Y-%m-%d").to_string();
    let file = site
        .acks()
        .replace(&format!("until: {tomorrow}"), &format!("until: {today}"));
    site.0.write("baselines/acks.yaml", &file);
    let out = site.run("low-light-ethernet3", &[]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), Some(1), "{}", said(&out));
    assert_block(&stdout, "FAIL");
    assert!(
        text(&out.stderr).contains("expired"),
        "the run says the ack ended: {}",
        said(&out)
    );
    let list = site.ack(&["--list"]);
    assert_eq!(code(&list), Some(0), "{}", said(&list));
    assert!(text(&list.stdout).contains("EXPIRED"), "{}", said(&list));
    // `ack` refuses a date that has passed or is too far off.
    for (until, why) in [
        (today.as_str(), "not after today"),
        ("2001-01-01", "not after today"),
        (
            &(self::today() + Duration::days(400))
                .format("%Y-%m-%d")
                .to_string()[..],
            "90 days",
        ),
        ("13-45", "not a date"),
    ] {
        let out = site.ack(&[OPTICS, "--device", "sw1", "--until", until, "--reason", "x"]);
        assert_eq!(code(&out), Some(3), "{until}: {}", said(&out));
        assert!(text(&out.stderr).contains(why), "{until}: {}", said(&out));
    }
}

#[test]
fn an_error_is_never_silenced_and_only_a_fail_can_be_acknowledged() {
    let site = Site::new();
    // Nothing failed: there is nothing to acknowledge.
    assert_eq!(code(&site.run("healthy", &[])), Some(0));
    let tomorrow = tomorrow();
    let refused = site.ack(&[
        OPTICS, "--device", "sw1", "--until", &tomorrow, "--reason", "x",
    ]);
    assert_eq!(code(&refused), Some(3), "{}", said(&refused));
    assert!(
        text(&refused.stderr).contains("is OK"),
        "{}",
        said(&refused)
    );
    assert!(!site.file("baselines/acks.yaml").exists());
    // A FAIL acknowledged, then the same check cannot be judged: ERROR, exit 2, not silenced.
    site.fail_and_ack();
    let garbled = tempfile::tempdir().expect("tempdir");
    common::copy_dir(&common::fixture("site/healthy"), garbled.path());
    std::fs::write(
        garbled
            .path()
            .join("sw1/show-interfaces-transceiver-dom-thresholds-json.txt"),
        "sw1#show interfaces transceiver dom thresholds | json\n% Internal error\n",
    )
    .expect("garble");
    let out = site.cmd(&[
        "run",
        "--offline",
        garbled.path().to_str().expect("utf-8"),
        "--archive",
        "--no-email",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), Some(2), "{}", said(&out));
    assert_block(&stdout, "ERROR");
    assert!(!stdout.contains("acknowledged"), "{stdout}");
}

#[test]
fn a_rerun_s_standing_state_honours_acks_and_never_reads_recovered_over_them() {
    let site = Site::new();
    // The morning: LANZ not saved and the dirty optic.
    let morning = tempfile::tempdir().expect("tempdir");
    common::copy_dir(&common::fixture("site/healthy"), morning.path());
    for scenario in ["lanz-incident", "low-light-ethernet3"] {
        common::copy_dir(
            &common::fixture(&format!("site/{scenario}/sw1")),
            &morning.path().join("sw1"),
        );
    }
    let out = site.cmd(&[
        "run",
        "--offline",
        morning.path().to_str().expect("utf-8"),
        "--archive",
        "--no-email",
    ]);
    assert_eq!(code(&out), Some(1), "{}", said(&out));
    let acked = site.ack(&[
        OPTICS,
        "--device",
        "sw1",
        "--until",
        &tomorrow(),
        "--reason",
        "optic on order",
    ]);
    assert_eq!(code(&acked), Some(0), "{}", said(&acked));
    // LANZ fixed and rechecked: the optics FAIL stands from the morning, acknowledged now.
    let fixed = common::fixture("site/low-light-ethernet3");
    let rerun = |format: &str| {
        site.cmd(&[
            "check",
            "eos.lanz.persisted",
            "--device",
            "sw1",
            "--offline",
            fixed.to_str().expect("utf-8"),
            "--archive",
            "--no-email",
            "--format",
            format,
        ])
    };
    // The first rerun after the fix (the one that would read as a recovery), then its JSON.
    let out = rerun("text");
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), Some(0), "{}", said(&out));
    assert!(stdout.contains("Acknowledged (until "), "{stdout}");
    assert!(
        !stdout.contains("RECOVERED"),
        "a known FAIL still fails:\n{stdout}"
    );
    let out = rerun("json");
    assert_eq!(code(&out), Some(0), "{}", said(&out));
    let report = json(&out);
    assert_eq!(report["standing_status"], "OK", "{report}");
    let optics = result(&report, OPTICS);
    assert!(optics["judged_in"].is_string(), "standing: {optics}");
    assert_eq!(
        optics["acknowledged"]["reason"], "optic on order",
        "{optics}"
    );
}

/// An acks.yaml with one mistake of each kind and an expired entry, written by hand.
fn mistakes() -> String {
    let tomorrow = (today() + Duration::days(1)).format("%Y-%m-%d");
    let yesterday = (today() - Duration::days(1)).format("%Y-%m-%d");
    format!(
        "# Known FAILs, reviewed with the baselines.
- check: eos.transceivers.lite
  device: sw1
  until: {tomorrow}
  reason: optic on order
- check: eos.transceivers.light
  device: sw9
  until: {tomorrow}
  reason: optic on order
- check: eos.transceivers.light
  device: sw1
  until: 2026-13-45
  reason: optic on order
- check: eos.transceivers.light
  device: sw1
  until: {tomorrow}
- check: eos.lanz.persisted
  device: sw1
  until: {yesterday}
  reason: saved at the next window
- check: site.feeds.independent
  device: sw1
  until: {tomorrow}
  reason: second carrier ordered
- check: site.feeds.independent
  device: lab
  until: {tomorrow}
  reason: second carrier ordered
"
    )
}

#[test]
fn validate_names_every_mistake_in_acks_yaml_and_a_bad_entry_silences_nothing() {
    let site = Site::new();
    site.0.write("baselines/acks.yaml", &mistakes());
    let out = site.cmd(&["validate"]);
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), Some(3), "{}", said(&out));
    for (at, words) in [
        ("acks.yaml:2:10: ", "did you mean eos.transceivers.light"),
        ("acks.yaml:7:11: ", "sw9"),
        ("acks.yaml:12:10: ", "2026-13-45"),
        ("acks.yaml:14:", "reason"),
        // A check over several devices FAILs under the site's name, not a device's.
        (
            "acks.yaml:22:11: ",
            "site.feeds.independent is a check over several devices: it FAILs under the site's name, lab",
        ),
    ] {
        assert!(
            stderr.lines().any(|l| l.contains(at) && l.contains(words)),
            "no {at} ... {words} in:\n{stderr}"
        );
    }
    assert!(
        stderr.lines().any(|l| l.starts_with("warning: ")
            && l.contains("acks.yaml:17:")
            && l.contains("expired")),
        "the expired entry is a warning naming its line:\n{stderr}"
    );
    assert!(
        !stderr.contains("acks.yaml:26:"),
        "an ack of the site check under the site's name is no mistake:\n{stderr}"
    );
    // The run goes on; a bad entry acknowledges nothing and is said, not silent.
    let out = site.run("low-light-ethernet3", &[]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), Some(1), "{}", said(&out));
    assert_block(&stdout, "FAIL");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("problem: ") && l.contains("acks.yaml:14:")),
        "{stdout}"
    );
}

#[test]
fn list_and_remove_keep_the_reviewer_s_comments() {
    let site = Site::new();
    let tomorrow = tomorrow();
    let yesterday = (today() - Duration::days(1)).format("%Y-%m-%d").to_string();
    // The file up to the entry `--remove 2` deletes, which stays as it is.
    let kept_head = format!(
        "# Known FAILs: reviewed in the change meeting.

# The LANZ change waits for the window.
- check: eos.lanz.persisted   # saved on Saturday
  device: sw1
  until: {tomorrow}
  reason: saved at the next window
  ticket: CHG100

# Old, to be cleaned up.
"
    );
    let written = format!(
        "{kept_head}- check: eos.config.saved
  device: sw1
  until: {yesterday}
  reason: same window
"
    );
    site.0.write("baselines/acks.yaml", &written);
    site.fail_and_ack();
    let after_add = site.acks();
    assert!(
        after_add.starts_with(&written),
        "appended, the rest as it was:\n{after_add}"
    );

    let list = site.ack(&["--list"]);
    let listed = text(&list.stdout);
    assert_eq!(code(&list), Some(0), "{}", said(&list));
    let lines: Vec<&str> = listed.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("1 ")
            && l.contains("eos.lanz.persisted")
            && l.contains("CHG100")),
        "{listed}"
    );
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("2 ")
            && l.contains("eos.config.saved")
            && l.contains("EXPIRED")),
        "{listed}"
    );
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("3 ")
            && l.contains(OPTICS)
            && l.contains("Ethernet3")),
        "{listed}"
    );

    // By the number --list printed: the expired entry goes, every comment stays.
    let removed = site.ack(&["--remove", "2"]);
    assert_eq!(code(&removed), Some(0), "{}", said(&removed));
    let file = site.acks();
    assert!(file.starts_with(&kept_head), "{file}");
    assert!(!file.contains("eos.config.saved"), "{file}");
    assert!(file.contains(OPTICS), "{file}");
    // By check and device.
    let removed = site.ack(&["--remove", OPTICS, "--device", "sw1"]);
    assert_eq!(code(&removed), Some(0), "{}", said(&removed));
    let file = site.acks();
    assert!(file.starts_with(&kept_head), "{file}");
    assert!(!file.contains(OPTICS), "{file}");
    // Nothing left to remove: said, exit 3.
    let again = site.ack(&["--remove", OPTICS, "--device", "sw1"]);
    assert_eq!(code(&again), Some(3), "{}", said(&again));
}
