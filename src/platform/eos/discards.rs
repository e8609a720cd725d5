//! `show interfaces counters discards | json`: packets each port dropped without an error, in
//! and out (ANTA's `VerifyInterfaceDiscards` data; no platform restriction there). The drop
//! source of `eos.lanz.congestion` on families without VOQ or documented egress queue counters
//! (7150S, 7130, a model premarket does not know); cumulative, judged as growth.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::{Availability, ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discards {
    pub interfaces: BTreeMap<String, PortDiscards>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortDiscards {
    pub in_discards: u64,
    pub out_discards: u64,
}

impl Discards {
    /// Both directions of `interface`; `None` when it is not listed.
    pub fn total(&self, interface: &str) -> Option<u64> {
        self.interfaces
            .get(interface)
            .map(|d| d.in_discards.saturating_add(d.out_discards))
    }
}

#[derive(Deserialize)]
struct Json {
    interfaces: BTreeMap<String, JsonPort>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPort {
    in_discards: u64,
    out_discards: u64,
}

/// `show interfaces counters discards | json`.
pub struct ShowDiscards;

impl Query for ShowDiscards {
    const KIND: &'static str = "eos.show-interfaces-counters-discards";
    /// Read only where no queue drop source is documented: [`super::family::DISCARDS`].
    const AVAILABILITY: Option<Availability> = Some(super::family::DISCARDS);
    /// The next run judges the discards' growth (`eos.lanz.congestion`).
    const ARCHIVED: bool = true;
    type Fact = Discards;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Discards, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowDiscards {
    pub const TEXT: &'static str = "show interfaces counters discards | json";
}

pub fn parse(raw: &str) -> Result<Discards, ParseError> {
    let json: Json = required(raw, "show interfaces counters discards")?;
    if json.interfaces.is_empty() {
        return Err(ParseError::new(
            "the discard counters list no interface",
            raw,
        ));
    }
    Ok(Discards {
        interfaces: json
            .interfaces
            .into_iter()
            .map(|(name, p)| {
                (
                    name,
                    PortDiscards {
                        in_discards: p.in_discards,
                        out_discards: p.out_discards,
                    },
                )
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions() {
        let ok = r#"{"inDiscardsTotal": 0, "outDiscardsTotal": 31, "interfaces": {"Ethernet4": {"inDiscards": 2, "outDiscards": 31}}}"#;
        let d = parse(ok).unwrap();
        assert_eq!(
            (d.total("Ethernet4"), d.total("Ethernet1")),
            (Some(33), None)
        );
        for bad in [
            ok.replace("31}", "-31}"),
            ok.replace("\"inDiscards\": 2, ", ""),
            "{\"interfaces\": {}}".to_string(),
            "% Invalid input".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
