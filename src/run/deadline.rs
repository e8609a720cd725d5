//! When the report must be out. The deadline is a time of day in the site's time zone
//! (`deadline:` in site.yaml, or `--deadline HH:MM`).
//!
//! A run started before today's deadline works to it. A run started after it, but less than
//! 12 hours after, has missed it: it is never moved silently to tomorrow (a manual run at 08:50
//! for an 08:45 deadline would otherwise be allowed until tomorrow morning); it goes ahead
//! bounded by a short grace (`deadline_grace_s`, default 2 minutes) and the report says the
//! deadline had passed. A run started 12 hours or more after it (cron in the evening) works to
//! the next morning's.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;

use premarket_report::DeadlineNote;
use premarket_report::channel::Deadline;

/// How long after a deadline a run still counts as late for it rather than early for the next.
pub const MISSED_WITHIN: chrono::TimeDelta = chrono::TimeDelta::hours(12);

/// The deadline a run works to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The deadline as a wall-clock time.
    pub at: DateTime<Tz>,
    /// It had passed when the run began (the run is bounded by the grace instead).
    pub passed: bool,
    /// When the run must be done: `at`, or now + grace when it had passed.
    pub bound: DateTime<Utc>,
}

impl Target {
    /// The deadline as the channels and the report use it.
    pub fn timer(&self) -> Deadline {
        Deadline {
            at: self.at,
            instant: instant_at(self.bound),
        }
    }

    pub fn note(&self) -> DeadlineNote {
        DeadlineNote {
            at: self.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            passed: self.passed,
        }
    }
}

/// The deadline for a run started at `now`.
pub fn target(tz: Tz, time: NaiveTime, now: DateTime<Utc>, grace: Duration) -> Target {
    let today = now.with_timezone(&tz).date_naive();
    let at_today = occurrence(tz, today, time);
    match at_today {
        Some(at) if at.with_timezone(&Utc) > now => Target {
            at,
            passed: false,
            bound: at.with_timezone(&Utc),
        },
        Some(at) if now - at.with_timezone(&Utc) < MISSED_WITHIN => Target {
            at,
            passed: true,
            bound: now + chrono::TimeDelta::from_std(grace).unwrap_or_default(),
        },
        _ => {
            let at = next_deadline(tz, time, now);
            Target {
                at,
                passed: false,
                bound: at.with_timezone(&Utc),
            }
        }
    }
}

/// `time` on `day` in `tz`; a time that a DST change skips falls to the first valid minute
/// after it.
fn occurrence(tz: Tz, day: NaiveDate, time: NaiveTime) -> Option<DateTime<Tz>> {
    let mut naive = day.and_time(time);
    // Skip a DST gap minute by minute (at most a few hours).
    for _ in 0..240 {
        if let Some(at) = naive.and_local_timezone(tz).earliest() {
            return Some(at);
        }
        naive += chrono::Duration::minutes(1);
    }
    None
}

/// The next `time` of day in the site's time zone after `now`.
pub fn next_deadline(tz: Tz, time: NaiveTime, now: DateTime<Utc>) -> DateTime<Tz> {
    let local = now.with_timezone(&tz).date_naive();
    for day in [
        local,
        local + chrono::Days::new(1),
        local + chrono::Days::new(2),
    ] {
        if let Some(at) = occurrence(tz, day, time)
            && at.with_timezone(&Utc) > now
        {
            return at;
        }
    }
    now.with_timezone(&tz)
}

/// The tokio timer instant of a wall-clock time (now when it has passed).
pub fn instant_at(at: DateTime<Utc>) -> tokio::time::Instant {
    let left = (at - Utc::now()).to_std().unwrap_or_default();
    tokio::time::Instant::now() + left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missed_deadline_is_today_s_and_late_an_evening_run_aims_at_the_morning() {
        let tz = chrono_tz::Asia::Taipei;
        let t = |s: &str| NaiveTime::parse_from_str(s, "%H:%M").unwrap();
        let utc = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let grace = Duration::from_secs(120);
        // (now, deadline, the deadline worked to, passed, bound)
        let cases = [
            // 07:30 Taipei: today's 08:45, ahead.
            (
                "2026-11-29T23:30:00Z",
                "08:45",
                "2026-11-30T08:45:00+08:00",
                false,
                "2026-11-30T00:45:00+00:00",
            ),
            // 08:50 Taipei: missed by 5 minutes; today's, passed, 2 minutes of grace.
            (
                "2026-11-30T00:50:00Z",
                "08:45",
                "2026-11-30T08:45:00+08:00",
                true,
                "2026-11-30T00:52:00+00:00",
            ),
            // 20:44 Taipei: 11 h 59 min late, still today's.
            (
                "2026-11-30T12:44:00Z",
                "08:45",
                "2026-11-30T08:45:00+08:00",
                true,
                "2026-11-30T12:46:00+00:00",
            ),
            // 23:00 Taipei (cron the evening before): tomorrow's.
            (
                "2026-11-30T15:00:00Z",
                "08:45",
                "2026-12-01T08:45:00+08:00",
                false,
                "2026-12-01T00:45:00+00:00",
            ),
        ];
        for (now, time, at, passed, bound) in cases {
            let got = target(tz, t(time), utc(now), grace);
            assert_eq!(
                (got.at.to_rfc3339(), got.passed, got.bound.to_rfc3339()),
                (at.to_string(), passed, bound.to_string()),
                "{now}"
            );
        }
        // New York's spring-forward gap: 02:30 does not exist on 2026-03-08; the next valid minute.
        let ny = chrono_tz::America::New_York;
        let at = next_deadline(ny, t("02:30"), utc("2026-03-08T05:00:00Z"));
        assert_eq!(at.to_rfc3339(), "2026-03-08T03:00:00-04:00");
    }
}
