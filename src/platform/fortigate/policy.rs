//! `show firewall policy N` and `show firewall multicast-policy N` as the checks read them: what
//! decides whether the NP may carry the policy's sessions and which timers apply, typed, with
//! FortiOS's defaults filled in (`show` prints only what differs from them).
//!
//! Offload (Hardware Acceleration guide): `set auto-asic-offload disable` keeps every session on
//! the CPU; proxy-mode inspection with any profile is never offloaded; flow-mode security
//! profiles (IPS, application control, flow antivirus and web filter ...) send the session to
//! the IPS engine on the CPU, nTurbo at best offloading the firewall part around it
//! (`set np-acceleration disable` turns nTurbo off for the policy).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_tree::{self, ConfigNode};
use super::ttl::{NotATtl, Ttl};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// Security profile settings of a policy: each one, when set, sends sessions to inspection.
pub const PROFILE_KEYS: [&str; 14] = [
    "ips-sensor",
    "application-list",
    "av-profile",
    "webfilter-profile",
    "dnsfilter-profile",
    "emailfilter-profile",
    "dlp-profile",
    "file-filter-profile",
    "icap-profile",
    "waf-profile",
    "ssh-filter-profile",
    "voip-profile",
    "videofilter-profile",
    "profile-group",
];

/// One policy, or its absence (`show firewall policy 99` prints an empty table).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyShow {
    pub policy: Option<FirewallPolicy>,
}

/// A firewall (or multicast) policy, defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirewallPolicy {
    pub id: u32,
    pub name: Option<String>,
    /// `set status disable` makes it `false`.
    pub enabled: bool,
    /// `accept`, `deny` ...; `None` when not printed (the table's default).
    pub action: Option<String>,
    /// `set auto-asic-offload disable` makes it `false`: every packet takes the CPU.
    pub auto_asic_offload: bool,
    /// `set np-acceleration disable` (nTurbo off for this policy) makes it `false`.
    pub np_acceleration: bool,
    /// `flow` (the default) or `proxy`.
    pub inspection_mode: String,
    /// Profile setting -> profile name, for every key of [`PROFILE_KEYS`] that is set.
    pub profiles: BTreeMap<String, String>,
    /// `set service` names (unicast policies).
    pub services: Vec<String>,
    /// `set session-ttl` (seconds or `never`); `None` when not set (or set to 0).
    pub session_ttl: Option<Ttl>,
    pub srcintf: Vec<String>,
    pub dstintf: Vec<String>,
}

impl FirewallPolicy {
    pub fn proxy(&self) -> bool {
        self.inspection_mode == "proxy"
    }

    fn from_node(id: u32, node: &ConfigNode) -> Result<FirewallPolicy, NotATtl> {
        let on = |key: &str| node.get(key).as_deref() != Some("disable");
        let session_ttl = match node.get("session-ttl") {
            None => None,
            Some(v) => match Ttl::parse(&v)? {
                Ttl::Seconds(0) => None,
                ttl => Some(ttl),
            },
        };
        Ok(FirewallPolicy {
            id,
            name: node.get("name"),
            enabled: on("status"),
            action: node.get("action"),
            auto_asic_offload: on("auto-asic-offload"),
            np_acceleration: on("np-acceleration"),
            inspection_mode: node
                .get("inspection-mode")
                .unwrap_or_else(|| "flow".to_string()),
            profiles: PROFILE_KEYS
                .iter()
                .filter_map(|k| {
                    node.get(k)
                        .filter(|v| !v.is_empty())
                        .map(|v| (k.to_string(), v))
                })
                .collect(),
            services: node.settings.get("service").cloned().unwrap_or_default(),
            session_ttl,
            srcintf: node.settings.get("srcintf").cloned().unwrap_or_default(),
            dstintf: node.settings.get("dstintf").cloned().unwrap_or_default(),
        })
    }
}

/// Reads `show <table> <id>`: the entry `id` of `config <table>`, or none.
fn parse_policy(raw: &str, table: &str, id: u32) -> Result<PolicyShow, ParseError> {
    let tree = config_tree::parse(raw)?;
    if !tree.has_table(table) {
        return Err(ParseError::new(
            format!("no `config {table}` block: not show {table} output"),
            raw,
        ));
    }
    let Some(node) = tree.entry(table, &id.to_string()) else {
        return Ok(PolicyShow { policy: None });
    };
    FirewallPolicy::from_node(id, node)
        .map(|p| PolicyShow { policy: Some(p) })
        .map_err(|e| ParseError::new(format!("{table} {id}: {e}"), raw))
}

/// The id of the one entry `show <table> N` printed (`premarket parse` does not know `N`).
fn only_entry(raw: &str, table: &str) -> Result<u32, ParseError> {
    let tree = config_tree::parse(raw)?;
    let entries = tree
        .root
        .children
        .get(table)
        .map(|t| t.children.keys().collect::<Vec<_>>())
        .unwrap_or_default();
    match entries.as_slice() {
        [] => Ok(0),
        [one] => one.parse().map_err(|_| {
            ParseError::new(
                format!("{table} entry {} is not a policy id", quote(one)),
                raw,
            )
        }),
        _ => Err(ParseError::new(
            format!("`show {table} N` printed several entries"),
            raw,
        )),
    }
}

/// `show firewall policy <id>`.
pub struct ShowPolicy(pub u32);

impl ShowPolicy {
    pub const TEXT: &'static str = "show firewall policy";
    const TABLE: &'static str = "firewall policy";
}

impl Query for ShowPolicy {
    const KIND: &'static str = "fortigate.show-firewall-policy";
    type Fact = PolicyShow;
    fn command(&self) -> Command {
        Command::new(format!("{} {}", Self::TEXT, self.0))
    }
    fn parse(raw: &mut Raw<'_>) -> Result<PolicyShow, ParseError> {
        let text = raw.text()?;
        parse_policy(text, Self::TABLE, only_entry(text, Self::TABLE)?)
    }
}

/// `show firewall multicast-policy <id>`.
pub struct ShowMulticastPolicy(pub u32);

impl ShowMulticastPolicy {
    pub const TEXT: &'static str = "show firewall multicast-policy";
    const TABLE: &'static str = "firewall multicast-policy";
}

impl Query for ShowMulticastPolicy {
    const KIND: &'static str = "fortigate.show-firewall-multicast-policy";
    type Fact = PolicyShow;
    fn command(&self) -> Command {
        Command::new(format!("{} {}", Self::TEXT, self.0))
    }
    fn parse(raw: &mut Raw<'_>) -> Result<PolicyShow, ParseError> {
        let text = raw.text()?;
        parse_policy(text, Self::TABLE, only_entry(text, Self::TABLE)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROXY: &str = "fw1 # show firewall policy 1\nconfig firewall policy\n    edit 1\n        set name \"md\"\n        set srcintf \"x1\"\n        set dstintf \"x2\"\n        set action accept\n        set service \"MD-UDP-5000\" \"PING\"\n        set inspection-mode proxy\n        set utm-status enable\n        set av-profile \"default\"\n        set ips-sensor \"default\"\n        set session-ttl never\n        set np-acceleration disable\n    next\nend\nfw1 # ";

    #[test]
    fn defaults_and_settings() {
        let p = parse_policy(PROXY, "firewall policy", 1)
            .unwrap()
            .policy
            .unwrap();
        assert!(p.enabled && p.auto_asic_offload && !p.np_acceleration && p.proxy());
        assert_eq!(p.services, ["MD-UDP-5000", "PING"]);
        assert_eq!(p.session_ttl, Some(Ttl::Never));
        assert_eq!(
            p.profiles.keys().collect::<Vec<_>>(),
            ["av-profile", "ips-sensor"]
        );
        assert_eq!(
            (p.srcintf.as_slice(), p.dstintf.as_slice()),
            (&["x1".to_string()][..], &["x2".to_string()][..])
        );
        let plain = "config firewall policy\n    edit 1\n        set status disable\n        set auto-asic-offload disable\n        set session-ttl 0\n    next\nend\n";
        let p = parse_policy(plain, "firewall policy", 1)
            .unwrap()
            .policy
            .unwrap();
        assert!(!p.enabled && !p.auto_asic_offload && p.np_acceleration);
        assert_eq!((p.inspection_mode.as_str(), p.session_ttl), ("flow", None));
    }

    #[test]
    fn absent_policy_and_other_outputs() {
        let empty = "fw1 # show firewall policy 9\nconfig firewall policy\nend\nfw1 # ";
        assert_eq!(
            parse_policy(empty, "firewall policy", 9).unwrap(),
            PolicyShow { policy: None }
        );
        assert_eq!(
            ShowPolicy::parse(&mut Raw::new(empty)).unwrap(),
            PolicyShow { policy: None }
        );
        assert_eq!(
            ShowPolicy::parse(&mut Raw::new(PROXY))
                .unwrap()
                .policy
                .unwrap()
                .id,
            1
        );
        for bad in [
            "config firewall service custom\nend\n",
            "config firewall policy\n    edit 1\n        set session-ttl forever\n    next\nend\n",
            "Command fail. Return code -61\n",
            "config firewall policy\n    edit 1\n",
        ] {
            assert!(parse_policy(bad, "firewall policy", 1).is_err(), "{bad}");
        }
    }
}
