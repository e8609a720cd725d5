#![doc = include_str!("README.md")]

mod acks;
mod charts;
pub mod deadline;
mod earlier;
mod last_failed;
mod mistakes;
mod outputs;
mod spooled;
pub mod stop;

use std::path::PathBuf;
use std::sync::Arc;

use chrono::{NaiveTime, Utc};

use premarket_collect::Collector;
use premarket_collect::offline::Offline;
use premarket_collect::probe::Routing;
use premarket_config::Config;
use premarket_core::{Exit, Platform, Status};
use premarket_inspect::interrupt::Signalled;
use premarket_inspect::{Interrupt, Limits, inspect_staging, run_id, timestamp};
use premarket_plan::{Plan, Selection};
use premarket_report::archive::{Archive, ArchiveChannel, ArchiveError, Staged};
use premarket_report::channel::{Channel, Context, deliver_all};
use premarket_report::email::{EmailChannel, EmailMode};
use premarket_report::lock::{LockError, RunLock};
use premarket_report::metrics::Metrics;
use premarket_report::redact;
use premarket_report::terminal::{Format, Terminal};
use premarket_report::trend::Sources;
use premarket_report::{Invocation, Report};

use last_failed::{Pick, last_failed};
use mistakes::Stop;

/// A tweak to the loaded configuration (the demo points the archive at its own home).
pub type Adjust = Box<dyn Fn(&mut Config) + Send + Sync>;

/// What to run and where the report goes; built by the CLI from its flags.
#[derive(Default)]
pub struct Request {
    /// The configuration directory (`--dir`).
    pub dir: PathBuf,
    pub selection: Selection,
    /// Rerun exactly what failed as of the latest full run and the reruns since.
    pub last_failed: bool,
    /// Judge saved outputs in this directory instead of the devices.
    pub offline: Option<PathBuf>,
    /// `--deadline`, else the site's.
    pub deadline: Option<NaiveTime>,
    pub email: Option<EmailMode>,
    /// Write the run into the live archive (history, `--last-failed`, growth checks).
    pub archive: bool,
    /// `--metrics-file`; the site's `metrics:` is used when `site_metrics` is set.
    pub metrics_file: Option<PathBuf>,
    pub site_metrics: bool,
    /// `--junit`: write the run as JUnit XML here.
    pub junit: Option<PathBuf>,
    /// Tell the site's `notify:` endpoints (live runs; an offline run only with `--notify`).
    pub notify: bool,
    /// Print the report on stdout in this format.
    pub format: Option<Format>,
    /// Obey the site's calendar (closed day: nothing inspected) unless `force`.
    pub calendar: bool,
    pub force: bool,
    pub adjust: Option<Adjust>,
    /// Collect with this instead of SSH (tests, emulators).
    pub collector: Option<Arc<dyn Collector>>,
    /// Catch SIGTERM and SIGINT: stop, judge what was collected and report within the grace
    /// ([`stop`]). The CLI's runs do; a library caller keeps its own signal handling.
    pub signals: bool,
    /// How the run was started, so that the commands the report prints work when pasted
    /// (`--dir`, `--offline`, the demo).
    pub invocation: Invocation,
}

/// What the CLI prints on stderr, in order, and the exit code.
#[derive(Debug, Default)]
pub struct Outcome {
    pub code: u8,
    pub messages: Vec<String>,
    /// The report, when there was a run (or a configuration-error report).
    pub report: Option<Report>,
}

impl Outcome {
    fn stop(message: impl Into<String>) -> Outcome {
        Outcome {
            code: Exit::NotRun.code(),
            messages: vec![message.into()],
            report: None,
        }
    }
}

/// Carries out `request`.
pub fn drive(request: Request) -> Outcome {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            return Outcome {
                code: Exit::Error.code(),
                messages: vec![format!("cannot start: {e}")],
                report: None,
            };
        }
    };
    let outcome = runtime.block_on(drive_async(request));
    // An evaluation given up on runs on a thread of its own and ends with the process; any
    // blocking task still running is not waited for longer than this.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    outcome
}

async fn drive_async(req: Request) -> Outcome {
    let interrupt = if req.signals {
        stop::listen()
    } else {
        Interrupt::default()
    };
    let (mut config, errors) = match Config::load_partial(&req.dir) {
        Ok(loaded) => loaded,
        Err(e) => {
            return Outcome::stop(format!(
                "the configuration cannot be read, so no email or metrics can report it:\n{e}"
            ));
        }
    };
    if let Some(adjust) = &req.adjust {
        adjust(&mut config);
    }
    // A cause rechecked alone would leave the checks it explains standing as FAIL from the
    // earlier run: they are judged again with it.
    let (selection, explained) = req.selection.and_explained(&config.catalog);
    let plan = match mistakes::plan(&config, &selection, errors) {
        Ok(plan) => plan,
        Err(Stop::Usage(usage)) => return Outcome::stop(usage),
        Err(Stop::Mistakes(errors)) => return mistakes::report(&config, errors, &req).await,
    };
    if req.calendar
        && !req.force
        && let Some(calendar) = &config.site.calendar
    {
        let today = Utc::now().with_timezone(&config.site.timezone).date_naive();
        if let Some(why) = calendar.closed(today) {
            return closed(&config, &req, why).await;
        }
    }
    let mut outcome = inspect_and_report(&config, plan, &req, interrupt).await;
    if !explained.is_empty() && outcome.report.is_some() {
        outcome.messages.insert(
            0,
            format!(
                "also rechecked what the selected checks explain: {}",
                explained.join(", ")
            ),
        );
    }
    outcome
}

async fn inspect_and_report(
    config: &Config,
    mut plan: Plan,
    req: &Request,
    interrupt: Interrupt,
) -> Outcome {
    let mut messages = Vec::new();
    let archive = Archive::new(&config.site.archive.dir);
    if req.last_failed {
        match last_failed(&archive, &req.invocation) {
            Err(e) => return Outcome::stop(e.to_string()),
            Ok(Pick::Nothing(message)) => {
                return Outcome {
                    code: Exit::Ok.code(),
                    messages: vec![message],
                    report: None,
                };
            }
            Ok(Pick::Pairs(message, pairs)) => {
                messages.push(message);
                plan.retain(|device, check| pairs.iter().any(|(c, d)| c == check && d == device));
                if plan.devices.is_empty() && !plan.site.iter().any(|s| s.judged()) {
                    return Outcome {
                        code: Exit::Ok.code(),
                        messages: vec![
                            "none of the failed checks matches the selection; nothing to rerun"
                                .into(),
                        ],
                        report: None,
                    };
                }
            }
        }
    }
    let s = &req.selection;
    let full = s.checks.is_empty() && s.devices.is_empty() && s.tags.is_empty() && !req.last_failed;
    let mut problems: Vec<String> = Vec::new();
    let acks = acks::load(config, &mut problems);
    let _lock = match (full && req.archive).then(|| lock(config)) {
        None => None,
        Some(Ok(lock)) => Some(lock),
        Some(Err(busy @ LockError::Busy { .. })) => return Outcome::stop(busy.to_string()),
        Some(Err(e)) => {
            problems.push(format!("{e}; inspecting without the run lock"));
            None
        }
    };
    let target = req.deadline.or(config.site.deadline).map(|time| {
        deadline::target(
            config.site.timezone,
            time,
            Utc::now(),
            config.site.deadline_grace,
        )
    });
    let email = email_mode(req);
    let mut limits = Limits::from_config(config);
    limits.interrupt = interrupt.clone();
    limits.deadline = target.map(|t| {
        let instant = deadline::instant_at(t.bound);
        instant
            .checked_sub(email_reserve(config, &email) + outputs::reserve(config, req))
            .unwrap_or(instant)
    });
    if req.archive {
        premarket_inspect::attach_references(&archive, &mut plan, full);
    }
    let spool = spooled::dir(req.archive, archive.root());
    let max_output = premarket_collect::ssh::max_output(config);
    let devices: Arc<dyn Collector> = match (&req.collector, &req.offline) {
        (Some(c), _) => c.clone(),
        (None, Some(dir)) => Arc::new(Offline::new(dir).capped(max_output)),
        (None, None) => Arc::new(
            premarket_collect::ssh::Ssh::from_config(config)
                .spooling_in(spool.clone())
                .until(limits.deadline),
        ),
    };
    let routing = Arc::new(Routing::new(devices));
    // The archived reports are read while the devices are inspected (they do not depend on
    // this run), not after: at a thousand devices that was a tenth of a second at the end.
    let history = req.archive.then(|| {
        let archive = archive.clone();
        let pairs = plan.pairs();
        tokio::task::spawn_blocking(move || earlier::read_archived(&archive, full, pairs))
    });
    // The fleet's secrets read once for the archive: the devices staged as they are judged and
    // those written at the end are masked alike.
    let archived = req.archive.then(|| redact::from_config(config));
    let staged = archived
        .as_ref()
        .and_then(|redactor| staged(config, &archive, redactor.clone()));
    let mut report = inspect_staging(config, plan, routing.clone(), &limits, staged.clone()).await;
    // Where large outputs went when a disk would not take them: said, never a reason to stop.
    problems.extend(
        spool
            .fallbacks()
            .iter()
            .map(|f| spooled::said(f, archive.root())),
    );
    if let Some(signalled) = interrupt.get() {
        problems.push(format!(
            "premarket was stopped ({}) during the inspection: what had not finished is ERROR \
             \"interrupted\"",
            signalled.name
        ));
    }
    report.partial = !full;
    report.offline = req.offline.is_some();
    report.invocation = req.invocation.clone();
    report.deadline = target.map(|t| t.note());
    report.problems.extend(problems.iter().cloned());
    // Said, not counted against the exit code: a secret file others may read.
    report.problems.extend(config.exposed_secret_files());
    // The archived reports, read once for the history and the trend.
    let earlier = match history {
        Some(read) => {
            let read = read.await.unwrap_or_else(|e| {
                Err(ArchiveError::Read {
                    path: archive.root().to_path_buf(),
                    source: std::io::Error::other(e),
                })
            });
            earlier::read_history(read, &mut report)
        }
        None => Vec::new(),
    };
    messages.extend(acks::apply(config, &acks, &mut report));
    if let Some(t) = target.filter(|t| t.passed) {
        messages.push(format!(
            "the deadline {} had already passed when this run began; it ran bounded by {} s of grace",
            t.at.format("%H:%M"),
            config.site.deadline_grace.as_secs()
        ));
    }
    let signalled = interrupt.get();
    let archived = archived.map(|redactor| (redactor, staged));
    let channels = channels(config, req, &archive, archived, email.clone(), signalled);
    let attachments = charts::pictures(config, req, &archive, &earlier, &routing, &mut report);
    let ctx = Context {
        tz: config.site.timezone,
        deadline: target.map(|t| t.timer()),
        attachments,
        prune: full && req.archive,
    };
    let email_after = |s: Signalled| email_channel(config, &archive, email.clone(), Some(s));
    let delivered = stop::deliver(&channels, &mut report, &ctx, &interrupt, email_after).await;
    messages.extend(delivered.notes);
    problems.extend(delivered.problems);
    let standing_failures = report
        .standing
        .iter()
        .filter(|r| matches!(r.status, Status::Fail | Status::Error))
        .filter(|r| !premarket_report::ack::is_acknowledged(r))
        .count();
    if standing_failures > 0 {
        messages.push(format!(
            "{standing_failures} check(s) not rechecked still stand as FAIL or ERROR from earlier runs; the report lists them"
        ));
    }
    let mut code = report.exit_code();
    if !problems.is_empty() && code == Exit::Ok.code() {
        code = Exit::Error.code();
    }
    messages.extend(problems);
    if code != report.exit_code() {
        messages.push(format!(
            "the checks were {}, but the exit code is {code} because of the problem above",
            report.status
        ));
    }
    Outcome {
        code,
        messages,
        report: Some(report),
    }
}

/// The email mode the request asks for (offline runs never email unless asked).
fn email_mode(req: &Request) -> EmailMode {
    req.email.clone().unwrap_or(EmailMode::Off)
}

/// The run's archive directory, written into as devices are judged; the probes and the
/// devices the trend draws keep their outputs ([`premarket_report::archive::Keep`]). `None`
/// when it cannot be made: the archive is then written whole at the end, which says what is
/// wrong.
fn staged(config: &Config, archive: &Archive, redactor: redact::Redactor) -> Option<Arc<Staged>> {
    let sources = Sources::of(config);
    let probes = config
        .devices
        .iter()
        .filter(|d| d.platform == Platform::Probe)
        .map(|d| d.name.to_string());
    let keep = probes
        .chain(sources.probe)
        .chain(sources.firewall)
        .collect();
    match archive.stage(redactor, keep) {
        Ok(staged) => Some(Arc::new(staged)),
        Err(e) => {
            tracing::warn!("{e}; the archive is written at the end of the run");
            None
        }
    }
}

/// The channels of a run, in delivery order: the archive first (its failure is in the report
/// the others deliver), then the terminal, the JUnit file, the email, the notifications and
/// the metrics. After a stop signal the email and the notifications are bounded by what is
/// left of the grace. `archived`: when the run is archived, the archive's redactor and the
/// directory its devices were staged in, if any.
fn channels(
    config: &Config,
    req: &Request,
    archive: &Archive,
    archived: Option<(redact::Redactor, Option<Arc<Staged>>)>,
    email: EmailMode,
    signalled: Option<Signalled>,
) -> Vec<Box<dyn Channel>> {
    let mut channels: Vec<Box<dyn Channel>> = Vec::new();
    if let Some((redactor, staged)) = archived {
        channels.push(Box::new(ArchiveChannel {
            archive: archive.clone(),
            retention_days: config.site.archive.retention_days,
            max_size: config.site.archive.max_size,
            redactor,
            staged,
        }));
    }
    if let Some(format) = req.format {
        channels.push(Box::new(Terminal { format }));
    }
    channels.extend(outputs::junit(config, req));
    channels.extend(email_channel(config, archive, email, signalled));
    // Chat and the pager after the email, the report of record.
    channels.extend(outputs::notify(config, req, archive, signalled));
    channels.extend(metrics(config, req));
    channels
}

/// The channels that also report a run that did not inspect (configuration error, closed day):
/// the JUnit file, the email, the metrics.
fn email_and_metrics(
    config: &Config,
    req: &Request,
    archive: &Archive,
    email: EmailMode,
    signalled: Option<Signalled>,
) -> Vec<Box<dyn Channel>> {
    let mut channels = Vec::new();
    channels.extend(outputs::junit(config, req));
    channels.extend(email_channel(config, archive, email, signalled));
    channels.extend(metrics(config, req));
    channels
}

/// The email channel, unless the email is off; after `signalled`, bounded by the grace.
fn email_channel(
    config: &Config,
    archive: &Archive,
    email: EmailMode,
    signalled: Option<Signalled>,
) -> Option<Box<dyn Channel>> {
    let settings = match (config.site.email.clone(), signalled) {
        (Some(settings), Some(s)) => Some(stop::email_within(settings, s)),
        (settings, _) => settings,
    };
    (email != EmailMode::Off).then(|| {
        Box::new(EmailChannel {
            mode: email,
            settings,
            outbox: archive.outbox(),
            redactor: redact::from_config(config),
        }) as Box<dyn Channel>
    })
}

/// The metrics channel: `--metrics-file`, else the site's when the request uses it.
fn metrics(config: &Config, req: &Request) -> Option<Box<dyn Channel>> {
    let path = req.metrics_file.clone().or_else(|| {
        req.site_metrics
            .then(|| config.site.metrics.as_ref().map(|m| m.textfile.clone()))
            .flatten()
    })?;
    Some(Box::new(Metrics { path }))
}

/// The market is closed: nothing is contacted; the metrics still say the run happened.
async fn closed(config: &Config, req: &Request, why: String) -> Outcome {
    let mut report = empty_report(config);
    report.closed = Some(why.clone());
    let archive = Archive::new(&config.site.archive.dir);
    let channels = email_and_metrics(config, req, &archive, EmailMode::Off, None);
    let ctx = not_inspected(config);
    let delivered = deliver_all(&channels, &mut report, &ctx).await;
    premarket_report::terminal::print_quietly(&format!(
        "premarket {}: market closed: {why}; nothing was inspected (--force inspects anyway)\n",
        config.site.name
    ));
    let mut messages = delivered.notes;
    messages.extend(delivered.problems);
    Outcome {
        code: Exit::Ok.code(),
        messages,
        report: Some(report),
    }
}

/// What the channels of a run that inspected nothing need: no deadline, no charts.
fn not_inspected(config: &Config) -> Context {
    Context {
        tz: config.site.timezone,
        deadline: None,
        attachments: Vec::new(),
        prune: false,
    }
}

fn empty_report(config: &Config) -> Report {
    let now = Utc::now();
    let tz = config.site.timezone;
    Report::new(
        run_id(now, tz),
        config.site.name.clone(),
        timestamp(now, tz),
        timestamp(now, tz),
        Vec::new(),
    )
}

fn lock(config: &Config) -> Result<RunLock, LockError> {
    let now = Utc::now().with_timezone(&config.site.timezone);
    let holder = format!(
        "pid {}, full run started {}",
        std::process::id(),
        now.format("%Y-%m-%d %H:%M:%S %:z")
    );
    RunLock::acquire(
        &config.site.archive.dir,
        config.site.archive.lock_wait,
        &holder,
    )
}

/// Time kept free before the deadline for delivering the email.
fn email_reserve(config: &Config, mode: &EmailMode) -> std::time::Duration {
    match (mode, &config.site.email) {
        (EmailMode::Send, Some(email)) if email.enabled => email.timeout,
        _ => std::time::Duration::ZERO,
    }
}
