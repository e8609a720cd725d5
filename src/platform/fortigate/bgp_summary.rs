//! `get router info bgp summary`: the firewall's BGP sessions, for `fortigate.bgp.peers` where
//! the firewall routes to the hand-off (samples `handoff/fortios/get-router-info-bgp-summary-*`):
//!
//! ```text
//! VRF 0 BGP router identifier 1.1.1.1, local AS number 65001
//! BGP table version is 9
//! 6 BGP AS-PATH entries
//! 0 BGP community entries
//!
//! Neighbor    V         AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd
//! 172.18.12.1 4      65002      84      88        0    0    0    never Active
//! 172.18.13.1 4      65003      85      91        5    0    0 01:04:33        2
//!
//! Total number of neighbors 2
//! ```
//! 7.x opens with `VRF <n>` (one block per VRF), 6.x without it. In the last column a number
//! means Established with that many prefixes received, a word the state (`Idle`, `Active`,
//! `Connect`, `OpenSent`, `OpenConfirm`, `Idle (Admin)`). `Up/Down` is `hh:mm:ss` under a day,
//! then `1d02h` or `09w3d01h`, or `never` (seen on peers with thousands of messages: it does
//! not mean "no history"). Long addresses and 4-byte ASNs push the columns out of line, so rows
//! are split on white space; an address too long for its column may print alone on its line,
//! the row continuing on the next.

use std::net::IpAddr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::kv::counter;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BgpSummary {
    /// `BGP router identifier`, of the first block.
    pub router_id: Option<String>,
    /// `local AS number`, as printed (asdot `65000.100` occurs).
    pub local_as: Option<String>,
    pub peers: Vec<BgpPeer>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BgpPeer {
    /// The `VRF <n>` of the block (7.x); `None` on 6.x.
    pub vrf: Option<u32>,
    pub neighbor: IpAddr,
    pub remote_as: String,
    pub msg_rcvd: u64,
    pub msg_sent: u64,
    /// `Up/Down` as printed.
    pub up_down: String,
    /// `Up/Down` in seconds, with the precision of its format; `None` for `never`.
    pub up: Option<UpFor>,
    /// `Established`, or the state word(s) the last column printed.
    pub state: String,
    /// Prefixes received, when Established.
    pub prefixes: Option<u64>,
}

/// How long a session has been in its state: at least `s` seconds, less than `s + precision_s`
/// (`1d02h` is 26 hours to the hour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpFor {
    pub s: u64,
    pub precision_s: u64,
}

impl BgpPeer {
    pub fn established(&self) -> bool {
        self.prefixes.is_some()
    }
}

/// `get router info bgp summary`.
pub struct GetBgpSummary;

impl Query for GetBgpSummary {
    const KIND: &'static str = "fortigate.get-router-info-bgp-summary";
    /// The next run tells a session reset since this one from its `Up/Down`.
    const ARCHIVED: bool = true;
    type Fact = BgpSummary;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<BgpSummary, ParseError> {
        parse(raw.text()?)
    }
}

impl GetBgpSummary {
    pub const TEXT: &'static str = "get router info bgp summary";
}

static ROUTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:VRF (\d+) )?BGP router identifier (\S+), local AS number (\S+)")
        .expect("static regex")
});
static TOTAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Total number of neighbors (\d+)$").expect("static regex"));

pub fn parse(raw: &str) -> Result<BgpSummary, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let text = joined(&lines);
    let mut summary = BgpSummary::default();
    let mut vrf: Option<Option<u32>> = None;
    let mut in_table = false;
    let mut totals = 0;
    let mut counted = 0;
    let mut pending: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: String| ParseError::at_line(e, &text, i);
        let line = line.trim();
        if let Some(c) = ROUTER.captures(line) {
            let id = c
                .get(1)
                .map(|v| {
                    v.as_str()
                        .parse::<u32>()
                        .map_err(|_| at(format!("VRF {} is not a number", quote(v.as_str()))))
                })
                .transpose()?;
            vrf = Some(id);
            summary.router_id.get_or_insert_with(|| c[2].to_string());
            summary
                .local_as
                .get_or_insert_with(|| c[3].trim_end_matches(',').to_string());
            in_table = false;
            continue;
        }
        if line.starts_with("Neighbor") && line.contains("State/PfxRcd") {
            if vrf.is_none() {
                return Err(at(
                    "a neighbor table before any `BGP router identifier` line".into(),
                ));
            }
            in_table = true;
            continue;
        }
        if let Some(c) = TOTAL.captures(line) {
            totals += c[1]
                .parse::<usize>()
                .map_err(|_| at("neighbor count too large".into()))?;
            in_table = false;
            continue;
        }
        if !in_table {
            // Table version, AS-PATH and community counts, RIB lines: not judged.
            continue;
        }
        let row = match pending.take() {
            Some(address) => format!("{address} {line}"),
            None if line.split_whitespace().count() == 1 => {
                pending = Some(line.to_string());
                continue;
            }
            None => line.to_string(),
        };
        summary
            .peers
            .push(peer(&row, vrf.flatten()).map_err(|e| at(e.0))?);
        counted += 1;
    }
    if let Some(address) = pending {
        return Err(ParseError::new(
            format!("the row of {} is cut after the address", quote(&address)),
            &text,
        ));
    }
    if vrf.is_none() {
        return Err(ParseError::new(
            "no `BGP router identifier` line: not get router info bgp summary output (is BGP configured?)",
            &text,
        ));
    }
    if totals != counted {
        return Err(ParseError::new(
            format!("`Total number of neighbors` says {totals}, the table lists {counted}"),
            &text,
        ));
    }
    Ok(summary)
}

/// `10.15.0.252 4 65100 189 221 4 0 0 01:00:56 6`.
fn peer(row: &str, vrf: Option<u32>) -> Result<BgpPeer, BadRow> {
    let cells: Vec<&str> = row.split_whitespace().collect();
    let [
        neighbor,
        _v,
        remote_as,
        msg_rcvd,
        msg_sent,
        _tblver,
        _inq,
        _outq,
        up_down,
        state @ ..,
    ] = cells.as_slice()
    else {
        return Err(BadRow(format!(
            "a neighbor row of {} cells, want 10: {}",
            cells.len(),
            quote(row)
        )));
    };
    if state.is_empty() {
        return Err(BadRow(format!(
            "a neighbor row without State/PfxRcd: {}",
            quote(row)
        )));
    }
    let neighbor = neighbor
        .parse::<IpAddr>()
        .map_err(|_| BadRow(format!("{} is not a neighbor address", quote(neighbor))))?;
    let count = |v: &str| counter(v).map_err(|e| BadRow(e.to_string()));
    let (state, prefixes) = match state {
        [n] if n.bytes().all(|b| b.is_ascii_digit()) => {
            ("Established".to_string(), Some(count(n)?))
        }
        words
            if words.iter().all(|w| {
                w.chars()
                    .all(|c| c.is_ascii_alphabetic() || "()".contains(c))
            }) =>
        {
            (words.join(" "), None)
        }
        _ => {
            return Err(BadRow(format!(
                "State/PfxRcd {} is neither a count nor a state",
                quote(&state.join(" "))
            )));
        }
    };
    Ok(BgpPeer {
        vrf,
        neighbor,
        remote_as: remote_as.to_string(),
        msg_rcvd: count(msg_rcvd)?,
        msg_sent: count(msg_sent)?,
        up_down: up_down.to_string(),
        up: up_for(up_down)?,
        state,
        prefixes,
    })
}

/// A neighbor row that does not read, and why.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRow(String);

/// `01:04:33`, `1d02h`, `09w3d01h`, `never`.
pub fn up_for(text: &str) -> Result<Option<UpFor>, BadRow> {
    if text == "never" {
        return Ok(None);
    }
    let bad = || {
        BadRow(format!(
            "Up/Down {} is not hh:mm:ss, 1d02h, 09w3d01h or never",
            quote(text)
        ))
    };
    if let [h, m, s] = text.split(':').collect::<Vec<_>>().as_slice() {
        let n = |v: &str| {
            (v.len() == 2 || v.len() == 3)
                .then(|| v.parse::<u64>().ok())
                .flatten()
                .ok_or_else(bad)
        };
        let (h, m, s) = (n(h)?, n(m)?, n(s)?);
        if m > 59 || s > 59 {
            return Err(bad());
        }
        return Ok(Some(UpFor {
            s: h * 3600 + m * 60 + s,
            precision_s: 1,
        }));
    }
    let mut total = 0u64;
    let mut digits = String::new();
    let mut units = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'w' => 7 * 86_400,
            'd' => 86_400,
            'h' => 3600,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        total = total.saturating_add(n.saturating_mul(unit));
        digits.clear();
        units += 1;
    }
    if units == 0 || !digits.is_empty() || !text.ends_with('h') {
        return Err(bad());
    }
    Ok(Some(UpFor {
        s: total,
        precision_s: 3600,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V7: &str = "fgt1 # get router info bgp summary\nVRF 0 BGP router identifier 1.1.1.1, local AS number 65001\nBGP table version is 9\n6 BGP AS-PATH entries\n0 BGP community entries\n\nNeighbor    V         AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd\n172.18.12.1 4      65002      84      88        0    0    0    never Active     \n172.18.13.1 4      65003      85      91        5    0    0 01:04:33        2\n\nTotal number of neighbors 2\nfgt1 # ";

    #[test]
    fn both_releases() {
        let s = parse(V7).unwrap();
        assert_eq!(
            (s.router_id.as_deref(), s.local_as.as_deref()),
            (Some("1.1.1.1"), Some("65001"))
        );
        assert_eq!(s.peers.len(), 2);
        let (a, b) = (&s.peers[0], &s.peers[1]);
        assert_eq!(
            (a.state.as_str(), a.prefixes, a.up, a.vrf),
            ("Active", None, None, Some(0))
        );
        assert_eq!((b.state.as_str(), b.prefixes), ("Established", Some(2)));
        assert_eq!(
            b.up,
            Some(UpFor {
                s: 3873,
                precision_s: 1
            })
        );
        // 6.x: no `VRF 0`, an idle peer, a 4-byte ASN and an address on its own line.
        let v6 = V7
            .replace("VRF 0 BGP", "BGP")
            .replace(
                "172.18.12.1 4      65002 ",
                "172.18.12.1\n            4 4200000002 ",
            )
            .replace("never Active     ", "1d02h Idle (Admin)")
            .replace("01:04:33", "09w3d01h");
        let s6 = parse(&v6).unwrap();
        assert_eq!(s6.peers[0].vrf, None);
        assert_eq!(s6.peers[0].remote_as, "4200000002");
        assert_eq!(s6.peers[0].state, "Idle (Admin)");
        assert_eq!(
            s6.peers[0].up,
            Some(UpFor {
                s: 93_600,
                precision_s: 3600
            })
        );
        assert_eq!(s6.peers[1].up.map(|u| u.s), Some(66 * 86_400 + 3600));
    }

    #[test]
    fn damage_is_an_error() {
        for bad in [
            V7.replace("Total number of neighbors 2", "Total number of neighbors 3"),
            V7.replace("01:04:33", "01:64:33"),
            V7.replace("        2\n", "       -2\n"),
            V7.replace("172.18.13.1 4", "172.18.13.999 4"),
            V7.replace("    never Active     ", ""),
            V7.replace(
                "VRF 0 BGP router identifier 1.1.1.1, local AS number 65001\n",
                "",
            ),
            "Unknown action 0\n".to_string(),
            String::new(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
        assert_eq!(up_for("never"), Ok(None));
        for bad in ["1d02", "d02h", "1x02h", "12:00", ""] {
            assert!(up_for(bad).is_err(), "{bad}");
        }
    }
}
