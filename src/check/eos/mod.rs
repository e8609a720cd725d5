//! Checks of Arista EOS switches. The port checks share `ports` (the baseline's trading
//! ports and their speeds); the checks that judge growth share `since` (the previous run's
//! counters, within one boot), and the congestion check reads the drop counter the switch's
//! family has through `drops`. The checks that follow a market-data feed share `feeds`;
//! `feeds_independent` is a site check over every switch's feeds.

mod bfd_peers;
mod bgp_peers;
mod config_saved;
mod config_unchanged;
mod drops;
mod feeds;
mod feeds_independent;
mod hardware_drops;
mod interfaces_errors;
mod lanz_congestion;
mod lanz_persisted;
mod mlag_healthy;
mod multicast_feeds;
mod multicast_flowing;
mod multicast_routes;
mod ntp_synchronised;
mod pim_neighbors;
mod ports;
mod ptp_quality;
mod ptp_synchronised;
mod since;
mod transceivers_light;
mod uptime_stable;
mod version_pinned;

pub use bfd_peers::BfdPeers;
pub use bgp_peers::BgpPeers;
pub use config_saved::ConfigSaved;
pub use config_unchanged::ConfigUnchanged;
pub use feeds_independent::FeedsIndependent;
pub use hardware_drops::HardwareDropsCheck;
pub use interfaces_errors::InterfacesErrors;
pub use lanz_congestion::LanzCongestion;
pub use lanz_persisted::LanzPersisted;
pub use mlag_healthy::MlagHealthy;
pub use multicast_feeds::MulticastFeeds;
pub use multicast_flowing::MulticastFlowing;
pub use multicast_routes::MulticastRoutes;
pub use ntp_synchronised::NtpSynchronised;
pub use pim_neighbors::PimNeighbors;
pub use ports::{PortKind, PortSpeeds, Speed};
pub use ptp_synchronised::PtpSynchronised;
pub use transceivers_light::TransceiversLight;
pub use uptime_stable::UptimeStable;
pub use version_pinned::VersionPinned;
