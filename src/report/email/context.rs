//! How the email shows times: in the site's time zone with its UTC offset (`08:15 +08`), since
//! abbreviations such as `CST` are ambiguous. The subject, both bodies and the digest lines
//! read the same [`Context`]; it is named here, below all of them, so that none of them needs
//! the message builder to say what time it is.

use chrono::{DateTime, FixedOffset};
use chrono_tz::Tz;

/// How times are shown: in the site's time zone, with its UTC offset (abbreviations such as
/// `CST` are ambiguous).
#[derive(Clone, Debug)]
pub struct Context {
    pub tz: Tz,
    /// The run's deadline as shown, e.g. `2026-11-30 08:45 +08`.
    pub deadline: Option<String>,
}

/// `+08`, `+05:30`, `-04`.
pub fn offset(at: &DateTime<Tz>) -> String {
    let full = at.format("%:z").to_string();
    full.strip_suffix(":00").map(str::to_string).unwrap_or(full)
}

impl Context {
    pub fn new(tz: Tz, deadline: Option<DateTime<Tz>>) -> Self {
        Context {
            tz,
            deadline: deadline.map(|d| format!("{} {}", d.format("%Y-%m-%d %H:%M"), offset(&d))),
        }
    }

    /// `2026-11-30 08:15 +08`
    pub fn date_time_tz(&self, at: DateTime<FixedOffset>) -> String {
        let at = at.with_timezone(&self.tz);
        format!("{} {}", at.format("%Y-%m-%d %H:%M"), offset(&at))
    }

    /// `08:15 +08`
    pub fn time_zone(&self, at: DateTime<FixedOffset>) -> String {
        let at = at.with_timezone(&self.tz);
        format!("{} {}", at.format("%H:%M"), offset(&at))
    }

    /// `2026-11-29 08:15`
    pub fn short_time(&self, at: DateTime<FixedOffset>) -> String {
        at.with_timezone(&self.tz)
            .format("%Y-%m-%d %H:%M")
            .to_string()
    }

    /// `08:15:00`
    pub fn clock(&self, at: DateTime<FixedOffset>) -> String {
        at.with_timezone(&self.tz).format("%H:%M:%S").to_string()
    }

    /// `08:15:02 +08`
    pub fn clock_tz(&self, at: DateTime<FixedOffset>) -> String {
        let at = at.with_timezone(&self.tz);
        format!("{} {}", at.format("%H:%M:%S"), offset(&at))
    }
}
