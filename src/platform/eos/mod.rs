//! Arista EOS: commands, prompt and error strings, output parsers and the baseline shape.
//!
//! Over SSH EOS starts unprivileged (`HOST>`); `show running-config` and its `diffs` need
//! `enable` first (the lab notes' third finding). JSON is requested where EOS offers it
//! (`| json`), and every parser also reads the text form.

pub mod allowlist;
pub mod bfd;
pub mod bgp;
pub mod cli;
mod config;
mod diffs;
pub mod discards;
pub mod family;
pub mod flow_control;
pub mod hardware_drops;
pub mod igmp_groups;
pub mod igmp_querier;
pub mod igmp_snooping;
pub mod interface_errors;
pub mod interface_sample;
pub mod interfaces;
pub mod json;
mod lanz;
pub mod lanz_records;
pub mod lldp;
pub mod mlag;
pub mod mlag_sanity;
pub mod mroute;
pub mod mroute_count;
pub mod ntp_associations;
pub mod ntp_status;
pub mod pim;
mod port_names;
pub mod printed;
pub mod ptp;
pub mod ptp_masters;
pub mod queue_detail;
pub mod queue_drops;
pub mod redact;
pub mod reload_cause;
mod running_lines;
pub mod spec;
pub mod text;
pub mod transceivers;
mod version;

pub use bfd::{BfdPeers, BfdSession, ShowBfdPeers};
pub use bgp::{BgpFamily, BgpPeer, BgpSummary, BgpVrf, ShowBgpSummary};
pub use config::{Config, ShowRunningConfig, ShowStartupConfig};
pub use diffs::{Change, Diffs, Hunk, ShowRunningConfigDiffs};
pub use discards::{Discards, PortDiscards, ShowDiscards};
pub use family::{Asic, Family};
pub use flow_control::{FlowControl, PortFlowControl, ShowFlowControl};
pub use hardware_drops::{DropCounter, HardwareDrops, ShowHardwareDrops};
pub use igmp_groups::{IgmpGroups, ShowIgmpGroups};
pub use igmp_querier::{IgmpQuerier, IgmpQueriers, ShowIgmpQuerier};
pub use igmp_snooping::{IgmpSnooping, IgmpSnoopingVlan, ShowIgmpSnooping};
pub use interface_errors::{ErrorCounters, InterfaceErrors, ShowInterfaceErrors};
pub use interface_sample::ShowInterfacePort;
pub use interfaces::{Interface, InterfaceCounters, Interfaces, ShowInterfaces};
pub use lanz::{LanzStatus, ShowLanzStatus};
pub use lanz_records::{LanzRecord, LanzRecords, ShowLanzRecords};
pub use lldp::{LldpNeighbor, LldpNeighbors, ShowLldpNeighbors};
pub use mlag::{Mlag, MlagPorts, ShowMlag};
pub use mlag_sanity::{Inconsistency, MlagSanity, ShowMlagConfigSanity};
pub use mroute::{Mroute, Mroutes, ShowMroute};
pub use mroute_count::{MrouteCount, MrouteCounts, ShowMrouteCount};
pub use ntp_associations::{NtpAssociations, NtpPeer, ShowNtpAssociations};
pub use ntp_status::{NtpStatus, ShowNtpStatus};
pub use pim::{PimNeighbor, PimNeighbors, ShowPimNeighbors};
pub use port_names::long_name;
pub use ptp::{Ptp, PtpClock, PtpPortState, ShowPtp};
pub use ptp_masters::{PtpMasters, ShowPtpMasters};
pub use queue_detail::{EgressDrops, EgressQueueDrops, ShowQueueDetail};
pub use queue_drops::{ClassDrops, QueueDrops, ShowQueueDrops};
pub use reload_cause::{ReloadCause, ResetCause, ShowReloadCause};
pub use running_lines::RunningConfigLines;
pub use transceivers::{OpticalPower, ShowTransceiverDom, Transceiver, Transceivers};
pub use version::{ShowVersion, Version};

use premarket_parse::{Arg, QuerySpec, Shape};

/// Every command premarket sends to a switch, and how its output is read (text or `| json`).
/// `premarket parse` follows from this list.
pub static QUERIES: &[QuerySpec] = &[
    QuerySpec::of::<ShowVersion>(Shape::Exact("show version")),
    QuerySpec::of::<ShowLanzStatus>(Shape::Exact("show queue-monitor length status")),
    QuerySpec::of::<ShowStartupConfig>(Shape::Exact(ShowStartupConfig::TEXT)),
    QuerySpec::of::<ShowRunningConfig>(Shape::Exact(ShowRunningConfig::TEXT)),
    QuerySpec::of::<ShowRunningConfigDiffs>(Shape::Exact(ShowRunningConfigDiffs::TEXT)),
    QuerySpec::of::<ShowInterfaces>(Shape::Exact("show interfaces")),
    QuerySpec::of::<ShowInterfaceErrors>(Shape::Exact("show interfaces counters errors")),
    QuerySpec::of::<ShowQueueDrops>(Shape::Exact("show interfaces counters queue drops")),
    QuerySpec::of::<ShowQueueDetail>(Shape::Exact("show interfaces counters queue detail")),
    QuerySpec::of::<ShowDiscards>(Shape::Exact("show interfaces counters discards")),
    QuerySpec::of::<ShowTransceiverDom>(Shape::Exact("show interfaces transceiver dom thresholds")),
    QuerySpec::of::<ShowPtp>(Shape::Exact("show ptp")),
    QuerySpec::of::<ShowPtpMasters>(Shape::Exact("show ptp masters")),
    QuerySpec::of::<ShowIgmpSnooping>(Shape::Exact("show ip igmp snooping")),
    QuerySpec::of::<ShowIgmpQuerier>(Shape::Exact("show ip igmp snooping querier")),
    QuerySpec::of::<ShowIgmpGroups>(Shape::Exact("show ip igmp snooping groups")),
    QuerySpec::of::<ShowLanzRecords>(Shape::Exact("show queue-monitor length")),
    QuerySpec::of::<ShowReloadCause>(Shape::Exact("show reload cause")),
    QuerySpec::of::<ShowNtpStatus>(Shape::Exact(ShowNtpStatus::TEXT)),
    QuerySpec::of::<ShowNtpAssociations>(Shape::Exact("show ntp associations")),
    QuerySpec::of::<ShowBgpSummary>(Shape::Exact("show ip bgp summary vrf all")),
    // The newer multi-agent command prints the per-address-family shape; one parser reads both.
    QuerySpec::of::<ShowBgpSummary>(Shape::Exact("show bgp summary vrf all")),
    QuerySpec::of::<ShowBfdPeers>(Shape::Exact("show bfd peers")),
    QuerySpec::of::<ShowPimNeighbors>(Shape::Exact("show ip pim neighbor")),
    QuerySpec::of::<ShowMroute>(Shape::Exact("show ip mroute")),
    QuerySpec::of::<ShowMroute>(Shape::Exact("show ip mroute vrf all detail")),
    QuerySpec::of::<ShowMrouteCount>(Shape::Exact("show ip mroute count")),
    QuerySpec::of::<ShowMlag>(Shape::Exact("show mlag")),
    QuerySpec::of::<ShowMlag>(Shape::Exact("show mlag detail")),
    QuerySpec::of::<ShowMlagConfigSanity>(Shape::Exact("show mlag config-sanity")),
    QuerySpec::of::<ShowHardwareDrops>(Shape::Exact("show hardware counter drop")),
    QuerySpec::of::<ShowFlowControl>(Shape::Exact("show interfaces flow-control")),
    QuerySpec::of::<ShowLldpNeighbors>(Shape::Exact("show lldp neighbors")),
    QuerySpec::of::<ShowLldpNeighbors>(Shape::Exact("show lldp neighbors detail")),
    // After every `show interfaces ...` listed above: one port (`show interfaces Ethernet1`).
    QuerySpec::of::<ShowInterfacePort>(Shape::WithArg(ShowInterfacePort::TEXT, Arg::Name)),
];

/// The listed query that reads `command`, with or without `| json` / `| no-more`.
pub fn query_for(command: &str) -> Option<&'static QuerySpec> {
    let base = command.split('|').next().unwrap_or(command).trim();
    QUERIES.iter().find(|q| q.shape.matches(base))
}
