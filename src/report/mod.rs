//! Stage 6 of the pipeline: the report, in the forms people and tools read it.
//!
//! [`Report`] is the JSON object of DESIGN §4 (also what the archive keeps); [`text`] renders it
//! for a terminal, and the exit code follows from its status.

pub mod archive;
pub mod email;
pub mod history;
pub mod json;
pub mod lock;
pub mod publish;
pub mod redact;
pub mod text;
pub mod trend;

use serde::{Deserialize, Serialize};

use crate::core::CollectError;
use crate::core::Command;
use crate::core::Platform;
use crate::core::{Exit, Status};
use crate::parse::Recorded;

pub use history::Changes;

/// One check on one device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    pub check: String,
    pub device: String,
    pub status: Status,
    pub title: String,
    pub summary: String,
    pub expected: String,
    pub actual: String,
    pub evidence: String,
    pub remedy: String,
    pub duration_ms: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub ok: usize,
    pub fail: usize,
    pub error: usize,
    pub skip: usize,
}

impl Counts {
    pub fn of(results: &[CheckResult]) -> Counts {
        let mut counts = Counts::default();
        for r in results {
            match r.status {
                Status::Ok => counts.ok += 1,
                Status::Fail => counts.fail += 1,
                Status::Error => counts.error += 1,
                Status::Skip => counts.skip += 1,
            }
        }
        counts
    }
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub run_id: String,
    pub site: String,
    /// RFC 3339 in the site's time zone.
    pub started_at: String,
    pub finished_at: String,
    pub status: Status,
    pub counts: Counts,
    pub results: Vec<CheckResult>,
    /// What changed since the previous run of the same checks (absent on the first run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    /// Only some checks or devices were selected (a rerun), so the status is not the site's.
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
    /// The raw outputs judged, redacted, for the archive and the email; not in report.json.
    #[serde(skip)]
    pub raw: Vec<DeviceOutputs>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What one device returned for each command of the run (secrets already redacted).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceOutputs {
    pub device: String,
    pub platform: Platform,
    pub outputs: Vec<(Command, Result<String, CollectError>)>,
    /// The facts the archive keeps for the next run (counters whose growth is judged).
    pub facts: Vec<Recorded>,
}

impl Report {
    pub fn new(
        run_id: String,
        site: String,
        started_at: String,
        finished_at: String,
        results: Vec<CheckResult>,
    ) -> Self {
        let counts = Counts::of(&results);
        Report {
            run_id,
            site,
            started_at,
            finished_at,
            status: overall(&counts),
            counts,
            results,
            changes: None,
            partial: false,
            raw: Vec::new(),
        }
    }

    /// DESIGN §3: 0 all OK (or SKIP), 1 any FAIL, 2 any ERROR and no FAIL.
    pub fn exit_code(&self) -> u8 {
        Exit::of(self.status).code()
    }
}

/// FAIL wins over ERROR, ERROR over OK: an ERROR never produces an OK status.
pub fn overall(counts: &Counts) -> Status {
    if counts.fail > 0 {
        Status::Fail
    } else if counts.error > 0 {
        Status::Error
    } else {
        Status::Ok
    }
}
