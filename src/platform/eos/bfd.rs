//! `show bfd peers | json`: every BFD session, per VRF and address family, with its state
//! (`up`, `down`, `init`, `adminDown`), the peer's discriminator (`remoteDisc`: 0 means the peer
//! never answered, so an `up` with 0 is not established, as ANTA judges) and its last down time
//! (`eos.bfd.peers`).
//!
//! Shapes read: the JSON `vrfs.<vrf>.{ipv4Neighbors, ipv6Neighbors}.<peer>.peerStats.<l3intf or
//! "">.{status, remoteDisc, lastDown, l3intf}` (ANTA's data, trimmed to those keys: others are
//! optional), and the text, which wraps on an 80-column terminal into a second block
//! (`LastDown LastDiag State`) in the first block's row order, or prints one wide table.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::json::{epoch_us, json};
use super::port_names::long_name;
use super::text::{BadLine, body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BfdPeers {
    pub sessions: Vec<BfdSession>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BfdSession {
    pub vrf: String,
    /// The peer's address, as printed.
    pub peer: String,
    /// The layer-3 interface of a single-hop session (`None` for multihop).
    pub interface: Option<String>,
    /// `up`, `down`, `init`, `adminDown`.
    pub status: String,
    /// The peer's discriminator (text `YourDisc`); 0: the peer never answered.
    pub remote_disc: Option<u64>,
    /// When it last went down, epoch microseconds (JSON only).
    pub last_down_us: Option<u64>,
    /// The text's `LastDiag` (`No Diagnostic` when healthy).
    pub last_diag: Option<String>,
}

impl BfdPeers {
    /// The sessions to `peer` in `vrf`.
    pub fn to<'a>(&'a self, vrf: &'a str, peer: &'a str) -> impl Iterator<Item = &'a BfdSession> {
        self.sessions
            .iter()
            .filter(move |s| s.vrf == vrf && s.peer == peer)
    }
}

/// `show bfd peers | json`.
pub struct ShowBfdPeers;

impl ShowBfdPeers {
    pub const TEXT: &'static str = "show bfd peers | json";
}

impl Query for ShowBfdPeers {
    const KIND: &'static str = "eos.show-bfd-peers";
    type Fact = BfdPeers;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<BfdPeers, ParseError> {
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
    /// Printed for every VRF (empty without sessions): what tells this document from other
    /// per-VRF replies.
    ipv4_neighbors: BTreeMap<String, JsonPeer>,
    #[serde(default)]
    ipv6_neighbors: BTreeMap<String, JsonPeer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPeer {
    peer_stats: BTreeMap<String, JsonStats>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonStats {
    status: String,
    #[serde(default)]
    remote_disc: Option<u64>,
    #[serde(default)]
    last_down: Option<f64>,
    #[serde(default)]
    l3intf: Option<String>,
}

pub fn parse(raw: &str) -> Result<BfdPeers, ParseError> {
    match json::<Json>(raw, "show bfd peers") {
        Some(doc) => from_json(doc?, raw),
        None => from_text(raw),
    }
}

fn from_json(doc: Json, raw: &str) -> Result<BfdPeers, ParseError> {
    let mut sessions = Vec::new();
    for (vrf, families) in doc.vrfs {
        for (peer, p) in families
            .ipv4_neighbors
            .into_iter()
            .chain(families.ipv6_neighbors)
        {
            for (key, stats) in p.peer_stats {
                let last_down_us = stats
                    .last_down
                    .filter(|t| *t > 0.0)
                    .map(|t| {
                        epoch_us(t).map_err(|e| {
                            ParseError::new(format!("peer {}: lastDown: {e}", quote(&peer)), raw)
                        })
                    })
                    .transpose()?;
                let interface = stats.l3intf.unwrap_or(key);
                sessions.push(BfdSession {
                    vrf: vrf.clone(),
                    peer: peer.clone(),
                    interface: (!interface.is_empty()).then(|| long_name(&interface)),
                    status: stats.status,
                    remote_disc: stats.remote_disc,
                    last_down_us,
                    last_diag: None,
                });
            }
        }
    }
    Ok(BfdPeers { sessions })
}

/// The first block's columns of one row, before `LastUp`.
struct FirstHalf {
    peer: String,
    your_disc: u64,
    interface: Option<String>,
}

/// The text form: per `VRF name:` a table, wrapped into two blocks or one wide table.
fn from_text(raw: &str) -> Result<BfdPeers, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let all = lines.join("\n");
    let mut sessions = Vec::new();
    let mut vrf: Option<String> = None;
    let mut firsts: Vec<FirstHalf> = Vec::new();
    // 1: rows of the first block; 2: of the second (wrapped) block; 0: between tables.
    let mut block = 0;
    let mut seconds = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let at = |why: String| ParseError::at_line(why, &all, i);
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("VRF name:") {
            finish(&vrf, &firsts, seconds, &all, i)?;
            vrf = Some(name.trim().to_string());
            (firsts, block, seconds) = (Vec::new(), 0, 0);
            continue;
        }
        if trimmed.is_empty() || trimmed.chars().all(|c| c == '-' || c == ' ') {
            continue;
        }
        let Some(current) = vrf.clone() else {
            return Err(at("no `VRF name:` line before the table".into()));
        };
        if trimmed.starts_with("DstAddr") {
            block = if trimmed.ends_with("State") { 3 } else { 1 };
            continue;
        }
        if trimmed.starts_with("LastDown") {
            block = 2;
            continue;
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        match block {
            1 | 3 => {
                let [peer, _, your, intf, _, rest @ ..] = words.as_slice() else {
                    return Err(at(format!("not a BFD peer row: {}", quote(trimmed))));
                };
                let first = FirstHalf {
                    peer: peer.to_string(),
                    your_disc: your
                        .parse()
                        .map_err(|_| at(format!("YourDisc {your:?} is not a number")))?,
                    interface: (*intf != "NA").then(|| long_name(intf)),
                };
                if block == 1 {
                    firsts.push(first);
                    continue;
                }
                // One wide row: LastUp, then LastDown, LastDiag and State.
                let after_up = skip_time(rest);
                let session =
                    second_half(&current, &first, after_up, trimmed).map_err(|e| at(e.0))?;
                sessions.push(session);
            }
            2 => {
                let first = firsts
                    .get(seconds)
                    .ok_or_else(|| at("more rows in the second block than in the first".into()))?;
                sessions.push(second_half(&current, first, &words, trimmed).map_err(|e| at(e.0))?);
                seconds += 1;
            }
            _ => {
                return Err(at(format!(
                    "not a line of `show bfd peers`: {}",
                    quote(trimmed)
                )));
            }
        }
    }
    finish(&vrf, &firsts, seconds, &all, lines.len().saturating_sub(1))?;
    if vrf.is_none() {
        return Err(ParseError::new(
            "`show bfd peers` prints no `VRF name:` table",
            raw,
        ));
    }
    Ok(BfdPeers { sessions })
}

/// A wrapped table must have as many rows in its second block as in its first.
fn finish(
    vrf: &Option<String>,
    firsts: &[FirstHalf],
    seconds: usize,
    all: &str,
    line: usize,
) -> Result<(), ParseError> {
    if vrf.is_some() && !firsts.is_empty() && seconds != firsts.len() {
        return Err(ParseError::at_line(
            format!(
                "the table's second block has {seconds} rows for the first block's {}",
                firsts.len()
            ),
            all,
            line,
        ));
    }
    Ok(())
}

/// The words after a time column (`NA`, or a date and a time).
fn skip_time<'a, 'b>(words: &'a [&'b str]) -> &'a [&'b str] {
    match words.first() {
        Some(&"NA") | None => words.get(1..).unwrap_or_default(),
        Some(_) => words.get(2..).unwrap_or_default(),
    }
}

/// `LastDown LastDiag State` (the diagnosis may be several words).
fn second_half(
    vrf: &str,
    first: &FirstHalf,
    words: &[&str],
    line: &str,
) -> Result<BfdSession, BadLine> {
    let after_down = skip_time(words);
    let [diag @ .., state] = after_down else {
        return Err(BadLine(format!(
            "no LastDiag and State in: {}",
            quote(line)
        )));
    };
    if diag.is_empty() {
        return Err(BadLine(format!("no LastDiag in: {}", quote(line))));
    }
    let mut status: Vec<char> = state.chars().collect();
    if let Some(c) = status.first_mut() {
        *c = c.to_ascii_lowercase();
    }
    Ok(BfdSession {
        vrf: vrf.to_string(),
        peer: first.peer.clone(),
        interface: first.interface.clone(),
        status: status.into_iter().collect(),
        remote_disc: Some(first.your_disc),
        last_down_us: None,
        last_diag: Some(diag.join(" ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{"vrfs": {"default": {"ipv4Neighbors": {
        "192.0.255.7": {"peerStats": {"": {"status": "down", "remoteDisc": 0, "lastDown": 1703657258.652725, "l3intf": ""}}},
        "10.1.1.1": {"peerStats": {"Ethernet1": {"status": "up", "remoteDisc": 3940685114, "lastDown": 0.0, "l3intf": "Ethernet1"}}}},
        "ipv6Neighbors": {}}, "MGMT": {"ipv4Neighbors": {"192.0.255.71": {"peerStats": {"": {"status": "up", "remoteDisc": 0}}}}}}}"#;

    #[test]
    fn json_sessions() {
        let b = parse(JSON).unwrap();
        assert_eq!(b.sessions.len(), 3);
        let up = b.to("default", "10.1.1.1").next().unwrap();
        assert_eq!(
            (
                up.status.as_str(),
                up.remote_disc,
                up.interface.as_deref(),
                up.last_down_us
            ),
            ("up", Some(3_940_685_114), Some("Ethernet1"), None)
        );
        let down = b.to("default", "192.0.255.7").next().unwrap();
        assert_eq!(down.last_down_us, Some(1_703_657_258_652_725));
        assert_eq!(down.interface, None);
        assert_eq!(b.to("MGMT", "192.0.255.71").count(), 1);
        for bad in [
            JSON.replace("\"status\": \"down\", ", ""),
            JSON.replace("\"remoteDisc\": 0,", "\"remoteDisc\": -1,"),
            JSON.replace("1703657258.652725", "1e20"),
            r#"{"peers": {}}"#.to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    const WRAPPED: &str = "VRF name: default\n-----------------\n\
        DstAddr          MyDisc   YourDisc Interface/Transport     Type         LastUp \n\
        ------------ ---------- ---------- ------------------- -------- ---------------\n\
        192.168.0.26  803857261  348880801                  NA multihop 06/21/22 12:34 \n\
        192.168.0.27 2050304147          0                 Et1   normal 06/21/22 12:34 \n\n\
        \x20  LastDown            LastDiag    State\n\
        -------------- ------------------- -----\n\
        \x20        NA       No Diagnostic       Up\n\
        06/21/22 12:30   Neighbor Signaled Session Down   Down\n";

    #[test]
    fn the_wrapped_and_the_wide_text() {
        let b = parse(WRAPPED).unwrap();
        assert_eq!(b.sessions.len(), 2);
        assert_eq!(b.sessions[0].status, "up");
        assert_eq!(b.sessions[0].last_diag.as_deref(), Some("No Diagnostic"));
        assert_eq!(b.sessions[1].interface.as_deref(), Some("Ethernet1"));
        assert_eq!(b.sessions[1].status, "down");
        assert_eq!(b.sessions[1].remote_disc, Some(0));
        assert_eq!(
            b.sessions[1].last_diag.as_deref(),
            Some("Neighbor Signaled Session Down")
        );
        let wide = "VRF name: default\n-----------------\n\
            DstAddr       MyDisc    YourDisc  Interface/Transport    Type          LastUp         LastDown            LastDiag    State\n\
            10.1.1.1      1         2         Et1                    normal        06/21/22 12:34 NA             No Diagnostic       Up\n";
        let b = parse(wide).unwrap();
        assert_eq!(
            (b.sessions[0].status.as_str(), b.sessions[0].remote_disc),
            ("up", Some(2))
        );
        for bad in [
            WRAPPED.replace("         NA       No Diagnostic       Up\n", ""),
            WRAPPED.replace("348880801", "many"),
            WRAPPED.replace("VRF name: default\n", ""),
            "% Invalid input".to_string(),
            "sw1#show bfd peers\nsw1#".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
