#![doc = include_str!("README.md")]

pub mod ack;
pub mod archive;
pub mod blocks;
pub mod changed;
pub mod channel;
pub mod email;
pub mod escape;
pub mod history;
pub mod human;
pub mod invoke;
pub mod json;
pub mod junit;
pub mod lock;
pub mod metrics;
pub mod notify;
pub mod order;
pub mod reading;
pub mod redact;
pub mod terminal;
pub mod text;
pub mod trend;

use serde::{Deserialize, Serialize};

use premarket_config::Severity;
use premarket_core::Command;
use premarket_core::Platform;
use premarket_core::{Accepted, Exit, Status};
use premarket_core::{CollectError, Output};
use premarket_parse::Recorded;

pub use history::Changes;
pub use invoke::{Invocation, Mode};

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
    /// From the start of the device's inspection to this verdict: the device's collection
    /// (shared by all its checks) and this check's evaluation.
    pub duration_ms: u64,
    /// This check's own evaluation, in microseconds; absent (0) where a check has no time of
    /// its own (skipped by the baseline, synthesized). JUnit's testcase time.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub eval_us: u64,
    /// FAIL: the catalog's few words for what is wrong (`LANZ not saved`), the start of the
    /// headline and of the email subject.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub finding: String,
    #[serde(default)]
    pub severity: Severity,
    /// The check on the same device whose FAIL explains this result: it is shown under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained_by: Option<String>,
    /// The command that reruns it, when `premarket check ID --device NAME` cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
    /// In a rerun's standing state: the earlier run that judged this result (it was not
    /// rechecked now) and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_in: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_at: Option<String>,
    /// One sentence that leads the block (what, where, the key number); the summary is the
    /// detail under it. Empty: the finding and the summary lead.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lead: String,
    /// When what the result is about happened (a reboot, a burst), RFC 3339 in UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// The reading this result was judged against was accepted (`premarket accept`): who,
    /// when, why and the ticket. Gone once a later OK reading replaces the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Accepted>,
    /// A FAIL's subjects: the ports, flows, members, servers or changed lines it names, when
    /// the check can name several ([`premarket_core::Verdict::subjects`]). An
    /// acknowledgement binds to them. Absent: the check on the device as a whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    /// A FAIL acknowledged until a date (`baselines/acks.yaml`): listed apart, counted in
    /// `counts.acknowledged`, not in the status or the exit code ([`ack`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acknowledged: Option<ack::Acknowledged>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CheckResult {
    /// A result with only its identity and verdict set (tests, synthesized findings).
    pub fn new(check: &str, device: &str, status: Status, summary: &str) -> Self {
        CheckResult {
            check: check.to_string(),
            device: device.to_string(),
            status,
            title: String::new(),
            summary: summary.to_string(),
            expected: String::new(),
            actual: String::new(),
            evidence: String::new(),
            remedy: String::new(),
            duration_ms: 0,
            eval_us: 0,
            finding: String::new(),
            severity: Severity::default(),
            explained_by: None,
            rerun: None,
            judged_in: None,
            judged_at: None,
            lead: String::new(),
            when: None,
            accepted: None,
            subjects: Vec::new(),
            acknowledged: None,
        }
    }

    /// What the block's first line says after the check id: for a FAIL the catalog's
    /// finding and the verdict (`LANZ not saved: LANZ is on only in running-config ...`),
    /// otherwise the verdict alone.
    pub fn headline(&self) -> String {
        match (self.status, self.finding.is_empty()) {
            (Status::Fail, false) => format!("{}: {}", self.finding, self.summary),
            _ => self.summary.clone(),
        }
    }

    /// `accepted by alice (CHG123)`, when it was judged against an accepted reading.
    pub fn accepted_note(&self) -> Option<String> {
        self.accepted.as_ref().map(Accepted::note)
    }

    /// The command that judges this result again after a fix.
    pub fn rerun_command(&self) -> String {
        self.rerun
            .clone()
            .unwrap_or_else(|| format!("premarket check {} --device {}", self.check, self.device))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub ok: usize,
    /// FAILs not acknowledged.
    pub fail: usize,
    pub error: usize,
    pub skip: usize,
    /// FAILs acknowledged until a date ([`ack`]): they keep their status but count here.
    #[serde(default, skip_serializing_if = "is_none")]
    pub acknowledged: usize,
}

fn is_none(n: &usize) -> bool {
    *n == 0
}

impl Counts {
    pub fn of(results: &[CheckResult]) -> Counts {
        let mut counts = Counts::default();
        for r in results {
            match r.status {
                Status::Ok => counts.ok += 1,
                Status::Fail if r.acknowledged.is_some() => counts.acknowledged += 1,
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
    /// Judged from saved outputs (`--offline`), not from the devices now.
    #[serde(default, skip_serializing_if = "is_false")]
    pub offline: bool,
    /// Devices that could not be inspected (unreachable, login refused, host key, hang,
    /// deadline): one entry each, naming the checks it blocked (their results stay in
    /// `results` as ERROR).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices_not_inspected: Vec<DeviceDown>,
    /// A rerun: the latest result of every check it did not recheck, from the latest full run
    /// and the reruns since, so a rerun never reads all clear while something still fails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standing: Vec<CheckResult>,
    /// A rerun: the status of the site as it stands (rechecked results and `standing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standing_status: Option<Status>,
    /// What the probe measured, per probe device (metrics and cross-checks read it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probe: Vec<ProbeFigures>,
    /// The deadline the run worked to, and whether it had already passed when the run began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DeadlineNote>,
    /// The configuration mistakes that stopped the run (a configuration-error report has no
    /// results): each `file:line:column: message`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_errors: Vec<String>,
    /// What went wrong around the inspection (archive, delivery) that readers must know.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// The calendar says the market is closed today: why (nothing was inspected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
    /// The facts that define each box (version, model, serial, HA, links, PTP grandmaster, NTP
    /// servers, LANZ, interface count) that differ from the previous run's; no verdict
    /// ([`changed`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_facts: Vec<changed::FactChange>,
    /// What drifted against the week before, in one line, when something did (the email then
    /// shows the trend; see [`trend::drift`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<String>,
    /// Devices judged in this run whose outputs and facts are not in its archive (the archive
    /// directory was deleted or cleaned while the run was writing it); `history` marks the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_archived: Vec<String>,
    /// The run's charts as files (`latency-probe1.svg`, ...), which the archive keeps beside
    /// the run in `charts/`; not in report.json.
    #[serde(skip)]
    pub charts: Vec<(String, Vec<u8>)>,
    /// The raw outputs judged, redacted, for the archive and the email; not in report.json.
    #[serde(skip)]
    pub raw: Vec<DeviceOutputs>,
    /// How this run was started, so that the commands the report prints are complete for it
    /// (`--dir`, `--offline`, the demo); not in report.json.
    #[serde(skip)]
    pub invocation: Invocation,
    /// Each changed configuration's whole unified diff (device, diff), redacted: the email
    /// attaches it as `DEVICE.diff` and the archive keeps it in `diffs/`; not in report.json.
    #[serde(skip)]
    pub diffs: Vec<(String, String)>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A device premarket could not inspect: what happened, where, what to do, what it blocked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceDown {
    pub device: String,
    /// A few words for the subject: `not answering`, `unreachable`, `login refused` ...
    pub cause: String,
    /// What happened, one line.
    pub what: String,
    /// The command it happened at; absent when it happened before the first command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// What to do for this cause.
    pub remedy: String,
    /// The checks left ERROR by it.
    pub blocked: Vec<String>,
    /// In a rerun's standing state: the earlier run that found the device down, and when.
    /// Absent for a device found down by this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_in: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_at: Option<String>,
}

impl DeviceDown {
    pub fn rerun_command(&self) -> String {
        format!("premarket run --device {}", self.device)
    }
}

/// The probe's figures for one probe device (steady state: the packets after session setup).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeFigures {
    pub device: String,
    /// The probe's own verdict (`offloaded`, `cpu_path`, `new_session_per_packet` ...).
    pub verdict: String,
    pub pairs: usize,
    pub lost: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ns: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ns: Option<i64>,
    /// Packets in the steady state (after each session's first packets).
    #[serde(default)]
    pub steady_n: usize,
    /// Means (the analysis's), for the summary's `_sum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_mean_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_median_ns: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_p99_ns: Option<i64>,
}

/// The run's deadline as the report tells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadlineNote {
    /// RFC 3339 in the site's time zone.
    pub at: String,
    /// It had passed (today) before the run began; the run was bounded by the grace instead.
    #[serde(default, skip_serializing_if = "is_false")]
    pub passed: bool,
}

/// What one device returned for each command of the run (secrets already redacted).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceOutputs {
    pub device: String,
    pub platform: Platform,
    /// What premarket holds in memory is redacted (an output's text, a spooled output's head);
    /// a spooled output's file is redacted as it is copied out (archive).
    pub outputs: Vec<(Command, Result<Output, CollectError>)>,
    /// The facts the archive keeps for the next run (counters whose growth is judged).
    pub facts: Vec<Recorded>,
    /// Which of them become the device's references ([`archive::Advance`]).
    pub advance: archive::Advance,
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
        let mut report = Report {
            run_id,
            site,
            started_at,
            finished_at,
            status: overall(&counts),
            counts,
            results,
            changes: None,
            partial: false,
            offline: false,
            devices_not_inspected: Vec::new(),
            standing: Vec::new(),
            standing_status: None,
            probe: Vec::new(),
            deadline: None,
            config_errors: Vec::new(),
            problems: Vec::new(),
            closed: None,
            changed_facts: Vec::new(),
            drift: None,
            not_archived: Vec::new(),
            charts: Vec::new(),
            raw: Vec::new(),
            invocation: Invocation::default(),
            diffs: Vec::new(),
        };
        report.sort();
        report
    }

    /// Puts the results in reading order (see [`order`]); call after changing them.
    pub fn sort(&mut self) {
        let blocked = self.blocked_pairs();
        order::sort(&mut self.results, &blocked);
        order::sort(&mut self.standing, &blocked);
        self.counts = Counts::of(&self.results);
        self.status = overall(&self.counts);
        // A device not inspected that blocks no result of its own (its checks are not known)
        // still means the inspection could not tell.
        if self.status == Status::Ok
            && self
                .devices_not_inspected
                .iter()
                .any(|d| d.blocked.is_empty() && d.judged_in.is_none())
        {
            self.status = Status::Error;
        }
    }

    /// A rerun's `standing_status`: the site's status counting what it rechecked and what
    /// stands from earlier runs as one.
    pub fn stand(&mut self) {
        let all: Vec<CheckResult> = self.results.iter().chain(&self.standing).cloned().collect();
        self.standing_status = Some(overall(&Counts::of(&all)));
    }

    /// (check, device) of every result left ERROR by an uninspectable device.
    pub fn blocked_pairs(&self) -> Vec<(String, String)> {
        self.devices_not_inspected
            .iter()
            .flat_map(|d| d.blocked.iter().map(|c| (c.clone(), d.device.clone())))
            .collect()
    }

    /// The site's status as the reader should take it: a rerun's standing status, else the
    /// run's own.
    pub fn shown_status(&self) -> Status {
        self.standing_status.unwrap_or(self.status)
    }

    /// Exit codes 0 all OK (or SKIP), 1 any FAIL, 2 any ERROR and no FAIL; 3 for a
    /// configuration-error report (nothing was inspected).
    pub fn exit_code(&self) -> u8 {
        if !self.config_errors.is_empty() {
            return Exit::NotRun.code();
        }
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
