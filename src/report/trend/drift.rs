//! Whether a figure drifted: the rule that decides whether the email attaches the trend.
//!
//! Precisely: take the latest run that has the figure. Its reference is the nearest-rank
//! median of the same figure over the earlier runs that started less than
//! [`DriftRule::window`] (7 days) before it, when there are at least [`DriftRule::min_runs`]
//! (3) of them; fewer runs are no reference and never a drift. The figure drifted when the
//! latest value is more than [`DriftRule::change`] (10 %) and more than a floor (100 ns for
//! latency, 5 for counts) above the reference (for latency and the setup rate) or below it
//! (for the offloaded session count). The median of a week, not the day before, so one odd
//! morning neither hides nor raises a drift.

use chrono::{DateTime, Duration, FixedOffset};
use serde::Serialize;

use super::{FirewallPoint, TrendPoint};
use premarket_core::Grouped;
use premarket_probe::units::Nanos;

/// When a figure has drifted (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriftRule {
    pub window: Duration,
    pub min_runs: usize,
    /// The change that counts, as a fraction (0.10: 10 %).
    pub change: f64,
}

impl Default for DriftRule {
    fn default() -> Self {
        DriftRule {
            window: Duration::days(7),
            min_runs: 3,
            change: 0.10,
        }
    }
}

/// Which way is worse for a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Worse {
    Up,
    Down,
}

/// A figure that drifted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drift {
    pub figure: String,
    pub run_id: String,
    pub latest: f64,
    /// The median of the window before it.
    pub reference: f64,
    /// (latest - reference) / reference.
    pub change: f64,
    /// Runs in the window.
    pub runs: usize,
}

impl Drift {
    /// "probe median 4.60 µs: +12 % on the week before (4.10 µs, 6 runs)".
    pub fn describe(&self, show: impl Fn(f64) -> String) -> String {
        // A figure that was 0 all week has no percentage to grow by: say where it came from.
        if !self.change.is_finite() {
            return format!(
                "{} {}: up from {} in the week before ({} runs)",
                self.figure,
                show(self.latest),
                show(self.reference),
                self.runs
            );
        }
        format!(
            "{} {}: {:+.0} % on the week before ({}, {} runs)",
            self.figure,
            show(self.latest),
            self.change * 100.0,
            show(self.reference),
            self.runs
        )
    }

    /// [`Drift::describe`] with the figure's own unit: `probe median 18.8 µs`, `setup rate
    /// 1,000/s`, `npu_session_count 3 sessions`.
    pub fn said(&self) -> String {
        let whole = |v: f64| Grouped(v.round().max(0.0) as u64);
        match self.figure.as_str() {
            "npu_session_count" => self.describe(|v| format!("{} sessions", whole(v))),
            "setup rate" => self.describe(|v| format!("{}/s", whole(v))),
            _ => self.describe(|v| premarket_probe::chart::axes::show(Nanos(v.round() as i64))),
        }
    }
}

/// The smallest change that counts for latency, whatever the fraction (the ABBA drift floor).
pub const LATENCY_FLOOR_NS: f64 = 100.0;
/// The smallest change that counts for session counts and setup rates.
pub const COUNT_FLOOR: f64 = 5.0;

/// Whether the latest of `series` (time, run id, value; any order) drifted `worse` against
/// the window before it, by more than the rule's fraction and more than `floor`.
pub fn drift(
    figure: &str,
    series: &[(DateTime<FixedOffset>, &str, f64)],
    rule: &DriftRule,
    worse: Worse,
    floor: f64,
) -> Option<Drift> {
    let (latest_at, run_id, latest) = series.iter().max_by_key(|(t, id, _)| (*t, *id))?;
    let mut window: Vec<f64> = series
        .iter()
        .filter(|(t, _, _)| t < latest_at && *latest_at - *t < rule.window)
        .map(|(_, _, v)| *v)
        .collect();
    if window.len() < rule.min_runs.max(1) {
        return None;
    }
    window.sort_by(f64::total_cmp);
    let reference = *window.get(window.len().div_ceil(2) - 1)?;
    let change = if reference != 0.0 {
        (latest - reference) / reference.abs()
    } else if *latest > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    let drifted = match worse {
        Worse::Up => change > rule.change && latest - reference > floor,
        Worse::Down => change < -rule.change && reference - latest > floor,
    };
    drifted.then(|| Drift {
        figure: figure.to_string(),
        run_id: run_id.to_string(),
        latest: *latest,
        reference,
        change,
        runs: window.len(),
    })
}

/// The probe's drifts: steady median or p99 up.
pub fn probe_drifts(points: &[TrendPoint], rule: &DriftRule) -> Vec<Drift> {
    let series = |f: fn(&TrendPoint) -> Option<Nanos>| -> Vec<(DateTime<FixedOffset>, &str, f64)> {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.started_at, p.run_id.as_str(), v.0 as f64)))
            .collect()
    };
    [
        drift(
            "probe median",
            &series(|p| p.median_ns),
            rule,
            Worse::Up,
            LATENCY_FLOOR_NS,
        ),
        drift(
            "probe p99",
            &series(|p| p.p99_ns),
            rule,
            Worse::Up,
            LATENCY_FLOOR_NS,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The FortiGate's drifts: offloaded sessions down, setup rate up.
pub fn firewall_drifts(points: &[FirewallPoint], rule: &DriftRule) -> Vec<Drift> {
    let series = |f: fn(&FirewallPoint) -> Option<u64>| -> Vec<(DateTime<FixedOffset>, &str, f64)> {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.started_at, p.run_id.as_str(), v as f64)))
            .collect()
    };
    [
        drift(
            "npu_session_count",
            &series(|p| p.npu_session_count),
            rule,
            Worse::Down,
            COUNT_FLOOR,
        ),
        drift(
            "setup rate",
            &series(|p| p.setup_rate),
            rule,
            Worse::Up,
            COUNT_FLOOR,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::tests::{at, probe};
    use premarket_probe::chart::axes::show;

    #[test]
    fn drift_table() {
        let rule = DriftRule::default();
        // name, (day, median) runs, expected drifted figure
        type Case = (&'static str, Vec<(u32, i64)>, Option<&'static str>);
        let cases: Vec<Case> = vec![
            (
                "steady week",
                vec![(1, 4100), (2, 4110), (3, 4090), (4, 4105)],
                None,
            ),
            (
                "up 12 %",
                vec![(1, 4100), (2, 4110), (3, 4090), (4, 4600)],
                Some("probe median"),
            ),
            (
                "up 9 % only",
                vec![(1, 4100), (2, 4100), (3, 4100), (4, 4469)],
                None,
            ),
            (
                "two runs before: no reference",
                vec![(2, 4100), (3, 4100), (4, 9000)],
                None,
            ),
            // The runs 8 days before are out of the window: only two remain.
            (
                "old runs do not count",
                vec![(1, 4100), (2, 4100), (8, 4100), (9, 4100), (10, 9000)],
                None,
            ),
            // One odd morning in the week does not move the reference (a median, not a mean).
            (
                "one odd morning",
                vec![(1, 4100), (2, 18_500), (3, 4100), (4, 4150)],
                None,
            ),
            (
                "down is not worse for latency",
                vec![(1, 4100), (2, 4100), (3, 4100), (4, 2000)],
                None,
            ),
            // 20 % of a 400 ns figure is 80 ns: below the 100 ns floor.
            (
                "under the floor",
                vec![(1, 400), (2, 400), (3, 400), (4, 480)],
                None,
            ),
        ];
        for (name, runs, want) in cases {
            let points: Vec<TrendPoint> = runs.iter().map(|(d, m)| probe(*d, *m)).collect();
            let got = probe_drifts(&points, &rule);
            let median = got.iter().find(|d| d.figure == "probe median");
            assert_eq!(median.map(|d| d.figure.as_str()), want, "{name}: {got:?}");
        }
        let points: Vec<TrendPoint> = [(1, 4100), (2, 4110), (3, 4090), (4, 4600)]
            .iter()
            .map(|(d, m)| probe(*d, *m))
            .collect();
        let d = &probe_drifts(&points, &rule)[0];
        assert_eq!((d.reference, d.latest, d.runs), (4100.0, 4600.0, 3));
        assert_eq!(d.run_id, "run04");
        assert_eq!(
            d.describe(|v| show(Nanos(v as i64))),
            "probe median 4.60 µs: +12 % on the week before (4.10 µs, 3 runs)"
        );
        assert!(probe_drifts(&[], &rule).is_empty());
    }

    #[test]
    fn firewall_drifts_look_down_for_sessions_and_up_for_the_setup_rate() {
        let point = |day, npu, rate| FirewallPoint {
            run_id: format!("run{day:02}"),
            started_at: at(day),
            npu_session_count: Some(npu),
            setup_rate: Some(rate),
        };
        let rule = DriftRule::default();
        let week = [point(1, 12, 4), point(2, 12, 5), point(3, 11, 4)];
        let mut bad = week.to_vec();
        bad.push(point(4, 0, 40));
        // 4 to 5 setups per second is +25 %, but one setup is noise (under the floor).
        let mut noise = week.to_vec();
        noise.push(point(4, 12, 5));
        assert!(firewall_drifts(&noise, &rule).is_empty());
        let figures: Vec<String> = firewall_drifts(&bad, &rule)
            .into_iter()
            .map(|d| d.figure)
            .collect();
        assert_eq!(figures, ["npu_session_count", "setup rate"]);
        let mut good = week.to_vec();
        good.push(point(4, 13, 4));
        assert!(firewall_drifts(&good, &rule).is_empty());
        // From nothing: no infinite percentage, and units.
        let from_zero = [
            point(1, 12, 0),
            point(2, 12, 0),
            point(3, 12, 0),
            point(4, 12, 1000),
        ];
        let said: Vec<String> = firewall_drifts(&from_zero, &rule)
            .iter()
            .map(Drift::said)
            .collect();
        assert_eq!(
            said,
            ["setup rate 1,000/s: up from 0/s in the week before (3 runs)"]
        );
        let said = firewall_drifts(&bad, &rule)[0].said();
        assert_eq!(
            said,
            "npu_session_count 0 sessions: -100 % on the week before (12 sessions, 3 runs)"
        );
    }
}
