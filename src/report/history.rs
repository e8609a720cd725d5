//! What changed between runs, per check and device: newly failing, fixed, still failing and
//! since when. Pure functions over archived [`Report`]s (the archive does the reading), used by
//! the report of every run, by `premarket history`, and by `run --last-failed`.
//!
//! "The previous run" of a check is the latest archived run that judged that check on that
//! device, so a rerun of one check after a fix compares with the full run before it and shows
//! "fixed", and the next full run compares with the rerun.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use super::Report;
use crate::core::Status;

/// A check on a device: the unit whose history is followed.
pub type Pair = (String, String);

/// What changed since the previous run of the same checks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// The latest earlier run that judged any of this run's checks.
    pub previous_run_id: Option<String>,
    /// FAIL or ERROR now; OK, SKIP or never judged before.
    pub newly_failing: Vec<Transition>,
    /// OK now; FAIL or ERROR the previous time.
    pub fixed: Vec<Transition>,
    /// FAIL or ERROR now and the previous time.
    pub still_failing: Vec<Transition>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.newly_failing.is_empty() && self.fixed.is_empty() && self.still_failing.is_empty()
    }
}

/// One check on one device between its previous run and this one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    pub check: String,
    pub device: String,
    /// The status the previous time (absent: this check never ran on this device before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Status>,
    pub to: Status,
    /// Still failing: when the failure began; fixed: when the failure that ended began
    /// (RFC 3339, the start of the first failing run of the streak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_run_id: Option<String>,
}

pub fn is_failing(status: Status) -> bool {
    matches!(status, Status::Fail | Status::Error)
}

/// Sorts reports oldest first by their start time (run ids break ties).
pub fn sort(reports: &mut [Report]) {
    reports.sort_by(|a, b| (started(a), &a.run_id).cmp(&(started(b), &b.run_id)));
}

fn started(report: &Report) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(&report.started_at).ok()
}

/// Compares `current` with `earlier` (oldest first, not containing `current`). `None` when
/// there is no earlier run at all.
pub fn changes(earlier: &[Report], current: &Report) -> Option<Changes> {
    if earlier.is_empty() {
        return None;
    }
    let mut changes = Changes::default();
    let mut previous_run: Option<&Report> = None;
    let index = Index::new(earlier);
    for result in &current.results {
        let past = index.statuses(&result.check, &result.device);
        let before = past.last().map(|(_, s)| *s);
        if let Some((report, _)) = past.last()
            && previous_run.is_none_or(|p| started(report) > started(p))
        {
            previous_run = Some(report);
        }
        let streak = |include_current: bool| {
            let mut start = None;
            for (report, status) in past.iter().rev() {
                if !is_failing(*status) {
                    break;
                }
                start = Some(*report);
            }
            match start {
                Some(r) => (Some(r.started_at.clone()), Some(r.run_id.clone())),
                None if include_current => (
                    Some(current.started_at.clone()),
                    Some(current.run_id.clone()),
                ),
                None => (None, None),
            }
        };
        let transition = |since: (Option<String>, Option<String>)| Transition {
            check: result.check.clone(),
            device: result.device.clone(),
            from: before,
            to: result.status,
            since: since.0,
            since_run_id: since.1,
        };
        match (
            before.map(is_failing),
            is_failing(result.status),
            result.status,
        ) {
            (Some(true), true, _) => changes.still_failing.push(transition(streak(true))),
            (Some(true), false, Status::Ok) => changes.fixed.push(transition(streak(false))),
            (Some(false) | None, true, _) => changes.newly_failing.push(transition((None, None))),
            _ => {}
        }
    }
    changes.previous_run_id = previous_run.map(|r| r.run_id.clone());
    Some(changes)
}

/// Each earlier report's results by (check, device): a site with hundreds of devices has
/// thousands of results per run, and a linear search per result made history quadratic.
struct Index<'a> {
    reports: Vec<(&'a Report, ByPair<'a>)>,
}

/// One report's statuses keyed by (check, device).
type ByPair<'a> = HashMap<(&'a str, &'a str), Status>;

impl<'a> Index<'a> {
    fn new(reports: &'a [Report]) -> Self {
        let reports = reports
            .iter()
            .map(|r| {
                let by_pair = r
                    .results
                    .iter()
                    .map(|x| ((x.check.as_str(), x.device.as_str()), x.status));
                (r, by_pair.collect())
            })
            .collect();
        Index { reports }
    }

    /// The status of (check, device) in each report that judged it, oldest first.
    fn statuses(&self, check: &str, device: &str) -> Vec<(&'a Report, Status)> {
        self.reports
            .iter()
            .filter_map(|(r, by_pair)| by_pair.get(&(check, device)).map(|s| (*r, *s)))
            .collect()
    }
}

/// The checks to rerun for `--last-failed`: those whose latest result is FAIL or ERROR,
/// starting from the latest full run and updated by every rerun since. Returns the run the
/// state starts from and the pairs, sorted.
pub fn last_failed(reports: &[Report]) -> Option<(String, Vec<Pair>)> {
    let base = reports.iter().rposition(|r| !r.partial).unwrap_or(0);
    let base_run = reports.get(base)?.run_id.clone();
    let mut state: BTreeMap<Pair, Status> = BTreeMap::new();
    for report in &reports[base..] {
        for r in &report.results {
            state.insert((r.check.clone(), r.device.clone()), r.status);
        }
    }
    let failing = state
        .into_iter()
        .filter(|(_, s)| is_failing(*s))
        .map(|(p, _)| p)
        .collect();
    Some((base_run, failing))
}

/// One status change of one check on one device, for `premarket history`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub run_id: String,
    pub at: String,
    pub status: Status,
    pub label: &'static str,
}

/// For each pair that `keep` accepts, the runs where its status changed (its first run
/// included), oldest first.
pub fn timeline(reports: &[Report], keep: impl Fn(&str) -> bool) -> BTreeMap<Pair, Vec<Step>> {
    let pairs: BTreeSet<Pair> = reports
        .iter()
        .flat_map(|r| r.results.iter())
        .filter(|r| keep(&r.check))
        .map(|r| (r.check.clone(), r.device.clone()))
        .collect();
    let index = Index::new(reports);
    let mut out = BTreeMap::new();
    for pair in pairs {
        let mut steps: Vec<Step> = Vec::new();
        let mut last: Option<Status> = None;
        for (report, status) in index.statuses(&pair.0, &pair.1) {
            if last == Some(status) {
                continue;
            }
            let label = match (last.map(is_failing), is_failing(status), status) {
                (None, _, _) => "first run",
                (Some(false), true, _) => "newly failing",
                (Some(true), false, Status::Ok) => "fixed",
                (Some(true), true, _) => "still failing",
                _ => "changed",
            };
            steps.push(Step {
                run_id: report.run_id.clone(),
                at: report.started_at.clone(),
                status,
                label,
            });
            last = Some(status);
        }
        out.insert(pair, steps);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CheckResult;

    fn report(run: &str, hour: u32, partial: bool, results: &[(&str, Status)]) -> Report {
        let results = results
            .iter()
            .map(|(check, status)| CheckResult {
                check: (*check).into(),
                device: "sw1".into(),
                status: *status,
                title: String::new(),
                summary: String::new(),
                expected: String::new(),
                actual: String::new(),
                evidence: String::new(),
                remedy: String::new(),
                duration_ms: 0,
            })
            .collect();
        let at = format!("2026-11-30T{hour:02}:00:00.000+08:00");
        let mut r = Report::new(run.into(), "lab".into(), at.clone(), at, results);
        r.partial = partial;
        r
    }

    fn ids(t: &[Transition]) -> Vec<&str> {
        t.iter().map(|t| t.check.as_str()).collect()
    }

    #[test]
    fn transitions_follow_each_check() {
        use Status::*;
        let r1 = report("r1", 6, false, &[("a", Ok), ("b", Fail), ("c", Ok)]);
        let r2 = report("r2", 7, false, &[("a", Fail), ("b", Error), ("c", Ok)]);
        let r3 = report("r3", 8, true, &[("b", Ok)]);
        assert_eq!(changes(&[], &r1), None);

        let c = changes(std::slice::from_ref(&r1), &r2).unwrap();
        assert_eq!(ids(&c.newly_failing), ["a"]);
        assert_eq!(ids(&c.still_failing), ["b"]);
        assert_eq!(c.still_failing[0].since_run_id.as_deref(), Some("r1"));
        assert_eq!(c.still_failing[0].from, Some(Fail));
        assert!(c.fixed.is_empty());

        // A rerun of one check compares with the last run that judged it.
        let c = changes(&[r1.clone(), r2.clone()], &r3).unwrap();
        assert_eq!(ids(&c.fixed), ["b"]);
        assert_eq!(c.fixed[0].since_run_id.as_deref(), Some("r1"));
        assert_eq!(c.previous_run_id.as_deref(), Some("r2"));

        let all = [r1, r2, r3];
        assert_eq!(
            last_failed(&all),
            Some(("r2".into(), vec![("a".into(), "sw1".into())]))
        );
        let t = timeline(&all, |c| c == "b");
        let steps: Vec<_> = t[&("b".into(), "sw1".into())]
            .iter()
            .map(|s| (s.run_id.as_str(), s.label))
            .collect();
        assert_eq!(
            steps,
            [
                ("r1", "first run"),
                ("r2", "still failing"),
                ("r3", "fixed")
            ]
        );
    }
}
