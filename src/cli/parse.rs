//! `premarket parse PLATFORM COMMAND [FILE]`: a parser's facts as JSON, for operators checking a
//! saved output and for scripts.

use std::io::Read;
use std::path::PathBuf;

use super::Stop;
use crate::core::Exit as Code;
use crate::core::Platform;
use crate::parse::Raw;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// fortigate or eos.
    pub platform: Platform,
    /// The command whose output this is, e.g. "show version".
    pub command: String,
    /// The saved output; standard input when absent.
    pub file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Stop> {
    let raw = match &args.file {
        Some(path) => std::fs::read(path)
            .map_err(|e| Stop::config(format!("cannot read {}: {e}", path.display())))?,
        None => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Stop::config(format!("cannot read stdin: {e}")))?;
            buf
        }
    };
    let raw = String::from_utf8_lossy(&raw);
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
    match (query.parse_json)(&mut Raw::new(&raw)) {
        Ok(fact) => {
            let json = serde_json::to_string_pretty(&fact).unwrap_or_default();
            println!("{json}");
            Ok(0)
        }
        Err(e) => Err(Stop {
            code: Code::Error.code(),
            message: format!("cannot parse: {}\n--- excerpt ---\n{}", e.reason, e.excerpt),
        }),
    }
}
