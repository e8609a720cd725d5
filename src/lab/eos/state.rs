//! What an emulated switch *is*: identity, version, and its running and startup configs. Shared
//! by every SSH session to the device; the scenario sets it up, config commands change it.

use super::super::clock;
use super::super::scenario::{Fault, Faults};
use super::super::topology;
use super::model::SwitchModel;

/// The parts of an EOS configuration the lab varies; the rest is fixed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EosConfig {
    pub hostname: String,
    /// Global `queue-monitor length` (LANZ).
    pub lanz: bool,
    /// Lines added in configuration mode (or by `config-unsaved`), kept after `hostname`.
    pub extra: Vec<String>,
}

/// One emulated switch.
#[derive(Clone, Debug)]
pub struct EosState {
    /// What it emulates: model, release, hardware, cabling ([`super::model`]).
    pub spec: &'static SwitchModel,
    pub model: String,
    pub version: String,
    pub serial: String,
    pub mac: String,
    /// The `enable` secret; `None` = `enable` asks no password.
    pub enable_secret: Option<String>,
    pub running: EosConfig,
    pub startup: EosConfig,
    /// The faults switched on (outputs read them).
    pub faults: Faults,
    /// When the lab started (epoch s): scenario events happen just before it.
    pub started: f64,
    /// When the switch booted (epoch s).
    pub booted: f64,
}

impl EosState {
    /// The switch named `name` with `faults` switched on: the lab notes' 7280R3. `index` makes
    /// serials and MACs unique.
    #[cfg(test)]
    pub fn new(name: &str, index: usize, faults: &Faults) -> Self {
        EosState::of_model(name, index, faults, &super::model::DCS_7280SR3)
    }

    /// A switch of model `spec`.
    pub fn of_model(name: &str, index: usize, faults: &Faults, spec: &'static SwitchModel) -> Self {
        let version = if faults.has(Fault::VersionDrift) {
            spec.drift_version
        } else {
            spec.version
        };
        let saved = EosConfig {
            hostname: name.to_string(),
            lanz: !faults.has(Fault::LanzOff),
            extra: Vec::new(),
        };
        let mut startup = saved.clone();
        let mut running = saved;
        if faults.has(Fault::LanzUnsaved) {
            startup.lanz = false;
            running.lanz = true;
        }
        if faults.has(Fault::ConfigUnsaved) {
            running
                .extra
                .push("ip host md-gateway 10.2.2.1".to_string());
        }
        let started = clock::now();
        EosState {
            spec,
            model: spec.model.to_string(),
            version: version.to_string(),
            serial: format!("JPE2147{index:04}"),
            mac: format!("c0d6.82{:02x}.{:04x}", index / 65536 % 256, index % 65536),
            enable_secret: Some(topology::eos_enable_secret(index)),
            running,
            startup,
            faults: faults.clone(),
            started,
            booted: clock::boot_time(
                started,
                topology::EOS_UPTIME_DAYS,
                faults
                    .has(Fault::Rebooted)
                    .then_some(topology::EOS_REBOOTED_UPTIME_S),
            ),
        }
    }

    /// The switch has rebooted since the healthy run (the `rebooted` scenario).
    pub fn rebooted(&self) -> bool {
        self.faults.has(Fault::Rebooted)
    }

    /// Seconds since boot, now.
    pub fn uptime(&self, now: f64) -> f64 {
        (now - self.booted).max(0.0)
    }

    /// The config text as the files hold it (no `! Command:` line).
    pub fn render(&self, config: &EosConfig) -> String {
        let mut out = format!(
            "! device: {} ({}, EOS-{})\n!\n! boot system flash:/EOS-{}.swi\n!\n",
            config.hostname, self.model, self.version, self.version
        );
        out.push_str(
            "no aaa root\n!\n\
             username admin privilege 15 role network-admin secret sha512 $6$lab.only$0c4b1e2f9a7d3c5e8b6a4f2d1c0e9b8a7f6e5d4c3b2a1908f7e6d5c4b3a2918\n\
             username premarket privilege 1 role network-operator secret sha512 $6$lab.only$9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4938271605f4e3d2c1b0a\n!\n\
             enable password sha512 $6$lab.only$5e4d3c2b1a0f9e8d7c6b5a4938271605f4e3d2c1b0a9f8e7d6c5b4a3928170\n!\n\
             transceiver qsfp default-mode 4x10G\n!\n\
             service routing protocols model multi-agent\n!\n",
        );
        out.push_str(&format!("hostname {}\n", config.hostname));
        for line in &config.extra {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("!\nspanning-tree mode mstp\n!\n");
        if config.lanz {
            out.push_str("queue-monitor length\nqueue-monitor length log 5\n!\n");
        }
        out.push_str(&format!(
            "vlan {vlan}\n   name md-feed\n!\nptp mode boundary\nptp domain 0\n!\n",
            vlan = topology::FEED_VLAN
        ));
        for (name, description) in topology::EOS_TRADING_PORTS {
            // `config-changed`: someone relabelled the servers' port overnight (and saved it).
            let description = if name == "Ethernet4" && self.faults.has(Fault::ConfigChanged) {
                "trading servers (moved to rack B12)"
            } else {
                description
            };
            out.push_str(&format!("interface {name}\n   description {description}\n"));
            out.push_str(match name {
                // The firewall is a virtual wire: the feed VLAN crosses it tagged.
                "Ethernet2" | "Ethernet3" => {
                    "   switchport mode trunk\n   switchport trunk allowed vlan 100\n"
                }
                "Ethernet1" => "   switchport access vlan 100\n   ptp enable\n",
                _ => "   switchport access vlan 100\n   ptp enable\n   ptp role master\n",
            });
            out.push_str("!\n");
        }
        for name in topology::EOS_SPARE_PORTS {
            out.push_str(&format!("interface {name}\n!\n"));
        }
        let (feed_b, description) = topology::EOS_FEED_B_PORT;
        out.push_str(&format!(
            "interface {feed_b}\n   description {description}\n   switchport access vlan {}\n!\n",
            topology::FEED_VLAN
        ));
        out.push_str(
            "interface Ethernet47\n   description probe sender (ExaNIC port0)\n   switchport access vlan 100\n!\n\
             interface Ethernet48\n   description probe capture trunk (ExaNIC port1)\n   switchport mode trunk\n   switchport trunk allowed vlan 100\n!\n\
             interface Management1\n   ip address 192.0.2.11/24\n!\n",
        );
        out.push_str(&routing());
        out.push_str(
            "\
             ntp server 10.0.0.1 prefer iburst\nntp server 10.0.0.2 iburst\n!\n\
             management api http-commands\n   shutdown\n!\n\
             end\n",
        );
        out
    }

    /// Applies one configuration-mode line to the running config.
    pub fn configure(&mut self, line: &str) {
        let line = line.trim();
        match line {
            "queue-monitor length" => self.running.lanz = true,
            "no queue-monitor length" => self.running.lanz = false,
            _ => {
                if let Some(name) = line.strip_prefix("hostname ") {
                    self.running.hostname = name.trim().to_string();
                } else if let Some(removed) = line.strip_prefix("no ") {
                    self.running.extra.retain(|l| l != removed.trim());
                } else if !self.running.extra.iter().any(|l| l == line) {
                    self.running.extra.push(line.to_string());
                }
            }
        }
    }

    /// `write memory` / `copy running-config startup-config`.
    pub fn save(&mut self) {
        self.startup = self.running.clone();
    }
}

/// The hand-off's routing as the lab's other outputs show it: BGP to the exchange's two
/// hand-offs (with BFD) and to the broker in VRF ORDERS, PIM sparse mode.
fn routing() -> String {
    let mut out = String::from("vrf instance ORDERS\n!\nip routing\nip routing vrf ORDERS\n!\n");
    out.push_str(&format!(
        "router bgp {}\n   router-id {}\n",
        topology::EOS_ASN,
        topology::ip(topology::EOS_ROUTER_ID)
    ));
    let neighbor = |p: &topology::BgpPeer, indent: &str| {
        let address = topology::ip(p.address);
        let mut lines = format!(
            "{indent}neighbor {address} remote-as {}\n{indent}neighbor {address} description {}\n",
            p.asn, p.name
        );
        if p.port.is_some() {
            lines.push_str(&format!("{indent}neighbor {address} bfd\n"));
        }
        lines
    };
    for p in topology::EOS_BGP_PEERS
        .iter()
        .filter(|p| p.vrf == "default")
    {
        out.push_str(&neighbor(p, "   "));
    }
    out.push_str("   !\n   vrf ORDERS\n");
    for p in topology::EOS_BGP_PEERS.iter().filter(|p| p.vrf == "ORDERS") {
        out.push_str(&neighbor(p, "      "));
    }
    out.push_str("!\nrouter pim sparse-mode\n   ipv4\n      ssm range standard\n!\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_shape_the_configs() {
        let healthy = EosState::new("sw1", 1, &Faults::default());
        assert_eq!(healthy.running, healthy.startup);
        assert!(
            healthy
                .render(&healthy.startup)
                .contains("\nqueue-monitor length\n")
        );

        let unsaved = EosState::new("sw1", 1, &Faults::only(Fault::LanzUnsaved));
        assert!(unsaved.running.lanz && !unsaved.startup.lanz);

        let mut off = EosState::new("sw1", 1, &Faults::only(Fault::LanzOff));
        assert!(!off.running.lanz && !off.startup.lanz);
        off.configure("queue-monitor length");
        assert!(off.running.lanz && !off.startup.lanz);
        off.save();
        assert!(off.startup.lanz);
    }
}
