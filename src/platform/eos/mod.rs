//! Arista EOS: commands, prompt and error strings, output parsers and the baseline shape.
//!
//! Over SSH EOS starts unprivileged (`HOST>`); `show running-config` and its `diffs` need
//! `enable` first (the lab notes' third finding). JSON is requested where EOS offers it
//! (`| json`), and every parser also reads the text form.

pub mod allowlist;
mod baseline;
pub mod cli;
mod config;
mod diffs;
mod json;
mod lanz;
pub mod redact;
pub mod text;
mod version;

pub use baseline::Expect;
pub use config::Config;
pub use diffs::{Change, Diffs, Hunk};
pub use lanz::LanzStatus;
pub use version::Version;

use crate::parse::{Fact, ParseError};
use crate::plan::Command;

/// The commands premarket sends to a switch.
pub mod commands {
    pub const SHOW_VERSION: &str = "show version | json";
    pub const SHOW_LANZ_STATUS: &str = "show queue-monitor length status | json";
    pub const SHOW_STARTUP_CONFIG: &str = "show startup-config";
    pub const SHOW_RUNNING_CONFIG: &str = "show running-config";
    pub const SHOW_RUNNING_CONFIG_DIFFS: &str = "show running-config diffs";
}

/// Parses `raw` as the output of `command` (with or without `| json`).
pub fn parse(command: &Command, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    parse_text(&command.text, raw)
}

/// As [`parse`], for a command given as text (`premarket parse eos "show version"`).
pub fn parse_text(command: &str, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    let base = command
        .trim()
        .trim_end_matches("| json")
        .trim_end_matches("| no-more")
        .trim();
    let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
    match base.as_str() {
        "show version" => Ok(Box::new(version::parse(raw)?)),
        "show queue-monitor length status" => Ok(Box::new(lanz::parse(raw)?)),
        "show startup-config" | "show running-config" => Ok(Box::new(config::parse(raw)?)),
        "show running-config diffs" => Ok(Box::new(diffs::parse(raw)?)),
        _ => Err(ParseError::unsupported(command)),
    }
}
