//! `show interfaces | json`: per interface its state, speed and the error, discard and flap
//! counters `eos.interfaces.errors` compares with the previous run.
//!
//! Counters are cumulative since boot or `clear counters` (`lastClear`, kept so a comparison can
//! tell a clear from a drop). Port-channels print no `inputErrorsDetail`, subinterfaces
//! (`hardware: subinterface`), loopbacks and VXLAN no counters at all, EOS 4.2x no `lastClear`
//! or `inTotalPkts`: every counter is optional here, and one interface's missing counters never
//! fail the document. The check that judges a trading port asks for the counters it needs
//! ([`InterfaceCounters::missing`]): a physical port without them is that port's ERROR (cut or
//! garbled output), never a port with zero errors.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::{epoch_us, required};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interfaces {
    /// Keyed by the interface name as EOS keys it (the key, not the `name` field, is
    /// authoritative: real outputs have mismatches).
    pub interfaces: BTreeMap<String, Interface>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interface {
    /// `connected`, `notconnect`, `disabled`, `errdisabled` ...
    pub interface_status: String,
    /// `up`, `down`, `notPresent`, `lowerLayerDown` ...
    pub line_protocol_status: String,
    /// Bits per second (10 G = 10000000000).
    pub bandwidth_bps: Option<u64>,
    /// `ethernet`, `subinterface`, `portChannel`, `loopback`, `vlan` ... (absent in facts
    /// archived by older premarket versions).
    #[serde(default)]
    pub hardware: Option<String>,
    pub counters: Option<InterfaceCounters>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceCounters {
    pub link_status_changes: Option<u64>,
    pub total_in_errors: Option<u64>,
    pub total_out_errors: Option<u64>,
    pub in_discards: Option<u64>,
    pub out_discards: Option<u64>,
    /// `inputErrorsDetail` (not printed for port-channels).
    pub fcs_errors: Option<u64>,
    pub alignment_errors: Option<u64>,
    pub symbol_errors: Option<u64>,
    pub runt_frames: Option<u64>,
    pub giant_frames: Option<u64>,
    /// When the counters were last cleared (or the switch booted), epoch seconds.
    pub last_clear_s: Option<u64>,
    /// Pause frames received and sent (`inputErrorsDetail.rxPause`,
    /// `outputErrorsDetail.txPause`): flow control, a latency event on a trading port.
    #[serde(default)]
    pub rx_pause: Option<u64>,
    #[serde(default)]
    pub tx_pause: Option<u64>,
    /// Multicast packets received (`inMulticastPkts`): a feed's ingress port.
    #[serde(default)]
    pub in_multicast_pkts: Option<u64>,
    /// When the switch last refreshed these counters (`counterRefreshTime`), epoch
    /// microseconds: two reads with the same value are one snapshot.
    #[serde(default)]
    pub counter_refresh_us: Option<u64>,
}

impl InterfaceCounters {
    /// The totals a judged port must print (its flap, error and discard counters) that this
    /// one does not: a physical port missing any was cut or garbled.
    pub fn missing(&self) -> Vec<&'static str> {
        [
            ("linkStatusChanges", self.link_status_changes),
            ("totalInErrors", self.total_in_errors),
            ("totalOutErrors", self.total_out_errors),
            ("inDiscards", self.in_discards),
            ("outDiscards", self.out_discards),
        ]
        .into_iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k)
        .collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    interfaces: BTreeMap<String, JsonInterface>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonInterface {
    interface_status: String,
    line_protocol_status: String,
    #[serde(default)]
    bandwidth: Option<u64>,
    #[serde(default)]
    hardware: Option<String>,
    #[serde(default)]
    interface_counters: Option<JsonCounters>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonCounters {
    link_status_changes: Option<u64>,
    total_in_errors: Option<u64>,
    total_out_errors: Option<u64>,
    in_discards: Option<u64>,
    out_discards: Option<u64>,
    #[serde(default)]
    input_errors_detail: Option<JsonInputErrors>,
    #[serde(default)]
    output_errors_detail: Option<JsonOutputErrors>,
    #[serde(default)]
    last_clear: Option<f64>,
    #[serde(default)]
    in_multicast_pkts: Option<u64>,
    #[serde(default)]
    counter_refresh_time: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonOutputErrors {
    #[serde(default)]
    tx_pause: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonInputErrors {
    fcs_errors: Option<u64>,
    alignment_errors: Option<u64>,
    symbol_errors: Option<u64>,
    runt_frames: Option<u64>,
    giant_frames: Option<u64>,
    #[serde(default)]
    rx_pause: Option<u64>,
}

/// `show interfaces | json`.
pub struct ShowInterfaces;

impl Query for ShowInterfaces {
    const KIND: &'static str = "eos.show-interfaces";
    /// The next run judges the counters' growth (`eos.interfaces.errors`).
    const ARCHIVED: bool = true;
    type Fact = Interfaces;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Interfaces, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowInterfaces {
    pub const TEXT: &'static str = "show interfaces | json";
}

pub fn parse(raw: &str) -> Result<Interfaces, ParseError> {
    let json: Json = required(raw, "show interfaces")?;
    if json.interfaces.is_empty() {
        return Err(ParseError::new("`show interfaces` lists no interface", raw));
    }
    let mut out = Interfaces::default();
    for (name, i) in json.interfaces {
        let error = |e: String| ParseError::new(format!("{}: {e}", quote(&name)), raw);
        let counters = i.interface_counters.map(|c| {
            let detail = c.input_errors_detail;
            let last_clear_s = c
                .last_clear
                .map(|t| epoch_us(t).map(|us| us / 1_000_000))
                .transpose()
                .map_err(|e| format!("`lastClear` {e}"))?;
            let counter_refresh_us = c
                .counter_refresh_time
                .map(epoch_us)
                .transpose()
                .map_err(|e| format!("`counterRefreshTime` {e}"))?;
            Ok::<_, String>(InterfaceCounters {
                link_status_changes: c.link_status_changes,
                total_in_errors: c.total_in_errors,
                total_out_errors: c.total_out_errors,
                in_discards: c.in_discards,
                out_discards: c.out_discards,
                fcs_errors: detail.as_ref().and_then(|d| d.fcs_errors),
                alignment_errors: detail.as_ref().and_then(|d| d.alignment_errors),
                symbol_errors: detail.as_ref().and_then(|d| d.symbol_errors),
                runt_frames: detail.as_ref().and_then(|d| d.runt_frames),
                giant_frames: detail.as_ref().and_then(|d| d.giant_frames),
                last_clear_s,
                rx_pause: detail.as_ref().and_then(|d| d.rx_pause),
                tx_pause: c.output_errors_detail.as_ref().and_then(|d| d.tx_pause),
                in_multicast_pkts: c.in_multicast_pkts,
                counter_refresh_us,
            })
        });
        let counters = counters.transpose().map_err(error)?;
        out.interfaces.insert(
            name,
            Interface {
                interface_status: i.interface_status,
                line_protocol_status: i.line_protocol_status,
                bandwidth_bps: i.bandwidth,
                hardware: i.hardware,
                counters,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const ET1: &str = r#"sw1#show interfaces | json
{
    "interfaces": {
        "Ethernet1": {
            "name": "Ethernet1",
            "interfaceStatus": "connected",
            "lineProtocolStatus": "up",
            "bandwidth": 10000000000,
            "interfaceCounters": {
                "linkStatusChanges": 3,
                "totalInErrors": 3,
                "totalOutErrors": 0,
                "inDiscards": 0,
                "outDiscards": 0,
                "lastClear": 1580146469.0825176,
                "inputErrorsDetail": {
                    "runtFrames": 0,
                    "rxPause": 0,
                    "fcsErrors": 3,
                    "alignmentErrors": 0,
                    "giantFrames": 0,
                    "symbolErrors": 0
                }
            }
        },
        "Port-Channel1.20": {
            "name": "Port-Channel2.20",
            "interfaceStatus": "notconnect",
            "lineProtocolStatus": "lowerLayerDown",
            "bandwidth": 0
        }
    }
}
sw1#"#;

    #[test]
    fn ports_and_counters() {
        let i = parse(ET1).unwrap();
        let et1 = &i.interfaces["Ethernet1"];
        assert_eq!(
            (et1.interface_status.as_str(), et1.bandwidth_bps),
            ("connected", Some(10_000_000_000))
        );
        let c = et1.counters.as_ref().unwrap();
        assert_eq!(
            (c.fcs_errors, c.total_in_errors, c.link_status_changes),
            (Some(3), Some(3), Some(3))
        );
        assert_eq!(c.last_clear_s, Some(1_580_146_469));
        // No `outputErrorsDetail` printed: txPause unknown, not zero.
        assert_eq!((c.rx_pause, c.tx_pause), (Some(0), None));
        assert_eq!(i.interfaces["Port-Channel1.20"].counters, None);
    }

    #[test]
    fn missing_counters_are_the_port_s_not_the_document_s() {
        let cut = parse(&ET1.replacen("\"totalInErrors\": 3,", "", 1)).unwrap();
        let c = cut.interfaces["Ethernet1"].counters.as_ref().unwrap();
        assert_eq!(c.missing(), vec!["totalInErrors"]);
        let full = parse(ET1).unwrap();
        let c = full.interfaces["Ethernet1"].counters.as_ref().unwrap();
        assert!(c.missing().is_empty());
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            ("\"totalInErrors\": 3", "\"totalInErrors\": -3"),
            ("\"totalInErrors\": 3", "\"totalInErrors\": 3.5"),
            ("\"fcsErrors\": 3", "\"fcsErrors\": 99999999999999999999999"),
            (
                "\"inDiscards\": 0,",
                "\"inDiscards\": 0, \"inDiscards\": 7,",
            ),
            ("\"interfaceStatus\": \"connected\",", ""),
            ("\"lastClear\": 1580146469.0825176", "\"lastClear\": -1"),
            ("\"rxPause\": 0", "\"rxPause\": -1"),
        ] {
            assert!(ET1.contains(from), "{from}");
            assert!(parse(&ET1.replacen(from, to, 1)).is_err(), "{to}");
        }
        for bad in [
            "{\"interfaces\": {}}",
            "{\"version\": \"4.32.2F\"}",
            "% Invalid input",
            "Ethernet1 is up",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
