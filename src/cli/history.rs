//! `premarket history [--last N] [--check ID]`: recent runs and, per check and device, the
//! runs where its status changed (newly failing, fixed, changed), from the archive, and the
//! readings accepted as references (`premarket accept`). Labels come from the whole archive, so
//! a result older than the window is never called a "first run"; the checks whose status never
//! changed in the window are counted in one line (a FAIL or ERROR that stood throughout is
//! listed), and runs are named by their minute, to the second where two share one; offline
//! replays and reruns are marked as such. Runs are listed in the order the archive wrote them,
//! not by their clock; one dated in the future is flagged, and so is one whose archive lacks
//! devices ("incomplete: sw1 not archived"). What the archive says is shown escaped, one value
//! per line, never obeyed by the terminal.
//!
//! `premarket history --chart FILE [--chart-svg FILE] [--last N]` draws the trend of the last
//! N full runs instead (30 unless told): the probe's steady median and p99 and the FortiGate's
//! offloaded sessions and setup rate, with the baselines' limits ([`crate::report::trend`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use chrono::DateTime;

use super::{Stop, load};
use crate::config::Config;
use crate::core::Status;
use crate::report::archive::Archive;
use crate::report::email::offset;
use crate::report::escape::line;
use crate::report::human::by_minute_or_second;
use crate::report::trend::{self, DEFAULT_RUNS, Points, Sources};
use crate::report::{Report, history};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many of the latest runs to show and follow [default: 10; with --chart, 30].
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Only this check id (or glob, `eos.lanz.*`).
    #[arg(long = "check", value_name = "ID|GLOB")]
    pub check: Option<String>,
    /// Draw the trend over the last runs (probe median and p99, FortiGate offloaded sessions and
    /// setup rate, the baselines' limits) as PNG (as SVG when FILE ends in .svg).
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// Draw the same trend as SVG.
    #[arg(long, value_name = "FILE")]
    pub chart_svg: Option<PathBuf>,
    /// Read the demo's archive (what `premarket demo` wrote) instead of the site's.
    #[arg(long)]
    pub demo: bool,
    /// With --demo: the demo's home, as given to `premarket demo --home` [default: the demo's].
    #[arg(long, value_name = "DIR", requires = "demo")]
    pub home: Option<PathBuf>,
}

/// Runs the listing shows unless told.
const LISTED_RUNS: usize = 10;

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    // The demo's site lives only while the demo runs: rebuild it (the guard removes it).
    let (config, _site) = if args.demo {
        let (config, site) = super::demo_home::site(args.home.as_deref())?;
        (config, Some(site))
    } else {
        (load(dir)?, None)
    };
    let archive = Archive::new(&config.site.archive.dir);
    let (reports, problems) = archive.reports().map_err(|e| Stop::config(e.to_string()))?;
    for p in problems {
        errln!("premarket: skipped an unreadable archived run: {p}");
    }
    if args.chart.is_some() || args.chart_svg.is_some() {
        return chart(&config, &archive, &reports, &args);
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
        outln!(
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
    let start = reports
        .len()
        .saturating_sub(args.last.unwrap_or(LISTED_RUNS).max(1));
    let window = &reports[start..];
    let tz = config.site.timezone;
    // Everything below comes from the archive: each value is shown on its line, escaped,
    // never obeyed (an escape sequence in a report.json must not reach the terminal).
    // Runs are named by their minute, to the second where two runs of the archive share one.
    let starts: Vec<DateTime<chrono_tz::Tz>> = reports
        .iter()
        .filter_map(|r| DateTime::parse_from_rfc3339(&r.started_at).ok())
        .map(|t| t.with_timezone(&tz))
        .collect();
    let names: HashMap<DateTime<chrono_tz::Tz>, String> = starts
        .iter()
        .copied()
        .zip(by_minute_or_second(&starts, "%Y-%m-%d %H:%M"))
        .collect();
    let when = |at: &str| {
        DateTime::parse_from_rfc3339(at)
            .map(|t| {
                let t = t.with_timezone(&tz);
                let name = names
                    .get(&t)
                    .cloned()
                    .unwrap_or_else(|| t.format("%Y-%m-%d %H:%M").to_string());
                format!("{name} {}", offset(&t))
            })
            .unwrap_or_else(|_| line(at))
    };
    let width = reports
        .iter()
        .map(|r| when(&r.started_at).chars().count())
        .max()
        .unwrap_or(0);
    let now = chrono::Utc::now();
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
        // Runs are listed in the order they were written; a start time the clock had wrong
        // is said, since the listing no longer matches the dates.
        let future = if history::dated_in_future(r, now) {
            "  (dated in the future: the clock was ahead when it ran)"
        } else {
            ""
        };
        let acknowledged = match c.acknowledged {
            0 => String::new(),
            n => format!(", {n} acknowledged"),
        };
        // A run whose archive lacks devices says so: its raw outputs cannot replay it whole.
        let incomplete = if r.not_archived.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = r.not_archived.iter().map(|d| line(d)).collect();
            format!("  (incomplete: {} not archived)", names.join(", "))
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {:<5} {kind}  {} OK, {} FAIL, {} ERROR, {} SKIP{acknowledged}  {}{future}{incomplete}",
            when(&r.started_at),
            r.status.as_str(),
            c.ok,
            c.fail,
            c.error,
            c.skip,
            line(&r.run_id)
        );
    }
    let _ = writeln!(out, "\nChanges per check (within these runs):");
    // A check whose status never changed in these runs is counted, not listed (a FAIL or ERROR
    // that stood throughout is listed: on-call wants it in view).
    let mut unchanged: BTreeMap<Status, usize> = BTreeMap::new();
    for ((check, device), story) in history::timeline(&reports, start, wanted) {
        let changed = story.steps.len() > usize::from(story.before.is_none());
        let status = story
            .before
            .as_ref()
            .map(|(s, _)| *s)
            .or_else(|| story.steps.first().map(|s| s.status));
        if !changed && let Some(status) = status {
            if !history::is_failing(status) {
                *unchanged.entry(status).or_default() += 1;
                continue;
            }
            let _ = writeln!(
                out,
                "  {} on {}: {status} in every one of these runs",
                line(&check),
                line(&device)
            );
            continue;
        }
        let _ = writeln!(out, "  {} on {}", line(&check), line(&device));
        if let Some((status, at)) = &story.before {
            let _ = writeln!(out, "    before these runs: {status} (as of {})", when(at));
        }
        for step in story.steps {
            let _ = writeln!(
                out,
                "    {:<width$}  {:<5} {}  ({})",
                when(&step.at),
                step.status.as_str(),
                step.label,
                line(&step.run_id)
            );
        }
    }
    if !unchanged.is_empty() {
        let counts: Vec<String> = unchanged
            .iter()
            .map(|(status, n)| format!("{n} check{} {status}", if *n == 1 { "" } else { "s" }))
            .collect();
        let _ = writeln!(
            out,
            "  No change in these runs: {} throughout",
            counts.join(", ")
        );
    }
    accepted(&mut out, &archive, &wanted, &when);
    crate::report::terminal::print_quietly(&out);
    Ok(0)
}

/// Readings accepted as references (`premarket accept`), the latest [`LISTED_RUNS`], each line
/// escaped (the reason is whoever accepted's own text).
fn accepted(
    out: &mut String,
    archive: &Archive,
    wanted: &dyn Fn(&str) -> bool,
    when: &dyn Fn(&str) -> String,
) {
    let log: Vec<_> = archive
        .reference_store()
        .accepted_log()
        .into_iter()
        .filter(|l| l.checks.iter().any(|c| wanted(c)))
        .collect();
    if log.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nAccepted as the reference (latest last):");
    for l in &log[log.len().saturating_sub(LISTED_RUNS)..] {
        let _ = writeln!(
            out,
            "  {}  {}: {}  {}: {}",
            when(&l.accepted.at),
            line(&l.device),
            line(&l.checks.join(", ")),
            line(&l.accepted.note()),
            line(&l.accepted.reason)
        );
    }
}

/// `--chart` / `--chart-svg`: writes the trend and says what it holds.
fn chart(config: &Config, archive: &Archive, reports: &[Report], args: &Args) -> Result<u8, Stop> {
    let sources = Sources::of(config);
    let runs = args.last.unwrap_or(DEFAULT_RUNS).max(1);
    let points = Points::from_archive(archive, reports, &sources, runs);
    for note in &points.unreadable {
        errln!("premarket: a gap in the trend: {note}");
    }
    let (probe, firewall, limits) = (&points.probe, &points.firewall, &sources.limits);
    let is_svg = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let targets = args
        .chart
        .iter()
        .map(|p| (p, is_svg(p)))
        .chain(args.chart_svg.iter().map(|p| (p, true)));
    for (path, svg) in targets {
        let bytes = if svg {
            trend::svg(probe, firewall, limits, &points.statuses).map(String::into_bytes)
        } else {
            trend::png(probe, firewall, limits, &points.statuses)
        };
        super::probe::write_chart(path, bytes)?;
        outln!("Trend written to {}", path.display());
    }
    let with = |n: usize, device: &Option<String>| match device {
        Some(d) => format!("{d}: figures in {n}"),
        None => "no device".to_string(),
    };
    outln!(
        "{} full run(s) of {} in the archive; probe {}; FortiGate {}.",
        probe.len().max(firewall.len()),
        reports.len(),
        with(
            probe.iter().filter(|p| p.median_ns.is_some()).count(),
            &sources.probe
        ),
        with(
            firewall
                .iter()
                .filter(|p| p.npu_session_count.is_some() || p.setup_rate.is_some())
                .count(),
            &sources.firewall
        )
    );
    Ok(0)
}
