//! What both bodies say, in the same order: FAIL and ERROR first with everything needed to
//! act, then what changed, then one line per fine check, then timing. The text and HTML
//! renderers only differ in markup.

use chrono::DateTime;

use super::message::Context;
use crate::core::Status;
use crate::report::history::Transition;
use crate::report::{CheckResult, Report};

/// FAIL before ERROR, then by device and check.
pub fn attention(report: &Report) -> Vec<&CheckResult> {
    sorted(report, |s| matches!(s, Status::Fail | Status::Error))
}

/// OK before SKIP, then by device and check.
pub fn fine(report: &Report) -> Vec<&CheckResult> {
    sorted(report, |s| matches!(s, Status::Ok | Status::Skip))
}

fn sorted(report: &Report, keep: impl Fn(Status) -> bool) -> Vec<&CheckResult> {
    let mut rows: Vec<&CheckResult> = report.results.iter().filter(|r| keep(r.status)).collect();
    rows.sort_by(|a, b| (a.status, &a.device, &a.check).cmp(&(b.status, &b.device, &b.check)));
    rows
}

/// The headline: `FAIL: 2 FAIL, 1 ERROR, 5 OK` (SKIP only when there are some).
pub fn headline(report: &Report) -> String {
    let c = report.counts;
    let mut parts = Vec::new();
    for (n, what) in [
        (c.fail, "FAIL"),
        (c.error, "ERROR"),
        (c.ok, "OK"),
        (c.skip, "SKIP"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    let scope = if report.partial {
        " (rerun of selected checks only)"
    } else {
        ""
    };
    format!(
        "{} {}: {}{scope}",
        report.site,
        report.status,
        parts.join(", ")
    )
}

/// How this check moved since its previous run, in a few words.
pub fn movement(report: &Report, result: &CheckResult, ctx: &Context) -> Option<String> {
    let changes = report.changes.as_ref()?;
    let find = |list: &[Transition]| {
        list.iter()
            .find(|t| t.check == result.check && t.device == result.device)
            .cloned()
    };
    if let Some(t) = find(&changes.newly_failing) {
        return Some(match t.from {
            Some(s) => format!("New: was {s} the previous time"),
            None => "New: first time this check ran here".to_string(),
        });
    }
    if let Some(t) = find(&changes.still_failing) {
        return Some(format!("Still failing{}", since(&t, report, ctx)));
    }
    if let Some(t) = find(&changes.fixed) {
        return Some(format!(
            "Fixed (was {}{})",
            t.from.map(Status::as_str).unwrap_or("failing"),
            since(&t, report, ctx)
        ));
    }
    None
}

/// ` since 11-29 08:15 (1 d 2 h)`, measured up to this run.
pub fn since(t: &Transition, report: &Report, ctx: &Context) -> String {
    let (Some(since), Ok(now)) = (
        t.since.as_deref(),
        DateTime::parse_from_rfc3339(&report.started_at),
    ) else {
        return String::new();
    };
    match DateTime::parse_from_rfc3339(since) {
        Ok(at) => format!(
            " since {} ({})",
            ctx.short_time(at),
            duration((now - at).num_seconds())
        ),
        Err(_) => String::new(),
    }
}

/// One line per change, grouped: newly failing, fixed, still failing.
pub fn change_lines(report: &Report, ctx: &Context) -> Option<Vec<(&'static str, String)>> {
    let changes = report.changes.as_ref()?;
    let mut lines = Vec::new();
    for t in &changes.newly_failing {
        let was = t
            .from
            .map(|s| format!("was {s}"))
            .unwrap_or_else(|| "first run".into());
        lines.push((
            "Newly failing",
            format!("{} {} on {} ({was})", t.to, t.check, t.device),
        ));
    }
    for t in &changes.fixed {
        lines.push((
            "Fixed",
            format!(
                "{} on {}: now OK, was {}{}",
                t.check,
                t.device,
                t.from.map(Status::as_str).unwrap_or("failing"),
                since(t, report, ctx)
            ),
        ));
    }
    for t in &changes.still_failing {
        lines.push((
            "Still failing",
            format!(
                "{} {} on {}{}",
                t.to,
                t.check,
                t.device,
                since(t, report, ctx)
            ),
        ));
    }
    Some(lines)
}

/// The timing lines: start and end in the site's time, duration, deadline, slowest devices.
pub fn timing(report: &Report, ctx: &Context) -> Vec<String> {
    let mut lines = Vec::new();
    let start = DateTime::parse_from_rfc3339(&report.started_at).ok();
    let end = DateTime::parse_from_rfc3339(&report.finished_at).ok();
    if let (Some(s), Some(e)) = (start, end) {
        let ms = (e - s).num_milliseconds().max(0);
        lines.push(format!(
            "Ran {} to {} ({})",
            ctx.clock(s),
            ctx.clock_tz(e),
            millis(ms)
        ));
    }
    if let Some(deadline) = &ctx.deadline {
        lines.push(format!("Deadline {}", deadline));
    }
    let mut devices: Vec<(&str, u64)> = Vec::new();
    for r in &report.results {
        match devices.iter_mut().find(|(d, _)| *d == r.device) {
            Some((_, ms)) => *ms = (*ms).max(r.duration_ms),
            None => devices.push((&r.device, r.duration_ms)),
        }
    }
    devices.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if !devices.is_empty() {
        let list: Vec<String> = devices
            .iter()
            .take(5)
            .map(|(d, ms)| format!("{d} {}", millis(i64::try_from(*ms).unwrap_or(i64::MAX))))
            .collect();
        lines.push(format!("Per device: {}", list.join(", ")));
    }
    lines.push(format!("Run {}", report.run_id));
    lines
}

/// The command to rerun one check on one device after a fix.
pub fn rerun(result: &CheckResult) -> String {
    format!(
        "premarket check {} --device {}",
        result.check, result.device
    )
}

fn millis(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// `3 min`, `2 h 5 min`, `1 d 3 h`.
pub fn duration(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..86_400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        _ => format!("{} d {} h", s / 86_400, s % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(5), "5 s");
        assert_eq!(duration(150), "2 min");
        assert_eq!(duration(7500), "2 h 5 min");
        assert_eq!(duration(97_200), "1 d 3 h");
        assert_eq!(millis(950), "950 ms");
        assert_eq!(millis(1850), "1.9 s");
    }
}
