//! Whether a device rebooted since the previous run, from its boot instant (collection time
//! minus uptime, or the boot time the device prints) now and in the previous run's archived
//! fact. Shared by the uptime checks of every platform and by the checks that compare
//! counters with the previous run (a reboot restarts them).
//!
//! A later boot instant is a reboot. The instants carry the devices' resolution (FortiOS
//! prints uptime in whole minutes) and the collection's own jitter, so they must move by more
//! than [`TOLERANCE_S`]; an earlier one is a clock change, not a reboot.

use chrono::{DateTime, Utc};

/// How far two boot instants of one boot may disagree: a minute of FortiOS `Uptime:`
/// resolution plus a minute of collection jitter and clock steps.
pub const TOLERANCE_S: i64 = 120;

/// What the previous run says about the device's boot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Since {
    /// No earlier run recorded the device's uptime (or its record lacks a time).
    FirstRun,
    /// The same boot as in the previous run.
    SameBoot { run_id: String },
    /// Booted after the previous run.
    Rebooted {
        run_id: String,
        previous_boot: i64,
        boot: i64,
    },
    /// The boot instant moved earlier: the device's or premarket's clock changed.
    ClockMoved { run_id: String, by_s: i64 },
}

impl Since {
    /// Compares `boot` (epoch seconds) with the previous run's.
    pub fn compare(boot: i64, previous: Option<(i64, &str)>) -> Since {
        let Some((previous_boot, run_id)) = previous else {
            return Since::FirstRun;
        };
        let run_id = run_id.to_string();
        if boot > previous_boot + TOLERANCE_S {
            Since::Rebooted {
                run_id,
                previous_boot,
                boot,
            }
        } else if boot < previous_boot - TOLERANCE_S {
            Since::ClockMoved {
                run_id,
                by_s: previous_boot - boot,
            }
        } else {
            Since::SameBoot { run_id }
        }
    }

    /// Why counters of this run cannot be compared with the previous run's, if they cannot.
    pub fn breaks_counters(&self) -> Option<String> {
        match self {
            Since::Rebooted { run_id, .. } => Some(format!(
                "the device rebooted since the previous run ({run_id}): its counters restarted"
            )),
            Since::ClockMoved { run_id, .. } => Some(format!(
                "the device's boot time moved since the previous run ({run_id}): its counters are not comparable"
            )),
            Since::FirstRun | Since::SameBoot { .. } => None,
        }
    }
}

/// `collected_at - uptime`, in epoch seconds.
pub fn boot_instant(collected_at: DateTime<Utc>, uptime_s: u64) -> i64 {
    collected_at.timestamp() - i64::try_from(uptime_s).unwrap_or(i64::MAX / 2)
}

/// An epoch second as UTC text (`2026-11-30 00:15:00 UTC`).
pub fn utc(epoch: i64) -> String {
    DateTime::from_timestamp(epoch, 0).map_or(epoch.to_string(), |t| {
        t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
    })
}

/// `3 days 4 h 5 min` from seconds.
pub fn describe_uptime(seconds: u64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
        seconds % 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) => format!("{m} min {s} s"),
        (0, _, _) => format!("{h} h {m} min"),
        _ => format!("{d} days {h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_boot_is_a_reboot_earlier_is_a_clock() {
        let t = 1_790_000_000;
        assert_eq!(Since::compare(t, None), Since::FirstRun);
        assert_eq!(
            Since::compare(t + 100, Some((t, "r1"))),
            Since::SameBoot {
                run_id: "r1".into()
            }
        );
        assert!(matches!(
            Since::compare(t + 3600, Some((t, "r1"))),
            Since::Rebooted { .. }
        ));
        assert!(matches!(
            Since::compare(t - 86_400, Some((t, "r1"))),
            Since::ClockMoved { by_s: 86_400, .. }
        ));
        assert!(
            Since::compare(t + 3600, Some((t, "r1")))
                .breaks_counters()
                .is_some()
        );
        assert!(
            Since::compare(t, Some((t, "r1")))
                .breaks_counters()
                .is_none()
        );
    }

    #[test]
    fn uptime_in_words() {
        assert_eq!(describe_uptime(35), "35 s");
        assert_eq!(describe_uptime(60), "1 min 0 s");
        assert_eq!(
            describe_uptime(12 * 86_400 + 3 * 3600 + 60),
            "12 days 3 h 1 min"
        );
    }
}
