//! The FortiGate models the lab emulates, one table row each: what `get system status` says
//! it is and which release it runs. Today's row is the lab notes' 201G on FortiOS 7.6.7; a
//! FortiGate variant for the mixed fleet (a 6.4-style box, a VLAN or aggregate trading
//! interface, a hardware-switch port) is one more row here, read by the outputs that differ.

use super::super::topology;

/// One emulated FortiGate model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirewallModel {
    /// As `get system status` prints it (`FortiGate-201G`).
    pub model: &'static str,
    pub version: &'static str,
    pub build: &'static str,
    pub build_date: &'static str,
    /// What `version-drift` installs instead.
    pub drift_version: &'static str,
    pub drift_build: &'static str,
    pub drift_build_date: &'static str,
    /// The serial number's model part (`FG201GTK2400` + the device's index).
    pub serial_prefix: &'static str,
    /// `expect:` keys the lab's site writes for a firewall of this model, replacing the
    /// example baseline's line of the same key.
    pub expect: &'static [(&'static str, &'static str)],
}

/// The lab notes' firewall: a FortiGate 201G (NP7Lite) on FortiOS 7.6.7.
pub const FG_201G: FirewallModel = FirewallModel {
    model: topology::FORTIGATE_MODEL,
    version: topology::FORTIOS_VERSION,
    build: topology::FORTIOS_BUILD,
    build_date: topology::FORTIOS_BUILD_DATE,
    drift_version: topology::FORTIOS_DRIFT_VERSION,
    drift_build: topology::FORTIOS_DRIFT_BUILD,
    drift_build_date: topology::FORTIOS_DRIFT_BUILD_DATE,
    serial_prefix: "FG201GTK2400",
    expect: &[],
};
