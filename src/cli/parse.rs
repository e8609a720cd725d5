//! `premarket parse PLATFORM COMMAND [FILE]`: a parser's facts as JSON, for operators checking a
//! saved output and for scripts. `FILE.zst` is read through zstd (the archive keeps its raw
//! outputs so). A large output, from a file or standard input, is never held whole: the parser
//! streams it (standard input through a spool file), capped at 2048 MB as live outputs are.

use std::io::Read;
use std::path::PathBuf;

use super::Stop;
use crate::core::Exit as Code;
use crate::core::{Output, Platform};
use crate::parse::Raw;
use crate::spool::{self, SavedError, SpoolDir, SpoolWriter};
use crate::ssh::session::MAX_OUTPUT;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// fortigate or eos.
    pub platform: Platform,
    /// The command whose output this is, e.g. "show version".
    pub command: String,
    /// The saved output (plain, or `.zst`); standard input when absent.
    pub file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Stop> {
    let output = match &args.file {
        Some(path) => spool::read_saved(path, MAX_OUTPUT).map_err(|e| match e {
            SavedError::File(e) => Stop::config(e.to_string()),
            e => Stop::config(format!("{}: {e}", path.display())),
        })?,
        None => stdin().map_err(|e| Stop::config(format!("cannot read stdin: {e}")))?,
    };
    let Some(query) = crate::platform::query_for(args.platform, &args.command) else {
        let known: Vec<&str> = crate::platform::queries(args.platform)
            .iter()
            .map(|q| q.shape.text())
            .collect();
        return Err(Stop {
            code: Code::Error.code(),
            message: format!(
                "no {} parser for {:?}; premarket reads: {}",
                args.platform,
                args.command,
                known.join(", ")
            ),
        });
    };
    match (query.parse_json)(&mut Raw::output(&output)) {
        Ok(fact) => {
            let json = serde_json::to_string_pretty(&fact).unwrap_or_default();
            outln!("{json}");
            Ok(0)
        }
        Err(e) => Err(Stop {
            code: Code::Error.code(),
            message: format!("cannot parse: {}\n--- excerpt ---\n{}", e.reason, e.excerpt),
        }),
    }
}

/// Standard input, spooled to a temporary file when it is large.
fn stdin() -> Result<Output, StdinError> {
    let mut writer = SpoolWriter::new(&SpoolDir::temporary(), MAX_OUTPUT);
    let mut input = std::io::stdin().lock();
    let mut buf = vec![0u8; 256 << 10];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => writer.write(&buf[..n])?,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(StdinError::Read(e)),
        }
    }
    Ok(writer.finish()?)
}

/// Why standard input could not be taken in.
#[derive(Debug, thiserror::Error)]
enum StdinError {
    #[error("{0}")]
    Read(std::io::Error),
    /// Spooling it to a temporary file failed.
    #[error("{0}")]
    Spool(#[from] spool::SpoolError),
}
