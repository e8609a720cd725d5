//! `show firewall service custom NAME` and `get system global` as the timer checks read them:
//! the idle timer and session TTL a service sets, and the global UDP idle timer, typed.
//!
//! A service's `udp-idle-timer 0` (or none printed) leaves UDP to the global `udp-idle-timer`
//! (180 s by default); a service's `session-ttl` (seconds or `never`) overrides a policy's,
//! which overrides `config system session-ttl` (KB "Priority of session-ttl settings").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_tree::{self, ConfigNode};
use super::ttl::{NotATtl, Ttl};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// One custom service, or its absence (`show` of a missing name prints an empty table).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceShow {
    pub service: Option<FirewallService>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirewallService {
    pub name: String,
    /// `set udp-portrange` as printed (`5000`, `5000-5010`, `5000:1024-65535`).
    pub udp_portrange: Vec<String>,
    pub tcp_portrange: Vec<String>,
    /// The service's own UDP idle timer in seconds; `None` when not set or 0 (the global one
    /// applies).
    pub udp_idle_timer_s: Option<u64>,
    /// `set session-ttl` (seconds or `never`); `None` when not set or 0.
    pub session_ttl: Option<Ttl>,
}

/// A service entry whose timers do not read, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum ServiceError {
    #[error("`set udp-idle-timer {}` is not seconds", quote(.0))]
    IdleTimer(String),
    #[error(transparent)]
    SessionTtl(#[from] NotATtl),
}

impl FirewallService {
    /// Whether the service's UDP ranges include destination port `port`.
    pub fn has_udp_port(&self, port: u16) -> bool {
        self.udp_portrange.iter().any(|range| {
            let dst = range.split(':').next().unwrap_or_default();
            let (low, high) = dst.split_once('-').unwrap_or((dst, dst));
            match (low.parse::<u16>(), high.parse::<u16>()) {
                (Ok(l), Ok(h)) => (l..=h).contains(&port),
                _ => false,
            }
        })
    }

    fn from_node(name: &str, node: &ConfigNode) -> Result<FirewallService, ServiceError> {
        let udp_idle_timer_s = match node.get("udp-idle-timer") {
            None => None,
            Some(v) => match v.parse::<u64>() {
                Ok(0) => None,
                Ok(t) => Some(t),
                Err(_) => return Err(ServiceError::IdleTimer(v.to_string())),
            },
        };
        let session_ttl = match node.get("session-ttl") {
            None => None,
            Some(v) => match Ttl::parse(&v)? {
                Ttl::Seconds(0) => None,
                ttl => Some(ttl),
            },
        };
        Ok(FirewallService {
            name: name.to_string(),
            udp_portrange: node
                .settings
                .get("udp-portrange")
                .cloned()
                .unwrap_or_default(),
            tcp_portrange: node
                .settings
                .get("tcp-portrange")
                .cloned()
                .unwrap_or_default(),
            udp_idle_timer_s,
            session_ttl,
        })
    }
}

/// `show firewall service custom <name>` (quoted when the name has spaces).
pub struct ShowService(pub String);

impl ShowService {
    pub const TEXT: &'static str = "show firewall service custom";
    const TABLE: &'static str = "firewall service custom";
}

impl Query for ShowService {
    const KIND: &'static str = "fortigate.show-firewall-service-custom";
    type Fact = ServiceShow;
    fn command(&self) -> Command {
        if self.0.contains(char::is_whitespace) {
            Command::new(format!("{} \"{}\"", Self::TEXT, self.0))
        } else {
            Command::new(format!("{} {}", Self::TEXT, self.0))
        }
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ServiceShow, ParseError> {
        parse_service(raw.text()?)
    }
}

fn parse_service(raw: &str) -> Result<ServiceShow, ParseError> {
    let tree = config_tree::parse(raw)?;
    let Some(table) = tree.root.children.get(ShowService::TABLE) else {
        return Err(ParseError::new(
            "no `config firewall service custom` block: not a service read-back",
            raw,
        ));
    };
    let mut entries = table.children.iter();
    let service = match (entries.next(), entries.next()) {
        (None, _) => None,
        (Some((name, node)), None) => Some(
            FirewallService::from_node(name, node)
                .map_err(|e| ParseError::new(format!("service {}: {e}", quote(name)), raw))?,
        ),
        (Some(_), Some(_)) => {
            return Err(ParseError::new(
                "`show firewall service custom NAME` printed several services",
                raw,
            ));
        }
    };
    Ok(ServiceShow { service })
}

/// `get system global`, typed where checks read it; every `name : value` line is kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemGlobal {
    /// The global UDP idle timer (seconds); `None` when not printed.
    pub udp_idle_timer_s: Option<u64>,
    pub settings: BTreeMap<String, String>,
}

/// `get system global`.
pub struct GetSystemGlobal;

impl GetSystemGlobal {
    pub const TEXT: &'static str = "get system global";
}

impl Query for GetSystemGlobal {
    const KIND: &'static str = "fortigate.get-system-global";
    type Fact = SystemGlobal;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SystemGlobal, ParseError> {
        let text = raw.text()?;
        let tree = config_tree::parse(text)?;
        // `get system global` inside `config global` on a multi-VDOM box keeps the same lines.
        let node = tree.root.at(&["system global"]).unwrap_or(&tree.root);
        let udp_idle_timer_s = match node.get("udp-idle-timer") {
            None => None,
            Some(v) => Some(v.parse::<u64>().map_err(|_| {
                ParseError::new(
                    format!("`udp-idle-timer : {}` is not seconds", quote(&v)),
                    text,
                )
            })?),
        };
        Ok(SystemGlobal {
            udp_idle_timer_s,
            settings: node
                .settings
                .iter()
                .map(|(k, v)| (k.clone(), v.join(" ")))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_timers_and_ports() {
        let text = "fw1 # show firewall service custom MD\nconfig firewall service custom\n    edit \"MD\"\n        set udp-portrange 5000-5010:1024-65535 6000\n        set udp-idle-timer 600\n        set session-ttl never\n    next\nend\nfw1 # ";
        let s = parse_service(text).unwrap().service.unwrap();
        assert_eq!(
            (s.udp_idle_timer_s, s.session_ttl),
            (Some(600), Some(Ttl::Never))
        );
        assert!(s.has_udp_port(5005) && s.has_udp_port(6000) && !s.has_udp_port(5011));
        let zero = "config firewall service custom\n    edit \"MD\"\n        set udp-idle-timer 0\n    next\nend\n";
        let s = parse_service(zero).unwrap().service.unwrap();
        assert_eq!((s.udp_idle_timer_s, s.session_ttl), (None, None));
        assert_eq!(
            parse_service("config firewall service custom\nend\n").unwrap(),
            ServiceShow { service: None }
        );
        for bad in [
            "config firewall service custom\n    edit \"MD\"\n        set udp-idle-timer soon\n    next\nend\n",
            "config firewall policy\nend\n",
            "config firewall service custom\n    edit a\n    next\n    edit b\n    next\nend\n",
        ] {
            assert!(parse_service(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn global_udp_idle_timer() {
        let g = GetSystemGlobal::parse(&mut Raw::new(
            "fw1 # get system global\nhostname            : fw1\nudp-idle-timer      : 180\nfw1 # ",
        ))
        .unwrap();
        assert_eq!(g.udp_idle_timer_s, Some(180));
        assert_eq!(g.settings["hostname"], "fw1");
        assert!(GetSystemGlobal::parse(&mut Raw::new("udp-idle-timer : x\n")).is_err());
    }
}
