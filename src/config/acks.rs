//! `baselines/acks.yaml`: known FAILs acknowledged until a date, modelled on Alertmanager's
//! silences (bounded in time, bound to what they match, visible). `premarket ack` writes it
//! ([`crate::acks_file`]), a reviewer reads it with the baselines, and every run reads it here.
//!
//! An entry covers a FAIL of its check on its device that names no subject outside the
//! entry's `subjects` (the ports, flows or changed lines the FAIL was about when it was
//! acknowledged; none: the check on the device as a whole, and then only a FAIL that names
//! none), from when it is written until the start of its `until` day in the site's time zone:
//! the run of that day is a FAIL again. It never covers an ERROR (the report applies it).
//!
//! A mistake in the file never silences anything: each entry is checked on its own (an unknown
//! check or device, a date that is not one, no reason) and a bad entry acknowledges nothing; the
//! run reports it as a problem and goes on, and `validate` lists every one with its
//! `file:line:column`. An entry whose date has passed is not a mistake, only a line to delete.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::{Config, ConfigError, Position, yaml};

/// The file, under `baselines/`.
pub const FILE: &str = "acks.yaml";

/// The furthest `premarket ack --until` may be: an acknowledgement is for a known FAIL being
/// worked on, not a permanent exception (that is the baseline's `skip:`).
pub const MAX_DAYS: i64 = 90;

/// One acknowledgement, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ack {
    /// Its place in the file, from 1 (what `ack --list` prints and `ack --remove N` takes).
    pub number: usize,
    pub check: String,
    pub device: String,
    /// What the acknowledged FAIL named; a later FAIL naming anything else is not covered.
    pub subjects: Vec<String>,
    /// The ack ends at the start of this day in the site's time zone.
    pub until: NaiveDate,
    pub reason: String,
    pub ticket: Option<String>,
    /// The login name of who wrote it, and when (RFC 3339), as `premarket ack` records them.
    pub by: Option<String>,
    pub at: Option<String>,
    /// Where the entry starts.
    pub position: Position,
}

impl Ack {
    /// When it ends: the start of `until` in `tz`.
    pub fn ends_at(&self, tz: Tz) -> DateTime<Utc> {
        start_of(self.until, tz)
    }

    /// Whether it still holds at `now`.
    pub fn holds_at(&self, now: DateTime<Utc>, tz: Tz) -> bool {
        now < self.ends_at(tz)
    }

    /// Whether it covers a FAIL of `check` on `device` about `subjects`: the same check and
    /// device, and subjects within its own (none only by none).
    pub fn covers(&self, check: &str, device: &str, subjects: &[String]) -> bool {
        self.check == check
            && self.device == device
            && subjects.is_empty() == self.subjects.is_empty()
            && subjects.iter().all(|s| self.subjects.contains(s))
    }

    /// `acks.yaml:4`, for a reader to find the entry.
    pub fn entry(&self) -> String {
        let name = self
            .position
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| FILE.to_string());
        format!("{name}:{}", self.position.line)
    }
}

/// The start of `day` in `tz` (the first instant of the day where midnight does not exist).
pub fn start_of(day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    let mut local = tz.from_local_datetime(&midnight).earliest();
    let mut probe = midnight;
    // A zone that skips midnight (a DST change at 00:00) starts the day at the first hour that
    // exists.
    while local.is_none() && probe.date() == day {
        probe += chrono::Duration::minutes(30);
        local = tz.from_local_datetime(&probe).earliest();
    }
    local.map_or_else(|| midnight.and_utc(), |t| t.with_timezone(&Utc))
}

/// What the file holds: the entries that can acknowledge, and the mistakes (an entry with one
/// acknowledges nothing).
#[derive(Clone, Debug, Default)]
pub struct Acks {
    pub path: PathBuf,
    pub acks: Vec<Ack>,
    pub errors: Vec<ConfigError>,
}

impl Acks {
    /// Reads `DIR/baselines/acks.yaml` against the site's catalog and devices; no file is no
    /// acknowledgement.
    pub fn load(config: &Config) -> Acks {
        let path = path(&config.dir);
        let mut acks = Acks {
            path: path.clone(),
            ..Acks::default()
        };
        if !path.exists() {
            return acks;
        }
        match read(&path) {
            Ok(entries) => {
                for (i, entry) in entries.iter().enumerate() {
                    match validate(config, &path, i + 1, entry) {
                        Ok(ack) => acks.acks.push(ack),
                        Err(errors) => acks.errors.extend(errors),
                    }
                }
            }
            Err(e) => acks.errors.push(e),
        }
        acks
    }

    /// The entries that have ended by `now`.
    pub fn expired(&self, now: DateTime<Utc>, tz: Tz) -> impl Iterator<Item = &Ack> {
        self.acks.iter().filter(move |a| !a.holds_at(now, tz))
    }
}

/// `DIR/baselines/acks.yaml`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join("baselines").join(FILE)
}

/// One entry as written: every key optional here, so that each missing one is a mistake of
/// its own at the entry, not the parser's first error.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntryFile {
    pub check: Option<Spanned<String>>,
    pub device: Option<Spanned<String>>,
    #[serde(default)]
    pub subjects: Vec<String>,
    pub until: Option<Spanned<String>>,
    pub reason: Option<Spanned<String>>,
    pub ticket: Option<Spanned<String>>,
    pub by: Option<Spanned<String>>,
    pub at: Option<Spanned<String>>,
}

/// The entries of `path`, each with where it starts.
pub(crate) fn read(path: &Path) -> Result<Vec<Spanned<EntryFile>>, ConfigError> {
    parse(path, &yaml::read_text(path)?)
}

/// The entries of `text` (read from `path`). A file of comments alone holds none.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Vec<Spanned<EntryFile>>, ConfigError> {
    let empty = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if empty {
        return Ok(Vec::new());
    }
    yaml::parse::<Vec<Spanned<EntryFile>>>(path, text).map_err(|mut e| {
        e.message = format!(
            "{} (acks.yaml is a list of entries: `- check: ID`, `device:`, `until: YYYY-MM-DD`, `reason:`)",
            e.message
        );
        e
    })
}

/// The entry numbered `number` as an [`Ack`], or every mistake in it.
fn validate(
    config: &Config,
    path: &Path,
    number: usize,
    entry: &Spanned<EntryFile>,
) -> Result<Ack, Vec<ConfigError>> {
    let start = Position::from_location(path, entry.defined);
    let at = |s: &Spanned<String>| Position::from_location(path, s.defined);
    let e = &entry.value;
    let mut errors = Vec::new();
    let mut missing = |key: &str| {
        errors.push(ConfigError::new(
            start.clone(),
            format!("this acknowledgement has no `{key}:` (an ack names its check, device, `until` date and reason)"),
        ));
    };
    let check = e.check.as_ref().map(|c| c.value.trim().to_string());
    let device = e.device.as_ref().map(|d| d.value.trim().to_string());
    let until = e.until.as_ref();
    let reason = e.reason.as_ref().filter(|r| !r.value.trim().is_empty());
    for (key, absent) in [
        ("check", check.is_none()),
        ("device", device.is_none()),
        ("until", until.is_none()),
        ("reason", reason.is_none()),
    ] {
        if absent {
            missing(key);
        }
    }
    let entry_of = check
        .as_deref()
        .and_then(|id| config.catalog.iter().find(|c| c.id == id));
    if let (Some(id), Some(spanned), None) = (&check, &e.check, entry_of) {
        let ids = config.catalog.iter().map(|c| c.id.as_str());
        let hint = match premarket_core::closest(id, ids) {
            Some(near) => format!("; did you mean {near}?"),
            None => " (`premarket list` shows them)".to_string(),
        };
        errors.push(ConfigError::new(
            at(spanned),
            format!("no check is named {id}{hint}"),
        ));
    }
    let device_of = device.as_deref().and_then(|name| config.device(name));
    // A check over several devices FAILs under the site's name.
    let site_check = entry_of.filter(|c| c.platform == premarket_core::Platform::Site);
    if let (Some(name), Some(spanned), Some(c)) = (&device, &e.device, site_check) {
        if *name != config.site.name {
            errors.push(ConfigError::new(
                at(spanned),
                format!(
                    "{} is a check over several devices: it FAILs under the site's name, {}",
                    c.id, config.site.name
                ),
            ));
        }
    } else if let (Some(name), Some(spanned)) = (&device, &e.device) {
        match device_of {
            // A device whose baseline has mistakes is listed all the same: those are its own.
            None if config.lists(name) => {}
            None => {
                let names = config.devices.iter().map(|d| d.name.as_str());
                let hint = match premarket_core::closest(name, names) {
                    Some(near) => format!("; did you mean {near}?"),
                    None => String::new(),
                };
                errors.push(ConfigError::new(
                    at(spanned),
                    format!("no device is named {name} in site.yaml{hint}"),
                ));
            }
            Some(d) => {
                if let Some(c) = entry_of.filter(|c| c.platform != d.platform) {
                    errors.push(ConfigError::new(
                        at(spanned),
                        format!(
                            "{} is a {} check, and {name} is a {} device",
                            c.id, c.platform, d.platform
                        ),
                    ));
                }
            }
        }
    }
    let date = until.and_then(
        |u| match NaiveDate::parse_from_str(u.value.trim(), "%Y-%m-%d") {
            Ok(date) => Some(date),
            Err(_) => {
                errors.push(ConfigError::new(
                    at(u),
                    format!("until: {:?} is not a date YYYY-MM-DD", u.value),
                ));
                None
            }
        },
    );
    let text = |s: &Option<Spanned<String>>| {
        s.as_ref()
            .map(|s| s.value.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    match (check, device, date, reason) {
        (Some(check), Some(device), Some(until), Some(reason)) if errors.is_empty() => Ok(Ack {
            number,
            check,
            device,
            subjects: e.subjects.clone(),
            until,
            reason: reason.value.trim().to_string(),
            ticket: text(&e.ticket),
            by: text(&e.by),
            at: text(&e.at),
            position: start,
        }),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(subjects: &[&str]) -> Ack {
        Ack {
            number: 1,
            check: "eos.transceivers.light".into(),
            device: "sw1".into(),
            subjects: subjects.iter().map(|s| s.to_string()).collect(),
            until: NaiveDate::from_ymd_opt(2026, 12, 10).unwrap(),
            reason: "optic on order".into(),
            ticket: None,
            by: None,
            at: None,
            position: Position::new(Path::new("acks.yaml"), 2, 3),
        }
    }

    #[test]
    fn an_ack_covers_its_subjects_and_nothing_else() {
        let names = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let a = ack(&["Ethernet3", "Ethernet4"]);
        assert!(a.covers("eos.transceivers.light", "sw1", &names(&["Ethernet3"])));
        assert!(a.covers(
            "eos.transceivers.light",
            "sw1",
            &names(&["Ethernet4", "Ethernet3"])
        ));
        assert!(!a.covers("eos.transceivers.light", "sw1", &names(&["Ethernet5"])));
        assert!(!a.covers(
            "eos.transceivers.light",
            "sw1",
            &names(&["Ethernet3", "Ethernet5"])
        ));
        assert!(!a.covers("eos.transceivers.light", "sw2", &names(&["Ethernet3"])));
        assert!(!a.covers("eos.interfaces.errors", "sw1", &names(&["Ethernet3"])));
        // A FAIL about nothing in particular is a different finding from one about a port.
        assert!(!a.covers("eos.transceivers.light", "sw1", &[]));
        let whole = ack(&[]);
        assert!(whole.covers("eos.transceivers.light", "sw1", &[]));
        assert!(!whole.covers("eos.transceivers.light", "sw1", &names(&["Ethernet3"])));
    }

    #[test]
    fn an_ack_ends_at_the_start_of_its_day_in_the_site_s_zone() {
        let a = ack(&[]);
        let taipei = chrono_tz::Asia::Taipei;
        let ends = a.ends_at(taipei);
        assert_eq!(ends.to_rfc3339(), "2026-12-09T16:00:00+00:00");
        assert!(a.holds_at(ends - chrono::Duration::seconds(1), taipei));
        assert!(!a.holds_at(ends, taipei));
        // A zone whose day starts at 01:00 when the clocks change at midnight (Santiago).
        let day = NaiveDate::from_ymd_opt(2024, 9, 8).unwrap();
        let start = start_of(day, chrono_tz::America::Santiago);
        assert_eq!(
            start
                .with_timezone(&chrono_tz::America::Santiago)
                .to_rfc3339(),
            "2024-09-08T01:00:00-03:00"
        );
    }

    #[test]
    fn a_file_of_comments_holds_no_entry_and_values_read_as_text() {
        let path = Path::new("acks.yaml");
        assert!(parse(path, "# none yet\n\n").unwrap().is_empty());
        let entries = parse(
            path,
            "- check: eos.a.b\n  device: sw1\n  until: 2026-12-10\n  reason: 42\n  ticket: 7\n",
        )
        .unwrap();
        let e = &entries[0].value;
        assert_eq!(e.until.as_ref().unwrap().value, "2026-12-10");
        assert_eq!(e.reason.as_ref().unwrap().value, "42");
        assert_eq!(entries[0].defined.line(), 1);
        let err = parse(path, "- check: eos.a.b\n  devcie: sw1\n").unwrap_err();
        assert_eq!(err.position.line, 2, "{err}");
    }
}
