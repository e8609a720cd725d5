//! "Changed since the previous run": the facts that define each box (software version, model,
//! serial, HA, links, PTP grandmaster, NTP servers, LANZ, interface count) that differ from the
//! previous run's, and which configurations changed (their diffs ride along as `DEVICE.diff`).
//! No verdict of its own: the `*.config.unchanged` checks and the others judge; this section
//! only says what moved. Self-contained: the email's renderers call [`text`] and [`html`] at
//! one place each, and `premarket diff` prints the same lines.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::Report;
use crate::escape::html as esc;

/// Fact name -> value, as the archive keeps a device's box facts.
pub type BoxFacts = BTreeMap<String, String>;

/// One fact that differs between two runs (`None`: not read in that run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactChange {
    pub device: String,
    pub fact: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl FactChange {
    /// `software version: 4.31.6M -> 4.32.2F`.
    pub fn line(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not read)".into());
        format!(
            "{}: {} -> {}",
            self.fact,
            side(&self.before),
            side(&self.after)
        )
    }
}

/// What differs between `before` (the reference) and `after` (what this run read) on `device`,
/// in fact name order. Only facts `after` read are compared: a fact a run did not read (a rerun
/// of one check, a command that failed) is no change. A fact the reference lacks is listed as
/// new only when the reference holds some facts at all (a first run lists nothing).
pub fn compare(device: &str, before: &BoxFacts, after: &BoxFacts) -> Vec<FactChange> {
    if before.is_empty() || after.is_empty() {
        return Vec::new();
    }
    after
        .keys()
        .filter(|n| before.get(*n) != after.get(*n))
        .map(|n| FactChange {
            device: device.to_string(),
            fact: n.clone(),
            before: before.get(n).cloned(),
            after: after.get(n).cloned(),
        })
        .collect()
}

/// The section's lines, per device: its changed facts, then its configuration diff's name.
fn lines(report: &Report) -> Vec<(String, Vec<String>)> {
    let mut by_device: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in &report.changed_facts {
        by_device.entry(&c.device).or_default().push(c.line());
    }
    for (device, diff) in &report.diffs {
        let changed = diff
            .lines()
            .filter(|l| {
                (l.starts_with('+') && !l.starts_with("+++"))
                    || (l.starts_with('-') && !l.starts_with("---"))
            })
            .count();
        let plural = if changed == 1 { "" } else { "s" };
        by_device.entry(device).or_default().push(format!(
            "configuration: {changed} line{plural} changed ({device}.diff attached)"
        ));
    }
    by_device
        .into_iter()
        .map(|(d, l)| (d.to_string(), l))
        .collect()
}

/// The plain-text section, or nothing when nothing changed.
pub fn text(report: &Report) -> String {
    let all = lines(report);
    if all.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n== Changed since the previous run ==\n");
    for (device, lines) in all {
        for line in lines {
            let _ = writeln!(out, "{device} {line}");
        }
    }
    out
}

/// The HTML section (phone-width: one paragraph per change), or nothing.
pub fn html(report: &Report, h2_style: &str) -> String {
    let all = lines(report);
    if all.is_empty() {
        return String::new();
    }
    let mut out = format!("<h2 style=\"{h2_style}\">Changed since the previous run</h2>");
    for (device, lines) in all {
        for line in lines {
            let _ = write!(
                out,
                "<p style=\"margin:4px 0;overflow-wrap:anywhere\"><b>{}</b> {}</p>",
                esc(&device),
                esc(&line)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_core::Status;

    fn facts(pairs: &[(&str, &str)]) -> BoxFacts {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn only_differences_are_listed() {
        let before = facts(&[("software version", "4.31.6M"), ("LANZ", "on")]);
        let after = facts(&[("software version", "4.32.2F"), ("PTP grandmaster", "x")]);
        let lines: Vec<String> = compare("sw1", &before, &after)
            .iter()
            .map(FactChange::line)
            .collect();
        // LANZ was not read: no change; the grandmaster is new.
        assert_eq!(
            lines,
            [
                "PTP grandmaster: (not read) -> x",
                "software version: 4.31.6M -> 4.32.2F"
            ]
        );
        assert!(compare("sw1", &before, &before).is_empty());
        assert!(compare("sw1", &before, &BoxFacts::new()).is_empty());
    }

    #[test]
    fn the_section_names_each_change_and_escapes_device_text() {
        let mut report = Report::new("r".into(), "s".into(), "a".into(), "b".into(), vec![]);
        assert_eq!(text(&report), "");
        report.changed_facts = compare(
            "sw<1>",
            &facts(&[("model", "A")]),
            &facts(&[("model", "B")]),
        );
        report.diffs = vec![("fw1".into(), "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n".into())];
        let t = text(&report);
        assert!(t.contains("sw<1> model: A -> B"), "{t}");
        assert!(
            t.contains("fw1 configuration: 2 lines changed (fw1.diff attached)"),
            "{t}"
        );
        let h = html(&report, "");
        assert!(h.contains("<b>sw&lt;1&gt;</b>"), "{h}");
        let _ = Status::Ok;
    }
}
