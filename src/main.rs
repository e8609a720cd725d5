//! The `premarket` binary: parse the command line, set up logging, run, map the outcome to an
//! exit code. A closed stdout or stderr (`premarket demo 2>&1 | head -2`) never panics: prints
//! go through [`premarket::cli::print`] and the log's writer ignores a closed stream, so the
//! run's exit code stands.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use std::io::IsTerminal;

use clap::CommandFactory;
use premarket::cli::{self, Cli};
use premarket::core::Exit;

fn main() -> ExitCode {
    fewer_malloc_arenas();
    // A shell asking for completions (`COMPLETE=bash premarket -- ...`) is answered and the
    // process ends here; otherwise this does nothing.
    clap_complete::CompleteEnv::with_factory(Cli::command).complete();
    let cli = match Cli::try_parse_args() {
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
            premarket::cli::print::err(format_args!("premarket: {}\n", stop.message));
            ExitCode::from(stop.code)
        }
    }
}

/// glibc gives each thread that allocates at once an arena of its own, up to eight per core;
/// a run's sessions allocate on every worker and blocking thread, and the arenas' free room
/// adds up: two arenas took a 1000-device run's peak from 308-318 MB to 294-303 MB, at the
/// same CPU (tests/bench/README.md). `MALLOC_ARENA_MAX` in the environment still decides.
fn fewer_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; called before any other thread.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

/// Logs (`tracing`) go to stderr, at the level `-v` asks for, or as `RUST_LOG` says (but for
/// the logs that would cut a secret in pieces, [`premarket::report::redact::QUIET`] and, at
/// trace, [`premarket::report::redact::QUIET_AT_TRACE`]), with
/// every secret read so far masked.
fn logging(verbose: u8) {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(cli::log_filter(verbose)));
    let tracing = matches!(
        filter.max_level_hint(),
        None | Some(tracing_subscriber::filter::LevelFilter::TRACE)
    );
    let at_trace = premarket::report::redact::QUIET_AT_TRACE
        .iter()
        .filter(|_| tracing);
    for quiet in premarket::report::redact::QUIET.iter().chain(at_trace) {
        if let Ok(directive) = quiet.parse() {
            filter = filter.add_directive(directive);
        }
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(premarket::report::redact::LogWriter)
        // By default a failed write is reported with `eprintln!`, which panics when stderr
        // is closed: a closed log is not worth a word.
        .log_internal_errors(false)
        // Colour codes are for a person at a terminal, not for a log file or journald.
        .with_ansi(premarket::report::text::use_colour(
            std::io::stderr().is_terminal(),
        ))
        .with_target(verbose >= 2)
        .try_init();
}
