//! The market-data path's FortiGate checks over fixtures (issue 19), run by
//! [`crate::fortigate_checks`]'s row runner: the clock within the site's NTP limits, and the
//! trading path on a 600F's ultra-low-latency ports (x5-x8), the HA heartbeat and monitored
//! interfaces.

use crate::fortigate_checks::{Row, row};

use premarket::Status::{Error, Fail, Ok, Skip};

const BLOCK: &str = "fortigate.offload.blockers";
const STATUS: &str = "get-system-status";
const IFACES: &str = "get-system-interface";
const SHOWIF: &str = "show-system-interface";
const NP7: &str = "diagnose-npu-np7-port-list";
const LINKS: &str = "fortigate.ha.links";
const HA: &str = "get-system-ha-status";

/// A FortiGate 600F (NP7, ULL ports x5-x8) whose interfaces are those of
/// `show-system-interface/v74-600f-ull`: md-feed-a (VLAN 310 on md-lag = x5 + x6), md-mixed
/// (an aggregate of x7 and x1), and the physical ports.
const F600: &[(&str, &str)] = &[
    (STATUS, "v74-600f"),
    (IFACES, "v74-600f-ull"),
    (SHOWIF, "v74-600f-ull"),
    (NP7, "600f-ull-x5-x8"),
];
const NP7_ON: (&str, &str) = ("  np: np7lite\n", "  np: np7\n");
const ULL_PATH: &[(&str, &str)] = &[
    NP7_ON,
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [md-feed-a, x8]",
    ),
];
const ON_PORT1: &[(&str, &str)] = &[
    NP7_ON,
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [port1, x8]",
    ),
];
const ON_MIXED_LAG: &[(&str, &str)] = &[
    NP7_ON,
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [md-mixed, x8]",
    ),
];
/// The design accepts the ISF: `ull_ports: []` turns the judgement off.
const ON_PORT1_DECLARED: &[(&str, &str)] = &[
    NP7_ON,
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [port1, x8]",
    ),
    (
        "  npu_settings: {}\n",
        "  npu_settings: {}\n  ull_ports: []\n",
    ),
];
/// A model the table does not know (a 900G's ULL ports are named nowhere public): the
/// baseline declares them.
const DECLARED_X5_X6: &[(&str, &str)] = &[
    NP7_ON,
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [md-feed-a, x8]",
    ),
    (
        "  npu_settings: {}\n",
        "  npu_settings: {}\n  ull_ports: [x5, x6]\n",
    ),
];

/// The 201G's VLAN on an aggregate of port3 and port4, with ULL ports declared by the baseline
/// (the 201G has none in the table): both members named.
const VLAN_DECLARED_X2: &[(&str, &str)] = &[
    (
        "trading_interfaces: [x1, x2]",
        "trading_interfaces: [md-feed-a, x2]",
    ),
    (
        "  npu_settings: {}\n",
        "  npu_settings: {}\n  ull_ports: [x2]\n",
    ),
];

/// The ULL rows: a 600F on x5-x8 is OK, port1 or an aggregate with x1 is a finding naming the
/// port and the ULL ports; the baseline's list replaces the model's. (The 201G rows of
/// `fortigate_checks` are the model without ULL ports: unchanged.)
fn ull_rows() -> Vec<Row> {
    vec![
        Row {
            baseline: ULL_PATH,
            ..row(
                BLOCK,
                F600,
                Ok,
                &[
                    "all 3 parts",
                    "evidence:md-feed-a: VLAN 310 on md-lag; md-lag: aggregate of x5, x6",
                    "evidence:ultra-low-latency ports (FortiGate-600F): x5, x6, x7, x8",
                ],
            )
        },
        Row {
            baseline: ON_PORT1,
            ..row(
                BLOCK,
                F600,
                Fail,
                &[
                    "port1: not an ultra-low-latency port (FortiGate-600F: x5, x6, x7, x8)",
                    "remedy:on the ultra-low-latency ports (x5, x6, x7, x8) only",
                ],
            )
        },
        Row {
            baseline: ON_MIXED_LAG,
            ..row(
                BLOCK,
                F600,
                Fail,
                &[
                    "md-mixed: an aggregate mixing ultra-low-latency ports (x7) with x1 (FortiGate-600F: x5, x6, x7, x8)",
                ],
            )
        },
        Row {
            baseline: ON_PORT1_DECLARED,
            ..row(BLOCK, F600, Ok, &["all 3 parts"])
        },
        Row {
            baseline: DECLARED_X5_X6,
            ..row(
                BLOCK,
                &[
                    (STATUS, "v74-unknown-model"),
                    (IFACES, "v74-600f-ull"),
                    (SHOWIF, "v74-600f-ull"),
                    (NP7, "600f-ull-x5-x8"),
                ],
                Fail,
                &["x8: not an ultra-low-latency port (the baseline's `ull_ports`: x5, x6)"],
            )
        },
        Row {
            baseline: VLAN_DECLARED_X2,
            ..row(
                BLOCK,
                &[
                    (IFACES, "v74-vlan-on-aggregate"),
                    (SHOWIF, "v76-vlan-no-type-on-aggregate"),
                ],
                Fail,
                &[
                    "1 of 3 parts of the trading path failing",
                    "md-feed-a: its ports port3, port4 are not ultra-low-latency ports (the baseline's `ull_ports`: x2)",
                ],
            )
        },
    ]
}

const NTP: &str = "fortigate.ntp.synchronised";
const DIAG: &str = "diagnose-sys-ntp-status";

pub(crate) fn rows() -> Vec<Row> {
    vec![
        row(
            NTP,
            &[],
            Ok,
            &["synchronized to 10.0.0.1, stratum 2, offset 0.412 ms"],
        ),
        // A real FortiGate says "synchronized" 575 ms off: the default limit (100 ms) fails it.
        row(
            NTP,
            &[(DIAG, "synchronized-but-575ms-off")],
            Fail,
            &["clock offset -575.402 ms from 10.0.0.1, beyond ±100 ms"],
        ),
        row(
            NTP,
            &[(DIAG, "unsynchronized")],
            Fail,
            &["NTP not synchronised: `synchronized: no, ntpsync: enabled`"],
        ),
        // 6.x prints no `selected` mark: a 2020 capture, one server reachable at stratum 2,
        // 0.957 ms off, `synchronized: yes`. The reachable server is the one followed.
        row(
            NTP,
            &[(DIAG, "v6x-one-server-no-selected")],
            Ok,
            &[
                "synchronized to 10.0.0.7 (no `selected` mark",
                "offset 0.957 ms",
            ],
        ),
        row(
            NTP,
            &[(DIAG, "reachable-none-selected")],
            Ok,
            &[
                "synchronized to 10.0.0.1 (no `selected` mark",
                "offset 0.810 ms",
            ],
        ),
        // Unmarked, the nearest reachable server is judged: both are far off here.
        row(
            NTP,
            &[(DIAG, "v6x-two-servers-no-selected-far")],
            Fail,
            &["clock offset -388.102 ms from 10.0.0.8, beyond ±100 ms"],
        ),
        // Synchronized, but no server answers: it follows none.
        row(
            NTP,
            &[(DIAG, "synchronized-none-reachable")],
            Fail,
            &["NTP follows no server"],
        ),
        row(NTP, &[(DIAG, "command-fail")], Error, &["Command fail"]),
    ]
    .into_iter()
    .chain(ull_rows())
    .chain(ha_link_rows())
    .collect()
}

/// `fortigate.ha.links`: a link down, or error/drop counters that grew since the previous run
/// (an hour before), FAIL naming the port, the member and the counter; old errors (x2's 337)
/// do not; counters that went down restarted and are said.
fn ha_link_rows() -> Vec<Row> {
    vec![
        row(
            LINKS,
            &[],
            Ok,
            &["standalone: no heartbeat or monitored interface"],
        ),
        row(LINKS, &[(HA, "v60-standalone-flat")], Ok, &["standalone"]),
        row(
            LINKS,
            &[(HA, "ap-mondev")],
            Ok,
            &[
                "all 6 HA links as expected (first run on this cluster: counters recorded",
                "evidence:FG201GTK24000817 x2: physical/10000full, up, rx dropped/errors=0/337",
            ],
        ),
        // 6.4's shape (a 600E with old errors on x2 and ha2: history, not a fault).
        row(
            LINKS,
            &[(HA, "v64-600e-mondev-errors")],
            Ok,
            &["all 8 HA links as expected"],
        ),
        Row {
            previous: &[(HA, "ap-mondev")],
            ..row(
                LINKS,
                &[(HA, "ap-mondev")],
                Ok,
                &["all 6 HA links as expected"],
            )
        },
        Row {
            previous: &[(HA, "ap-mondev")],
            ..row(
                LINKS,
                &[(HA, "ap-mondev-errors-grew")],
                Fail,
                &[
                    "x2 on FG201GTK24000817: monitored interface, +212 receive errors since the previous run",
                    "remedy:Errors or drops grew on a monitored interface",
                ],
            )
        },
        Row {
            previous: &[(HA, "ap-in-sync")],
            ..row(
                LINKS,
                &[(HA, "ap-hbdev-errors-grew")],
                Fail,
                &[
                    "ha on FG201GTK24000817: heartbeat interface, +37 receive errors and +4 receive drops since the previous run",
                    "remedy:Heartbeat errors or drops grew",
                ],
            )
        },
        // The counters went down: the member rebooted or they were cleared; said, not judged.
        Row {
            previous: &[(HA, "ap-mondev-errors-grew")],
            ..row(
                LINKS,
                &[(HA, "ap-mondev")],
                Ok,
                &["x2 on FG201GTK24000817: its counters restarted since the previous run"],
            )
        },
        row(
            LINKS,
            &[(HA, "v70-hbdev-down")],
            Fail,
            &["ha on FG201GTK24000817: heartbeat interface down (physical/00)"],
        ),
        row(
            LINKS,
            &[(HA, "v76-601f-hbdev-port16-down")],
            Fail,
            &[
                "2 of 8 HA links failing",
                "port16 on FG6H1FTAAAAAAAA1: heartbeat interface down",
                "port16 on FG6H1FTBBBBBBBB2: heartbeat interface down",
                "remedy:A heartbeat interface is down",
            ],
        ),
        // A cluster whose output has no HBDEV block (older releases, cut copies): not printed.
        row(
            LINKS,
            &[(HA, "ap-no-members")],
            Skip,
            &["prints no `HBDEV stats:` block"],
        ),
        row(
            LINKS,
            &[(HA, "ap-mondev-line-cut")],
            Error,
            &[
                "do not read as `PORT: TYPE/SPEED",
                "tx=41020933110/39022101",
            ],
        ),
        row(
            LINKS,
            &[(HA, "cut-before-mode")],
            Error,
            &["no `Mode:` line"],
        ),
    ]
}
