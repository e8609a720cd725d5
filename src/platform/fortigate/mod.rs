//! FortiGate (FortiOS): commands, prompt and error strings, output parsers and the baseline.

pub mod allowlist;
pub mod cli;
pub mod redact;

use serde::Deserialize;

use crate::parse::{Fact, ParseError};
use crate::plan::Command;

/// What a firewall should look like (`expect:` in a FortiGate device file).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {}

/// Parses `raw` as the output of `command`.
pub fn parse(command: &Command, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    parse_text(&command.text, raw)
}

/// As [`parse`], for a command given as text.
pub fn parse_text(command: &str, _raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    Err(ParseError::unsupported(command))
}
