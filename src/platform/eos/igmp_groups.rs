//! `show ip igmp snooping groups | json`: which ports joined which multicast group, per VLAN
//! (`eos.multicast.feeds`: the baseline's feed groups joined on the expected ports).
//!
//! No real output of this command is published (research-wave2 §8): the shape read here is the
//! lab's inference, `{"vlans": {"100": {"groups": {"239.1.1.1": {"interfaces":
//! ["Ethernet4"]}}}}}`; `interfaces` may also be an object keyed by port name. Anything else is
//! an error, never "no group joined".

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::json::{required, vlan};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgmpGroups {
    /// VLAN id -> group address -> ports that joined it.
    pub vlans: BTreeMap<u16, BTreeMap<Ipv4Addr, BTreeSet<String>>>,
}

#[derive(Deserialize)]
struct Json {
    vlans: BTreeMap<String, JsonVlan>,
}

#[derive(Deserialize)]
struct JsonVlan {
    groups: BTreeMap<String, JsonGroup>,
}

#[derive(Deserialize)]
struct JsonGroup {
    interfaces: Ports,
}

/// A list of port names, or an object keyed by them.
#[derive(Deserialize)]
#[serde(untagged)]
enum Ports {
    List(Vec<String>),
    Keys(BTreeMap<String, serde_json::Value>),
}

/// `show ip igmp snooping groups | json`.
pub struct ShowIgmpGroups;

impl Query for ShowIgmpGroups {
    const KIND: &'static str = "eos.show-ip-igmp-snooping-groups";
    type Fact = IgmpGroups;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<IgmpGroups, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowIgmpGroups {
    pub const TEXT: &'static str = "show ip igmp snooping groups | json";
}

pub fn parse(raw: &str) -> Result<IgmpGroups, ParseError> {
    let json: Json = required(raw, "show ip igmp snooping groups")?;
    let error = |e: String| ParseError::new(e, raw);
    let mut out = IgmpGroups::default();
    for (id, v) in json.vlans {
        let id = vlan(&id).map_err(|e| error(e.to_string()))?;
        let mut groups = BTreeMap::new();
        for (group, g) in v.groups {
            let address: Ipv4Addr = group
                .parse()
                .ok()
                .filter(|a: &Ipv4Addr| a.is_multicast())
                .ok_or_else(|| {
                    error(format!(
                        "VLAN {id}: {} is not a multicast group",
                        quote(&group)
                    ))
                })?;
            let ports: BTreeSet<String> = match g.interfaces {
                Ports::List(list) => list.into_iter().collect(),
                Ports::Keys(keys) => keys.into_keys().collect(),
            };
            groups.insert(address, ports);
        }
        out.vlans.insert(id, groups);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "{\n    \"vlans\": {\n        \"100\": {\n            \"groups\": {\n                \"239.1.1.1\": {\n                    \"interfaces\": [\n                        \"Ethernet4\"\n                    ]\n                }\n            }\n        }\n    }\n}\n";

    #[test]
    fn groups_and_ports() {
        let g = parse(OK).unwrap();
        let feed: Ipv4Addr = "239.1.1.1".parse().unwrap();
        assert!(g.vlans[&100][&feed].contains("Ethernet4"));
        let keyed = OK.replace(
            "[\n                        \"Ethernet4\"\n                    ]",
            "{\"Ethernet4\": {}}",
        );
        assert_eq!(parse(&keyed).unwrap(), g);
        assert!(parse("{\"vlans\": {}}").unwrap().vlans.is_empty());
        let json = serde_json::to_value(&g).unwrap();
        assert_eq!(serde_json::from_value::<IgmpGroups>(json).unwrap(), g);
        for bad in [
            OK.replace("239.1.1.1", "10.1.1.1"),
            OK.replace("239.1.1.1", "239.1.1.300"),
            OK.replace("\"interfaces\"", "\"ports\""),
            OK.replace("\"100\"", "\"vlan100\""),
            "{\"querierAddress\": \"10.0.0.1\"}".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
