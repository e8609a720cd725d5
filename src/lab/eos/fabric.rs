//! The switch's own fabric around the hand-off: MLAG (`show mlag | json`, `show mlag
//! config-sanity | json`), the forwarding chips' drop counters (`show hardware counter drop |
//! json`, Sand switches only: the caller answers a Trident switch as it answers, `% Unavailable
//! command`), flow control (`show interfaces flow-control | json`) and LLDP (`show lldp
//! neighbors | json`), each from the switch's model and ports ([`super::ports`]).
//!
//! The lab notes' 7280R3 stands alone (MLAG disabled); the mixed fleet's 7050X is one of an
//! MLAG pair whose peer is not in the lab. Flow control is off everywhere, its PAUSE counters
//! the ports' own. The hand-offs lead to two carriers' routers (carrier A for side A on
//! Ethernet1, carrier B for side B on Ethernet9); `feeds-share-uplink` moves side B onto
//! carrier A's router.

use super::super::scenario::Fault;
use super::super::topology::{CARRIER_A, CARRIER_B};
use super::json::{J, obj};
use super::ports::{Port, ports};
use super::state::EosState;

/// `show mlag | json`.
pub fn mlag_json(s: &EosState) -> String {
    let ports = |active: u32| {
        obj! {
            "Disabled" => 0u32,
            "Active-partial" => 0u32,
            "Inactive" => 0u32,
            "Configured" => 0u32,
            "Active-full" => active,
        }
    };
    if !s.spec.mlag {
        return obj! {
            "localInterface" => "",
            "state" => "disabled",
            "reloadDelay" => 300u32,
            "peerLink" => "",
            "dualPrimaryDetectionState" => "disabled",
            "reloadDelayNonMlag" => 300u32,
            "mlagPorts" => ports(0),
            "portsErrdisabled" => false,
        }
        .render();
    }
    obj! {
        "localInterface" => "Vlan4094",
        "systemId" => "46:38:39:99:c7:9e",
        "domainId" => "md-pair",
        "peerLink" => "Port-Channel2000",
        "dualPrimaryDetectionState" => "disabled",
        "peerAddress" => "169.254.1.1",
        "peerLinkStatus" => "up",
        "localIntfStatus" => "up",
        "configSanity" => "consistent",
        "portsErrdisabled" => false,
        "state" => "active",
        "reloadDelay" => 300u32,
        "reloadDelayNonMlag" => 300u32,
        "negStatus" => "connected",
        "mlagPorts" => ports(1),
    }
    .render()
}

/// `show mlag config-sanity | json`: consistent, or nothing compared without MLAG.
pub fn mlag_sanity_json(s: &EosState) -> String {
    obj! {
        "globalConfiguration" => J::obj(Vec::<(String, J)>::new()),
        "interfaceConfiguration" => J::obj(Vec::<(String, J)>::new()),
        "mlagActive" => s.spec.mlag,
        "mlagConnected" => s.spec.mlag,
    }
    .render()
}

/// `show hardware counter drop | json` of a Sand switch: no adverse drop beyond two from an
/// old event (history, constant until a reboot), and routine packet-processor drops that grow
/// with the time since boot.
pub fn hardware_drops_json(s: &EosState, now: f64) -> String {
    let hours = (s.uptime(now) / 3600.0) as u64;
    let adverse = if s.rebooted() { 0u64 } else { 2 };
    let event = |name: &str, kind: &str, id: u32, count: u64| {
        obj! {
            "lastEventTime" => "2026-11-18 02:14:07",
            "eventCount" => count.min(1),
            "dropInLastMinute" => 0u32,
            "initialEventTime" => "2026-11-18 02:14:07",
            "dropInLastOneDay" => 0u32,
            "dropInLastOneHour" => 0u32,
            "dropInLastTenMinute" => 0u32,
            "dropCount" => count,
            "counterType" => kind,
            "counterId" => id,
            "counterName" => name,
        }
    };
    let events = vec![
        event("dropVoqInMcastEmptyMcid", "PacketProcessor", 48, hours),
        event("ingressParityError", "Adverse", 12, adverse),
    ];
    obj! {
        "totalPacketProcessorDrops" => hours,
        "totalCongestionDrops" => 0u32,
        "totalAdverseDrops" => adverse,
        "dropEvents" => J::obj([("Jericho2/0".to_string(), obj! { "dropEvent" => J::arr(events) })]),
    }
    .render()
}

/// `show interfaces flow-control | json`: off on every physical port.
pub fn flow_control_json(s: &EosState, now: f64) -> String {
    let rows = ports(s, now)
        .into_iter()
        .filter(|p| p.hardware == "ethernet")
        .map(|p| {
            let (admin, oper) = match (p.management, p.connected) {
                (true, _) => ("desired", "off"),
                (false, true) => ("off", "off"),
                (false, false) => ("off", "unknown"),
            };
            let row = obj! {
                "txAdminState" => admin,
                "rxAdminState" => admin,
                "rxPause" => p.counters.rx_pause,
                "txOperState" => oper,
                "txPause" => p.counters.tx_pause,
                "rxOperState" => oper,
            };
            (p.name, row)
        });
    obj! { "interfaceFlowControls" => J::obj(rows) }.render()
}

/// Who is at the other end of a connected port (device, port ID), by the port's name.
fn neighbor(s: &EosState, port: &Port) -> Option<(&'static str, &'static str)> {
    Some(match port.name.as_str() {
        "Ethernet1" => CARRIER_A,
        "Ethernet9" if s.faults.has(Fault::FeedsShareUplink) => (CARRIER_A.0, "xe-0/0/2"),
        "Ethernet9" => CARRIER_B,
        "Ethernet2" => ("fw1", "x1"),
        "Ethernet3" => ("fw1", "x2"),
        "Ethernet4" => ("md-server-1", "eth1"),
        "Ethernet5" => ("core-sw1", "Ethernet49/1"),
        "Ethernet6" => ("core-sw1", "Ethernet50/1"),
        "Ethernet7" => ("carrier-c-pe1", "xe-0/0/3"),
        "Management1" => ("oob-sw1", "Ethernet11"),
        _ => return None,
    })
}

/// `show lldp neighbors | json`.
pub fn lldp_json(s: &EosState, now: f64) -> String {
    let seen: Vec<J> = ports(s, now)
        .into_iter()
        .filter(|p| p.connected && p.hardware == "ethernet")
        .filter_map(|p| {
            let (device, port) = neighbor(s, &p)?;
            Some(obj! {
                "ttl" => 120u32,
                "neighborDevice" => device,
                "neighborPort" => port,
                "port" => p.name,
            })
        })
        .collect();
    obj! {
        "tablesLastChangeTime" => s.booted + 75.0,
        "tablesAgeOuts" => 0u32,
        "tablesInserts" => seen.len(),
        "lldpNeighbors" => J::arr(seen),
        "tablesDeletes" => 0u32,
        "tablesDrops" => 0u32,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::super::model::DCS_7050SX;
    use super::*;

    fn v(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn mlag_by_model_and_uplinks_by_scenario() {
        let sw1 = EosState::new("sw1", 1, &Faults::default());
        assert_eq!(v(&mlag_json(&sw1))["state"], "disabled");
        let sw2 = EosState::of_model("sw2", 2, &Faults::default(), &DCS_7050SX);
        assert_eq!(v(&mlag_json(&sw2))["negStatus"], "connected");
        let uplink = |s: &EosState, port: &str| {
            v(&lldp_json(s, s.started))["lldpNeighbors"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["port"] == port)
                .map(|n| n["neighborDevice"].as_str().unwrap().to_string())
        };
        assert_eq!(uplink(&sw1, "Ethernet9").as_deref(), Some("carrier-b-pe1"));
        let shared = EosState::new("sw1", 1, &Faults::only(Fault::FeedsShareUplink));
        assert_eq!(
            uplink(&shared, "Ethernet9").as_deref(),
            Some("carrier-a-pe1")
        );
        assert_eq!(uplink(&sw1, "Ethernet8"), None);
        let fc = v(&flow_control_json(&sw1, sw1.started));
        assert_eq!(
            fc["interfaceFlowControls"]["Ethernet1"]["rxOperState"],
            "off"
        );
        let drops = v(&hardware_drops_json(&sw1, sw1.started));
        assert_eq!(drops["totalAdverseDrops"], 2);
    }
}
