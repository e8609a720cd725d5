//! `premarket demo`: the whole inspection against the built-in lab. It starts emulated devices
//! on loopback SSH (with the faults asked for), adds the latency probe with a capture the lab
//! produces for the scenario, inspects them with the example site over real SSH, writes the
//! email to a file and exits with the run's exit code.
//!
//! The demo keeps its archive (so a rerun after a "fix" shows the check as fixed) and its email
//! in its home: by default `$XDG_STATE_HOME/premarket/demo` (`~/.local/state/premarket/demo`),
//! one per user, so a new user never sees another user's runs or their lock. The home must be a
//! directory of this user's own and not a link (in the shared temp directory, the fallback,
//! another user could have made it first); it is created readable by its owner only.

use std::path::PathBuf;

use super::inspect::finish;
use super::{SelectArgs, Stop};
use crate::files;
use crate::lab::{Fault, Fleet, Lab, LabOptions, Scenario, probe_capture};
use crate::report::email::EmailMode;
use crate::report::terminal::Format;
use crate::run::{Request, drive};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fault to switch on in the lab, `NAME` or `NAME@DEVICE`; repeatable
    /// (`premarket lab serve --scenario list` shows them).
    #[arg(long = "scenario", value_name = "S")]
    pub scenarios: Vec<String>,
    /// `standard` (fw1, sw1) or `mixed` (a trading floor's mix of switch models, releases
    /// and port kinds; `premarket lab serve --help`).
    #[arg(long, default_value_t = Fleet::Standard, value_parser = super::lab::parse_fleet)]
    pub fleet: Fleet,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Where to write the email. Default: last.eml in the demo's home.
    #[arg(long, value_name = "PATH")]
    pub email_to_file: Option<PathBuf>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Where the demo keeps its archive and its email. Default: premarket/demo in the user's
    /// state directory ($XDG_STATE_HOME, else ~/.local/state).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Also write Prometheus metrics to PATH.
    #[arg(long, value_name = "PATH")]
    pub metrics_file: Option<PathBuf>,
    /// Also write the results as JUnit XML to FILE (one testsuite per device).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

impl Args {
    fn home(&self) -> PathBuf {
        self.home
            .clone()
            .unwrap_or_else(super::demo_home::default_home)
    }
}

/// The lab answers in milliseconds: a short command timeout keeps `--scenario hang` brief.
const DEMO_COMMAND_TIMEOUT_S: u64 = 5;

pub fn run(args: Args) -> Result<u8, Stop> {
    let scenarios = Scenario::parse_all(&args.scenarios).map_err(Stop::config)?;
    // The lab's servers run on this runtime's workers while the run drives its own.
    let lab_runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: format!("cannot start the lab: {e}"),
    })?;
    let options = LabOptions {
        scenarios,
        fleet: args.fleet,
        devices: 2,
        base_port: 0,
        site_dir: None,
        example: Default::default(),
    };
    let lab = lab_runtime
        .block_on(Lab::start_with(options))
        .map_err(|e| Stop::config(e.to_string()))?;
    let outcome = add_probe(&lab).and_then(|()| inspect_lab(&lab, &args));
    let attempts = lab.config_attempts();
    lab_runtime.block_on(lab.shutdown());
    if !attempts.is_empty() {
        // The read-only guard should make this impossible; say so loudly if it ever happens.
        return Err(Stop {
            code: crate::core::Exit::Error.code(),
            message: format!("the lab recorded configuration commands: {attempts:?}"),
        });
    }
    outcome
}

/// The probe measures the path through the lab's firewall.
fn add_probe(lab: &Lab) -> Result<(), Stop> {
    let faults: Vec<Fault> = lab
        .devices
        .iter()
        .filter(|d| d.platform == crate::core::Platform::Fortigate)
        .flat_map(|d| d.faults.iter().copied())
        .collect();
    probe_capture::add_to_site(&lab.site_dir, &crate::lab::Example::Embedded, &faults)
        .map_err(|e| Stop::config(e.to_string()))
}

fn inspect_lab(lab: &Lab, args: &Args) -> Result<u8, Stop> {
    let home = args.home();
    // In a shared temp directory another user could have made the home first, or planted a
    // link there: the demo writes only into a directory of this user's own.
    files::ensure_private_dir(&home).map_err(|e| Stop::config(format!("the demo's home: {e}")))?;
    let email = args
        .email_to_file
        .clone()
        .unwrap_or_else(|| home.join("last.eml"));
    let archive = home.join("archive");
    let request = Request {
        dir: lab.site_dir.clone(),
        selection: args.select.selection(),
        email: Some(EmailMode::ToFile(email)),
        archive: true,
        metrics_file: args.metrics_file.clone(),
        site_metrics: false,
        junit: args.junit.clone(),
        format: Some(args.format),
        // The demo runs whenever it is started: no calendar, no deadline.
        calendar: false,
        adjust: Some(Box::new(move |config| {
            config.site.archive.dir = archive.clone();
            config.site.ssh.command_timeout_s = DEMO_COMMAND_TIMEOUT_S;
            config.site.deadline = None;
        })),
        signals: true,
        ..Request::default()
    };
    Ok(finish(drive(request)))
}
