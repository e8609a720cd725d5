//! `show ip bgp summary vrf all | json`: every BGP peer of every VRF, its state, when that
//! state began and the prefixes it sent (`eos.bgp.peers`). The archive keeps the fact: a peer's
//! last state change later than the reference run's means the session reset in between.
//!
//! Shapes read, by release:
//! - the JSON of `show ip bgp summary` (every release): `vrfs.<vrf>.peers.<address>.{peerState,
//!   peerStateIdleReason, asn, description, upDownTime (epoch of the last state change),
//!   prefixReceived, prefixAccepted}`; the local `asn` is a string (asdot occurs);
//! - the newer multi-agent shape of `show bgp summary` / `show bgp <afi> summary`:
//!   `peerAsn` and one object per address family (`ipv4Unicast`, `l2VpnEvpn`, ...) with
//!   `afiSafiState`, `nlrisReceived`, `nlrisAccepted` (only ANTA's trimmed test data is public:
//!   its keys are read, every other key is optional);
//! - the text table `[Description] Neighbor V AS MsgRcvd MsgSent InQ OutQ Up/Down State PfxRcd
//!   PfxAcc`, one block per VRF; state words `Estab`, `Active`, `Idle(NoIf)`,
//!   `Estab(NotNegotiated)`; `Up/Down` as `hh:mm:ss` under a day, else `79d05h`.
//!
//! A switch without BGP answers `% BGP inactive` (ANTA counts it a failure, not an error): the
//! fact says so, and the check FAILs every peer the baseline expects.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json::{epoch_us, json};
use super::text::{BadLine, body, device_error, elapsed};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// Every peer of every VRF; `inactive` when the switch runs no BGP at all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BgpSummary {
    pub vrfs: BTreeMap<String, BgpVrf>,
    #[serde(default)]
    pub inactive: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BgpVrf {
    pub router_id: Option<String>,
    /// The local AS, as printed (`65001`, asdot `65002.2048`).
    pub asn: Option<String>,
    /// By the peer's key as printed (`10.0.0.1`, `fe80::1%Et3`).
    pub peers: BTreeMap<String, BgpPeer>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BgpPeer {
    /// `Established`, `Active`, `Idle`, `Connect`, `OpenSent`, `OpenConfirm` (text `Estab`
    /// reads as `Established`).
    pub state: String,
    /// Why it is in that state, where printed (`NoInterface`, `NoIf`, `NotNegotiated`).
    pub reason: Option<String>,
    /// The peer's AS, as printed.
    pub asn: Option<String>,
    pub description: Option<String>,
    /// When the state last changed (JSON `upDownTime`), epoch microseconds.
    pub changed_us: Option<u64>,
    /// How long ago the state last changed (the text's `Up/Down`), seconds.
    pub changed_ago_s: Option<u64>,
    /// `prefixReceived` / `PfxRcd` (the older shape).
    pub prefixes_received: Option<u64>,
    /// `prefixAccepted` / `PfxAcc`: after the inbound policy.
    pub prefixes_accepted: Option<u64>,
    /// The newer shape's address families (`ipv4Unicast` ...).
    #[serde(default)]
    pub families: BTreeMap<String, BgpFamily>,
}

/// One address family of a peer (the newer shape).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BgpFamily {
    /// `negotiated`, or `advertised` (only one side offered it).
    pub state: String,
    pub received: Option<u64>,
    pub accepted: Option<u64>,
}

impl BgpPeer {
    pub fn established(&self) -> bool {
        self.state == "Established"
    }
}

/// `show ip bgp summary vrf all | json`.
pub struct ShowBgpSummary;

impl ShowBgpSummary {
    pub const TEXT: &'static str = "show ip bgp summary vrf all | json";
}

impl Query for ShowBgpSummary {
    const KIND: &'static str = "eos.show-ip-bgp-summary";
    /// A reset since the reference run is judged on the last state change's time.
    const ARCHIVED: bool = true;
    type Fact = BgpSummary;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<BgpSummary, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
struct Json {
    vrfs: BTreeMap<String, JsonVrf>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonVrf {
    #[serde(default)]
    router_id: Option<String>,
    #[serde(default)]
    asn: Option<String>,
    /// Printed for every VRF with BGP (empty without peers): what tells this document from
    /// other per-VRF replies.
    peers: BTreeMap<String, JsonPeer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPeer {
    peer_state: String,
    #[serde(default)]
    peer_state_idle_reason: Option<String>,
    #[serde(default)]
    asn: Option<String>,
    #[serde(default)]
    peer_asn: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    up_down_time: Option<f64>,
    #[serde(default)]
    prefix_received: Option<u64>,
    #[serde(default)]
    prefix_accepted: Option<u64>,
    /// The newer shape's per-family objects, among the keys not named above.
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonFamily {
    afi_safi_state: String,
    #[serde(default)]
    nlris_received: Option<u64>,
    #[serde(default)]
    nlris_accepted: Option<u64>,
}

pub fn parse(raw: &str) -> Result<BgpSummary, ParseError> {
    match json::<Json>(raw, "show ip bgp summary") {
        // eAPI's and `| json`'s way of saying it: an `errors` list.
        Some(Err(e)) if e.reason.contains("BGP inactive") => Ok(BgpSummary {
            vrfs: BTreeMap::new(),
            inactive: true,
        }),
        Some(doc) => from_json(doc?, raw),
        None => from_text(raw),
    }
}

fn from_json(doc: Json, raw: &str) -> Result<BgpSummary, ParseError> {
    let mut out = BgpSummary::default();
    for (name, vrf) in doc.vrfs {
        let mut peers = BTreeMap::new();
        for (key, p) in vrf.peers {
            let error = |why: String| {
                ParseError::new(
                    format!("VRF {}, peer {}: {why}", quote(&name), quote(&key)),
                    raw,
                )
            };
            let changed_us = p
                .up_down_time
                .map(|t| epoch_us(t).map_err(|e| error(format!("upDownTime: {e}"))))
                .transpose()?;
            let mut families = BTreeMap::new();
            for (family, value) in p.rest {
                // Only objects with an `afiSafiState` are address families; other keys
                // (counters, flags) a release adds are not read.
                if value.get("afiSafiState").is_none() {
                    continue;
                }
                let f: JsonFamily = serde_json::from_value(value)
                    .map_err(|e| error(format!("address family {}: {e}", quote(&family))))?;
                families.insert(
                    family,
                    BgpFamily {
                        state: f.afi_safi_state,
                        received: f.nlris_received,
                        accepted: f.nlris_accepted,
                    },
                );
            }
            peers.insert(
                key.clone(),
                BgpPeer {
                    state: p.peer_state,
                    reason: p.peer_state_idle_reason,
                    asn: p.asn.or(p.peer_asn),
                    description: p.description,
                    changed_us,
                    changed_ago_s: None,
                    prefixes_received: p.prefix_received,
                    prefixes_accepted: p.prefix_accepted,
                    families,
                },
            );
        }
        out.vrfs.insert(
            name,
            BgpVrf {
                router_id: vrf.router_id,
                asn: vrf.asn,
                peers,
            },
        );
    }
    Ok(out)
}

/// The text form: a block per VRF, each a header and its table.
fn from_text(raw: &str) -> Result<BgpSummary, ParseError> {
    let lines = body(raw);
    if lines.first().is_some_and(|l| l.trim() == "% BGP inactive") {
        return Ok(BgpSummary {
            vrfs: BTreeMap::new(),
            inactive: true,
        });
    }
    device_error(&lines, raw)?;
    let all = lines.join("\n");
    let mut out = BgpSummary::default();
    let mut vrf: Option<String> = None;
    let mut in_table = false;
    for (i, line) in lines.iter().enumerate() {
        let at = |why: String| ParseError::at_line(why, &all, i);
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("BGP summary information for VRF ") {
            vrf = Some(name.trim().to_string());
            out.vrfs.entry(name.trim().to_string()).or_default();
            in_table = false;
            continue;
        }
        let Some(current) = vrf.clone() else {
            return Err(at("no `BGP summary information for VRF` line first".into()));
        };
        if let Some(rest) = trimmed.strip_prefix("Router identifier ") {
            let (id, asn) = rest
                .split_once(", local AS number ")
                .ok_or_else(|| at(format!("not a router identifier line: {}", quote(trimmed))))?;
            let entry = out.vrfs.entry(current).or_default();
            entry.router_id = Some(id.trim().to_string());
            entry.asn = Some(asn.trim().to_string());
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("Neighbor Status Codes") {
            continue;
        }
        if trimmed.contains("Neighbor") && trimmed.contains("State") {
            in_table = true;
            continue;
        }
        if !in_table {
            return Err(at(format!(
                "not a line of `show ip bgp summary`: {trimmed}"
            )));
        }
        let (key, peer) = row(trimmed).map_err(|e| at(e.0))?;
        out.vrfs.entry(current).or_default().peers.insert(key, peer);
    }
    if out.vrfs.is_empty() {
        return Err(ParseError::new(
            "`show ip bgp summary` prints no `BGP summary information for VRF` block",
            raw,
        ));
    }
    Ok(out)
}

/// One row: `[Description] Neighbor V AS MsgRcvd MsgSent InQ OutQ Up/Down State [PfxRcd
/// PfxAcc]`; the neighbour is the first word that is an address followed by the version `4`.
fn row(line: &str) -> Result<(String, BgpPeer), BadLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let is_address = |w: &str| {
        let bare = w.split('%').next().unwrap_or(w);
        bare.parse::<std::net::IpAddr>().is_ok()
    };
    let start = (0..words.len())
        .find(|&i| is_address(words[i]) && words.get(i + 1) == Some(&"4"))
        .ok_or_else(|| BadLine(format!("no neighbour address in the row: {}", quote(line))))?;
    let fields = &words[start..];
    if fields.len() < 9 {
        return Err(BadLine(format!(
            "a row of fewer columns than the table's: {}",
            quote(line)
        )));
    }
    let description = (start > 0).then(|| words[..start].join(" "));
    let (state, reason) = state_word(fields[8]);
    let number = |i: usize| -> Result<Option<u64>, BadLine> {
        fields
            .get(i)
            .map(|w| {
                w.parse::<u64>()
                    .map_err(|_| BadLine(format!("{w:?} is not a prefix count: {}", quote(line))))
            })
            .transpose()
    };
    let peer = BgpPeer {
        state,
        reason,
        asn: Some(fields[2].to_string()),
        description,
        changed_us: None,
        changed_ago_s: Some(elapsed(fields[7]).ok_or_else(|| {
            BadLine(format!(
                "Up/Down {:?} is not hh:mm:ss or 1d04h: {}",
                fields[7],
                quote(line)
            ))
        })?),
        prefixes_received: number(9)?,
        prefixes_accepted: number(10)?,
        families: BTreeMap::new(),
    };
    Ok((fields[0].to_string(), peer))
}

/// `Estab` -> `Established`; `Idle(NoIf)` -> (`Idle`, `NoIf`).
fn state_word(word: &str) -> (String, Option<String>) {
    let (name, reason) = match word.split_once('(') {
        Some((name, rest)) => (name, Some(rest.trim_end_matches(')').to_string())),
        None => (word, None),
    };
    let name = if name == "Estab" { "Established" } else { name };
    (name.to_string(), reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLDER: &str = r#"{"vrfs": {"default": {"vrf": "default", "routerId": "192.168.0.0", "asn": "65001",
        "peers": {"10.0.0.1": {"version": 4, "msgReceived": 5, "asn": "65002", "prefixAccepted": 3,
          "prefixReceived": 3, "upDownTime": 1721080527.052693, "underMaintenance": false, "peerState": "Established"},
        "10.0.0.3": {"asn": "65003", "prefixAccepted": 0, "prefixReceived": 0, "upDownTime": 1721080524.898363,
          "peerState": "Idle", "peerStateIdleReason": "NoInterface"}}}}}"#;

    const NEWER: &str = r#"{"vrfs": {"default": {"vrf": "default", "routerId": "10.1.0.3", "asn": "65120",
        "peers": {"10.1.0.1": {"peerState": "Established", "peerAsn": "65100",
          "ipv4MplsVpn": {"afiSafiState": "advertised", "nlrisReceived": 0, "nlrisAccepted": 0},
          "l2VpnEvpn": {"afiSafiState": "negotiated", "nlrisReceived": 42, "nlrisAccepted": 42}}}}}}"#;

    #[test]
    fn the_older_json_shape() {
        let s = parse(OLDER).unwrap();
        let vrf = &s.vrfs["default"];
        assert_eq!(vrf.asn.as_deref(), Some("65001"));
        let up = &vrf.peers["10.0.0.1"];
        assert!(up.established());
        assert_eq!(
            (up.prefixes_received, up.prefixes_accepted),
            (Some(3), Some(3))
        );
        assert_eq!(up.changed_us, Some(1_721_080_527_052_693));
        let idle = &vrf.peers["10.0.0.3"];
        assert_eq!(
            (idle.state.as_str(), idle.reason.as_deref()),
            ("Idle", Some("NoInterface"))
        );
        for bad in [
            OLDER.replace(
                "\"peerState\": \"Established\"",
                "\"state\": \"Established\"",
            ),
            OLDER.replace("1721080527.052693", "-5"),
            OLDER.replace("\"prefixAccepted\": 3", "\"prefixAccepted\": \"3\""),
            r#"{"peers": {}}"#.to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_newer_shape_per_address_family() {
        let s = parse(NEWER).unwrap();
        let p = &s.vrfs["default"].peers["10.1.0.1"];
        assert_eq!(p.asn.as_deref(), Some("65100"));
        assert_eq!(p.prefixes_accepted, None);
        assert_eq!(p.families["l2VpnEvpn"].accepted, Some(42));
        assert_eq!(p.families["ipv4MplsVpn"].state, "advertised");
        let bad = NEWER.replace("\"nlrisAccepted\": 42", "\"nlrisAccepted\": \"x\"");
        assert!(parse(&bad).is_err());
    }

    #[test]
    fn the_text_tables() {
        let ntc = "BGP summary information for VRF default\n\
            Router identifier 10.0.65.72, local AS number 64911\n\
            Neighbor Status Codes: m - Under maintenance\n\
            \x20 Neighbor         V  AS           MsgRcvd   MsgSent  InQ OutQ  Up/Down State  PfxRcd PfxAcc\n\
            \x20 10.10.128.0      4  65292              0         0    0    0   79d05h Active        \n\
            \x20 10.106.0.153     4  64832              0         0    0    0   79d05h Idle(NoIf)        \n\
            \x20 10.106.0.157     4  64833         114056    118481    0    0   79d05h Estab  1      1\n";
        let s = parse(ntc).unwrap();
        let peers = &s.vrfs["default"].peers;
        assert_eq!(peers["10.10.128.0"].state, "Active");
        assert_eq!(peers["10.106.0.153"].reason.as_deref(), Some("NoIf"));
        let up = &peers["10.106.0.157"];
        assert!(up.established());
        assert_eq!(
            (up.prefixes_received, up.prefixes_accepted),
            (Some(1), Some(1))
        );
        assert_eq!(up.changed_ago_s, Some(79 * 86_400 + 5 * 3600));
        let avd = "BGP summary information for VRF tenant_a\nRouter identifier 192.168.255.13, local AS number 65101\n\
            Neighbor Status Codes: m - Under maintenance\n\
            \x20 Description              Neighbor      V AS           MsgRcvd   MsgSent  InQ OutQ  Up/Down State   PfxRcd PfxAcc\n\
            \x20 avd-leaf1b               172.31.253.23 4 65101            262       268    0    0 03:27:37 Estab   10     10\n\
            \x20                          172.31.253.25 4 65101            262       268    0    0 03:27:37 Estab(NotNegotiated)\n";
        let s = parse(avd).unwrap();
        let peers = &s.vrfs["tenant_a"].peers;
        assert_eq!(
            peers["172.31.253.23"].description.as_deref(),
            Some("avd-leaf1b")
        );
        assert_eq!(
            peers["172.31.253.23"].changed_ago_s,
            Some(3 * 3600 + 27 * 60 + 37)
        );
        assert_eq!(
            peers["172.31.253.25"].reason.as_deref(),
            Some("NotNegotiated")
        );
        assert_eq!(peers["172.31.253.25"].prefixes_accepted, None);
        assert!(
            parse("sw1#show ip bgp summary\n% BGP inactive\nsw1#")
                .unwrap()
                .inactive
        );
        assert!(parse(r#"{"errors": ["BGP inactive"]}"#).unwrap().inactive);
        for bad in [
            ntc.replace("79d05h Active", "79x05h Active"),
            ntc.replace("Estab  1      1", "Estab  one    1"),
            ntc.replace("Router identifier 10.0.65.72,", "Router id"),
            "% Invalid input".to_string(),
            "something else".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
