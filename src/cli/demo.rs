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

use clap_complete::ArgValueCandidates;

use super::inspect::finish;
use super::{SelectArgs, Stop};
use crate::files;
use crate::lab::{Fault, Fleet, Lab, LabOptions, Scenario, probe_capture};
use crate::report::email::EmailMode;
use crate::report::terminal::Format;
use crate::report::{Invocation, Mode};
use crate::run::{Request, drive};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fault to switch on in the lab, `NAME` or `NAME@DEVICE`; repeatable (the scenarios
    /// are listed below).
    #[arg(long = "scenario", value_name = "S", add = ArgValueCandidates::new(super::complete::scenarios))]
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
        home(self.home.as_deref())
    }
}

/// The scenarios, for `demo --help`: name, the device it applies to by default, what it does.
pub fn scenarios_help() -> String {
    let mut out = String::from(
        "Scenarios (--scenario NAME, or NAME@DEVICE to move it; several may be combined):\n",
    );
    for fault in Fault::ALL {
        let target = match fault.default_target() {
            crate::lab::Target::All => "all".to_string(),
            crate::lab::Target::Device(d) => d,
        };
        out.push_str(&format!(
            "  {:<20} {:<4} {}\n",
            fault.name(),
            target,
            fault.describe()
        ));
    }
    out.push_str(
        "\nAfter a scenario, `premarket demo --check ID` reruns a check against the healthy lab \
         (the \"fix\"), and `premarket history --demo` shows the demo's runs.",
    );
    out
}

pub use super::demo_home::home;

/// The demo's site as its runs were judged, for `premarket history --demo`: the example site
/// with the lab's devices and the probe, written into a temporary directory (removed when the
/// returned guard is dropped), its archive pointed at the demo's `home`.
pub fn site_for_history(
    home: &std::path::Path,
) -> Result<(crate::Config, tempfile::TempDir), Stop> {
    use crate::lab::site::{SiteDevice, write_site};
    let dir = tempfile::Builder::new()
        .prefix("premarket-demo-site-")
        .tempdir()
        .map_err(|e| Stop::config(format!("cannot make a temporary directory: {e}")))?;
    // The lab's devices, as `demo` lists them; nothing is contacted, so no port or key.
    let devices = [
        (
            "sw1",
            crate::core::Platform::Eos,
            Some("not-a-secret-enable"),
        ),
        ("fw1", crate::core::Platform::Fortigate, None),
    ]
    .map(|(name, platform, enable_secret)| SiteDevice {
        name,
        platform,
        port: 22,
        password: "not-a-secret-password",
        enable_secret,
        known_host: String::new(),
        expect: &[],
        ssh: &[],
    });
    let example = crate::lab::Example::Embedded;
    write_site(&example, dir.path(), &devices, &[]).map_err(|e| Stop::config(e.to_string()))?;
    probe_capture::add_to_site(dir.path(), &example, &[])
        .map_err(|e| Stop::config(e.to_string()))?;
    let mut config = crate::Config::load(dir.path())?;
    config.site.archive.dir = home.join("archive");
    Ok((config, dir))
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

/// The probe measures the path through the lab's firewall: the first one (fw1), whose faults
/// the packets feel; a mixed fleet's other firewalls are not on the probe's path.
fn add_probe(lab: &Lab) -> Result<(), Stop> {
    let faults: Vec<Fault> = lab
        .devices
        .iter()
        .find(|d| d.platform == crate::core::Platform::Fortigate)
        .map(|d| d.faults.clone())
        .unwrap_or_default();
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
        // The demo's site exists only while it runs: its commands say `premarket demo`.
        invocation: Invocation {
            dir: None,
            mode: Mode::Demo {
                home: args.home.as_deref().map(super::absolute),
            },
        },
        ..Request::default()
    };
    Ok(finish(drive(request)))
}
