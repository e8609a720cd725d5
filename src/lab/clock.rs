//! The lab's sense of time. Devices report times (boot, last PTP sync, LANZ records) that a
//! check compares with the previous run, which ran against *another* lab process: so a healthy
//! device's boot time must not depend on when the lab started. Boot times hang off a daily
//! anchor (the most recent 03:29:01 UTC), the same for every lab started that day; scenario
//! events (a reboot, a flap, a microburst) hang off the lab's start, because they happen
//! between a healthy run and the fault run.

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

/// When a device booted: `days` whole days before today's anchor (uptime `days` days plus the
/// time since the anchor), or `rebooted_s` seconds before the lab started.
pub fn boot_time(started: f64, days: u64, rebooted_s: Option<u64>) -> f64 {
    match rebooted_s {
        Some(s) => started - s as f64,
        None => day_anchor(started) - days as f64 * DAY,
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
        let boot = boot_time(t, 12, None);
        assert!((12.0 * DAY..13.0 * DAY).contains(&(t - boot)));
        assert_eq!(boot_time(t, 12, Some(35)), t - 35.0);
    }
}
