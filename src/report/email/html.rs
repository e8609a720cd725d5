//! The HTML body, built for a phone: one column, no tables, inline styles only (mail apps
//! drop `<style>`), evidence in `<pre>` that wraps instead of scrolling sideways, and the
//! status as a coloured word, never as colour alone. The first screen carries what on-call
//! needs at 08:40: the status and the top finding in the banner, then the first block's
//! finding, its remedy and the command to rerun it; evidence comes after.
//!
//! Text in backticks (commands in remedies) is set as code, and a command only ever breaks
//! between words, never inside `--device`.

pub use crate::escape::html as esc;
use std::fmt::Write;

use super::attach::Attachment;
use super::context::Context;
use super::digest;
use crate::ack::Listed;
use crate::blocks::Block;
use crate::reading::RECOVERED;
use crate::{CheckResult, DeviceDown, Report};
use premarket_core::Status;

const FONT: &str = "font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif";
const PRE: &str = "white-space:pre-wrap;word-wrap:break-word;overflow-wrap:anywhere;margin:4px 0 8px 0;padding:6px 8px;\
                   background:#f4f4f4;border-radius:4px;font-size:12px;line-height:1.35;font-family:Menlo,Consolas,monospace";
const CODE: &str = "font-family:Menlo,Consolas,monospace;font-size:13px;background:#f0f0f0;border-radius:3px;padding:0 3px";
const H2: &str = "font-size:16px;margin:16px 0 4px";
const SMALL: &str = "font-size:13px;color:#57606a";

fn colour(status: Status) -> &'static str {
    match status {
        Status::Ok => "#1a7f37",
        Status::Fail => "#cf222e",
        Status::Error => "#9a6700",
        Status::Skip => "#6e7781",
    }
}

pub fn render(report: &Report, ctx: &Context, images: &[&Attachment]) -> String {
    let subject = super::subject(report, ctx);
    let report = &report.readable(ctx.tz);
    let mut out = String::new();
    let status = report.shown_status();
    // Each picture once: a probe's chart in its probe's block, the trend beside the drift
    // line, the rest at the end.
    let mut pictures: Vec<&Attachment> = images
        .iter()
        .copied()
        .filter(|i| i.inline_id.is_some())
        .collect();
    let _ = write!(
        out,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title></head><body style=\"margin:0;padding:12px;{FONT};font-size:15px;line-height:1.4;color:#1f2328;max-width:640px\">",
        esc(&subject)
    );
    let top = report
        .top_finding()
        .map(|(what, more)| {
            if more > 0 {
                format!(" — {what} (+{more})")
            } else {
                format!(" — {what}")
            }
        })
        .unwrap_or_default();
    let banner = if report.recovered() {
        RECOVERED.to_string()
    } else {
        format!("{status}{top}")
    };
    let _ = write!(
        out,
        "<div style=\"background:{};color:#fff;padding:10px 12px;border-radius:6px\">\
         <div style=\"font-size:18px;font-weight:bold\">{}</div><div style=\"font-size:13px\">{}</div></div>",
        colour(status),
        esc(&banner),
        esc(&report.headline())
    );
    if let Some(d) = report.deadline.as_ref().filter(|d| d.passed) {
        let _ = write!(
            out,
            "<p style=\"margin:8px 0\"><b>Late:</b> the deadline {} had already passed when this run began.</p>",
            esc(ctx.deadline.as_deref().unwrap_or(&d.at))
        );
    }
    for p in &report.problems {
        let _ = write!(
            out,
            "<p style=\"margin:8px 0\"><b>Problem:</b> {}</p>",
            md(p)
        );
    }
    let rechecked = report.rechecked();
    if !rechecked.is_empty() {
        let _ = write!(
            out,
            "<p style=\"margin:8px 0\"><b>Rechecked now:</b> {}</p>",
            esc(&rechecked.join("; "))
        );
    }
    if !report.config_errors.is_empty() {
        let _ = write!(
            out,
            "<h2 style=\"{H2}\">Configuration errors ({})</h2><p style=\"margin:4px 0\">Nothing was inspected. Fix these, check with {}, then run again.</p>",
            report.config_errors.len(),
            code(&report.invocation.complete("premarket validate"))
        );
        for e in &report.config_errors {
            let _ = write!(out, "<pre style=\"{PRE}\">{}</pre>", esc(e));
        }
    }
    let view = report.view();
    match digest::all_clear(report) {
        Some(line) => {
            let _ = write!(out, "<p>{}</p>", esc(line));
        }
        None if !view.attention.is_empty() => {
            let _ = write!(
                out,
                "<h2 style=\"{H2}\">Needs attention ({})</h2>",
                view.attention.len()
            );
        }
        None => {}
    }
    for (i, block) in view.attention.iter().enumerate() {
        let c = colour(block.status());
        let _ = write!(
            out,
            "<div style=\"border-left:4px solid {c};padding:2px 0 2px 10px;margin:12px 0\">"
        );
        match block {
            Block::Result(r) => {
                result(&mut out, report, r, ctx);
                if r.check.starts_with("probe.") {
                    picture(&mut out, &mut pictures, &format!("chart-{}", r.device));
                }
            }
            Block::Device(d) => device(&mut out, report, d),
        }
        out.push_str("</div>");
        // What drifted is context for the first finding, not a finding of its own.
        if i == 0 {
            drift(&mut out, report, &mut pictures);
        }
    }
    if view.attention.is_empty() {
        drift(&mut out, report, &mut pictures);
    }
    acknowledged(&mut out, &view.acknowledged, ctx);
    if let Some(lines) = digest::change_lines(report, ctx) {
        let _ = write!(out, "<h2 style=\"{H2}\">Since the previous run</h2>");
        if lines.is_empty() {
            out.push_str("<p style=\"margin:4px 0\">No change.</p>");
        }
        for (kind, line) in lines {
            let _ = write!(
                out,
                "<p style=\"margin:4px 0\"><b>{}:</b> {}</p>",
                esc(kind),
                esc(&line)
            );
        }
    }
    out.push_str(&crate::changed::html(report, H2));
    if !view.fine.is_empty() {
        let _ = write!(out, "<h2 style=\"{H2}\">OK ({})</h2>", view.fine.len());
    }
    for r in view.fine {
        let what = if r.status == Status::Skip {
            &r.summary
        } else {
            &r.title
        };
        let rechecked = report.mark(r).filter(|_| r.judged_in.is_none());
        let mark: String = rechecked
            .into_iter()
            .chain(r.accepted_note())
            .map(|m| format!(" <i>[{}]</i>", esc(&m)))
            .collect();
        let _ = write!(
            out,
            "<p style=\"margin:4px 0\"><b style=\"color:{}\">{}</b> {} <span style=\"color:#57606a;overflow-wrap:anywhere\">({} on {})</span>{mark}</p>",
            colour(r.status),
            r.status,
            md(what),
            esc(&r.check),
            esc(&r.device)
        );
    }
    // The pictures that belong to no block (a probe that is OK, or one a hang left alone).
    for image in std::mem::take(&mut pictures) {
        img(&mut out, image);
    }
    let _ = write!(out, "<h2 style=\"{H2}\">Timing</h2>");
    for line in digest::timing(report, ctx) {
        let _ = write!(out, "<p style=\"margin:2px 0;{SMALL}\">{}</p>", esc(&line));
    }
    out.push_str("</body></html>\n");
    out
}

/// The drift line and, when there is one, the trend beside it.
fn drift(out: &mut String, report: &Report, pictures: &mut Vec<&Attachment>) {
    if let Some(drift) = &report.drift {
        let _ = write!(
            out,
            "<p style=\"margin:8px 0\"><b>Drift:</b> {}</p>",
            esc(drift)
        );
        picture(out, pictures, "trend");
    }
}

/// Shows the picture whose inline id is `id`, once.
fn picture(out: &mut String, pictures: &mut Vec<&Attachment>, id: &str) {
    if let Some(at) = pictures
        .iter()
        .position(|p| p.inline_id.as_deref() == Some(id))
    {
        img(out, pictures.remove(at));
    }
}

fn img(out: &mut String, image: &Attachment) {
    if let Some(id) = &image.inline_id {
        let _ = write!(
            out,
            "<p><img src=\"cid:{}\" alt=\"{}\" style=\"max-width:100%;height:auto\"></p>",
            esc(id),
            esc(&image.name)
        );
    }
}

fn result(out: &mut String, report: &Report, r: &CheckResult, ctx: &Context) {
    let c = colour(r.status);
    let lead = if r.lead.is_empty() {
        r.headline()
    } else {
        r.lead.clone()
    };
    let _ = write!(
        out,
        "<div><b style=\"color:{c}\">{}</b> <b>{}</b> {}</div><div style=\"{SMALL};overflow-wrap:anywhere\">{} on {}</div>",
        r.status,
        esc(&r.device),
        md(&lead),
        esc(&r.check),
        esc(&r.device)
    );
    if let Some(note) = report.restart_note(r, ctx.tz) {
        let _ = write!(out, "<p style=\"margin:6px 0\"><b>{}</b></p>", esc(&note));
    }
    for mark in report.mark(r).into_iter().chain(r.accepted_note()) {
        let _ = write!(out, "<div style=\"{SMALL}\"><i>{}</i></div>", esc(&mark));
    }
    if let Some(note) = report.cause_note(r) {
        let _ = write!(out, "<p style=\"margin:6px 0\"><b>{}</b></p>", md(&note));
    }
    if let Some(m) = digest::movement(report, r, ctx) {
        let _ = write!(
            out,
            "<p style=\"margin:6px 0;font-style:italic\">{}</p>",
            esc(&m)
        );
    }
    remedy(out, &report.remedy_for(r));
    rerun(out, &report.rerun_for(r));
    if !r.lead.is_empty() {
        field(out, "Detail", &r.summary);
    }
    field(out, "Expected", &r.expected);
    field(out, "Actual", &r.actual);
    let (evidence, note) = report.evidence_for(r);
    if let Some(note) = note {
        let _ = write!(
            out,
            "<div style=\"margin-top:6px;{SMALL}\">{}</div>",
            md(&note)
        );
    }
    pre(out, "Evidence", &evidence);
}

/// The FAILs acknowledged until a date: known, so grey, one block each with who and why.
fn acknowledged(out: &mut String, results: &[&CheckResult], ctx: &Context) {
    if results.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2 style=\"{H2}\">Acknowledged ({})</h2>",
        results.len()
    );
    for r in results {
        let Some(listed) = Listed::of(r, ctx.tz) else {
            continue;
        };
        let _ = write!(
            out,
            "<div style=\"border-left:4px solid {};padding:2px 0 2px 10px;margin:12px 0\">\
             <div><b>{}</b> <b>{}</b> {}</div><div style=\"{SMALL};overflow-wrap:anywhere\">{} on {}</div>\
             <div style=\"margin:4px 0\">{}</div>",
            colour(Status::Skip),
            esc(&listed.heading),
            esc(&r.device),
            md(&listed.what),
            esc(&r.check),
            esc(&r.device),
            esc(&listed.who)
        );
        if let Some(covers) = &listed.covers {
            field(out, "Covers", covers);
        }
        out.push_str("</div>");
    }
}

fn device(out: &mut String, report: &Report, d: &DeviceDown) {
    let c = colour(Status::Error);
    let _ = write!(
        out,
        "<div><b style=\"color:{c}\">ERROR</b> <b>{}</b> {}</div><div style=\"margin:4px 0\">{}</div>",
        esc(&d.device),
        esc(&d.cause),
        md(&d.what)
    );
    if let Some(mark) = report.device_mark(d) {
        let _ = write!(out, "<div style=\"{SMALL}\"><i>{}</i></div>", esc(&mark));
    }
    let _ = write!(
        out,
        "<div style=\"margin:2px 0\"><b>At:</b> {}</div>",
        d.command
            .as_deref()
            .map(code)
            .unwrap_or_else(|| "before the first command".to_string())
    );
    remedy(out, &report.device_remedy(d));
    rerun(out, &report.device_rerun(d));
    let _ = write!(
        out,
        "<div style=\"margin:6px 0;{SMALL};overflow-wrap:anywhere\"><b>Blocked ({}):</b> {}</div>",
        d.blocked.len(),
        esc(&d.blocked.join(", "))
    );
}

fn remedy(out: &mut String, remedy: &str) {
    if !remedy.trim().is_empty() {
        let _ = write!(
            out,
            "<div style=\"margin-top:6px\"><b>Remedy:</b> <span style=\"white-space:pre-wrap;overflow-wrap:anywhere\">{}</span></div>",
            md(remedy)
        );
    }
}

fn rerun(out: &mut String, command: &str) {
    let _ = write!(
        out,
        "<div style=\"margin-top:6px\"><b>Rerun after the fix:</b> {}</div>",
        code(command)
    );
}

fn field(out: &mut String, name: &str, value: &str) {
    if !value.trim().is_empty() {
        let _ = write!(
            out,
            "<div style=\"margin:2px 0;overflow-wrap:anywhere\"><b>{name}:</b> {}</div>",
            md(value)
        );
    }
}

fn pre(out: &mut String, name: &str, value: &str) {
    if !value.trim().is_empty() {
        let _ = write!(
            out,
            "<div style=\"margin-top:6px\"><b>{name}:</b></div><pre style=\"{PRE}\">{}</pre>",
            esc(value)
        );
    }
}

/// A command as code that breaks only between words.
fn code(command: &str) -> String {
    let words: Vec<String> = command
        .split(' ')
        .map(|w| format!("<span style=\"white-space:nowrap\">{}</span>", esc(w)))
        .collect();
    format!("<code style=\"{CODE}\">{}</code>", words.join(" "))
}

/// Escapes `text` and sets each `backticked` span as code; an unpaired backtick stays as is.
pub fn md(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() < 3 {
        return esc(text);
    }
    let paired = if parts.len() % 2 == 1 {
        parts.len()
    } else {
        parts.len() - 1
    };
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i >= paired {
            out.push('`');
            out.push_str(&esc(part));
        } else if i % 2 == 1 {
            out.push_str(&code(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_text_is_escaped() {
        assert_eq!(esc("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }

    #[test]
    fn backticks_become_code_that_breaks_only_between_words() {
        let html = md("run `premarket check x --device sw1` <now>");
        assert!(html.starts_with("run <code"), "{html}");
        assert!(
            html.contains("<span style=\"white-space:nowrap\">--device</span>"),
            "{html}"
        );
        assert!(html.ends_with(" &lt;now&gt;"), "{html}");
        assert!(!html.contains('`'), "{html}");
        assert_eq!(md("one ` tick"), "one ` tick");
        assert!(
            md("`a` and ` b").ends_with("and ` b"),
            "{}",
            md("`a` and ` b")
        );
    }
}
