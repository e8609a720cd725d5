//! `premarket demo`: the whole inspection against the built-in lab. It starts emulated devices
//! on loopback SSH (with the faults asked for), inspects them with the example site over real
//! SSH, writes the email to a file and exits with the run's exit code.

use std::path::PathBuf;
use std::sync::Arc;

use super::inspect::{Execution, Format, execute};
use super::{SelectArgs, Stop};
use crate::collect::ssh::Ssh;
use crate::config::Config;
use crate::lab::{Lab, LabOptions, Scenario};
use crate::plan::Plan;
use crate::report::publish::EmailMode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fault to switch on in the lab, `NAME` or `NAME@DEVICE`; repeatable
    /// (`premarket lab serve --scenario list` shows them).
    #[arg(long = "scenario", value_name = "S")]
    pub scenarios: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Where to write the email. Default: last.eml in the demo's home.
    #[arg(long, value_name = "PATH")]
    pub email_to_file: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Where the demo keeps its archive (across runs, so a rerun after a "fix" shows the check
    /// as fixed) and its email. Default: premarket-demo in the system temp directory.
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

impl Args {
    fn home(&self) -> PathBuf {
        self.home
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("premarket-demo"))
    }
}

/// The lab answers in milliseconds: a short command timeout keeps `--scenario hang` brief.
const DEMO_COMMAND_TIMEOUT_S: u64 = 5;

pub fn run(args: Args) -> Result<u8, Stop> {
    let scenarios = Scenario::parse_all(&args.scenarios).map_err(Stop::config)?;
    // The lab's servers run on this runtime's workers while `execute` drives its own.
    let lab_runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: format!("cannot start the lab: {e}"),
    })?;
    let options = LabOptions {
        scenarios,
        devices: 2,
        base_port: 0,
        site_dir: None,
        example_dir: None,
    };
    let lab = lab_runtime
        .block_on(Lab::start_with(options))
        .map_err(|e| Stop::config(e.to_string()))?;
    let outcome = inspect_lab(&lab, &args);
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

fn inspect_lab(lab: &Lab, args: &Args) -> Result<u8, Stop> {
    let mut config = Config::load(&lab.site_dir)?;
    config.site.archive.dir = args.home().join("archive");
    config.site.ssh.command_timeout_s = DEMO_COMMAND_TIMEOUT_S;
    // The example deadline is a time of day; the demo runs whenever it is started.
    config.site.deadline = None;
    let plan = Plan::new(&config, &args.select.selection())?;
    let email = args
        .email_to_file
        .clone()
        .unwrap_or_else(|| args.home().join("last.eml"));
    if let Some(parent) = email.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let how = Execution {
        full: args.select.checks.is_empty()
            && args.select.devices.is_empty()
            && args.select.tags.is_empty(),
        deadline: None,
        email: EmailMode::ToFile(email),
        format: args.format,
    };
    execute(&config, &plan, Arc::new(Ssh::from_config(&config)), how)
}
