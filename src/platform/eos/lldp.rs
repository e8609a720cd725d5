//! `show lldp neighbors | json`: which device, and which of its ports, is at the other end of
//! each of the switch's ports. `site.feeds.independent` reads it to know where a feed side's
//! ingress port leads (its uplink).
//!
//! Three shapes read (samples in `research`'s hand-off set): the JSON list
//! `lldpNeighbors[] {port, neighborDevice, neighborPort, ttl}` (vEOS 2015 onwards), the detail
//! JSON `lldpNeighbors.<port>.lldpNeighborInfo[] {systemName, chassisId,
//! neighborInterfaceInfo.interfaceId, ttl}` (`show lldp neighbors detail`; some releases quote
//! `interfaceId`), and the text table `Port  Neighbor Device ID  Neighbor Port ID  TTL`, with or
//! without a dashed rule, after the table counters. Text names ports short (`Et1`): they are
//! read as the JSON's long names. A device ID may be an FQDN, a MAC address or free text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::json;
use super::port_names::long_name;
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// The switch's LLDP neighbours, in the order printed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LldpNeighbors {
    pub neighbors: Vec<LldpNeighbor>,
}

/// One neighbour seen on one of the switch's ports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LldpNeighbor {
    /// The switch's own port, long form (`Ethernet1`).
    pub port: String,
    /// The neighbour's system name (or chassis ID when it sends no name).
    pub device: String,
    /// The neighbour's port ID as it sends it (a name, a number or a MAC address).
    pub neighbor_port: String,
    pub ttl: Option<u32>,
}

impl LldpNeighbors {
    /// The neighbours on `port` (usually one).
    pub fn on<'a>(&'a self, port: &'a str) -> impl Iterator<Item = &'a LldpNeighbor> {
        self.neighbors.iter().filter(move |n| n.port == port)
    }
}

/// `show lldp neighbors | json`.
pub struct ShowLldpNeighbors;

impl ShowLldpNeighbors {
    pub const TEXT: &'static str = "show lldp neighbors | json";
}

impl Query for ShowLldpNeighbors {
    const KIND: &'static str = "eos.show-lldp-neighbors";
    type Fact = LldpNeighbors;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<LldpNeighbors, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
struct Json {
    #[serde(rename = "lldpNeighbors")]
    neighbors: Shape,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Shape {
    List(Vec<ListEntry>),
    Detail(BTreeMap<String, DetailPort>),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListEntry {
    port: String,
    neighbor_device: String,
    neighbor_port: String,
    #[serde(default)]
    ttl: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DetailPort {
    lldp_neighbor_info: Vec<DetailInfo>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DetailInfo {
    #[serde(default)]
    system_name: Option<String>,
    #[serde(default)]
    chassis_id: Option<String>,
    #[serde(default)]
    neighbor_interface_info: Option<DetailInterface>,
    #[serde(default)]
    ttl: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DetailInterface {
    #[serde(default)]
    interface_id: Option<String>,
}

pub fn parse(raw: &str) -> Result<LldpNeighbors, ParseError> {
    match json::<Json>(raw, "show lldp neighbors") {
        Some(doc) => from_json(doc?, raw),
        None => from_text(raw),
    }
}

fn from_json(doc: Json, raw: &str) -> Result<LldpNeighbors, ParseError> {
    let neighbors = match doc.neighbors {
        Shape::List(list) => list
            .into_iter()
            .map(|n| LldpNeighbor {
                port: long_name(&n.port),
                device: n.neighbor_device,
                neighbor_port: n.neighbor_port,
                ttl: n.ttl,
            })
            .collect(),
        Shape::Detail(ports) => {
            let mut out = Vec::new();
            for (port, info) in ports {
                for n in info.lldp_neighbor_info {
                    let device = n
                        .system_name
                        .filter(|s| !s.is_empty())
                        .or(n.chassis_id)
                        .ok_or_else(|| {
                            ParseError::new(
                                format!(
                                    "the neighbour on {} has no systemName and no chassisId",
                                    quote(&port)
                                ),
                                raw,
                            )
                        })?;
                    let neighbor_port = n
                        .neighbor_interface_info
                        .and_then(|i| i.interface_id)
                        .map(|id| id.trim_matches('"').to_string())
                        .unwrap_or_default();
                    out.push(LldpNeighbor {
                        port: long_name(&port),
                        device,
                        neighbor_port,
                        ttl: n.ttl,
                    });
                }
            }
            out
        }
    };
    Ok(LldpNeighbors { neighbors })
}

/// The text table: columns found from the header line, rows read by those columns (a device ID
/// may hold spaces), or by words where a row is shorter than its header.
fn from_text(raw: &str) -> Result<LldpNeighbors, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let header = lines
        .iter()
        .position(|l| l.contains("Neighbor Device ID") && l.contains("Neighbor Port ID"))
        .ok_or_else(|| {
            ParseError::new(
                "`show lldp neighbors` prints no `Port  Neighbor Device ID  Neighbor Port ID  TTL` table",
                raw,
            )
        })?;
    let head = lines[header];
    let column = |name: &str| head.find(name).unwrap_or(0);
    let (device_at, port_at, ttl_at) = (
        column("Neighbor Device ID"),
        column("Neighbor Port ID"),
        column("TTL"),
    );
    let mut neighbors = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(header + 1) {
        if line.trim().is_empty() || line.trim_start().starts_with('-') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let cut = |from: usize, to: usize| line.get(from..to.min(line.len())).map(str::trim);
        let by_columns = (ttl_at > port_at && line.len() > ttl_at)
            .then(|| {
                Some((
                    cut(0, device_at)?,
                    cut(device_at, port_at)?,
                    cut(port_at, ttl_at)?,
                    cut(ttl_at, line.len())?,
                ))
            })
            .flatten()
            .filter(|(port, device, id, _)| {
                !port.is_empty() && !device.is_empty() && !id.is_empty()
            });
        let (port, device, neighbor_port, ttl) = match (by_columns, words.as_slice()) {
            (Some(row), _) => row,
            (None, [port, device, id, ttl]) => (*port, *device, *id, *ttl),
            (None, [port, device, id]) => (*port, *device, *id, ""),
            _ => {
                return Err(ParseError::at_line(
                    format!("not a row of the LLDP neighbour table: {}", quote(line)),
                    &lines.join("\n"),
                    i,
                ));
            }
        };
        let ttl = match ttl {
            "" => None,
            t => Some(t.parse::<u32>().map_err(|_| {
                ParseError::at_line(
                    format!("TTL {t:?} is not a number of seconds"),
                    &lines.join("\n"),
                    i,
                )
            })?),
        };
        neighbors.push(LldpNeighbor {
            port: long_name(port),
            device: device.to_string(),
            neighbor_port: neighbor_port.to_string(),
            ttl,
        });
    }
    Ok(LldpNeighbors { neighbors })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"tablesLastChangeTime": 1448356585.4, "lldpNeighbors": [
        {"ttl": 120, "neighborDevice": "carrier-a-pe1", "neighborPort": "xe-0/0/1", "port": "Ethernet1"},
        {"ttl": 120, "neighborDevice": "precise64", "neighborPort": "0800.27ca.c5be", "port": "Ethernet2"}],
        "tablesDeletes": 0}"#;

    #[test]
    fn the_json_list() {
        let n = parse(LIST).unwrap();
        assert_eq!(n.neighbors.len(), 2);
        let one: Vec<&LldpNeighbor> = n.on("Ethernet1").collect();
        assert_eq!(
            (
                one[0].device.as_str(),
                one[0].neighbor_port.as_str(),
                one[0].ttl
            ),
            ("carrier-a-pe1", "xe-0/0/1", Some(120))
        );
        assert!(
            parse(r#"{"lldpNeighbors": []}"#)
                .unwrap()
                .neighbors
                .is_empty()
        );
        for bad in [
            LIST.replace("\"neighborDevice\": \"precise64\", ", ""),
            LIST.replace("lldpNeighbors", "neighbors"),
            r#"{"lldpNeighbors": 3}"#.to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_detail_json_with_a_quoted_interface_id() {
        let raw = r#"{"lldpNeighbors": {"Ethernet22": {"lldpNeighborInfo": [{"systemName": "linux",
            "chassisId": "000c.297b.d2a8", "ttl": 120,
            "neighborInterfaceInfo": {"interfaceId": "\"Ethernet7\"", "interfaceDescription": "eth0"}}]},
            "Ethernet23": {"lldpNeighborInfo": []},
            "Ethernet24": {"lldpNeighborInfo": [{"chassisId": "001c.7300.0001"}]}}}"#;
        let n = parse(raw).unwrap();
        assert_eq!(n.neighbors.len(), 2);
        assert_eq!(n.neighbors[0].neighbor_port, "Ethernet7");
        assert_eq!(n.neighbors[1].device, "001c.7300.0001");
        assert!(parse(&raw.replace("\"chassisId\": \"001c.7300.0001\"", "\"ttl\": 1")).is_err());
    }

    #[test]
    fn the_text_table_with_and_without_a_rule() {
        let old = "Last table change time   : 0:00:02 ago\nNumber of table inserts  : 2\n\n\
                   Port       Neighbor Device ID             Neighbor Port ID           TTL\n\
                   Et1        localhost                      Ethernet1                  120\n\
                   Et3/1      tg104.sjc.aristanetworks.com   Ethernet3/2                120\n\
                   Ma1/1      dc1-rack11-tor1.sjc            1/1                        120\n";
        let n = parse(old).unwrap();
        assert_eq!(n.neighbors.len(), 3);
        assert_eq!(n.neighbors[1].port, "Ethernet3/1");
        assert_eq!(n.neighbors[1].device, "tg104.sjc.aristanetworks.com");
        assert_eq!(n.neighbors[2].neighbor_port, "1/1");
        let ruled = "sw1#show lldp neighbors\nPort          Neighbor Device ID       Neighbor Port ID    TTL\n\
                     ------------- ------------------------ ------------------- ---\n\
                     Et1           carrier a pe1            xe-0/0/1            120\nsw1#";
        let n = parse(ruled).unwrap();
        assert_eq!(n.neighbors[0].device, "carrier a pe1");
        for bad in [
            "% Invalid input".to_string(),
            "nothing like a table".to_string(),
            old.replace("120\nEt3/1", "12x\nEt3/1"),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
