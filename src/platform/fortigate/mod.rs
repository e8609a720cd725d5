//! FortiGate (FortiOS): the commands premarket sends, the parsers of their output and the
//! baseline shape. The SSH layer's prompt/pager/error profile and read-only allowlist for
//! FortiOS live beside these (`cli.rs`, `allowlist.rs`).
//!
//! Every parser is tolerant of what saved and live output really looks like: an echoed
//! `HOST # command` line, CRLF, trailing spaces, lost indentation, `--More--` pager remnants,
//! unknown keys and missing optional lines ([`text`] cleans, [`kv`] tokenizes `key=value`).

pub mod allowlist;
pub mod bgp_summary;
pub mod clearing;
pub mod cli;
mod config_shows;
mod config_tree;
pub mod firewall;
pub mod firewall_shell;
mod flow;
mod full_config;
mod ha;
pub mod ha_checksum;
pub mod ha_links;
pub mod kv;
mod mcast;
pub mod model;
pub mod nic;
pub mod npu;
pub mod npu_feature;
pub mod npu_port_list;
mod npu_port_list_np6;
pub mod npu_ports;
pub mod ntp_status;
mod performance;
mod policy;
pub mod printed;
pub mod redact;
pub mod reviewed;
mod service;
pub mod session_filter;
pub mod session_list;
mod session_stat;
pub mod session_summary;
pub mod session_ttl;
pub mod spec;
mod status;
pub mod system_interface;
pub mod text;
pub mod topology;
mod ttl;
pub mod vdoms;

pub use bgp_summary::{BgpPeer, BgpSummary, GetBgpSummary, UpFor};
pub use config_shows::{ShowSystemInterface, ShowVirtualSwitch, ShowVirtualWirePair};
pub use config_tree::{ConfigNode, ConfigTree, parse as parse_config};
pub use flow::{Flow, OffloadProof, Protocol};
pub use full_config::ShowConfig;
pub use ha::{GetHaStatus, HaStatus, Member};
pub use ha_checksum::{ChecksumMember, DiagHaChecksum, HaChecksums, TableSum};
pub use ha_links::{HaLink, HaLinks, LinkCounters, LinkRole};
pub use mcast::{DiagMcastSessions, McastPath, McastSession, McastSessionList};
pub use nic::{DiagNic, Nic, NicLayout};
pub use npu::{NpuSettings, ShowSystemNpu};
pub use npu_feature::{DiagNpuFeature, Np6xliteSettings, NpuFeatures, ShowSystemNp6xlite};
pub use npu_port_list::{DiagNpuPortList, Np, NpuPort, NpuPortList};
pub use ntp_status::{DiagNtpStatus, NtpServer, NtpStatus};
pub use performance::{CpuStates, GetPerformanceStatus, Performance};
pub use policy::{FirewallPolicy, PROFILE_KEYS, PolicyShow, ShowMulticastPolicy, ShowPolicy};
pub use service::{FirewallService, GetSystemGlobal, ServiceShow, ShowService, SystemGlobal};
pub use session_filter::{
    FilterReadback, SESSION_FILTER, SESSION_FILTER_CLEAR, SessionFilter, SessionFilterReadback,
};
pub use session_list::{OffloadBasis, Session, SessionList, SessionReader};
pub use session_stat::{DiagSessionStat, SessionStat};
pub use session_summary::{Ages, ListSessions, SessionSummary, Tally};
pub use session_ttl::{SessionTtl, SessionTtlPort, ShowSessionTtl};
pub use status::{GetSystemStatus, SystemStatus};
pub use system_interface::{GetSystemInterface, SystemInterface, SystemInterfaces};
pub use ttl::Ttl;

use premarket_parse::{Arg, QuerySpec, Shape};

/// One model per FortiGate family whose commands differ (`premarket list --models`): the NP
/// generations, whose port lists differ ([`model`]).
pub const MODEL_EXAMPLES: &[(&str, &str)] = model::EXAMPLES;

/// Every command premarket sends to a FortiGate, and how its output is read. `premarket parse`
/// and the read-only allowlist follow from this list.
pub static QUERIES: &[QuerySpec] = &[
    QuerySpec::of::<GetSystemStatus>(Shape::Exact(GetSystemStatus::TEXT)),
    QuerySpec::of::<GetPerformanceStatus>(Shape::Exact(GetPerformanceStatus::TEXT)),
    QuerySpec::of::<GetHaStatus>(Shape::Exact(GetHaStatus::TEXT)),
    QuerySpec::of::<GetSystemGlobal>(Shape::Exact(GetSystemGlobal::TEXT)),
    QuerySpec::of::<DiagSessionStat>(Shape::Exact(DiagSessionStat::TEXT)),
    QuerySpec::of::<ListSessions>(Shape::Exact(ListSessions::TEXT)),
    QuerySpec::of::<DiagMcastSessions>(Shape::Exact(DiagMcastSessions::TEXT)),
    QuerySpec::of::<FilterReadback>(Shape::Exact(SESSION_FILTER)),
    QuerySpec::of::<ShowPolicy>(Shape::WithArg(ShowPolicy::TEXT, Arg::Number)),
    QuerySpec::of::<ShowMulticastPolicy>(Shape::WithArg(ShowMulticastPolicy::TEXT, Arg::Number)),
    QuerySpec::of::<ShowService>(Shape::WithArg(ShowService::TEXT, Arg::Name)),
    QuerySpec::of::<ShowVirtualWirePair>(Shape::Exact(ShowVirtualWirePair::TEXT)),
    QuerySpec::of::<GetSystemInterface>(Shape::Exact(GetSystemInterface::TEXT)),
    QuerySpec::of::<ShowSystemInterface>(Shape::Exact(ShowSystemInterface::TEXT)),
    QuerySpec::of::<ShowVirtualSwitch>(Shape::Exact(ShowVirtualSwitch::TEXT)),
    QuerySpec::of::<ShowSystemNpu>(Shape::Exact(ShowSystemNpu::TEXT)),
    QuerySpec::of::<ShowSessionTtl>(Shape::Exact(ShowSessionTtl::TEXT)),
    QuerySpec::of::<DiagNpuPortList>(Shape::Exact(DiagNpuPortList::NP7LITE)),
    QuerySpec::of::<DiagNpuPortList>(Shape::Exact(DiagNpuPortList::NP7)),
    QuerySpec::of::<DiagNpuPortList>(Shape::Exact(DiagNpuPortList::NP6)),
    QuerySpec::of::<DiagNpuPortList>(Shape::Exact(DiagNpuPortList::NP6LITE)),
    QuerySpec::of::<DiagNpuPortList>(Shape::Exact(DiagNpuPortList::NP6XLITE)),
    QuerySpec::of::<DiagNtpStatus>(Shape::Exact(DiagNtpStatus::TEXT)),
    QuerySpec::of::<DiagNic>(Shape::WithArg(DiagNic::TEXT, Arg::Name)),
    QuerySpec::of::<DiagNic>(Shape::WithArg(DiagNic::GET_TEXT, Arg::Name)),
    QuerySpec::of::<GetBgpSummary>(Shape::Exact(GetBgpSummary::TEXT)),
    QuerySpec::of::<DiagHaChecksum>(Shape::Exact(DiagHaChecksum::TEXT)),
    QuerySpec::of::<DiagNpuFeature>(Shape::Exact(DiagNpuFeature::NP6)),
    QuerySpec::of::<DiagNpuFeature>(Shape::Exact(DiagNpuFeature::NP6LITE)),
    QuerySpec::of::<DiagNpuFeature>(Shape::Exact(DiagNpuFeature::NP6XLITE)),
    QuerySpec::of::<ShowSystemNp6xlite>(Shape::Exact(ShowSystemNp6xlite::TEXT)),
    QuerySpec::of::<ShowConfig>(Shape::Exact(ShowConfig::TEXT)),
];

/// The listed query that reads `command` (a trailing `| grep ...` is ignored).
pub fn query_for(command: &str) -> Option<&'static QuerySpec> {
    let base = command.split('|').next().unwrap_or(command);
    QUERIES.iter().find(|q| q.shape.matches(base))
}
