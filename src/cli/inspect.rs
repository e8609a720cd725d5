//! `premarket run` and `premarket check ID`: flags turned into a [`Request`] for the run's
//! driver ([`crate::run`]), and what it returns printed.
//!
//! `--offline` judges saved outputs: such a run never emails on-call, never notifies, never
//! writes the live history and never writes the site's metrics unless asked (`--email`,
//! `--email-to-file`, `--notify`, `--archive`, `--metrics-file`): an offline replay that
//! emailed "OK" about a live FAIL would be a false all-clear. It ignores the calendar.

use std::path::{Path, PathBuf};

use chrono::NaiveTime;

use clap_complete::ArgValueCandidates;

use super::{SelectArgs, Stop};
use crate::report::email::EmailMode;
use crate::report::terminal::Format;
use crate::report::{Invocation, Mode};
use crate::run::{Outcome, Request, drive};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Judge saved outputs in DIR/<device>/<file> instead of connecting to devices (no email,
    /// archive or metrics unless asked).
    #[arg(long, value_name = "DIR")]
    pub offline: Option<PathBuf>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Rerun exactly the checks whose latest result is FAIL or ERROR (the latest full run,
    /// updated by the reruns since), each on the device where it failed.
    #[arg(long)]
    pub last_failed: bool,
    /// The time (HH:MM, site time zone) by which the report must be out; what has not
    /// finished by then is ERROR. Default: `deadline` in site.yaml.
    #[arg(long, value_name = "HH:MM", value_parser = parse_time)]
    pub deadline: Option<NaiveTime>,
    /// Inspect even on a day the site's calendar says the market is closed.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Where the report goes besides the terminal.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct OutputArgs {
    /// Do not send the email report.
    #[arg(long, conflicts_with_all = ["email_to_file", "email"])]
    pub no_email: bool,
    /// Write the email (.eml) to PATH instead of sending it.
    #[arg(long, value_name = "PATH", conflicts_with = "email")]
    pub email_to_file: Option<PathBuf>,
    /// Send the email even for an --offline run (which sends none by default).
    #[arg(long)]
    pub email: bool,
    /// Write an --offline run into the live archive and history (not done by default).
    #[arg(long)]
    pub archive: bool,
    /// Write Prometheus metrics to PATH (a .prom file for node_exporter's textfile collector);
    /// default: `metrics.textfile` in site.yaml (not for --offline runs).
    #[arg(long, value_name = "PATH")]
    pub metrics_file: Option<PathBuf>,
    /// Also write the results as JUnit XML to FILE (one testsuite per device), offline runs too.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Tell the site's notify: endpoints (chat, pager, webhooks) about an --offline run too
    /// (live runs always do).
    #[arg(long)]
    pub notify: bool,
}

impl OutputArgs {
    /// The email: off for offline runs unless asked, else through the site's relay.
    pub fn mode(&self, offline: bool) -> EmailMode {
        match (&self.email_to_file, self.no_email, self.email, offline) {
            (Some(path), _, _, _) => EmailMode::ToFile(path.clone()),
            (None, true, _, _) => EmailMode::Off,
            (None, false, true, _) | (None, false, false, false) => EmailMode::Send,
            (None, false, false, true) => EmailMode::Off,
        }
    }
}

fn parse_time(s: &str) -> Result<NaiveTime, NotATime> {
    NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| NotATime(s.to_string()))
}

/// A `--time` that is not `HH:MM`, as given.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a time of day HH:MM")]
pub struct NotATime(String);

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The check id (or glob) to rerun; the checks it explains are rechecked with it.
    #[arg(add = ArgValueCandidates::new(super::complete::check_ids))]
    pub id: String,
    /// Only on this device; repeatable.
    #[arg(long = "device", value_name = "NAME", add = ArgValueCandidates::new(super::complete::device_names))]
    pub devices: Vec<String>,
    /// Judge saved outputs in DIR/<device>/<file> instead of connecting to devices.
    #[arg(long, value_name = "DIR")]
    pub offline: Option<PathBuf>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The time (HH:MM, site time zone) by which the report must be out.
    #[arg(long, value_name = "HH:MM", value_parser = parse_time)]
    pub deadline: Option<NaiveTime>,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn check(dir: &Path, invocation: Invocation, args: CheckArgs) -> Result<u8, Stop> {
    let select = SelectArgs {
        checks: vec![args.id],
        devices: args.devices,
        tags: Vec::new(),
    };
    run(
        dir,
        invocation,
        RunArgs {
            select,
            offline: args.offline,
            format: args.format,
            last_failed: false,
            deadline: args.deadline,
            // A deliberate rerun after a fix goes ahead on any day.
            force: true,
            output: args.output,
        },
    )
}

pub fn run(dir: &Path, mut invocation: Invocation, args: RunArgs) -> Result<u8, Stop> {
    let offline = args.offline.is_some();
    if let Some(saved) = &args.offline {
        // Nothing can be judged from a directory that is not there: that is a usage mistake
        // (exit 3), not twenty-five checks that "could not tell".
        if !saved.is_dir() {
            return Err(Stop::config(format!(
                "--offline {}: no such directory (it should hold <device>/<file> saved outputs; \
                 `premarket capture --device NAME --out DIR` writes them)",
                saved.display()
            )));
        }
        invocation.mode = Mode::Offline(super::absolute(saved));
    }
    let request = Request {
        dir: dir.to_path_buf(),
        selection: args.select.selection(),
        last_failed: args.last_failed,
        email: Some(args.output.mode(offline)),
        archive: !offline || args.output.archive,
        metrics_file: args.output.metrics_file,
        site_metrics: !offline,
        junit: args.output.junit,
        notify: !offline || args.output.notify,
        offline: args.offline,
        deadline: args.deadline,
        format: Some(args.format),
        calendar: !offline,
        force: args.force,
        signals: true,
        invocation,
        ..Request::default()
    };
    Ok(finish(drive(request)))
}

/// Prints what the driver has to say (the report itself was printed by the terminal channel).
pub fn finish(outcome: Outcome) -> u8 {
    for message in &outcome.messages {
        errln!("premarket: {message}");
    }
    outcome.code
}
