//! The command line. Each subcommand is one small file: its flags with their docs, and a `run`
//! that returns the process exit code. `main` only sets up logging and maps errors to exit
//! codes. Shell completions and the man page are generated from these definitions
//! (`premarket completions SHELL`, `premarket man`). Nothing here prints with `println!`: a
//! closed terminal must not panic a run ([`print`]).

#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
pub mod print;

mod capture;
#[cfg(feature = "lab")]
mod demo;
mod demo_home;
mod diff;
mod history;
mod inspect;
#[cfg(feature = "lab")]
mod lab;
mod list;
mod models;
mod parse;
mod plan;
pub mod probe;
mod trust;
mod validate;

pub use list::markdown as list_markdown;
pub use models::markdown as models_markdown;

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

use crate::config::{Config, ConfigErrors};

#[derive(Debug, Parser)]
#[command(
    name = "premarket",
    version,
    about = "Pre-market inspection of the trading network"
)]
pub struct Cli {
    /// Configuration directory holding baselines/ and checks/.
    #[arg(long, global = true, env = "PREMARKET_DIR", default_value = ".")]
    pub dir: PathBuf,
    /// More log on stderr: -v info, -vv debug, -vvv trace (RUST_LOG overrides). Secrets are
    /// never logged.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect: collect, judge against the baselines, report; exit 0 OK, 1 FAIL, 2 ERROR, 3 not run.
    Run(inspect::RunArgs),
    /// Rerun one check (after a fix): same as `run --check ID`.
    Check(inspect::CheckArgs),
    /// List checks, their devices, commands and tags.
    List(list::Args),
    /// Load and validate every configuration file; contacts nothing.
    Validate,
    /// Dry run: the exact commands that would be sent to each device, in order.
    Plan(plan::Args),
    /// Emulated devices on loopback SSH (`lab serve`).
    #[cfg(feature = "lab")]
    Lab(lab::Args),
    /// Start the lab, inspect it over SSH with the example site, write the email to a file.
    #[cfg(feature = "lab")]
    Demo(demo::Args),
    /// Parse a saved output and print its facts as JSON.
    Parse(parse::Args),
    /// Recent runs from the archive and, per check, when it started failing or was fixed.
    History(history::Args),
    /// What changed between two archived runs: configuration diff and box facts; exit 0 no
    /// change, 1 changed, 3 no such run.
    Diff(diff::Args),
    /// Save every planned command's raw output as DIR/<device>/<file> (the offline layout).
    Capture(capture::Args),
    /// Show the host key a device offers, and how to pin it after checking it.
    Trust(trust::Args),
    /// The latency probe: analyse captures, or send and capture live.
    Probe(Box<probe::Args>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(hide = true)]
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) generated from this command line.
    #[command(hide = true)]
    Man,
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

/// Runs the parsed command line; returns the exit code.
pub fn run(cli: Cli) -> Result<u8, Stop> {
    match cli.command {
        Command::Run(args) => inspect::run(&cli.dir, args),
        Command::Check(args) => inspect::check(&cli.dir, args),
        Command::List(args) => list::run(&cli.dir, args),
        Command::Validate => validate::run(&cli.dir),
        Command::Plan(args) => plan::run(&cli.dir, args),
        #[cfg(feature = "lab")]
        Command::Lab(args) => lab::run(args),
        #[cfg(feature = "lab")]
        Command::Demo(args) => demo::run(args),
        Command::Parse(args) => parse::run(args),
        Command::History(args) => history::run(&cli.dir, args),
        Command::Diff(args) => diff::run(&cli.dir, args),
        Command::Capture(args) => capture::run(&cli.dir, args),
        Command::Trust(args) => trust::run(&cli.dir, args),
        Command::Probe(args) => probe::run(&cli.dir, *args),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "premarket", &mut out);
            crate::report::terminal::print_quietly(&String::from_utf8_lossy(&out));
            Ok(0)
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .map_err(|e| Stop::config(format!("cannot render the man page: {e}")))?;
            crate::report::terminal::print_quietly(&String::from_utf8_lossy(&out));
            Ok(0)
        }
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
    #[arg(long = "check", value_name = "ID|GLOB")]
    pub checks: Vec<String>,
    /// Device name; repeatable.
    #[arg(long = "device", value_name = "NAME")]
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
