//! Known FAILs acknowledged until a date ([`premarket_config::acks`]), applied to a report: a
//! FAIL an ack covers keeps its status and gains [`Acknowledged`], is counted apart
//! ([`crate::Counts::acknowledged`]) and no longer makes the run FAIL, its subject or its exit
//! code; every renderer lists it under "Acknowledged (until 12-10, CHG123)" with who and why.
//! An ERROR is never acknowledged (premarket could not tell; nothing was seen to be known).
//! A rerun's standing results are judged again against the acks as they are now, so an ack
//! written after the morning covers the morning's FAIL, and one that has ended uncovers it.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use premarket_config::acks::Ack;
use premarket_core::Status;

use crate::{CheckResult, Report};

/// The acknowledgement a FAIL is listed under, as the JSON report carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acknowledged {
    /// `YYYY-MM-DD`: the ack ends at the start of this day in the site's time zone.
    pub until: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// Who wrote it (a login name) and when (RFC 3339), when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What it covers (the FAIL's subjects when it was written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    /// Where it is written: `acks.yaml:4`.
    pub entry: String,
}

impl Acknowledged {
    /// What `ack` says, each word on one line (a reviewer's text is shown, never obeyed).
    fn of(ack: &Ack) -> Acknowledged {
        let one_line = |s: &str| crate::escape::line(s);
        Acknowledged {
            until: ack.until.format("%Y-%m-%d").to_string(),
            reason: one_line(&ack.reason),
            ticket: ack.ticket.as_deref().map(one_line),
            by: ack.by.as_deref().map(one_line),
            at: ack.at.as_deref().map(one_line),
            subjects: ack.subjects.iter().map(|s| one_line(s)).collect(),
            entry: one_line(&ack.entry()),
        }
    }

    /// The words a FAIL is listed under: `Acknowledged (until 12-10, CHG123)`.
    pub fn heading(&self) -> String {
        format!("Acknowledged ({})", self.until_words())
    }

    /// `until 12-10, CHG123`.
    fn until_words(&self) -> String {
        let day = chrono::NaiveDate::parse_from_str(&self.until, "%Y-%m-%d")
            .map(|d| d.format("%m-%d").to_string())
            .unwrap_or_else(|_| self.until.clone());
        match &self.ticket {
            Some(ticket) => format!("until {day}, {ticket}"),
            None => format!("until {day}"),
        }
    }

    /// Who and why: `By alice 12-03 08:41 (acks.yaml:4): optic on order`.
    pub fn who_and_why(&self, tz: Tz) -> String {
        let by = self.by.as_deref().unwrap_or("whom not recorded");
        let when = self
            .at
            .as_deref()
            .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
            .map(|at| format!(" {}", at.with_timezone(&tz).format("%m-%d %H:%M")))
            .unwrap_or_default();
        format!("By {by}{when} ({}): {}", self.entry, self.reason)
    }
}

/// What every renderer says of an acknowledged FAIL, in its own markup.
pub struct Listed {
    /// `Acknowledged (until 12-10, CHG123)`.
    pub heading: String,
    /// The block's lead or headline: what is wrong.
    pub what: String,
    /// `By alice 12-03 08:41 (acks.yaml:4): optic on order`.
    pub who: String,
    /// `Ethernet3`: what the ack covers, when it names anything.
    pub covers: Option<String>,
}

impl Listed {
    /// The plain-text lines (terminal, the email's text part): the heading line, then who and
    /// why and what it covers, each after `indent`; `covers` names the last line's label.
    pub fn plain(&self, r: &CheckResult, indent: &str, covers: &str) -> String {
        let mut out = format!(
            "\n{}: {} {} — {}\n{indent}{}\n",
            self.heading, r.device, r.check, self.what, self.who
        );
        if let Some(subjects) = &self.covers {
            out.push_str(&format!("{indent}{covers}: {subjects}\n"));
        }
        out
    }

    /// `r` as listed, when it is an acknowledged FAIL.
    pub fn of(r: &CheckResult, tz: Tz) -> Option<Listed> {
        let a = r
            .acknowledged
            .as_ref()
            .filter(|_| r.status == Status::Fail)?;
        Some(Listed {
            heading: a.heading(),
            what: if r.lead.is_empty() {
                r.headline()
            } else {
                r.lead.clone()
            },
            who: a.who_and_why(tz),
            covers: (!a.subjects.is_empty()).then(|| a.subjects.join(", ")),
        })
    }
}

impl Report {
    /// ` (acknowledged until 12-10, CHG123)` when the FAIL of `check` on `device` is acknowledged, for
    /// the lines that say what changed (a known FAIL still fails, but nobody need act on it).
    pub fn acknowledged_note(&self, check: &str, device: &str) -> String {
        self.results
            .iter()
            .chain(&self.standing)
            .find(|r| r.check == check && r.device == device && is_acknowledged(r))
            .and_then(|r| r.acknowledged.as_ref())
            .map(|a| format!(" (acknowledged {})", a.until_words()))
            .unwrap_or_default()
    }
}

/// Marks every FAIL of `report` (and of a rerun's standing state) that an ack holding at
/// `now` covers, clears any mark an archived result carried, and counts again.
pub fn acknowledge(report: &mut Report, acks: &[Ack], tz: Tz, now: DateTime<Utc>) {
    let holding: Vec<&Ack> = acks.iter().filter(|a| a.holds_at(now, tz)).collect();
    for r in report.results.iter_mut().chain(report.standing.iter_mut()) {
        r.acknowledged = covering(r, &holding).map(Acknowledged::of);
    }
    report.sort();
    if report.standing_status.is_some() {
        report.stand();
    }
}

/// The first ack in `holding` that covers `r`, which must be a FAIL.
fn covering<'a>(r: &CheckResult, holding: &[&'a Ack]) -> Option<&'a Ack> {
    if r.status != Status::Fail || premarket_core::subjects_cut(&r.subjects) {
        return None;
    }
    holding
        .iter()
        .copied()
        .find(|a| a.covers(&r.check, &r.device, &r.subjects))
}

/// Whether `r` is a FAIL listed as acknowledged.
pub fn is_acknowledged(r: &CheckResult) -> bool {
    r.status == Status::Fail && r.acknowledged.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;
    use premarket_config::Position;

    fn ack(check: &str, subjects: &[&str], until: NaiveDate) -> Ack {
        Ack {
            number: 1,
            check: check.into(),
            device: "sw1".into(),
            subjects: subjects.iter().map(|s| s.to_string()).collect(),
            until,
            reason: "optic on order".into(),
            ticket: Some("CHG123".into()),
            by: Some("alice".into()),
            at: Some("2026-12-03T08:41:07+08:00".into()),
            position: Position::new(std::path::Path::new("/site/baselines/acks.yaml"), 4, 3),
        }
    }

    fn at(time: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(time)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn fail(check: &str, subjects: &[&str]) -> CheckResult {
        let mut r = CheckResult::new(check, "sw1", Status::Fail, "low light");
        r.subjects = subjects.iter().map(|s| s.to_string()).collect();
        r
    }

    #[test]
    fn a_covered_fail_counts_apart_and_the_run_reads_ok_until_the_date() {
        let tz = chrono_tz::Asia::Taipei;
        let until = NaiveDate::from_ymd_opt(2026, 12, 10).unwrap();
        let acks = [ack("eos.transceivers.light", &["Ethernet3"], until)];
        let results = vec![
            fail("eos.transceivers.light", &["Ethernet3"]),
            CheckResult::new("eos.version.pinned", "sw1", Status::Ok, "pinned"),
        ];
        let mut report = Report::new("r".into(), "lab".into(), "t".into(), "t".into(), results);
        let before = at("2026-12-09T23:59:59+08:00");
        acknowledge(&mut report, &acks, tz, before);
        assert_eq!(report.status, Status::Ok);
        assert_eq!((report.counts.fail, report.counts.acknowledged), (0, 1));
        assert_eq!(report.exit_code(), 0);
        let shown = report
            .results
            .iter()
            .find(|r| r.acknowledged.is_some())
            .unwrap();
        assert_eq!(shown.status, Status::Fail, "it stays a FAIL");
        let a = shown.acknowledged.as_ref().unwrap();
        assert_eq!(a.heading(), "Acknowledged (until 12-10, CHG123)");
        assert_eq!(
            a.who_and_why(tz),
            "By alice 12-03 08:41 (acks.yaml:4): optic on order"
        );
        // At the start of the 10th it is a FAIL again.
        acknowledge(&mut report, &acks, tz, at("2026-12-10T00:00:00+08:00"));
        assert_eq!(report.status, Status::Fail);
        assert_eq!((report.counts.fail, report.counts.acknowledged), (1, 0));
        assert!(report.results.iter().all(|r| r.acknowledged.is_none()));
    }

    #[test]
    fn another_subject_and_an_error_are_never_covered() {
        let tz = chrono_tz::Asia::Taipei;
        let until = NaiveDate::from_ymd_opt(2026, 12, 10).unwrap();
        let now = at("2026-12-05T08:00:00+08:00");
        let acks = [
            ack("eos.transceivers.light", &["Ethernet3"], until),
            ack("eos.version.pinned", &[], until),
        ];
        let mut error = CheckResult::new("eos.version.pinned", "sw1", Status::Error, "?");
        error.subjects = Vec::new();
        let results = vec![
            fail("eos.transceivers.light", &["Ethernet3", "Ethernet4"]),
            error,
        ];
        let mut report = Report::new("r".into(), "lab".into(), "t".into(), "t".into(), results);
        acknowledge(&mut report, &acks, tz, now);
        assert_eq!(report.status, Status::Fail);
        assert!(report.results.iter().all(|r| r.acknowledged.is_none()));
        // A FAIL whose subjects were cut names more than it lists: never covered.
        let mut cut = fail("eos.transceivers.light", &["Ethernet3", "(and 7 more)"]);
        cut.subjects.truncate(2);
        let wide = [ack(
            "eos.transceivers.light",
            &["Ethernet3", "(and 7 more)"],
            until,
        )];
        let mut report = Report::new("r".into(), "lab".into(), "t".into(), "t".into(), vec![cut]);
        acknowledge(&mut report, &wide, tz, now);
        assert_eq!(report.status, Status::Fail);
    }
}
