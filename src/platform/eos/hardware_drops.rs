//! `show hardware counter drop | json`: the forwarding chips' drop counters, each with its kind
//! (`Adverse`: a fault such as a parity error or a bad descriptor; `Congestion`;
//! `PacketProcessor`: routine pipeline drops such as `dropVoqInMcastEmptyMcid`), its cumulative
//! count and its recent windows (`eos.hardware.drops`). The archive keeps the fact: an adverse
//! counter that grew since the reference run is a fault happening now.
//!
//! The command exists on Sand platforms only (7280R, 7500R, 7800R, 7700R, 7020R); elsewhere the
//! switch answers `% Unavailable command (not supported on this hardware platform)`, so the
//! query is gated by the model ([`super::family::SAND_DROPS`]). The one public reply is an
//! excerpt (a docstring elided with `...`): `totalAdverseDrops`, `totalCongestionDrops`,
//! `totalPacketProcessorDrops`, `dropEvents.<chip>.dropEvent[] {counterName, counterType,
//! counterId, dropCount, eventCount, initialEventTime, lastEventTime, dropInLastMinute,
//! dropInLastTenMinute, dropInLastOneHour, dropInLastOneDay, dropInLastOneWeek}`. The keys the
//! check judges are required; the rest are optional.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::{Availability, ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardwareDrops {
    pub total_adverse: u64,
    pub total_congestion: Option<u64>,
    pub total_packet_processor: Option<u64>,
    pub counters: Vec<DropCounter>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropCounter {
    /// The chip (`Jericho6/0`, `Fap0`).
    pub chip: String,
    pub name: String,
    /// `Adverse`, `Congestion`, `PacketProcessor`.
    pub kind: String,
    /// Cumulative.
    pub drops: u64,
    pub last_ten_minutes: Option<u64>,
    pub last_hour: Option<u64>,
    /// `YYYY-MM-DD hh:mm:ss`, the switch's clock.
    pub last_event: Option<String>,
}

impl DropCounter {
    pub fn adverse(&self) -> bool {
        self.kind == "Adverse"
    }
}

/// `show hardware counter drop | json`.
pub struct ShowHardwareDrops;

impl ShowHardwareDrops {
    pub const TEXT: &'static str = "show hardware counter drop | json";
}

impl Query for ShowHardwareDrops {
    const KIND: &'static str = "eos.show-hardware-counter-drop";
    /// Growth since the reference run is what is judged.
    const ARCHIVED: bool = true;
    const AVAILABILITY: Option<Availability> = Some(super::family::SAND_DROPS);
    type Fact = HardwareDrops;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<HardwareDrops, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    total_adverse_drops: u64,
    #[serde(default)]
    total_congestion_drops: Option<u64>,
    #[serde(default)]
    total_packet_processor_drops: Option<u64>,
    #[serde(default)]
    drop_events: BTreeMap<String, JsonChip>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonChip {
    drop_event: Vec<JsonEvent>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonEvent {
    counter_name: String,
    counter_type: String,
    drop_count: u64,
    #[serde(default)]
    drop_in_last_ten_minute: Option<u64>,
    #[serde(default)]
    drop_in_last_one_hour: Option<u64>,
    #[serde(default)]
    last_event_time: Option<String>,
}

pub fn parse(raw: &str) -> Result<HardwareDrops, ParseError> {
    let j: Json = required(raw, "show hardware counter drop")?;
    let mut counters = Vec::new();
    for (chip, events) in j.drop_events {
        for e in events.drop_event {
            counters.push(DropCounter {
                chip: chip.clone(),
                name: e.counter_name,
                kind: e.counter_type,
                drops: e.drop_count,
                last_ten_minutes: e.drop_in_last_ten_minute,
                last_hour: e.drop_in_last_one_hour,
                last_event: e.last_event_time,
            });
        }
    }
    Ok(HardwareDrops {
        total_adverse: j.total_adverse_drops,
        total_congestion: j.total_congestion_drops,
        total_packet_processor: j.total_packet_processor_drops,
        counters,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"totalPacketProcessorDrops": 64, "totalCongestionDrops": 0, "totalAdverseDrops": 1,
        "dropEvents": {"Jericho6/0": {"dropEvent": [
          {"lastEventTime": "2024-01-09 16:49:12", "eventCount": 1, "dropInLastMinute": 0, "initialEventTime": "2024-01-09 16:49:12",
           "dropInLastOneDay": 0, "dropInLastOneHour": 0, "dropInLastTenMinute": 0, "dropCount": 1,
           "counterType": "PacketProcessor", "counterId": 48, "counterName": "dropVoqInMcastEmptyMcid"}]}}}"#;

    #[test]
    fn counters_by_chip_and_kind() {
        let d = parse(OK).unwrap();
        assert_eq!(d.total_adverse, 1);
        assert_eq!(d.counters[0].chip, "Jericho6/0");
        assert!(!d.counters[0].adverse());
        assert_eq!(d.counters[0].last_hour, Some(0));
        for bad in [
            OK.replace("\"totalAdverseDrops\": 1,", ""),
            OK.replace("\"dropCount\": 1,", ""),
            // The public sample as printed: an excerpt elided with `...`.
            OK.replace("]}}}", "]},\n ...\n}}"),
            "% Unavailable command (not supported on this hardware platform)".to_string(),
        ] {
            let e = parse(&bad).unwrap_err();
            assert!(!e.excerpt.is_empty(), "{bad}");
        }
        let none = r#"{"totalAdverseDrops": 0, "dropEvents": {}}"#;
        assert!(parse(none).unwrap().counters.is_empty());
    }
}
