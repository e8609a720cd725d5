//! The terminal report: what needs attention first (FAIL, ERROR, with details), then one line
//! per check that is fine. Colour only on a terminal and never with `NO_COLOR`.

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::{CheckResult, Report};
use crate::core::Status;

/// Whether to colour: a terminal, and `NO_COLOR` unset or empty.
pub fn use_colour(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn render(report: &Report, colour: bool) -> String {
    let mut out = String::new();
    let c = report.counts;
    let headline = format!(
        "premarket {} {}: {} OK, {} FAIL, {} ERROR, {} SKIP",
        report.site, report.status, c.ok, c.fail, c.error, c.skip
    );
    let _ = writeln!(out, "{}", paint(&headline, report.status, colour));
    let _ = writeln!(
        out,
        "run {}  {} .. {}",
        report.run_id, report.started_at, report.finished_at
    );

    let attention: Vec<&CheckResult> =
        ordered(report, |s| matches!(s, Status::Fail | Status::Error));
    for r in &attention {
        out.push('\n');
        let _ = writeln!(
            out,
            "{} {} {}  {}",
            paint(r.status.as_str(), r.status, colour),
            r.device,
            r.check,
            r.title
        );
        let _ = writeln!(out, "  {}", r.summary);
        field(&mut out, "expected", &r.expected);
        field(&mut out, "actual", &r.actual);
        block(&mut out, "evidence", &r.evidence);
        block(&mut out, "remedy", &r.remedy);
    }
    changes(&mut out, report);
    let fine: Vec<&CheckResult> = ordered(report, |s| matches!(s, Status::Ok | Status::Skip));
    if !fine.is_empty() {
        out.push('\n');
    }
    for r in fine {
        let _ = writeln!(
            out,
            "{:<5} {} {}  {}",
            paint(r.status.as_str(), r.status, colour),
            r.device,
            r.check,
            if r.status == Status::Skip {
                &r.summary
            } else {
                &r.title
            }
        );
    }
    out
}

/// What changed since the previous run of these checks (see [`super::history`]).
fn changes(out: &mut String, report: &Report) {
    let Some(changes) = report.changes.as_ref().filter(|c| !c.is_empty()) else {
        return;
    };
    let _ = writeln!(out, "\nsince the previous run:");
    let was = |t: &super::history::Transition| {
        t.from
            .map(|s| format!("was {s}"))
            .unwrap_or_else(|| "first run".into())
    };
    let since = |t: &super::history::Transition| {
        t.since
            .as_deref()
            .map(|s| {
                // The archived time is RFC 3339 in the site's zone; minutes are enough here.
                let shown = chrono::DateTime::parse_from_rfc3339(s)
                    .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                    .unwrap_or_else(|_| s.to_string());
                format!(", failing since {shown}")
            })
            .unwrap_or_default()
    };
    for t in &changes.newly_failing {
        let _ = writeln!(
            out,
            "  newly failing: {} {} on {} ({})",
            t.to,
            t.check,
            t.device,
            was(t)
        );
    }
    for t in &changes.fixed {
        let _ = writeln!(
            out,
            "  fixed: {} on {} ({}{})",
            t.check,
            t.device,
            was(t),
            since(t)
        );
    }
    for t in &changes.still_failing {
        let _ = writeln!(
            out,
            "  still failing: {} {} on {}{}",
            t.to,
            t.check,
            t.device,
            since(t)
        );
    }
}

fn ordered(report: &Report, keep: impl Fn(Status) -> bool) -> Vec<&CheckResult> {
    let mut rows: Vec<&CheckResult> = report.results.iter().filter(|r| keep(r.status)).collect();
    rows.sort_by(|a, b| (a.status, &a.device, &a.check).cmp(&(b.status, &b.device, &b.check)));
    rows
}

fn field(out: &mut String, name: &str, value: &str) {
    if !value.is_empty() {
        let _ = writeln!(out, "  {name}: {value}");
    }
}

fn block(out: &mut String, name: &str, value: &str) {
    if value.trim().is_empty() {
        return;
    }
    let _ = writeln!(out, "  {name}:");
    for line in value.lines() {
        let _ = writeln!(out, "    {line}");
    }
}

fn paint(text: &str, status: Status, colour: bool) -> String {
    if !colour {
        return text.to_string();
    }
    match status {
        Status::Ok => text.green().to_string(),
        Status::Fail => text.red().bold().to_string(),
        Status::Error => text.yellow().bold().to_string(),
        Status::Skip => text.dimmed().to_string(),
    }
}
