//! The lab's sense of time. Devices report times (boot, last PTP sync, LANZ records) that a
//! check compares with the previous run, which ran against *another* lab process, perhaps on
//! another day: so a healthy device's boot time must not depend on when the lab started. A
//! healthy device booted a fixed number of days before the lab's epoch (2026-11-01 03:29:01
//! UTC) and has stayed up since, so its uptime grows with the clock across lab restarts and
//! days (a daily anchor read as a reboot of every device whenever a run's reference was taken
//! before that day's anchor). Counters and records that only need to stay put within a day
//! hang off a daily anchor (the most recent 03:29:01 UTC); scenario events (a reboot, a flap, a
//! microburst) hang off the lab's start, because they happen between a healthy run and the
//! fault run.

use std::time::{SystemTime, UNIX_EPOCH};

pub const DAY: f64 = 86_400.0;
/// 03:29:01 UTC, the lab's nightly maintenance minute.
const ANCHOR_OF_DAY: f64 = 3.0 * 3600.0 + 29.0 * 60.0 + 1.0;

/// Seconds since the epoch, now.
pub fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The most recent 03:29:01 UTC at or before `at`.
pub fn day_anchor(at: f64) -> f64 {
    ((at - ANCHOR_OF_DAY) / DAY).floor() * DAY + ANCHOR_OF_DAY
}

/// The lab's epoch, 2026-11-01 03:29:01 UTC: healthy devices booted a fixed time before it.
const EPOCH: f64 = 1_793_503_741.0;

/// When a device booted: `days` whole days before the lab's epoch (uptime `days` days plus the
/// time since the epoch; a clock set before the epoch counts from the lab's start instead), or
/// `rebooted_s` seconds before the lab started.
pub fn boot_time(started: f64, days: u64, rebooted_s: Option<u64>) -> f64 {
    match rebooted_s {
        Some(s) => started - s as f64,
        None => EPOCH.min(started) - days as f64 * DAY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_is_stable_within_a_day() {
        let t = 1_790_000_000.0;
        let a = day_anchor(t);
        assert!(a <= t && t - a < DAY);
        assert_eq!(day_anchor(t + 60.0), a);
        assert_eq!((a - ANCHOR_OF_DAY) % DAY, 0.0);
        assert_eq!(boot_time(t, 12, Some(35)), t - 35.0);
    }

    /// A healthy device's boot time is the same for every lab, whenever it starts: across
    /// the daily anchor and days later (a daily boot time read as a reboot of every device).
    #[test]
    fn a_healthy_boot_time_is_the_same_across_days() {
        let t = EPOCH + 34.0 * DAY + 3.0 * 3600.0 + 28.0 * 60.0;
        let boot = boot_time(t, 12, None);
        assert!(t - boot >= 12.0 * DAY);
        for later in [t + 120.0, t + DAY, t + 40.0 * DAY] {
            assert_eq!(boot_time(later, 12, None), boot);
        }
        // A clock before the epoch: up `days` days when the lab starts, never a negative uptime.
        let early = EPOCH - 100.0 * DAY;
        assert_eq!(early - boot_time(early, 12, None), 12.0 * DAY);
    }
}
