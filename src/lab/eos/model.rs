//! The switch models the lab emulates, one table row each: the model name and release it
//! reports, which JSON vintage it prints (EOS 4.2x omits keys 4.3x added), its forwarding
//! hardware (a VOQ switch answers `show interfaces counters queue drops`, a Trident one says
//! `% Incomplete command` there and counts egress queue drops instead), whether it has PTP,
//! whether it is one of an MLAG pair, and how its ports are cabled. Every output of an emulated switch reads its row, so a switch
//! answers only what its model answers.

use super::super::topology;

/// The JSON vintage of a release (research-18-19 §1.1: keys accumulate, few are renamed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// EOS 4.2x: `show version` without `uptime`, `mfgName`, `imageOptimization`;
    /// `show interfaces` counters without `lastClear` and `inTotalPkts`.
    Eos42,
    /// EOS 4.3x: every key the lab prints.
    Eos43,
}

/// The forwarding hardware, as far as the lab's outputs differ by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silicon {
    /// Jericho ("Sand"): VOQ drop counters; `imageOptimization: Sand-4GB`.
    Sand,
    /// Trident ("Strata"): egress queue counters, no VOQ; `Strata-4GB`.
    Strata,
}

/// How the switch's ports are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cabling {
    /// Ethernet1-4 on the trading path, each with a 10GBASE-SR optic (the lab notes' switch).
    Optics,
    /// The trading path of a real floor: Ethernet4 to the servers on a DAC (no DOM), the
    /// uplink `Port-Channel10` over Ethernet5 and Ethernet6, and a routed dot1q subinterface
    /// `Ethernet7.100` handing a feed over on Ethernet7.
    Mixed,
}

/// One emulated switch model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchModel {
    /// `modelName`, as `show version` prints it.
    pub model: &'static str,
    /// The release it runs, as `show version` prints it.
    pub version: &'static str,
    /// What `version-drift` installs instead.
    pub drift_version: &'static str,
    pub release: Release,
    pub silicon: Silicon,
    /// Answers `show ptp`; without, `% Incomplete command` (ANTA's "no PTP on this platform").
    pub ptp: bool,
    pub cabling: Cabling,
    /// One of an MLAG pair (its peer is not in the lab); else MLAG is not configured.
    pub mlag: bool,
    /// `expect:` keys the lab's site writes for a switch of this model, replacing the example
    /// baseline's line of the same key.
    pub expect: &'static [(&'static str, &'static str)],
}

/// The lab notes' switch: a 7280R3 (VOQ) on EOS 4.31.
pub const DCS_7280SR3: SwitchModel = SwitchModel {
    model: topology::EOS_MODEL,
    version: topology::EOS_VERSION,
    drift_version: topology::EOS_DRIFT_VERSION,
    release: Release::Eos43,
    silicon: Silicon::Sand,
    ptp: true,
    cabling: Cabling::Optics,
    mlag: false,
    expect: &[],
};

/// An older top-of-rack switch: a 7050X (Trident2, no VOQ) on an EOS 4.22 2GB image, no PTP,
/// one of an MLAG pair, with a DAC, a port-channel and a subinterface on the trading path.
pub const DCS_7050SX: SwitchModel = SwitchModel {
    model: "DCS-7050SX-64-R",
    version: "4.22.4M-2GB",
    drift_version: "4.21.8M-2GB",
    release: Release::Eos42,
    silicon: Silicon::Strata,
    ptp: false,
    cabling: Cabling::Mixed,
    mlag: true,
    expect: &[
        // A release pin: matches the image's `-2GB` build suffix.
        ("version", "{ allowed: [4.22.4M] }"),
        (
            "trading_ports",
            "[Ethernet1, Ethernet2, Ethernet3, Ethernet4, Ethernet7, Port-Channel10]",
        ),
        (
            "trading_port_speed",
            "{ Ethernet1: 10G, Ethernet2: 10G, Ethernet3: 10G, Ethernet4: 10G, Ethernet7: 10G, Port-Channel10: 20G }",
        ),
    ],
};

impl SwitchModel {
    /// Whether it counts drops per VOQ (else per egress queue).
    pub fn voq(&self) -> bool {
        self.silicon == Silicon::Sand
    }

    /// `Sand-4GB` / `Strata-4GB` (`Image optimization:`; a real 7010T prints `Strata-4GB`).
    pub fn image_optimization(&self) -> &'static str {
        match self.silicon {
            Silicon::Sand => "Sand-4GB",
            Silicon::Strata => "Strata-4GB",
        }
    }

    /// LANZ's `platformName`.
    pub fn lanz_platform(&self) -> &'static str {
        match self.silicon {
            Silicon::Sand => "Sand",
            Silicon::Strata => "Strata",
        }
    }
}
