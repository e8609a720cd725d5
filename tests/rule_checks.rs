//! The declarative checks the example site ships (checks/*.yaml with `command` and `rule`),
//! through the whole pipeline (config -> plan -> offline collect -> parse -> evaluate): one row
//! per case, OK, FAIL and ERROR for each check; and `increase_at_most` over successive runs
//! through the real archive.

use crate::common;

use std::sync::Arc;

use assert_cmd::Command as Cli;
use premarket::Status;
use premarket::collect::offline::Offline;
use premarket::config::Config;
use premarket::core::Command;
use premarket::inspect::{Limits, inspect};
use premarket::plan::{Plan, Selection};

const ERRORS: &str = "show interfaces counters errors | json";
const LANZ: &str = "show queue-monitor length status | json";

struct Row {
    check: &'static str,
    device: &'static str,
    command: &'static str,
    /// Under tests/fixtures/; `None` leaves the output missing.
    fixture: Option<&'static str>,
    status: Status,
    /// Words the summary must contain.
    summary: &'static str,
    /// Words the `actual` or the evidence must contain.
    detail: &'static str,
}

const fn row(
    check: &'static str,
    device: &'static str,
    command: &'static str,
    fixture: Option<&'static str>,
    status: Status,
    summary: &'static str,
    detail: &'static str,
) -> Row {
    Row {
        check,
        device,
        command,
        fixture,
        status,
        summary,
        detail,
    }
}

const PORTS: &str = "eos.ports.errors-absent";
const LANZ_RUNNING: &str = "eos.lanz.running";

const ROWS: &[Row] = &[
    // A first run: both counters are judged as growth (issue 18: an old incident is history),
    // so the first run records them and judges growth from the next run on.
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/healthy.txt"),
        Status::Ok,
        "first run of this check on this device",
        "",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/errors-off-path.txt"),
        Status::Ok,
        "holds",
        "",
    ),
    // 1843 input errors counted before this run: not a FAIL every morning.
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/crc-errors.txt"),
        Status::Ok,
        "first run of this check on this device",
        "",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/port-missing.txt"),
        Status::Fail,
        "Ethernet4: not in the output",
        "listed in expect.trading_ports",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/wrong-type.txt"),
        Status::Error,
        "Ethernet2: $.inErrors is a string (\"n/a\"), increase_at_most needs a number",
        "\"n/a\"",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/text-instead-of-json.txt"),
        Status::Error,
        "not JSON",
        "FCS",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        Some("rule/eos/show-interfaces-counters-errors/invalid-command.txt"),
        Status::Error,
        "% Invalid input",
        "Invalid input",
    ),
    row(
        PORTS,
        "sw1",
        ERRORS,
        None,
        Status::Error,
        "not collected",
        "",
    ),
    row(
        LANZ_RUNNING,
        "sw1",
        LANZ,
        Some("eos/show-queue-monitor-length-status/json-enabled.txt"),
        Status::Ok,
        "$.lanzEnabled equal to true (expect.lanz)",
        "",
    ),
    row(
        LANZ_RUNNING,
        "sw1",
        LANZ,
        Some("eos/show-queue-monitor-length-status/json-disabled.txt"),
        Status::Fail,
        "$.lanzEnabled = false, wanted equal to true (expect.lanz)",
        "false",
    ),
    // The command asks for JSON: text is not what the switch answers to it.
    row(
        LANZ_RUNNING,
        "sw1",
        LANZ,
        Some("eos/show-queue-monitor-length-status/text-enabled.txt"),
        Status::Error,
        "not JSON",
        "queue-monitor length enabled",
    ),
    row(
        LANZ_RUNNING,
        "sw1",
        LANZ,
        Some("eos/show-queue-monitor-length-status/invalid-command.txt"),
        Status::Error,
        "% Invalid input",
        "Invalid input",
    ),
];

#[tokio::test]
async fn every_row() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let mut seen = Vec::new();
    for row in ROWS {
        let outputs = tempfile::tempdir().expect("tempdir");
        let device_dir = outputs.path().join(row.device);
        std::fs::create_dir_all(&device_dir).expect("mkdir");
        if let Some(fixture) = row.fixture {
            std::fs::copy(
                common::fixture(fixture),
                device_dir.join(Command::new(row.command).file_name()),
            )
            .expect("copy fixture");
        }
        // The switch says what it is (a command some families lack is judged by the model).
        if row.device == "sw1" {
            std::fs::copy(
                common::fixture("eos/show-version/json-4.31.6M.txt"),
                device_dir.join(Command::new("show version | json").file_name()),
            )
            .expect("copy show version");
        }
        let selection = Selection {
            checks: vec![row.check.into()],
            devices: vec![row.device.into()],
            tags: vec![],
        };
        let plan = Plan::new(&config, &selection).expect("plan");
        let report = inspect(
            &config,
            plan.clone(),
            Arc::new(Offline::new(outputs.path())),
            &Limits::from_config(&config),
        )
        .await;
        assert_eq!(report.results.len(), 1, "{}", row.check);
        let result = &report.results[0];
        seen.push((row.check.to_string(), result.status, result.headline()));
        let case = format!("{} with {:?}", row.check, row.fixture);
        assert_eq!(result.status, row.status, "{case}: {result:#?}");
        assert!(
            result.summary.contains(row.summary),
            "{case}: summary {:?} lacks {:?}",
            result.summary,
            row.summary
        );
        crate::subjects::assert_about(result);
        let detail = format!("{}\n{}", result.actual, result.evidence);
        assert!(
            detail.contains(row.detail),
            "{case}: {detail:?} lacks {:?}",
            row.detail
        );
        if result.status != Status::Ok {
            assert!(!result.remedy.is_empty(), "{case}: no remedy");
        }
        if result.status == Status::Error && row.fixture.is_some() {
            assert!(!result.evidence.is_empty(), "{case}: ERROR without excerpt");
        }
    }
    crate::explain::assert_examples(&seen);
}

/// `premarket run --offline` in a copy of the example site whose archive keeps each run.
fn run(site: &common::Site, scenario: &str) -> serde_json::Value {
    let outputs = tempfile::tempdir().expect("tempdir");
    let device_dir = outputs.path().join("sw1");
    std::fs::create_dir_all(&device_dir).expect("mkdir");
    std::fs::copy(
        common::fixture(&format!(
            "rule/eos/show-interfaces-counters-errors/{scenario}.txt"
        )),
        device_dir.join(Command::new(ERRORS).file_name()),
    )
    .expect("copy");
    let out = Cli::cargo_bin("premarket")
        .expect("binary")
        .env_remove("PREMARKET_DIR")
        // --archive: offline runs keep no history unless asked, and growth needs the last one.
        .args([
            "run",
            "--check",
            PORTS,
            "--format",
            "json",
            "--archive",
            "--dir",
        ])
        .arg(site.path())
        .arg("--offline")
        .arg(outputs.path())
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(
        report["results"][0].is_object(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report["results"][0].clone()
}

#[test]
fn growth_is_judged_against_the_last_ok_reading_in_the_archive() {
    let site = common::Site::example();
    // (scenario, status, words of the summary)
    let runs = [
        ("healthy", "OK", "first run of this check on this device"),
        ("healthy", "OK", "holds"),
        // Five new FCS errors on Ethernet3: under max_in_errors, but the counter grew.
        (
            "fcs-grown",
            "FAIL",
            "Ethernet3: $.fcsErrors grew from 0 to 5 since run ",
        ),
        // Nothing new since the FAIL is no fix: the growth stands against the last OK reading.
        (
            "fcs-grown",
            "FAIL",
            "Ethernet3: $.fcsErrors grew from 0 to 5 since run ",
        ),
        // Cleared counters are not growth.
        ("healthy", "OK", "holds"),
    ];
    for (i, (scenario, status, words)) in runs.into_iter().enumerate() {
        let result = run(&site, scenario);
        assert_eq!(result["status"], status, "run {i} ({scenario}): {result:#}");
        let summary = result["summary"].as_str().unwrap_or_default();
        assert!(summary.contains(words), "run {i}: {summary}");
    }
}
