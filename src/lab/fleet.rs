//! Which devices a lab starts, each with its model. The standard fleet is the lab notes' pair
//! (sw1 a 7280R3, fw1 a FortiGate 201G), repeated for load tests; the mixed fleet is a trading
//! floor's variety, where a rule that is right only on the lab's two boxes would raise a false
//! alarm every morning. Adding a model to the mixed fleet is one row of [`MIXED`] (and the
//! model's own row in `eos::model` or `fortigate::model`).

use std::fmt;
use std::str::FromStr;

use premarket_core::Platform;

use super::eos::model::{self as switches, SwitchModel};
use super::fortigate::model::{self as firewalls, FirewallModel};
use super::topology;

/// A lab's set of devices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fleet {
    /// sw1..swN (7280R3, EOS 4.31) and fw1..fwN (201G, FortiOS 7.6): `--devices` counts them.
    #[default]
    Standard,
    /// Every row of [`MIXED`].
    Mixed,
}

impl Fleet {
    pub const ALL: [Fleet; 2] = [Fleet::Standard, Fleet::Mixed];

    pub fn name(self) -> &'static str {
        match self {
            Fleet::Standard => "standard",
            Fleet::Mixed => "mixed",
        }
    }
}

impl fmt::Display for Fleet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fleet {
    type Err = String;
    fn from_str(s: &str) -> Result<Fleet, String> {
        Fleet::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown fleet {s:?} (standard or mixed)"))
    }
}

/// What a device emulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Switch(&'static SwitchModel),
    Firewall(&'static FirewallModel),
}

impl Model {
    pub fn platform(self) -> Platform {
        match self {
            Model::Switch(_) => Platform::Eos,
            Model::Firewall(_) => Platform::Fortigate,
        }
    }

    /// The model's name as the device reports it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Switch(m) => m.model,
            Model::Firewall(m) => m.model,
        }
    }

    /// `expect:` lines the site writes for this model.
    pub fn expect(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Model::Switch(m) => m.expect,
            Model::Firewall(m) => m.expect,
        }
    }
}

/// One row of a fleet: a device name and its model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub name: &'static str,
    pub model: Model,
}

/// The mixed fleet: a VOQ switch on EOS 4.3x (the lab notes' sw1), a Trident switch on EOS
/// 4.2x with a DAC, a port-channel and a subinterface on its trading path (sw2), the lab
/// notes' FortiGate (fw1), a 600E on FortiOS 6.4 with a VLAN trading interface (fw2), a 601F
/// on 7.4 with a VLAN on an aggregate (fw3), a 100F on 7.6 with a hardware-switch port on
/// its trading path (fw4) and a 200E on 7.0 with two NP6Lite chips that do not offload across
/// each other (fw5).
pub const MIXED: &[Row] = &[
    Row {
        name: "sw1",
        model: Model::Switch(&switches::DCS_7280SR3),
    },
    Row {
        name: "sw2",
        model: Model::Switch(&switches::DCS_7050SX),
    },
    Row {
        name: "fw1",
        model: Model::Firewall(&firewalls::FG_201G),
    },
    Row {
        name: "fw2",
        model: Model::Firewall(&firewalls::FG_600E),
    },
    Row {
        name: "fw3",
        model: Model::Firewall(&firewalls::FG_601F),
    },
    Row {
        name: "fw4",
        model: Model::Firewall(&firewalls::FG_100F),
    },
    Row {
        name: "fw5",
        model: Model::Firewall(&firewalls::FG_200E),
    },
];

/// `expect:` lines the mixed fleet's site writes for one device, besides its model's: feed A
/// and feed B land on different switches (sw1 takes side A, sw2 side B), as on a floor whose
/// design keeps the two sides apart.
const MIXED_EXPECT: &[(&str, &[(&str, &str)])] = &[
    (
        "sw1",
        &[(
            "market_feeds",
            "[{ name: exchange-md, a: { group: 239.1.1.1, source: 10.10.1.10, port: Ethernet1, vlan: 100, outgoing: [Ethernet4] } }]",
        )],
    ),
    (
        "sw2",
        &[(
            "market_feeds",
            "[{ name: exchange-md, b: { group: 239.2.1.1, source: 10.10.2.10, port: Ethernet9, vlan: 100, outgoing: [Ethernet4] } }]",
        )],
    ),
];

/// `expect:` lines a fleet's site writes into `site.yaml` instead of the example's: the mixed
/// fleet, with two switches, requires feed sides apart at every level (the example site, one
/// switch, at the port and the uplink only).
pub fn site_expect(fleet: Fleet) -> &'static [(&'static str, &'static str)] {
    match fleet {
        Fleet::Standard => &[],
        Fleet::Mixed => &[("feed_independence", "[switch, port, uplink]")],
    }
}

/// One device to start: its name, model and its index among its platform's devices (for
/// unique serials and MACs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub model: Model,
    pub index: usize,
    /// `expect:` lines of this device in its fleet, besides its model's.
    pub expect: &'static [(&'static str, &'static str)],
}

/// The devices of `fleet`; `devices` counts the standard fleet's (half of each platform, at
/// least one of each).
pub fn members(fleet: Fleet, devices: usize) -> Vec<Member> {
    match fleet {
        Fleet::Standard => {
            let total = devices.max(2);
            let each = [
                (Model::Firewall(&firewalls::FG_201G), total / 2),
                (Model::Switch(&switches::DCS_7280SR3), total - total / 2),
            ];
            each.iter()
                .flat_map(|(model, n)| {
                    (1..=*n).map(move |i| Member {
                        name: topology::device_name(model.platform(), i),
                        model: *model,
                        index: i,
                        expect: &[],
                    })
                })
                .collect()
        }
        Fleet::Mixed => {
            let mut seen: Vec<Platform> = Vec::new();
            MIXED
                .iter()
                .map(|row| {
                    seen.push(row.model.platform());
                    Member {
                        name: row.name.to_string(),
                        model: row.model,
                        index: seen.iter().filter(|p| **p == row.model.platform()).count(),
                        expect: MIXED_EXPECT
                            .iter()
                            .find(|(name, _)| *name == row.name)
                            .map_or(&[], |(_, keys)| keys),
                    }
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fleets_name_their_devices() {
        let standard: Vec<String> = members(Fleet::Standard, 4)
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(standard, ["fw1", "fw2", "sw1", "sw2"]);
        let mixed = members(Fleet::Mixed, 0);
        let names: Vec<(&str, usize)> = mixed.iter().map(|m| (m.name.as_str(), m.index)).collect();
        assert_eq!(
            names,
            [
                ("sw1", 1),
                ("sw2", 2),
                ("fw1", 1),
                ("fw2", 2),
                ("fw3", 3),
                ("fw4", 4),
                ("fw5", 5)
            ]
        );
        assert_eq!(mixed[1].model.name(), "DCS-7050SX-64-R");
        assert_eq!("mixed".parse::<Fleet>(), Ok(Fleet::Mixed));
        assert!("big".parse::<Fleet>().is_err());
    }
}
