//! The switch's ports as its counters and optics see them, derived from the time since boot
//! and the scenario. Traffic counters grow at fixed rates since boot (so two labs started the
//! same day agree, and a reboot resets them); error counters hold a small constant history on
//! a healthy switch and grow only in the `crc-errors` scenario, so "grew since the previous
//! run" means a healthy run came first. Every `show interfaces ...` output reads this one
//! model, so the outputs agree with each other. How the ports are cabled follows the switch's
//! model ([`super::model::Cabling`]): optics on every trading port, or a floor's mix of a DAC,
//! a port-channel and a routed subinterface.

use super::super::scenario::Fault;
use super::super::topology;
use super::model::Cabling;
use super::state::EosState;

/// Cumulative counters of one port (since boot: the lab never clears them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub in_octets: u64,
    pub in_ucast: u64,
    pub in_mcast: u64,
    pub in_bcast: u64,
    pub out_octets: u64,
    pub out_ucast: u64,
    pub out_mcast: u64,
    pub out_bcast: u64,
    pub fcs_errors: u64,
    pub alignment_errors: u64,
    pub symbol_errors: u64,
    pub runt_frames: u64,
    pub giant_frames: u64,
    pub in_discards: u64,
    pub out_discards: u64,
    pub out_errors: u64,
    pub link_status_changes: u64,
    pub rx_pause: u64,
    pub tx_pause: u64,
}

impl Counters {
    /// `totalInErrors`: EOS sums the input error details.
    pub fn total_in_errors(&self) -> u64 {
        self.fcs_errors
            + self.alignment_errors
            + self.symbol_errors
            + self.runt_frames
            + self.giant_frames
    }
}

/// Digital optical monitoring of a pluggable (one lane: SFP+).
#[derive(Clone, Debug, PartialEq)]
pub struct Optic {
    pub media: &'static str,
    pub serial: String,
    pub rx_dbm: f64,
    pub tx_dbm: f64,
    pub temperature_c: f64,
    pub voltage_v: f64,
    pub bias_ma: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Port {
    pub name: String,
    pub description: String,
    pub connected: bool,
    /// Bits per second.
    pub bandwidth: u64,
    pub mac: String,
    /// `lastStatusChangeTimestamp` (epoch s).
    pub last_change: f64,
    pub counters: Counters,
    pub optic: Option<Optic>,
    /// VOQ drops towards this port in traffic class 0 (7280R3: `ingressVoqCounters`).
    pub voq_drops_tc0: u64,
    /// Routed management port rather than a switched data port.
    pub management: bool,
    /// `hardware` as `show interfaces` prints it: `ethernet`, `portChannel`, `subinterface`.
    pub hardware: &'static str,
}

impl Port {
    /// A physical front-panel port (optics, queues, error details).
    pub fn physical(&self) -> bool {
        self.hardware == "ethernet" && !self.management
    }
}

/// The port-channel of the mixed cabling, its members, and the subinterface.
pub const PORT_CHANNEL: &str = "Port-Channel10";
pub const PORT_CHANNEL_MEMBERS: [&str; 2] = ["Ethernet5", "Ethernet6"];
pub const SUBINTERFACE: &str = "Ethernet7.100";
/// The trading port that is cabled with a DAC in the mixed cabling.
pub const DAC_PORT: &str = "Ethernet4";

/// Packets per second a connected port carries: (in unicast, in multicast, out unicast,
/// out multicast), and the average frame size in bytes.
fn rates(name: &str) -> (u64, u64, u64, u64, u64) {
    match name {
        // The feed arrives on Ethernet1, crosses the firewall (Ethernet2 out, Ethernet3 back)
        // and leaves to the servers on Ethernet4; orders go the other way, much thinner.
        "Ethernet1" => (35, 12_000, 40, 0, 180),
        "Ethernet2" => (35, 0, 40, 12_000, 180),
        "Ethernet3" => (40, 12_000, 35, 0, 180),
        "Ethernet4" => (40, 0, 35, 12_000, 180),
        // The feed's B side: the same data from the exchange's second handoff.
        "Ethernet9" => (0, 12_000, 0, 0, 180),
        // Mixed cabling: the uplink's two members and the routed handoff.
        "Ethernet5" | "Ethernet6" => (20, 6_000, 20, 6_000, 180),
        "Ethernet7" => (10, 12_000, 10, 0, 180),
        "Ethernet47" => (1_000, 0, 0, 0, 96),
        "Ethernet48" => (0, 0, 13_000, 0, 180),
        "Management1" => (12, 0, 10, 0, 310),
        _ => (0, 0, 0, 0, 0),
    }
}

/// `10 log10(mW)`: thresholds are set in milliwatts by the module's vendor.
pub fn dbm(milliwatts: f64) -> f64 {
    10.0 * milliwatts.log10()
}

/// Every port of the switch at `now`.
pub fn ports(s: &EosState, now: f64) -> Vec<Port> {
    let up = s.uptime(now).floor() as u64;
    let rebooted = s.rebooted();
    let mixed = s.spec.cabling == Cabling::Mixed;
    let mut names: Vec<(String, String, bool)> = topology::EOS_TRADING_PORTS
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_string(), true))
        .collect();
    names.extend(topology::EOS_SPARE_PORTS.iter().map(|n| {
        let description = match *n {
            "Ethernet5" | "Ethernet6" if mixed => "Po10 member (uplink to sw1)",
            "Ethernet7" if mixed => "md-feed-b handoff (routed, dot1q)",
            _ => "",
        };
        (
            n.to_string(),
            description.to_string(),
            !description.is_empty(),
        )
    }));
    let (feed_b, feed_b_description) = topology::EOS_FEED_B_PORT;
    names.push((feed_b.into(), feed_b_description.into(), true));
    names.push((
        "Ethernet47".into(),
        "probe sender (ExaNIC port0)".into(),
        true,
    ));
    names.push((
        "Ethernet48".into(),
        "probe capture trunk (ExaNIC port1)".into(),
        true,
    ));
    names.push(("Management1".into(), String::new(), true));
    let all: Vec<Port> = names
        .into_iter()
        .enumerate()
        .map(|(i, (name, description, connected))| {
            let (in_u, in_m, out_u, out_m, size) = rates(&name);
            // `feed-stalled`: the B side's multicast stopped ten minutes before the lab
            // started; its counter holds where it stopped.
            let mcast_up = if s.faults.has(Fault::FeedStalled) && name == feed_b {
                up.min(s.uptime(s.started - 600.0).floor() as u64)
            } else {
                up
            };
            let mut c = Counters {
                in_ucast: in_u * up,
                in_mcast: in_m * mcast_up,
                in_bcast: up / 30,
                out_ucast: out_u * up,
                out_mcast: out_m * up,
                out_bcast: up / 60,
                ..Counters::default()
            };
            c.in_octets = (c.in_ucast + c.in_mcast) * size + c.in_bcast * 64;
            c.out_octets = (c.out_ucast + c.out_mcast) * size + c.out_bcast * 64;
            if !connected {
                c = Counters::default();
            }
            // Links came up a minute after boot; the history before this boot is gone.
            let mut last_change = s.booted + 61.0 + i as f64 * 0.25;
            c.link_status_changes = match (connected, rebooted, name.as_str()) {
                (false, _, _) => 0,
                (true, true, _) => 1,
                (true, false, "Ethernet1") => 3,
                (true, false, "Ethernet4") => 3,
                (true, false, _) => 1,
            };
            if !rebooted && name == "Ethernet1" {
                // A small CRC history from the day the exchange re-patched the handoff.
                c.fcs_errors = 3;
            }
            if s.faults.has(Fault::CrcErrors) && name == "Ethernet3" {
                // A dirty or failing optic on the firewall's return path: errors and flaps.
                c.fcs_errors += 1_843;
                c.link_status_changes += 2;
                last_change = s.started - 95.0;
            }
            if s.faults.has(Fault::PauseFrames) && name == "Ethernet4" {
                // The trading servers' NICs ran out of buffer and paused the switch, which
                // its sender (flow control left on by a NIC driver default).
                c.rx_pause = 1_840;
                c.tx_pause = 22;
            }
            let dac = mixed && name == DAC_PORT;
            let optic = (connected && !dac && name.starts_with("Ethernet")).then(|| Optic {
                media: "10GBASE-SR",
                serial: format!("XAS2{:03}0{:02}", 318 + i, i),
                rx_dbm: if s.faults.has(Fault::LowLight) && name == "Ethernet3" {
                    -11.2
                } else {
                    -2.4 + (i as f64 - 1.5) * 0.031
                },
                tx_dbm: -2.2 + (i as f64 - 1.5) * 0.027,
                temperature_c: 33.5 + i as f64 * 0.41,
                voltage_v: 3.2931 + i as f64 * 0.0012,
                bias_ma: 6.41 + i as f64 * 0.07,
            });
            let mut voq_drops_tc0 = 0;
            if name == "Ethernet4" && !rebooted {
                // History from an old burst, constant across healthy runs.
                voq_drops_tc0 = 57;
                if s.faults.has(Fault::Microburst) {
                    voq_drops_tc0 += 1_203;
                }
            }
            Port {
                mac: format!("c0:d6:82:{:02x}:{:02x}:{:02x}", 0x10, 0x20, 0x30 + i),
                bandwidth: match (connected, name.as_str()) {
                    (_, "Management1") => 1_000_000_000,
                    _ => 10_000_000_000,
                },
                management: name == "Management1",
                hardware: "ethernet",
                name,
                description,
                connected,
                last_change,
                counters: c,
                optic,
                voq_drops_tc0,
            }
        })
        .collect();
    if mixed { with_logical(all) } else { all }
}

/// The mixed cabling's logical interfaces: the port-channel (its members' counters summed; a
/// port-channel prints no error details) and the subinterface (no counters at all).
fn with_logical(mut all: Vec<Port>) -> Vec<Port> {
    let members: Vec<&Port> = all
        .iter()
        .filter(|p| PORT_CHANNEL_MEMBERS.contains(&p.name.as_str()))
        .collect();
    let mut c = Counters::default();
    for m in &members {
        let m = &m.counters;
        c.in_octets += m.in_octets;
        c.in_ucast += m.in_ucast;
        c.in_mcast += m.in_mcast;
        c.in_bcast += m.in_bcast;
        c.out_octets += m.out_octets;
        c.out_ucast += m.out_ucast;
        c.out_mcast += m.out_mcast;
        c.out_bcast += m.out_bcast;
        c.fcs_errors += m.fcs_errors;
        c.in_discards += m.in_discards;
        c.out_discards += m.out_discards;
        c.out_errors += m.out_errors;
    }
    c.link_status_changes = 1;
    let last_change = members.iter().map(|m| m.last_change).fold(0.0, f64::max);
    let parent = all.iter().find(|p| p.name == "Ethernet7").cloned();
    all.push(Port {
        name: PORT_CHANNEL.to_string(),
        description: "uplink to sw1 (LACP)".to_string(),
        connected: true,
        bandwidth: 20_000_000_000,
        mac: "c0:d6:82:10:20:60".to_string(),
        last_change,
        counters: c,
        optic: None,
        voq_drops_tc0: 0,
        management: false,
        hardware: "portChannel",
    });
    if let Some(parent) = parent {
        all.push(Port {
            name: SUBINTERFACE.to_string(),
            description: "md-feed-b handoff".to_string(),
            counters: Counters::default(),
            optic: None,
            voq_drops_tc0: 0,
            hardware: "subinterface",
            last_change: parent.last_change + 1.5,
            ..parent
        });
    }
    all
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    fn port(faults: Faults, name: &str) -> Port {
        let s = EosState::new("sw1", 1, &faults);
        ports(&s, s.started + 1.0)
            .into_iter()
            .find(|p| p.name == name)
            .unwrap()
    }

    #[test]
    fn healthy_history_is_constant_and_faults_grow_it() {
        let healthy = port(Faults::default(), "Ethernet3");
        let crc = port(Faults::only(Fault::CrcErrors), "Ethernet3");
        assert_eq!(healthy.counters.total_in_errors(), 0);
        assert_eq!(crc.counters.fcs_errors, 1_843);
        assert_eq!(
            crc.counters.link_status_changes,
            healthy.counters.link_status_changes + 2
        );
        assert_eq!(port(Faults::default(), "Ethernet1").counters.fcs_errors, 3);
        let rebooted = port(Faults::only(Fault::Rebooted), "Ethernet1");
        assert_eq!(rebooted.counters.fcs_errors, 0);
        assert!(rebooted.counters.in_mcast < 12_000 * 60);
        assert_eq!(
            port(Faults::default(), "Ethernet5").counters,
            Counters::default()
        );
        let low = port(Faults::only(Fault::LowLight), "Ethernet3");
        assert_eq!(low.optic.unwrap().rx_dbm, -11.2);
        assert!((dbm(0.0562) + 12.5).abs() < 0.01);
        assert_eq!(
            port(Faults::only(Fault::Microburst), "Ethernet4").voq_drops_tc0
                - port(Faults::default(), "Ethernet4").voq_drops_tc0,
            1_203
        );
    }
}
