use std::net::{IpAddr, Ipv4Addr};

use serde::Deserialize;

use crate::Check;
use crate::outcome::{combine, part_error};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{ShowIgmpGroups, ShowIgmpQuerier, ShowIgmpSnooping};

/// Each multicast feed VLAN has IGMP snooping on and a querier, and the baseline's feed groups
/// are joined on the expected ports. Without a querier, memberships age out (about four
/// minutes) and the switch floods the feed to every port of the VLAN, or the receivers lose it.
///
/// The querier and groups JSON of EOS is not published (research §8): the parsers read the
/// lab's inferred shape and refuse anything else, so a real switch that prints otherwise is
/// ERROR "cannot read", never a silent pass.
///
/// ```yaml
/// - id: eos.multicast.feeds
///   platform: eos
/// ```
/// Baseline: `expect.multicast_feeds: [{ vlan: 100, groups: [239.1.1.1], ports: [Ethernet4],
/// querier: 10.100.0.1 }]` (`querier` optional: any querier then passes).
pub struct MulticastFeeds;

/// `expect:` keys read.
#[derive(Deserialize)]
pub struct Input {
    multicast_feeds: Vec<Feed>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Feed {
    vlan: u16,
    groups: Vec<Ipv4Addr>,
    /// Ports the receivers are on: each must have joined each group.
    ports: Vec<String>,
    #[serde(default)]
    querier: Option<IpAddr>,
}

impl Check for MulticastFeeds {
    const ID: &'static str = "eos.multicast.feeds";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), String> {
        if input.multicast_feeds.is_empty() {
            return Err("`expect.multicast_feeds` lists no feed".into());
        }
        for feed in &input.multicast_feeds {
            if let Some(g) = feed.groups.iter().find(|g| !g.is_multicast()) {
                return Err(format!(
                    "`expect.multicast_feeds` VLAN {}: {g} is not a multicast group",
                    feed.vlan
                ));
            }
        }
        Ok(())
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![
            Box::new(ShowIgmpSnooping),
            Box::new(ShowIgmpQuerier),
            Box::new(ShowIgmpGroups),
        ]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let parts = input
            .multicast_feeds
            .iter()
            .map(|feed| judge(facts, feed))
            .collect();
        Ok(combine(
            parts,
            "feed VLANs",
            "snooping on, a querier, the feed groups joined on their ports",
        ))
    }
}

/// `VLANs 1, 200`, `VLAN 1`, or `no VLAN`.
fn listed<'a>(vlans: impl Iterator<Item = &'a u16>) -> String {
    let all: Vec<String> = vlans.map(ToString::to_string).collect();
    match all.len() {
        0 => "no VLAN".to_string(),
        1 => format!("VLAN {}", all[0]),
        _ => format!("VLANs {}", all.join(", ")),
    }
}

fn judge(facts: &Facts, feed: &Feed) -> Verdict {
    let name = format!("VLAN {}", feed.vlan);
    let (snooping, queriers, groups) = match (
        facts.get(&ShowIgmpSnooping),
        facts.get(&ShowIgmpQuerier),
        facts.get(&ShowIgmpGroups),
    ) {
        (Ok(s), Ok(q), Ok(g)) => (s, q, g),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return part_error(&name, &e),
    };
    let vlan = snooping.vlans.get(&feed.vlan);
    let querier = queriers.vlans.get(&feed.vlan);
    let joined = groups.vlans.get(&feed.vlan);
    let mut problems = Vec::new();
    let mut remedy = Vec::new();
    if !snooping.enabled {
        problems.push("IGMP snooping is off on the switch".to_string());
    } else {
        match vlan {
            // Absent is not "off": say what the switch listed instead.
            None => problems.push(format!(
                "not in `show ip igmp snooping` (it lists {}): the VLAN is not configured on this switch, or the baseline names another",
                listed(snooping.vlans.keys())
            )),
            Some(v) if !v.enabled => problems.push("IGMP snooping is disabled on the VLAN".to_string()),
            Some(_) => {}
        }
    }
    match (querier, feed.querier) {
        (None, _) => {
            problems.push(
                "no IGMP querier: memberships age out and the feed is flooded or lost".to_string(),
            );
            remedy.push(format!(
                "Restore the querier of VLAN {}: the upstream router's IGMP (PIM) on the handoff, or a snooping querier on the switch as designed; `show ip igmp snooping querier` must list one.",
                feed.vlan
            ));
        }
        (Some(q), Some(want)) if q.address != want => problems.push(format!(
            "the querier is {}, the baseline says {want}",
            q.address
        )),
        _ => {}
    }
    let mut missing = Vec::new();
    for group in &feed.groups {
        let ports = joined.and_then(|g| g.get(group));
        for port in &feed.ports {
            if !ports.is_some_and(|p| p.contains(port)) {
                missing.push(format!("{group} on {port}"));
            }
        }
    }
    if !missing.is_empty() {
        problems.push(format!("not joined: {}", missing.join(", ")));
        remedy.push("Make the receivers (re)join the groups (restart their subscription) once a querier is present, and check the ports' VLAN membership.".to_string());
    }
    if vlan.and_then(|v| v.flooding_traffic) == Some(true) {
        problems.push("the VLAN floods multicast to every port".to_string());
    }
    let evidence = format!(
        "{name}: snooping {} (global {}), flooding {}, querier {}, groups {}",
        vlan.map_or("absent", |v| if v.enabled { "enabled" } else { "disabled" }),
        if snooping.enabled {
            "enabled"
        } else {
            "disabled"
        },
        vlan.and_then(|v| v.flooding_traffic)
            .map_or("-".to_string(), |f| f.to_string()),
        querier.map_or("none".to_string(), |q| format!(
            "{} on {}",
            q.address,
            q.interface.as_deref().unwrap_or("?")
        )),
        joined.map_or("none".to_string(), |g| g
            .iter()
            .map(|(group, ports)| format!(
                "{group}: {}",
                ports.iter().cloned().collect::<Vec<_>>().join(" ")
            ))
            .collect::<Vec<_>>()
            .join("; ")),
    );
    if problems.is_empty() {
        return Verdict::ok(format!(
            "{name}: querier {}, {} group(s) joined on {}",
            querier.map_or("?".to_string(), |q| q.address.to_string()),
            feed.groups.len(),
            feed.ports.join(", ")
        ))
        .evidence(evidence);
    }
    if remedy.is_empty() {
        remedy.push(format!(
            "Turn IGMP snooping on for VLAN {} as designed and check `show ip igmp snooping vlan {}`.",
            feed.vlan, feed.vlan
        ));
    }
    Verdict::fail(format!("{name}: {}", problems.join("; ")))
        .evidence(evidence)
        .remedy(remedy.join("\n"))
}
