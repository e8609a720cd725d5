//! What a notification says, whatever renders it: the kind of run ([`NotifyOn`]: fail, error,
//! recovered, ok), the email's subject as the headline, and the blocks that need attention in
//! the report's reading order (one per device that could not be inspected, as in the email).
//! Every string is taken from the report with its control characters written out and every
//! known secret masked, before any renderer sees it.

use chrono::DateTime;
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::blocks::Block;
use crate::email::{Context as MailContext, subject};
use crate::redact::Redactor;
use crate::{CheckResult, Counts, DeviceDown, Report, escape};
use premarket_config::{NotifyOn, Severity};
use premarket_core::Status;

/// Findings shown in one message; the rest are counted ("+3 more in the email"): Slack takes
/// 50 blocks, and a pager is read on a phone.
pub const MAX_FINDINGS: usize = 20;

/// What the notifications remember between runs (`<archive>/.notify-state.json`): the status
/// of the latest run they heard of, and the PagerDuty incidents opened and not yet resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `dedup_key`s triggered and not resolved yet.
    #[serde(default)]
    pub open: Vec<String>,
}

/// What kind of run `report` is after `before`. A run that is not FAIL or ERROR is
/// `Recovered` after one that was, and `Ok` otherwise. A partial run that does not know the
/// standing state (an offline rerun, no archive) never reads `Recovered`: it rechecked only
/// some checks, and saying all clear would be false.
pub fn event(report: &Report, before: &State) -> NotifyOn {
    match report.shown_status() {
        Status::Fail => NotifyOn::Fail,
        Status::Error => NotifyOn::Error,
        Status::Ok | Status::Skip => {
            let was_failing = matches!(before.status, Some(Status::Fail | Status::Error));
            let knows_the_site = !report.partial || report.standing_status.is_some();
            if was_failing && knows_the_site {
                NotifyOn::Recovered
            } else {
                NotifyOn::Ok
            }
        }
    }
}

/// The state after `report` was announced as `event`.
pub fn after(before: &State, report: &Report, event: NotifyOn) -> State {
    let key = dedup_key(report);
    match event {
        NotifyOn::Fail | NotifyOn::Error => {
            let mut open = before.open.clone();
            if !open.contains(&key) {
                open.push(key);
            }
            State {
                status: Some(report.shown_status()),
                run_id: Some(report.run_id.clone()),
                open,
            }
        }
        NotifyOn::Recovered => State {
            status: Some(Status::Ok),
            run_id: Some(report.run_id.clone()),
            open: Vec::new(),
        },
        // A partial OK run after a FAIL leaves the FAIL standing.
        NotifyOn::Ok if before.status.is_some() && report.partial => before.clone(),
        NotifyOn::Ok => State {
            status: Some(Status::Ok),
            run_id: Some(report.run_id.clone()),
            open: before.open.clone(),
        },
    }
}

/// PagerDuty's `dedup_key`: one incident per site and trading day (the day the run started,
/// in the site's time zone), so every run of the morning updates the same incident.
pub fn dedup_key(report: &Report) -> String {
    let day = DateTime::parse_from_rfc3339(&report.started_at)
        .map(|at| at.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|_| report.run_id.chars().take(8).collect());
    format!("premarket-{}-{day}", report.site)
}

/// One block that needs attention.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub status: Status,
    pub device: String,
    /// `None` for a device that could not be inspected (the block stands for `blocked`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// What is wrong: the catalog's finding and the verdict, or what happened to the device.
    pub text: String,
    /// A cause shown above, or, in a rerun, whether it was rechecked now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub remedy: String,
    pub rerun: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<String>,
}

impl Finding {
    /// The terminal's first line of the block: `FAIL sw1 eos.lanz.persisted — LANZ not saved: ...`.
    pub fn line(&self) -> String {
        let what = self.check.as_deref().unwrap_or("(device)");
        format!("{} {} {what} — {}", self.status, self.device, self.text)
    }
}

/// Everything a renderer needs.
#[derive(Clone, Debug)]
pub struct Notice {
    pub event: NotifyOn,
    /// The email's subject: `[premarket] FAIL lab 08:31 +08 — sw1 LANZ not saved (+1)`.
    pub headline: String,
    pub site: String,
    pub run_id: String,
    pub started_at: String,
    /// The site's status as it stands (a rerun's standing status).
    pub status: Status,
    pub counts: Counts,
    pub offline: bool,
    pub partial: bool,
    pub findings: Vec<Finding>,
    /// Blocks past [`MAX_FINDINGS`].
    pub more: usize,
    /// FAILs acknowledged until a date (the rerun's standing ones too): not findings.
    pub acknowledged: usize,
    /// The non-OK results (and a rerun's standing ones) as in report.json.
    pub results: Vec<CheckResult>,
    pub devices_not_inspected: Vec<DeviceDown>,
    pub config_errors: Vec<String>,
    pub problems: Vec<String>,
    /// For `Recovered`: the status and run the site recovered from.
    pub recovered_from: Option<(Status, String)>,
    /// PagerDuty: the incident this run triggers.
    pub dedup_key: String,
    /// PagerDuty: the incidents a `Recovered` run resolves (an `Ok` run resolves none: an
    /// OK rerun of some checks must not close the morning's incident).
    pub resolve: Vec<String>,
    /// PagerDuty's severity, from the catalog: `critical` or `warning` from the most severe
    /// check not OK, `error` when no check says (a configuration error).
    pub severity: &'static str,
}

impl Notice {
    pub fn new(
        report: &Report,
        event: NotifyOn,
        before: &State,
        tz: Tz,
        redactor: &Redactor,
    ) -> Notice {
        let clean = |s: &str| redactor.literals(&escape::control(s));
        let mut headline = subject(report, &MailContext::new(tz, None));
        let recovered_from = (event == NotifyOn::Recovered)
            .then(|| before.status.zip(before.run_id.clone()))
            .flatten();
        let view = report.view();
        let acknowledged = view.acknowledged.len();
        if let Some((status, run)) = &recovered_from {
            headline.push_str(&match acknowledged {
                0 => format!(" — recovered: everything is OK again after {status} in run {run}"),
                n => format!(
                    " — recovered: nothing needs attention after {status} in run {run} ({n} FAIL acknowledged until a date)"
                ),
            });
        }
        let findings: Vec<Finding> = view
            .attention
            .iter()
            .map(|block| finding(report, block, &clean))
            .collect();
        let not_ok = |r: &&CheckResult| matches!(r.status, Status::Fail | Status::Error);
        let results: Vec<CheckResult> = report
            .results
            .iter()
            .chain(&report.standing)
            .filter(not_ok)
            .map(|r| cleaned(r, &clean))
            .collect();
        // A FAIL acknowledged until a date pages nobody.
        let paging: Vec<&CheckResult> = results
            .iter()
            .filter(|r| !crate::ack::is_acknowledged(r))
            .collect();
        let severity = if paging.iter().any(|r| r.severity == Severity::Critical) {
            "critical"
        } else if paging.iter().any(|r| r.severity == Severity::Warning) {
            "warning"
        } else {
            "error"
        };
        let resolve = match event {
            NotifyOn::Recovered if !before.open.is_empty() => before.open.clone(),
            NotifyOn::Recovered => vec![dedup_key(report)],
            _ => Vec::new(),
        };
        let more = findings.len().saturating_sub(MAX_FINDINGS);
        Notice {
            event,
            headline: clean(&headline),
            site: clean(&report.site),
            run_id: clean(&report.run_id),
            started_at: clean(&report.started_at),
            status: report.shown_status(),
            counts: report.counts,
            offline: report.offline,
            partial: report.partial,
            findings: findings.into_iter().take(MAX_FINDINGS).collect(),
            more,
            acknowledged,
            results,
            devices_not_inspected: report
                .devices_not_inspected
                .iter()
                .map(|d| DeviceDown {
                    device: clean(&d.device),
                    cause: clean(&d.cause),
                    what: clean(&d.what),
                    command: d.command.as_deref().map(clean),
                    remedy: clean(&d.remedy),
                    blocked: d.blocked.iter().map(|b| clean(b)).collect(),
                    judged_in: d.judged_in.clone(),
                    judged_at: d.judged_at.clone(),
                })
                .collect(),
            config_errors: report.config_errors.iter().map(|e| clean(e)).collect(),
            problems: report.problems.iter().map(|p| clean(p)).collect(),
            recovered_from,
            dedup_key: dedup_key(report),
            resolve,
            severity,
        }
    }

    /// What a message says when nothing needs attention: all OK again, or only FAILs
    /// acknowledged until a date (never "OK" while a FAIL stands, even a known one).
    pub fn quiet_words(&self) -> String {
        match (self.event, self.acknowledged) {
            (_, n) if n > 0 => {
                format!(
                    "Nothing needs attention: {n} FAIL acknowledged until a date (see the email)."
                )
            }
            (NotifyOn::Recovered, _) => "Everything that failed is OK again.".to_string(),
            _ => "Every check is OK.".to_string(),
        }
    }

    /// "+3 more in the email", when findings were left out.
    pub fn more_line(&self) -> Option<String> {
        (self.more > 0).then(|| format!("+{} more: see the email", self.more))
    }
}

fn finding(report: &Report, block: &Block<'_>, clean: &dyn Fn(&str) -> String) -> Finding {
    match block {
        Block::Result(r) => Finding {
            status: r.status,
            device: clean(&r.device),
            check: Some(clean(&r.check)),
            text: clean(&r.headline()),
            note: report
                .cause_note(r)
                .or_else(|| report.mark(r))
                .map(|n| clean(&n)),
            remedy: clean(&report.remedy_for(r)),
            rerun: clean(&report.rerun_for(r)),
            blocked: Vec::new(),
        },
        Block::Device(d) => Finding {
            status: Status::Error,
            device: clean(&d.device),
            check: None,
            text: clean(&match &d.command {
                Some(command) => format!("{}: {} (at `{command}`)", d.cause, d.what),
                None => format!("{}: {}", d.cause, d.what),
            }),
            note: report.device_mark(d).map(|n| clean(&n)),
            remedy: clean(&report.device_remedy(d)),
            rerun: clean(&report.device_rerun(d)),
            blocked: d.blocked.iter().map(|b| clean(b)).collect(),
        },
    }
}

fn cleaned(r: &CheckResult, clean: &dyn Fn(&str) -> String) -> CheckResult {
    CheckResult {
        check: clean(&r.check),
        device: clean(&r.device),
        title: clean(&r.title),
        summary: clean(&r.summary),
        expected: clean(&r.expected),
        actual: clean(&r.actual),
        evidence: clean(&r.evidence),
        remedy: clean(&r.remedy),
        finding: clean(&r.finding),
        rerun: r.rerun.as_deref().map(clean),
        subjects: r.subjects.iter().map(|s| clean(s)).collect(),
        ..r.clone()
    }
}

/// The line under the findings: the site, the run and the counts.
pub fn footer(n: &Notice) -> String {
    let c = &n.counts;
    let acknowledged = match c.acknowledged {
        0 => String::new(),
        n => format!(", {n} acknowledged"),
    };
    let mut parts = vec![
        format!("site {}", n.site),
        format!("run {}", n.run_id),
        format!(
            "{} FAIL, {} ERROR, {} OK, {} SKIP{acknowledged}",
            c.fail, c.error, c.ok, c.skip
        ),
    ];
    if n.partial {
        parts.push("rerun".into());
    }
    if n.offline {
        parts.push("offline: judged from saved outputs".into());
    }
    parts.join(" · ")
}

/// Status words for the card and the header colour.
pub fn tone(status: Status, event: NotifyOn) -> &'static str {
    match (status, event) {
        (_, NotifyOn::Recovered) | (Status::Ok | Status::Skip, _) => "Good",
        (Status::Fail, _) => "Attention",
        (Status::Error, _) => "Warning",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(site: &str, started_at: &str, status: Status) -> Report {
        let r = CheckResult::new("eos.lanz.persisted", "sw1", status, "LANZ not saved");
        Report::new(
            format!("run-{started_at}"),
            site.into(),
            started_at.into(),
            started_at.into(),
            vec![r],
        )
    }

    #[test]
    fn the_dedup_key_is_the_site_and_its_own_calendar_day() {
        // 07:30 in Taipei is the day before in UTC: the key is Taipei's day.
        let early = report("tpe", "2026-12-01T07:30:00.000+08:00", Status::Fail);
        let later = report("tpe", "2026-12-01T09:10:00.000+08:00", Status::Fail);
        assert_eq!(dedup_key(&early), "premarket-tpe-2026-12-01");
        assert_eq!(dedup_key(&later), dedup_key(&early));
        let tomorrow = report("tpe", "2026-12-02T07:30:00.000+08:00", Status::Fail);
        assert_ne!(dedup_key(&tomorrow), dedup_key(&early));
        let other_site = report("ldn", "2026-12-01T07:30:00.000+08:00", Status::Fail);
        assert_ne!(dedup_key(&other_site), dedup_key(&early));
    }

    #[test]
    fn only_a_run_that_knows_the_whole_site_reads_recovered() {
        let fail = report("tpe", "2026-12-01T07:30:00.000+08:00", Status::Fail);
        let first = State::default();
        assert_eq!(event(&fail, &first), NotifyOn::Fail);
        let failing = after(&first, &fail, NotifyOn::Fail);
        assert_eq!(failing.open, ["premarket-tpe-2026-12-01"]);

        let mut ok = report("tpe", "2026-12-01T08:00:00.000+08:00", Status::Ok);
        assert_eq!(event(&ok, &failing), NotifyOn::Recovered, "a full run");
        assert_eq!(event(&ok, &State::default()), NotifyOn::Ok);
        // A rerun of some checks without the standing state (offline, no archive): OK, and
        // the FAIL stands.
        ok.partial = true;
        assert_eq!(event(&ok, &failing), NotifyOn::Ok);
        assert_eq!(after(&failing, &ok, NotifyOn::Ok), failing);
        // A rerun after which everything that failed is OK, and one after which some still is.
        ok.standing_status = Some(Status::Ok);
        assert_eq!(event(&ok, &failing), NotifyOn::Recovered);
        ok.standing_status = Some(Status::Fail);
        assert_eq!(event(&ok, &failing), NotifyOn::Fail);
    }

    #[test]
    fn a_recovery_resolves_the_incidents_it_was_told_of_even_from_an_earlier_day() {
        let yesterday = report("tpe", "2026-11-30T08:00:00.000+08:00", Status::Fail);
        let failing = after(&State::default(), &yesterday, NotifyOn::Fail);
        let ok = report("tpe", "2026-12-01T08:00:00.000+08:00", Status::Ok);
        let tz: Tz = "Asia/Taipei".parse().unwrap();
        let notice = Notice::new(&ok, NotifyOn::Recovered, &failing, tz, &Redactor::default());
        assert_eq!(notice.resolve, ["premarket-tpe-2026-11-30"]);
        assert_eq!(
            notice.recovered_from,
            Some((Status::Fail, yesterday.run_id.clone()))
        );
        assert!(notice.headline.contains("recovered"), "{}", notice.headline);
        assert!(after(&failing, &ok, NotifyOn::Recovered).open.is_empty());
        let plain = Notice::new(&ok, NotifyOn::Ok, &failing, tz, &Redactor::default());
        assert!(plain.resolve.is_empty(), "an OK run resolves nothing");
    }
}
