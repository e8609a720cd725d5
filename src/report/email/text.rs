//! The plain-text body: short lines, no tables, indentation only for evidence, so it reads
//! the same in a phone's mail app and in `mutt` on a jump host.

use std::fmt::Write;

use super::digest;
use super::message::Context;
use crate::core::Status;
use crate::report::Report;

pub fn render(report: &Report, ctx: &Context) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "premarket {}", digest::headline(report));
    let attention = digest::attention(report);
    if attention.is_empty() {
        let _ = writeln!(out, "Nothing needs attention.");
    } else {
        let _ = writeln!(out, "\n== Needs attention ({}) ==", attention.len());
    }
    for r in &attention {
        let _ = writeln!(out, "\n{} {} on {}", r.status, r.check, r.device);
        let _ = writeln!(out, "{}", r.title);
        let _ = writeln!(out, "{}", r.summary);
        if let Some(m) = digest::movement(report, r, ctx) {
            let _ = writeln!(out, "{m}");
        }
        field(&mut out, "Expected", &r.expected);
        field(&mut out, "Actual", &r.actual);
        block(&mut out, "Evidence", &r.evidence);
        block(&mut out, "Remedy", &r.remedy);
        let _ = writeln!(out, "Rerun after the fix: {}", digest::rerun(r));
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
    let fine = digest::fine(report);
    if !fine.is_empty() {
        let _ = writeln!(out, "\n== OK ({}) ==", fine.len());
    }
    for r in fine {
        let what = if r.status == Status::Skip {
            &r.summary
        } else {
            &r.title
        };
        let _ = writeln!(out, "{} {} on {}: {}", r.status, r.check, r.device, what);
    }
    let _ = writeln!(out, "\n== Timing ==");
    for line in digest::timing(report, ctx) {
        let _ = writeln!(out, "{line}");
    }
    out
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
        let _ = writeln!(out, "  {line}");
    }
}
