//! What a comparison judges against (issue 32), end to end over real SSH with `premarket demo`:
//! the reference of a check on a device is the reading of the newest run that judged it OK, or
//! a later `premarket accept`. A rerun right after a FAIL re-examines that FAIL against the same
//! reference, so a change stands until it is reverted (OK at the first rerun after the revert)
//! or accepted, counter growth stands until accepted or cleared, a rerun that could not inspect
//! leaves the FAIL standing, box facts a run did not read are no change, and the demo's
//! scenarios run in sequence in one home show only their own faults.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::email_support::bin;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `premarket demo ARGS --format json --home HOME`: (exit code, the JSON report).
fn demo(home: &Path, args: &[&str]) -> (i32, Value) {
    let out = Command::new(bin())
        .arg("demo")
        .args(args)
        .args(["--format", "json", "--home"])
        .arg(home)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "demo {args:?}: no JSON report ({e}); stderr:\n{}",
            text(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report)
}

/// `premarket accept --demo --home HOME ARGS`: (exit code, stdout, stderr).
fn accept(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(["accept", "--demo", "--home"])
        .arg(home)
        .args(args)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("accept runs");
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// The result of `check` on `device` among the report's own results.
fn result<'a>(report: &'a Value, device: &str, check: &str) -> &'a Value {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["device"] == device && r["check"] == check)
        .unwrap_or_else(|| panic!("no {check} on {device} in {report}"))
}

fn status(report: &Value, device: &str, check: &str) -> String {
    result(report, device, check)["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Not OK in every demo run, by design: the lab notes' switch has no MLAG (issue 35's check
/// says so), as `demo`'s table has it.
const LAB_SKIP: &str = "SKIP sw1 eos.mlag.healthy";

/// Every result that is not OK, as "STATUS device check", sorted.
fn not_ok(report: &Value) -> Vec<String> {
    let mut out: Vec<String> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["status"] != "OK")
        .map(|r| {
            format!(
                "{} {} {}",
                r["status"].as_str().unwrap_or_default(),
                r["device"].as_str().unwrap_or_default(),
                r["check"].as_str().unwrap_or_default()
            )
        })
        .collect();
    out.sort();
    out
}

/// The text body of the email the last demo in `home` wrote.
fn last_email(home: &Path) -> String {
    let eml = std::fs::read(home.join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    mail.body_text(0).unwrap_or_default().into_owned()
}

const SW: (&str, &str) = ("sw1", "eos.config.unchanged");
/// The printed rerun of sw1's configuration check, the change still in place.
const RERUN_CHANGED: [&str; 6] = [
    "--scenario",
    "config-changed",
    "--check",
    SW.1,
    "--device",
    SW.0,
];
const FW: (&str, &str) = ("fw1", "fortigate.config.unchanged");

#[test]
fn a_rerun_without_the_revert_still_fails_and_the_revert_is_ok_at_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    assert_eq!(demo(home, &[]).0, 0, "a healthy morning");
    let (code, changed) = demo(home, &["--scenario", "config-changed"]);
    assert_eq!(code, 1);
    assert_eq!(status(&changed, SW.0, SW.1), "FAIL");

    // The printed rerun, nothing reverted: the change still stands.
    let rerun = RERUN_CHANGED;
    let (code, again) = demo(home, &rerun);
    let r = result(&again, SW.0, SW.1);
    assert_eq!(r["status"], "FAIL", "{r}");
    assert_eq!(code, 1, "{again}");
    assert_eq!(again["standing_status"], "FAIL");
    assert!(
        r["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("+   description trading servers (moved to rack B12)"),
        "the same diff, against the morning's reference: {r}"
    );
    assert!(
        !last_email(home).contains("RECOVERED"),
        "no false all-clear"
    );

    // Reverted (the lab without the fault): OK at the first rerun.
    let (_, reverted) = demo(home, &["--check", SW.1, "--device", SW.0]);
    let r = result(&reverted, SW.0, SW.1);
    assert_eq!(r["status"], "OK", "{r}");
    // fw1's change still stands: not recovered.
    assert_eq!(reverted["standing_status"], "FAIL");
    assert!(!last_email(home).contains("RECOVERED"));
    let (code, both) = demo(home, &["--check", FW.1, "--device", FW.0]);
    assert_eq!((code, status(&both, FW.0, FW.1).as_str()), (0, "OK"));
    assert!(
        last_email(home).contains("RECOVERED"),
        "every standing FAIL was rechecked OK"
    );
}

#[test]
fn counter_growth_stands_until_accepted() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    let check = "eos.interfaces.errors";
    demo(home, &[]);
    let (code, grew) = demo(home, &["--scenario", "crc-errors"]);
    assert_eq!((code, status(&grew, "sw1", check).as_str()), (1, "FAIL"));
    // Five minutes later nothing new counted: not a fix.
    let rerun = [
        "--scenario",
        "crc-errors",
        "--check",
        check,
        "--device",
        "sw1",
    ];
    let (code, again) = demo(home, &rerun);
    assert_eq!(
        (code, status(&again, "sw1", check).as_str()),
        (1, "FAIL"),
        "{again}"
    );

    let (code, out, err) = accept(
        home,
        &[
            "--device",
            "sw1",
            "--check",
            check,
            "--reason",
            "optic on Ethernet3 replaced",
            "--ticket",
            "CHG123",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(check) && out.contains("sw1"), "{out}");
    assert!(
        out.contains("premarket demo --check eos.interfaces.errors --device sw1"),
        "the command to rerun: {out}"
    );

    let (code, accepted) = demo(home, &rerun);
    let r = result(&accepted, "sw1", check);
    assert_eq!((code, r["status"].as_str()), (0, Some("OK")), "{r}");
    assert_eq!(r["accepted"]["ticket"], "CHG123", "{r}");
    assert_eq!(r["accepted"]["reason"], "optic on Ethernet3 replaced");
    assert!(!r["accepted"]["by"].as_str().unwrap_or_default().is_empty());
    let email = last_email(home);
    assert!(email.contains("accepted by "), "{email}");
    assert!(email.contains("(CHG123)"), "{email}");

    // The next reading replaces the accepted reference: the note is gone.
    let (_, later) = demo(home, &rerun);
    let r = result(&later, "sw1", check);
    assert_eq!(r["status"], "OK");
    assert!(r.get("accepted").is_none(), "{r}");
}

#[test]
fn accept_refuses_what_it_cannot_accept() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    let reason = ["--reason", "planned"];
    // Nothing archived yet.
    let (code, _, err) = accept(home, &[&["--device", "sw1"][..], &reason].concat());
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("nothing is archived"), "{err}");
    demo(home, &[]);
    let (code, _, err) = accept(home, &[&["--device", "sw9"][..], &reason].concat());
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("sw9"), "{err}");
    let (code, _, err) = accept(
        home,
        &[&["--device", "sw1", "--check", "eos.nosuch"][..], &reason].concat(),
    );
    assert_eq!(code, 3, "{err}");
    // A check that compares with no earlier run has nothing to accept.
    let (code, _, err) = accept(
        home,
        &[
            &["--device", "sw1", "--check", "eos.lanz.persisted"][..],
            &reason,
        ]
        .concat(),
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("does not compare"), "{err}");
    // Without --check: every comparing check of the device.
    let (code, out, err) = accept(home, &[&["--device", "sw1"][..], &reason].concat());
    assert_eq!(code, 0, "{err}");
    for check in [
        "eos.config.unchanged",
        "eos.interfaces.errors",
        "eos.uptime.stable",
    ] {
        assert!(out.contains(check), "{check}: {out}");
    }
    assert!(!out.contains("eos.lanz.persisted"), "{out}");
}

#[test]
fn a_rerun_that_could_not_inspect_leaves_the_fail_standing() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    demo(home, &[]);
    let (_, changed) = demo(home, &["--scenario", "config-changed"]);
    let morning = changed["run_id"].as_str().expect("run id").to_string();
    let (code, blocked) = demo(
        home,
        &["--scenario", "auth-fail", "--check", SW.1, "--device", SW.0],
    );
    assert_eq!(status(&blocked, SW.0, SW.1), "ERROR", "what stopped it");
    assert_ne!(code, 0);
    assert_eq!(blocked["standing_status"], "FAIL");
    let standing = blocked["standing"]
        .as_array()
        .expect("standing")
        .iter()
        .find(|r| r["device"] == SW.0 && r["check"] == SW.1)
        .unwrap_or_else(|| panic!("the FAIL stands: {blocked}"));
    assert_eq!(standing["status"], "FAIL");
    assert_eq!(standing["judged_in"].as_str(), Some(morning.as_str()));
    assert!(!last_email(home).contains("RECOVERED"));

    // A later rerun still sees the FAIL, and the rerun that fixes it recovers.
    let (_, fixed) = demo(home, &["--check", SW.1, "--device", SW.0]);
    let c = &fixed["changes"]["fixed"];
    assert!(
        c.as_array()
            .is_some_and(|f| f.iter().any(|t| t["check"] == SW.1 && t["from"] == "FAIL")),
        "{fixed}"
    );
}

#[test]
fn demo_scenarios_in_sequence_show_only_their_own_faults() {
    let home = tempfile::tempdir().expect("tempdir");
    demo(home.path(), &[]);
    let (_, changed) = demo(home.path(), &["--scenario", "config-changed"]);
    assert_eq!(
        not_ok(&changed),
        [
            "FAIL fw1 fortigate.config.unchanged",
            "FAIL sw1 eos.config.unchanged",
            LAB_SKIP,
        ]
    );
    // cpu-high's own faults, as `demo`'s table has them (issue 32 saw new-source-port also
    // FAIL fortigate.config.unchanged here; cpu-high changes no configuration either and lists
    // no 10,000 sessions, which a loaded machine cannot serve within the demo's 5 s): the
    // configurations are the healthy morning's again, and the reference is that morning's.
    let (_, after) = demo(home.path(), &["--scenario", "cpu-high"]);
    assert_eq!(
        not_ok(&after),
        [
            "FAIL fw1 fortigate.cpu.ceiling",
            "FAIL fw1 fortigate.sessions.npu",
            LAB_SKIP,
        ]
    );
}

#[test]
fn facts_a_run_did_not_read_are_no_change() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    demo(home, &[]);
    let (_, rerun) = demo(home, &["--check", "eos.lanz.persisted", "--device", "sw1"]);
    assert!(
        rerun.get("changed_facts").is_none(),
        "{}",
        rerun["changed_facts"]
    );
    let (_, full) = demo(home, &[]);
    assert!(
        full.get("changed_facts").is_none(),
        "{}",
        full["changed_facts"]
    );

    // A full run compares with the full run before it; a rerun with what that full run
    // compared with, and only the facts it read.
    let (_, drifted) = demo(home, &["--scenario", "version-drift"]);
    let changed = |r: &Value| -> Vec<String> {
        r["changed_facts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                format!(
                    "{} {}",
                    c["device"].as_str().unwrap_or(""),
                    c["fact"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert!(changed(&drifted).contains(&"sw1 software version".to_string()));
    let (_, rerun) = demo(
        home,
        &[
            "--scenario",
            "version-drift",
            "--check",
            "eos.version.pinned",
            "--device",
            "sw1",
        ],
    );
    assert_eq!(changed(&rerun), ["sw1 software version"], "{rerun}");
}

#[test]
fn an_older_archive_with_a_fail_and_no_ok_reading_is_no_first_reading() {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    let (_, healthy) = demo(home, &[]);
    demo(home, &["--scenario", "config-changed"]);
    // As an older premarket left it: no reference store, and retention took the healthy run.
    let archive = home.join("archive");
    let _ = std::fs::remove_dir_all(archive.join("references"));
    let healthy = healthy["run_id"].as_str().expect("run id");
    std::fs::remove_dir_all(archive.join(healthy)).expect("remove the healthy run");
    let rerun = RERUN_CHANGED;
    let (code, report) = demo(home, &rerun);
    let r = result(&report, SW.0, SW.1);
    assert_eq!((code, r["status"].as_str()), (2, Some("ERROR")), "{r}");
    let summary = r["summary"].as_str().unwrap_or_default();
    assert!(summary.contains("no accepted reference"), "{summary}");
    let accept_line = "premarket accept --device sw1 --check eos.config.unchanged --reason WHY";
    assert!(
        r["remedy"]
            .as_str()
            .is_some_and(|m| m.contains(accept_line)),
        "{r}"
    );
    // The email's remedy is complete for the demo.
    let email = last_email(home);
    assert!(
        email.contains("premarket accept --demo --device sw1 --check eos.config.unchanged"),
        "{email}"
    );
    // Checked by hand and accepted: judged again, against that reading.
    let (code, _, err) = accept(
        home,
        &["--device", "sw1", "--check", SW.1, "--reason", "checked"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, report) = demo(home, &rerun);
    assert_eq!((code, status(&report, SW.0, SW.1).as_str()), (0, "OK"));
}

/// Every check that compares with an earlier reading, with the scenario that makes it FAIL and
/// how many runs of that scenario it takes (counters judged on growth between two runs of the
/// HA cluster need one on the cluster first): (scenario, runs, device, check).
const COMPARISONS: &[(&str, usize, &str, &str)] = &[
    ("config-changed", 1, "sw1", "eos.config.unchanged"),
    ("config-changed", 1, "fw1", "fortigate.config.unchanged"),
    // FCS errors and two link flaps.
    ("crc-errors", 1, "sw1", "eos.interfaces.errors"),
    // The declarative rule's `increase_at_most`.
    ("crc-errors", 1, "sw1", "eos.ports.errors-absent"),
    ("pause-frames", 1, "sw1", "eos.interfaces.errors"),
    ("microburst", 1, "sw1", "eos.lanz.congestion"),
    ("rebooted", 1, "sw1", "eos.uptime.stable"),
    ("rebooted", 1, "fw1", "fortigate.uptime.stable"),
    ("ha-heartbeat", 2, "fw1", "fortigate.ha.links"),
    // x1's CRC errors grow from the day's maintenance minute on.
    ("fw-port-errors", 1, "fw1", "fortigate.ports.errors"),
    // Every BGP session restarted with the switch: a reset since the reference.
    ("rebooted", 1, "sw1", "eos.bgp.peers"),
];

/// For each comparison: a healthy morning, the fault's morning FAILs it, and the printed rerun
/// of that check with nothing fixed still FAILs (exit 1, the FAIL standing, no RECOVERED): it
/// judges against the healthy morning's reading, as the morning did, not the failing run's.
#[test]
fn every_comparison_rerun_without_a_fix_still_fails() {
    std::thread::scope(|scope| {
        for part in COMPARISONS.chunks(COMPARISONS.len().div_ceil(3)) {
            scope.spawn(move || {
                for (scenario, runs, device, check) in part {
                    a_rerun_without_a_fix_still_fails(scenario, *runs, device, check);
                }
            });
        }
    });
}

fn a_rerun_without_a_fix_still_fails(scenario: &str, runs: usize, device: &str, check: &str) {
    let home = tempfile::tempdir().expect("tempdir");
    let home = home.path();
    let row = format!("{scenario} {device} {check}");
    let (code, healthy) = demo(home, &[]);
    assert_eq!(code, 0, "{row}: healthy: {:?}", not_ok(&healthy));
    let mut morning = Value::Null;
    for _ in 0..runs {
        morning = demo(home, &["--scenario", scenario]).1;
    }
    assert_eq!(status(&morning, device, check), "FAIL", "{row}: {morning}");
    let rerun = ["--scenario", scenario, "--check", check, "--device", device];
    let (code, again) = demo(home, &rerun);
    let r = result(&again, device, check);
    assert_eq!(
        (code, r["status"].as_str()),
        (1, Some("FAIL")),
        "{row}: {r}"
    );
    assert_eq!(again["standing_status"], "FAIL", "{row}");
    assert!(!last_email(home).contains("RECOVERED"), "{row}");
}
