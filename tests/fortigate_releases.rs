//! Every command premarket sends to a FortiGate, as FortiOS 6.4, 7.0, 7.4 and 7.6 print it
//! (issue 18: a floor runs all four). Fixtures are modelled on public outputs of each release
//! where one exists: `get system status` gains `Last reboot reason` in 7.0 and `First GA patch
//! build date`/`Security Level` lines in 7.4; `get system interface` separates fields with
//! several spaces (and trailing ones) up to 7.0, one from 7.4; `get system ha status` says
//! `Group: 12` on 6.4 and `Group Name:`/`Group ID:` from 7.4, with health messages under `HA
//! Health Status:` from 7.0; `get system performance status` has no `Maximal` lines on 6.4;
//! VLANs in `show system interface` print `set type vlan` on 6.4 and often not on 7.x; the NP
//! port list depends on the NP generation of the box that runs the release (NP6 on a 600E
//! with 6.4/7.0, NP7 on a 601F/400G with 7.4, NP7Lite on the lab's 201G with 7.6). Where no
//! release difference is known, the same shape is read for each release. Both shapes of a
//! field read to the same facts.

use crate::parse_support;

use parse_support::Want::{Error, Facts};
use parse_support::{PARSERS, Want, check_rows, v};
use premarket::Platform;

const ALL: &[&str] = &["6.4", "7.0", "7.4", "7.6"];

/// (releases, command, fixture, what it must read as).
const ROWS: &[(&[&str], &str, &str, Want)] = &[
    (
        &["6.4"],
        "get system status",
        "v64-600e-no-reboot-reason.txt",
        Facts(&[
            ("/model", v!("FortiGate-600E")),
            ("/version", v!("6.4.14")),
            ("/last_reboot_reason", v!(null)),
        ]),
    ),
    (
        &["7.0"],
        "get system status",
        "v70-600e-reboot-reason.txt",
        Facts(&[
            ("/version", v!("7.0.15")),
            ("/last_reboot_reason", v!("warm reboot")),
        ]),
    ),
    (
        &["7.4"],
        "get system status",
        "v74-601f-security-level.txt",
        Facts(&[
            ("/model", v!("FortiGate-601F")),
            ("/version", v!("7.4.8")),
            ("/ha_mode", v!("standalone")),
        ]),
    ),
    (
        &["7.6"],
        "get system status",
        "v767-standalone.txt",
        Facts(&[("/model", v!("FortiGate-201G")), ("/version", v!("7.6.7"))]),
    ),
    (
        &["6.4"],
        "get system performance status",
        "v64-no-maximal-lines.txt",
        Facts(&[
            ("/memory_used_percent", v!(32.5)),
            ("/average_setup_rate", v!(1)),
            ("/average_npu_sessions", v!(null)),
        ]),
    ),
    (
        &["7.0", "7.4", "7.6"],
        "get system performance status",
        "idle.txt",
        Facts(&[("/memory_used_percent", v!(31.0))]),
    ),
    (
        &["6.4"],
        "get system ha status",
        "v64-ap-primary-secondary.txt",
        Facts(&[
            ("/mode", v!("a-p")),
            ("/group", v!("12")),
            ("/members/1/role", v!("secondary")),
        ]),
    ),
    (
        &["7.0"],
        "get system ha status",
        "v70-hbdev-down.txt",
        Facts(&[(
            "/health_messages/0",
            v!("WARNING: FG201GTK24000817 has hbdev down;"),
        )]),
    ),
    (
        &["7.4"],
        "get system ha status",
        "v74-group-name-hbdev-warning.txt",
        Facts(&[
            ("/group", v!("md-cluster")),
            ("/members/0/role", v!("primary")),
        ]),
    ),
    (
        &["7.6"],
        "get system ha status",
        "v76-standalone-inferred.txt",
        Facts(&[("/health", v!("OK"))]),
    ),
    (
        ALL,
        "get system global",
        "default.txt",
        Facts(&[("/settings/udp-idle-timer", v!("180"))]),
    ),
    (
        &["6.4"],
        "diagnose sys session stat",
        "old-build-no-npu.txt",
        Facts(&[("/session_count", v!(30)), ("/npu_session_count", v!(null))]),
    ),
    (
        &["7.0", "7.4", "7.6"],
        "diagnose sys session stat",
        "healthy.txt",
        Facts(&[("/npu_session_count", v!(2))]),
    ),
    (
        ALL,
        "diagnose sys session filter",
        "md-unicast.txt",
        Facts(&[("/keys/dest port", v!("5000"))]),
    ),
    (
        ALL,
        "diagnose sys session list",
        "md-unicast-offloaded.txt",
        Facts(&[("/first/0/dport", v!(5000))]),
    ),
    (
        ALL,
        "diagnose sys mcast-session list",
        "md-multicast-offloaded.txt",
        Facts(&[("/sessions/0/group", v!("239.1.1.1"))]),
    ),
    (
        ALL,
        "show firewall policy 1",
        "policy1-offload.txt",
        Facts(&[("/policy/auto_asic_offload", v!(true))]),
    ),
    (
        ALL,
        "show firewall multicast-policy 1",
        "policy1-offload.txt",
        Facts(&[("/policy/srcintf/0", v!("x1"))]),
    ),
    (
        ALL,
        "show firewall service custom",
        "md-udp-600.txt",
        Facts(&[("/service/udp_idle_timer_s", v!(600))]),
    ),
    (
        ALL,
        "show system npu",
        "default.txt",
        Facts(&[("/max_session_timeout_s", v!(40))]),
    ),
    (
        ALL,
        "show system session-ttl",
        "default.txt",
        Facts(&[("/default", v!(3600))]),
    ),
    // 6.4 and 7.0 separate fields with several spaces, 7.4 and 7.6 with one.
    (
        &["6.4"],
        "get system interface",
        "v64-vlan-on-x1.txt",
        Facts(&[
            ("/interfaces/md-feed-a/type", v!("vlan")),
            ("/interfaces/md-feed-a/sflow_sampler", v!(false)),
        ]),
    ),
    (
        &["6.4"],
        "get system interface",
        "v64-hardswitch-short-records.txt",
        Facts(&[
            ("/interfaces/port1/status", v!("up")),
            ("/interfaces/port1/sflow_sampler", v!(null)),
        ]),
    ),
    (
        &["7.0"],
        "get system interface",
        "v70-wide-spacing.txt",
        Facts(&[("/interfaces/x1/sflow_sampler", v!(false))]),
    ),
    (
        &["7.4"],
        "get system interface",
        "v74-vlan-on-aggregate.txt",
        Facts(&[("/interfaces/md-lag/type", v!("aggregate"))]),
    ),
    (
        &["7.6"],
        "get system interface",
        "healthy.txt",
        Facts(&[("/interfaces/x1/sflow_sampler", v!(false))]),
    ),
    // A VLAN with `set type vlan` (6.4) and without it (7.x): both have a parent and an id.
    (
        &["6.4", "7.0"],
        "show system interface",
        "v64-vlan-with-type-on-x1.txt",
        Facts(&[
            (
                "/root/children/system interface/children/md-feed-a/settings/interface/0",
                v!("x1"),
            ),
            (
                "/root/children/system interface/children/md-feed-a/settings/vlanid/0",
                v!("310"),
            ),
        ]),
    ),
    (
        &["7.4", "7.6"],
        "show system interface",
        "v76-vlan-no-type-on-aggregate.txt",
        Facts(&[
            (
                "/root/children/system interface/children/md-feed-a/settings/interface/0",
                v!("md-lag"),
            ),
            (
                "/root/children/system interface/children/md-feed-a/settings/type",
                v!(null),
            ),
            (
                "/root/children/system interface/children/md-lag/settings/member",
                v!(["port3", "port4"]),
            ),
        ]),
    ),
    (
        ALL,
        "show system virtual-switch",
        "lan-port1-port2.txt",
        Facts(&[(
            "/root/children/system virtual-switch/children/lan/children/port/children/port2",
            v!({}),
        )]),
    ),
    (
        ALL,
        "show system virtual-switch",
        "not-on-this-model.txt",
        Error(&["command parse error before 'virtual-switch'"]),
    ),
    // The NP port lists, by the generation of the box running the release.
    (
        &["6.4", "7.0"],
        "diagnose npu np6 port-list",
        "600e-two-chips.txt",
        Facts(&[
            ("/ports/port17/np_group", v!("np6_0")),
            ("/ports/port17/max_speed_mbps", v!(10_000)),
            ("/ports/x2/np_group", v!("np6_1")),
            ("/ports/x2/max_speed_mbps", v!(25_000)),
            ("/ports/x2/cross_chip", v!(true)),
        ]),
    ),
    (
        &["6.4", "7.0"],
        "diagnose npu np6 port-list",
        "200e-np6lite-inferred.txt",
        Facts(&[
            ("/ports/port9/np_group", v!("np6lite_0")),
            ("/ports/wan2/np_group", v!("np6lite_1")),
            ("/ports/wan2/cross_chip", v!(false)),
        ]),
    ),
    (
        &["6.4", "7.0"],
        "diagnose npu np6 port-list",
        "damaged-speed.txt",
        Error(&["speed", "10Q"]),
    ),
    (
        &["7.4", "7.6"],
        "diagnose npu np7 port-list",
        "601f-np-group.txt",
        Facts(&[
            ("/ports/x5/np_group", v!("NP#0-link1")),
            ("/ports/x1/max_speed_mbps", v!(10_000)),
            ("/ports/np0_0", v!(null)),
        ]),
    ),
    // 400G-class: no NP_group column.
    (
        &["7.4", "7.6"],
        "diagnose npu np7 port-list",
        "400g-no-np-group.txt",
        Facts(&[
            ("/ports/x5/np_group", v!("front panel")),
            ("/ports/x5/max_speed_mbps", v!(25_000)),
        ]),
    ),
    (
        &["7.4", "7.6"],
        "diagnose npu np7lite port-list",
        "healthy-inferred.txt",
        Facts(&[("/ports/x1/np_group", v!("NP#0"))]),
    ),
    (
        &["6.4"],
        "diagnose sys ntp status",
        "v64-two-servers-one-selected.txt",
        Facts(&[
            ("/servers/0/selected", v!(true)),
            ("/servers/1/offset_s", v!(0.002118)),
        ]),
    ),
    (
        &["7.0"],
        "diagnose sys ntp status",
        "v70-one-server-offset.txt",
        Facts(&[("/servers/0/offset_s", v!(0.575402))]),
    ),
    (
        &["7.4", "7.6"],
        "diagnose sys ntp status",
        "synchronized.txt",
        Facts(&[("/synchronized", v!(true))]),
    ),
    // 6.x: one server, no `selected` mark (a 2020 capture's shape).
    (
        &["6.4"],
        "diagnose sys ntp status",
        "v6x-one-server-no-selected.txt",
        Facts(&[
            ("/servers/0/selected", v!(false)),
            ("/servers/0/reachable", v!(true)),
            ("/servers/0/stratum", v!(2)),
            ("/servers/0/offset_s", v!(0.000957)),
        ]),
    ),
    // The NIC layouts: a 6.4.5 KVM (kernel driver), the 7.0.11 guide's 10G port with 3 old
    // errors, the 7.4 guide's NP6 counters (header elided), the 7.6 lab shapes (NP7Lite
    // inferred as the kernel layout, the 100F's NP6XLite layout).
    (
        &["6.4"],
        "diagnose hardware deviceinfo nic x1",
        "port1-v645-vm-linux.txt",
        Facts(&[
            ("/layout", v!("linux")),
            ("/link_up", v!(true)),
            ("/speed_mbps", v!(1000)),
            ("/counters/Rx Crc err", v!(0)),
        ]),
    ),
    (
        &["7.0"],
        "diagnose hardware deviceinfo nic x1",
        "port1-v70-doc-vm-rx-errors.txt",
        Facts(&[
            ("/speed_mbps", v!(10_000)),
            ("/counters/Rx errors", v!(3)),
            ("/counters/Rx dropped", v!(3)),
            ("/rx_packets", v!(48_758_040_u64)),
        ]),
    ),
    (
        &["7.4"],
        "diagnose hardware deviceinfo nic x1",
        "x1-np6-doc-counters-only.txt",
        Facts(&[
            ("/layout", v!("np")),
            ("/link_up", v!(null)),
            ("/counters/Host Rx dropped", v!(0)),
        ]),
    ),
    (
        &["7.6"],
        "diagnose hardware deviceinfo nic x1",
        "x1-np6xlite-healthy.txt",
        Facts(&[
            ("/layout", v!("np")),
            ("/link_up", v!(true)),
            ("/duplex", v!("full")),
            ("/counters/FragTxDrop", v!(0)),
        ]),
    ),
    (
        &["7.6"],
        "diagnose hardware deviceinfo nic x1",
        "x1-v76-healthy.txt",
        Facts(&[("/layout", v!("linux")), ("/counters/Rx errors", v!(3))]),
    ),
    (
        &["6.4"],
        "get router info bgp summary",
        "v64-two-peers-established.txt",
        Facts(&[
            ("/peers/0/vrf", v!(null)),
            ("/peers/0/prefixes", v!(12)),
            ("/peers/1/up/s", v!(41 * 86_400 + 21 * 3_600)),
        ]),
    ),
    (
        &["6.4"],
        "get router info bgp summary",
        "v64-four-byte-as-wrapped.txt",
        Facts(&[("/peers/1/remote_as", v!("4200000020"))]),
    ),
    (
        &["7.0", "7.4", "7.6"],
        "get router info bgp summary",
        "v76-two-peers-established.txt",
        Facts(&[("/peers/0/vrf", v!(0)), ("/local_as", v!("65001"))]),
    ),
    (
        &["7.0", "7.4", "7.6"],
        "get router info bgp summary",
        "v76-exchange-never-active.txt",
        Facts(&[
            ("/peers/0/state", v!("Active")),
            ("/peers/0/up", v!(null)),
            ("/peers/0/prefixes", v!(null)),
        ]),
    ),
    (
        &["6.4"],
        "diagnose sys ha checksum cluster",
        "v64-master-wording.txt",
        Facts(&[
            ("/members/0/primary", v!(true)),
            ("/members/1/checksum/1/table", v!("root")),
        ]),
    ),
    (
        &["7.0", "7.4", "7.6"],
        "diagnose sys ha checksum cluster",
        "ap-root-and-all-differ.txt",
        Facts(&[
            ("/members/1/serial", v!("FG201GTK24000818")),
            ("/members/1/primary", v!(false)),
        ]),
    ),
    (
        ALL,
        "diagnose npu np6xlite npu-feature",
        "np6xlite-100f-default.txt",
        Facts(&[
            ("/chips", v!(["np_0"])),
            ("/features/Fastpath", v!(["Enabled"])),
        ]),
    ),
    (
        &["6.4", "7.0"],
        "diagnose npu np6lite npu-feature",
        "np6lite-200e-two-chips.txt",
        Facts(&[("/features/Fastpath", v!(["Enabled", "Enabled"]))]),
    ),
    (
        ALL,
        "show system np6xlite",
        "100f-default.txt",
        Facts(&[("/chips/np6xlite_0", v!({}))]),
    ),
];

/// Commands a release line never runs on the box that has them: the 200G/201G (NP7Lite)
/// shipped with FortiOS 7.4; NP6 boxes are not supported past 7.0 in this fleet's table.
const NOT_ON: &[(&str, &[&str])] = &[
    ("diagnose npu np7lite port-list", &["6.4", "7.0"]),
    ("diagnose npu np7 port-list", &["6.4", "7.0"]),
    ("diagnose npu np6 port-list", &["7.4", "7.6"]),
    ("diagnose npu np6lite npu-feature", &["7.4", "7.6"]),
];

#[test]
fn every_release_reads_to_the_facts_the_checks_use() {
    let rows: Vec<(&str, &str, Want)> = ROWS
        .iter()
        .map(|(_, command, file, want)| (*command, *file, *want))
        .collect();
    check_rows(&rows);
}

/// Every FortiGate command premarket sends has a row for each release line (but the NP port
/// lists on release lines their boxes do not run).
#[test]
fn every_command_has_every_release() {
    for p in PARSERS.iter().filter(|p| p.platform == Platform::Fortigate) {
        for release in ALL {
            let exempt = NOT_ON
                .iter()
                .any(|(c, rs)| *c == p.command && rs.contains(release));
            assert!(
                exempt
                    || ROWS
                        .iter()
                        .any(|(rs, c, ..)| rs.contains(release) && *c == p.command),
                "{}: no {release} fixture",
                p.command
            );
        }
    }
}
