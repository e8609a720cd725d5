//! `show ntp associations | json`: each configured NTP peer, its condition (`sys.peer` is the
//! one followed, `candidate`, `reject` ...), stratum, offset and reachability.
//!
//! Peers are keyed by hostname when configured by name, so both the key and `peerIpAddr` are
//! kept. `offset` is printed like ntpq's column, presumably milliseconds (unconfirmed).

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::json::{required, rounded};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NtpAssociations {
    /// Keyed as EOS keys them (hostname or address).
    pub peers: BTreeMap<String, NtpPeer>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NtpPeer {
    /// `sys.peer`, `candidate`, `reject` ...
    pub condition: String,
    pub address: Option<IpAddr>,
    pub stratum: u8,
    /// Rounded to 0.000001 ms.
    pub offset_ms: Option<f64>,
    /// The last eight polls answered, oldest first (`reachabilityHistory`).
    pub reachability: Vec<bool>,
}

#[derive(Deserialize)]
struct Json {
    peers: BTreeMap<String, JsonPeer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPeer {
    condition: String,
    #[serde(default)]
    peer_ip_addr: Option<String>,
    stratum_level: u8,
    #[serde(default)]
    offset: Option<f64>,
    #[serde(default)]
    reachability_history: Vec<bool>,
}

/// `show ntp associations | json`.
pub struct ShowNtpAssociations;

impl Query for ShowNtpAssociations {
    const KIND: &'static str = "eos.show-ntp-associations";
    type Fact = NtpAssociations;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NtpAssociations, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowNtpAssociations {
    pub const TEXT: &'static str = "show ntp associations | json";
}

pub fn parse(raw: &str) -> Result<NtpAssociations, ParseError> {
    let json: Json = required(raw, "show ntp associations")?;
    let mut out = NtpAssociations::default();
    for (name, p) in json.peers {
        let error = |e: String| ParseError::new(format!("peer {}: {e}", quote(&name)), raw);
        if p.stratum_level > 16 {
            return Err(error(format!("stratum {} is not 0-16", p.stratum_level)));
        }
        let address = p
            .peer_ip_addr
            .map(|a| {
                a.parse()
                    .map_err(|_| error(format!("{} is not an address", quote(&a))))
            })
            .transpose()?;
        let offset_ms = p
            .offset
            .map(|o| {
                (o.abs() < 1e9)
                    .then(|| rounded(o, 6))
                    .ok_or_else(|| error(format!("offset {o} ms")))
            })
            .transpose()?;
        out.peers.insert(
            name,
            NtpPeer {
                condition: p.condition,
                address,
                stratum: p.stratum_level,
                offset_ms,
                reachability: p.reachability_history,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"peers": {"ns1.example.net": {"delay": 0.434, "condition": "sys.peer", "offset": -0.004, "peerIpAddr": "10.0.0.1",
        "stratumLevel": 2, "reachabilityHistory": [true, true, true, true, true, true, true, true]},
        "10.0.0.2": {"condition": "candidate", "peerIpAddr": "10.0.0.2", "stratumLevel": 2}}}"#;

    #[test]
    fn peers() {
        let a = parse(OK).unwrap();
        let p = &a.peers["ns1.example.net"];
        assert_eq!(
            (p.condition.as_str(), p.stratum, p.offset_ms),
            ("sys.peer", 2, Some(-0.004))
        );
        assert_eq!(p.reachability.len(), 8);
        assert_eq!(a.peers["10.0.0.2"].offset_ms, None);
        for bad in [
            OK.replace("\"stratumLevel\": 2,", "\"stratumLevel\": 17,"),
            OK.replace("\"stratumLevel\": 2,", "\"stratumLevel\": -1,"),
            OK.replace("10.0.0.1", "ns1"),
            OK.replace("-0.004", "1e300"),
            OK.replace("\"condition\": \"candidate\",", ""),
            "{\"interfaces\": {}}".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
        assert!(parse("{\"peers\": {}}").unwrap().peers.is_empty());
    }
}
