//! `show interfaces counters queue detail | json` (Trident/Tomahawk families: 7050X, 7060X,
//! 7010T, 720XP): packets dropped per port at the egress queues, unicast and multicast, per
//! traffic class and drop precedence (ANTA's "non-Jericho" data, PR #1223). Those families
//! have no VOQ, so this is their `eos.lanz.congestion` drop source; cumulative, judged as
//! growth since the previous run.
//!
//! Shape: `egressQueueCounters.interfaces.<port>.{ucastQueues,mcastQueues}.trafficClasses.
//! TCn.dropPrecedences.DPn.droppedPackets`. Keys premarket does not read (enqueued packets,
//! bytes) are allowed; a traffic class without a drop count is an error, never zero drops.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{Availability, ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressQueueDrops {
    /// Interface -> its drops.
    pub interfaces: BTreeMap<String, EgressDrops>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressDrops {
    /// Every unicast queue's drops, all classes and drop precedences.
    pub unicast: u64,
    /// Every multicast queue's drops (market data is multicast).
    pub multicast: u64,
}

impl EgressQueueDrops {
    /// Every drop of `interface`; `None` when it is not listed.
    pub fn total(&self, interface: &str) -> Option<u64> {
        self.interfaces
            .get(interface)
            .map(|d| d.unicast.saturating_add(d.multicast))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    egress_queue_counters: JsonCounters,
}

#[derive(Deserialize)]
struct JsonCounters {
    interfaces: BTreeMap<String, JsonInterface>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonInterface {
    #[serde(default)]
    ucast_queues: Option<JsonQueues>,
    #[serde(default)]
    mcast_queues: Option<JsonQueues>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonQueues {
    traffic_classes: BTreeMap<String, JsonClass>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonClass {
    drop_precedences: BTreeMap<String, JsonDropped>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonDropped {
    dropped_packets: u64,
}

/// `show interfaces counters queue detail | json`.
pub struct ShowQueueDetail;

impl Query for ShowQueueDetail {
    const KIND: &'static str = "eos.show-interfaces-counters-queue-detail";
    /// Not on every family: [`super::family::EGRESS_QUEUES`].
    const AVAILABILITY: Option<Availability> = Some(super::family::EGRESS_QUEUES);
    /// The next run judges the drops' growth (`eos.lanz.congestion`).
    const ARCHIVED: bool = true;
    type Fact = EgressQueueDrops;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<EgressQueueDrops, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowQueueDetail {
    pub const TEXT: &'static str = "show interfaces counters queue detail | json";
}

/// A queue class that is not a traffic class with drop counters, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: not a traffic class with drop counters", quote(.0))]
struct NotATrafficClass(String);

/// The sum of one queue set's drops; `Err` names a class that is not a traffic class.
fn sum(queues: Option<JsonQueues>) -> Result<u64, NotATrafficClass> {
    let Some(queues) = queues else {
        return Ok(0);
    };
    let mut total = 0u64;
    for (class, c) in queues.traffic_classes {
        let valid = class
            .strip_prefix("TC")
            .and_then(|n| n.parse::<u8>().ok())
            .is_some_and(|n| n <= 7);
        if !valid || c.drop_precedences.is_empty() {
            return Err(NotATrafficClass(class));
        }
        for d in c.drop_precedences.values() {
            total = total.saturating_add(d.dropped_packets);
        }
    }
    Ok(total)
}

pub fn parse(raw: &str) -> Result<EgressQueueDrops, ParseError> {
    let json: Json = required(raw, "show interfaces counters queue detail")?;
    let mut out = EgressQueueDrops::default();
    for (name, i) in json.egress_queue_counters.interfaces {
        if i.ucast_queues.is_none() && i.mcast_queues.is_none() {
            return Err(ParseError::new(
                format!("{}: no unicast or multicast queues", quote(&name)),
                raw,
            ));
        }
        let error = |e: String| ParseError::new(format!("{} {e}", quote(&name)), raw);
        let unicast = sum(i.ucast_queues).map_err(|e| error(e.to_string()))?;
        let multicast = sum(i.mcast_queues).map_err(|e| error(e.to_string()))?;
        out.interfaces
            .insert(name, EgressDrops { unicast, multicast });
    }
    if out.interfaces.is_empty() {
        return Err(ParseError::new(
            "the egress queue counters list no interface",
            raw,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"tor1#show interfaces counters queue detail | json
{"egressQueueCounters": {"interfaces": {"Ethernet4": {
    "ucastQueues": {"trafficClasses": {"TC0": {"dropPrecedences": {"DP0": {"droppedPackets": 2, "enqueuedPackets": 90}}}}},
    "mcastQueues": {"trafficClasses": {"TC0": {"dropPrecedences": {"DP0": {"droppedPackets": 17}, "DP1": {"droppedPackets": 1}}}}}}}}}
tor1#"#;

    #[test]
    fn drops_per_queue_set() {
        let d = parse(OK).unwrap();
        assert_eq!(
            d.interfaces["Ethernet4"],
            EgressDrops {
                unicast: 2,
                multicast: 18
            }
        );
        assert_eq!(
            (d.total("Ethernet4"), d.total("Ethernet9")),
            (Some(20), None)
        );
        for bad in [
            OK.replace("\"droppedPackets\": 17", "\"droppedPackets\": -17"),
            OK.replace(
                "\"TC0\": {\"dropPrecedences\": {\"DP0\": {\"droppedPackets\": 2",
                "\"TC9\": {\"dropPrecedences\": {\"DP0\": {\"droppedPackets\": 2",
            ),
            OK.replace("\"droppedPackets\": 2,", "\"dropped\": 2,"),
            "{\"egressQueueCounters\": {\"interfaces\": {}}}".to_string(),
            "{\"interfaces\": {}}".to_string(),
            "% Incomplete command".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
