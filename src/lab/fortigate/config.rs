//! The emulated FortiGate's configuration as FortiOS keeps it: sections (`firewall policy`,
//! `system global`, ...) that hold either settings or named entries of settings. `show`
//! renders it in `config`/`edit`/`set`/`next`/`end` form, configuration mode edits it, and the
//! session table reads it (a policy's `auto-asic-offload`, a service's `udp-idle-timer`), so
//! what `show` prints and what the sessions do always agree.

use super::super::scenario::{Fault, Faults};
use super::super::topology::{self, Flow};
use super::model::{FirewallModel, Path};

/// `set key value...` lines, in order; values are kept as typed (quotes included).
pub type Settings = Vec<(String, String)>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Settings(Settings),
    Table(Vec<(String, Settings)>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub path: String,
    pub body: Body,
}

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub sections: Vec<Section>,
}

fn set(pairs: &[(&str, &str)]) -> Settings {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

fn policy(flow: &Flow, name: &str, offload: bool) -> (String, Settings) {
    let mut s = set(&[
        ("name", &quoted(name)),
        (
            "uuid",
            &format!("5e8a0c1e-7b2d-51ef-a3c4-0000000000{:02}", flow.policy),
        ),
        ("srcintf", &quoted(topology::PORT_IN)),
        ("dstintf", &quoted(topology::PORT_OUT)),
        ("action", "accept"),
        ("srcaddr", &quoted("all")),
        ("dstaddr", &quoted("all")),
        ("schedule", &quoted("always")),
        ("service", &quoted(flow.service)),
    ]);
    if !offload {
        s.push(("auto-asic-offload".into(), "disable".into()));
    }
    (flow.policy.to_string(), s)
}

/// The order-entry policy; under `config-changed` someone changed its destination address
/// overnight (one line of the configuration).
fn order_entry(flow: &Flow, faults: &Faults) -> (String, Settings) {
    let (id, mut s) = policy(flow, "order-entry", true);
    if faults.has(Fault::ConfigChanged)
        && let Some(dst) = s.iter_mut().find(|(k, _)| k == "dstaddr")
    {
        dst.1 = quoted("exchange-gw-all");
    }
    (id, s)
}

/// The 201G's interfaces (data ports 1-20 and X1-X8 on the NP7Lite, MGMT and HA not), as
/// `show system interface` prints them: `set vdom` and `set type` always, the rest when not
/// at its default.
pub const INTERFACES: &[&str] = &[
    "mgmt", "ha", "port1", "port2", "port3", "port4", "port5", "port6", "port7", "port8", "port9",
    "port10", "port11", "port12", "port13", "port14", "port15", "port16", "port17", "port18",
    "port19", "port20", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
];

fn interfaces(faults: &Faults) -> Vec<(String, Settings)> {
    INTERFACES
        .iter()
        .map(|name| {
            let mut s = set(&[("vdom", "\"root\"")]);
            match *name {
                "mgmt" => s.extend(set(&[
                    ("ip", "192.0.2.10 255.255.255.0"),
                    ("allowaccess", "ping https ssh"),
                    ("dedicated-to", "management"),
                ])),
                n if n == topology::PORT_IN || n == topology::PORT_OUT => {
                    s.push(("alias".into(), quoted(&format!("trading-{n}"))));
                }
                _ => {}
            }
            if *name == topology::PORT_IN && faults.has(Fault::SflowEnabled) {
                // Someone turned sFlow on for a traffic study: it stops NP offload on x1.
                s.extend(set(&[("sflow-sampler", "enable"), ("sample-rate", "1000")]));
            }
            s.push(("type".into(), "physical".into()));
            s.push((
                "snmp-index".into(),
                (INTERFACES.iter().position(|n| n == name).unwrap_or(0) + 1).to_string(),
            ));
            (quoted(name), s)
        })
        .collect()
}

/// The logical interfaces of a model's trading path, as `show system interface` prints them;
/// a hardware switch's ports lose their own entries.
fn logical(interfaces: &mut Vec<(String, Settings)>, path: Path) {
    let vlan = |parent: &str, typed: bool| {
        let mut s = set(&[
            ("vdom", "\"root\""),
            ("ip", "10.10.1.1 255.255.255.0"),
            ("allowaccess", "ping"),
            ("role", "lan"),
            ("snmp-index", "32"),
        ]);
        if typed {
            s.push(("type".into(), "vlan".into()));
        }
        s.extend(set(&[("interface", &quoted(parent)), ("vlanid", "310")]));
        (quoted("md-feed"), s)
    };
    match path {
        Path::Ports => {}
        Path::VlanOnPort => interfaces.push(vlan(topology::PORT_IN, true)),
        Path::VlanOnAggregate => {
            interfaces.push((
                quoted("md-lag"),
                set(&[
                    ("vdom", "\"root\""),
                    ("type", "aggregate"),
                    ("member", &format!("{} \"x3\"", quoted(topology::PORT_IN))),
                    ("snmp-index", "31"),
                ]),
            ));
            interfaces.push(vlan("md-lag", false));
        }
        Path::HardSwitchPort => {
            interfaces.retain(|(n, _)| !HARD_SWITCH_PORTS.contains(&n.trim_matches('"')));
            interfaces.push((
                quoted(HARD_SWITCH),
                set(&[
                    ("vdom", "\"root\""),
                    ("ip", "10.10.5.1 255.255.255.0"),
                    ("allowaccess", "ping https ssh"),
                    ("type", "hard-switch"),
                    ("stp", "enable"),
                    ("snmp-index", "31"),
                ]),
            ));
        }
    }
}

/// The hardware switch of the `HardSwitchPort` model and its ports.
pub const HARD_SWITCH: &str = "lan";
pub const HARD_SWITCH_PORTS: [&str; 2] = ["port1", "port2"];

impl Config {
    /// The lab notes' 201G's configuration of `hostname` with `faults` switched on.
    #[cfg(test)]
    pub fn new(hostname: &str, faults: &Faults) -> Self {
        Config::of_model(hostname, faults, &super::model::FG_201G)
    }

    /// The configuration of a firewall of model `spec`.
    pub fn of_model(hostname: &str, faults: &Faults, spec: &FirewallModel) -> Self {
        let mut system_interfaces = interfaces(faults);
        logical(&mut system_interfaces, spec.path);
        let md = &topology::MARKET_DATA;
        let orders = &topology::ORDERS;
        let mut md_service = set(&[("udp-portrange", &md.dport.to_string())]);
        if !faults.has(Fault::IdleExpired) {
            md_service.push((
                "udp-idle-timer".into(),
                topology::MARKET_DATA_UDP_IDLE.to_string(),
            ));
        }
        let mut ha = set(&[]);
        if faults.has(Fault::HaMismatch) || faults.has(Fault::HaHeartbeat) {
            ha = set(&[
                ("group-name", "\"trading-ha\""),
                ("mode", "a-p"),
                ("hbdev", "\"ha1\" 0 \"ha2\" 0"),
                ("override", "disable"),
                ("priority", "200"),
                ("monitor", "\"x1\" \"x2\""),
            ]);
        }
        let sections = vec![
            Section {
                path: "system interface".into(),
                body: Body::Table(system_interfaces),
            },
            // Only non-default settings are shown: a box at factory NP and TTL settings
            // prints the bare `config ...` / `end`.
            Section {
                path: "system npu".into(),
                body: Body::Settings(set(&[])),
            },
            Section {
                path: "system session-ttl".into(),
                body: Body::Settings(set(&[])),
            },
            Section {
                path: "system global".into(),
                body: Body::Settings(set(&[
                    ("alias", &quoted(topology::FORTIGATE_MODEL)),
                    ("hostname", &quoted(hostname)),
                    ("timezone", &quoted("Asia/Taipei")),
                ])),
            },
            Section {
                path: "system console".into(),
                body: Body::Settings(set(&[])),
            },
            Section {
                path: "system ha".into(),
                body: Body::Settings(ha),
            },
            Section {
                path: "system virtual-wire-pair".into(),
                body: Body::Table(vec![(
                    quoted(topology::WIRE_PAIR),
                    set(&[(
                        "member",
                        &format!("\"{}\" \"{}\"", topology::PORT_IN, topology::PORT_OUT),
                    )]),
                )]),
            },
            Section {
                path: "firewall service custom".into(),
                body: Body::Table(vec![
                    (
                        quoted("ALL"),
                        set(&[("category", "\"General\""), ("protocol", "IP")]),
                    ),
                    (
                        quoted("SSH"),
                        set(&[("category", "\"Remote Access\""), ("tcp-portrange", "22")]),
                    ),
                    (quoted(md.service), md_service),
                    (
                        quoted(orders.service),
                        set(&[("tcp-portrange", &orders.dport.to_string())]),
                    ),
                ]),
            },
            Section {
                path: "firewall policy".into(),
                body: Body::Table(vec![
                    policy(md, "market-data-feed", !faults.has(Fault::OffloadDisabled)),
                    order_entry(orders, faults),
                ]),
            },
            Section {
                path: "firewall multicast-policy".into(),
                body: Body::Table(vec![(
                    topology::MULTICAST_FEED.policy.to_string(),
                    set(&[
                        ("name", "\"md-multicast\""),
                        ("srcintf", &quoted(topology::PORT_IN)),
                        ("dstintf", &quoted(topology::PORT_OUT)),
                        ("srcaddr", &quoted("all")),
                        ("dstaddr", &quoted("all")),
                    ]),
                )]),
            },
        ];
        Config { sections }
    }

    pub fn section(&self, path: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.path == path)
    }

    pub fn section_mut(&mut self, path: &str) -> &mut Section {
        if let Some(i) = self.sections.iter().position(|s| s.path == path) {
            return &mut self.sections[i];
        }
        self.sections.push(Section {
            path: path.to_string(),
            body: Body::Settings(Vec::new()),
        });
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    /// A setting of a settings section (`system global`, `hostname`).
    pub fn setting(&self, path: &str, key: &str) -> Option<&str> {
        match &self.section(path)?.body {
            Body::Settings(s) => s.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()),
            Body::Table(_) => None,
        }
    }

    /// A setting of one entry of a table section (`firewall policy`, `10`, `auto-asic-offload`).
    pub fn entry_setting(&self, path: &str, entry: &str, key: &str) -> Option<&str> {
        match &self.section(path)?.body {
            Body::Table(rows) => rows
                .iter()
                .find(|(name, _)| name.trim_matches('"') == entry)
                .and_then(|(_, s)| s.iter().find(|(k, _)| k == key))
                .map(|(_, v)| v.as_str()),
            Body::Settings(_) => None,
        }
    }

    /// `show PATH [ENTRY]` text; `None` when the path is unknown.
    pub fn show(&self, path: &str, entry: Option<&str>) -> Option<String> {
        let section = self.section(path)?;
        let mut out = format!("config {path}\n");
        match &section.body {
            Body::Settings(s) => push_settings(&mut out, s, "    "),
            Body::Table(rows) => {
                for (name, s) in rows {
                    if entry.is_some_and(|e| e != name.trim_matches('"')) {
                        continue;
                    }
                    out.push_str(&format!("    edit {name}\n"));
                    push_settings(&mut out, s, "        ");
                    out.push_str("    next\n");
                }
            }
        }
        out.push_str("end\n");
        Some(out)
    }
}

fn push_settings(out: &mut String, settings: &Settings, indent: &str) {
    for (k, v) in settings {
        out.push_str(&format!("{indent}set {k} {v}\n"));
    }
}

/// A change being made in configuration mode: the section, the entry being edited, and the
/// working copy committed by `end` (FortiOS applies on `next`/`end`; `abort` drops it).
#[derive(Clone, Debug)]
pub struct Edit {
    pub path: String,
    pub entry: Option<String>,
    pub work: Config,
}

impl Edit {
    /// Applies `set`/`unset`/`edit`/`next`/`delete` typed in a config context; returns an error
    /// line for input FortiOS would reject.
    pub fn apply(&mut self, words: &[&str]) -> Result<(), String> {
        let section = self.work.section_mut(&self.path);
        match (words.first().copied(), &self.entry) {
            (Some("edit"), _) => {
                let Some(name) = words.get(1) else {
                    return Err("command parse error before 'edit'".into());
                };
                let name = name.trim_matches('"').to_string();
                if let Body::Settings(s) = &section.body
                    && s.is_empty()
                {
                    section.body = Body::Table(Vec::new());
                }
                if let Body::Table(rows) = &mut section.body
                    && !rows.iter().any(|(n, _)| n.trim_matches('"') == name)
                {
                    let key = if name.chars().all(|c| c.is_ascii_digit()) {
                        name.clone()
                    } else {
                        quoted(&name)
                    };
                    rows.push((key, Vec::new()));
                }
                self.entry = Some(name);
                Ok(())
            }
            (Some("next"), _) => {
                self.entry = None;
                Ok(())
            }
            (Some("delete"), None) => {
                let name = words
                    .get(1)
                    .map(|n| n.trim_matches('"'))
                    .unwrap_or_default();
                if let Body::Table(rows) = &mut section.body {
                    rows.retain(|(n, _)| n.trim_matches('"') != name);
                }
                Ok(())
            }
            (Some(verb @ ("set" | "unset")), entry) => {
                let Some(key) = words.get(1) else {
                    return Err(format!("command parse error before '{verb}'"));
                };
                let value = words.get(2..).map(|v| v.join(" ")).unwrap_or_default();
                let settings = match (&mut section.body, entry) {
                    (Body::Settings(s), None) => s,
                    (Body::Table(rows), Some(e)) => {
                        match rows.iter_mut().find(|(n, _)| n.trim_matches('"') == e) {
                            Some((_, s)) => s,
                            None => return Err("entry not found in datasource".into()),
                        }
                    }
                    _ => return Err(format!("command parse error before '{key}'")),
                };
                settings.retain(|(k, _)| k != key);
                if verb == "set" {
                    if value.is_empty() {
                        return Err(format!("command parse error before '{key}'"));
                    }
                    settings.push((key.to_string(), value));
                }
                Ok(())
            }
            (Some(other), _) => Err(format!("command parse error before '{other}'")),
            (None, _) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_and_edit() {
        let c = Config::new("fw1", &Faults::default());
        let p = c.show("firewall policy", Some("1")).unwrap();
        assert!(
            p.starts_with(
                "config firewall policy\n    edit 1\n        set name \"market-data-feed\"\n"
            ),
            "{p}"
        );
        assert!(!p.contains("auto-asic-offload"));
        assert_eq!(
            c.entry_setting("firewall service custom", "MD-UDP-5000", "udp-idle-timer"),
            Some("3600")
        );

        let off = Config::new("fw1", &Faults::only(Fault::OffloadDisabled));
        assert_eq!(
            off.entry_setting("firewall policy", "1", "auto-asic-offload"),
            Some("disable")
        );

        let mut e = Edit {
            path: "firewall policy".into(),
            entry: None,
            work: off,
        };
        e.apply(&["edit", "1"]).unwrap();
        e.apply(&["set", "auto-asic-offload", "enable"]).unwrap();
        e.apply(&["next"]).unwrap();
        assert_eq!(
            e.work
                .entry_setting("firewall policy", "1", "auto-asic-offload"),
            Some("enable")
        );
        assert!(e.apply(&["bogus"]).is_err());

        let mut console = Edit {
            path: "system console".into(),
            entry: None,
            work: c,
        };
        console.apply(&["set", "output", "standard"]).unwrap();
        assert_eq!(
            console.work.setting("system console", "output"),
            Some("standard")
        );
    }
}
