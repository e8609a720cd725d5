//! `show ip igmp snooping querier | json`: the IGMP querier heard on each VLAN. Without one,
//! memberships age out and the switch floods (or drops) the feed.
//!
//! No real output of this command is published (research-wave2 §8): the shape read here is the
//! lab's inference in EOS's style, `{"vlans": {"100": {"querierAddress": "10.100.0.1",
//! "interface": "Ethernet1", "version": "v2"}}}`, with `querierInterface`/`port` accepted for
//! the interface. Anything else is an error, so a real switch that prints otherwise shows up
//! as "cannot read" rather than as "no querier".

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::json::{required, vlan};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgmpQueriers {
    /// VLANs with a querier, keyed by VLAN id; a VLAN without one is absent.
    pub vlans: BTreeMap<u16, IgmpQuerier>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgmpQuerier {
    pub address: IpAddr,
    /// The port the queries arrive on.
    pub interface: Option<String>,
    /// `v2`, `v3` ..., as printed.
    pub version: Option<String>,
}

#[derive(Deserialize)]
struct Json {
    vlans: BTreeMap<String, JsonQuerier>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonQuerier {
    querier_address: String,
    #[serde(default, alias = "querierInterface", alias = "port")]
    interface: Option<String>,
    #[serde(default, alias = "querierVersion")]
    version: Option<serde_json::Value>,
}

/// `show ip igmp snooping querier | json`.
pub struct ShowIgmpQuerier;

impl Query for ShowIgmpQuerier {
    const KIND: &'static str = "eos.show-ip-igmp-snooping-querier";
    type Fact = IgmpQueriers;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<IgmpQueriers, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowIgmpQuerier {
    pub const TEXT: &'static str = "show ip igmp snooping querier | json";
}

pub fn parse(raw: &str) -> Result<IgmpQueriers, ParseError> {
    let json: Json = required(raw, "show ip igmp snooping querier")?;
    let error = |e: String| ParseError::new(e, raw);
    let mut out = IgmpQueriers::default();
    for (id, q) in json.vlans {
        let id = vlan(&id).map_err(|e| error(e.to_string()))?;
        let address = q.querier_address.parse().map_err(|_| {
            error(format!(
                "VLAN {id}: querier {} is not an address",
                quote(&q.querier_address)
            ))
        })?;
        let version = match q.version {
            None => None,
            Some(serde_json::Value::String(v)) => Some(v),
            Some(serde_json::Value::Number(n)) => Some(format!("v{n}")),
            Some(other) => {
                return Err(error(format!(
                    "VLAN {id}: querier version {}",
                    quote(&other.to_string())
                )));
            }
        };
        out.vlans.insert(
            id,
            IgmpQuerier {
                address,
                interface: q.interface,
                version,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "sw1#show ip igmp snooping querier | json\n{\n    \"vlans\": {\n        \"100\": {\n            \"querierAddress\": \"10.100.0.1\",\n            \"version\": \"v2\",\n            \"interface\": \"Ethernet1\"\n        }\n    }\n}\nsw1#";

    #[test]
    fn queriers_per_vlan() {
        let q = parse(OK).unwrap();
        assert_eq!(
            q.vlans[&100].address,
            "10.100.0.1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(q.vlans[&100].interface.as_deref(), Some("Ethernet1"));
        assert!(parse("{\"vlans\": {}}").unwrap().vlans.is_empty());
        let other = OK
            .replace("\"interface\"", "\"querierInterface\"")
            .replace("\"v2\"", "2");
        let other = parse(&other).unwrap();
        assert_eq!(
            (
                other.vlans[&100].interface.as_deref(),
                other.vlans[&100].version.as_deref()
            ),
            (Some("Ethernet1"), Some("v2"))
        );
        for bad in [
            OK.replace("10.100.0.1", "10.100.0.999"),
            OK.replace("\"100\"", "\"0\""),
            OK.replace("\"querierAddress\": \"10.100.0.1\",", ""),
            OK.replace(
                "\"version\": \"v2\",",
                "\"version\": \"v2\", \"version\": \"v3\",",
            ),
            "{\"igmpSnoopingState\": \"enabled\"}".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
