//! The `premarket` binary: parse the command line, set up logging, run, map the outcome to an
//! exit code.

use std::process::ExitCode;

use clap::Parser;
use premarket::cli::{self, Cli};
use premarket::core::Exit;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // A usage error means nothing ran; --help and --version are fine.
            return if e.use_stderr() {
                Exit::NotRun
            } else {
                Exit::Ok
            }
            .into();
        }
    };
    logging(cli.verbose);
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(stop) => {
            eprintln!("premarket: {}", stop.message);
            ExitCode::from(stop.code)
        }
    }
}

/// Logs (`tracing`) go to stderr, at the level `-v` asks for, or as `RUST_LOG` says, with every
/// secret read so far masked.
fn logging(verbose: u8) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(cli::log_filter(verbose)));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(premarket::report::redact::LogWriter)
        .with_target(verbose >= 2)
        .try_init();
}

/// `premarket ... | head`: when the reader of stdout goes away, end quietly with the shell's
/// code for SIGPIPE (141) instead of a "failed printing to stdout" panic. Only stdout: a
/// closed socket to a device or a relay stays an error of that connection.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
