//! The hand-off parsers (issue 35) against fixtures written from the public formats: the fact
//! values the checks read (JSON pointers into the fact, as `premarket parse` prints it), the
//! shapes each reads (BGP's older and newer JSON and both text layouts, BFD's wrapped text, the
//! PIM and mroute text beside their modelled JSON, LLDP's list, detail and text), and the
//! errors instead of a fact: a modelled command's other shapes name the model and quote the
//! output, the public drop-counter excerpt (elided with `...`) is no document.

use crate::parse_support;

use parse_support::Want::{Error, Facts};
use parse_support::{Want, check_rows, v};

pub(crate) const ROWS: &[(&str, &str, Want)] = &[
    (
        "show ip bgp summary vrf all | json",
        "healthy.txt",
        Facts(&[
            ("/vrfs/default/peers/10.1.1.1/state", v!("Established")),
            ("/vrfs/default/peers/10.1.1.1/asn", v!("65010")),
            ("/vrfs/default/peers/10.1.1.1/prefixes_accepted", v!(12)),
            ("/vrfs/ORDERS/peers/10.30.0.1/prefixes_received", v!(4)),
            ("/vrfs/default/asn", v!("65001")),
            ("/inactive", v!(false)),
        ]),
    ),
    (
        "show ip bgp summary vrf all | json",
        "newer-shape-per-family.txt",
        Facts(&[
            ("/vrfs/default/peers/10.1.1.1/asn", v!("65010")),
            ("/vrfs/default/peers/10.1.1.1/prefixes_accepted", v!(null)),
            (
                "/vrfs/default/peers/10.1.1.1/families/ipv4Unicast/accepted",
                v!(12),
            ),
            (
                "/vrfs/default/peers/10.1.1.1/families/ipv4MplsVpn/state",
                v!("advertised"),
            ),
        ]),
    ),
    (
        "show ip bgp summary vrf all | json",
        "text-idle-noif.txt",
        Facts(&[
            ("/vrfs/default/peers/10.1.1.1/state", v!("Idle")),
            ("/vrfs/default/peers/10.1.1.1/reason", v!("NoIf")),
            ("/vrfs/default/peers/10.1.1.1/changed_ago_s", v!(6_843_600)),
            ("/vrfs/default/peers/10.1.9.1/description", v!("exchange-b")),
            ("/vrfs/ORDERS/peers/10.30.0.1/prefixes_accepted", v!(4)),
        ]),
    ),
    (
        "show ip bgp summary vrf all | json",
        "inactive.txt",
        Facts(&[("/inactive", v!(true))]),
    ),
    (
        "show ip bgp summary vrf all | json",
        "garbage.txt",
        Error(&["no `BGP summary information for VRF` line first"]),
    ),
    (
        "show bfd peers | json",
        "exchange-b-down.txt",
        Facts(&[
            ("/sessions/0/peer", v!("10.1.1.1")),
            ("/sessions/0/status", v!("up")),
            ("/sessions/1/status", v!("down")),
            ("/sessions/1/remote_disc", v!(0)),
            ("/sessions/1/interface", v!("Ethernet9")),
        ]),
    ),
    (
        "show bfd peers | json",
        "text-two-blocks.txt",
        Facts(&[
            ("/sessions/1/peer", v!("10.1.9.1")),
            ("/sessions/1/status", v!("up")),
            ("/sessions/1/remote_disc", v!(3_940_685_115u64)),
            ("/sessions/1/last_diag", v!("No Diagnostic")),
        ]),
    ),
    (
        "show bfd peers | json",
        "garbage.txt",
        Error(&["expected keys"]),
    ),
    (
        "show ip pim neighbor | json",
        "healthy.txt",
        Facts(&[
            ("/neighbors/0/address", v!("10.1.1.1")),
            ("/neighbors/0/interface", v!("Ethernet1")),
            ("/neighbors/1/vrf", v!("default")),
        ]),
    ),
    (
        "show ip pim neighbor | json",
        "text-7280sr-one-neighbor.txt",
        Facts(&[
            ("/neighbors/1/interface", v!("Ethernet9")),
            ("/neighbors/0/uptime_s", v!(2367)),
        ]),
    ),
    (
        "show ip pim neighbor | json",
        "unknown-shape.txt",
        Error(&["modelled", "pimNeighbors"]),
    ),
    (
        "show ip mroute | json",
        "side-a-rpf-ethernet9.txt",
        Facts(&[
            ("/routes/0/group", v!("239.1.1.1")),
            ("/routes/0/source", v!("10.10.1.10")),
            ("/routes/0/incoming", v!("Ethernet9")),
            ("/routes/0/outgoing/0", v!("Ethernet4")),
            ("/routes/0/flags", v!("SP")),
        ]),
    ),
    (
        "show ip mroute | json",
        "text-detail.txt",
        Facts(&[
            ("/routes/1/incoming", v!("Ethernet9")),
            ("/routes/1/outgoing/0", v!("Ethernet4")),
            ("/routes/1/uptime_s", v!(1_040_400)),
        ]),
    ),
    (
        "show ip mroute | json",
        "unknown-shape.txt",
        Error(&["modelled", "multicastRoutes"]),
    ),
    (
        "show ip mroute count | json",
        "stalled-sample-2.txt",
        Facts(&[("/counts/1/group", v!("239.2.1.1"))]),
    ),
    (
        "show ip mroute count | json",
        "unknown-shape.txt",
        Error(&["modelled", "fwdPackets"]),
    ),
    (
        "show mlag | json",
        "active-partial-inconsistent.txt",
        Facts(&[
            ("/state", v!("active")),
            ("/config_sanity", v!("inconsistent")),
            ("/ports/inactive", v!(3)),
            ("/ports/active_partial", v!(4)),
        ]),
    ),
    (
        "show mlag | json",
        "disabled.txt",
        Facts(&[("/state", v!("disabled")), ("/peer_link", v!(null))]),
    ),
    (
        "show mlag | json",
        "text-inactive.txt",
        Facts(&[
            ("/state", v!("inactive")),
            ("/peer_link_status", v!("lowerLayerDown")),
        ]),
    ),
    (
        "show mlag config-sanity | json",
        "trunk-native-vlan-mismatch.txt",
        Facts(&[
            ("/inconsistencies/0/scope", v!("Port-Channel30")),
            (
                "/inconsistencies/0/parameter",
                v!("trunk-native-vlan mlag30"),
            ),
            ("/inconsistencies/0/local", v!("123")),
        ]),
    ),
    (
        "show mlag config-sanity | json",
        "text-consistent.txt",
        Facts(&[("/active", v!(true)), ("/inconsistencies", v!([]))]),
    ),
    (
        "show hardware counter drop | json",
        "adverse-grew.txt",
        Facts(&[
            ("/total_adverse", v!(1314)),
            ("/counters/1/kind", v!("Adverse")),
            ("/counters/1/drops", v!(1314)),
            ("/counters/1/last_ten_minutes", v!(1312)),
        ]),
    ),
    (
        "show hardware counter drop | json",
        "excerpt-elided.txt",
        Error(&["not valid JSON"]),
    ),
    (
        "show hardware counter drop | json",
        "unavailable-7050x.txt",
        Error(&["% Unavailable command (not supported on this hardware platform)"]),
    ),
    (
        "show interfaces flow-control | json",
        "ethernet4-on.txt",
        Facts(&[
            ("/ports/Ethernet4/tx_oper_state", v!("on")),
            ("/ports/Ethernet4/rx_pause", v!(1840)),
            ("/ports/Ethernet1/rx_admin_state", v!("off")),
        ]),
    ),
    (
        "show lldp neighbors | json",
        "shared-uplink.txt",
        Facts(&[
            ("/neighbors/0/port", v!("Ethernet1")),
            ("/neighbors/0/device", v!("carrier-a-pe1")),
            ("/neighbors/4/port", v!("Ethernet9")),
            ("/neighbors/4/device", v!("carrier-a-pe1")),
        ]),
    ),
    (
        "show lldp neighbors | json",
        "text-ruled.txt",
        Facts(&[
            ("/neighbors/4/port", v!("Ethernet9")),
            ("/neighbors/4/device", v!("carrier-b-pe1")),
            ("/neighbors/5/port", v!("Management1")),
        ]),
    ),
    (
        "show lldp neighbors | json",
        "detail.txt",
        Facts(&[
            ("/neighbors/0/neighbor_port", v!("xe-0/0/1")),
            ("/neighbors/1/device", v!("carrier-b-pe1")),
        ]),
    ),
    (
        "show lldp neighbors | json",
        "garbage.txt",
        Error(&["expected keys"]),
    ),
];

#[test]
fn hand_off_fixtures_give_the_facts_checks_read() {
    check_rows(ROWS);
}
