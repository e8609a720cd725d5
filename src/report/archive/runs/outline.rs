//! An archived report read in outline: the run's own fields, each result's check, device and
//! status, and the devices that could not be inspected with the checks they blocked (what
//! "since the previous run" groups by device). Everything else in the file (summaries, evidence, remedies: most of its bytes)
//! is skipped by the JSON reader without being kept, and what is kept is escaped as a whole
//! report's strings are.

use serde::Deserialize;

use crate::{CheckResult, Report, escape};
use premarket_core::Status;

#[derive(Deserialize)]
pub(super) struct Outline {
    run_id: String,
    site: String,
    started_at: String,
    finished_at: String,
    status: Status,
    results: Vec<Line>,
    #[serde(default)]
    partial: bool,
    #[serde(default)]
    offline: bool,
    #[serde(default)]
    devices_not_inspected: Vec<Down>,
}

/// An archived report's own fields alone (its results skipped as they are read): what the
/// trend reads of a run.
#[derive(Deserialize)]
pub(super) struct Heading {
    run_id: String,
    site: String,
    started_at: String,
    finished_at: String,
    status: Status,
    #[serde(default)]
    partial: bool,
    #[serde(default)]
    offline: bool,
}

impl Heading {
    pub(super) fn report(self) -> Report {
        Outline {
            run_id: self.run_id,
            site: self.site,
            started_at: self.started_at,
            finished_at: self.finished_at,
            status: self.status,
            results: Vec::new(),
            partial: self.partial,
            offline: self.offline,
            devices_not_inspected: Vec::new(),
        }
        .report()
    }
}

#[derive(Deserialize)]
struct Line {
    check: String,
    device: String,
    status: Status,
}

/// A device that could not be inspected: which, and the checks it blocked.
#[derive(Deserialize)]
struct Down {
    device: String,
    blocked: Vec<String>,
}

impl Outline {
    pub(super) fn report(self) -> Report {
        let clean = |s: &str| escape::control(s);
        let results = self
            .results
            .iter()
            .map(|r| CheckResult::new(&clean(&r.check), &clean(&r.device), r.status, ""))
            .collect();
        let mut report = Report::new(
            clean(&self.run_id),
            clean(&self.site),
            clean(&self.started_at),
            clean(&self.finished_at),
            results,
        );
        report.status = self.status;
        report.partial = self.partial;
        report.offline = self.offline;
        report.devices_not_inspected = self
            .devices_not_inspected
            .iter()
            .map(|d| crate::DeviceDown {
                device: clean(&d.device),
                cause: String::new(),
                what: String::new(),
                command: None,
                remedy: String::new(),
                blocked: d.blocked.iter().map(|b| clean(b)).collect(),
                judged_in: None,
                judged_at: None,
            })
            .collect();
        report
    }
}
