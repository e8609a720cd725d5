//! Checks of FortiGate firewalls. The flow checks share `flows` (finding a flow's sessions),
//! `timers` (the idle timer a session lives by) and `reasons` (what each `no_ofld_reason`
//! means); [`crate::outcome`] folds many flows into one verdict.

mod bgp_peers;
mod config_unchanged;
mod cpu_ceiling;
mod flows;
mod flows_offloaded;
mod flows_single_session;
mod ha_links;
mod ha_state;
mod memory_ceiling;
mod ntp_synchronised;
mod offload_blockers;
mod offload_chips;
mod policy_offload;
mod ports_errors;
mod reasons;
mod service_udp_idle;
mod session_idle_margin;
mod sessions_npu;
mod timers;
mod uptime_stable;
mod version_pinned;

pub use bgp_peers::BgpPeers;
pub use config_unchanged::ConfigUnchanged;
pub use cpu_ceiling::CpuCeiling;
pub use flows_offloaded::FlowsOffloaded;
pub use flows_single_session::FlowsSingleSession;
pub use ha_links::HaLinksUp;
pub use ha_state::HaState;
pub use memory_ceiling::MemoryCeiling;
pub use ntp_synchronised::NtpSynchronised;
pub use offload_blockers::OffloadBlockers;
pub use policy_offload::PolicyOffload;
pub use ports_errors::PortsErrors;
pub use service_udp_idle::ServiceUdpIdle;
pub use session_idle_margin::SessionIdleMargin;
pub use sessions_npu::SessionsNpu;
pub use uptime_stable::UptimeStable;
pub use version_pinned::VersionPinned;
