//! The EOS parsers of the trading checks against fixtures written from real formats: the fact
//! values a check reads (by JSON pointer into the fact, as `premarket parse` prints it), the
//! errors that must come instead of a fact, the JSON keys that are the contract, and that every
//! fact reads back from its JSON unchanged.

use crate::parse_support;

use parse_support::Want::{Error, Facts};
use parse_support::{PARSERS, Want, check_keys, check_rows, parser, v};
use premarket::Platform;

const ROWS: &[(&str, &str, Want)] = &[
    (
        "show interfaces | json",
        "healthy.txt",
        Facts(&[
            ("/interfaces/Ethernet1/interface_status", v!("connected")),
            ("/interfaces/Ethernet1/line_protocol_status", v!("up")),
            ("/interfaces/Ethernet1/bandwidth_bps", v!(10_000_000_000u64)),
            ("/interfaces/Ethernet1/counters/fcs_errors", v!(3)),
            ("/interfaces/Ethernet1/counters/link_status_changes", v!(3)),
            ("/interfaces/Ethernet3/counters/total_in_errors", v!(0)),
            ("/interfaces/Ethernet5/interface_status", v!("notconnect")),
            ("/interfaces/Port-Channel10/counters/fcs_errors", v!(null)),
            ("/interfaces/Vlan100/counters", v!(null)),
        ]),
    ),
    (
        "show interfaces | json",
        "crc-errors.txt",
        Facts(&[
            ("/interfaces/Ethernet3/counters/fcs_errors", v!(1843)),
            ("/interfaces/Ethernet3/counters/total_in_errors", v!(1843)),
            ("/interfaces/Ethernet3/counters/link_status_changes", v!(3)),
        ]),
    ),
    // A cut port's counters are its own problem (the check judging it says so), never the
    // whole document's.
    (
        "show interfaces | json",
        "ethernet-without-counters.txt",
        Facts(&[
            ("/interfaces/Ethernet1/counters/total_in_errors", v!(3)),
            ("/interfaces/Ethernet2/counters/total_in_errors", v!(null)),
            ("/interfaces/Ethernet2/counters/fcs_errors", v!(0)),
        ]),
    ),
    (
        "show interfaces | json",
        "invalid-input.txt",
        Error(&["Invalid input"]),
    ),
    (
        "show interfaces counters errors | json",
        "healthy.txt",
        Facts(&[
            ("/interfaces/Ethernet1/fcs_errors", v!(3)),
            ("/interfaces/Ethernet3/in_errors", v!(0)),
        ]),
    ),
    (
        "show interfaces counters errors | json",
        "crc-errors.txt",
        Facts(&[("/interfaces/Ethernet3/fcs_errors", v!(1843))]),
    ),
    (
        "show ptp | json",
        "locked-rev2.txt",
        Facts(&[
            ("/mode", v!("ptpBoundaryClock")),
            ("/revision", v!(2)),
            ("/clock/gm_clock_identity", v!("0xec:46:70:ff:fe:00:ff:a8")),
            ("/clock/slave_port", v!("Ethernet1")),
            ("/clock/offset_from_master_ns", v!(-11)),
            ("/clock/last_sync_time_s", v!(1_796_025_160u64)),
            ("/clock/current_ptp_system_time_s", v!(1_796_025_161u64)),
            ("/ports/Ethernet1/0/port_state", v!("psSlave")),
        ]),
    ),
    (
        "show ptp | json",
        "locked-rev1-eapi.txt",
        Facts(&[
            ("/revision", v!(1)),
            ("/clock/gm_clock_identity", v!("0xec:46:70:ff:fe:00:ff:a8")),
            ("/ports/Ethernet1/0/port_state", v!("psSlave")),
            ("/ports/Ethernet1/0/vlan_id", v!(null)),
        ]),
    ),
    (
        "show ptp | json",
        "unlocked-own-gm.txt",
        Facts(&[
            ("/clock/gm_clock_identity", v!("0x00:1c:73:ff:ff:0a:00:01")),
            ("/clock/clock_identity", v!("0x00:1c:73:ff:ff:0a:00:01")),
            ("/clock/number_of_slave_ports", v!(0)),
            ("/clock/steps_removed", v!(0)),
            ("/clock/last_sync_time_s", v!(1_796_025_004u64)),
        ]),
    ),
    (
        "show ptp | json",
        "disabled.txt",
        Facts(&[("/mode", v!("ptpDisabled")), ("/clock", v!(null))]),
    ),
    (
        "show ip igmp snooping | json",
        "healthy.txt",
        Facts(&[
            ("/enabled", v!(true)),
            ("/vlans/100/enabled", v!(true)),
            ("/vlans/100/flooding_traffic", v!(false)),
        ]),
    ),
    (
        "show ip igmp snooping | json",
        "flooding.txt",
        Facts(&[("/vlans/100/flooding_traffic", v!(true))]),
    ),
    (
        "show ip igmp snooping querier | json",
        "healthy.txt",
        Facts(&[
            ("/vlans/100/address", v!("10.100.0.1")),
            ("/vlans/100/interface", v!("Ethernet1")),
        ]),
    ),
    (
        "show ip igmp snooping querier | json",
        "no-querier.txt",
        Facts(&[("/vlans", v!({}))]),
    ),
    (
        "show ip igmp snooping groups | json",
        "healthy.txt",
        Facts(&[("/vlans/100/239.1.1.1", v!(["Ethernet4"]))]),
    ),
    (
        "show ip igmp snooping groups | json",
        "no-querier.txt",
        Facts(&[("/vlans", v!({}))]),
    ),
    (
        "show queue-monitor length | json",
        "healthy.txt",
        Facts(&[
            ("/lanz_enabled", v!(true)),
            ("/records/0/interface", v!("Ethernet2")),
            ("/records/0/queue_length_bytes", v!(5120)),
        ]),
    ),
    (
        "show queue-monitor length | json",
        "microburst.txt",
        Facts(&[
            ("/records/0/interface", v!("Ethernet4")),
            ("/records/0/traffic_class", v!(0)),
            ("/records/0/queue_length_bytes", v!(3_145_728)),
            ("/records/0/entry_time_us", v!(1_796_025_157_218_734u64)),
            ("/records/0/duration_us", v!(1840)),
        ]),
    ),
    (
        "show interfaces counters queue drops | json",
        "healthy.txt",
        Facts(&[
            (
                "/interfaces/Ethernet4/TC0/ingress_voq_dropped_packets",
                v!(57),
            ),
            (
                "/interfaces/Ethernet4/TC0/egress_queue_dropped_packets",
                v!(0),
            ),
        ]),
    ),
    (
        "show interfaces counters queue drops | json",
        "microburst.txt",
        Facts(&[(
            "/interfaces/Ethernet4/TC0/ingress_voq_dropped_packets",
            v!(1260),
        )]),
    ),
    (
        "show version | json",
        "json-4.32.2F-up-12-days.txt",
        Facts(&[
            ("/version", v!("4.32.2F")),
            ("/uptime_s", v!(1_048_020)),
            ("/bootup_timestamp_s", v!(1_794_977_141u64)),
        ]),
    ),
    (
        "show version | json",
        "json-4.32.2F-rebooted.txt",
        Facts(&[("/uptime_s", v!(35))]),
    ),
    (
        "show reload cause | json",
        "json-user.txt",
        Facts(&[("/causes/0/description", v!("Reload requested by the user."))]),
    ),
    (
        "show reload cause | json",
        "json-power-loss.txt",
        Facts(&[
            (
                "/causes/0/description",
                v!("The system rebooted due to a Power Loss"),
            ),
            ("/causes/0/timestamp_s", v!(1_796_025_086u64)),
        ]),
    ),
    (
        "show reload cause | json",
        "text-power-loss.txt",
        Facts(&[
            (
                "/causes/0/description",
                v!("The system rebooted due to a Power Loss"),
            ),
            (
                "/causes/0/occurred",
                v!("Reload occurred at Mon Nov 30 08:11:26 2026 UTC."),
            ),
        ]),
    ),
    (
        "show reload cause | json",
        "json-none.txt",
        Facts(&[("/causes", v!([]))]),
    ),
    (
        "show interfaces transceiver dom thresholds | json",
        "healthy.txt",
        Facts(&[
            ("/interfaces/Ethernet3/media_type", v!("10GBASE-SR")),
            ("/interfaces/Ethernet3/rx_power/low_alarm_dbm", v!(-12.5026)),
            ("/interfaces/Ethernet3/rx_power/low_warn_dbm", v!(-9.5001)),
            ("/interfaces/Ethernet3/rx_power/high_warn_dbm", v!(0.9999)),
            ("/interfaces/Ethernet3/tx_power/lanes_dbm/1", v!(-2.1865)),
            ("/interfaces/Ethernet5/rx_power", v!(null)),
        ]),
    ),
    (
        "show interfaces transceiver dom thresholds | json",
        "low-light.txt",
        Facts(&[("/interfaces/Ethernet3/rx_power/lanes_dbm/1", v!(-11.2))]),
    ),
    (
        "show ntp status",
        "synchronised.txt",
        Facts(&[
            ("/synchronised", v!(true)),
            ("/server", v!("10.0.0.1")),
            ("/stratum", v!(2)),
        ]),
    ),
    (
        "show ntp status",
        "unsynchronised.txt",
        Facts(&[("/synchronised", v!(false)), ("/disabled", v!(false))]),
    ),
    (
        "show ntp status",
        "disabled.txt",
        Facts(&[("/synchronised", v!(false)), ("/disabled", v!(true))]),
    ),
    (
        "show ntp status",
        "wrong-command.txt",
        Error(&["not an NTP status line"]),
    ),
    (
        "show ntp associations | json",
        "healthy.txt",
        Facts(&[
            ("/peers/10.0.0.1/condition", v!("sys.peer")),
            ("/peers/10.0.0.1/stratum", v!(2)),
            ("/peers/10.0.0.1/offset_ms", v!(0.012)),
            ("/peers/10.0.0.2/condition", v!("candidate")),
        ]),
    ),
    (
        "show ntp associations | json",
        "unsynchronised.txt",
        Facts(&[("/peers/10.0.0.1/condition", v!("reject"))]),
    ),
];

/// The drop sources of families without VOQ counters (issue 18).
const DROP_SOURCES: &[(&str, &str, Want)] = &[
    (
        "show interfaces counters queue detail | json",
        "microburst-7050x.txt",
        Facts(&[
            ("/interfaces/Ethernet4/multicast", v!(1220)),
            ("/interfaces/Ethernet1/multicast", v!(0)),
        ]),
    ),
    (
        "show interfaces counters discards | json",
        "healthy.txt",
        Facts(&[
            ("/interfaces/Ethernet4/out_discards", v!(31)),
            ("/interfaces/Ethernet4/in_discards", v!(0)),
        ]),
    ),
    (
        "show interfaces counters discards | json",
        "unavailable-hardware-platform.txt",
        Error(&["% Unavailable command"]),
    ),
];

#[test]
fn fixtures_give_the_facts_checks_read() {
    check_rows(DROP_SOURCES);
    check_rows(ROWS);
}

#[test]
fn every_fixture_is_covered_and_every_fact_round_trips() {
    for p in PARSERS.iter().filter(|p| p.platform == Platform::Eos) {
        for (name, text) in p.fixtures() {
            if let Ok(parsed) = (p.parse)(&text) {
                assert!(
                    parsed.round_trips,
                    "{} {name}: the fact does not read back from {}",
                    p.command, parsed.json
                );
            }
        }
        if p.command.contains("| json") && p.command != "show version | json" {
            let listed = ROWS
                .iter()
                .chain(DROP_SOURCES)
                .chain(crate::eos_handoff_parse::ROWS)
                .filter(|(c, ..)| c == &p.command)
                .count();
            let new = !p.dir.ends_with("show-queue-monitor-length-status");
            assert!(!new || listed > 0, "{}: no fixture row", p.command);
        }
    }
}

/// The top-level keys of each new EOS fact, as `premarket parse` prints them (a contract for
/// the query registry and the README).
#[test]
fn fact_keys_are_the_contract() {
    let keys: &[(&str, &[&str])] = &[
        ("show interfaces | json", &["interfaces"]),
        ("show interfaces counters errors | json", &["interfaces"]),
        ("show ptp | json", &["mode", "clock", "ports", "revision"]),
        ("show ip igmp snooping | json", &["enabled", "vlans"]),
        ("show ip igmp snooping querier | json", &["vlans"]),
        ("show ip igmp snooping groups | json", &["vlans"]),
        (
            "show queue-monitor length | json",
            &["lanz_enabled", "report_time_us", "records"],
        ),
        (
            "show interfaces counters queue drops | json",
            &["interfaces"],
        ),
        (
            "show version | json",
            &[
                "version",
                "model",
                "serial",
                "uptime_s",
                "bootup_timestamp_s",
            ],
        ),
        ("show reload cause | json", &["causes"]),
        (
            "show interfaces transceiver dom thresholds | json",
            &["interfaces"],
        ),
        (
            "show ntp status",
            &[
                "synchronised",
                "disabled",
                "server",
                "stratum",
                "status_line",
            ],
        ),
        ("show ntp associations | json", &["peers"]),
    ];
    check_keys(keys);
    let ports =
        (parser("show interfaces | json").parse)(&parser("show interfaces | json").sample_text())
            .unwrap()
            .json;
    let et1 = ports.pointer("/interfaces/Ethernet1").unwrap();
    for key in [
        "interface_status",
        "line_protocol_status",
        "bandwidth_bps",
        "counters",
    ] {
        assert!(et1.get(key).is_some(), "{key}");
    }
    for key in [
        "link_status_changes",
        "total_in_errors",
        "total_out_errors",
        "in_discards",
        "out_discards",
        "fcs_errors",
        "alignment_errors",
        "symbol_errors",
        "runt_frames",
        "giant_frames",
        "last_clear_s",
    ] {
        assert!(et1["counters"].get(key).is_some(), "{key}");
    }
}
