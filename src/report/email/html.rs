//! The HTML body, built for a phone: one column, no tables, inline styles only (mail apps
//! drop `<style>`), evidence in `<pre>` that wraps instead of scrolling sideways, and the
//! status as a coloured word, never as colour alone.

use std::fmt::Write;

use super::digest;
use super::message::{Attachment, Context};
use crate::core::Status;
use crate::report::Report;

const FONT: &str = "font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif";
const PRE: &str = "white-space:pre-wrap;word-wrap:break-word;overflow-wrap:anywhere;margin:4px 0 8px 0;padding:6px 8px;\
                   background:#f4f4f4;border-radius:4px;font-size:12px;line-height:1.35;font-family:Menlo,Consolas,monospace";

fn colour(status: Status) -> &'static str {
    match status {
        Status::Ok => "#1a7f37",
        Status::Fail => "#cf222e",
        Status::Error => "#9a6700",
        Status::Skip => "#6e7781",
    }
}

pub fn render(report: &Report, ctx: &Context, images: &[&Attachment]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title></head><body style=\"margin:0;padding:12px;{FONT};font-size:15px;line-height:1.4;color:#1f2328;max-width:640px\">",
        esc(&super::subject(report, ctx))
    );
    let _ = write!(
        out,
        "<div style=\"background:{};color:#fff;padding:10px 12px;border-radius:6px;font-size:18px;font-weight:bold\">{}</div>",
        colour(report.status),
        esc(&digest::headline(report))
    );
    let attention = digest::attention(report);
    if attention.is_empty() {
        out.push_str("<p>Nothing needs attention.</p>");
    } else {
        let _ = write!(
            out,
            "<h2 style=\"font-size:16px;margin:16px 0 4px\">Needs attention ({})</h2>",
            attention.len()
        );
    }
    for r in &attention {
        let c = colour(r.status);
        let _ = write!(
            out,
            "<div style=\"border-left:4px solid {c};padding:2px 0 2px 10px;margin:12px 0\">"
        );
        let _ = write!(
            out,
            "<div><b style=\"color:{c}\">{}</b> <b>{}</b> on <b>{}</b></div><div style=\"font-size:13px;color:#57606a;word-break:break-all\">{}</div>",
            r.status,
            esc(&r.title),
            esc(&r.device),
            esc(&r.check)
        );
        let _ = write!(out, "<p style=\"margin:6px 0\">{}</p>", esc(&r.summary));
        if let Some(m) = digest::movement(report, r, ctx) {
            let _ = write!(
                out,
                "<p style=\"margin:6px 0;font-style:italic\">{}</p>",
                esc(&m)
            );
        }
        field(&mut out, "Expected", &r.expected);
        field(&mut out, "Actual", &r.actual);
        pre(&mut out, "Evidence", &r.evidence);
        if !r.remedy.trim().is_empty() {
            let _ = write!(
                out,
                "<div style=\"margin-top:6px\"><b>Remedy:</b></div><div style=\"white-space:pre-wrap;overflow-wrap:anywhere\">{}</div>",
                esc(&r.remedy)
            );
        }
        pre(&mut out, "Rerun after the fix", &digest::rerun(r));
        out.push_str("</div>");
    }
    for image in images {
        if let Some(id) = &image.inline_id {
            let _ = write!(
                out,
                "<p><img src=\"cid:{}\" alt=\"{}\" style=\"max-width:100%;height:auto\"></p>",
                esc(id),
                esc(&image.name)
            );
        }
    }
    if let Some(lines) = digest::change_lines(report, ctx) {
        out.push_str("<h2 style=\"font-size:16px;margin:16px 0 4px\">Since the previous run</h2>");
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
    let fine = digest::fine(report);
    if !fine.is_empty() {
        let _ = write!(
            out,
            "<h2 style=\"font-size:16px;margin:16px 0 4px\">OK ({})</h2>",
            fine.len()
        );
    }
    for r in fine {
        let what = if r.status == Status::Skip {
            &r.summary
        } else {
            &r.title
        };
        let _ = write!(
            out,
            "<p style=\"margin:4px 0\"><b style=\"color:{}\">{}</b> {} <span style=\"color:#57606a\">({} on {})</span></p>",
            colour(r.status),
            r.status,
            esc(what),
            esc(&r.check),
            esc(&r.device)
        );
    }
    out.push_str("<h2 style=\"font-size:16px;margin:16px 0 4px\">Timing</h2>");
    for line in digest::timing(report, ctx) {
        let _ = write!(
            out,
            "<p style=\"margin:2px 0;font-size:13px;color:#57606a\">{}</p>",
            esc(&line)
        );
    }
    out.push_str("</body></html>\n");
    out
}

fn field(out: &mut String, name: &str, value: &str) {
    if !value.trim().is_empty() {
        let _ = write!(
            out,
            "<div style=\"margin:2px 0\"><b>{name}:</b> {}</div>",
            esc(value)
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

/// HTML-escapes device text and configuration words.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn device_text_is_escaped() {
        assert_eq!(super::esc("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }
}
