//! `show ip pim neighbor | json`: the PIM adjacencies, each on one of the switch's interfaces
//! (`eos.pim.neighbors`: a neighbour on each hand-off interface).
//!
//! No `| json` output of this command is public (the hand-off set's README): the JSON read here
//! is modelled on the text's columns and EOS's conventions (neighbours keyed by address, long
//! interface names, epoch seconds): `neighbors.<address>.{interface, creationTime,
//! lastRefreshTime, holdTime, mode, transport}`, optionally under `vrfs.<vrf>`. Only `interface`
//! is required; a reply without a `neighbors` object is an ERROR with its excerpt, never an
//! empty table. The text form (a real 7280SR on 4.31/4.32) is read too: `PIM Neighbor Table
//! for <vrf> VRF`, then `Neighbor Address  Interface  Uptime  Expires  Mode  Transport`, columns
//! as wide as their data; the header alone means no adjacency.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::{epoch_us, json};
use super::port_names::long_name;
use super::text::{body, device_error, elapsed};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PimNeighbors {
    pub neighbors: Vec<PimNeighbor>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PimNeighbor {
    pub vrf: String,
    pub address: String,
    /// Long form (`Ethernet1`, `Vlan100`).
    pub interface: String,
    /// Since when (JSON `creationTime`), epoch microseconds.
    pub since_us: Option<u64>,
    /// How long it has been up (the text's `Uptime`), seconds.
    pub uptime_s: Option<u64>,
}

impl PimNeighbors {
    /// The neighbours on `interface` (any VRF).
    pub fn on<'a>(&'a self, interface: &'a str) -> impl Iterator<Item = &'a PimNeighbor> {
        self.neighbors
            .iter()
            .filter(move |n| n.interface == interface)
    }
}

/// `show ip pim neighbor | json`.
pub struct ShowPimNeighbors;

impl ShowPimNeighbors {
    pub const TEXT: &'static str = "show ip pim neighbor | json";
}

impl Query for ShowPimNeighbors {
    const KIND: &'static str = "eos.show-ip-pim-neighbor";
    type Fact = PimNeighbors;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<PimNeighbors, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Json {
    Default {
        neighbors: BTreeMap<String, JsonNeighbor>,
    },
    Vrfs {
        vrfs: BTreeMap<String, JsonVrf>,
    },
}

#[derive(Deserialize)]
struct JsonVrf {
    neighbors: BTreeMap<String, JsonNeighbor>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonNeighbor {
    interface: String,
    #[serde(default)]
    creation_time: Option<f64>,
}

pub fn parse(raw: &str) -> Result<PimNeighbors, ParseError> {
    let doc = match json::<Json>(raw, "show ip pim neighbor") {
        Some(doc) => doc.map_err(|e| {
            ParseError::new(
                format!(
                    "{} (premarket reads the JSON modelled on the text's columns, \
                     `neighbors.<address>.interface`: no real `| json` reply is published; \
                     send this output to have it read)",
                    e.reason
                ),
                raw,
            )
        })?,
        None => return from_text(raw),
    };
    let vrfs = match doc {
        Json::Default { neighbors } => vec![("default".to_string(), neighbors)],
        Json::Vrfs { vrfs } => vrfs.into_iter().map(|(k, v)| (k, v.neighbors)).collect(),
    };
    let mut neighbors = Vec::new();
    for (vrf, table) in vrfs {
        for (address, n) in table {
            let since_us = n
                .creation_time
                .map(|t| {
                    epoch_us(t).map_err(|e| {
                        ParseError::new(
                            format!("neighbour {}: creationTime: {e}", quote(&address)),
                            raw,
                        )
                    })
                })
                .transpose()?;
            neighbors.push(PimNeighbor {
                vrf: vrf.clone(),
                address,
                interface: long_name(&n.interface),
                since_us,
                uptime_s: None,
            });
        }
    }
    Ok(PimNeighbors { neighbors })
}

fn from_text(raw: &str) -> Result<PimNeighbors, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let all = lines.join("\n");
    let mut neighbors = Vec::new();
    let mut vrf: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("PIM Neighbor Table for ") {
            vrf = Some(rest.trim_end_matches("VRF").trim().to_string());
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("Neighbor Address") {
            continue;
        }
        let at = |why: String| ParseError::at_line(why, &all, i);
        let Some(current) = vrf.clone() else {
            return Err(at(
                "no `PIM Neighbor Table for` line before the table".into()
            ));
        };
        let [address, interface, uptime, _expires, _mode, _transport] =
            trimmed.split_whitespace().collect::<Vec<_>>()[..]
        else {
            return Err(at(format!("not a PIM neighbour row: {}", quote(trimmed))));
        };
        if address.parse::<std::net::IpAddr>().is_err() {
            return Err(at(format!("{address:?} is not a neighbour address")));
        }
        neighbors.push(PimNeighbor {
            vrf: current,
            address: address.to_string(),
            interface: long_name(interface),
            since_us: None,
            uptime_s: Some(
                elapsed(uptime).ok_or_else(|| at(format!("uptime {uptime:?} is not a time")))?,
            ),
        });
    }
    if vrf.is_none() {
        return Err(ParseError::new(
            "`show ip pim neighbor` prints no `PIM Neighbor Table for ... VRF` header",
            raw,
        ));
    }
    Ok(PimNeighbors { neighbors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modelled_json() {
        let raw = r#"{"neighbors": {"10.1.1.1": {"interface": "Ethernet1", "creationTime": 1790000000.5,
            "lastRefreshTime": 1790000100.0, "holdTime": 105, "mode": {"mode": "sparse"}, "transport": "datagram"}}}"#;
        let p = parse(raw).unwrap();
        let n = p.on("Ethernet1").next().unwrap();
        assert_eq!(
            (n.vrf.as_str(), n.address.as_str()),
            ("default", "10.1.1.1")
        );
        assert_eq!(n.since_us, Some(1_790_000_000_500_000));
        let vrfs = r#"{"vrfs": {"MD": {"neighbors": {"10.2.2.2": {"interface": "Vlan100"}}}}}"#;
        assert_eq!(parse(vrfs).unwrap().neighbors[0].vrf, "MD");
        assert!(parse(r#"{"neighbors": {}}"#).unwrap().neighbors.is_empty());
        for bad in [
            r#"{"pimNeighbors": {}}"#.to_string(),
            raw.replace("\"interface\": \"Ethernet1\", ", ""),
            raw.replace("1790000000.5", "-3"),
        ] {
            let e = parse(&bad).unwrap_err();
            assert!(!e.excerpt.is_empty(), "{bad}");
        }
        assert!(
            parse(r#"{"pimNeighbors": {}}"#)
                .unwrap_err()
                .reason
                .contains("modelled")
        );
    }

    #[test]
    fn the_text_table() {
        let raw = "PIM Neighbor Table for default VRF\n\
            Neighbor Address  Interface  Uptime    Expires   Mode    Transport  \n\
            20.200.201.200    Ethernet1  00:39:27  00:01:24  sparse  datagram\n";
        let p = parse(raw).unwrap();
        assert_eq!(p.neighbors[0].interface, "Ethernet1");
        assert_eq!(p.neighbors[0].uptime_s, Some(39 * 60 + 27));
        let empty = "PIM Neighbor Table for default VRF\nNeighbor Address  Interface  Uptime  Expires  Mode  Transport\n";
        assert!(parse(empty).unwrap().neighbors.is_empty());
        for bad in [
            raw.replace("00:39:27", "soon"),
            raw.replace("20.200.201.200", "neighbour"),
            raw.replace("PIM Neighbor Table for default VRF\n", ""),
            "% PIM is not configured".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
