//! The FortiGate models the lab emulates, one table row each: what `get system status` says
//! it is, which release it runs (6.4 prints no reboot reason and pads `get system interface`
//! with spaces), which NP it has (it answers that NP's port list only, in that generation's
//! layout) and how its trading path reaches the ports: the lab notes' 201G on x1/x2, a 600E on
//! 6.4 with a VLAN on x1, a 601F on 7.4 with a VLAN (no `set type`) on an aggregate of x1 and
//! x3, a 100F on 7.6 with a hardware switch whose port1 carries trading traffic, a 200E on 7.0
//! whose two NP6Lite chips do not offload across each other. Every variant
//! keeps the 201G's port names and flows, so that each fault scenario means the same on each.

use premarket_platform::fortigate::Np;

use super::super::topology;

/// What the release changes in the outputs the lab prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// 6.4: no `Last reboot reason`, `get system interface` fields padded with spaces.
    Fos64,
    /// 7.4 and 7.6.
    Fos7,
}

/// How the trading path reaches the physical ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// x1 and x2 themselves (the lab notes' design).
    Ports,
    /// `md-feed` (VLAN 310, `set type vlan`) on x1.
    VlanOnPort,
    /// `md-feed` (VLAN 310, no `set type`) on `md-lag`, an aggregate of x1 and x3.
    VlanOnAggregate,
    /// port1 and port2 are the hardware switch `lan`; port1 carries trading traffic too.
    HardSwitchPort,
}

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
    pub release: Release,
    /// Its network processor: the one `diagnose npu ... port-list` it answers.
    pub np: Np,
    pub path: Path,
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
    release: Release::Fos7,
    np: Np::Np7lite,
    path: Path::Ports,
    expect: &[],
};

/// A FortiGate 600E (NP6) on FortiOS 6.4 whose trading path enters on a VLAN of x1.
pub const FG_600E: FirewallModel = FirewallModel {
    model: "FortiGate-600E",
    version: "6.4.14",
    build: "2093",
    build_date: "230905",
    drift_version: "6.4.12",
    drift_build: "2060",
    drift_build_date: "230309",
    serial_prefix: "FG6H0ETB2100",
    release: Release::Fos64,
    np: Np::Np6,
    path: Path::VlanOnPort,
    expect: &[
        ("version", "{ exact: 6.4.14 }"),
        ("np", "np6"),
        ("trading_interfaces", "[md-feed, x2]"),
        ("trading_ports", "[x1, x2]"),
    ],
};

/// A FortiGate 601F (NP7) on FortiOS 7.4 whose trading VLAN is on an aggregate of x1 and x3.
pub const FG_601F: FirewallModel = FirewallModel {
    model: "FortiGate-601F",
    version: "7.4.8",
    build: "2795",
    build_date: "250523",
    drift_version: "7.4.5",
    drift_build: "2573",
    drift_build_date: "240809",
    serial_prefix: "FG6H1FTB2390",
    release: Release::Fos7,
    np: Np::Np7,
    path: Path::VlanOnAggregate,
    // A 601F's ultra-low-latency ports are x5-x8; this lab design keeps the 201G's x1/x2 (and
    // x3 in the aggregate), which cross the ISF, so its site says the design does not use
    // them (`ull_ports: []`): otherwise `fortigate.offload.blockers` finds x1, x3 and x2.
    expect: &[
        ("version", "{ exact: 7.4.8 }"),
        ("np", "np7"),
        ("trading_interfaces", "[md-feed, x2]"),
        ("trading_ports", "[x1, x3, x2]"),
        ("ull_ports", "[]"),
    ],
};

/// A FortiGate 100F (NP6XLite) on FortiOS 7.6 with a hardware switch `lan` (port1, port2);
/// port1 is on the trading path beside x1 and x2.
pub const FG_100F: FirewallModel = FirewallModel {
    model: "FortiGate-100F",
    version: "7.6.3",
    build: "3510",
    build_date: "250410",
    drift_version: "7.6.1",
    drift_build: "3355",
    drift_build_date: "241121",
    serial_prefix: "FG100FTK2200",
    release: Release::Fos7,
    np: Np::Np6xlite,
    path: Path::HardSwitchPort,
    expect: &[
        ("version", "{ exact: 7.6.3 }"),
        ("np", "np6xlite"),
        ("trading_interfaces", "[x1, x2, port1]"),
        ("trading_port_speed", "{ x1: 10G, x2: 10G, port1: 1G }"),
    ],
};

/// A FortiGate 200E (two NP6Lite chips, which do not offload sessions from one chip to the
/// other: `Cross-chip offloading NO`) on FortiOS 7.0, with the trading path on x1 and x2 of one
/// chip (`np-cross-chip` moves x2 to the other).
pub const FG_200E: FirewallModel = FirewallModel {
    model: "FortiGate-200E",
    version: "7.0.15",
    build: "0632",
    build_date: "240529",
    drift_version: "7.0.12",
    drift_build: "0523",
    drift_build_date: "230619",
    serial_prefix: "FG200ETK1900",
    release: Release::Fos7,
    np: Np::Np6lite,
    path: Path::Ports,
    expect: &[("version", "{ exact: 7.0.15 }"), ("np", "np6lite")],
};
