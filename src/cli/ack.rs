//! `premarket ack ID --device NAME --until DATE --reason TEXT [--ticket T]`: acknowledge a known
//! FAIL until a date; `ack --list` and `ack --remove N` (or `ack --remove ID --device NAME`).
//!
//! An ack is bound to what failed: it reads the latest archived result of the check on the
//! device (the latest full run and the reruns since), refuses unless it is a FAIL, and records
//! the FAIL's subjects (the ports, flows or lines it named), so a later FAIL naming anything
//! else is not covered. It records who (the login name of the real user) and when, and writes
//! `baselines/acks.yaml` as text ([`crate::config::acks_file`]), so the reviewer's comments
//! stay. `--until` is a day in the site's time zone: the ack holds until the start of that day;
//! that day's run counts the FAIL again. A date not after today, or more than
//! [`MAX_DAYS`] days away, is refused.

use std::path::Path;

use chrono::{Datelike, NaiveDate, Utc};
use clap_complete::ArgValueCandidates;

use super::{Stop, load};
use crate::config::Config;
use crate::config::acks::{self, Ack, Acks, MAX_DAYS};
use crate::config::acks_file::{self, NewAck};
use crate::core::Status;
use crate::report::archive::Archive;
use crate::report::{CheckResult, Invocation, history};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The check id whose FAIL to acknowledge; with --remove, the check id or the number that
    /// --list prints.
    #[arg(value_name = "ID", add = ArgValueCandidates::new(super::complete::check_ids))]
    pub target: Option<String>,
    /// The device the check FAILed on.
    #[arg(long, value_name = "NAME", add = ArgValueCandidates::new(super::complete::device_names))]
    pub device: Option<String>,
    /// YYYY-MM-DD (or MM-DD this year), in the site's time zone: the ack holds until the start
    /// of that day, when the FAIL counts again. At most 90 days ahead.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Why the FAIL is known and acceptable until then (required).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The change or incident ticket it is worked under.
    #[arg(long, value_name = "T")]
    pub ticket: Option<String>,
    /// List the acknowledgements, numbered, the expired ones marked.
    #[arg(long, conflicts_with_all = ["target", "device", "until", "reason", "ticket", "remove"])]
    pub list: bool,
    /// Remove one: by the number --list prints, or by check id and --device.
    #[arg(long, conflicts_with_all = ["until", "reason", "ticket"])]
    pub remove: bool,
}

pub fn run(dir: &Path, invocation: Invocation, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    if args.list {
        return list(&config);
    }
    if args.remove {
        return remove(&config, &invocation, &args);
    }
    add(&config, &invocation, &args)
}

fn usage(message: impl Into<String>) -> Stop {
    Stop::config(message)
}

fn add(config: &Config, invocation: &Invocation, args: &Args) -> Result<u8, Stop> {
    let (Some(check), Some(device)) = (&args.target, &args.device) else {
        return Err(usage(
            "premarket ack ID --device NAME --until DATE --reason TEXT [--ticket T] (or --list, --remove)",
        ));
    };
    let reason = args
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .ok_or_else(|| {
            usage("--reason TEXT is required: say why this FAIL is known and acceptable until then")
        })?;
    let until = args
        .until
        .as_deref()
        .ok_or_else(|| usage("--until DATE is required (YYYY-MM-DD, or MM-DD this year)"))?;
    let tz = config.site.timezone;
    let now = Utc::now().with_timezone(&tz);
    let until = date(until, now.date_naive())?;
    // A check over several devices FAILs under the site's name.
    if config.device(device).is_none() && *device != config.site.name {
        return Err(usage(crate::plan::hint::unknown_device(config, device)));
    }
    let failed = latest(config, check, device)?;
    if crate::core::subjects_cut(&failed.subjects) {
        return Err(usage(format!(
            "the FAIL of {check} on {device} names more than {} things: too many to acknowledge one by one",
            crate::core::SUBJECTS_MAX
        )));
    }
    let existing = Acks::load(config);
    if let Some(a) = existing
        .acks
        .iter()
        .find(|a| a.holds_at(Utc::now(), tz) && a.covers(check, device, &failed.subjects))
    {
        return Err(usage(format!(
            "{check} on {device} is already acknowledged until {} ({}); to change it, remove it first (`{}`)",
            a.until,
            a.entry(),
            invocation.complete(&format!("premarket ack --remove {}", a.number))
        )));
    }
    let path = acks::path(&config.dir);
    let new = NewAck {
        check: check.clone(),
        device: device.clone(),
        subjects: failed.subjects.clone(),
        until,
        reason: reason.to_string(),
        ticket: args
            .ticket
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
        by: crate::files::os::login_name(),
        at: now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
    };
    acks_file::append(&path, &new).map_err(|e| usage(e.to_string()))?;
    let about = if new.subjects.is_empty() {
        String::new()
    } else {
        format!(" about {}", new.subjects.join(", "))
    };
    outln!(
        "acknowledged {check} on {device}{about} until the start of {until} ({tz}): {} (review and commit it with the baselines)",
        path.display()
    );
    Ok(0)
}

/// `--until`: `YYYY-MM-DD`, or `MM-DD` of this year; after `today`, at most [`MAX_DAYS`] on.
fn date(given: &str, today: NaiveDate) -> Result<NaiveDate, Stop> {
    let given = given.trim();
    let parsed = NaiveDate::parse_from_str(given, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(&format!("{}-{given}", today.year()), "%Y-%m-%d"));
    let Ok(day) = parsed else {
        return Err(usage(format!(
            "--until {given}: not a date (YYYY-MM-DD, or MM-DD for this year)"
        )));
    };
    if day <= today {
        return Err(usage(format!(
            "--until {day} is not after today ({today}): an acknowledgement ends at the start of its day, so it must be a later date"
        )));
    }
    if day > today + chrono::Duration::days(MAX_DAYS) {
        return Err(usage(format!(
            "--until {day} is more than {MAX_DAYS} days away: an acknowledgement is for a FAIL being worked on (a permanent exception is the baseline's `skip:`)"
        )));
    }
    Ok(day)
}

/// The latest archived result of `check` on `device` (the latest full run and the reruns
/// since), which must be a FAIL.
fn latest(config: &Config, check: &str, device: &str) -> Result<CheckResult, Stop> {
    let archive = Archive::new(&config.site.archive.dir);
    let (reports, _) = archive.history().map_err(|e| usage(e.to_string()))?;
    let found = history::standing(&reports, &[])
        .into_iter()
        .find(|r| r.check == check && r.device == device);
    let Some(result) = found else {
        return Err(usage(format!(
            "the archive holds no result of {check} on {device} since the latest full run: \
             an acknowledgement is bound to a FAIL premarket has seen (run it first)"
        )));
    };
    let run = result.judged_in.clone().unwrap_or_default();
    if result.status != Status::Fail {
        return Err(usage(format!(
            "the latest result of {check} on {device} (run {run}) is {}, not FAIL: there is nothing to acknowledge{}",
            result.status,
            if result.status == Status::Error {
                " (an ERROR is never acknowledged: premarket could not tell)"
            } else {
                ""
            }
        )));
    }
    Ok(result)
}

fn list(config: &Config) -> Result<u8, Stop> {
    let acks = Acks::load(config);
    let tz = config.site.timezone;
    let now = Utc::now();
    if acks.acks.is_empty() && acks.errors.is_empty() {
        outln!("no acknowledgement ({})", acks.path.display());
    }
    for a in &acks.acks {
        outln!("{}", listed(a, a.holds_at(now, tz)));
    }
    for e in &acks.errors {
        errln!("{e}: ignored, it acknowledges nothing (`premarket validate`)");
    }
    Ok(0)
}

/// One line of `--list`: `2  sw1 eos.transceivers.light [Ethernet3] until 2026-12-10 CHG123
/// by alice at ...: optic on order (acks.yaml:7)`, `EXPIRED` once its day has come.
fn listed(a: &Ack, holds: bool) -> String {
    let subjects = if a.subjects.is_empty() {
        String::new()
    } else {
        format!(" [{}]", a.subjects.join(", "))
    };
    let state = if holds { "until" } else { "EXPIRED" };
    let ticket = a
        .ticket
        .as_deref()
        .map(|t| format!(" {t}"))
        .unwrap_or_default();
    let by =
        a.by.as_deref()
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
    let at =
        a.at.as_deref()
            .map(|t| format!(" at {t}"))
            .unwrap_or_default();
    crate::report::escape::line(&format!(
        "{:>3}  {} {}{subjects} {state} {}{ticket}{by}{at}: {} ({})",
        a.number,
        a.device,
        a.check,
        a.until,
        a.reason,
        a.entry()
    ))
}

fn remove(config: &Config, invocation: &Invocation, args: &Args) -> Result<u8, Stop> {
    let path = acks::path(&config.dir);
    let acks = Acks::load(config);
    let number = match (&args.target, &args.device) {
        (Some(n), None) if n.bytes().all(|b| b.is_ascii_digit()) => n
            .parse::<usize>()
            .map_err(|_| usage(format!("--remove {n}: not an entry number")))?,
        (Some(check), Some(device)) => {
            let matching: Vec<&Ack> = acks
                .acks
                .iter()
                .filter(|a| a.check == *check && a.device == *device)
                .collect();
            match matching.as_slice() {
                [one] => one.number,
                [] => {
                    return Err(usage(format!(
                        "no acknowledgement of {check} on {device} in {} (`{}`)",
                        path.display(),
                        invocation.complete("premarket ack --list")
                    )));
                }
                many => {
                    let numbers: Vec<String> = many.iter().map(|a| a.number.to_string()).collect();
                    return Err(usage(format!(
                        "{} acknowledgements of {check} on {device}: remove one by its number ({})",
                        many.len(),
                        numbers.join(", ")
                    )));
                }
            }
        }
        _ => {
            return Err(usage(
                "premarket ack --remove N (the number --list prints), or premarket ack --remove ID --device NAME",
            ));
        }
    };
    let gone = acks.acks.iter().find(|a| a.number == number).cloned();
    acks_file::remove(&path, number).map_err(|e| usage(e.to_string()))?;
    match gone {
        Some(a) => outln!(
            "removed {}: {} on {} until {}",
            a.entry(),
            a.check,
            a.device,
            a.until
        ),
        None => outln!("removed entry {number} of {}", path.display()),
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_is_a_later_day_within_ninety_days() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 3).unwrap();
        let day = |s: &str| date(s, today).map_err(|e| e.message);
        assert_eq!(
            day("2026-12-10"),
            Ok(NaiveDate::from_ymd_opt(2026, 12, 10).unwrap())
        );
        assert_eq!(
            day("12-10"),
            Ok(NaiveDate::from_ymd_opt(2026, 12, 10).unwrap())
        );
        assert!(day("2026-12-03").unwrap_err().contains("not after today"));
        assert!(day("11-30").unwrap_err().contains("not after today"));
        assert!(day("2027-03-04").unwrap_err().contains("90 days"));
        assert!(day("2027-03-03").is_ok());
        assert!(day("13-45").unwrap_err().contains("not a date"));
    }
}
