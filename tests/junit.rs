//! `--junit FILE` read back by a real JUnit reader, the `junitparser` Python package (a script
//! written to a temp dir): for `run`, `check` and `demo`, offline runs too, the testcases,
//! failures, errors and skips it counts are those of the JSON report of the same run; one
//! testsuite per device with the run id, site and offline flag as properties; every testcase
//! unique; a FAIL's body holds expected, actual, evidence and remedy. Device text with escape
//! sequences and markup does not break the document, and a configuration that stops the run is
//! a `configuration` suite of errors.
//!
//! Needs `python3` with `junitparser` (`pip install junitparser`). When it is missing the tests
//! skip with a message, unless PREMARKET_REQUIRE_JUNITPARSER=1 (CI), where they fail.

use crate::email_support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use email_support::*;
use serde_json::Value;

const READER: &str = r#"
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        results = [{"kind": type(r).__name__, "message": r.message, "text": r.text} for r in case.result]
        cases.append({"classname": case.classname, "name": case.name, "time": case.time, "results": results})
    suites.append({
        "name": suite.name, "tests": suite.tests, "failures": suite.failures, "time": suite.time,
        "errors": suite.errors, "skipped": suite.skipped,
        "properties": {p.name: p.value for p in suite.properties()},
        "cases": cases,
    })
print(json.dumps({"tests": xml.tests, "failures": xml.failures, "errors": xml.errors,
                  "skipped": xml.skipped, "time": xml.time, "suites": suites}))
"#;

/// junitparser is importable; or, when CI requires it, a failure.
fn available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import junitparser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("PREMARKET_REQUIRE_JUNITPARSER").as_deref() != Ok("1"),
            "PREMARKET_REQUIRE_JUNITPARSER=1 but python3 cannot import junitparser (pip install junitparser)"
        );
        eprintln!(
            "SKIP: python3 cannot import junitparser (pip install junitparser); set PREMARKET_REQUIRE_JUNITPARSER=1 to make this a failure"
        );
    }
    ok
}

/// What junitparser reads in `file`.
fn read(file: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("read_junit.py");
    std::fs::write(&script, READER).unwrap();
    let out = Command::new("python3")
        .arg(&script)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "junitparser could not read {}: {}\n{}",
        file.display(),
        text(&out.stderr),
        std::fs::read_to_string(file).unwrap_or_default()
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What junitparser read, checked against the JSON report of the same run: the counts (from
/// the testcases themselves and from the attributes), one suite per device, unique cases,
/// the properties.
fn assert_matches(junit: &Value, report: &Value) {
    let counts = &report["counts"];
    let n = |v: &Value| v.as_u64().unwrap();
    // A FAIL acknowledged until a date is a skipped testcase (absent: none).
    let acknowledged = counts["acknowledged"].as_u64().unwrap_or(0);
    let total = n(&counts["ok"])
        + n(&counts["fail"])
        + n(&counts["error"])
        + n(&counts["skip"])
        + acknowledged;
    let mut kinds = std::collections::BTreeMap::<String, u64>::new();
    let mut cases = 0;
    for suite in junit["suites"].as_array().unwrap() {
        let names: Vec<&str> = suite["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "duplicate testcases in {suite}");
        for case in suite["cases"].as_array().unwrap() {
            cases += 1;
            assert_eq!(case["classname"], suite["name"]);
            assert!(
                case["time"].as_f64().is_some_and(|t| t >= 0.0),
                "time in seconds: {case}"
            );
            for r in case["results"].as_array().unwrap() {
                *kinds
                    .entry(r["kind"].as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
        let props = &suite["properties"];
        assert_eq!(props["run_id"], report["run_id"]);
        assert_eq!(props["site"], report["site"]);
        let offline = report["offline"].as_bool().unwrap_or(false);
        assert_eq!(props["offline"], offline.to_string());
    }
    assert_eq!(cases, total, "{junit}");
    let kind = |k: &str| kinds.get(k).copied().unwrap_or(0);
    assert_eq!(kind("Failure"), n(&counts["fail"]), "{junit}");
    assert_eq!(kind("Error"), n(&counts["error"]), "{junit}");
    assert_eq!(
        kind("Skipped"),
        n(&counts["skip"]) + acknowledged,
        "{junit}"
    );
    assert_eq!(
        (
            n(&junit["tests"]),
            n(&junit["failures"]),
            n(&junit["errors"]),
            n(&junit["skipped"])
        ),
        (
            total,
            n(&counts["fail"]),
            n(&counts["error"]),
            n(&counts["skip"]) + acknowledged
        )
    );
    let devices: BTreeSet<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["device"].as_str().unwrap())
        .collect();
    let suites: BTreeSet<&str> = junit["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(suites, devices);
}

/// Runs premarket with ARGS plus `--format json --junit FILE`; returns (exit code, JSON report,
/// what junitparser read).
fn junit_run(cmd: &mut assert_cmd::Command, dir: &Path) -> (Option<i32>, Value, Value) {
    let file = dir.join("results/junit.xml");
    let out = cmd
        .args(["--format", "json", "--junit", file.to_str().unwrap()])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)));
    assert!(
        text(&out.stderr).contains(&format!("JUnit XML written to {}", file.display())),
        "{}",
        text(&out.stderr)
    );
    (out.status.code(), report, read(&file))
}

#[test]
fn an_offline_run_of_two_devices_reads_back_with_the_counts_of_the_json_report() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let offline = repo().join("tests/fixtures/site/lanz-incident");
    let mut cmd = assert_cmd::Command::new(bin());
    cmd.arg("--dir")
        .arg(repo())
        .args(["run", "--offline", offline.to_str().unwrap()]);
    let (code, report, junit) = junit_run(&mut cmd, dir.path());
    assert_eq!(code, Some(1));
    assert_matches(&junit, &report);
    assert_eq!(
        junit["suites"].as_array().unwrap().len(),
        3,
        "fw1, sw1 and the site lab (its checks over several devices)"
    );
    let sw1 = junit["suites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "sw1")
        .unwrap();
    let lanz = sw1["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "eos.lanz.persisted")
        .unwrap();
    let failure = &lanz["results"][0];
    assert_eq!(failure["kind"], "Failure");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .starts_with("LANZ not saved: "),
        "{failure}"
    );
    let body = failure["text"].as_str().unwrap();
    for part in [
        "expected: ",
        "actual: ",
        "evidence:\n",
        "remedy: ",
        "rerun: premarket check eos.lanz.persisted --device sw1",
    ] {
        assert!(body.contains(part), "{part}: {body}");
    }
}

#[test]
fn errors_skips_and_hostile_device_text_read_back_as_the_json_report_says() {
    if !available() {
        return;
    }
    let site = Site::new("");
    // One check skipped by the baseline, one ERROR whose excerpt holds escape sequences,
    // markup and a CDATA end.
    let sw1 = site.path().join("baselines/sw1.yaml");
    let baseline = std::fs::read_to_string(&sw1).unwrap();
    std::fs::write(
        &sw1,
        format!("{baseline}skip:\n  eos.lanz.running: no LANZ on this lab switch\n"),
    )
    .unwrap();
    let offline = site.path().join("offline");
    std::fs::create_dir_all(offline.join("sw1")).unwrap();
    for entry in std::fs::read_dir(scenario("healthy").join("sw1")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), offline.join("sw1").join(entry.file_name())).unwrap();
    }
    std::fs::write(
        offline.join("sw1/show-version-json.txt"),
        "sw1# show version | json\n\u{1b}[2J</error><testcase name=\"forged\"/>]]>\u{7}\u{0} {\"version\": ",
    )
    .unwrap();
    let (code, report, junit) = junit_run(
        &mut site.cmd(&["run", "--offline", offline.to_str().unwrap()]),
        site.path(),
    );
    assert_eq!(code, Some(2), "{report}");
    assert_matches(&junit, &report);
    assert_eq!(report["counts"]["error"], 1);
    assert_eq!(report["counts"]["skip"], 1);
    let cases = junit["suites"][0]["cases"].as_array().unwrap();
    assert!(!cases.iter().any(|c| c["name"] == "forged"), "{junit}");
    let error = cases
        .iter()
        .flat_map(|c| c["results"].as_array().unwrap())
        .find(|r| r["kind"] == "Error")
        .unwrap();
    let body = error["text"].as_str().unwrap();
    assert!(
        body.contains("\\x1b[2J</error>"),
        "written out, kept as text: {body}"
    );
    let skipped = cases
        .iter()
        .find(|c| c["name"] == "eos.lanz.running")
        .unwrap();
    assert_eq!(skipped["results"][0]["kind"], "Skipped");
    assert_eq!(
        skipped["results"][0]["message"],
        "skipped by the baseline: no LANZ on this lab switch"
    );
}

#[test]
fn check_and_demo_write_it_too_and_a_broken_configuration_is_a_suite_of_errors() {
    if !available() {
        return;
    }
    let site = Site::new("");
    let offline = scenario("lanz-unsaved");
    let (code, report, junit) = junit_run(
        &mut site.cmd(&[
            "check",
            "eos.lanz.persisted",
            "--offline",
            offline.to_str().unwrap(),
        ]),
        site.path(),
    );
    assert_eq!(code, Some(1));
    assert_matches(&junit, &report);
    // The cause and the checks it explains, rechecked together (they read the same output).
    assert_eq!(junit["tests"], 3);
    assert_eq!(junit["suites"][0]["properties"]["partial"], "true");

    let home = tempfile::tempdir().unwrap();
    let mut demo = assert_cmd::Command::new(bin());
    demo.args(["demo", "--scenario", "lanz-unsaved", "--home"])
        .arg(home.path())
        .timeout(std::time::Duration::from_secs(120));
    let (code, report, junit) = junit_run(&mut demo, home.path());
    assert_eq!(code, Some(1), "{report}");
    assert_matches(&junit, &report);
    assert_eq!(junit["suites"][0]["properties"]["offline"], "false");

    // A mistake of the site's stops the run (one in a device's baseline would be that device's
    // ERROR, the others inspected).
    let site_yaml = site.path().join("baselines/site.yaml");
    let text_before = std::fs::read_to_string(&site_yaml).unwrap();
    std::fs::write(&site_yaml, format!("{text_before}colour: red\n")).unwrap();
    let file = site.path().join("config.xml");
    let out = site
        .cmd(&["run", "--no-email", "--junit", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let junit = read(&file);
    assert_eq!(junit["suites"][0]["name"], "configuration");
    assert_eq!(junit["errors"], 1, "{junit}");
    let error = &junit["suites"][0]["cases"][0]["results"][0];
    assert!(
        error["message"].as_str().unwrap().contains("site.yaml:"),
        "file:line:column: {error}"
    );
}

#[test]
fn a_fail_acknowledged_until_a_date_is_a_skipped_testcase_saying_until_when_by_whom_and_why() {
    if !available() {
        return;
    }
    let site = Site::new("archive:\n  dir: archive\n");
    let failed = site.run("lanz-unsaved", &["--no-email"]);
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    site.ack("eos.lanz.persisted", "saved in tonight's window", "CHG77");
    let until = tomorrow();
    let offline = scenario("lanz-unsaved");
    let mut cmd = site.cmd(&[
        "run",
        "--offline",
        offline.to_str().unwrap(),
        "--archive",
        "--no-email",
    ]);
    let (code, report, junit) = junit_run(&mut cmd, site.path());
    // eos.config.saved is not acknowledged: still a FAIL.
    assert_eq!(code, Some(1));
    assert_eq!(report["counts"]["acknowledged"], 1, "{report}");
    assert_matches(&junit, &report);
    let lanz = junit["suites"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "eos.lanz.persisted")
        .unwrap();
    let skipped = &lanz["results"][0];
    assert_eq!(skipped["kind"], "Skipped", "{lanz}");
    let message = skipped["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("acknowledged until {until} by "))
            && message.ends_with("(CHG77): saved in tonight's window"),
        "{message}"
    );
    assert!(
        skipped["text"]
            .as_str()
            .unwrap()
            .starts_with("FAIL: LANZ not saved"),
        "{skipped}"
    );
}

/// Seconds from `started_at` to `finished_at` of a JSON report.
fn wall_time(report: &Value) -> f64 {
    let at = |key: &str| {
        chrono::DateTime::parse_from_rfc3339(report[key].as_str().unwrap())
            .unwrap_or_else(|e| panic!("{key}: {e}"))
    };
    (at("finished_at") - at("started_at"))
        .num_microseconds()
        .unwrap() as f64
        / 1e6
}

/// A demo over SSH: `<testsuites time>` is the run's wall time (as the JSON report's start and
/// end say), each device's `<testsuite time>` no more than it, and each `<testcase time>` that
/// check's own evaluation (`eval_us` in the JSON report; 0 where a check has none), never the
/// device's collection counted again for every check (a 2 s run read as 58 s).
#[test]
fn times_are_the_run_s_wall_time_and_each_check_s_own_evaluation() {
    if !available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let mut demo = assert_cmd::Command::new(bin());
    demo.args(["demo", "--home"])
        .arg(home.path())
        .timeout(std::time::Duration::from_secs(120));
    let (code, report, junit) = junit_run(&mut demo, home.path());
    assert_eq!(code, Some(0), "{report}");
    assert_matches(&junit, &report);
    let wall = wall_time(&report);
    let total = junit["time"].as_f64().unwrap();
    assert!(
        (total - wall).abs() < 0.002,
        "testsuites {total} s, the run {wall} s"
    );
    let results = report["results"].as_array().unwrap();
    let mut cases = 0.0;
    for suite in junit["suites"].as_array().unwrap() {
        let time = suite["time"].as_f64().unwrap();
        assert!(
            time > 0.0 && time <= wall + 0.001,
            "{}: {time} s of {wall} s",
            suite["name"]
        );
        for case in suite["cases"].as_array().unwrap() {
            let result = results
                .iter()
                .find(|r| r["device"] == suite["name"] && r["check"] == case["name"])
                .unwrap_or_else(|| panic!("{case}"));
            let own = result["eval_us"].as_u64().unwrap_or(0) as f64 / 1e6;
            let time = case["time"].as_f64().unwrap();
            assert!(
                (time - own).abs() < 0.000_001,
                "{case}: {time} s, evaluated in {own} s"
            );
            cases += time;
        }
    }
    assert!(
        cases < wall,
        "the checks' own times add up to {cases} s of a {wall} s run"
    );
}
