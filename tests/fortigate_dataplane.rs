//! The firewall's own data path (issue 35) over fixtures, run by [`crate::fortigate_checks`]'s
//! row runner: its trading ports' link and counters in both NIC layouts, its BGP sessions to
//! the hand-off (6.x and 7.x), the NP6 generation's chips and fast path, the tables an
//! out-of-sync cluster differs in, and NTP as 6.x prints it (no `selected` mark).

use crate::fortigate_checks::{Row, row};

use premarket::Status::{Error, Fail, Ok, Skip};

const PORTS: &str = "fortigate.ports.errors";
const BGP: &str = "fortigate.bgp.peers";
const BLOCK: &str = "fortigate.offload.blockers";
const HA: &str = "fortigate.ha.state";
const NIC1: &str = "nic-x1";
const SUMMARY: &str = "get-router-info-bgp-summary";
const SUMS: &str = "diagnose-sys-ha-checksum-cluster";
const STATUS: &str = "get-system-status";
const NP6: &str = "diagnose-npu-np6-port-list";
const FEATURE: &str = "diagnose-npu-npu-feature";
const NP6XLITE: &str = "show-system-np6xlite";

/// x1's counters an hour before: 3 old receive errors and drops (history).
const X1_BEFORE: &[(&str, &str)] = &[(
    NIC1,
    "diagnose-hardware-deviceinfo-nic/x1-v76-healthy-an-hour-before",
)];
/// The trading VLAN on an aggregate of port3 and port4, whose ports the list leaves out.
const VLAN_PORTS_LEFT_OUT: &[(&str, &str)] = &[(
    "trading_interfaces: [x1, x2]",
    "trading_interfaces: [md-feed-a, x2]\n  trading_ports: [x1, x2]",
)];
const AP: &[(&str, &str)] = &[("ha: { mode: standalone }", "ha: { mode: a-p, members: 2 }")];
const NO_PEERS: &[(&str, &str)] = &[(
    "  bgp_peers:\n    - peer: 10.20.0.1\n      name: exchange\n      remote_as: 65010\n      min_prefixes: 4\n      max_prefixes: 64\n    - peer: 10.20.0.5\n      name: broker\n      remote_as: 65020\n      min_prefixes: 1\n      max_prefixes: 16\n",
    "",
)];
const CARRIER: &[(&str, &str)] = &[(
    "  bgp_peers:\n",
    "  bgp_peers:\n    - peer: 10.20.0.9\n      name: carrier\n",
)];
const NP6LITE: &[(&str, &str)] = &[("  np: np7lite\n", "  np: np6lite\n")];
const NP6XLITE_ON: &[(&str, &str)] = &[("  np: np7lite\n", "  np: np6xlite\n")];
/// A FortiGate 200E: two NP6Lite chips that do not offload across each other.
const F200E: &[(&str, &str)] = &[
    (STATUS, "v70-200e"),
    (NP6, "200e-np6lite-x1-x2-one-chip"),
    (FEATURE, "np6lite-200e-two-chips"),
];
const F100F: &[(&str, &str)] = &[
    (STATUS, "v763-100f"),
    (NP6, "100f-np6xlite-inferred"),
    (FEATURE, "np6xlite-100f-default"),
    (NP6XLITE, "100f-default"),
];

fn with<const N: usize>(
    base: &'static [(&'static str, &'static str)],
    extra: [(&'static str, &'static str); N],
) -> &'static [(&'static str, &'static str)] {
    // Earlier entries win in the runner's lookup: the extra ones first.
    Box::leak(extra.into_iter().chain(base.iter().copied()).collect())
}

pub(crate) fn rows() -> Vec<Row> {
    let mut rows = port_rows();
    rows.extend(bgp_rows());
    rows.extend(np6_rows());
    rows.extend(ha_rows());
    rows
}

fn port_rows() -> Vec<Row> {
    vec![
        row(
            PORTS,
            &[],
            Ok,
            &[
                "all 2 trading ports as expected (x1: first run, counters recorded",
                "evidence:x1 (Linux layout, np7lite_eth): link up, admin up, 10000 Mbps full",
            ],
        ),
        // Old errors (3 on x1) are history: only growth counts.
        Row {
            previous: X1_BEFORE,
            ..row(
                PORTS,
                &[],
                Ok,
                &["all 2 trading ports as expected", "evidence:Rx errors=3"],
            )
        },
        Row {
            previous: X1_BEFORE,
            ..row(
                PORTS,
                &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-v76-crc-errors")],
                Fail,
                &["x1: +102307 Rx Crc err, +102307 Rx errors since the previous run"],
            )
        },
        Row {
            previous: X1_BEFORE,
            ..row(
                PORTS,
                &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-v76-after-reboot")],
                Ok,
                &["x1: counters restarted since the previous run"],
            )
        },
        row(
            PORTS,
            &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-v76-link-down")],
            Fail,
            &["x1: link down"],
        ),
        row(
            PORTS,
            &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-v76-at-1g")],
            Fail,
            &["x1: up at 1000 Mbps, the baseline says 10G"],
        ),
        // The NP layout: host drops are its only error or drop counters.
        Row {
            previous: &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-np6xlite-healthy")],
            ..row(
                PORTS,
                &[(
                    NIC1,
                    "diagnose-hardware-deviceinfo-nic/x1-np6xlite-host-drops",
                )],
                Fail,
                &["x1: +4211 Host Rx dropped since the previous run"],
            )
        },
        Row {
            previous: &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-np6xlite-healthy")],
            ..row(
                PORTS,
                &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-np6xlite-healthy")],
                Ok,
                &[
                    "all 2 trading ports as expected",
                    "evidence:x1 (NP layout, FortiASIC NP6XLITE Adapter): link up, admin up, 10000 Mbps full",
                ],
            )
        },
        row(
            PORTS,
            &[(
                NIC1,
                "diagnose-hardware-deviceinfo-nic/x1-np6-doc-counters-only",
            )],
            Error,
            &["x1: prints no link state"],
        ),
        row(
            PORTS,
            &[(NIC1, "diagnose-hardware-deviceinfo-nic/x9-no-such-port")],
            Error,
            &["x1: ", "command parse error before 'x9'"],
        ),
        row(
            PORTS,
            &[(NIC1, "diagnose-hardware-deviceinfo-nic/x1-damaged-twice")],
            Error,
            &["printed twice"],
        ),
        Row {
            baseline: VLAN_PORTS_LEFT_OUT,
            ..row(
                PORTS,
                &[("show-system-interface", "v76-vlan-no-type-on-aggregate")],
                Error,
                &["md-feed-a: its port(s) port3, port4 are not in `trading_ports`"],
            )
        },
    ]
}

const BGP_BEFORE: &[(&str, &str)] = &[(SUMMARY, "v76-two-peers-established")];

fn bgp_rows() -> Vec<Row> {
    vec![
        row(
            BGP,
            &[],
            Ok,
            &["all 2 BGP peers as expected (first run: resets are judged from the next run)"],
        ),
        Row {
            previous: BGP_BEFORE,
            ..row(
                BGP,
                &[(SUMMARY, "v64-two-peers-established")],
                Ok,
                &["all 2 BGP peers as expected"],
            )
        },
        row(
            BGP,
            &[(SUMMARY, "v64-four-byte-as-wrapped")],
            Fail,
            &["10.20.0.5 (broker): remote AS 4200000020, the baseline says 65020"],
        ),
        row(
            BGP,
            &[(SUMMARY, "v76-exchange-never-active")],
            Fail,
            &["10.20.0.1 (exchange): Active, not Established (Up/Down never)"],
        ),
        row(
            BGP,
            &[(SUMMARY, "v76-exchange-idle-admin")],
            Fail,
            &["10.20.0.1 (exchange): Idle (Admin), not Established"],
        ),
        row(
            BGP,
            &[(SUMMARY, "v76-exchange-no-prefixes")],
            Fail,
            &["Established with 0 prefixes received, the baseline wants at least 4"],
        ),
        row(
            BGP,
            &[(SUMMARY, "v76-exchange-full-table")],
            Fail,
            &["812004 prefixes received, the baseline allows at most 64"],
        ),
        Row {
            previous: BGP_BEFORE,
            ..row(
                BGP,
                &[(SUMMARY, "v76-exchange-reset-12-min-ago")],
                Fail,
                &[
                    "10.20.0.1 (exchange): reset since the previous run (20261130T081500.000, 60 min ago): up for 00:12:41 only",
                ],
            )
        },
        Row {
            previous: BGP_BEFORE,
            ..row(
                BGP,
                &[(SUMMARY, "v76-exchange-never-established")],
                Ok,
                &["Up/Down `never`, a reset since the previous run cannot be told"],
            )
        },
        Row {
            baseline: CARRIER,
            ..row(
                BGP,
                &[],
                Fail,
                &[
                    "10.20.0.9 (carrier): not in `get router info bgp summary`: no such neighbor configured",
                ],
            )
        },
        Row {
            baseline: NO_PEERS,
            ..row(
                BGP,
                &[],
                Skip,
                &["the baseline lists no BGP peer (`bgp_peers`)"],
            )
        },
        row(
            BGP,
            &[(SUMMARY, "v76-count-disagrees")],
            Error,
            &["`Total number of neighbors` says 3, the table lists 2"],
        ),
        row(
            BGP,
            &[(SUMMARY, "unknown-action")],
            Error,
            &["Unknown action"],
        ),
    ]
}

fn np6_rows() -> Vec<Row> {
    vec![
        Row {
            baseline: NP6LITE,
            ..row(
                BLOCK,
                F200E,
                Ok,
                &[
                    "evidence:NP chips of the trading ports: x1 np6lite_1, x2 np6lite_1",
                    "evidence:Fastpath np_0 Enabled, np_1 Enabled",
                ],
            )
        },
        // The 200E: in on one NP6Lite chip, out on the other.
        Row {
            baseline: NP6LITE,
            ..row(
                BLOCK,
                with(F200E, [(NP6, "200e-np6lite-x2-on-other-chip")]),
                Fail,
                &[
                    "NP chips: md-unicast, md-multicast enter on x1 (np6lite_1) and leave on x2 (np6lite_0): this FortiGate-200E does not offload between NP chips",
                ],
            )
        },
        Row {
            baseline: NP6LITE,
            ..row(
                BLOCK,
                with(F200E, [(FEATURE, "np6lite-200e-fastpath-disabled")]),
                Fail,
                &[
                    "NP fast path: np_0 Fastpath Disabled (`diagnose npu np6lite npu-feature`); np_1 Fastpath Disabled",
                ],
            )
        },
        Row {
            baseline: NP6XLITE_ON,
            ..row(
                BLOCK,
                F100F,
                Ok,
                &["evidence:show system np6xlite: edit np6xlite_0: defaults"],
            )
        },
        Row {
            baseline: NP6XLITE_ON,
            ..row(
                BLOCK,
                with(F100F, [(NP6XLITE, "100f-accounting")]),
                Ok,
                &["evidence:set per-session-accounting all-enable"],
            )
        },
        Row {
            baseline: NP6XLITE_ON,
            ..row(
                BLOCK,
                with(F100F, [(NP6XLITE, "100f-fastpath-disable")]),
                Fail,
                &[
                    "`config system np6xlite`, `edit np6xlite_0`: `set fastpath disable`",
                    "remedy:`set fastpath enable`",
                ],
            )
        },
        Row {
            baseline: NP6XLITE_ON,
            ..row(
                BLOCK,
                with(F100F, [(FEATURE, "np6xlite-100f-fastpath-disabled")]),
                Fail,
                &["np_0 Fastpath Disabled (`diagnose npu np6xlite npu-feature`)"],
            )
        },
        // A 100F refusing its own NP's command: an ERROR, never a silent OK.
        Row {
            baseline: NP6XLITE_ON,
            ..row(
                BLOCK,
                with(F100F, [(FEATURE, "not-this-np")]),
                Error,
                &["NP fast path (`diagnose npu np6xlite npu-feature`)"],
            )
        },
    ]
}

const OUT_OF_SYNC: (&str, &str) = ("get-system-ha-status", "ap-out-of-sync");

fn ha_rows() -> Vec<Row> {
    vec![
        Row {
            baseline: AP,
            ..row(
                HA,
                &[OUT_OF_SYNC, (SUMS, "ap-root-and-all-differ")],
                Fail,
                &[
                    "FG201GTK24000818 configuration is out-of-sync (checksum tables differing from FG201GTK24000817: `root` first, then `all`)",
                ],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[OUT_OF_SYNC, (SUMS, "ap-all-differs")],
                Fail,
                &["(checksum table differing from FG201GTK24000817: `all`)"],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[OUT_OF_SYNC, (SUMS, "v64-master-wording")],
                Fail,
                &["`root` first, then `all`"],
            )
        },
        // Debugzone and checksum disagree inside a unit: a calculation error, said as such.
        Row {
            baseline: AP,
            ..row(
                HA,
                &[OUT_OF_SYNC, (SUMS, "ap-debugzone-differs")],
                Fail,
                &[
                    "FG201GTK24000818's debugzone and checksum differ in root (a calculation error: `diagnose sys ha checksum recalculate`)",
                ],
            )
        },
        Row {
            baseline: AP,
            ..row(
                HA,
                &[OUT_OF_SYNC, (SUMS, "command-fail-37")],
                Fail,
                &["out-of-sync (the tables that differ could not be read"],
            )
        },
        // The box is a cluster, the baseline says standalone: both said, with the table.
        row(
            HA,
            &[OUT_OF_SYNC, (SUMS, "ap-root-and-all-differ")],
            Fail,
            &[
                "HA mode is a-p, the baseline says standalone",
                "`root` first",
            ],
        ),
        Row {
            baseline: AP,
            ..row(
                HA,
                &[("get-system-ha-status", "ap-in-sync"), (SUMS, "ap-in-sync")],
                Ok,
                &["HA a-p"],
            )
        },
    ]
}
