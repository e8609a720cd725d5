//! Checks of Arista EOS switches. The port checks share `ports` (the baseline's trading
//! ports and their speeds); the checks that judge growth share `since` (the previous run's
//! counters, within one boot), and the congestion check reads the drop counter the switch's
//! family has through `drops`.

mod config_saved;
mod config_unchanged;
mod drops;
mod interfaces_errors;
mod lanz_congestion;
mod lanz_persisted;
mod multicast_feeds;
mod multicast_flowing;
mod ntp_synchronised;
mod ports;
mod ptp_quality;
mod ptp_synchronised;
mod since;
mod transceivers_light;
mod uptime_stable;
mod version_pinned;

pub use config_saved::ConfigSaved;
pub use config_unchanged::ConfigUnchanged;
pub use interfaces_errors::InterfacesErrors;
pub use lanz_congestion::LanzCongestion;
pub use lanz_persisted::LanzPersisted;
pub use multicast_feeds::MulticastFeeds;
pub use multicast_flowing::MulticastFlowing;
pub use ntp_synchronised::NtpSynchronised;
pub use ports::{PortKind, PortSpeeds, Speed};
pub use ptp_synchronised::PtpSynchronised;
pub use transceivers_light::TransceiversLight;
pub use uptime_stable::UptimeStable;
pub use version_pinned::VersionPinned;
