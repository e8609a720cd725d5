//! The exact command lines premarket sends to a FortiGate. Every one is read-only and matches a
//! shape of the SSH layer's allowlist; nothing here changes the firewall's configuration (the
//! session filter is per-CLI-session diagnostic state, cleared before and after use).

use std::net::IpAddr;

use crate::core::Command;

pub const GET_SYSTEM_STATUS: &str = "get system status";
pub const GET_PERFORMANCE_STATUS: &str = "get system performance status";
pub const GET_HA_STATUS: &str = "get system ha status";
pub const GET_SYSTEM_GLOBAL: &str = "get system global";
pub const SESSION_STAT: &str = "diagnose sys session stat";
pub const SESSION_LIST: &str = "diagnose sys session list";
pub const MCAST_SESSION_LIST: &str = "diagnose sys mcast-session list";
/// Without arguments: prints the current filter (the readback).
pub const SESSION_FILTER: &str = "diagnose sys session filter";
/// Resets the filter only. Not to be confused with `diagnose sys session clear`, which drops
/// every session on the box and is never sent.
pub const SESSION_FILTER_CLEAR: &str = "diagnose sys session filter clear";
pub const SHOW_POLICY: &str = "show firewall policy";
pub const SHOW_MULTICAST_POLICY: &str = "show firewall multicast-policy";
pub const SHOW_SERVICE_CUSTOM: &str = "show firewall service custom";
pub const SHOW_VIRTUAL_WIRE_PAIR: &str = "show system virtual-wire-pair";

/// What a unicast flow's session query narrows to. Source port is deliberately never part of
/// it: a flow that opens a new socket per send shows up as many sessions with other ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFilter {
    pub proto: u8,
    pub src: Option<IpAddr>,
    pub dst: Option<IpAddr>,
    pub dport: Option<u16>,
}

impl SessionFilter {
    /// The lines that set this filter, starting from a cleared one.
    pub fn context(&self) -> Vec<String> {
        let mut lines = vec![
            SESSION_FILTER_CLEAR.to_string(),
            format!("{SESSION_FILTER} proto {}", self.proto),
        ];
        if let Some(src) = self.src {
            lines.push(format!("{SESSION_FILTER} src {src}"));
        }
        if let Some(dst) = self.dst {
            lines.push(format!("{SESSION_FILTER} dst {dst}"));
        }
        if let Some(dport) = self.dport {
            lines.push(format!("{SESSION_FILTER} dport {dport}"));
        }
        lines
    }

    /// The readback of the filter, sent after setting it and before listing.
    pub fn readback(&self) -> Command {
        Command::in_context(self.context(), SESSION_FILTER)
    }

    /// The session list under this filter.
    pub fn list(&self) -> Command {
        Command::in_context(self.context(), SESSION_LIST)
    }

    /// The readback lines this filter must produce, as `(key, value)` with the FortiOS key names;
    /// every other key must read `any`.
    pub fn expected(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("proto", self.proto.to_string())];
        if let Some(src) = self.src {
            out.push(("source ip", src.to_string()));
        }
        if let Some(dst) = self.dst {
            out.push(("dest ip", dst.to_string()));
        }
        if let Some(dport) = self.dport {
            out.push(("dest port", dport.to_string()));
        }
        out
    }
}

/// `show firewall policy <id>`.
pub fn show_policy(id: u32) -> Command {
    Command::new(format!("{SHOW_POLICY} {id}"))
}

/// `show firewall multicast-policy <id>`.
pub fn show_multicast_policy(id: u32) -> Command {
    Command::new(format!("{SHOW_MULTICAST_POLICY} {id}"))
}

/// `show firewall service custom <name>` (quoted when the name has spaces).
pub fn show_service(name: &str) -> Command {
    if name.contains(char::is_whitespace) {
        Command::new(format!("{SHOW_SERVICE_CUSTOM} \"{name}\""))
    } else {
        Command::new(format!("{SHOW_SERVICE_CUSTOM} {name}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_lines_start_with_clear() {
        let f = SessionFilter {
            proto: 17,
            src: None,
            dst: Some("10.0.0.1".parse().unwrap()),
            dport: Some(5000),
        };
        assert_eq!(
            f.context(),
            vec![
                "diagnose sys session filter clear",
                "diagnose sys session filter proto 17",
                "diagnose sys session filter dst 10.0.0.1",
                "diagnose sys session filter dport 5000"
            ]
        );
        assert_eq!(f.list().text, SESSION_LIST);
        assert_eq!(f.readback().context, f.list().context);
    }
}
