//! Every EOS check over fixtures, through the whole pipeline (config -> plan -> offline collect
//! -> parse -> evaluate): one row per case, OK, FAIL and ERROR for each check.

mod common;

use std::sync::Arc;

use premarket::Status;
use premarket::collect::offline::Offline;
use premarket::config::Config;
use premarket::core::Command;
use premarket::inspect::{Limits, inspect};
use premarket::plan::{Plan, Selection};
use premarket::platform::eos::{
    ShowLanzStatus, ShowRunningConfigDiffs, ShowStartupConfig, ShowVersion,
};

const SHOW_VERSION: &str = ShowVersion::TEXT;
const SHOW_LANZ_STATUS: &str = ShowLanzStatus::TEXT;
const SHOW_STARTUP_CONFIG: &str = ShowStartupConfig::TEXT;
const SHOW_RUNNING_CONFIG_DIFFS: &str = ShowRunningConfigDiffs::TEXT;

/// The healthy switch: (command, fixture under tests/fixtures/eos/).
const HEALTHY: [(&str, &str); 4] = [
    (SHOW_VERSION, "show-version/json-4.31.6M.txt"),
    (
        SHOW_LANZ_STATUS,
        "show-queue-monitor-length-status/json-enabled.txt",
    ),
    (SHOW_STARTUP_CONFIG, "show-startup-config/lanz-saved.txt"),
    (
        SHOW_RUNNING_CONFIG_DIFFS,
        "show-running-config-diffs/clean.txt",
    ),
];

struct Row {
    check: &'static str,
    /// Fixtures replacing the healthy ones; `None` leaves the output missing.
    outputs: &'static [(&'static str, Option<&'static str>)],
    status: Status,
    /// Words the summary must contain.
    summary: &'static str,
}

const ROWS: &[Row] = &[
    Row {
        check: "eos.version.pinned",
        outputs: &[],
        status: Status::Ok,
        summary: "4.31.6M as pinned",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/text-old-padded-crlf.txt"))],
        status: Status::Ok,
        summary: "4.31.6M",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/text-new.txt"))],
        status: Status::Ok,
        summary: "4.32.2F",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/json-4.33.1F-drift.txt"))],
        status: Status::Fail,
        summary: "4.33.1F runs, the baseline pins one of 4.31.6M, 4.32.2F",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/garbage.txt"))],
        status: Status::Error,
        summary: "cannot read",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, None)],
        status: Status::Error,
        summary: "missing",
    },
    // eos.lanz.running is declarative (checks/eos.yaml): the switch's JSON, `lanzEnabled`.
    Row {
        check: "eos.lanz.running",
        outputs: &[],
        status: Status::Ok,
        summary: "$.lanzEnabled equal to true (expect.lanz)",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/text-enabled.txt"),
        )],
        status: Status::Error,
        summary: "not JSON",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/json-disabled.txt"),
        )],
        status: Status::Fail,
        summary: "$.lanzEnabled = false, wanted equal to true (expect.lanz)",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/invalid-command.txt"),
        )],
        status: Status::Error,
        summary: "% Invalid input",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[],
        status: Status::Ok,
        summary: "survives a reload",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/lanz-only-in-running.txt"),
        )],
        status: Status::Fail,
        summary: "LANZ is on only in running-config and will be off after the next reload",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[
            (
                SHOW_STARTUP_CONFIG,
                Some("show-startup-config/lanz-only-in-running.txt"),
            ),
            (
                SHOW_LANZ_STATUS,
                Some("show-queue-monitor-length-status/json-disabled.txt"),
            ),
        ],
        status: Status::Fail,
        summary: "not in startup-config",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/lanz-explicitly-off.txt"),
        )],
        status: Status::Fail,
        summary: "only in running-config",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/not-privileged.txt"),
        )],
        status: Status::Error,
        summary: "privileged mode required",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[],
        status: Status::Ok,
        summary: "running-config is saved",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/cosmetic-only.txt"),
        )],
        status: Status::Ok,
        summary: "cosmetic",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/unsaved.txt"),
        )],
        status: Status::Fail,
        summary: "2 added, 0 removed",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/not-privileged.txt"),
        )],
        status: Status::Error,
        summary: "privileged mode required",
    },
];

#[tokio::test]
async fn every_row() {
    let config = Config::load(&common::repo()).expect("example site loads");
    for row in ROWS {
        let outputs = tempfile::tempdir().expect("tempdir");
        let device_dir = outputs.path().join("sw1");
        std::fs::create_dir_all(&device_dir).expect("mkdir");
        for (command, fixture) in HEALTHY {
            let replaced = row
                .outputs
                .iter()
                .find(|(c, _)| *c == command)
                .map(|(_, f)| *f);
            let Some(fixture) = replaced.unwrap_or(Some(fixture)) else {
                continue;
            };
            std::fs::copy(
                common::fixture(&format!("eos/{fixture}")),
                device_dir.join(Command::new(command).file_name()),
            )
            .expect("copy fixture");
        }
        let selection = Selection {
            checks: vec![row.check.into()],
            devices: vec!["sw1".into()],
            tags: vec![],
        };
        let plan = Plan::new(&config, &selection).expect("plan");
        let report = inspect(
            &config,
            &plan,
            Arc::new(Offline::new(outputs.path())),
            &Limits::from_config(&config),
        )
        .await;
        assert_eq!(report.results.len(), 1, "{}", row.check);
        let result = &report.results[0];
        assert_eq!(
            result.status, row.status,
            "{} with {:?}: {result:#?}",
            row.check, row.outputs
        );
        assert!(
            result.summary.contains(row.summary),
            "{}: summary {:?} lacks {:?}",
            row.check,
            result.summary,
            row.summary
        );
        if result.status != Status::Ok {
            assert!(
                !result.remedy.is_empty(),
                "{}: a FAIL/ERROR needs a remedy",
                row.check
            );
        }
        if result.status == Status::Error {
            assert!(
                !result.evidence.is_empty() || result.summary.contains("missing"),
                "{}: ERROR without excerpt",
                row.check
            );
        }
    }
}

#[tokio::test]
async fn lanz_incident_fixture_fails_with_the_lab_notes_explanation() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let plan = Plan::new(
        &config,
        &Selection {
            devices: vec!["sw1".into()],
            ..Selection::default()
        },
    )
    .expect("plan");
    let limits = Limits::from_config(&config);
    let run = |dir: &str| {
        let collector = Arc::new(Offline::new(common::fixture(dir)));
        inspect(&config, &plan, collector, &limits)
    };
    let healthy = run("site/healthy").await;
    assert!(
        healthy.results.iter().all(|r| r.status == Status::Ok),
        "{healthy:#?}"
    );
    let incident = run("site/lanz-incident").await;
    let persisted = incident
        .results
        .iter()
        .find(|r| r.check == "eos.lanz.persisted")
        .expect("result");
    assert_eq!(persisted.status, Status::Fail);
    assert!(
        persisted.summary.contains("only in running-config")
            && persisted.summary.contains("next reload")
    );
    assert!(persisted.remedy.contains("write memory"));
    assert_eq!(incident.exit_code(), 1);
}
