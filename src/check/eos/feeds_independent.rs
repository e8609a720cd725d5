//! `site.feeds.independent`: the first check over several devices ([`crate::site`]). For each
//! market-data feed, side A and side B share no switch, no ingress port and no uplink, from the
//! switches' baselines (`market_feeds`: which switch and port receives which side) and their
//! LLDP neighbours (`show lldp neighbors`: where each ingress port leads).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::feeds::{Feed, Letter, Side, sides};
use super::ports::PortKind;
use crate::Invalid;
use crate::outcome::combine;
use crate::site::{Member, SiteCheck};
use premarket_core::{Platform, Verdict};
use premarket_parse::AnyQuery;
use premarket_platform::eos::ShowLldpNeighbors;

/// Feed A and feed B exist so that one failure cannot take both: for every feed the switches'
/// baselines list, each place side A is received and each place side B is received must not
/// meet at the levels the site requires:
/// - **switch**: not the same switch (a reload or a power loss takes both);
/// - **port**: not the same ingress port (one optic, one cable);
/// - **uplink**: not the same device at the other end of the ingress ports, as LLDP shows it
///   (one carrier router, one distribution switch), or as the side's `uplink:` says where the
///   far end sends no LLDP; an ingress port with neither is an ERROR (never assumed apart).
///
/// A feed with only one side listed is SKIP for that feed (nothing to be independent of).
///
/// ```yaml
/// - id: site.feeds.independent
///   platform: site
/// ```
/// Site baseline (`site.yaml`): `expect.feed_independence: [switch, port, uplink]` (optional,
/// all three by default; a site with one switch drops `switch`). Device baselines:
/// `expect.market_feeds` (`super::feeds`).
pub struct FeedsIndependent;

/// `site.yaml` `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    /// Where a feed's A and B sides may not meet (all three when not given; a site with one
    /// switch drops `switch`).
    #[serde(default)]
    feed_independence: Option<Vec<Level>>,
}

/// A level at which two sides may not meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Switch,
    Port,
    Uplink,
}

impl Input {
    fn requires(&self, level: Level) -> bool {
        self.feed_independence
            .as_ref()
            .is_none_or(|levels| levels.contains(&level))
    }
}

/// A switch's `expect:` keys read (a switch without feeds takes no part).
#[derive(Deserialize, schemars::JsonSchema)]
pub struct DeviceInput {
    #[serde(default)]
    market_feeds: Vec<Feed>,
}

impl SiteCheck for FeedsIndependent {
    const ID: &'static str = "site.feeds.independent";
    const PLATFORMS: &'static [Platform] = &[Platform::Eos];
    type Input = Input;
    type DeviceInput = DeviceInput;

    fn validate(input: &Input) -> Result<(), Invalid> {
        match &input.feed_independence {
            Some(levels) if levels.is_empty() => Err(
                "`expect.feed_independence` lists no level: name at least one of switch, port, uplink (or remove the check from the catalog)".into(),
            ),
            _ => Ok(()),
        }
    }

    fn takes_part(_: &Input, device: &DeviceInput) -> bool {
        !device.market_feeds.is_empty()
    }

    fn queries(input: &Input, device: &DeviceInput) -> Vec<Box<dyn AnyQuery>> {
        if device.market_feeds.is_empty() || !input.requires(Level::Uplink) {
            return Vec::new();
        }
        vec![Box::new(ShowLldpNeighbors)]
    }

    fn evaluate(input: &Input, members: &[Member<'_, DeviceInput>]) -> Verdict {
        // Every place each feed's sides are received, by feed name, in the site's order.
        let mut by_feed: BTreeMap<&str, Vec<Place<'_>>> = BTreeMap::new();
        for member in members {
            for (feed, letter, side) in sides(&member.input.market_feeds) {
                let uplink = if input.requires(Level::Uplink) {
                    uplinks(member, side)
                } else {
                    Ok(Vec::new())
                };
                by_feed.entry(&feed.name).or_default().push(Place {
                    switch: member.name,
                    letter,
                    side,
                    uplink,
                });
            }
        }
        let parts = by_feed
            .iter()
            .map(|(feed, places)| judge(input, feed, places))
            .collect();
        let levels: Vec<&str> = [
            (Level::Switch, "switch"),
            (Level::Port, "ingress port"),
            (Level::Uplink, "uplink"),
        ]
        .iter()
        .filter(|(l, _)| input.requires(*l))
        .map(|(_, w)| *w)
        .collect();
        combine(
            parts,
            "feeds",
            format!(
                "side A and side B of every feed share no {}",
                levels.join(", no ")
            ),
        )
    }
}

/// Where one side of a feed is received.
struct Place<'a> {
    switch: &'a str,
    letter: Letter,
    side: &'a Side,
    /// The devices at the other end of its ingress port, each with its port; or why that is
    /// not known.
    uplink: Result<Vec<(String, String)>, Box<Verdict>>,
}

impl Place<'_> {
    fn at(&self) -> String {
        format!("{} {}", self.switch, self.side.port)
    }
}

/// The devices LLDP sees at the other end of the side's ingress port (a subinterface's
/// physical port), else the baseline's `uplink:`.
fn uplinks(
    member: &Member<'_, DeviceInput>,
    side: &Side,
) -> Result<Vec<(String, String)>, Box<Verdict>> {
    let lldp = member.get(&ShowLldpNeighbors)?;
    let port = match PortKind::of(&side.port) {
        PortKind::Subinterface { parent } => parent,
        _ => side.port.as_str(),
    };
    let seen: Vec<(String, String)> = lldp
        .on(port)
        .map(|n| (n.device.clone(), n.neighbor_port.clone()))
        .collect();
    if !seen.is_empty() {
        return Ok(seen);
    }
    match &side.uplink {
        Some(device) => Ok(vec![(device.clone(), "(per the baseline's `uplink:`)".into())]),
        None => Err(Box::new(
            Verdict::error(format!(
                "{}: no LLDP neighbour on {} {port} and no `uplink:` for the side: which uplink it arrives on is not known",
                member.name, member.name
            ))
            .remedy(format!(
                "Enable LLDP on {port} and ask the far end to send it, or name the upstream device in the side's `uplink:` (`expect.market_feeds` of {}). Rerun `premarket check site.feeds.independent`.",
                member.name
            )),
        )),
    }
}

fn judge(input: &Input, feed: &str, places: &[Place<'_>]) -> Verdict {
    let (a, b): (Vec<&Place<'_>>, Vec<&Place<'_>>) =
        places.iter().partition(|p| p.letter == Letter::A);
    let evidence = places
        .iter()
        .map(|p| {
            let far = match &p.uplink {
                Ok(seen) if seen.is_empty() => "uplink not judged".to_string(),
                Ok(seen) => seen
                    .iter()
                    .map(|(d, port)| format!("{d} {port}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                Err(_) => "uplink not known".to_string(),
            };
            format!(
                "{feed} side {}: {} ({}) -> {far}",
                p.letter,
                p.at(),
                p.side.group
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    if a.is_empty() || b.is_empty() {
        let only = places.first().map(|p| p.letter).unwrap_or(Letter::A);
        let at: Vec<String> = places.iter().map(|p| p.at()).collect();
        return Verdict::skip(format!(
            "{feed}: only side {only} is listed ({}): nothing to be independent of",
            at.join(", ")
        ))
        .evidence(evidence);
    }
    let mut shared = Vec::new();
    let mut unknown = Vec::new();
    for x in &a {
        for y in &b {
            let pair = format!("side A ({}) and side B ({})", x.at(), y.at());
            if input.requires(Level::Switch) && x.switch == y.switch {
                shared.push(format!("{pair} are on one switch, {}", x.switch));
            }
            if input.requires(Level::Port) && x.switch == y.switch && x.side.port == y.side.port {
                shared.push(format!("{pair} enter on one port, {}", x.at()));
            }
            if !input.requires(Level::Uplink) {
                continue;
            }
            match (&x.uplink, &y.uplink) {
                (Ok(ux), Ok(uy)) => {
                    let common: Vec<&str> = ux
                        .iter()
                        .filter(|(d, _)| uy.iter().any(|(e, _)| e == d))
                        .map(|(d, _)| d.as_str())
                        .collect();
                    if let Some(device) = common.first() {
                        shared.push(format!("{pair} share an uplink: both arrive from {device}"));
                    }
                }
                (Err(e), _) | (_, Err(e)) => {
                    if !unknown.contains(&e.summary) {
                        unknown.push(e.summary.clone());
                    }
                }
            }
        }
    }
    if !shared.is_empty() {
        return Verdict::fail(format!("{feed}: {}", shared.join("; "))).evidence(evidence);
    }
    if !unknown.is_empty() {
        let remedy = places
            .iter()
            .find_map(|p| p.uplink.as_ref().err().and_then(|e| e.remedy.clone()));
        let mut v = Verdict::error(format!("{feed}: {}", unknown.join("; "))).evidence(evidence);
        v.remedy = remedy;
        return v;
    }
    Verdict::ok(format!("{feed}: side A and side B independent")).evidence(evidence)
}
