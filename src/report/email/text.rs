//! The plain-text body: short lines, no tables, indentation only for evidence, so it reads
//! the same in a phone's mail app and in `mutt` on a jump host. Blocks come in the report's
//! reading order, each naming its verdict, device and check id on its first line.

use std::fmt::Write;

use super::context::Context;
use super::digest;
use crate::blocks::Block;
use crate::{CheckResult, DeviceDown, Report};
use premarket_core::Status;

pub fn render(report: &Report, ctx: &Context) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "premarket {}", report.headline());
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
    if let Some(drift) = &report.drift {
        let _ = writeln!(out, "Drift: {drift}");
    }
    let rechecked = report.rechecked();
    if !rechecked.is_empty() {
        let _ = writeln!(out, "Rechecked now: {}", rechecked.join("; "));
    }
    if !report.config_errors.is_empty() {
        let _ = writeln!(
            out,
            "\n== Configuration errors ({}) ==\nNothing was inspected. Fix these, check with `premarket validate`, then run again:",
            report.config_errors.len()
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
    for block in &view.attention {
        out.push('\n');
        match block {
            Block::Result(r) => result(&mut out, report, r, ctx),
            Block::Device(d) => device(&mut out, report, d),
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
        let mark = report
            .mark(r)
            .map(|m| format!(" [{m}]"))
            .unwrap_or_default();
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

fn result(out: &mut String, report: &Report, r: &CheckResult, ctx: &Context) {
    let _ = writeln!(
        out,
        "{} {} {} — {}",
        r.status,
        r.device,
        r.check,
        r.headline()
    );
    if let Some(mark) = report.mark(r) {
        let _ = writeln!(out, "({mark})");
    }
    if let Some(note) = report.cause_note(r) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(m) = digest::movement(report, r, ctx) {
        let _ = writeln!(out, "{m}");
    }
    block(out, "Remedy", &r.remedy);
    let _ = writeln!(out, "Rerun after the fix: {}", r.rerun_command());
    field(out, "Expected", &r.expected);
    field(out, "Actual", &r.actual);
    block(out, "Evidence", &r.evidence);
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
    block(out, "Remedy", &d.remedy);
    let _ = writeln!(
        out,
        "Blocked ({}): {}",
        d.blocked.len(),
        d.blocked.join(", ")
    );
    let _ = writeln!(out, "Rerun after the fix: {}", d.rerun_command());
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
