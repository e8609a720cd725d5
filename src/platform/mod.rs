//! What each kind of device knows: its commands, prompts and errors, its output parsers and the
//! shape of its baseline. One folder per platform; no FortiOS or EOS string lives elsewhere.

pub mod eos;
pub mod fortigate;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::parse::{Fact, ParseError};
use crate::plan::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Fortigate,
    Eos,
    /// The latency probe: a collector of its own, not an SSH device.
    Probe,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Fortigate, Platform::Eos, Platform::Probe];

    pub fn name(self) -> &'static str {
        match self {
            Platform::Fortigate => "fortigate",
            Platform::Eos => "eos",
            Platform::Probe => "probe",
        }
    }

    /// Parses one command's output into facts with this platform's parser for that command.
    pub fn parse(self, command: &Command, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
        match self {
            Platform::Eos => eos::parse(command, raw),
            Platform::Fortigate => fortigate::parse(command, raw),
            Platform::Probe => crate::probe::facts::parse(command, raw),
        }
    }

    /// `raw` with this platform's secrets (passwords, keys, `ENC` blobs) replaced by
    /// `<redacted>`, for everything premarket writes down: evidence, archive, email.
    pub fn redact(self, raw: &str) -> String {
        match self {
            Platform::Eos => eos::redact::redact(raw),
            Platform::Fortigate => fortigate::redact::redact(raw),
            Platform::Probe => raw.to_string(),
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Platform {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Platform::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown platform {s:?} (use fortigate, eos or probe)"))
    }
}
