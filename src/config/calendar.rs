//! The validated `calendar:` section of `site.yaml`: the days the market trades.
//!
//! A timer can then start premarket every day: on a closed day the run says "market closed"
//! and contacts nothing. Without a `calendar:` section every day is a trading day, so a site
//! that never wrote one is never silently skipped.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{Datelike, NaiveDate, Weekday};
use serde_saphyr::Spanned;

use super::error::{ConfigError, Position};
use super::site::CalendarFile;

/// When the market trades.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calendar {
    pub weekdays: BTreeSet<u32>,
    pub holidays: BTreeSet<NaiveDate>,
    pub extra_trading_days: BTreeSet<NaiveDate>,
}

impl Calendar {
    /// Why `date` is not a trading day, or `None` when the market trades.
    pub fn closed(&self, date: NaiveDate) -> Option<String> {
        if self.extra_trading_days.contains(&date) {
            return None;
        }
        if self.holidays.contains(&date) {
            return Some(format!("{date} is an exchange holiday in the calendar"));
        }
        let weekday = date.weekday();
        if !self.weekdays.contains(&weekday.num_days_from_monday()) {
            return Some(format!(
                "{date} is a {}, not a trading day in the calendar",
                long_name(weekday)
            ));
        }
        None
    }
}

fn long_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const LONG: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

pub(super) fn validate(
    path: &Path,
    file: &CalendarFile,
    errors: &mut Vec<ConfigError>,
) -> Option<Calendar> {
    let before = errors.len();
    let at = |s: &Spanned<String>| Position::from_location(path, s.defined);
    let weekdays: BTreeSet<u32> = match &file.trading_days {
        None => (0..5).collect(),
        Some(days) => days
            .iter()
            .filter_map(|d| {
                let name = d.value.trim().to_ascii_lowercase();
                let found = DAYS
                    .iter()
                    .position(|x| *x == name)
                    .or_else(|| LONG.iter().position(|x| *x == name));
                if found.is_none() {
                    errors.push(ConfigError::new(
                        at(d),
                        format!(
                            "calendar.trading_days: {:?} is not a weekday (use {})",
                            d.value,
                            DAYS.join(", ")
                        ),
                    ));
                }
                found.and_then(|i| u32::try_from(i).ok())
            })
            .collect(),
    };
    let mut dates = |list: &[Spanned<String>], what: &str| -> BTreeSet<NaiveDate> {
        list.iter()
            .filter_map(
                |d| match NaiveDate::parse_from_str(d.value.trim(), "%Y-%m-%d") {
                    Ok(date) => Some(date),
                    Err(_) => {
                        errors.push(ConfigError::new(
                            at(d),
                            format!("calendar.{what}: {:?} is not a date YYYY-MM-DD", d.value),
                        ));
                        None
                    }
                },
            )
            .collect()
    };
    let holidays = dates(&file.holidays, "holidays");
    let extra_trading_days = dates(&file.extra_trading_days, "extra_trading_days");
    if errors.len() > before {
        return None;
    }
    Some(Calendar {
        weekdays,
        holidays,
        extra_trading_days,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calendar(yaml: &str) -> Result<Calendar, Vec<ConfigError>> {
        let file: CalendarFile = serde_saphyr::from_str(yaml).expect("yaml");
        let mut errors = Vec::new();
        validate(Path::new("site.yaml"), &file, &mut errors).ok_or(errors)
    }

    #[test]
    fn closed_days_follow_weekdays_holidays_and_make_up_days() {
        let c = calendar(
            "trading_days: [mon, tue, wed, thu, friday]\nholidays: [\"2026-01-01\"]\nextra_trading_days: [\"2026-02-07\"]\n",
        )
        .expect("valid");
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date");
        let cases = [
            ("2026-01-01", Some("exchange holiday")), // a Thursday
            ("2026-01-02", None),                     // Friday
            ("2026-01-03", Some("Saturday")),
            ("2026-02-07", None), // a make-up Saturday
            ("2026-02-08", Some("Sunday")),
        ];
        for (date, want) in cases {
            let got = c.closed(day(date));
            match want {
                None => assert_eq!(got, None, "{date}"),
                Some(word) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(word)),
                    "{date}: {got:?}"
                ),
            }
        }
    }

    #[test]
    fn mistakes_are_reported_at_their_position() {
        let errors = calendar("trading_days: [mon, funday]\nholidays: [\"2026-13-01\"]\n")
            .expect_err("invalid");
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown[0].starts_with("site.yaml:1:21: calendar.trading_days: \"funday\""),
            "{shown:?}"
        );
        assert!(
            shown[1].starts_with("site.yaml:2:12: calendar.holidays"),
            "{shown:?}"
        );
    }
}
