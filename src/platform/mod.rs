//! What each kind of device knows: its commands, prompts and errors, its output parsers and the
//! shape of its baseline. One folder per platform; no FortiOS or EOS string lives elsewhere.

pub mod eos;
pub mod fortigate;

use crate::core::{Command, Platform};
use crate::parse::{Fact, ParseError};

/// Parses one command's output into facts with `platform`'s parser for that command.
pub fn parse(
    platform: Platform,
    command: &Command,
    raw: &str,
) -> Result<Box<dyn Fact>, ParseError> {
    match platform {
        Platform::Eos => eos::parse(command, raw),
        Platform::Fortigate => fortigate::parse(command, raw),
        Platform::Probe => crate::probe::facts::parse(command, raw),
    }
}

/// `raw` with `platform`'s secrets (passwords, keys, `ENC` blobs) replaced by `<redacted>`, for
/// everything premarket writes down: evidence, archive, email.
pub fn redact(platform: Platform, raw: &str) -> String {
    match platform {
        Platform::Eos => eos::redact::redact(raw),
        Platform::Fortigate => fortigate::redact::redact(raw),
        Platform::Probe => raw.to_string(),
    }
}
