//! `show ip mroute | json`: the multicast routing table, one entry per (source, group) with its
//! flags, its incoming (RPF) interface and its outgoing interface list (`eos.multicast.routes`).
//!
//! No `| json` output of `show ip mroute` is public (the hand-off set's README): the JSON read
//! here is modelled on the text's fields and EOS's conventions (addresses as keys, camelCase,
//! epoch seconds, long interface names): `groups.<group>.groupSources.<source>.{creationTime,
//! rp, routeFlags, rpfInterface, oifList[]}`, optionally under `vrfs.<vrf>`, the (*,G) entry's
//! source `0.0.0.0`. A reply of any other shape is an ERROR with its excerpt, never an empty
//! table. The text form (`show ip mroute [vrf all] [detail]`, EOS 4.2x) is read too: the flag
//! legend, then per group a line with the group at column 0 and per source, indented,
//! `<source>, <uptime>, [RP <rp>, ]flags: <letters>`, `Incoming interface: <intf|Register|Null>`
//! (a `*` suffix: EVPN detail available) and `Outgoing interface list:` one per line.
//!
//! Flags: `P` programmed in hardware, `S` SPT, `L` source directly attached, `W` the (*,G).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::json::{epoch_us, json};
use super::port_names::long_name;
use super::text::{BadLine, body, device_error, elapsed};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mroutes {
    pub routes: Vec<Mroute>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mroute {
    pub vrf: String,
    pub group: Ipv4Addr,
    /// `0.0.0.0` for the (*,G) entry.
    pub source: Ipv4Addr,
    /// The flag letters (`SP`, `W`, `SBNP`).
    pub flags: String,
    /// The RPF interface, long form; `Register` or `Null` as printed.
    pub incoming: String,
    pub outgoing: Vec<String>,
    /// Since when (JSON `creationTime`), epoch microseconds.
    pub since_us: Option<u64>,
    /// How long it has existed (the text's uptime), seconds.
    pub uptime_s: Option<u64>,
}

impl Mroute {
    /// Programmed in hardware (flag `P`).
    pub fn programmed(&self) -> bool {
        self.flags.contains('P')
    }
}

impl Mroutes {
    /// The (source, group) entry in any VRF.
    pub fn route(&self, group: Ipv4Addr, source: Ipv4Addr) -> Option<&Mroute> {
        self.routes
            .iter()
            .find(|r| r.group == group && r.source == source)
    }

    /// Every entry of `group`.
    pub fn of(&self, group: Ipv4Addr) -> impl Iterator<Item = &Mroute> {
        self.routes.iter().filter(move |r| r.group == group)
    }
}

/// `show ip mroute | json`.
pub struct ShowMroute;

impl ShowMroute {
    pub const TEXT: &'static str = "show ip mroute | json";
}

impl Query for ShowMroute {
    const KIND: &'static str = "eos.show-ip-mroute";
    type Fact = Mroutes;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Mroutes, ParseError> {
        parse(raw.text()?)
    }
}

/// The tables of a reply, by VRF: the document itself, or under `vrfs` (shared with `show ip
/// mroute count`).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum ByVrf<T> {
    Default { groups: BTreeMap<String, Group<T>> },
    Vrfs { vrfs: BTreeMap<String, Groups<T>> },
}

#[derive(Deserialize)]
pub(super) struct Groups<T> {
    groups: BTreeMap<String, Group<T>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Group<T> {
    group_sources: BTreeMap<String, T>,
}

impl<T> ByVrf<T> {
    /// Every (vrf, group, source, entry), addresses read; a key that is no address is an error.
    pub(super) fn entries(self) -> Result<Vec<(String, Ipv4Addr, Ipv4Addr, T)>, BadLine> {
        let vrfs = match self {
            ByVrf::Default { groups } => vec![("default".to_string(), groups)],
            ByVrf::Vrfs { vrfs } => vrfs.into_iter().map(|(k, v)| (k, v.groups)).collect(),
        };
        let mut out = Vec::new();
        for (vrf, groups) in vrfs {
            for (group, sources) in groups {
                let g: Ipv4Addr = group.parse().map_err(|_| {
                    BadLine(format!("group {} is not an IPv4 address", quote(&group)))
                })?;
                for (source, entry) in sources.group_sources {
                    let s: Ipv4Addr = source.parse().map_err(|_| {
                        BadLine(format!(
                            "group {}: source {} is not an IPv4 address",
                            quote(&group),
                            quote(&source)
                        ))
                    })?;
                    out.push((vrf.clone(), g, s, entry));
                }
            }
        }
        Ok(out)
    }
}

/// Why a modelled JSON reply did not read: the parser's reason and what the model is.
pub(super) fn modelled(e: ParseError, what: &str, model: &str) -> ParseError {
    ParseError {
        reason: format!(
            "{} (premarket reads the JSON modelled on EOS's conventions, {model}: no real \
             `{what} | json` reply is published; send this output to have it read)",
            e.reason
        ),
        excerpt: e.excerpt,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonRoute {
    #[serde(default)]
    creation_time: Option<f64>,
    #[serde(default)]
    route_flags: String,
    rpf_interface: String,
    #[serde(default)]
    oif_list: Vec<String>,
}

pub fn parse(raw: &str) -> Result<Mroutes, ParseError> {
    let model = "`groups.<group>.groupSources.<source>.{routeFlags, rpfInterface, oifList}`";
    let doc = match json::<ByVrf<JsonRoute>>(raw, "show ip mroute") {
        Some(doc) => doc.map_err(|e| modelled(e, "show ip mroute", model))?,
        None => return from_text(raw),
    };
    let entries = doc.entries().map_err(|why| ParseError::new(why.0, raw))?;
    let mut routes = Vec::new();
    for (vrf, group, source, r) in entries {
        let since_us = r
            .creation_time
            .map(|t| {
                epoch_us(t).map_err(|e| {
                    ParseError::new(format!("({source}, {group}): creationTime: {e}"), raw)
                })
            })
            .transpose()?;
        routes.push(Mroute {
            vrf,
            group,
            source,
            flags: r.route_flags,
            incoming: interface(&r.rpf_interface),
            outgoing: r.oif_list.iter().map(|o| long_name(o)).collect(),
            since_us,
            uptime_s: None,
        });
    }
    Ok(Mroutes { routes })
}

/// An RPF interface as the checks compare it: long form, without the EVPN `*` marker.
fn interface(name: &str) -> String {
    long_name(name.trim().trim_end_matches('*'))
}

/// What the lines under a source are currently listing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Outgoing,
    Other,
}

fn from_text(raw: &str) -> Result<Mroutes, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let all = lines.join("\n");
    let mut routes: Vec<Mroute> = Vec::new();
    let mut vrf = "default".to_string();
    let mut group: Option<Ipv4Addr> = None;
    let mut list = List::Other;
    let mut seen_table = false;
    for (i, line) in lines.iter().enumerate() {
        let at = |why: String| ParseError::at_line(why, &all, i);
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("VRF:") {
            (vrf, group) = (name.trim().to_string(), None);
            continue;
        }
        if trimmed.contains("Multicast Routing Table") {
            seen_table = true;
        }
        if indent == 0 {
            // A group line, or the legend (which comes before the first group of a VRF).
            match trimmed.parse::<Ipv4Addr>() {
                Ok(g) if g.is_multicast() => group = Some(g),
                _ if group.is_none() => {}
                _ => return Err(at(format!("not a group line: {}", quote(trimmed)))),
            }
            continue;
        }
        let Some(current) = group else {
            if indent == 2 && source_line(&vrf, Ipv4Addr::UNSPECIFIED, trimmed).is_ok() {
                return Err(at(format!(
                    "a source line before any group: {}",
                    quote(trimmed)
                )));
            }
            continue;
        };
        if indent == 2 {
            routes.push(source_line(&vrf, current, trimmed).map_err(|e| at(e.0))?);
            list = List::Other;
            continue;
        }
        let route = routes
            .last_mut()
            .filter(|r| r.group == current)
            .ok_or_else(|| at(format!("no source line before: {}", quote(trimmed))))?;
        if let Some(name) = trimmed.strip_prefix("Incoming interface:") {
            route.incoming = interface(name);
            list = List::Other;
        } else if trimmed == "Outgoing interface list:" {
            list = List::Outgoing;
        } else if indent <= 4 {
            list = List::Other;
        } else if list == List::Outgoing {
            route.outgoing.push(long_name(trimmed));
        }
    }
    if !seen_table && routes.is_empty() {
        return Err(ParseError::new(
            "`show ip mroute` prints no `Multicast Routing Table` legend and no route",
            raw,
        ));
    }
    if let Some(r) = routes.iter().find(|r| r.incoming.is_empty()) {
        return Err(ParseError::new(
            format!(
                "({}, {}) has no `Incoming interface:` line",
                r.source, r.group
            ),
            raw,
        ));
    }
    Ok(Mroutes { routes })
}

/// `169.254.132.172, 118d18h, flags: PE` or `0.0.0.0, 38d14h, RP 204.14.0.136, flags: W`.
fn source_line(vrf: &str, group: Ipv4Addr, line: &str) -> Result<Mroute, BadLine> {
    let parts: Vec<&str> = line.split(", ").collect();
    let (Some(source), Some(uptime), Some(flags)) = (
        parts.first(),
        parts.get(1),
        parts.last().and_then(|f| f.strip_prefix("flags:")),
    ) else {
        return Err(BadLine(format!("not a source line: {}", quote(line))));
    };
    let source: Ipv4Addr = source.parse().map_err(|_| {
        BadLine(format!(
            "{source:?} is not a source address: {}",
            quote(line)
        ))
    })?;
    Ok(Mroute {
        vrf: vrf.to_string(),
        group,
        source,
        flags: flags.trim().to_string(),
        incoming: String::new(),
        outgoing: Vec::new(),
        since_us: None,
        uptime_s: Some(
            elapsed(uptime)
                .ok_or_else(|| BadLine(format!("uptime {uptime:?}: {}", quote(line))))?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{"groups": {"239.1.1.1": {"groupSources": {
        "10.10.1.10": {"creationTime": 1790000000.0, "routeFlags": "SP", "rpfInterface": "Ethernet1", "oifList": ["Vlan200"]},
        "0.0.0.0": {"routeFlags": "W", "rp": "10.0.0.9", "rpfInterface": "Register", "oifList": []}}}}}"#;

    #[test]
    fn the_modelled_json() {
        let m = parse(JSON).unwrap();
        let g: Ipv4Addr = "239.1.1.1".parse().unwrap();
        let r = m.route(g, "10.10.1.10".parse().unwrap()).unwrap();
        assert_eq!(
            (r.incoming.as_str(), r.outgoing.as_slice()),
            ("Ethernet1", &["Vlan200".to_string()][..])
        );
        assert!(r.programmed());
        assert_eq!(m.of(g).count(), 2);
        let vrfs = format!("{{\"vrfs\": {{\"MD\": {JSON}}}}}");
        assert_eq!(parse(&vrfs).unwrap().routes[0].vrf, "MD");
        for bad in [
            JSON.replace("groupSources", "sources"),
            JSON.replace("\"rpfInterface\": \"Ethernet1\", ", ""),
            JSON.replace("239.1.1.1", "feed"),
            JSON.replace("1790000000.0", "-1"),
            r#"{"multicastRoutes": []}"#.to_string(),
        ] {
            let e = parse(&bad).unwrap_err();
            assert!(!e.excerpt.is_empty(), "{bad}");
        }
        assert!(
            parse(r#"{"routes": 1}"#)
                .unwrap_err()
                .reason
                .contains("modelled")
        );
    }

    const TEXT: &str = "VRF:default\nPIM Sparse Mode Multicast Routing Table\n\
        Flags: E - Entry forwarding on the RPT, J - Joining to the SPT\n\
        \x20   R - RPT bit is set, S - SPT bit is set, L - Source is attached\n\
        RPF route: U - From unicast routing table\n\
        \x20          M - From multicast routing table\n\
        * - Interface has EVPN information available in the 'detail' command output\n\
        224.0.23.192\n\
        \x20 0.0.0.0, 38d14h, RP 204.14.0.136, flags: W\n\
        \x20   Incoming interface: Register\n\
        \x20   Outgoing interface list:\n\
        \x20     Ethernet2/1\n\
        \x20     Ethernet2/2\n\
        \x20   Upstream joined state: upJoined\n\
        \x20 192.168.98.17, 8:57:21, flags: SP\n\
        \x20   Incoming interface: Ethernet10*\n\
        \x20   RPF route: [U] 192.168.98.0/27 [20/0] via 10.100.10.6\n\
        \x20   Outgoing interface list:\n\
        \x20     Ethernet2/1\n\
        \x20   Interfaces not in OIL:\n\
        \x20     Ethernet0/1: Not DR, RPT Pruned\n\
        \x20   State summarization macros:\n\
        \x20     Could register (S,G): False\n\
        VRF:FOO\nPIM Sparse Mode Multicast Routing Table\n\
        224.0.1.130\n\
        \x20 169.254.132.173, 1d18h, flags: PE\n\
        \x20   Incoming interface: Null\n";

    #[test]
    fn the_detail_text() {
        let m = parse(TEXT).unwrap();
        assert_eq!(m.routes.len(), 3);
        let star = &m.routes[0];
        assert_eq!(
            (star.flags.as_str(), star.incoming.as_str()),
            ("W", "Register")
        );
        assert_eq!(star.outgoing, ["Ethernet2/1", "Ethernet2/2"]);
        let sg = &m.routes[1];
        assert_eq!(sg.incoming, "Ethernet10");
        assert_eq!(sg.outgoing, ["Ethernet2/1"]);
        assert_eq!(sg.uptime_s, Some(8 * 3600 + 57 * 60 + 21));
        assert_eq!(
            (m.routes[2].vrf.as_str(), m.routes[2].incoming.as_str()),
            ("FOO", "Null")
        );
        let legend_only =
            "PIM Sparse Mode Multicast Routing Table\nFlags: E - Entry forwarding on the RPT\n";
        assert!(parse(legend_only).unwrap().routes.is_empty());
        for bad in [
            TEXT.replace("8:57:21, flags: SP", "8:57:21, SP"),
            TEXT.replace("    Incoming interface: Null\n", ""),
            TEXT.replace("224.0.1.130\n", ""),
            "nothing".to_string(),
            "% Invalid input".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
