//! The JUnit XML channel (`--junit FILE`): the run as a CI pipeline reads test results. One
//! `<testsuite>` per device, one `<testcase classname=DEVICE name=CHECK>` per result, so every
//! testcase is unique by construction (a pair seen twice would be named `CHECK (2)`, never
//! merged: merged duplicates make a report that looks right and is wrong). FAIL is a
//! `<failure>` whose message is the headline and whose body holds expected, actual, evidence,
//! remedy and the rerun command; ERROR is an `<error>` with the same; SKIP is `<skipped>` with
//! the reason. A FAIL acknowledged until a date is `<skipped>` too (the run's exit code does not
//! count it, so neither does the pipeline), its message saying until when, by whom and why,
//! its body the FAIL. The run id, site, status and offline flag are each suite's properties. A
//! configuration that stopped the run is one suite, `configuration`, with an `<error>` per
//! mistake. The counts are those of the JSON report.
//!
//! Times: `<testsuites time>` is the run's wall time (its start to its end), a device's
//! `<testsuite time>` that device's own (its collection and its checks, the longest
//! `duration_ms` of its results: devices are inspected at once, so the suites overlap; the
//! site's suite, the run's time until its checks' verdicts, as they wait for the devices), and a
//! `<testcase time>` the check's own evaluation (`eval_us`; 0 where it has none), never the
//! device's collection counted again for each of its checks.
//!
//! Every text is device text or made from it: control characters are written out (`\x1b`) and
//! every known secret masked before it is escaped for XML; characters XML 1.0 cannot carry
//! are written out too.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::channel::{BoxFuture, Channel, Context, Delivered};
use super::redact::Redactor;
use super::{CheckResult, Report, escape};
use premarket_core::Status;

/// Writes the JUnit file.
pub struct Junit {
    pub path: PathBuf,
    pub redactor: Redactor,
}

impl Channel for Junit {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn deliver<'a>(
        &'a self,
        report: &'a mut Report,
        _ctx: &'a Context,
    ) -> BoxFuture<'a, Delivered> {
        Box::pin(async move {
            let xml = render(report, &self.redactor);
            Delivered::file(
                &self.path,
                xml.as_bytes(),
                "JUnit XML",
                "the JUnit XML was not written",
            )
        })
    }
}

/// One `<testcase>`.
struct Case {
    name: String,
    /// The check's own evaluation.
    seconds: f64,
    /// The device's time up to this verdict (its collection and this evaluation).
    device_seconds: f64,
    /// `(element, message, body)`; `None` for a passed test.
    outcome: Option<(&'static str, String, String)>,
}

/// The XML document.
pub fn render(report: &Report, redactor: &Redactor) -> String {
    let clean = |s: &str| redactor.literals(&escape::control(s));
    let mut suites: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for r in &report.results {
        let cases = suites.entry(clean(&r.device)).or_default();
        let name = unique(clean(&r.check), cases);
        cases.push(case(report, r, name, &clean));
    }
    if !report.config_errors.is_empty() {
        let cases = suites.entry("configuration".into()).or_default();
        for error in &report.config_errors {
            let name = unique(clean(error), cases);
            cases.push(Case {
                name,
                seconds: 0.0,
                device_seconds: 0.0,
                outcome: Some((
                    "error",
                    clean(error),
                    "the configuration did not load: nothing was inspected".into(),
                )),
            });
        }
    }
    let mut properties = vec![
        ("run_id", clean(&report.run_id)),
        ("site", clean(&report.site)),
        ("status", report.shown_status().to_string()),
        ("offline", report.offline.to_string()),
        ("partial", report.partial.to_string()),
        ("started_at", clean(&report.started_at)),
    ];
    if let Some(why) = &report.closed {
        properties.push(("closed", clean(why)));
    }
    let count = |cases: &[Case], what: &str| {
        cases
            .iter()
            .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == what))
            .count()
    };
    let all: Vec<&Case> = suites.values().flatten().collect();
    let total = |what: &str| {
        all.iter()
            .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == what))
            .count()
    };
    let wall = |from: &str, to: &str| {
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
        let (from, to) = (at(from)?, at(to)?);
        Some((to - from).num_microseconds()?.max(0) as f64 / 1e6)
    };
    // The run's wall time; where the report's times do not read, the longest device's.
    let seconds = wall(&report.started_at, &report.finished_at)
        .unwrap_or_else(|| all.iter().map(|c| c.device_seconds).fold(0.0, f64::max));
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
        attr(&format!("premarket {}", clean(&report.site))),
        all.len(),
        total("failure"),
        total("error"),
        total("skipped"),
    );
    for (device, cases) in &suites {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\" timestamp=\"{}\">",
            attr(device),
            cases.len(),
            count(cases, "failure"),
            count(cases, "error"),
            count(cases, "skipped"),
            cases.iter().map(|c| c.device_seconds).fold(0.0, f64::max),
            attr(&clean(&report.started_at)),
        );
        xml.push_str("    <properties>\n");
        for (name, value) in &properties {
            let _ = writeln!(
                xml,
                "      <property name=\"{name}\" value=\"{}\"/>",
                attr(value)
            );
        }
        xml.push_str("    </properties>\n");
        for c in cases {
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
                attr(device),
                attr(&c.name),
                c.seconds
            );
            match &c.outcome {
                None => {
                    let _ = writeln!(xml, "{open}/>");
                }
                Some(("skipped", message, body)) if body.is_empty() => {
                    let _ = writeln!(
                        xml,
                        "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>",
                        attr(message)
                    );
                }
                Some(("skipped", message, body)) => {
                    let _ = writeln!(
                        xml,
                        "{open}>\n      <skipped message=\"{}\">{}</skipped>\n    </testcase>",
                        attr(message),
                        text(body)
                    );
                }
                Some((element, message, body)) => {
                    let _ = writeln!(
                        xml,
                        "{open}>\n      <{element} message=\"{}\" type=\"{}\">{}</{element}>\n    </testcase>",
                        attr(message),
                        if *element == "failure" {
                            "FAIL"
                        } else {
                            "ERROR"
                        },
                        text(body)
                    );
                }
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn case(report: &Report, r: &CheckResult, name: String, clean: &dyn Fn(&str) -> String) -> Case {
    let seconds = r.eval_us as f64 / 1e6;
    let device_seconds = r.duration_ms as f64 / 1000.0;
    let body = || {
        let mut body = String::new();
        if let Some(note) = report.cause_note(r).or_else(|| report.mark(r)) {
            let _ = writeln!(body, "{note}");
        }
        for (label, value) in [("expected", &r.expected), ("actual", &r.actual)] {
            if !value.is_empty() {
                let _ = writeln!(body, "{label}: {}", clean(value));
            }
        }
        if !r.evidence.is_empty() {
            let _ = writeln!(body, "evidence:\n{}", clean(&r.evidence));
        }
        if !r.remedy.is_empty() {
            let _ = writeln!(body, "remedy: {}", clean(&r.remedy));
        }
        let _ = write!(body, "rerun: {}", clean(&r.rerun_command()));
        body
    };
    let outcome = match r.status {
        Status::Ok => None,
        // Known and acknowledged until a date: the pipeline does not fail on it, as the run's
        // exit code does not; the message says until when, by whom and why.
        Status::Fail if r.acknowledged.is_some() => Some((
            "skipped",
            clean(&acknowledged(r)),
            format!("FAIL: {}\n{}", clean(&r.headline()), body()),
        )),
        Status::Fail => Some(("failure", clean(&r.headline()), body())),
        Status::Error => Some(("error", clean(&r.headline()), body())),
        Status::Skip => Some(("skipped", clean(&r.summary), String::new())),
    };
    Case {
        name,
        seconds,
        device_seconds,
        outcome,
    }
}

/// `acknowledged until 2026-12-10 by alice (CHG123): optic on order`.
fn acknowledged(r: &CheckResult) -> String {
    let Some(a) = &r.acknowledged else {
        return String::new();
    };
    let by =
        a.by.as_deref()
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
    let ticket = a
        .ticket
        .as_deref()
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    format!("acknowledged until {}{by}{ticket}: {}", a.until, a.reason)
}

/// `name`, or `name (2)`, `name (3)` ... when a case of the suite already has it.
fn unique(name: String, cases: &[Case]) -> String {
    if !cases.iter().any(|c| c.name == name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|candidate| !cases.iter().any(|c| &c.name == candidate))
        .unwrap_or(name)
}

/// Text content: markup escaped, characters XML 1.0 cannot hold written out.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if is_xml_char(c) => out.push(c),
            c => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
        }
    }
    out
}

/// An attribute value (in double quotes): line breaks and tabs kept as character references.
fn attr(s: &str) -> String {
    text(s)
        .replace('"', "&quot;")
        .replace('\n', "&#10;")
        .replace('\t', "&#9;")
        .replace('\r', "&#13;")
}

/// XML 1.0's `Char`.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_take_the_run_s_wall_time_and_a_case_its_check_s_evaluation() {
        let mut results = Vec::new();
        for (check, device, duration_ms, eval_us) in [
            ("a", "sw1", 2000, 40),
            ("b", "sw1", 2001, 1500),
            ("c", "fw1", 900, 0),
        ] {
            let mut r = CheckResult::new(check, device, Status::Ok, "");
            r.duration_ms = duration_ms;
            r.eval_us = eval_us;
            results.push(r);
        }
        let report = Report::new(
            "r1".into(),
            "lab".into(),
            "2026-12-04T02:17:05.000+08:00".into(),
            "2026-12-04T02:17:07.070+08:00".into(),
            results,
        );
        let xml = render(&report, &Redactor::default());
        assert!(xml.contains("<testsuites name=\"premarket lab\" tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"2.070\">"), "{xml}");
        assert!(xml.contains("<testsuite name=\"sw1\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"2.001\""), "{xml}");
        assert!(xml.contains("name=\"a\" time=\"0.000040\""), "{xml}");
        assert!(xml.contains("name=\"b\" time=\"0.001500\""), "{xml}");
        assert!(xml.contains("name=\"c\" time=\"0.000000\""), "{xml}");
    }

    #[test]
    fn markup_and_control_characters_cannot_break_the_document() {
        assert_eq!(text("a<b>&c"), "a&lt;b&gt;&amp;c");
        assert_eq!(attr("say \"hi\"\nnow"), "say &quot;hi&quot;&#10;now");
        assert_eq!(text("\u{fffe}"), "\\u{fffe}");
        let mut r = CheckResult::new("eos.x.y", "sw1", Status::Fail, "bad ]]> \u{1b}[2J");
        r.evidence = "</failure><testcase name=\"forged\"/>".into();
        let report = Report::new(
            "r1".into(),
            "lab".into(),
            "t".into(),
            "t".into(),
            vec![r.clone(), r],
        );
        let xml = render(&report, &Redactor::default());
        assert!(!xml.contains('\u{1b}'), "{xml}");
        assert!(xml.contains("\\x1b[2J"), "{xml}");
        assert!(!xml.contains("<testcase name=\"forged\""), "{xml}");
        assert!(
            xml.contains("name=\"eos.x.y\"") && xml.contains("name=\"eos.x.y (2)\""),
            "{xml}"
        );
    }
}
