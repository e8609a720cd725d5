//! `show interfaces | json` and its counter and optics views, rendered from the port model
//! (`ports.rs`). Shapes follow real EOS outputs (napalm and pyATEOS snapshots of
//! `show interfaces`) and ANTA's revision-1 data for the counters, queue drops and DOM
//! thresholds; the values are the lab's own. Key names marked "inferred" in the research
//! (the high DOM thresholds, single-lane channel names) are noted where they are used. What a
//! switch prints follows its model: EOS 4.2x counters lack `lastClear` and `inTotalPkts`, a
//! port-channel prints no error details, a subinterface no counters (napalm's 4.2x capture), a
//! DAC only its `displayName`; a VOQ switch counts queue drops per VOQ, a Trident one per
//! egress queue (`queue detail`, ANTA's non-Jericho data).

use super::json::{J, obj};
use super::model::Release;
use super::ports::{Counters, Optic, Port, dbm, ports};
use super::state::EosState;

/// `show interfaces PORT | json`: the same object for one port; `None` when the switch has
/// no such port.
pub fn interface_json(s: &EosState, now: f64, port: &str) -> Option<String> {
    let p = ports(s, now)
        .into_iter()
        .find(|p| p.name.eq_ignore_ascii_case(port))?;
    Some(
        J::obj([(
            "interfaces",
            J::obj([(p.name.clone(), interface(s, &p, now))]),
        )])
        .render(),
    )
}

/// `show interfaces | json`.
pub fn interfaces_json(s: &EosState, now: f64) -> String {
    let all = ports(s, now);
    J::obj([(
        "interfaces",
        J::obj(all.iter().map(|p| (p.name.clone(), interface(s, p, now)))),
    )])
    .render()
}

fn interface(s: &EosState, p: &Port, now: f64) -> J {
    let (status, protocol) = if p.connected {
        ("connected", "up")
    } else {
        ("notconnect", "down")
    };
    let rate = |pkts: u64, octets: u64| {
        let up = s.uptime(now).max(1.0);
        (octets as f64 * 8.0 / up, pkts as f64 / up)
    };
    let c = &p.counters;
    let (in_bits, in_pkts) = rate(c.in_ucast + c.in_mcast + c.in_bcast, c.in_octets);
    let (out_bits, out_pkts) = rate(c.out_ucast + c.out_mcast + c.out_bcast, c.out_octets);
    let mut fields = vec![
        (
            "lastStatusChangeTimestamp".to_string(),
            J::from(p.last_change),
        ),
        ("lanes".into(), J::from(0u32)),
        ("name".into(), J::from(p.name.as_str())),
        ("interfaceStatus".into(), J::from(status)),
        ("autoNegotiate".into(), J::from("off")),
        ("burnedInAddress".into(), J::from(p.mac.as_str())),
        ("loopbackMode".into(), J::from("loopbackNone")),
        (
            "interfaceStatistics".into(),
            obj! {
                "inBitsRate" => in_bits,
                "inPktsRate" => in_pkts,
                "outBitsRate" => out_bits,
                "updateInterval" => 300.0,
                "outPktsRate" => out_pkts,
            },
        ),
        (
            "mtu".into(),
            J::from(if p.management { 1500u32 } else { 9214 }),
        ),
        ("hardware".into(), J::from(p.hardware)),
        ("duplex".into(), J::from("duplexFull")),
        ("bandwidth".into(), J::from(p.bandwidth)),
        (
            "forwardingModel".into(),
            J::from(if p.management { "routed" } else { "dataLink" }),
        ),
        ("lineProtocolStatus".into(), J::from(protocol)),
    ];
    if p.hardware != "subinterface" {
        let detail = p.hardware == "ethernet";
        fields.push(("interfaceCounters".into(), counters(c, s, now, detail)));
    }
    let address = if p.management {
        J::arr([obj! {
            "primaryIp" => obj! { "address" => "192.0.2.11", "maskLen" => 24u32 },
            "secondaryIps" => J::obj(Vec::<(String, J)>::new()),
            "secondaryIpsOrderedList" => J::arr([]),
            "virtualIp" => obj! { "address" => "0.0.0.0", "maskLen" => 0u32 },
            "broadcastAddress" => "255.255.255.255",
            "dhcp" => false,
        }])
    } else {
        J::arr([])
    };
    fields.push(("interfaceAddress".into(), address));
    fields.push(("physicalAddress".into(), J::from(p.mac.as_str())));
    fields.push(("description".into(), J::from(p.description.as_str())));
    J::Obj(fields)
}

/// `interfaceCounters`; `detail`: the error details a physical port prints.
fn counters(c: &Counters, s: &EosState, now: f64, detail: bool) -> J {
    let new_keys = s.spec.release == Release::Eos43;
    let mut fields: Vec<(&str, J)> = vec![
        ("outBroadcastPkts", J::from(c.out_bcast)),
        ("outUcastPkts", J::from(c.out_ucast)),
    ];
    if new_keys {
        fields.push(("lastClear", J::from(s.booted)));
    }
    fields.extend([
        ("inMulticastPkts", J::from(c.in_mcast)),
        ("counterRefreshTime", J::from(now)),
        ("inBroadcastPkts", J::from(c.in_bcast)),
    ]);
    if detail {
        fields.push((
            "outputErrorsDetail",
            obj! {
                "deferredTransmissions" => 0u32,
                "txPause" => c.tx_pause,
                "collisions" => 0u32,
                "lateCollisions" => 0u32,
            },
        ));
    }
    fields.extend([
        ("inOctets", J::from(c.in_octets)),
        ("outDiscards", J::from(c.out_discards)),
        ("outOctets", J::from(c.out_octets)),
        ("inUcastPkts", J::from(c.in_ucast)),
    ]);
    if new_keys {
        fields.push(("inTotalPkts", J::from(c.in_ucast + c.in_mcast + c.in_bcast)));
    }
    if detail {
        fields.push((
            "inputErrorsDetail",
            obj! {
                "runtFrames" => c.runt_frames,
                "rxPause" => c.rx_pause,
                "fcsErrors" => c.fcs_errors,
                "alignmentErrors" => c.alignment_errors,
                "giantFrames" => c.giant_frames,
                "symbolErrors" => c.symbol_errors,
            },
        ));
    }
    fields.extend([
        ("linkStatusChanges", J::from(c.link_status_changes)),
        ("outMulticastPkts", J::from(c.out_mcast)),
        ("totalInErrors", J::from(c.total_in_errors())),
        ("inDiscards", J::from(c.in_discards)),
        ("totalOutErrors", J::from(c.out_errors)),
    ]);
    J::obj(fields)
}

/// `show interfaces counters errors | json` (revision 1): ports and port-channels (a
/// subinterface counts nothing of its own).
pub fn counters_errors_json(s: &EosState, now: f64) -> String {
    let all = ports(s, now)
        .into_iter()
        .filter(|p| p.hardware != "subinterface");
    let rows = all.map(|p| {
        let c = &p.counters;
        (
            p.name,
            obj! {
                "inErrors" => c.total_in_errors(),
                "frameTooLongs" => c.giant_frames,
                "outErrors" => c.out_errors,
                "frameTooShorts" => c.runt_frames,
                "fcsErrors" => c.fcs_errors,
                "alignmentErrors" => c.alignment_errors,
                "symbolErrors" => c.symbol_errors,
            },
        )
    });
    J::obj([("interfaceErrorCounters", J::obj(rows))]).render()
}

/// `show interfaces counters queue drops | json`: eight traffic classes per data port, VOQ
/// (ingress) and egress drop sums, as on 7280R3-class switches.
pub fn queue_drops_json(s: &EosState, now: f64) -> String {
    let rows = ports(s, now).into_iter().filter(Port::physical).map(|p| {
        let classes = (0..8).map(|tc| {
            let voq = if tc == 0 { p.voq_drops_tc0 } else { 0 };
            (
                format!("TC{tc}"),
                obj! {
                    "ingressVoqCounters" => obj! {
                        "countersSum" => obj! { "droppedPackets" => voq },
                    },
                    "egressQueueCounters" => obj! {
                        "countersSum" => obj! { "droppedPackets" => 0u32 },
                    },
                },
            )
        });
        (p.name, obj! { "trafficClasses" => J::obj(classes) })
    });
    J::obj([("interfaces", J::obj(rows))]).render()
}

/// `show interfaces counters queue detail | json` on a Trident switch: unicast and multicast
/// egress queues per traffic class, drop precedence 0 (ANTA's data shape). The feed's bursts
/// are multicast: a burst's drops land in Ethernet4's multicast TC0.
pub fn queue_detail_json(s: &EosState, now: f64) -> String {
    let queues = |dropped: u64| {
        let classes = (0..8).map(|tc| {
            let n = if tc == 0 { dropped } else { 0 };
            (
                format!("TC{tc}"),
                obj! {
                    "dropPrecedences" => obj! {
                        "DP0" => obj! { "enqueuedPackets" => 0u32, "droppedPackets" => n },
                    },
                },
            )
        });
        obj! { "trafficClasses" => J::obj(classes) }
    };
    let rows = ports(s, now).into_iter().filter(Port::physical).map(|p| {
        (
            p.name,
            obj! {
                "ucastQueues" => queues(0),
                "mcastQueues" => queues(p.voq_drops_tc0),
            },
        )
    });
    obj! { "egressQueueCounters" => obj! { "interfaces" => J::obj(rows) } }.render()
}

/// `show interfaces counters discards | json` (every family; ANTA's data shape).
pub fn discards_json(s: &EosState, now: f64) -> String {
    let all = ports(s, now);
    let total = |f: fn(&Port) -> u64| all.iter().map(f).sum::<u64>();
    let rows = all
        .iter()
        .filter(|p| p.hardware != "subinterface")
        .map(|p| {
            (
                p.name.clone(),
                obj! {
                    "outDiscards" => p.counters.out_discards,
                    "inDiscards" => p.counters.in_discards,
                },
            )
        });
    obj! {
        "inDiscardsTotal" => total(|p| p.counters.in_discards),
        "interfaces" => J::obj(rows),
        "outDiscardsTotal" => total(|p| p.counters.out_discards),
    }
    .render()
}

/// One DOM parameter with its four thresholds (milliwatt-derived for powers).
fn parameter(unit: &str, channel: &str, value: f64, high: (f64, f64), low: (f64, f64)) -> J {
    obj! {
        "unit" => unit,
        "channels" => J::obj([(channel, J::from(value))]),
        "threshold" => obj! {
            "highAlarm" => high.0,
            "highAlarmOverridden" => false,
            "highWarn" => high.1,
            "highWarnOverridden" => false,
            "lowAlarm" => low.0,
            "lowAlarmOverridden" => false,
            "lowWarn" => low.1,
            "lowWarnOverridden" => false,
        },
    }
}

/// Thresholds of a 10GBASE-SR SFP+ (SFF-8472 style, set by the vendor in mW / degrees / V /
/// mA). The `highAlarm`/`highWarn` key names are inferred by symmetry with the low ones.
fn optic_parameters(o: &Optic) -> J {
    // Temperature and voltage are module-wide (channel `-`); power and bias are per lane, and
    // an SFP+ has lane 1 only (inferred: ANTA's data shows `-` and lane numbers 1-4).
    obj! {
        "temperature" => parameter("C", "-", o.temperature_c, (75.0, 70.0), (-5.0, 0.0)),
        "voltage" => parameter("V", "-", o.voltage_v, (3.63, 3.465), (2.97, 3.135)),
        "txBias" => parameter("mA", "1", o.bias_ma, (12.0, 11.5), (2.0, 3.0)),
        "txPower" => parameter("dBm", "1", o.tx_dbm, (dbm(1.5849), dbm(1.2589)), (dbm(0.0741), dbm(0.1862))),
        "rxPower" => parameter("dBm", "1", o.rx_dbm, (dbm(1.5849), dbm(1.2589)), (dbm(0.0562), dbm(0.1122))),
    }
}

/// `show interfaces transceiver dom thresholds | json` (revision 1): ports with a module that
/// reports DOM have `parameters`; empty cages only their `displayName`.
pub fn dom_thresholds_json(s: &EosState, now: f64) -> String {
    let rows = ports(s, now).into_iter().filter(Port::physical).map(|p| {
        let row = match &p.optic {
            Some(o) => obj! {
                "displayName" => p.name.as_str(),
                "vendorSn" => o.serial.as_str(),
                "mediaType" => o.media,
                "parameters" => optic_parameters(o),
            },
            None => obj! { "displayName" => p.name.as_str() },
        };
        (p.name, row)
    });
    J::obj([("interfaces", J::obj(rows))]).render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::{Fault, Faults};
    use super::*;

    fn value(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn outputs_agree_with_the_model() {
        let s = EosState::new("sw1", 1, &Faults::only(Fault::CrcErrors));
        let now = s.started + 2.0;
        let v = value(&interfaces_json(&s, now));
        let et3 = &v["interfaces"]["Ethernet3"];
        assert_eq!(et3["interfaceStatus"], "connected");
        assert_eq!(et3["bandwidth"], 10_000_000_000u64);
        assert_eq!(
            et3["interfaceCounters"]["inputErrorsDetail"]["fcsErrors"],
            1843
        );
        assert_eq!(et3["interfaceCounters"]["totalInErrors"], 1843);
        assert_eq!(v["interfaces"]["Ethernet5"]["lineProtocolStatus"], "down");
        assert!(interfaces_json(&s, now).contains("\n        \"Ethernet1\": {\n"));
        let e = value(&counters_errors_json(&s, now));
        assert_eq!(e["interfaceErrorCounters"]["Ethernet1"]["fcsErrors"], 3);
        let q = value(&queue_drops_json(&s, now));
        assert_eq!(
            q["interfaces"]["Ethernet4"]["trafficClasses"]["TC0"]["ingressVoqCounters"]["countersSum"]
                ["droppedPackets"],
            57
        );
        let d = value(&dom_thresholds_json(&s, now));
        let rx = &d["interfaces"]["Ethernet2"]["parameters"]["rxPower"];
        assert!((rx["threshold"]["lowAlarm"].as_f64().unwrap() + 12.5).abs() < 0.01);
        assert!((rx["threshold"]["lowWarn"].as_f64().unwrap() + 9.5).abs() < 0.01);
        assert!((rx["channels"]["1"].as_f64().unwrap() + 2.4).abs() < 0.1);
        assert_eq!(
            d["interfaces"]["Ethernet6"],
            serde_json::json!({"displayName": "Ethernet6"})
        );
    }
}
