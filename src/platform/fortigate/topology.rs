//! From a logical FortiGate interface to the physical ports that carry it, read from
//! read-only output (research-18-19 §3.1): `show system interface` gives a VLAN's parent
//! (`set interface "md-lag"` + `set vlanid 310`, with or without `set type vlan`: FortiOS 7.x
//! often omits it) and an aggregate's or redundant interface's members (`set member "port1"
//! "port2"`); `show system virtual-switch` gives a hardware switch's ports (`config port` /
//! `edit "internal1"`), which have no entry of their own in `show system interface`. A
//! virtual-wire-pair member is a physical port or a VLAN and resolves as one.
//!
//! The NP port list names physical ports only, so a check of "is this trading interface on
//! the NP" must judge the ports found here; settings that stop offload (sFlow) are judged on
//! every layer crossed, where they are set.

use std::fmt;

use super::config_tree::{ConfigNode, ConfigTree};

/// Deepest nesting followed (VLAN on an aggregate of ports is 3); a longer chain is a loop or
/// output premarket does not understand, never an endless walk.
const MAX_LAYERS: usize = 8;

/// What one interface crossed on the way down is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Physical,
    /// A VLAN: its id and the interface it is on.
    Vlan {
        id: String,
        parent: String,
    },
    /// `set type aggregate` (802.3ad) or `redundant`: its members.
    Aggregate {
        members: Vec<String>,
    },
    Redundant {
        members: Vec<String>,
    },
    /// `set type hard-switch`: its ports, from `show system virtual-switch`.
    HardSwitch {
        ports: Vec<String>,
    },
    /// A port of a hardware switch: no settings of its own, the switch's apply.
    SwitchPort {
        switch: String,
    },
}

/// One interface crossed, with its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    pub name: String,
    pub kind: Kind,
}

/// A trading interface resolved: every layer crossed (the interface itself first) and the
/// physical ports at the bottom, in the order found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolved {
    pub layers: Vec<Layer>,
    pub ports: Vec<String>,
}

impl Resolved {
    /// `VLAN 310 on md-lag; md-lag: aggregate of port1, port2`.
    pub fn describe(&self) -> String {
        let said: Vec<String> = self
            .layers
            .iter()
            .filter_map(|l| {
                let name = &l.name;
                match &l.kind {
                    Kind::Physical => None,
                    Kind::Vlan { id, parent } => Some(format!("{name}: VLAN {id} on {parent}")),
                    Kind::Aggregate { members } => {
                        Some(format!("{name}: aggregate of {}", members.join(", ")))
                    }
                    Kind::Redundant { members } => {
                        Some(format!("{name}: redundant pair of {}", members.join(", ")))
                    }
                    Kind::HardSwitch { ports } => {
                        Some(format!("{name}: hardware switch of {}", ports.join(", ")))
                    }
                    Kind::SwitchPort { switch } => {
                        Some(format!("{name}: a port of hardware switch {switch}"))
                    }
                }
            })
            .collect();
        if said.is_empty() {
            format!("{}: a physical port", self.ports.join(", "))
        } else {
            said.join("; ")
        }
    }
}

/// Why an interface cannot be resolved to NP ports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unresolved {
    #[error(
        "{0}: not in `show system interface` and not a port of a hardware switch: no such interface on the firewall"
    )]
    Unknown(String),
    #[error("{name}: a VLAN (vlanid {id}) without `set interface`: its parent port is unknown")]
    NoParent { name: String, id: String },
    #[error("{name}: `set type {kind}` without `set member`: its ports are unknown")]
    NoMembers { name: String, kind: String },
    #[error(
        "{name}: a hardware switch that `show system virtual-switch` does not list ({why}): its ports are unknown"
    )]
    SwitchUnlisted { name: String, why: String },
    #[error(
        "{name}: `set type {kind}`: not a port, VLAN, aggregate, redundant interface or hardware switch, so not resolved to NP ports"
    )]
    OtherKind { name: String, kind: String },
    #[error(
        "{0}: neither `set type` nor `set vlanid` in `show system interface`: cannot tell what it is"
    )]
    Untyped(String),
    #[error(
        "{0}: the interfaces refer to each other in a loop (or nest more than {MAX_LAYERS} deep)"
    )]
    Loop(String),
    /// Not an output problem but a finding: the NP never offloads a software switch.
    #[error(
        "{0}: a software switch (`set type switch`): the NP never offloads its traffic, the CPU forwards it"
    )]
    SoftwareSwitch(String),
}

impl Unresolved {
    /// A finding about the design (FAIL), rather than output premarket cannot read (ERROR).
    pub fn is_finding(&self) -> bool {
        matches!(self, Unresolved::SoftwareSwitch(_) | Unresolved::Unknown(_))
    }
}

/// The outputs the walk reads. `switches` is `Err(why)` when `show system virtual-switch` was
/// not read (a model without a switch chip refuses it): only a hardware switch needs it.
pub struct Topology<'a> {
    pub interfaces: &'a ConfigTree,
    pub switches: Result<&'a ConfigTree, String>,
}

impl fmt::Debug for Topology<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Topology").finish_non_exhaustive()
    }
}

impl Topology<'_> {
    /// The interface's entry in `show system interface`.
    pub fn entry(&self, name: &str) -> Option<&ConfigNode> {
        self.interfaces.entry("system interface", name)
    }

    /// The hardware switch that has `port` among its ports, when the switches were read.
    fn switch_of(&self, port: &str) -> Option<String> {
        let switches = self.switches.as_ref().ok()?;
        switches
            .root
            .children
            .get("system virtual-switch")?
            .children
            .iter()
            .find(|(_, sw)| sw.at(&["port", port]).is_some())
            .map(|(name, _)| name.clone())
    }

    /// Resolves `name` down to its physical ports.
    pub fn resolve(&self, name: &str) -> Result<Resolved, Unresolved> {
        let mut out = Resolved::default();
        self.walk(name, &mut out, 0)?;
        Ok(out)
    }

    fn walk(&self, name: &str, out: &mut Resolved, depth: usize) -> Result<(), Unresolved> {
        if depth >= MAX_LAYERS || out.layers.iter().any(|l| l.name == name) {
            return Err(Unresolved::Loop(name.to_string()));
        }
        let Some(entry) = self.entry(name) else {
            // A hardware switch's port has no `edit` of its own.
            let Some(switch) = self.switch_of(name) else {
                return Err(Unresolved::Unknown(name.to_string()));
            };
            out.layers.push(Layer {
                name: name.to_string(),
                kind: Kind::SwitchPort {
                    switch: switch.clone(),
                },
            });
            out.ports.push(name.to_string());
            // The switch's own settings apply to the port: it is a layer crossed.
            if !out.layers.iter().any(|l| l.name == switch) && self.entry(&switch).is_some() {
                out.layers.push(Layer {
                    name: switch.clone(),
                    kind: Kind::HardSwitch {
                        ports: self.switch_ports(&switch).unwrap_or_default(),
                    },
                });
            }
            return Ok(());
        };
        let kind = entry.get("type");
        if let Some(id) = entry.get("vlanid") {
            let Some(parent) = entry.get("interface") else {
                return Err(Unresolved::NoParent {
                    name: name.to_string(),
                    id,
                });
            };
            out.layers.push(Layer {
                name: name.to_string(),
                kind: Kind::Vlan {
                    id,
                    parent: parent.clone(),
                },
            });
            return self.walk(&parent, out, depth + 1);
        }
        match kind.as_deref() {
            Some("physical") => {
                out.layers.push(Layer {
                    name: name.to_string(),
                    kind: Kind::Physical,
                });
                out.ports.push(name.to_string());
                Ok(())
            }
            Some(kind @ ("aggregate" | "redundant")) => {
                let members = entry.settings.get("member").cloned().unwrap_or_default();
                if members.is_empty() {
                    return Err(Unresolved::NoMembers {
                        name: name.to_string(),
                        kind: kind.to_string(),
                    });
                }
                out.layers.push(Layer {
                    name: name.to_string(),
                    kind: if kind == "aggregate" {
                        Kind::Aggregate {
                            members: members.clone(),
                        }
                    } else {
                        Kind::Redundant {
                            members: members.clone(),
                        }
                    },
                });
                members
                    .iter()
                    .try_for_each(|m| self.walk(m, out, depth + 1))
            }
            Some("hard-switch") => {
                let ports = self.switch_ports(name)?;
                out.layers.push(Layer {
                    name: name.to_string(),
                    kind: Kind::HardSwitch {
                        ports: ports.clone(),
                    },
                });
                out.ports.extend(ports);
                Ok(())
            }
            Some("switch") => Err(Unresolved::SoftwareSwitch(name.to_string())),
            Some(other) => Err(Unresolved::OtherKind {
                name: name.to_string(),
                kind: other.to_string(),
            }),
            None => Err(Unresolved::Untyped(name.to_string())),
        }
    }

    /// A hardware switch's ports, from `show system virtual-switch`.
    fn switch_ports(&self, name: &str) -> Result<Vec<String>, Unresolved> {
        let unlisted = |why: String| Unresolved::SwitchUnlisted {
            name: name.to_string(),
            why,
        };
        let switches = self.switches.as_ref().map_err(|e| unlisted(e.clone()))?;
        let ports: Vec<String> = switches
            .entry("system virtual-switch", name)
            .and_then(|sw| sw.children.get("port"))
            .map(|p| p.children.keys().cloned().collect())
            .unwrap_or_default();
        if ports.is_empty() {
            return Err(unlisted("no `config port` entry for it".into()));
        }
        Ok(ports)
    }
}

#[cfg(test)]
mod tests {
    use super::super::config_tree::parse;
    use super::*;

    const INTERFACES: &str = "config system interface\n    edit \"port1\"\n        set type physical\n    next\n    edit \"port2\"\n        set type physical\n    next\n    edit \"lan\"\n        set type hard-switch\n    next\n    edit \"md-lag\"\n        set type aggregate\n        set member \"port1\" \"port2\"\n    next\n    edit \"md-feed\"\n        set interface \"md-lag\"\n        set vlanid 310\n    next\n    edit \"sw\"\n        set type switch\n    next\n    edit \"loop-a\"\n        set interface \"loop-b\"\n        set vlanid 1\n    next\n    edit \"loop-b\"\n        set interface \"loop-a\"\n        set vlanid 2\n    next\n    edit \"tun\"\n        set type tunnel\n    next\n    edit \"bare\"\n        set vdom \"root\"\n    next\nend\n";
    const SWITCHES: &str = "config system virtual-switch\n    edit \"lan\"\n        set physical-switch \"sw0\"\n        config port\n            edit \"internal1\"\n            next\n            edit \"internal2\"\n            next\n        end\n    next\nend\n";

    fn resolve(name: &str, switches: Option<&str>) -> Result<Resolved, Unresolved> {
        let interfaces = parse(INTERFACES).unwrap();
        let switches = switches.map(|s| parse(s).unwrap());
        let topology = Topology {
            interfaces: &interfaces,
            switches: switches.as_ref().ok_or_else(|| "not read".to_string()),
        };
        topology.resolve(name)
    }

    #[test]
    fn vlan_on_aggregate_and_switch_ports() {
        let r = resolve("md-feed", None).unwrap();
        assert_eq!(r.ports, ["port1", "port2"]);
        assert_eq!(
            r.describe(),
            "md-feed: VLAN 310 on md-lag; md-lag: aggregate of port1, port2"
        );
        let r = resolve("internal2", Some(SWITCHES)).unwrap();
        assert_eq!(r.ports, ["internal2"]);
        let names: Vec<&str> = r.layers.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["internal2", "lan"]);
        let r = resolve("lan", Some(SWITCHES)).unwrap();
        assert_eq!(r.ports, ["internal1", "internal2"]);
    }

    #[test]
    fn what_cannot_be_resolved_says_why() {
        assert!(matches!(resolve("loop-a", None), Err(Unresolved::Loop(_))));
        assert!(matches!(
            resolve("lan", None),
            Err(Unresolved::SwitchUnlisted { .. })
        ));
        assert!(matches!(
            resolve("internal1", None),
            Err(Unresolved::Unknown(_))
        ));
        assert!(matches!(
            resolve("sw", None),
            Err(Unresolved::SoftwareSwitch(_))
        ));
        assert!(matches!(
            resolve("tun", None),
            Err(Unresolved::OtherKind { .. })
        ));
        assert!(matches!(resolve("bare", None), Err(Unresolved::Untyped(_))));
    }
}
