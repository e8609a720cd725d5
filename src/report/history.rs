//! What changed between runs, per check and device: newly failing, fixed, still failing and
//! since when. Pure functions over archived [`Report`]s (the archive does the reading), used by
//! the report of every run, by `premarket history`, and by `run --last-failed`.
//!
//! Runs are in the order the archive wrote them, never ordered by their clock (a run dated
//! 2099 is not the newest). "The previous run" of a check is the latest archived run that
//! judged that check on that device, so a rerun of one check after a fix compares with the full run before it and shows
//! "fixed", and the next full run compares with the rerun.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Report;
use premarket_core::Status;

mod by_device;
mod reach;
pub use by_device::{Group, Line, by_device};
pub use reach::Reach;

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
    /// The same FAIL or ERROR now as the previous time.
    pub still_failing: Vec<Transition>,
    /// Failing now and the previous time, but not the same way (FAIL -> ERROR: premarket can
    /// no longer tell, which is not "still failing"; ERROR -> FAIL).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<Transition>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.newly_failing.is_empty()
            && self.fixed.is_empty()
            && self.still_failing.is_empty()
            && self.changed.is_empty()
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
    /// Not judged because its device could not be inspected: in this run (failing now) or in
    /// the run before (fixed now). On-call reads these one line per device ([`by_device`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
}

pub fn is_failing(status: Status) -> bool {
    matches!(status, Status::Fail | Status::Error)
}

/// How far ahead of this machine's clock a run may start before it counts as dated in the
/// future (clocks of hosts that share an archive drift apart by seconds, not minutes).
pub const CLOCK_SLACK: chrono::Duration = chrono::Duration::minutes(5);

/// Whether `report` says it started after `now` (and some slack): its clock was ahead when it
/// ran. `premarket history` flags it; nothing orders runs by that time anyway.
pub fn dated_in_future(report: &Report, now: DateTime<Utc>) -> bool {
    DateTime::parse_from_rfc3339(&report.started_at).is_ok_and(|at| at > now + CLOCK_SLACK)
}

/// Compares `current` with `earlier` (in the order they were written, oldest first, not
/// containing `current`). `None` when there is no earlier run at all.
pub fn changes(earlier: &[Report], current: &Report) -> Option<Changes> {
    if earlier.is_empty() {
        return None;
    }
    let mut changes = Changes::default();
    // The latest earlier run, by its place in the archive, that judged any of these checks.
    let mut previous_run: Option<(usize, &Report)> = None;
    let index = Index::new(earlier);
    for result in &current.results {
        let past = index.statuses(&result.check, &result.device);
        // What stood before this run: a rerun's ERROR never replaced a FAIL ([`replaces`]).
        let before = past
            .iter()
            .fold(None, |stood, (_, report, now)| match stood {
                Some(before) if report.partial && !replaces(before, *now) => Some(before),
                _ => Some(*now),
            });
        if let Some((at, report, _)) = past.last()
            && previous_run.is_none_or(|(p, _)| *at > p)
        {
            previous_run = Some((*at, report));
        }
        let streak = |include_current: bool| {
            let mut start = None;
            for (_, report, status) in past.iter().rev() {
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
        // Blocked now when failing now; when fixed now, blocked in the run it was judged before.
        let blocked_in = |report: &Report| blocked(report, &result.device, &result.check);
        let was_blocked = past.last().is_some_and(|(_, r, _)| blocked_in(r));
        let transition = |since: (Option<String>, Option<String>)| Transition {
            check: result.check.clone(),
            device: result.device.clone(),
            from: before,
            to: result.status,
            since: since.0,
            since_run_id: since.1,
            blocked: if is_failing(result.status) {
                blocked_in(current)
            } else {
                was_blocked
            },
        };
        match (
            before.map(is_failing),
            is_failing(result.status),
            result.status,
        ) {
            (Some(true), true, now) if before == Some(now) => {
                changes.still_failing.push(transition(streak(true)))
            }
            (Some(true), true, _) => changes.changed.push(transition(streak(true))),
            (Some(true), false, Status::Ok) => changes.fixed.push(transition(streak(false))),
            (Some(false) | None, true, _) => changes.newly_failing.push(transition((None, None))),
            _ => {}
        }
    }
    changes.previous_run_id = previous_run.map(|(_, r)| r.run_id.clone());
    Some(changes)
}

/// Whether `report` left `check` on `device` ERROR because the device could not be inspected.
fn blocked(report: &Report, device: &str, check: &str) -> bool {
    report
        .devices_not_inspected
        .iter()
        .any(|d| d.device == device && d.blocked.iter().any(|c| c == check))
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

    /// The status of (check, device) in each report that judged it, oldest first, with the
    /// report's place in the archive's order.
    fn statuses(&self, check: &str, device: &str) -> Vec<(usize, &'a Report, Status)> {
        self.reports
            .iter()
            .enumerate()
            .filter_map(|(at, (r, by_pair))| by_pair.get(&(check, device)).map(|s| (at, *r, *s)))
            .collect()
    }
}

/// Whether a rerun's `now` replaces what stands (`before`): always, except an ERROR over a
/// FAIL. A rerun that could not inspect (the device unreachable, a secret missing in that
/// shell) re-examined nothing: the FAIL stands, judged in the earlier run.
pub fn replaces(before: Status, now: Status) -> bool {
    !(before == Status::Fail && now == Status::Error)
}

/// The checks to rerun for `--last-failed`: those whose latest result is FAIL or ERROR,
/// starting from the latest full run and updated by every rerun since (an ERROR never over a
/// FAIL: [`replaces`]). Returns the run the state starts from and the pairs, sorted.
pub fn last_failed(reports: &[Report]) -> Option<(String, Vec<Pair>)> {
    let base = reports.iter().rposition(|r| !r.partial).unwrap_or(0);
    let base_run = reports.get(base)?.run_id.clone();
    let mut state: BTreeMap<Pair, Status> = BTreeMap::new();
    for report in &reports[base..] {
        for r in &report.results {
            let pair = (r.check.clone(), r.device.clone());
            if state
                .get(&pair)
                .is_none_or(|before| replaces(*before, r.status))
            {
                state.insert(pair, r.status);
            }
        }
    }
    let failing = state
        .into_iter()
        .filter(|(_, s)| is_failing(*s))
        .map(|(p, _)| p)
        .collect();
    Some((base_run, failing))
}

/// The standing state a rerun reports beside what it rechecked: the latest result of every
/// (check, device) from the latest full run and the reruns since, each marked with the run
/// that judged it, except the pairs `rechecked` now; a FAIL that a rerun's ERROR could not
/// re-examine stays ([`replaces`]), now as then. (An offline run is in the archive only when it
/// was asked to be, with `--archive`.)
pub fn standing(reports: &[Report], rechecked: &[super::CheckResult]) -> Vec<super::CheckResult> {
    let Some(base) = reports.iter().rposition(|r| !r.partial) else {
        return Vec::new();
    };
    let mut state: BTreeMap<Pair, super::CheckResult> = BTreeMap::new();
    for report in &reports[base..] {
        for r in report.results.iter().chain(&report.standing) {
            let pair = (r.check.clone(), r.device.clone());
            if r.judged_in.is_some() {
                // A rerun's own standing copy adds nothing to what the earlier run said.
                continue;
            }
            if state
                .get(&pair)
                .is_some_and(|before| !replaces(before.status, r.status))
            {
                continue;
            }
            let mut kept = r.clone();
            kept.judged_in = Some(report.run_id.clone());
            kept.judged_at = Some(report.started_at.clone());
            state.insert(pair, kept);
        }
    }
    state
        .into_iter()
        .filter(|((check, device), kept)| {
            rechecked
                .iter()
                .find(|now| &now.check == check && &now.device == device)
                .is_none_or(|now| !replaces(kept.status, now.status))
        })
        .map(|(_, r)| r)
        .collect()
}

/// The devices behind a rerun's standing ERRORs: for each standing result that an earlier run
/// left ERROR because its device could not be inspected, that run's device block, narrowed to
/// the checks still standing, so a rerun shows one block per device as the full run did, not
/// one ERROR per blocked check.
pub fn standing_down(
    reports: &[Report],
    standing: &[super::CheckResult],
) -> Vec<super::DeviceDown> {
    let mut downs: Vec<super::DeviceDown> = Vec::new();
    for r in standing.iter().filter(|r| r.status == Status::Error) {
        let Some(run) = &r.judged_in else { continue };
        let Some(found) = reports
            .iter()
            .filter(|report| &report.run_id == run)
            .flat_map(|report| &report.devices_not_inspected)
            .find(|d| d.device == r.device && d.blocked.contains(&r.check))
        else {
            continue;
        };
        match downs
            .iter_mut()
            .find(|d| d.device == found.device && d.judged_in.as_ref() == Some(run))
        {
            Some(d) => d.blocked.push(r.check.clone()),
            None => downs.push(super::DeviceDown {
                blocked: vec![r.check.clone()],
                judged_in: Some(run.clone()),
                judged_at: r.judged_at.clone(),
                ..found.clone()
            }),
        }
    }
    downs
}

/// One status change of one check on one device, for `premarket history`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub run_id: String,
    pub at: String,
    pub status: Status,
    pub label: &'static str,
}

/// A pair's story within a window of runs: its status just before the window (when it was
/// judged earlier) and the runs in the window where its status changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Story {
    /// The status at the last run before the window, and that run's start.
    pub before: Option<(Status, String)>,
    pub steps: Vec<Step>,
}

/// For each pair that `keep` accepts and that the runs from `window_start` on judged, the runs
/// of the window where its status changed, oldest first. Labels come from the whole history:
/// a result older than the window is not a "first run", and FAIL -> ERROR is a change, not
/// "still failing".
pub fn timeline(
    reports: &[Report],
    window_start: usize,
    keep: impl Fn(&str) -> bool,
) -> BTreeMap<Pair, Story> {
    let window = reports.get(window_start..).unwrap_or_default();
    let pairs: BTreeSet<Pair> = window
        .iter()
        .flat_map(|r| r.results.iter())
        .filter(|r| keep(&r.check))
        .map(|r| (r.check.clone(), r.device.clone()))
        .collect();
    let index = Index::new(reports);
    let in_window: BTreeSet<&str> = window.iter().map(|r| r.run_id.as_str()).collect();
    let mut out = BTreeMap::new();
    for pair in pairs {
        let mut story = Story::default();
        let mut last: Option<Status> = None;
        for (_, report, status) in index.statuses(&pair.0, &pair.1) {
            if !in_window.contains(report.run_id.as_str()) {
                story.before = Some((status, report.started_at.clone()));
                last = Some(status);
                continue;
            }
            if last == Some(status) {
                continue;
            }
            story.steps.push(Step {
                run_id: report.run_id.clone(),
                at: report.started_at.clone(),
                status,
                label: label(last, status),
            });
            last = Some(status);
        }
        out.insert(pair, story);
    }
    out
}

/// What a change of status means to on-call.
fn label(before: Option<Status>, now: Status) -> &'static str {
    match (before, now) {
        (None, _) => "first run",
        (Some(b), n) if !is_failing(b) && is_failing(n) => "newly failing",
        (Some(b), Status::Ok) if is_failing(b) => "fixed",
        (Some(Status::Fail), Status::Error) => "now ERROR: premarket could not tell",
        (Some(Status::Error), Status::Fail) => "now FAIL",
        (Some(Status::Error), Status::Skip) | (Some(Status::Fail), Status::Skip) => "now skipped",
        _ => "changed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckResult;

    fn report(run: &str, hour: u32, partial: bool, results: &[(&str, Status)]) -> Report {
        let results = results
            .iter()
            .map(|(check, status)| CheckResult::new(check, "sw1", *status, ""))
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
        assert!(c.still_failing.is_empty(), "FAIL -> ERROR is a change");
        assert_eq!(ids(&c.changed), ["b"]);
        assert_eq!(c.changed[0].since_run_id.as_deref(), Some("r1"));
        assert_eq!(c.changed[0].from, Some(Fail));
        assert!(c.fixed.is_empty());

        // A rerun of one check compares with the last run that judged it.
        let c = changes(&[r1.clone(), r2.clone()], &r3).unwrap();
        // ... but a rerun's ERROR never stood over a FAIL: fixed from FAIL.
        let blocked = report("r2b", 7, true, &[("a", Error)]);
        let later = report("r3b", 8, true, &[("a", Ok)]);
        let fixed = changes(&[r2.clone(), blocked], &later).unwrap();
        assert_eq!(fixed.fixed[0].from, Some(Fail));
        assert_eq!(ids(&c.fixed), ["b"]);
        assert_eq!(c.fixed[0].since_run_id.as_deref(), Some("r1"));
        assert_eq!(c.previous_run_id.as_deref(), Some("r2"));

        let all = [r1, r2, r3];
        assert_eq!(
            last_failed(&all),
            Some(("r2".into(), vec![("a".into(), "sw1".into())]))
        );
        let t = timeline(&all, 0, |c| c == "b");
        let steps: Vec<_> = t[&("b".into(), "sw1".into())]
            .steps
            .iter()
            .map(|s| (s.run_id.as_str(), s.label))
            .collect();
        assert_eq!(
            steps,
            [
                ("r1", "first run"),
                ("r2", "now ERROR: premarket could not tell"),
                ("r3", "fixed")
            ]
        );
        // A window that starts later knows what came before it.
        let t = timeline(&all, 1, |c| c == "b");
        let story = &t[&("b".into(), "sw1".into())];
        assert_eq!(story.before.as_ref().map(|b| b.0), Some(Fail));
        assert_eq!(story.steps[0].label, "now ERROR: premarket could not tell");
        let t = timeline(&all, 2, |c| c == "a");
        assert!(t.is_empty(), "a was not judged in the window");
    }

    #[test]
    fn a_rerun_that_could_not_inspect_never_replaces_a_fail() {
        use Status::*;
        let morning = report("r1", 6, false, &[("a", Fail), ("b", Ok), ("c", Error)]);
        let blocked = report("r2", 7, true, &[("a", Error), ("c", Error)]);
        let reports = [morning.clone(), blocked.clone()];
        // Both still to rerun: a's FAIL stands, c is still ERROR.
        assert_eq!(
            last_failed(&reports).map(|(_, p)| p),
            Some(vec![("a".into(), "sw1".into()), ("c".into(), "sw1".into())])
        );
        let status = |s: &[CheckResult]| -> Vec<(String, Status, Option<String>)> {
            s.iter()
                .map(|r| (r.check.clone(), r.status, r.judged_in.clone()))
                .collect()
        };
        // The blocked rerun itself: a stands as the morning's FAIL beside its own ERROR.
        let during = standing(std::slice::from_ref(&morning), &blocked.results);
        assert_eq!(
            status(&during),
            [
                ("a".into(), Fail, Some("r1".into())),
                ("b".into(), Ok, Some("r1".into()))
            ]
        );
        // A later rerun of b still sees a's FAIL from the morning.
        let later = report("r3", 8, true, &[("b", Ok)]);
        let after = standing(&reports, &later.results);
        assert_eq!(
            status(&after),
            [
                ("a".into(), Fail, Some("r1".into())),
                ("c".into(), Error, Some("r2".into()))
            ]
        );
        // An OK rerun replaces it.
        let fixed = report("r3", 8, true, &[("a", Ok)]);
        assert!(
            standing(&reports, &fixed.results)
                .iter()
                .all(|r| r.check != "a")
        );
    }
}
