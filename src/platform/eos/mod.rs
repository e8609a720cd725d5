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
pub mod igmp_groups;
pub mod igmp_querier;
pub mod igmp_snooping;
pub mod interface_errors;
pub mod interfaces;
mod json;
mod lanz;
pub mod lanz_records;
pub mod ntp_associations;
pub mod ntp_status;
pub mod ptp;
pub mod queue_drops;
pub mod redact;
pub mod reload_cause;
pub mod text;
pub mod transceivers;
mod version;

pub use baseline::Expect;
pub use config::Config;
pub use diffs::{Change, Diffs, Hunk};
pub use igmp_groups::IgmpGroups;
pub use igmp_querier::{IgmpQuerier, IgmpQueriers};
pub use igmp_snooping::{IgmpSnooping, IgmpSnoopingVlan};
pub use interface_errors::{ErrorCounters, InterfaceErrors};
pub use interfaces::{Interface, InterfaceCounters, Interfaces};
pub use lanz::LanzStatus;
pub use lanz_records::{LanzRecord, LanzRecords};
pub use ntp_associations::{NtpAssociations, NtpPeer};
pub use ntp_status::NtpStatus;
pub use ptp::{Ptp, PtpClock, PtpPortState};
pub use queue_drops::{ClassDrops, QueueDrops};
pub use reload_cause::{ReloadCause, ResetCause};
pub use transceivers::{OpticalPower, Transceiver, Transceivers};
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
