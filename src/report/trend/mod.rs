//! The trend over mornings, read from the run archive: the probe's steady-state median and
//! p99 per run with the baseline's limits, the FortiGate's `npu_session_count` and session
//! setup rate with theirs ([`chart`]), and the drift detector that decides whether the email
//! attaches the trend ([`drift`]). Pure functions over points ([`archive`] reads them from
//! the archive and from the run at hand), so `premarket history --chart FILE` and the email draw the same thing.

pub mod archive;
pub mod chart;
pub mod drift;
mod point_error;

pub use archive::{Points, Sources};
pub use chart::{png, svg};
pub use drift::{Drift, DriftRule, Worse, firewall_drifts, probe_drifts};
pub use point_error::PointError;

use chrono::{DateTime, FixedOffset};

use premarket_probe::units::Nanos;

/// How many runs the trend shows unless told.
pub const DEFAULT_RUNS: usize = 30;

/// The probe's figures of one run (the steady state, which the baseline's limits judge).
#[derive(Clone, Debug, PartialEq)]
pub struct TrendPoint {
    pub run_id: String,
    pub started_at: DateTime<FixedOffset>,
    pub median_ns: Option<Nanos>,
    pub p99_ns: Option<Nanos>,
}

impl TrendPoint {
    /// From the probe's analysis JSON as the archive keeps it (`raw/<probe>/probe-measure.txt`):
    /// `steady.median_ns` and `steady.p99_ns`. When no packet was steady (a new session per
    /// packet: every packet is a session's first), the figures of all packets, which are what
    /// the feed felt; a gap there would hide the worst morning.
    pub fn from_probe_json(
        run_id: &str,
        started_at: DateTime<FixedOffset>,
        json: &str,
    ) -> Result<Self, PointError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(PointError::NotAnalysisJson)?;
        let steady = value.get("steady").ok_or(PointError::NoSteadySummary)?;
        let figure = |of: &serde_json::Value, key: &str| {
            of.get(key).and_then(serde_json::Value::as_i64).map(Nanos)
        };
        let no_steady_packet = steady.get("n").and_then(serde_json::Value::as_u64) == Some(0);
        let of = if no_steady_packet { &value } else { steady };
        Ok(TrendPoint {
            run_id: run_id.to_string(),
            started_at,
            median_ns: figure(of, "median_ns"),
            p99_ns: figure(of, "p99_ns"),
        })
    }
}

/// The FortiGate's figures of one run (`diagnose sys session stat`).
#[derive(Clone, Debug, PartialEq)]
pub struct FirewallPoint {
    pub run_id: String,
    pub started_at: DateTime<FixedOffset>,
    pub npu_session_count: Option<u64>,
    pub setup_rate: Option<u64>,
}

/// The baselines' limits, drawn across their panels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// The probe's `median_max_ns` and `p99_max_ns`.
    pub median_max: Option<Nanos>,
    pub p99_max: Option<Nanos>,
    /// The FortiGate's `npu_sessions_min` and `setup_rate_max`.
    pub npu_sessions_min: Option<u64>,
    pub setup_rate_max: Option<u64>,
}

/// The last `n` points by start time (the trend shows the last [`DEFAULT_RUNS`]).
pub fn last<T: Clone>(points: &[T], n: usize, at: impl Fn(&T) -> DateTime<FixedOffset>) -> Vec<T> {
    let mut sorted = points.to_vec();
    sorted.sort_by_key(|p| at(p));
    let skip = sorted.len().saturating_sub(n);
    sorted.split_off(skip)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn at(day: u32) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T08:30:00+08:00")).unwrap()
    }

    pub(crate) fn probe(day: u32, median: i64) -> TrendPoint {
        TrendPoint {
            run_id: format!("run{day:02}"),
            started_at: at(day),
            median_ns: Some(Nanos(median)),
            p99_ns: Some(Nanos(median + 40)),
        }
    }

    #[test]
    fn points_come_from_the_archived_probe_json() {
        let json = r#"{"median_ns": 45000, "p99_ns": 46000, "steady": {"n": 10, "median_ns": 4100, "p99_ns": 4140}}"#;
        let p = TrendPoint::from_probe_json("r1", at(1), json).unwrap();
        assert_eq!(
            (p.median_ns, p.p99_ns),
            (Some(Nanos(4100)), Some(Nanos(4140)))
        );
        // Every packet a session's first: all packets' figures.
        let new_sessions = r#"{"median_ns": 21569, "p99_ns": 30388, "steady": {"n": 0, "median_ns": null, "p99_ns": null}}"#;
        let p = TrendPoint::from_probe_json("r1", at(1), new_sessions).unwrap();
        assert_eq!(
            (p.median_ns, p.p99_ns),
            (Some(Nanos(21_569)), Some(Nanos(30_388)))
        );
        let empty = r#"{"steady": {"n": 0, "median_ns": null, "p99_ns": null}}"#;
        assert_eq!(
            TrendPoint::from_probe_json("r1", at(1), empty)
                .unwrap()
                .median_ns,
            None
        );
        assert!(TrendPoint::from_probe_json("r1", at(1), "% permission denied").is_err());
        assert!(TrendPoint::from_probe_json("r1", at(1), "{}").is_err());
    }

    #[test]
    fn the_last_runs_are_the_latest_by_time() {
        let points: Vec<TrendPoint> = [5, 1, 3, 2, 4].iter().map(|d| probe(*d, 4100)).collect();
        let kept = last(&points, 3, |p| p.started_at);
        let days: Vec<&str> = kept.iter().map(|p| p.run_id.as_str()).collect();
        assert_eq!(days, ["run03", "run04", "run05"]);
    }
}
