//! `premarket parse PLATFORM COMMAND [FILE]`: a parser's facts as JSON, for operators checking a
//! saved output and for scripts.

use std::io::Read;
use std::path::PathBuf;

use super::Exit;
use crate::core::Platform;
use crate::platform::{eos, fortigate};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// fortigate or eos.
    pub platform: Platform,
    /// The command whose output this is, e.g. "show version".
    pub command: String,
    /// The saved output; standard input when absent.
    pub file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Exit> {
    let raw = match &args.file {
        Some(path) => std::fs::read(path)
            .map_err(|e| Exit::config(format!("cannot read {}: {e}", path.display())))?,
        None => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Exit::config(format!("cannot read stdin: {e}")))?;
            buf
        }
    };
    let raw = String::from_utf8_lossy(&raw);
    let parsed = match args.platform {
        Platform::Eos => eos::parse_text(&args.command, &raw),
        Platform::Fortigate => fortigate::parse_text(&args.command, &raw),
        Platform::Probe => {
            return Err(Exit {
                code: 2,
                message: "probe output is analysed with `premarket probe analyze`".into(),
            });
        }
    };
    match parsed {
        Ok(fact) => {
            let json = serde_json::to_string_pretty(&fact.to_json()).unwrap_or_default();
            println!("{json}");
            Ok(0)
        }
        Err(e) => Err(Exit {
            code: 2,
            message: format!("cannot parse: {}\n--- excerpt ---\n{}", e.reason, e.excerpt),
        }),
    }
}
