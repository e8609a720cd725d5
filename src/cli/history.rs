//! `premarket history [--last N] [--check ID]`: recent runs and, per check and device, the
//! runs where its status changed (newly failing, fixed, changed), from the archive. Labels come
//! from the whole archive, so a result older than the window is never called a "first run";
//! offline replays and reruns are marked as such.

use std::fmt::Write;
use std::path::Path;

use chrono::DateTime;

use super::{Stop, load};
use crate::report::archive::Archive;
use crate::report::email::offset;
use crate::report::history;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many of the latest runs to show and follow.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub last: usize,
    /// Only this check id (or glob, `eos.lanz.*`).
    #[arg(long = "check", value_name = "ID|GLOB")]
    pub check: Option<String>,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let archive = Archive::new(&config.site.archive.dir);
    let (reports, problems) = archive.reports().map_err(|e| Stop::config(e.to_string()))?;
    for p in problems {
        eprintln!("premarket: skipped an unreadable archived run: {p}");
    }
    let pattern = args
        .check
        .as_deref()
        .map(|p| glob::Pattern::new(p).map_err(|e| Stop::config(format!("--check {p:?}: {e}"))))
        .transpose()?;
    let wanted = |id: &str| pattern.as_ref().is_none_or(|p| p.matches(id));
    let reports: Vec<_> = reports
        .into_iter()
        .filter(|r| r.results.iter().any(|x| wanted(&x.check)))
        .collect();
    if reports.is_empty() {
        println!(
            "No archived run{} in {}.",
            if args.check.is_some() {
                " with that check"
            } else {
                ""
            },
            archive.root().display()
        );
        return Ok(0);
    }
    let start = reports.len().saturating_sub(args.last.max(1));
    let window = &reports[start..];
    let tz = config.site.timezone;
    let when = |at: &str| {
        DateTime::parse_from_rfc3339(at)
            .map(|t| {
                let t = t.with_timezone(&tz);
                format!("{} {}", t.format("%Y-%m-%d %H:%M"), offset(&t))
            })
            .unwrap_or_else(|_| at.to_string())
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Runs, newest first ({} of {}):",
        window.len(),
        reports.len()
    );
    for r in window.iter().rev() {
        let c = r.counts;
        let kind = match (r.partial, r.offline) {
            (false, false) => "full   ",
            (true, false) => "rerun  ",
            (false, true) => "offline",
            (true, true) => "offline rerun",
        };
        let _ = writeln!(
            out,
            "  {}  {:<5} {kind}  {} OK, {} FAIL, {} ERROR, {} SKIP  {}",
            when(&r.started_at),
            r.status.as_str(),
            c.ok,
            c.fail,
            c.error,
            c.skip,
            r.run_id
        );
    }
    let _ = writeln!(out, "\nChanges per check (within these runs):");
    for ((check, device), story) in history::timeline(&reports, start, wanted) {
        let _ = writeln!(out, "  {check} on {device}");
        if let Some((status, at)) = &story.before {
            let _ = writeln!(out, "    before these runs: {status} (as of {})", when(at));
        }
        if story.steps.is_empty() {
            let _ = writeln!(out, "    no change");
        }
        for step in story.steps {
            let _ = writeln!(
                out,
                "    {}  {:<5} {}  ({})",
                when(&step.at),
                step.status.as_str(),
                step.label,
                step.run_id
            );
        }
    }
    crate::report::terminal::print_quietly(&out);
    Ok(0)
}
