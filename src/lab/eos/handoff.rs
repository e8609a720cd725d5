//! The exchange hand-off as the switch routes it: BGP to the exchange's two hand-offs and the
//! broker (`show ip bgp summary vrf all | json`, the older shape every release prints), BFD and
//! PIM beside the exchange sessions, and each feed side's multicast route with its packet
//! counter (`show ip mroute | json`, `show ip mroute count | json`: no real JSON of either is
//! public; the lab prints the shape premarket's parsers model, see `premarket-platform`'s
//! `eos::mroute`). Times hang off the boot (sessions came up three minutes after it), counters
//! off the time since boot, so two labs started the same day agree.
//!
//! Faults: `bgp-down` (exchange-a Active for ten minutes), `bgp-prefixes-low` (exchange-a
//! sends 1 prefix), `bfd-down` (the session to exchange-b down, its peer silent),
//! `mroute-wrong-rpf` (side A's route arrives on side B's hand-off), `feed-stalled` (side B's
//! route counter holds still), `rebooted` (every session restarted after the boot).

use super::super::scenario::Fault;
use super::super::topology::{self, BgpPeer, EOS_BGP_PEERS, MULTICAST_FEED};
use super::json::{J, obj};
use super::state::EosState;

/// When the hand-off's sessions last changed state: three minutes after boot (twenty seconds
/// after a reboot's boot, which was moments before the lab started).
fn sessions_up(s: &EosState) -> f64 {
    s.booted + if s.rebooted() { 20.0 } else { 180.0 }
}

/// (state, prefixes, last change) of a peer under the switch's faults.
fn peer_state(s: &EosState, p: &BgpPeer) -> (&'static str, u64, f64) {
    let exchange_a = p.name == "exchange-a";
    if exchange_a && s.faults.has(Fault::BgpDown) {
        return ("Active", 0, s.started - 600.0);
    }
    let prefixes = if exchange_a && s.faults.has(Fault::BgpPrefixesLow) {
        1
    } else {
        p.prefixes
    };
    ("Established", prefixes, sessions_up(s))
}

/// `show ip bgp summary vrf all | json`.
pub fn bgp_summary_json(s: &EosState) -> String {
    let mut vrfs: Vec<(String, J)> = Vec::new();
    for vrf in ["default", "ORDERS"] {
        let peers: Vec<(String, J)> = EOS_BGP_PEERS
            .iter()
            .filter(|p| p.vrf == vrf)
            .map(|p| {
                let (state, prefixes, changed) = peer_state(s, p);
                let up = (s.started - changed).max(0.0) as u64;
                (
                    topology::ip(p.address),
                    obj! {
                        "msgSent" => up / 30 + 3,
                        "inMsgQueue" => 0u32,
                        "prefixReceived" => prefixes,
                        "upDownTime" => changed,
                        "version" => 4u32,
                        "msgReceived" => up / 30 + 5,
                        "prefixAccepted" => prefixes,
                        "peerState" => state,
                        "outMsgQueue" => 0u32,
                        "underMaintenance" => false,
                        "asn" => p.asn.to_string(),
                        "description" => p.name,
                    },
                )
            })
            .collect();
        vrfs.push((
            vrf.to_string(),
            obj! {
                "routerId" => topology::ip(topology::EOS_ROUTER_ID),
                "peers" => J::obj(peers),
                "vrf" => vrf,
                "asn" => topology::EOS_ASN.to_string(),
            },
        ));
    }
    obj! { "vrfs" => J::obj(vrfs) }.render()
}

/// `show bfd peers | json`: a single-hop session under each exchange session.
pub fn bfd_peers_json(s: &EosState) -> String {
    let neighbors: Vec<(String, J)> = EOS_BGP_PEERS
        .iter()
        .filter_map(|p| Some((p, p.port?)))
        .enumerate()
        .map(|(i, (p, port))| {
            let down = p.name == "exchange-b" && s.faults.has(Fault::BfdDown);
            let stats = obj! {
                "status" => if down { "down" } else { "up" },
                "remoteDisc" => if down { 0u64 } else { 3_940_685_114u64 + i as u64 },
                "localDisc" => 1_561_334_900u64 + i as u64,
                "lastDown" => if down { s.started - 300.0 } else { 0.0 },
                "l3intf" => port,
                "peerStatsDetail" => obj! {
                    "operTxInterval" => 300_000u32,
                    "operRxInterval" => 300_000u32,
                    "detectMult" => 3u32,
                },
            };
            (
                topology::ip(p.address),
                obj! { "peerStats" => J::obj([(port.to_string(), stats)]) },
            )
        })
        .collect();
    let vrf = obj! {
        "ipv4Neighbors" => J::obj(neighbors),
        "ipv6Neighbors" => J::obj(Vec::<(String, J)>::new()),
    };
    obj! { "vrfs" => J::obj([("default".to_string(), vrf)]) }.render()
}

/// `show ip pim neighbor | json` (the modelled shape): the exchange's router on each hand-off.
pub fn pim_neighbors_json(s: &EosState) -> String {
    let up = sessions_up(s);
    let neighbors: Vec<(String, J)> = EOS_BGP_PEERS
        .iter()
        .filter_map(|p| Some((topology::ip(p.address), p.port?)))
        .map(|(address, port)| {
            (
                address,
                obj! {
                    "interface" => port,
                    "creationTime" => up,
                    "lastRefreshTime" => s.started - 12.0,
                    "holdTime" => 105u32,
                    "mode" => obj! { "mode" => "sparse", "borderRouter" => false },
                    "transport" => "datagram",
                },
            )
        })
        .collect();
    obj! { "neighbors" => J::obj(neighbors) }.render()
}

/// One feed side's route: (group, source, RPF interface, whether it is stalled).
fn routes(s: &EosState) -> [(String, String, &'static str, bool); 2] {
    let a_rpf = if s.faults.has(Fault::MrouteWrongRpf) {
        // The unicast route to side A's source now leads over side B's hand-off.
        topology::EOS_FEED_B_PORT.0
    } else {
        "Ethernet1"
    };
    [
        (
            topology::ip(MULTICAST_FEED.dst),
            topology::ip(MULTICAST_FEED.src),
            a_rpf,
            false,
        ),
        (
            topology::ip(topology::FEED_B_GROUP),
            topology::ip(topology::FEED_B_SOURCE),
            topology::EOS_FEED_B_PORT.0,
            s.faults.has(Fault::FeedStalled),
        ),
    ]
}

/// `groups.<group>.groupSources.<source>.{...}`, one group per route.
fn by_group(entries: Vec<(String, String, J)>) -> J {
    J::obj(entries.into_iter().map(|(group, source, entry)| {
        (group, obj! { "groupSources" => J::obj([(source, entry)]) })
    }))
}

/// `show ip mroute | json` (the modelled shape): each side's (S,G), forwarded to the servers.
pub fn mroute_json(s: &EosState) -> String {
    let since = sessions_up(s) + 5.0;
    let entries = routes(s)
        .into_iter()
        .map(|(group, source, rpf, _)| {
            let entry = obj! {
                "creationTime" => since,
                "routeFlags" => "SP",
                "rpfInterface" => rpf,
                "oifList" => J::arr([J::from("Ethernet4")]),
            };
            (group, source, entry)
        })
        .collect();
    obj! { "groups" => by_group(entries) }.render()
}

/// `show ip mroute count | json` (the modelled shape): packets at the feed's rate since the
/// route came up; a stalled side's counter stopped ten minutes before the lab started.
pub fn mroute_count_json(s: &EosState, now: f64) -> String {
    let since = sessions_up(s) + 5.0;
    let entries = routes(s)
        .into_iter()
        .map(|(group, source, _, stalled)| {
            let until = if stalled {
                now.min(s.started - 600.0)
            } else {
                now
            };
            let packets = ((until - since).max(0.0) * 12_000.0) as u64;
            let entry = obj! { "packets" => packets, "bytes" => packets * 180 };
            (group, source, entry)
        })
        .collect();
    obj! { "groups" => by_group(entries) }.render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    fn v(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn healthy_sessions_and_each_fault() {
        let healthy = EosState::new("sw1", 1, &Faults::default());
        let bgp = v(&bgp_summary_json(&healthy));
        let a = &bgp["vrfs"]["default"]["peers"]["10.1.1.1"];
        assert_eq!(
            (a["peerState"].as_str(), a["prefixAccepted"].as_u64()),
            (Some("Established"), Some(12))
        );
        assert_eq!(bgp["vrfs"]["ORDERS"]["peers"]["10.30.0.1"]["asn"], "65030");
        let down = EosState::new("sw1", 1, &Faults::only(Fault::BgpDown));
        assert_eq!(
            v(&bgp_summary_json(&down))["vrfs"]["default"]["peers"]["10.1.1.1"]["peerState"],
            "Active"
        );
        let low = EosState::new("sw1", 1, &Faults::only(Fault::BgpPrefixesLow));
        assert_eq!(
            v(&bgp_summary_json(&low))["vrfs"]["default"]["peers"]["10.1.1.1"]["prefixAccepted"],
            1
        );
        let bfd = v(&bfd_peers_json(&EosState::new(
            "sw1",
            1,
            &Faults::only(Fault::BfdDown),
        )));
        let b = &bfd["vrfs"]["default"]["ipv4Neighbors"]["10.1.9.1"]["peerStats"]["Ethernet9"];
        assert_eq!(
            (b["status"].as_str(), b["remoteDisc"].as_u64()),
            (Some("down"), Some(0))
        );
        let pim = v(&pim_neighbors_json(&healthy));
        assert_eq!(pim["neighbors"]["10.1.9.1"]["interface"], "Ethernet9");
        let rpf = |s: &EosState| {
            v(&mroute_json(s))["groups"]["239.1.1.1"]["groupSources"]["10.10.1.10"]["rpfInterface"]
                .clone()
        };
        assert_eq!(rpf(&healthy), "Ethernet1");
        assert_eq!(
            rpf(&EosState::new(
                "sw1",
                1,
                &Faults::only(Fault::MrouteWrongRpf)
            )),
            "Ethernet9"
        );
        let count = |s: &EosState, at: f64| {
            v(&mroute_count_json(s, at))["groups"]["239.2.1.1"]["groupSources"]["10.10.2.10"]["packets"].as_u64().unwrap()
        };
        assert!(count(&healthy, healthy.started + 2.0) > count(&healthy, healthy.started));
        let stalled = EosState::new("sw1", 1, &Faults::only(Fault::FeedStalled));
        assert_eq!(
            count(&stalled, stalled.started + 2.0),
            count(&stalled, stalled.started)
        );
    }
}
