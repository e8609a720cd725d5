//! `show interfaces transceiver dom thresholds | json`: optical power per lane with the
//! module's alarm and warning thresholds (`eos.transceivers.light`: receive and transmit power
//! inside the warning thresholds on trading ports).
//!
//! Per interface: `parameters.rxPower = {"unit": "dBm", "channels": {"1": -2.36, ...},
//! "threshold": {"lowAlarm": -12.5, "lowWarn": -9.5, ...}}` (ANTA's data; `highWarn` and
//! `highAlarm` by symmetry, unconfirmed). Lanes are `1`-`4`, or `-` for a module-wide value.
//! Ports without DOM (DAC, empty cage) print only `displayName`. A power in another unit than
//! dBm, or outside -100..+30 dBm, is an error: the thresholds would be compared with nonsense.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::{required, rounded};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// Physically possible optical power readings, dBm (no light reads about -40).
const DBM_RANGE: std::ops::RangeInclusive<f64> = -100.0..=30.0;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Transceivers {
    /// Keyed by interface name.
    pub interfaces: BTreeMap<String, Transceiver>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Transceiver {
    /// `10GBASE-SR` ...; `None` for ports without DOM.
    pub media_type: Option<String>,
    pub vendor_sn: Option<String>,
    pub rx_power: Option<OpticalPower>,
    pub tx_power: Option<OpticalPower>,
}

/// One power parameter: readings per lane and thresholds, all dBm (rounded to 0.0001 dB).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpticalPower {
    /// Lane (`1`-`4`, `-` module-wide) -> reading.
    pub lanes_dbm: BTreeMap<String, f64>,
    pub low_alarm_dbm: Option<f64>,
    pub low_warn_dbm: Option<f64>,
    pub high_warn_dbm: Option<f64>,
    pub high_alarm_dbm: Option<f64>,
}

#[derive(Deserialize)]
struct Json {
    interfaces: BTreeMap<String, JsonInterface>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonInterface {
    /// Printed for every port, with DOM or not: the landmark of this output.
    #[allow(dead_code)]
    display_name: String,
    #[serde(default)]
    media_type: Option<String>,
    #[serde(default)]
    vendor_sn: Option<String>,
    #[serde(default)]
    parameters: Option<JsonParameters>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonParameters {
    #[serde(default)]
    rx_power: Option<JsonPower>,
    #[serde(default)]
    tx_power: Option<JsonPower>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPower {
    unit: String,
    channels: BTreeMap<String, f64>,
    #[serde(default)]
    threshold: Option<JsonThreshold>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonThreshold {
    #[serde(default)]
    low_alarm: Option<f64>,
    #[serde(default)]
    low_warn: Option<f64>,
    #[serde(default)]
    high_warn: Option<f64>,
    #[serde(default)]
    high_alarm: Option<f64>,
}

/// `show interfaces transceiver dom thresholds | json`.
pub struct ShowTransceiverDom;

impl Query for ShowTransceiverDom {
    const KIND: &'static str = "eos.show-interfaces-transceiver-dom-thresholds";
    /// Not on every family: [`super::family::DOM_THRESHOLDS`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::DOM_THRESHOLDS);
    type Fact = Transceivers;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Transceivers, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowTransceiverDom {
    pub const TEXT: &'static str = "show interfaces transceiver dom thresholds | json";
}

pub fn parse(raw: &str) -> Result<Transceivers, ParseError> {
    let json: Json = required(raw, "show interfaces transceiver dom thresholds")?;
    if json.interfaces.is_empty() {
        return Err(ParseError::new("the DOM output lists no interface", raw));
    }
    let mut out = Transceivers::default();
    for (name, i) in json.interfaces {
        let error = |what: &str, e: PowerError| {
            ParseError::new(format!("{} {what}: {e}", quote(&name)), raw)
        };
        let (rx, tx) = match i.parameters {
            Some(p) => (p.rx_power, p.tx_power),
            None => (None, None),
        };
        let rx_power = rx.map(power).transpose().map_err(|e| error("rxPower", e))?;
        let tx_power = tx.map(power).transpose().map_err(|e| error("txPower", e))?;
        out.interfaces.insert(
            name,
            Transceiver {
                media_type: i.media_type,
                vendor_sn: i.vendor_sn,
                rx_power,
                tx_power,
            },
        );
    }
    Ok(out)
}

/// Why an optical power reading is not one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum PowerError {
    #[error("unit {} is not dBm", quote(.0))]
    Unit(String),
    #[error("no lane reading")]
    NoLane,
    #[error("{0} dBm is not a real optical power")]
    NotReal(f64),
}

fn power(p: JsonPower) -> Result<OpticalPower, PowerError> {
    if p.unit != "dBm" {
        return Err(PowerError::Unit(p.unit));
    }
    if p.channels.is_empty() {
        return Err(PowerError::NoLane);
    }
    let dbm = |v: f64| {
        DBM_RANGE
            .contains(&v)
            .then(|| rounded(v, 4))
            .ok_or(PowerError::NotReal(v))
    };
    let mut lanes_dbm = BTreeMap::new();
    for (lane, v) in p.channels {
        lanes_dbm.insert(lane, dbm(v)?);
    }
    let t = p.threshold.unwrap_or(JsonThreshold {
        low_alarm: None,
        low_warn: None,
        high_warn: None,
        high_alarm: None,
    });
    Ok(OpticalPower {
        lanes_dbm,
        low_alarm_dbm: t.low_alarm.map(dbm).transpose()?,
        low_warn_dbm: t.low_warn.map(dbm).transpose()?,
        high_warn_dbm: t.high_warn.map(dbm).transpose()?,
        high_alarm_dbm: t.high_alarm.map(dbm).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{
    "interfaces": {
        "Ethernet3": {
            "displayName": "Ethernet3",
            "vendorSn": "XAS2321003",
            "mediaType": "10GBASE-SR",
            "parameters": {
                "temperature": {"unit": "C", "channels": {"-": 34.7}},
                "rxPower": {
                    "unit": "dBm",
                    "channels": {"1": -2.3657200643706275},
                    "threshold": {"highAlarm": 2.0, "highWarn": 1.0, "lowAlarm": -12.502636844309393, "lowAlarmOverridden": false, "lowWarn": -9.500071430798577}
                },
                "txPower": {"unit": "dBm", "channels": {"1": -2.2}}
            }
        },
        "Ethernet6": {"displayName": "Ethernet6"}
    }
}"#;

    #[test]
    fn lanes_and_thresholds() {
        let t = parse(OK).unwrap();
        let rx = t.interfaces["Ethernet3"].rx_power.as_ref().unwrap();
        assert_eq!(rx.lanes_dbm["1"], -2.3657);
        assert_eq!(
            (rx.low_alarm_dbm, rx.low_warn_dbm, rx.high_alarm_dbm),
            (Some(-12.5026), Some(-9.5001), Some(2.0))
        );
        assert_eq!(
            t.interfaces["Ethernet3"]
                .tx_power
                .as_ref()
                .unwrap()
                .low_warn_dbm,
            None
        );
        assert_eq!(t.interfaces["Ethernet6"], Transceiver::default());
        let text = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Transceivers>(&text).unwrap(), t);
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            (
                "\"unit\": \"dBm\",\n                    \"channels\"",
                "\"unit\": \"mW\",\n                    \"channels\"",
            ),
            ("-2.3657200643706275", "1e300"),
            ("-2.3657200643706275", "\"low\""),
            ("\"lowWarn\": -9.500071430798577", "\"lowWarn\": 250"),
            ("{\"1\": -2.2}", "{}"),
            (
                "\"mediaType\": \"10GBASE-SR\",",
                "\"mediaType\": \"10GBASE-SR\", \"mediaType\": \"10GBASE-LR\",",
            ),
        ] {
            assert!(OK.contains(from), "{from}");
            assert!(parse(&OK.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("{\"interfaces\": {}}").is_err());
    }
}
