//! `premarket run` and `premarket check ID`: the inspection itself.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveTime;

use super::{SelectArgs, Stop, load};
use crate::collect::Collector;
use crate::collect::offline::Offline;
use crate::collect::probe::Routing;
use crate::config::Config;
use crate::inspect::{Limits, inspect, instant_at, next_deadline};
use crate::plan::Plan;
use crate::report::archive::Archive;
use crate::report::email::Attachment;
use crate::report::history;
use crate::report::lock::RunLock;
use crate::report::publish::{Deadline, EmailMode, Options, publish};
use crate::report::{Report, json, text};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Judge saved outputs in DIR/<device>/<file> instead of connecting to devices.
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
    #[command(flatten)]
    pub email: EmailArgs,
}

/// What to do with the email report.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct EmailArgs {
    /// Do not send the email report.
    #[arg(long, conflicts_with = "email_to_file")]
    pub no_email: bool,
    /// Write the email (.eml) to PATH instead of sending it.
    #[arg(long, value_name = "PATH")]
    pub email_to_file: Option<PathBuf>,
}

impl EmailArgs {
    pub fn mode(&self) -> EmailMode {
        match (&self.email_to_file, self.no_email) {
            (Some(path), _) => EmailMode::ToFile(path.clone()),
            (None, true) => EmailMode::Off,
            (None, false) => EmailMode::Send,
        }
    }
}

fn parse_time(s: &str) -> Result<NaiveTime, String> {
    NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| format!("{s:?} is not a time of day HH:MM"))
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The check id (or glob) to rerun.
    pub id: String,
    /// Only on this device.
    #[arg(long = "device", value_name = "NAME")]
    pub devices: Vec<String>,
    #[arg(long, value_name = "DIR")]
    pub offline: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[arg(long, value_name = "HH:MM", value_parser = parse_time)]
    pub deadline: Option<NaiveTime>,
    #[command(flatten)]
    pub email: EmailArgs,
}

pub fn check(dir: &Path, args: CheckArgs) -> Result<u8, Stop> {
    let select = SelectArgs {
        checks: vec![args.id],
        devices: args.devices,
        tags: Vec::new(),
    };
    run(
        dir,
        RunArgs {
            select,
            offline: args.offline,
            format: args.format,
            last_failed: false,
            deadline: args.deadline,
            email: args.email,
        },
    )
}

pub fn run(dir: &Path, args: RunArgs) -> Result<u8, Stop> {
    let config = load(dir)?;
    let mut plan = Plan::new(&config, &args.select.selection())?;
    if args.last_failed {
        let Some(pairs) = last_failed(&config)? else {
            return Ok(0);
        };
        plan.retain(|device, check| pairs.iter().any(|(c, d)| c == check && d == device));
        if plan.devices.is_empty() {
            eprintln!(
                "premarket: none of the failed checks matches the selection; nothing to rerun"
            );
            return Ok(0);
        }
    }
    let devices: Arc<dyn Collector> = match &args.offline {
        Some(path) => Arc::new(Offline::new(path)),
        None => Arc::new(crate::collect::ssh::Ssh::from_config(&config)),
    };
    let full = args.select.checks.is_empty()
        && args.select.devices.is_empty()
        && args.select.tags.is_empty()
        && !args.last_failed;
    let how = Execution {
        full,
        deadline: args.deadline,
        email: args.email.mode(),
        format: args.format,
    };
    execute(&config, &plan, devices, how)
}

/// How a planned inspection is carried out and reported.
pub struct Execution {
    /// A full run (nothing selected) holds the archive's run lock and prunes old runs;
    /// reruns of selected checks run alongside.
    pub full: bool,
    pub deadline: Option<NaiveTime>,
    pub email: EmailMode,
    pub format: Format,
}

/// Collect, judge, archive, email and print; returns the exit code. `run` and `demo` share it.
pub fn execute(
    config: &Config,
    plan: &Plan,
    devices: Arc<dyn Collector>,
    how: Execution,
) -> Result<u8, Stop> {
    // Growth checks compare with what earlier runs recorded.
    let archive = Archive::new(&config.site.archive.dir);
    let mut plan = plan.clone();
    plan.attach_previous(|device| archive.previous(device));
    let plan = &plan;
    // Probe devices are measured by the probe, every other device by `devices`.
    let routing = Arc::new(Routing::new(devices));
    let _lock = match how.full {
        true => Some(lock(config)?),
        false => None,
    };
    let deadline = deadline(config, how.deadline);
    let mut limits = Limits::from_config(config);
    limits.deadline = deadline.map(|d| {
        d.instant
            .checked_sub(email_reserve(config, &how.email))
            .unwrap_or(d.instant)
    });
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: format!("cannot start: {e}"),
    })?;
    let (report, published) = runtime.block_on(async {
        let mut report = inspect(config, plan, routing.clone(), &limits).await;
        report.partial = !how.full;
        let options = Options {
            email: how.email,
            deadline,
            extra_attachments: charts(&routing),
            prune: how.full,
        };
        let published = publish(config, &mut report, options).await;
        (report, published)
    });
    print(&report, how.format);
    for note in &published.notes {
        eprintln!("premarket: {note}");
    }
    for problem in &published.problems {
        eprintln!("premarket: {problem}");
    }
    let code = published.exit_code(&report);
    if code != report.exit_code() {
        eprintln!(
            "premarket: the checks were {}, but the exit code is {code} because of the problem above",
            report.status
        );
    }
    Ok(code)
}

/// The probe's latency charts, shown in the email's HTML and attached.
fn charts(routing: &Routing) -> Vec<Attachment> {
    routing
        .charts()
        .into_iter()
        .map(|chart| {
            let name = format!("latency-{}.png", chart.device);
            Attachment::inline_image(
                &name,
                "image/png",
                chart.png,
                &format!("chart-{}", chart.device),
            )
        })
        .collect()
}

/// The pairs to rerun for `--last-failed`; `None` (after saying so) when nothing failed.
fn last_failed(config: &Config) -> Result<Option<Vec<(String, String)>>, Stop> {
    let archive = Archive::new(&config.site.archive.dir);
    let (reports, _) = archive.reports().map_err(|e| Stop::config(e.to_string()))?;
    let Some((run, pairs)) = history::last_failed(&reports) else {
        return Err(Stop::config(format!(
            "--last-failed: the archive {} holds no run yet; run `premarket run` first",
            archive.root().display()
        )));
    };
    if pairs.is_empty() {
        eprintln!(
            "premarket: nothing failed in the latest run ({run}) or the reruns since; nothing to rerun"
        );
        return Ok(None);
    }
    let list: Vec<String> = pairs.iter().map(|(c, d)| format!("{c} on {d}")).collect();
    eprintln!(
        "premarket: rerunning what failed as of run {run}: {}",
        list.join(", ")
    );
    Ok(Some(pairs))
}

fn lock(config: &Config) -> Result<RunLock, Stop> {
    let now = chrono::Utc::now().with_timezone(&config.site.timezone);
    let holder = format!(
        "pid {}, full run started {}",
        std::process::id(),
        now.format("%Y-%m-%d %H:%M:%S %Z")
    );
    RunLock::acquire(
        &config.site.archive.dir,
        config.site.archive.lock_wait,
        &holder,
    )
    .map_err(|e| Stop::config(e.to_string()))
}

/// `--deadline`, else the site's; the next such time of day in the site's time zone.
fn deadline(config: &Config, flag: Option<NaiveTime>) -> Option<Deadline> {
    let time = flag.or(config.site.deadline)?;
    let at = next_deadline(config.site.timezone, time, chrono::Utc::now());
    Some(Deadline {
        at,
        instant: instant_at(at),
    })
}

/// Time kept free before the deadline for delivering the email.
fn email_reserve(config: &Config, mode: &EmailMode) -> std::time::Duration {
    match (mode, &config.site.email) {
        (EmailMode::Send, Some(email)) if email.enabled => email.timeout,
        _ => std::time::Duration::ZERO,
    }
}

fn print(report: &Report, format: Format) {
    match format {
        Format::Json => print!("{}", json::render(report)),
        Format::Text => print!(
            "{}",
            text::render(report, text::use_colour(std::io::stdout().is_terminal()))
        ),
    }
}
