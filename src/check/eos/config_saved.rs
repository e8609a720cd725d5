use std::fmt::Write;

use crate::Check;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{Change, ShowRunningConfigDiffs};

/// running-config is saved: `show running-config diffs` is empty. Hunks that change only `!`
/// comment lines (the `! device:` header after an upgrade) are cosmetic and do not fail.
///
/// ```yaml
/// - id: eos.config.saved
///   platform: eos
/// ```
/// Baseline: nothing.
pub struct ConfigSaved;

/// `expect:` keys read: none.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {}

impl Check for ConfigSaved {
    const ID: &'static str = "eos.config.saved";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowRunningConfigDiffs)]
    }

    fn evaluate(_: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let diffs = facts.get(&ShowRunningConfigDiffs)?;
        if diffs.empty {
            return Ok(Verdict::ok("running-config is saved")
                .expected("no unsaved changes")
                .actual("none"));
        }
        // A `!` line is a comment or a block separator: it never changes behaviour, whether its
        // hunk is all comments (the `! device:` header after an upgrade) or beside real lines.
        let (cosmetic, real): (Vec<&Change>, Vec<&Change>) = diffs
            .hunks
            .iter()
            .flat_map(|h| &h.changes)
            .partition(|c| c.is_comment());
        if real.is_empty() {
            return Ok(Verdict::ok(format!(
                "running-config is saved; {} comment line(s) differ (cosmetic)",
                cosmetic.len()
            ))
            .expected("no unsaved changes")
            .actual("only `!` comment lines differ")
            .evidence(grouped(&cosmetic)));
        }
        let mut evidence = grouped(&real);
        if !cosmetic.is_empty() {
            let _ = write!(
                evidence,
                "\ncosmetic (comment lines only, ignored):\n{}",
                grouped(&cosmetic)
            );
        }
        Ok(Verdict::fail(format!(
            "running-config has unsaved changes ({} added, {} removed line(s)): they are lost at the next reload",
            real.iter().filter(|c| c.added).count(),
            real.iter().filter(|c| !c.added).count()
        ))
        .expected("no unsaved changes")
        .actual(format!("{} changed line(s) in {} section(s)", real.len(), sections(&real).len()))
        .evidence(evidence))
    }
}

fn sections<'a>(changes: &[&'a Change]) -> Vec<Option<&'a str>> {
    let mut out: Vec<Option<&str>> = Vec::new();
    for c in changes {
        if !out.contains(&c.section.as_deref()) {
            out.push(c.section.as_deref());
        }
    }
    out
}

/// Changed lines under their section headings, sections in order of first appearance.
fn grouped(changes: &[&Change]) -> String {
    let mut out = String::new();
    for section in sections(changes) {
        let _ = writeln!(out, "[{}]", section.unwrap_or("global configuration"));
        for c in changes.iter().filter(|c| c.section.as_deref() == section) {
            let _ = writeln!(out, "{}{}", if c.added { "+" } else { "-" }, c.line);
        }
    }
    out.trim_end().to_string()
}
