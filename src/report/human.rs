//! The report's words as a person reads them on a phone: times in the site's zone, runs named
//! by their time, sizes in KiB and MiB.
//!
//! Checks are pure functions without a time zone, so they write instants in UTC
//! (`2026-12-02 01:44:18 UTC`), earlier runs by their run id (`20261202T084501.989`) and sizes
//! in bytes; the archive and the JSON keep those exact forms. Only what people read is
//! rewritten here: `09:44:18 +08` (the date only when it is not the run's day), "the run of
//! 08:45", `3.0 MiB`. Evidence keeps its bytes (it is what the device said); its UTC instants
//! and run ids, premarket's own annotations, are rewritten too.

use std::sync::LazyLock;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use regex::{Captures, Regex};

use premarket_core::Bytes;

static UTC_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?) UTC\b").expect("static regex")
});
static RUN_IN_PARENS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\((\d{8}T\d{6}(?:\.\d{1,9})?)\)").expect("static regex"));
static RUN_AFTER_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\brun (\d{8}T\d{6}(?:\.\d{1,9})?)\b").expect("static regex"));
static RUN_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{8}T\d{6}(?:\.\d{1,9})?)\b").expect("static regex"));
static BYTES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{4,}) bytes\b").expect("static regex"));

/// Names for runs that started at `times`, each formatted with `minute` (a chrono format that
/// ends in the minute, `%H:%M`), and to the second (`%H:%M:%S`) where two runs share a minute:
/// six runs at 02:17 read 02:17:05, 02:17:31 ..., never six times "02:17".
pub fn by_minute_or_second<Tz: TimeZone>(times: &[DateTime<Tz>], minute: &str) -> Vec<String>
where
    Tz::Offset: std::fmt::Display,
{
    let minutes: Vec<String> = times.iter().map(|t| t.format(minute).to_string()).collect();
    let second = format!("{minute}:%S");
    times
        .iter()
        .zip(&minutes)
        .map(|(t, m)| {
            if minutes.iter().filter(|other| *other == m).count() > 1 {
                t.format(&second).to_string()
            } else {
                m.clone()
            }
        })
        .collect()
}

/// Rewrites text for a reader in the site's zone, on the day of the run at hand.
#[derive(Clone, Debug)]
pub struct Human {
    tz: Tz,
    /// The run's own day (site time): instants on it are shown without their date.
    day: Option<NaiveDate>,
}

impl Human {
    /// For a report that started at `started_at` (RFC 3339).
    pub fn new(tz: Tz, started_at: &str) -> Self {
        let day = DateTime::parse_from_rfc3339(started_at)
            .ok()
            .map(|t| t.with_timezone(&tz).date_naive());
        Human { tz, day }
    }

    /// An instant in the site's zone: `09:44:18 +08` on the run's day, else
    /// `2026-11-01 11:29 +08`.
    pub fn instant(&self, at: DateTime<Utc>) -> String {
        let local = at.with_timezone(&self.tz);
        let zone = crate::email::offset(&local);
        if Some(local.date_naive()) == self.day {
            format!("{} {zone}", local.format("%H:%M:%S"))
        } else {
            format!("{} {zone}", local.format("%Y-%m-%d %H:%M"))
        }
    }

    /// A run named by its start (a run id is the site's local time): `08:31` on the run's
    /// day, else `11-30 08:31`, else the id itself.
    pub fn run(&self, run_id: &str) -> String {
        let stamp = run_id.split('.').next().unwrap_or(run_id);
        match NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S") {
            Ok(t) if Some(t.date()) == self.day => t.format("%H:%M").to_string(),
            Ok(t) if self.day.is_some_and(|d| d.year() == t.date().year()) => {
                t.format("%m-%d %H:%M").to_string()
            }
            Ok(t) => t.format("%Y-%m-%d %H:%M").to_string(),
            Err(_) => run_id.to_string(),
        }
    }

    /// Premarket's own sentences: instants, runs and sizes.
    pub fn text(&self, text: &str) -> String {
        let text = self.annotations(text);
        BYTES
            .replace_all(&text, |c: &Captures| match c[1].parse::<u64>() {
                Ok(n) => Bytes(n).to_string(),
                Err(_) => c[0].to_string(),
            })
            .into_owned()
    }

    /// Evidence: its UTC instants and run ids (premarket's annotations); sizes stay exact.
    pub fn annotations(&self, text: &str) -> String {
        let text = UTC_TIME.replace_all(text, |c: &Captures| {
            let at = format!("{} {}", &c[1], &c[2]);
            let parsed = NaiveDateTime::parse_from_str(&at, "%Y-%m-%d %H:%M:%S")
                .or_else(|_| NaiveDateTime::parse_from_str(&at, "%Y-%m-%d %H:%M"));
            match parsed {
                Ok(t) => self.instant(Utc.from_utc_datetime(&t)),
                Err(_) => c[0].to_string(),
            }
        });
        let text =
            RUN_IN_PARENS.replace_all(&text, |c: &Captures| format!("({})", self.run(&c[1])));
        let text = RUN_AFTER_WORD.replace_all(&text, |c: &Captures| {
            format!("the run of {}", self.run(&c[1]))
        });
        RUN_ID
            .replace_all(&text, |c: &Captures| {
                format!("the run of {}", self.run(&c[1]))
            })
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_runs_and_sizes_read_in_the_site_s_terms() {
        let h = Human::new(chrono_tz::Asia::Taipei, "2026-12-02T09:45:18.323+08:00");
        let cases = [
            (
                "rebooted since the previous run (20261202T094507.501): up only 1 min",
                "rebooted since the previous run (09:45): up only 1 min",
            ),
            (
                "Uptime: 1 min 0 s (boot about 2026-12-02 01:44:18 UTC)",
                "Uptime: 1 min 0 s (boot about 09:44:18 +08)",
            ),
            (
                "the boot of about 2026-11-01 03:29:07 UTC (the previous run's)",
                "the boot of about 2026-11-01 11:29 +08 (the previous run's)",
            ),
            (
                "Ethernet1: queue drops 0 now, 0 in 20261130T084519.989",
                "Ethernet1: queue drops 0 now, 0 in the run of 11-30 08:45",
            ),
            (
                "as judged in run 20251202T094358.460",
                "as judged in the run of 2025-12-02 09:43",
            ),
            (
                "the deepest 3145728 bytes on Ethernet4, above 100000 bytes, 512 bytes",
                "the deepest 3.0 MiB on Ethernet4, above 98 KiB, 512 bytes",
            ),
            (
                "10.10.1.10:40000 -> 10.20.1.20:5000",
                "10.10.1.10:40000 -> 10.20.1.20:5000",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(h.text(text), want);
        }
        // Runs that share a minute are named to the second; the others by their minute.
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
        let runs = [
            at("2026-12-04T02:17:05+08:00"),
            at("2026-12-04T02:17:31+08:00"),
            at("2026-12-04T02:18:02+08:00"),
        ];
        assert_eq!(
            by_minute_or_second(&runs, "%H:%M"),
            ["02:17:05", "02:17:31", "02:18"]
        );
        // Evidence keeps the device's bytes.
        assert_eq!(
            h.annotations("queueLength 3145728 bytes in 20261202T094507.501"),
            "queueLength 3145728 bytes in the run of 09:45"
        );
    }
}
