//! Every built-in check, found by id. The catalog (`checks/*.yaml`) names them.

use std::sync::Arc;

use super::site::{SiteBuiltin, SiteDefinition};
use super::{Builtin, Definition, eos, fortigate, probe};

/// All built-in checks, in catalog order.
pub fn builtin() -> Vec<Arc<dyn Definition>> {
    vec![
        Arc::new(Builtin::<eos::VersionPinned>::new()),
        Arc::new(Builtin::<eos::LanzPersisted>::new()),
        Arc::new(Builtin::<eos::ConfigSaved>::new()),
        Arc::new(Builtin::<eos::InterfacesErrors>::new()),
        Arc::new(Builtin::<eos::PtpSynchronised>::new()),
        Arc::new(Builtin::<eos::MulticastFeeds>::new()),
        Arc::new(Builtin::<eos::MulticastFlowing>::new()),
        Arc::new(Builtin::<eos::LanzCongestion>::new()),
        Arc::new(Builtin::<eos::UptimeStable>::new()),
        Arc::new(Builtin::<eos::TransceiversLight>::new()),
        Arc::new(Builtin::<eos::NtpSynchronised>::new()),
        Arc::new(Builtin::<eos::ConfigUnchanged>::new()),
        Arc::new(Builtin::<eos::BgpPeers>::new()),
        Arc::new(Builtin::<eos::BfdPeers>::new()),
        Arc::new(Builtin::<eos::PimNeighbors>::new()),
        Arc::new(Builtin::<eos::MulticastRoutes>::new()),
        Arc::new(Builtin::<eos::MlagHealthy>::new()),
        Arc::new(Builtin::<eos::HardwareDropsCheck>::new()),
        Arc::new(Builtin::<fortigate::VersionPinned>::new()),
        Arc::new(Builtin::<fortigate::HaState>::new()),
        Arc::new(Builtin::<fortigate::HaLinksUp>::new()),
        Arc::new(Builtin::<fortigate::CpuCeiling>::new()),
        Arc::new(Builtin::<fortigate::MemoryCeiling>::new()),
        Arc::new(Builtin::<fortigate::FlowsOffloaded>::new()),
        Arc::new(Builtin::<fortigate::FlowsSingleSession>::new()),
        Arc::new(Builtin::<fortigate::SessionsNpu>::new()),
        Arc::new(Builtin::<fortigate::PolicyOffload>::new()),
        Arc::new(Builtin::<fortigate::ServiceUdpIdle>::new()),
        Arc::new(Builtin::<fortigate::SessionIdleMargin>::new()),
        Arc::new(Builtin::<fortigate::UptimeStable>::new()),
        Arc::new(Builtin::<fortigate::OffloadBlockers>::new()),
        Arc::new(Builtin::<fortigate::NtpSynchronised>::new()),
        Arc::new(Builtin::<fortigate::PortsErrors>::new()),
        Arc::new(Builtin::<fortigate::BgpPeers>::new()),
        Arc::new(Builtin::<fortigate::ConfigUnchanged>::new()),
        Arc::new(Builtin::<probe::LatencyOffloaded>::new()),
    ]
}

/// The checks over several devices (`platform: site` in the catalog).
pub fn site() -> Vec<Arc<dyn SiteDefinition>> {
    vec![Arc::new(SiteBuiltin::<eos::FeedsIndependent>::new())]
}

/// The built-in check with this id.
pub fn find(id: &str) -> Option<Arc<dyn Definition>> {
    builtin().into_iter().find(|c| c.id() == id)
}

/// Every built-in id, the site checks' too.
pub fn ids() -> Vec<String> {
    builtin()
        .iter()
        .map(|c| c.id().to_string())
        .chain(site().iter().map(|c| c.id().to_string()))
        .collect()
}
