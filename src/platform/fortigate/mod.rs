//! FortiGate (FortiOS): the commands premarket sends, the parsers of their output and the
//! baseline shape. The SSH layer's prompt/pager/error profile and read-only allowlist for
//! FortiOS live beside these (`cli.rs`, `allowlist.rs`).
//!
//! Every parser is tolerant of what saved and live output really looks like: an echoed
//! `HOST # command` line, CRLF, trailing spaces, lost indentation, `--More--` pager remnants,
//! unknown keys and missing optional lines ([`text`] cleans, [`kv`] tokenizes `key=value`).

pub mod allowlist;
mod baseline;
pub mod cli;
pub mod commands;
mod config_tree;
mod ha;
pub mod kv;
mod mcast;
pub mod npu;
pub mod npu_port_list;
pub mod ntp_status;
mod performance;
pub mod redact;
mod session_filter;
pub mod session_list;
mod session_stat;
pub mod session_ttl;
mod status;
pub mod system_interface;
pub mod text;
mod ttl;

pub use baseline::{Expect, Flow, HaExpect, HaMode, Percent, Protocol, Seconds};
pub use config_tree::{ConfigNode, ConfigTree};
pub use ha::{HaStatus, Member};
pub use mcast::{McastPath, McastSession, McastSessionList};
pub use npu::NpuSettings;
pub use npu_port_list::{NpuPort, NpuPortList};
pub use ntp_status::{NtpServer, NtpStatus};
pub use performance::{CpuStates, Performance};
pub use session_filter::SessionFilterReadback;
pub use session_list::{OffloadBasis, Session, SessionList, SessionReader};
pub use session_stat::SessionStat;
pub use session_ttl::{SessionTtl, SessionTtlPort};
pub use status::SystemStatus;
pub use system_interface::{SystemInterface, SystemInterfaces};
pub use ttl::Ttl;

use crate::parse::{Fact, ParseError};
use crate::plan::Command;

/// Parses `raw` as the output of `command` (its context does not change the grammar).
pub fn parse(command: &Command, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    parse_text(&command.text, raw)
}

/// As [`parse`], for a command given as text (`premarket parse fortigate "get system status"`).
/// Arguments after a `show` table name (`show firewall policy 1`) and `| grep .` are accepted.
pub fn parse_text(command: &str, raw: &str) -> Result<Box<dyn Fact>, ParseError> {
    let base = command.split('|').next().unwrap_or(command);
    let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
    let shows = [
        commands::SHOW_POLICY,
        commands::SHOW_MULTICAST_POLICY,
        commands::SHOW_SERVICE_CUSTOM,
        commands::SHOW_VIRTUAL_WIRE_PAIR,
    ];
    match base.as_str() {
        commands::GET_SYSTEM_STATUS => Ok(Box::new(status::parse(raw)?)),
        commands::GET_PERFORMANCE_STATUS => Ok(Box::new(performance::parse(raw)?)),
        commands::GET_HA_STATUS => Ok(Box::new(ha::parse(raw)?)),
        commands::GET_SYSTEM_GLOBAL => Ok(Box::new(config_tree::parse(raw)?)),
        commands::SESSION_STAT => Ok(Box::new(session_stat::parse(raw)?)),
        commands::SESSION_LIST => Ok(Box::new(session_list::parse(raw)?)),
        commands::MCAST_SESSION_LIST => Ok(Box::new(mcast::parse(raw)?)),
        commands::SESSION_FILTER => Ok(Box::new(session_filter::parse(raw)?)),
        b if shows
            .iter()
            .any(|s| b == *s || b.starts_with(&format!("{s} "))) =>
        {
            Ok(Box::new(config_tree::parse(raw)?))
        }
        _ => Err(ParseError::unsupported(command)),
    }
}
