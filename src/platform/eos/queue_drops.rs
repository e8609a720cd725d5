//! `show interfaces counters queue drops | json` (VOQ platforms: 7280R/7500R/7800R): packets
//! dropped per port and traffic class, at the ingress VOQ and the egress queue. Cumulative;
//! `eos.lanz.congestion` judges growth since the previous run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueDrops {
    /// Interface -> traffic class (`TC0` ...) -> drops.
    pub interfaces: BTreeMap<String, BTreeMap<String, ClassDrops>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassDrops {
    pub ingress_voq_dropped_packets: Option<u64>,
    pub egress_queue_dropped_packets: Option<u64>,
}

impl QueueDrops {
    /// Every drop of `interface`, all classes and both stages; `None` when it is not listed.
    pub fn total(&self, interface: &str) -> Option<u64> {
        let classes = self.interfaces.get(interface)?;
        Some(
            classes
                .values()
                .flat_map(|c| {
                    [
                        c.ingress_voq_dropped_packets,
                        c.egress_queue_dropped_packets,
                    ]
                })
                .flatten()
                .fold(0u64, u64::saturating_add),
        )
    }
}

#[derive(Deserialize)]
struct Json {
    interfaces: BTreeMap<String, JsonInterface>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonInterface {
    traffic_classes: BTreeMap<String, JsonClass>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonClass {
    #[serde(default)]
    ingress_voq_counters: Option<JsonSum>,
    #[serde(default)]
    egress_queue_counters: Option<JsonSum>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonSum {
    counters_sum: JsonDropped,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonDropped {
    dropped_packets: u64,
}

/// `show interfaces counters queue drops | json`.
pub struct ShowQueueDrops;

impl Query for ShowQueueDrops {
    const KIND: &'static str = "eos.show-interfaces-counters-queue-drops";
    /// Not on every family: [`super::family::VOQ_DROPS`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::VOQ_DROPS);
    /// The next run judges the drops' growth (`eos.lanz.congestion`).
    const ARCHIVED: bool = true;
    type Fact = QueueDrops;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<QueueDrops, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowQueueDrops {
    pub const TEXT: &'static str = "show interfaces counters queue drops | json";
}

pub fn parse(raw: &str) -> Result<QueueDrops, ParseError> {
    let json: Json = required(raw, "show interfaces counters queue drops")?;
    let mut out = QueueDrops::default();
    for (name, i) in json.interfaces {
        let mut classes = BTreeMap::new();
        for (class, c) in i.traffic_classes {
            let valid = class
                .strip_prefix("TC")
                .and_then(|n| n.parse::<u8>().ok())
                .is_some_and(|n| n <= 7);
            if !valid || (c.ingress_voq_counters.is_none() && c.egress_queue_counters.is_none()) {
                return Err(ParseError::new(
                    format!(
                        "{} {}: not a traffic class with drop counters",
                        quote(&name),
                        quote(&class)
                    ),
                    raw,
                ));
            }
            classes.insert(
                class,
                ClassDrops {
                    ingress_voq_dropped_packets: c
                        .ingress_voq_counters
                        .map(|s| s.counters_sum.dropped_packets),
                    egress_queue_dropped_packets: c
                        .egress_queue_counters
                        .map(|s| s.counters_sum.dropped_packets),
                },
            );
        }
        out.interfaces.insert(name, classes);
    }
    if out.interfaces.is_empty() {
        return Err(ParseError::new(
            "the queue drop counters list no interface",
            raw,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"interfaces": {"Ethernet4": {"trafficClasses": {
        "TC0": {"ingressVoqCounters": {"countersSum": {"droppedPackets": 1260}}, "egressQueueCounters": {"countersSum": {"droppedPackets": 0}}},
        "TC1": {"ingressVoqCounters": {"countersSum": {"droppedPackets": 0}}, "egressQueueCounters": {"countersSum": {"droppedPackets": 0}}}}}}}"#;

    #[test]
    fn drops_per_class() {
        let d = parse(OK).unwrap();
        assert_eq!(
            d.interfaces["Ethernet4"]["TC0"].ingress_voq_dropped_packets,
            Some(1260)
        );
        assert_eq!(
            (d.total("Ethernet4"), d.total("Ethernet9")),
            (Some(1260), None)
        );
        for bad in [
            OK.replace("1260", "-1260"),
            OK.replace("\"TC1\"", "\"TC9\""),
            OK.replace("\"droppedPackets\": 1260", "\"dropped\": 1260"),
            "{\"interfaces\": {}}".to_string(),
            "{\"interfaceErrorCounters\": {}}".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
