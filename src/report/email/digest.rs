//! What both bodies say, in the same order: the blocks that need attention (see
//! [`crate::blocks`]) with everything needed to act, then what changed, then one line
//! per fine check, then timing. The text and HTML renderers only differ in markup.

use chrono::DateTime;

use super::context::Context;
use crate::history::{self, Group, Line, Transition};
use crate::{CheckResult, Report};
use premarket_core::Status;

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
            None => "New: first time this check was judged here".to_string(),
        });
    }
    if let Some(t) = find(&changes.changed) {
        return Some(format!(
            "Changed: was {}{}",
            t.from.map(Status::as_str).unwrap_or("-"),
            since(&t, report, ctx)
        ));
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
    since_when(t, report, ctx)
        .map(|s| format!(" since {s}"))
        .unwrap_or_default()
}

/// `11-29 08:15 (1 d 2 h)`: when the failure began, and how long ago as of this run.
fn since_when(t: &Transition, report: &Report, ctx: &Context) -> Option<String> {
    let now = DateTime::parse_from_rfc3339(&report.started_at).ok()?;
    let at = DateTime::parse_from_rfc3339(t.since.as_deref()?).ok()?;
    Some(format!(
        "{} ({})",
        ctx.short_time(at),
        duration((now - at).num_seconds())
    ))
}

/// One line per change, grouped: newly failing, changed, fixed, still failing; a device
/// that could not be inspected is one line, not one per blocked check.
pub fn change_lines(report: &Report, ctx: &Context) -> Option<Vec<(&'static str, String)>> {
    let changes = report.changes.as_ref()?;
    let lines = history::by_device(changes)
        .into_iter()
        .map(|(group, line)| {
            let t = match line {
                Line::Device(d) => {
                    let since = d.earliest().and_then(|t| since_when(t, report, ctx));
                    return (group.label(), d.words(since.as_deref()));
                }
                Line::Check(t) => t,
            };
            let from = t.from.map(Status::as_str);
            let text = match group {
                Group::NewlyFailing => {
                    let was = from
                        .map(|s| format!("was {s}"))
                        .unwrap_or_else(|| "first time judged".into());
                    format!(
                        "{} {} on {} ({was}){}",
                        t.to,
                        t.check,
                        t.device,
                        report.acknowledged_note(&t.check, &t.device)
                    )
                }
                Group::Changed => format!(
                    "{} on {}: now {}, was {}{}",
                    t.check,
                    t.device,
                    t.to,
                    from.unwrap_or("-"),
                    since(t, report, ctx)
                ),
                Group::Fixed => format!(
                    "{} on {}: now OK, was {}{}",
                    t.check,
                    t.device,
                    from.unwrap_or("failing"),
                    since(t, report, ctx)
                ),
                Group::StillFailing => format!(
                    "{} {} on {}{}{}",
                    t.to,
                    t.check,
                    t.device,
                    since(t, report, ctx),
                    report.acknowledged_note(&t.check, &t.device)
                ),
            };
            (group.label(), text)
        })
        .collect();
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
        let passed = report.deadline.as_ref().is_some_and(|d| d.passed);
        lines.push(if passed {
            format!("Deadline {deadline}: it had already passed when the run began")
        } else {
            format!("Deadline {deadline}")
        });
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

/// When nothing needs attention, the line that says so; `None` whenever something does (a
/// configuration error, a closed market, or a FAIL still standing in a rerun).
pub fn all_clear(report: &Report) -> Option<&'static str> {
    if report.closed.is_some() {
        return Some("The market is closed today: nothing was inspected.");
    }
    let clear = report.config_errors.is_empty()
        && report.shown_status() == Status::Ok
        && report.view().attention.is_empty();
    let acknowledged = !report.view().acknowledged.is_empty();
    clear.then_some(match (report.partial, acknowledged) {
        (_, true) => {
            "Nothing needs attention but the FAILs acknowledged below, known until their date."
        }
        (true, false) => "Nothing needs attention: every check, rechecked or standing, is OK.",
        (false, false) => "Nothing needs attention.",
    })
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
