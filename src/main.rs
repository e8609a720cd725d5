//! The `premarket` binary: parse the command line, run, map the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;
use premarket::cli::{self, Cli};
use premarket::core::Exit;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // DESIGN §3: a usage error means nothing ran (3); --help and --version are fine (0).
            return ExitCode::from(if e.use_stderr() {
                Exit::NotRun
            } else {
                Exit::Ok
            });
        }
    };
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(exit) => {
            eprintln!("premarket: {}", exit.message);
            ExitCode::from(exit.code)
        }
    }
}
