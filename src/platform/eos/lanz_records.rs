//! `show queue-monitor length | json`: LANZ congestion records (`entryList`), newest first:
//! which queue (interface, traffic class) held how many bytes, when and for how long.
//! `eos.lanz.congestion` looks for records newer than the previous run above its threshold.
//!
//! Shape from a real 7280-class (`Sand`) eAPI capture. Times are kept as whole microseconds
//! (`entryTimeUsecs`, or `entryTime` seconds when only that is printed), so comparing two runs
//! never meets float rounding. The list is a bounded history: an empty one means nothing was
//! recorded, not that LANZ is on (`lanz_enabled` says that, when printed).

use serde::{Deserialize, Serialize};

use super::json::{epoch_us, required};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// Highest EOS traffic class.
const MAX_TRAFFIC_CLASS: u8 = 7;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanzRecords {
    pub lanz_enabled: Option<bool>,
    /// When the switch produced the report, epoch microseconds.
    pub report_time_us: Option<u64>,
    pub records: Vec<LanzRecord>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanzRecord {
    pub interface: String,
    pub traffic_class: u8,
    pub queue_length_bytes: u64,
    /// When the congestion was recorded, epoch microseconds.
    pub entry_time_us: u64,
    pub duration_us: Option<u64>,
    /// `P` (polling); notifying-mode letters are unconfirmed.
    pub entry_type: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    #[serde(default)]
    lanz_enabled: Option<bool>,
    #[serde(default)]
    report_time: Option<f64>,
    entry_list: Vec<JsonEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonEntry {
    interface: String,
    traffic_class: u8,
    queue_length: u64,
    #[serde(default)]
    entry_time_usecs: Option<u64>,
    #[serde(default)]
    entry_time: Option<f64>,
    #[serde(default)]
    duration_usecs: Option<u64>,
    #[serde(default)]
    duration: Option<u64>,
    entry_type: String,
}

/// `show queue-monitor length | json`.
pub struct ShowLanzRecords;

impl Query for ShowLanzRecords {
    const KIND: &'static str = "eos.show-queue-monitor-length";
    /// Not on every family: [`super::family::LANZ`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::LANZ);
    type Fact = LanzRecords;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<LanzRecords, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowLanzRecords {
    pub const TEXT: &'static str = "show queue-monitor length | json";
}

pub fn parse(raw: &str) -> Result<LanzRecords, ParseError> {
    let json: Json = required(raw, "show queue-monitor length")?;
    let error = |e: String| ParseError::new(e, raw);
    let report_time_us = json
        .report_time
        .map(epoch_us)
        .transpose()
        .map_err(|e| error(format!("`reportTime` {e}")))?;
    let mut records = Vec::with_capacity(json.entry_list.len());
    for (n, e) in json.entry_list.into_iter().enumerate() {
        let at = |m: String| error(format!("record {} ({}): {m}", n + 1, e.interface));
        if e.traffic_class > MAX_TRAFFIC_CLASS {
            return Err(at(format!("traffic class {} is not 0-7", e.traffic_class)));
        }
        let from_seconds = e
            .entry_time
            .map(epoch_us)
            .transpose()
            .map_err(|t| at(t.to_string()))?;
        let entry_time_us = match (e.entry_time_usecs, from_seconds) {
            (Some(us), Some(s)) if us.abs_diff(s) > 1_000 => {
                return Err(at("`entryTime` and `entryTimeUsecs` disagree".into()));
            }
            (Some(us), _) if us as f64 <= super::json::MAX_EPOCH_S * 1e6 => us,
            (Some(us), _) => return Err(at(format!("`entryTimeUsecs` {us} is not a time"))),
            (None, Some(us)) => us,
            (None, None) => return Err(at("no entry time".into())),
        };
        let duration_us = match (e.duration_usecs, e.duration) {
            (Some(us), Some(s)) if us / 1_000_000 != s => {
                return Err(at("`duration` and `durationUsecs` disagree".into()));
            }
            (Some(us), _) => Some(us),
            (None, Some(s)) => Some(
                s.checked_mul(1_000_000)
                    .ok_or_else(|| at("`duration` overflows".into()))?,
            ),
            (None, None) => None,
        };
        records.push(LanzRecord {
            interface: e.interface,
            traffic_class: e.traffic_class,
            queue_length_bytes: e.queue_length,
            entry_time_us,
            duration_us,
            entry_type: e.entry_type,
        });
    }
    Ok(LanzRecords {
        lanz_enabled: json.lanz_enabled,
        report_time_us,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{
    "reportTime": 1568892561.551359,
    "bytesPerTxmpSegment": 512,
    "lanzEnabled": true,
    "platformName": "Sand",
    "entryList": [
        {
            "entryTimeUsecs": 1568892560445182,
            "entryTime": 1568892560.445182,
            "interface": "Ethernet4",
            "duration": 1,
            "durationUsecs": 1000000,
            "entryType": "P",
            "queueLength": 3145728,
            "trafficClass": 0
        }
    ]
}"#;

    #[test]
    fn records() {
        let l = parse(OK).unwrap();
        assert_eq!(l.lanz_enabled, Some(true));
        let r = &l.records[0];
        assert_eq!(
            (r.interface.as_str(), r.queue_length_bytes, r.entry_time_us),
            ("Ethernet4", 3_145_728, 1_568_892_560_445_182)
        );
        assert_eq!(r.duration_us, Some(1_000_000));
        let seconds_only = OK.replace("\"entryTimeUsecs\": 1568892560445182,", "");
        assert_eq!(
            parse(&seconds_only).unwrap().records[0].entry_time_us,
            1_568_892_560_445_182
        );
        assert!(
            parse("{\"lanzEnabled\": true, \"entryList\": []}")
                .unwrap()
                .records
                .is_empty()
        );
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            ("\"queueLength\": 3145728", "\"queueLength\": -1"),
            ("\"trafficClass\": 0", "\"trafficClass\": 9"),
            (
                "\"entryTime\": 1568892560.445182",
                "\"entryTime\": 1468892560.445182",
            ),
            ("\"durationUsecs\": 1000000", "\"durationUsecs\": 5000000"),
            ("\"interface\": \"Ethernet4\",", ""),
            ("\"reportTime\": 1568892561.551359", "\"reportTime\": -3"),
            (
                "\"queueLength\": 3145728",
                "\"queueLength\": 3145728, \"queueLength\": 1",
            ),
        ] {
            assert!(OK.contains(from), "{from}");
            assert!(parse(&OK.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("{\"lanzEnabled\": true}").is_err());
    }
}
