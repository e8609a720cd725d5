//! The plain-text body: short lines, no tables, indentation only for evidence, so it reads
//! the same in a phone's mail app and in `mutt` on a jump host. Blocks come in the report's
//! reading order, each naming its verdict, device and check id on its first line.

use std::fmt::Write;

use super::context::Context;
use super::digest;
use crate::ack::Listed;
use crate::blocks::Block;
use crate::reading::RECOVERED;
use crate::{CheckResult, DeviceDown, Report};
use premarket_core::Status;

pub fn render(report: &Report, ctx: &Context) -> String {
    let report = &report.readable(ctx.tz);
    let mut out = String::new();
    let _ = writeln!(out, "premarket {}", report.headline());
    if report.recovered() {
        let _ = writeln!(out, "{RECOVERED}");
    }
    if let Some(d) = report.deadline.as_ref().filter(|d| d.passed) {
        let _ = writeln!(
            out,
            "The deadline {} had already passed when this run began.",
            ctx.deadline.as_deref().unwrap_or(&d.at)
        );
    }
    for p in &report.problems {
        let _ = writeln!(out, "Problem: {p}");
    }
    let rechecked = report.rechecked();
    if !rechecked.is_empty() {
        let _ = writeln!(out, "Rechecked now: {}", rechecked.join("; "));
    }
    if !report.config_errors.is_empty() {
        let _ = writeln!(
            out,
            "\n== Configuration errors ({}) ==\nNothing was inspected. Fix these, check with `{}`, then run again:",
            report.config_errors.len(),
            report.invocation.complete("premarket validate")
        );
        for e in &report.config_errors {
            let _ = writeln!(out, "- {e}");
        }
    }
    let view = report.view();
    match digest::all_clear(report) {
        Some(line) => {
            let _ = writeln!(out, "{line}");
        }
        None if !view.attention.is_empty() => {
            let _ = writeln!(out, "\n== Needs attention ({}) ==", view.attention.len());
        }
        None => {}
    }
    for (i, block) in view.attention.iter().enumerate() {
        out.push('\n');
        match block {
            Block::Result(r) => result(&mut out, report, r, ctx),
            Block::Device(d) => device(&mut out, report, d),
        }
        // What drifted is context for the first finding, not a finding of its own.
        if i == 0 {
            drift(&mut out, report);
        }
    }
    if view.attention.is_empty() {
        drift(&mut out, report);
    }
    if !view.acknowledged.is_empty() {
        let _ = writeln!(out, "\n== Acknowledged ({}) ==", view.acknowledged.len());
    }
    for r in &view.acknowledged {
        if let Some(listed) = Listed::of(r, ctx.tz) {
            out.push_str(&listed.plain(r, "", "Covers"));
        }
    }
    if let Some(lines) = digest::change_lines(report, ctx) {
        let _ = writeln!(out, "\n== Since the previous run ==");
        if lines.is_empty() {
            let _ = writeln!(out, "No change.");
        }
        for (kind, line) in lines {
            let _ = writeln!(out, "{kind}: {line}");
        }
    }
    out.push_str(&crate::changed::text(report));
    if !view.fine.is_empty() {
        let _ = writeln!(out, "\n== OK ({}) ==", view.fine.len());
    }
    for r in view.fine {
        let what = if r.status == Status::Skip {
            &r.summary
        } else {
            &r.title
        };
        let mark: String = report
            .mark(r)
            .into_iter()
            .chain(r.accepted_note())
            .map(|m| format!(" [{m}]"))
            .collect();
        let _ = writeln!(
            out,
            "{} {} on {}: {what}{mark}",
            r.status, r.check, r.device
        );
    }
    let _ = writeln!(out, "\n== Timing ==");
    for line in digest::timing(report, ctx) {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn drift(out: &mut String, report: &Report) {
    if let Some(drift) = &report.drift {
        let _ = writeln!(out, "\nDrift: {drift}");
    }
}

fn result(out: &mut String, report: &Report, r: &CheckResult, ctx: &Context) {
    let lead = if r.lead.is_empty() {
        r.headline()
    } else {
        r.lead.clone()
    };
    let _ = writeln!(out, "{} {} {} — {lead}", r.status, r.device, r.check);
    if let Some(note) = report.restart_note(r, ctx.tz) {
        let _ = writeln!(out, "{note}");
    }
    for mark in report.mark(r).into_iter().chain(r.accepted_note()) {
        let _ = writeln!(out, "({mark})");
    }
    if let Some(note) = report.cause_note(r) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(m) = digest::movement(report, r, ctx) {
        let _ = writeln!(out, "{m}");
    }
    block(out, "Remedy", &report.remedy_for(r));
    let _ = writeln!(out, "Rerun after the fix: {}", report.rerun_for(r));
    if !r.lead.is_empty() {
        field(out, "Detail", &r.summary);
    }
    field(out, "Expected", &r.expected);
    field(out, "Actual", &r.actual);
    let (evidence, note) = report.evidence_for(r);
    if let Some(note) = note {
        let _ = writeln!(out, "{note}");
    }
    block(out, "Evidence", &evidence);
}

fn device(out: &mut String, report: &Report, d: &DeviceDown) {
    let _ = writeln!(out, "ERROR {} (device) — {}: {}", d.device, d.cause, d.what);
    if let Some(mark) = report.device_mark(d) {
        let _ = writeln!(out, "({mark})");
    }
    let _ = writeln!(
        out,
        "At: {}",
        d.command.as_deref().unwrap_or("before the first command")
    );
    block(out, "Remedy", &report.device_remedy(d));
    let _ = writeln!(out, "Rerun after the fix: {}", report.device_rerun(d));
    let _ = writeln!(
        out,
        "Blocked ({}): {}",
        d.blocked.len(),
        d.blocked.join(", ")
    );
}

fn field(out: &mut String, name: &str, value: &str) {
    if !value.trim().is_empty() {
        let _ = writeln!(out, "{name}: {value}");
    }
}

fn block(out: &mut String, name: &str, value: &str) {
    if value.trim().is_empty() {
        return;
    }
    let _ = writeln!(out, "{name}:");
    for line in value.lines() {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
}
