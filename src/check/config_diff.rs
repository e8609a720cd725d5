//! What changed in a device's configuration since the previous run: the judgement shared by
//! `eos.config.unchanged` and `fortigate.config.unchanged`.
//!
//! Both compare the normalised configuration ([`ConfigLines`]: volatile headers dropped,
//! secrets kept as "set, N chars") with the one the archive kept from the previous run, less
//! the lines the baseline expects to change (`config_ignore:`, regexes). The diff is
//! [`crate::line_diff`] over lines, with a deadline so that no pair of configurations can
//! hold the run ([`DIFF_DEADLINE`]; past it the diff is still correct, only less minimal).
//! The finding shows the first [`EVIDENCE_LINES`] lines of the unified diff; the whole of it
//! rides along as the verdict's attachment (`DEVICE.diff` in the email and the archive).

use std::fmt;

use regex::Regex;
use serde::{Deserialize, Deserializer};

use premarket_core::Verdict;
use premarket_parse::Recorded;
use premarket_platform::config_lines::ConfigLines;

pub use crate::line_diff::{DIFF_DEADLINE, Diff, diff, lines};

/// Lines of the unified diff shown in the finding.
pub const EVIDENCE_LINES: usize = 40;

/// `expect:` keys read by both configuration checks.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    /// Lines expected to change between runs (a counter the platform writes into its
    /// configuration, a description a script rewrites): regexes, each matched against every
    /// line of both configurations, which are compared without the lines they match.
    #[serde(default)]
    pub config_ignore: Vec<Ignore>,
}

/// One `config_ignore:` regex, compiled when the baseline is read (a bad one is a
/// configuration error at its own `file:line:column`).
pub struct Ignore(Regex);

impl<'de> Deserialize<'de> for Ignore {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pattern = String::deserialize(deserializer)?;
        Regex::new(&pattern).map(Ignore).map_err(|e| {
            serde::de::Error::custom(format!(
                "`config_ignore` entry `{pattern}` is not a regex: {}",
                e.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ))
        })
    }
}

/// Written as text: the regex.
impl schemars::JsonSchema for Ignore {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Regex".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "description": "a regex (Rust `regex` syntax)" })
    }
}

impl fmt::Debug for Ignore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// `lines` without those `ignore` matches.
fn kept<'a>(lines: &'a [String], ignore: &[Ignore]) -> Vec<&'a str> {
    lines
        .iter()
        .map(String::as_str)
        .filter(|l| !ignore.iter().any(|i| i.0.is_match(l)))
        .collect()
}

/// What a configuration is called in a diff's header: the device, the configuration (`what`:
/// `running-config`) and the run, `sw1 running-config, run of 12-04 02:17:05`.
pub struct Named<'a> {
    pub device: Option<&'a str>,
    pub what: &'a str,
}

impl Named<'_> {
    /// One side of the diff: `sw1 running-config, run of 12-04 02:17:05` or `..., this run`.
    pub fn side(&self, run: &str) -> String {
        match self.device {
            Some(device) => format!("{device} {}, {run}", self.what),
            None => format!("{}, {run}", self.what),
        }
    }
}

/// `run of 12-04 02:17:05` from a run id (`20261204T021705.123`, the site's local time), with
/// the year when `with_year`; `run <id>` for an id that is not a time.
pub fn run_of(run_id: &str, with_year: bool) -> String {
    let format = if with_year {
        "%Y-%m-%d %H:%M:%S"
    } else {
        "%m-%d %H:%M:%S"
    };
    match run_id
        .get(..15)
        .and_then(|t| chrono::NaiveDateTime::parse_from_str(t, "%Y%m%dT%H%M%S").ok())
    {
        Some(at) => format!("run of {}", at.format(format)),
        None => format!("run {run_id}"),
    }
}

/// The verdict on `current` given the previous run's record of it (`None` on the first run).
pub fn judge(
    current: &ConfigLines,
    previous: Option<(Result<ConfigLines, serde_json::Error>, &Recorded)>,
    ignore: &[Ignore],
    named: &Named<'_>,
) -> Verdict {
    let now = kept(&current.lines, ignore);
    let Some((before, record)) = previous else {
        return Verdict::ok(format!(
            "first run on this device: its configuration ({}) is recorded; the next run compares with it",
            lines(now.len())
        ))
        .actual(lines(now.len()));
    };
    let when = run_time(&record.run_id);
    let before = match before {
        Ok(before) => before,
        Err(why) => {
            return Verdict::ok(format!(
                "the previous run's configuration ({}) cannot be read back ({why}); this run's ({}) is recorded instead",
                record.run_id,
                lines(now.len())
            ));
        }
    };
    let then = kept(&before.lines, ignore);
    let expected = format!(
        "the configuration of the previous run ({}), {}",
        record.run_id,
        lines(then.len())
    );
    let old_name = named.side(&run_of(&record.run_id, false));
    match diff(&then, &now, &old_name, &named.side("this run")) {
        None => Verdict::ok(format!(
            "unchanged since the previous run ({when}): {}",
            lines(now.len())
        ))
        .expected(expected)
        .actual(format!("{}, the same", lines(now.len()))),
        Some(d) => {
            let head: Vec<&str> = d.unified.lines().take(EVIDENCE_LINES).collect();
            let more = d.unified.lines().count().saturating_sub(EVIDENCE_LINES);
            let mut evidence = head.join("\n");
            if more > 0 {
                evidence.push_str(&format!(
                    "\n... {more} more diff lines in the attached diff"
                ));
            }
            Verdict::fail(format!(
                "configuration changed since the previous run ({when}): {}",
                lines(d.changed())
            ))
            .expected(expected)
            .actual(d.describe())
            .evidence(evidence)
            .about(d.changed_lines())
            .attachment(d.unified)
        }
    }
}

/// `08:31` from a run id (`20261202T083102.123`, in the site's time zone), else the run id.
fn run_time(run_id: &str) -> String {
    match (run_id.get(9..11), run_id.get(11..13), run_id.get(8..9)) {
        (Some(h), Some(m), Some("T")) if h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) => {
            format!("{h}:{m}")
        }
        _ => run_id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_core::Status;
    use premarket_parse::QueryKey;

    fn config(lines: &[&str]) -> ConfigLines {
        ConfigLines {
            lines: lines.iter().map(|l| l.to_string()).collect(),
        }
    }

    fn record() -> Recorded {
        Recorded {
            key: QueryKey {
                command: premarket_core::Command::new("show"),
                kind: "fortigate.show".into(),
            },
            run_id: "20261202T083102.120".into(),
            collected_at: None,
            fact: premarket_parse::FactJson::default(),
            masked: false,
        }
    }

    const FW1: Named<'static> = Named {
        device: Some("fw1"),
        what: "configuration",
    };

    const BEFORE: &[&str] = &[
        "config firewall policy",
        "    edit 1",
        "        set srcaddr \"feed-A\"",
        "    next",
        "end",
    ];

    #[test]
    fn first_run_records_equal_is_ok_a_change_fails_with_the_diff() {
        let r = record();
        let first = judge(&config(BEFORE), None, &[], &FW1);
        assert_eq!(first.status, Status::Ok);
        assert!(first.summary.contains("first run"), "{}", first.summary);

        let same = judge(&config(BEFORE), Some((Ok(config(BEFORE)), &r)), &[], &FW1);
        assert_eq!(same.status, Status::Ok, "{}", same.summary);
        assert!(same.summary.contains("(08:31)"), "{}", same.summary);

        let mut after = BEFORE.to_vec();
        after[2] = "        set srcaddr \"feed-B\"";
        let changed = judge(&config(&after), Some((Ok(config(BEFORE)), &r)), &[], &FW1);
        assert_eq!(changed.status, Status::Fail);
        assert_eq!(
            changed.summary,
            "configuration changed since the previous run (08:31): 2 lines"
        );
        assert_eq!(
            changed.subjects,
            ["- set srcaddr \"feed-A\"", "+ set srcaddr \"feed-B\""]
        );
        let lines: Vec<&str> = changed.evidence.lines().collect();
        assert!(
            lines.contains(&"-        set srcaddr \"feed-A\""),
            "{lines:?}"
        );
        assert!(
            lines.contains(&"+        set srcaddr \"feed-B\""),
            "{lines:?}"
        );
        // The header names the device, the configuration and the runs.
        assert_eq!(
            lines[..2],
            [
                "--- fw1 configuration, run of 12-02 08:31:02",
                "+++ fw1 configuration, this run"
            ]
        );
        assert_eq!(
            run_of("20261202T083102.120", true),
            "run of 2026-12-02 08:31:02"
        );
        assert_eq!(run_of("not-a-run", false), "run not-a-run");
        assert_eq!(
            changed.attachment.as_deref().map(str::trim_end),
            Some(changed.evidence.as_str())
        );
    }

    #[test]
    fn ignored_lines_are_not_compared() {
        let r = record();
        let mut after = BEFORE.to_vec();
        after[2] = "        set srcaddr \"feed-B\"";
        let ignore: Input =
            serde_saphyr::from_str("config_ignore: ['set srcaddr']").expect("input");
        let v = judge(
            &config(&after),
            Some((Ok(config(BEFORE)), &r)),
            &ignore.config_ignore,
            &FW1,
        );
        assert_eq!(v.status, Status::Ok, "{}", v.summary);
    }

    #[test]
    fn a_long_diff_shows_its_head_and_attaches_the_rest() {
        let r = record();
        let before: Vec<String> = (0..200).map(|i| format!("line {i}")).collect();
        let after: Vec<String> = (0..200).map(|i| format!("line {}", i * 7)).collect();
        let to = |v: &Vec<String>| ConfigLines { lines: v.clone() };
        let v = judge(&to(&after), Some((Ok(to(&before)), &r)), &[], &FW1);
        assert_eq!(v.status, Status::Fail);
        assert_eq!(v.evidence.lines().count(), EVIDENCE_LINES + 1);
        assert!(v.evidence.ends_with("more diff lines in the attached diff"));
        assert!(v.attachment.unwrap().lines().count() > EVIDENCE_LINES);
    }

    #[test]
    fn a_bad_regex_is_refused() {
        let bad = serde_saphyr::from_str::<Input>("config_ignore: ['(unclosed']");
        assert!(bad.is_err());
    }
}
