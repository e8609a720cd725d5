//! The terminal report. What needs attention comes first, one block each, in reading order
//! (see [`super::order`]): each block's first line starts at column 0 with the verdict word,
//! the device and the check id (`FAIL sw1 eos.lanz.persisted — LANZ not saved: ...`), so
//! `grep '^FAIL'` finds every finding and nothing else does: every other line is indented or
//! starts with another word. Then the FAILs acknowledged until a date (`Acknowledged (until
//! 12-10, CHG123): ...`, with who and why), then what changed, then one line per check that is
//! fine. Colour only on a terminal and never with `NO_COLOR`.

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::ack::Listed;
use super::blocks::Block;
use super::history::{self, Group, Line, Transition};
use super::reading::RECOVERED;
use super::{CheckResult, DeviceDown, Report};
use premarket_core::Status;

/// Whether to colour: a terminal, and `NO_COLOR` unset or empty.
pub fn use_colour(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn render(report: &Report, tz: chrono_tz::Tz, colour: bool) -> String {
    let report = &report.readable(tz);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "premarket {}",
        paint(&report.headline(), report.shown_status(), colour)
    );
    if report.recovered() {
        let _ = writeln!(out, "{}", paint(RECOVERED, Status::Ok, colour));
    }
    let _ = writeln!(
        out,
        "run {}  {} .. {}",
        report.run_id, report.started_at, report.finished_at
    );
    if let Some(d) = report.deadline.as_ref().filter(|d| d.passed) {
        let _ = writeln!(
            out,
            "note: the deadline {} had already passed when this run began; it ran bounded by a short grace",
            d.at
        );
    }
    for p in &report.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    let rechecked = report.rechecked();
    if !rechecked.is_empty() {
        let _ = writeln!(out, "rechecked now: {}", rechecked.join("; "));
    }
    if !report.config_errors.is_empty() {
        let _ = writeln!(
            out,
            "\nconfiguration errors (fix them, then `{}`):",
            report.invocation.complete("premarket validate")
        );
        for e in &report.config_errors {
            let _ = writeln!(out, "  {e}");
        }
    }
    let view = report.view();
    for (i, block) in view.attention.iter().enumerate() {
        out.push('\n');
        match block {
            Block::Result(r) => result(&mut out, report, r, tz, colour),
            Block::Device(d) => device(&mut out, report, d, colour),
        }
        // What drifted is context for the first finding, not a finding of its own.
        if i == 0 {
            drift(&mut out, report);
        }
    }
    if view.attention.is_empty() {
        drift(&mut out, report);
    }
    for r in &view.acknowledged {
        acknowledged(&mut out, r, tz);
    }
    changes(&mut out, report, tz);
    if !view.fine.is_empty() {
        out.push('\n');
    }
    for r in view.fine {
        let what = if r.status == Status::Skip {
            &r.summary
        } else {
            &r.title
        };
        let mark = fine_mark(report, r);
        let _ = writeln!(
            out,
            "{:<5} {} {}  {what}{mark}",
            paint(r.status.as_str(), r.status, colour),
            r.device,
            r.check,
        );
    }
    out
}

fn drift(out: &mut String, report: &Report) {
    if let Some(drift) = &report.drift {
        let _ = writeln!(out, "\ndrift: {drift}");
    }
}

fn result(out: &mut String, report: &Report, r: &CheckResult, tz: chrono_tz::Tz, colour: bool) {
    let lead = if r.lead.is_empty() {
        r.headline()
    } else {
        r.lead.clone()
    };
    let _ = writeln!(
        out,
        "{} {} {} — {lead}",
        paint(r.status.as_str(), r.status, colour),
        r.device,
        r.check,
    );
    if let Some(note) = report.restart_note(r, tz) {
        let _ = writeln!(out, "  {note}");
    }
    for mark in report.mark(r).into_iter().chain(r.accepted_note()) {
        let _ = writeln!(out, "  ({mark})");
    }
    if let Some(note) = report.cause_note(r) {
        let _ = writeln!(out, "  {}", lower_first(&note));
    }
    block(out, "remedy", &report.remedy_for(r));
    let _ = writeln!(out, "  rerun: {}", report.rerun_for(r));
    if !r.lead.is_empty() {
        field(out, "detail", &r.summary);
    }
    field(out, "expected", &r.expected);
    field(out, "actual", &r.actual);
    let (evidence, note) = report.evidence_for(r);
    if let Some(note) = note {
        let _ = writeln!(out, "  {}", lower_first(&note));
    }
    block(out, "evidence", &evidence);
}

/// An acknowledged FAIL: known, so one line and who and why, and no FAIL at column 0.
fn acknowledged(out: &mut String, r: &CheckResult, tz: chrono_tz::Tz) {
    if let Some(listed) = Listed::of(r, tz) {
        out.push_str(&listed.plain(r, "  ", "covers"));
    }
}

fn device(out: &mut String, report: &Report, d: &DeviceDown, colour: bool) {
    let _ = writeln!(
        out,
        "{} {} (device) — {}: {}",
        paint("ERROR", Status::Error, colour),
        d.device,
        d.cause,
        d.what
    );
    if let Some(mark) = report.device_mark(d) {
        let _ = writeln!(out, "  ({mark})");
    }
    match &d.command {
        Some(c) => {
            let _ = writeln!(out, "  at: {c}");
        }
        None => {
            let _ = writeln!(out, "  at: before the first command");
        }
    }
    block(out, "remedy", &report.device_remedy(d));
    let _ = writeln!(out, "  rerun: {}", report.device_rerun(d));
    let _ = writeln!(
        out,
        "  blocked ({}): {}",
        d.blocked.len(),
        d.blocked.join(", ")
    );
}

/// What changed since the previous run of these checks (see [`super::history`]).
fn changes(out: &mut String, report: &Report, tz: chrono_tz::Tz) {
    let Some(changes) = report.changes.as_ref().filter(|c| !c.is_empty()) else {
        return;
    };
    let _ = writeln!(out, "\nsince the previous run:");
    let was = |t: &Transition| {
        t.from
            .map(|s| format!("was {s}"))
            .unwrap_or_else(|| "first time judged".into())
    };
    let when = |t: &Transition| {
        t.since.as_deref().map(|s| {
            chrono::DateTime::parse_from_rfc3339(s)
                .map(|t| t.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_else(|_| s.to_string())
        })
    };
    let since = |t: &Transition| {
        when(t)
            .map(|shown| format!(", failing since {shown}"))
            .unwrap_or_default()
    };
    for (group, line) in history::by_device(changes) {
        let t = match line {
            Line::Device(d) => {
                let since = d.earliest().and_then(when);
                let label = group.label().to_lowercase();
                let _ = writeln!(out, "  {label}: {}", d.words(since.as_deref()));
                continue;
            }
            Line::Check(t) => t,
        };
        let _ = match group {
            Group::NewlyFailing => writeln!(
                out,
                "  newly failing: {} {} on {} ({}){}",
                t.to,
                t.check,
                t.device,
                was(t),
                report.acknowledged_note(&t.check, &t.device)
            ),
            Group::Changed => writeln!(
                out,
                "  changed: {} on {} is {} ({}{})",
                t.check,
                t.device,
                t.to,
                was(t),
                since(t)
            ),
            Group::Fixed => writeln!(
                out,
                "  fixed: {} on {} ({}{})",
                t.check,
                t.device,
                was(t),
                since(t)
            ),
            Group::StillFailing => writeln!(
                out,
                "  still failing: {} {} on {}{}{}",
                t.to,
                t.check,
                t.device,
                since(t),
                report.acknowledged_note(&t.check, &t.device)
            ),
        };
    }
}

/// In the fine list only what a rerun rechecked is marked (the rest stands as it was), and a
/// result judged against an accepted reading says who accepted it.
fn fine_mark(report: &Report, r: &CheckResult) -> String {
    let rechecked = report.mark(r).filter(|_| r.judged_in.is_none());
    rechecked
        .into_iter()
        .chain(r.accepted_note())
        .map(|m| format!("  [{m}]"))
        .collect()
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
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
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "    {line}");
        }
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
