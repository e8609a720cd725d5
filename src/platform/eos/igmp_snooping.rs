//! `show ip igmp snooping | json`: snooping on globally and per VLAN (what ANTA's
//! `VerifyIGMPSnoopingVlans` reads), and whether a VLAN floods multicast (`floodingTraffic`),
//! which it does once no querier keeps the memberships alive.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::{required, vlan};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgmpSnooping {
    /// Global `igmpSnoopingState: enabled`.
    pub enabled: bool,
    /// Keyed by VLAN id.
    pub vlans: BTreeMap<u16, IgmpSnoopingVlan>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgmpSnoopingVlan {
    pub enabled: bool,
    /// Multicast flooded to every port of the VLAN.
    pub flooding_traffic: Option<bool>,
    pub pruning_active: Option<bool>,
    pub groups_overrun: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    igmp_snooping_state: String,
    vlans: BTreeMap<String, JsonVlan>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonVlan {
    igmp_snooping_state: String,
    #[serde(default)]
    flooding_traffic: Option<bool>,
    #[serde(default)]
    pruning_active: Option<bool>,
    #[serde(default)]
    groups_overrun: Option<bool>,
}

/// `show ip igmp snooping | json`.
pub struct ShowIgmpSnooping;

impl Query for ShowIgmpSnooping {
    const KIND: &'static str = "eos.show-ip-igmp-snooping";
    type Fact = IgmpSnooping;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<IgmpSnooping, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowIgmpSnooping {
    pub const TEXT: &'static str = "show ip igmp snooping | json";
}

pub fn parse(raw: &str) -> Result<IgmpSnooping, ParseError> {
    let json: Json = required(raw, "show ip igmp snooping")?;
    let error = |e: String| ParseError::new(e, raw);
    let mut out = IgmpSnooping {
        enabled: state(&json.igmp_snooping_state).map_err(|e| error(e.to_string()))?,
        vlans: BTreeMap::new(),
    };
    for (id, v) in json.vlans {
        let id = vlan(&id).map_err(|e| error(e.to_string()))?;
        out.vlans.insert(
            id,
            IgmpSnoopingVlan {
                enabled: state(&v.igmp_snooping_state)
                    .map_err(|e| error(format!("VLAN {id}: {e}")))?,
                flooding_traffic: v.flooding_traffic,
                pruning_active: v.pruning_active,
                groups_overrun: v.groups_overrun,
            },
        );
    }
    Ok(out)
}

/// `enabled` / `disabled`.
fn state(value: &str) -> Result<bool, NotAState> {
    match value {
        "enabled" => Ok(true),
        "disabled" => Ok(false),
        other => Err(NotAState(other.to_string())),
    }
}

/// An `igmpSnoopingState` that is neither `enabled` nor `disabled`, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`igmpSnoopingState` is {}", quote(.0))]
struct NotAState(String);

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "{\n    \"reportFlooding\": \"disabled\",\n    \"igmpSnoopingState\": \"enabled\",\n    \"vlans\": {\n        \"100\": {\n            \"reportFlooding\": \"disabled\",\n            \"groupsOverrun\": false,\n            \"igmpSnoopingState\": \"enabled\",\n            \"pruningActive\": true,\n            \"floodingTraffic\": false\n        }\n    },\n    \"robustness\": 2\n}\n";

    #[test]
    fn global_and_vlans() {
        let s = parse(OK).unwrap();
        assert!(s.enabled && s.vlans[&100].enabled);
        assert_eq!(s.vlans[&100].flooding_traffic, Some(false));
        for (from, to) in [
            ("\"100\"", "\"5000\""),
            (
                "\"igmpSnoopingState\": \"enabled\",\n    \"vlans\"",
                "\"igmpSnoopingState\": \"on\",\n    \"vlans\"",
            ),
            ("\"pruningActive\": true", "\"pruningActive\": \"yes\""),
            (
                "\"floodingTraffic\": false",
                "\"floodingTraffic\": false, \"floodingTraffic\": true",
            ),
        ] {
            assert!(OK.contains(from), "{from}");
            assert!(parse(&OK.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("{\"vlans\": {}}").is_err());
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(serde_json::from_value::<IgmpSnooping>(json).unwrap(), s);
    }
}
