use super::feeds::{Input, Letter, Side, describe, sides};
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{InterfaceCounters, ShowInterfacePort};

/// Each market-data feed is flowing now, on its A and its B side: the multicast packet counter
/// of the side's ingress port (`inMulticastPkts` of `show interfaces <port> | json`) rises
/// between two reads taken a few seconds apart in the same session. Exchanges send heartbeats
/// before the open, so a silent feed is a fault even while every state (link, IGMP, PIM) looks
/// right: a feed that stopped at 03:00 is found here and nowhere else.
///
/// EOS counts multicast per port, not per group (the per-(S,G) counter `ip multicast count`
/// exists on the 7150S only, research §0.3), so a port that carries several groups proves only
/// that multicast arrives on it; the FAIL names the side's group and source and says so. Two
/// reads with the same `counterRefreshTime` are one snapshot of the counters: ERROR, never OK.
///
/// ```yaml
/// - id: eos.multicast.flowing
///   platform: eos
/// ```
/// Baseline: `expect.market_feeds: [{ name: md, a: { group: 239.1.1.1, source: 10.10.1.10,
/// port: Ethernet1, vlan: 100 }, b: { ... } }]` (either side may be left out, `source` is
/// optional; `super::feeds`),
/// `expect.feed_sample_gap_s: 10` (optional, default 10).
pub struct MulticastFlowing;

impl Check for MulticastFlowing {
    const ID: &'static str = "eos.multicast.flowing";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.validate()
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        let mut ports: Vec<&str> = Vec::new();
        for (_, _, side) in sides(&input.market_feeds) {
            if !ports.contains(&side.port.as_str()) {
                ports.push(&side.port);
            }
        }
        let gap = input.gap_s();
        let mut queries: Vec<Box<dyn AnyQuery>> = Vec::new();
        for port in ports {
            queries.push(Box::new(ShowInterfacePort::first(port)));
            queries.push(Box::new(ShowInterfacePort::second(port, gap)));
        }
        queries
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let gap = input.gap_s();
        let parts = sides(&input.market_feeds)
            .map(|(feed, side, s)| judge(facts, &feed.name, side, s, gap, input))
            .collect();
        Ok(combine(
            parts,
            "feed sides",
            format!("multicast packets arriving on every feed side's ingress port within {gap} s"),
        ))
    }
}

fn judge(facts: &Facts, feed: &str, side: Letter, s: &Side, gap: u32, input: &Input) -> Verdict {
    let name = describe(feed, side, s);
    let port = s.port.as_str();
    let read = |q: ShowInterfacePort| {
        facts
            .get(&q)
            .map(|i| i.interfaces.get(port).cloned())
            .map_err(|e| Box::new(part_error(&name, &e)))
    };
    let (first, second) = match (
        read(ShowInterfacePort::first(port)),
        read(ShowInterfacePort::second(port, gap)),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(v), _) | (_, Err(v)) => return *v,
    };
    let (Some(first), Some(second)) = (first, second) else {
        return Verdict::error(format!(
            "{name}: `show interfaces {port}` does not list {port}"
        ))
        .remedy("Fix the side's `port` in `expect.market_feeds` to the switch's port name (`Ethernet1`, not `Et1`).");
    };
    let shared: Vec<String> = sides(&input.market_feeds)
        .filter(|(f, d, o)| o.port == port && !(f.name == feed && *d == side))
        .map(|(f, d, o)| format!("{} side {d} ({})", f.name, o.group))
        .collect();
    let scope = if shared.is_empty() {
        String::new()
    } else {
        format!(
            " (the counter is per port: {port} also carries {})",
            shared.join(", ")
        )
    };
    let (a, b) = (first.counters.clone(), second.counters.clone());
    let evidence = format!(
        "{port}: {}/{}; first read {}; second read {}",
        second.interface_status,
        second.line_protocol_status,
        reading(a.as_ref()),
        reading(b.as_ref())
    );
    if second.interface_status != "connected" || second.line_protocol_status != "up" {
        return Verdict::fail(format!(
            "{name}: its ingress port {port} is {}/{}: the feed cannot arrive",
            second.interface_status, second.line_protocol_status
        ))
        .evidence(evidence)
        .remedy(format!(
            "Bring {port} up (cabling, the exchange's or carrier's handoff, `show interfaces {port} status`); the {side} side of {feed} is down until then."
        ));
    }
    let counts = |c: &Option<InterfaceCounters>| {
        c.as_ref()
            .map(|c| (c.in_multicast_pkts, c.counter_refresh_us))
    };
    let (Some((Some(before), refreshed_a)), Some((Some(after), refreshed_b))) =
        (counts(&a), counts(&b))
    else {
        return Verdict::error(format!(
            "{name}: `show interfaces {port}` prints no inMulticastPkts: cannot tell whether the feed flows"
        ))
        .evidence(evidence);
    };
    if refreshed_a.is_some() && refreshed_a == refreshed_b {
        return Verdict::error(format!(
            "{name}: the switch did not refresh {port}'s counters between the two reads (counterRefreshTime unchanged): cannot tell whether the feed flows"
        ))
        .evidence(evidence)
        .remedy("Raise `feed_sample_gap_s` in the baseline above the switch's counter refresh period, then rerun `premarket check eos.multicast.flowing`.");
    }
    let seconds = match (refreshed_a, refreshed_b) {
        (Some(x), Some(y)) if y > x => (y - x) as f64 / 1e6,
        _ => f64::from(gap),
    };
    if after < before {
        return Verdict::error(format!(
            "{name}: {port}'s multicast counter went down between the two reads ({before} -> {after}): the counters were cleared or the switch restarted; rerun"
        ))
        .evidence(evidence);
    }
    if after == before {
        return Verdict::fail(format!(
            "{name}: no multicast packet arrived on {port} in {seconds:.1} s: the feed is not flowing{scope}"
        ))
        .evidence(evidence)
        .remedy(format!(
            "The {side} side of {feed} is silent while the exchange sends heartbeats before the open: check the sender or the handoff with the exchange or carrier, the upstream path to {port} (PIM/IGMP joins towards the source), and `show interfaces {port} counters`; fail the desk over to the other side until it flows. Rerun `premarket check eos.multicast.flowing`."
        ));
    }
    Verdict::ok(format!(
        "{name}: +{} multicast packets on {port} in {seconds:.1} s{scope}",
        after - before
    ))
    .evidence(evidence)
}

fn reading(c: Option<&InterfaceCounters>) -> String {
    match c {
        None => "no counters".into(),
        Some(c) => format!(
            "inMulticastPkts {} at counterRefreshTime {}",
            c.in_multicast_pkts
                .map_or("-".to_string(), |n| n.to_string()),
            c.counter_refresh_us
                .map_or("-".to_string(), |t| format!("{:.3}", t as f64 / 1e6))
        ),
    }
}
