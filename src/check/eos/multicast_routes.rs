//! `eos.multicast.routes`: each feed side's multicast route, from `show ip mroute` and two
//! reads of `show ip mroute count`.

use std::net::Ipv4Addr;

use super::feeds::{Input, Letter, Side, describe, sides};
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{Mroute, Mroutes, ShowMroute, ShowMrouteCount};

/// For each side of each feed in the baseline, its multicast route is there, programmed in
/// hardware, arrives on the interface the baseline gives for that side (its RPF interface: a
/// route that took the other side's hand-off, or the wrong carrier, still forwards until that
/// one fails, and then both sides are gone), forwards towards the receivers (the baseline's
/// outgoing interfaces, or at least one), and its packet counter rises between the two reads
/// taken `feed_sample_gap_s` apart (the samples `eos.multicast.flowing` takes of the ports).
///
/// The route is the side's (source, group); without a `source` in the baseline, the group's
/// source routes, else its (*,G).
///
/// ```yaml
/// - id: eos.multicast.routes
///   platform: eos
/// ```
/// Baseline: `expect.market_feeds` (`super::feeds`: per side `rpf` and `outgoing` are read
/// here), `expect.feed_sample_gap_s` (default 10).
pub struct MulticastRoutes;

impl Check for MulticastRoutes {
    const ID: &'static str = "eos.multicast.routes";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.validate()
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![
            Box::new(ShowMroute),
            Box::new(ShowMrouteCount::first()),
            Box::new(ShowMrouteCount::second(input.gap_s())),
        ]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let routes = facts.get(&ShowMroute)?;
        let gap = input.gap_s();
        let parts = sides(&input.market_feeds)
            .map(|(feed, letter, side)| judge(routes, facts, &feed.name, letter, side, gap))
            .collect();
        Ok(combine(
            parts,
            "feed sides",
            "every feed side's route present, programmed, on its RPF interface, forwarding to the receivers, its counter rising",
        ))
    }
}

/// The route the side is judged on.
fn route_of(routes: &Mroutes, side: &Side) -> Option<Mroute> {
    if let Some(source) = side.source_v4() {
        return routes.route(side.group, source).cloned();
    }
    let mut of: Vec<&Mroute> = routes.of(side.group).collect();
    of.sort_by_key(|r| r.source == Ipv4Addr::UNSPECIFIED);
    of.first().map(|r| (*r).clone())
}

fn line(r: &Mroute) -> String {
    format!(
        "({}, {}) flags {} incoming {} outgoing [{}]",
        r.source,
        r.group,
        r.flags,
        r.incoming,
        r.outgoing.join(", ")
    )
}

fn judge(
    routes: &Mroutes,
    facts: &Facts,
    feed: &str,
    letter: Letter,
    side: &Side,
    gap: u32,
) -> Verdict {
    let name = describe(feed, letter, side);
    let rerun = "Rerun `premarket check eos.multicast.routes`.";
    let Some(route) = route_of(routes, side) else {
        let others: Vec<String> = routes.routes.iter().map(line).collect();
        return Verdict::fail(format!(
            "{name}: no multicast route for {}: the switch forwards none of it",
            side.group
        ))
        .evidence(format!(
            "routes: {}",
            if others.is_empty() { "none".to_string() } else { others.join("; ") }
        ))
        .remedy(format!(
            "Check the joins towards the source: PIM on {} (`show ip pim neighbor`), the receivers' IGMP joins, and `show ip mroute {}`. {rerun}",
            side.rpf(),
            side.group
        ));
    };
    let evidence = line(&route);
    let mut problems = Vec::new();
    if route.incoming != side.rpf() {
        problems.push(format!(
            "arrives on {} (its RPF interface), the baseline says {} for side {letter}",
            route.incoming,
            side.rpf()
        ));
    }
    if !route.programmed() {
        problems.push(format!(
            "not programmed in hardware (flags {}, no P): forwarded by the CPU if at all",
            if route.flags.is_empty() {
                "none"
            } else {
                &route.flags
            }
        ));
    }
    let missing: Vec<&str> = side
        .outgoing
        .iter()
        .filter(|o| !route.outgoing.contains(o))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        problems.push(format!("does not forward to {}", missing.join(", ")));
    } else if route.outgoing.is_empty() {
        problems.push("has no outgoing interface: nothing reaches the receivers".to_string());
    }
    if !problems.is_empty() {
        return Verdict::fail(format!("{name}: the route ({}, {}) {}", route.source, route.group, problems.join("; ")))
            .evidence(evidence)
            .remedy(format!(
                "An RPF interface other than the side's hand-off means the unicast route to {} leads elsewhere (`show ip route {}`, `show ip mroute {} detail`): fix the routing so each side arrives on its own hand-off, or both sides fail together. A missing outgoing interface: check the receivers' joins (IGMP snooping, PIM). {rerun}",
                route.source, route.source, route.group
            ));
    }
    match counted(facts, &route, gap, &name) {
        Ok(Some(grew)) => Verdict::ok(format!(
            "{name}: ({}, {}) on {}, +{grew} packets in {gap} s",
            route.source, route.group, route.incoming
        ))
        .evidence(evidence),
        Ok(None) => Verdict::fail(format!(
            "{name}: the route ({}, {}) forwarded no packet in {gap} s",
            route.source, route.group
        ))
        .evidence(evidence)
        .remedy(format!(
            "The route exists but carries nothing: check that the side's packets arrive on {} (`premarket check eos.multicast.flowing`) and are not dropped by RPF (`show ip mroute count`). {rerun}",
            route.incoming
        )),
        Err(v) => *v,
    }
}

/// How many packets the route forwarded between the two reads; `None` when none.
fn counted(
    facts: &Facts,
    route: &Mroute,
    gap: u32,
    name: &str,
) -> Result<Option<u64>, Box<Verdict>> {
    let read = |q: ShowMrouteCount| {
        let counts = facts.get(&q).map_err(|e| Box::new(part_error(name, &e)))?;
        counts.packets(route.group, route.source).ok_or_else(|| {
            Box::new(Verdict::error(format!(
                "{name}: `show ip mroute count` lists no ({}, {}) although `show ip mroute` does",
                route.source, route.group
            )))
        })
    };
    let (before, after) = (
        read(ShowMrouteCount::first())?,
        read(ShowMrouteCount::second(gap))?,
    );
    if after < before {
        return Err(Box::new(Verdict::error(format!(
            "{name}: the route's packet counter went down between the two reads ({before} -> {after}): the route was rebuilt or the counters cleared; rerun"
        ))));
    }
    Ok((after > before).then_some(after - before))
}
