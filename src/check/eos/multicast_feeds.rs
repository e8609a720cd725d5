use std::net::{IpAddr, Ipv4Addr};

use serde::Deserialize;

use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
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
/// querier: 10.100.0.1, querier_version: 2 }]` (`querier` optional: any querier then passes;
/// `querier_version` optional, judged where the switch prints the querier's version).
pub struct MulticastFeeds;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    multicast_feeds: Vec<Feed>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Feed {
    vlan: u16,
    groups: Vec<Ipv4Addr>,
    /// Ports the receivers are on: each must have joined each group.
    ports: Vec<String>,
    #[serde(default)]
    querier: Option<IpAddr>,
    /// The IGMP version the querier must speak (2 or 3), judged where the switch prints it:
    /// SSM `(S,G)` joins need IGMPv3 (RFC 4604), a v2 querier makes v3 hosts fall back.
    #[serde(default)]
    querier_version: Option<u8>,
}

impl Check for MulticastFeeds {
    const ID: &'static str = "eos.multicast.feeds";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        if input.multicast_feeds.is_empty() {
            return Err("`expect.multicast_feeds` lists no feed".into());
        }
        for feed in &input.multicast_feeds {
            if let Some(g) = feed.groups.iter().find(|g| !g.is_multicast()) {
                return Err(Invalid(format!(
                    "`expect.multicast_feeds` VLAN {}: {g} is not a multicast group",
                    feed.vlan
                )));
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
    if let (Some(q), Some(want)) = (querier, feed.querier_version)
        && let Some(printed) = &q.version
    {
        match version_number(printed) {
            Some(v) if v == want => {}
            Some(v) => {
                problems.push(format!(
                    "the querier speaks IGMPv{v}, the baseline says v{want}"
                ));
                remedy.push(format!(
                    "Set the querier of VLAN {} to IGMPv{want} as designed (the handoff router's `ip igmp version`, or `ip igmp snooping vlan {} querier version {want}` on the switch).",
                    feed.vlan, feed.vlan
                ));
            }
            None => {
                return Verdict::error(format!(
                    "{name}: the querier's version {printed:?} is not one premarket reads (v1, v2, v3)"
                ))
                .evidence(format!(
                    "show ip igmp snooping querier: VLAN {} querier {} version {printed:?}",
                    feed.vlan, q.address
                ));
            }
        }
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

/// `v2`, `2`, `IGMPv3` ... as a number 1-3.
fn version_number(printed: &str) -> Option<u8> {
    let digits = printed
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_alphabetic());
    match digits {
        "1" => Some(1),
        "2" => Some(2),
        "3" => Some(3),
        _ => None,
    }
}
