//! The command line. Each subcommand is one small file: its flags with their docs, and a `run`
//! that returns the process exit code. `main` only sets up logging and maps errors to exit
//! codes. Shell completions and the man page are generated from these definitions
//! (`premarket completions SHELL`, `premarket man`). Nothing here prints with `println!`: a
//! closed terminal must not panic a run ([`print`](mod@print)).

#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
pub mod print;

mod accept;
mod ack;
mod capture;
pub mod complete;
#[cfg(feature = "lab")]
mod demo;
mod demo_home;
#[cfg(feature = "lab")]
mod demo_references;
mod diff;
mod explain;
mod history;
mod import;
mod init;
mod inspect;
#[cfg(feature = "lab")]
mod lab;
mod list;
mod man;
mod models;
mod parse;
mod plan;
pub mod probe;
mod show_baseline;
mod trust;
mod validate;

pub use explain::{baseline_text as explain_baseline, check_text as explain_check};
pub use list::markdown as list_markdown;
pub use models::markdown as models_markdown;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use clap_complete::ArgValueCandidates;

use crate::config::{Config, ConfigErrors};

#[derive(Debug, Parser)]
#[command(
    name = "premarket",
    version,
    about = "Pre-market inspection of the trading network"
)]
pub struct Cli {
    /// Configuration directory holding baselines/ and checks/ [default: the current directory].
    #[arg(long, global = true, env = "PREMARKET_DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
    /// More log on stderr: -v info, -vv debug, -vvv trace (RUST_LOG overrides). Secrets are
    /// never logged.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
    /// `--dir` was written on the command line (not taken from `PREMARKET_DIR`): the commands
    /// that use their own site (`demo`, `lab`, `history --demo`, `diff --demo`) refuse it
    /// rather than ignore it.
    #[arg(skip)]
    pub dir_on_command_line: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect: collect, judge against the baselines, report; exit 0 OK, 1 FAIL, 2 ERROR, 3 not run.
    Run(inspect::RunArgs),
    /// Rerun one check (after a fix): same as `run --check ID`.
    Check(inspect::CheckArgs),
    /// List checks, their devices, commands and tags.
    List(list::Args),
    /// What a check proves, sends, reads and how to fix it; --baseline: every key of the site
    /// and device files.
    Explain(explain::Args),
    /// Load and validate every configuration file; contacts nothing.
    Validate,
    /// Acknowledge a known FAIL until a date (baselines/acks.yaml); --list, --remove.
    Ack(ack::Args),
    /// Dry run: the exact commands that would be sent to each device, in order.
    Plan(plan::Args),
    /// Emulated devices on loopback SSH (`lab serve`).
    #[cfg(feature = "lab")]
    Lab(lab::Args),
    /// Start the lab, inspect it over SSH with the example site, write the email to a file.
    #[cfg(feature = "lab")]
    #[command(after_help = demo::scenarios_help())]
    Demo(demo::Args),
    /// Parse a saved output and print its facts as JSON.
    Parse(parse::Args),
    /// Recent runs from the archive and, per check, when it started failing or was fixed.
    History(history::Args),
    /// Make a device's latest reading the reference its comparisons judge against (a planned
    /// change; a fault fixed whose counters were not cleared); contacts no device.
    Accept(accept::Args),
    /// What changed between two archived runs: configuration diff and box facts; exit 0 no
    /// change, 1 changed, 3 no such run.
    Diff(diff::Args),
    /// Save every planned command's raw output as `DIR/<device>/<file>` (the offline layout).
    Capture(capture::Args),
    /// Show the host key a device offers, and how to pin it after checking it; exit 0 known
    /// key, 1 none known yet, 3 not the known one.
    #[command(after_help = trust::EXIT_CODES)]
    Trust(trust::Args),
    /// A commented starting site for a real network in DIR (one FortiGate, one switch).
    Init(init::Args),
    /// Devices from an inventory as baselines to fill in (`import ansible FILE`).
    Import(import::Args),
    /// Print a device's baseline as the checks read it (merged with the role files it
    /// extends), each line with the file and line it comes from.
    ShowBaseline(show_baseline::Args),
    /// The latency probe: analyse captures, or send and capture live.
    Probe(Box<probe::Args>),
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell): it completes
    /// check ids, device names and scenarios from the site. Or: `source <(COMPLETE=bash premarket)`.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write one per subcommand with --out DIR.
    Man(man::Args),
}

/// An error that ends the process with a given exit code and message.
#[derive(Debug)]
pub struct Stop {
    pub code: u8,
    pub message: String,
}

impl Stop {
    pub fn config(message: impl Into<String>) -> Self {
        Stop {
            code: crate::core::Exit::NotRun.code(),
            message: message.into(),
        }
    }
}

impl From<ConfigErrors> for Stop {
    fn from(e: ConfigErrors) -> Self {
        Stop::config(e.to_string())
    }
}

impl From<crate::plan::PlanError> for Stop {
    fn from(e: crate::plan::PlanError) -> Self {
        Stop::config(e.to_string())
    }
}

impl Cli {
    /// Parses the process's arguments, as `Cli::try_parse` does, and remembers whether `--dir`
    /// was given on the command line.
    pub fn try_parse_args() -> Result<Cli, clap::Error> {
        use clap::{CommandFactory, FromArgMatches};
        let mut matches = Cli::command().try_get_matches()?;
        let given = matches.value_source("dir") == Some(clap::parser::ValueSource::CommandLine);
        let mut cli =
            Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut Cli::command()))?;
        cli.dir_on_command_line = given;
        Ok(cli)
    }

    /// Why this command would ignore a `--dir` given on the command line, if it would.
    fn ignores_dir(&self) -> Option<&'static str> {
        const DEMO_HOME: &str = "--demo reads the demo's runs (its --home), not a site's: drop \
                                 --dir, or drop --demo to read the site in DIR";
        match &self.command {
            #[cfg(feature = "lab")]
            Command::Demo(_) => Some(
                "`demo` inspects the lab with its built-in example site, not a site directory: \
                 drop --dir (to inspect the site in DIR: `premarket run --dir DIR`)",
            ),
            #[cfg(feature = "lab")]
            Command::Lab(_) => Some(
                "`lab` serves its built-in example site, not a site directory: drop --dir \
                 (`lab serve --site-dir DIR` writes the lab's site where you say)",
            ),
            Command::History(args) if args.demo => Some(DEMO_HOME),
            Command::Diff(args) if args.demo => Some(DEMO_HOME),
            _ => None,
        }
    }

    /// The configuration directory: `--dir`, else `PREMARKET_DIR`, else the current directory.
    pub fn dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// How this run was started, for the commands its report prints: the configuration
    /// directory, made absolute (a run started inside the site directory, as cron's `cd SITE
    /// && premarket run` does, prints it too, so a command pasted from `~` works), unless an
    /// absolute `PREMARKET_DIR` names it (a shell with the variable finds the site without it;
    /// a relative one means another directory elsewhere, so the path is printed).
    pub fn invocation(&self) -> crate::report::Invocation {
        let dir = absolute(&self.dir());
        let named_by_env = std::env::var_os("PREMARKET_DIR")
            .map(PathBuf::from)
            .is_some_and(|env| env.is_absolute() && absolute(&env) == dir);
        crate::report::Invocation {
            dir: (!named_by_env).then_some(dir),
            mode: crate::report::Mode::Site,
        }
    }
}

/// `path` made absolute against the current directory (not resolved: a link stays a link).
pub fn absolute(path: &std::path::Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Runs the parsed command line; returns the exit code.
pub fn run(cli: Cli) -> Result<u8, Stop> {
    if let Some(why) = cli.ignores_dir().filter(|_| cli.dir_on_command_line) {
        return Err(Stop::config(why));
    }
    let dir = cli.dir();
    let invocation = cli.invocation();
    match cli.command {
        Command::Run(args) => inspect::run(&dir, invocation, args),
        Command::Check(args) => inspect::check(&dir, invocation, args),
        Command::List(args) => list::run(&dir, args),
        Command::Explain(args) => explain::run(&dir, args),
        Command::Validate => validate::run(&dir),
        Command::Ack(args) => ack::run(&dir, invocation, args),
        Command::Plan(args) => plan::run(&dir, args),
        #[cfg(feature = "lab")]
        Command::Lab(args) => lab::run(args),
        #[cfg(feature = "lab")]
        Command::Demo(args) => demo::run(args),
        Command::Parse(args) => parse::run(args),
        Command::History(args) => history::run(&dir, args),
        Command::Accept(args) => accept::run(&dir, invocation, args),
        Command::Diff(args) => diff::run(&dir, args),
        Command::Capture(args) => capture::run(&dir, args),
        Command::Trust(args) => trust::run(&dir, args),
        Command::ShowBaseline(args) => show_baseline::run(&dir, args),
        Command::Init(args) => init::run(args),
        Command::Import(args) => import::run(&dir, args),
        Command::Probe(args) => probe::run(&dir, *args),
        Command::Completions { shell } => {
            crate::report::terminal::print_quietly(&complete::registration(shell)?);
            Ok(0)
        }
        Command::Man(args) => man::run(&dir, args),
    }
}

fn load(dir: &std::path::Path) -> Result<Config, Stop> {
    Ok(Config::load(dir)?)
}

/// The log filter for `-v` counts; `RUST_LOG` wins when set.
pub fn log_filter(verbose: u8) -> String {
    match verbose {
        0 => "warn",
        1 => "info",
        2 => "premarket=debug,info",
        _ => "premarket=trace,debug",
    }
    .to_string()
}

/// Selection flags shared by `run`, `list` and `plan`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SelectArgs {
    /// Check id or glob (`eos.lanz.*`); repeatable.
    #[arg(long = "check", value_name = "ID|GLOB", add = ArgValueCandidates::new(complete::check_ids))]
    pub checks: Vec<String>,
    /// Device name; repeatable.
    #[arg(long = "device", value_name = "NAME", add = ArgValueCandidates::new(complete::device_names))]
    pub devices: Vec<String>,
    /// Tag from the catalog; repeatable.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
}

impl SelectArgs {
    pub fn selection(&self) -> crate::plan::Selection {
        crate::plan::Selection {
            checks: self.checks.clone(),
            devices: self.devices.clone(),
            tags: self.tags.clone(),
        }
    }
}
