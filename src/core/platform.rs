//! The kinds of device premarket inspects. What each one knows (commands, parsers, prompts)
//! lives in the platform module of its name; here is only the name.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Fortigate,
    Eos,
    /// The latency probe: a collector of its own, not an SSH device.
    Probe,
    /// Not a device: the scope of the checks over several devices' facts (`site.*`), whose
    /// verdicts stand under the site's name. No device file names it.
    Site,
}

impl Platform {
    pub const ALL: [Platform; 4] = [
        Platform::Fortigate,
        Platform::Eos,
        Platform::Probe,
        Platform::Site,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Platform::Fortigate => "fortigate",
            Platform::Eos => "eos",
            Platform::Probe => "probe",
            Platform::Site => "site",
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
            .ok_or_else(|| format!("unknown platform {s:?} (use fortigate, eos, probe, or site for a check over several devices)"))
    }
}
