//! `baselines/site.yaml`: the site as a whole (name, time zone, deadline, devices, defaults).

use std::path::PathBuf;

use serde::Deserialize;
use serde_saphyr::Spanned;

/// The site file as written. Times are `HH:MM` in the site's time zone.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteFile {
    /// Short name shown in the email subject, e.g. `taipei-colo`.
    pub site: String,
    /// IANA time zone, e.g. `Asia/Taipei`; every timestamp a person reads is in it.
    pub timezone: Spanned<String>,
    /// When the market opens (for the report's context).
    #[serde(default)]
    pub market_open: Option<Spanned<String>>,
    /// When the report must be out, whatever has not finished by then is ERROR.
    #[serde(default)]
    pub deadline: Option<Spanned<String>>,
    pub devices: Vec<DeviceEntry>,
    #[serde(default)]
    pub ssh: SshDefaults,
}

/// One device of the site and its baseline file (relative to `baselines/`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceEntry {
    pub name: Spanned<String>,
    pub baseline: Spanned<PathBuf>,
}

/// Connection defaults shared by all devices.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SshDefaults {
    /// known_hosts file used to verify host keys (relative to `baselines/`).
    pub known_hosts: Option<PathBuf>,
    pub connect_timeout_s: u64,
    pub command_timeout_s: u64,
    /// How many devices are inspected at once.
    pub concurrency: usize,
}

impl Default for SshDefaults {
    fn default() -> Self {
        SshDefaults {
            known_hosts: None,
            connect_timeout_s: 10,
            command_timeout_s: 60,
            concurrency: 16,
        }
    }
}
