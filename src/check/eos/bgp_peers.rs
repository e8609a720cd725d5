//! `eos.bgp.peers`: the BGP sessions of the exchange hand-off, judged against the baseline's
//! peers and against the reference run (a reset since then), from `show ip bgp summary`.

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::outcome::combine;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts, Recorded};
use premarket_platform::eos::{BgpPeer, BgpSummary, ShowBgpSummary};

/// The hand-off's BGP sessions (the exchange, the broker, the carrier; per VRF): each
/// baseline peer is Established, its AS the baseline's where given, has not reset since the
/// reference run (its last state change is not newer than it was then: a flap at 06:10 that
/// recovered by itself is still a reset the desk wants to know of), and sends a number of
/// prefixes within the baseline's range: received or accepted (after the inbound policy,
/// which filters by design), per address family in the newer multi-agent shape. A switch that
/// runs no BGP (`% BGP inactive`) FAILs every peer. A baseline without `bgp_peers` (or with
/// none: most leaves have no hand-off session) is a SKIP that says so, and nothing is sent.
///
/// ```yaml
/// - id: eos.bgp.peers
///   platform: eos
/// ```
/// Baseline: `expect.bgp_peers: [{ name: exchange-a, peer: 10.1.1.1, vrf: default, asn: 65010,
/// min_prefixes: 10, max_prefixes: 500, count: accepted, family: ipv4Unicast }]` (`name`,
/// `vrf` (default `default`), `asn`, `max_prefixes`, `count` (default `accepted`) and `family`
/// (default `ipv4Unicast`, read only in the newer shape) optional; `min_prefixes` defaults
/// to 1). Without the key: SKIP.
pub struct BgpPeers;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    bgp_peers: Vec<Peer>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    #[serde(default)]
    name: Option<String>,
    /// The peer's key as the switch prints it (`10.1.1.1`, `fe80::1%Et3`).
    peer: String,
    #[serde(default = "default_vrf")]
    vrf: String,
    #[serde(default, deserialize_with = "asn")]
    asn: Option<String>,
    #[serde(default = "one")]
    min_prefixes: u64,
    #[serde(default)]
    max_prefixes: Option<u64>,
    #[serde(default)]
    count: Count,
    #[serde(default = "unicast")]
    family: String,
}

/// Which prefix count the range applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Count {
    #[default]
    Accepted,
    Received,
}

fn default_vrf() -> String {
    "default".into()
}

fn one() -> u64 {
    1
}

fn unicast() -> String {
    "ipv4Unicast".into()
}

/// An AS number written as a number (`65010`) or as text (asdot `65002.2048`).
fn asn<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(untagged)]
    enum Asn {
        Number(u32),
        Text(String),
    }
    match Asn::deserialize(d)? {
        Asn::Number(n) => Ok(Some(n.to_string())),
        Asn::Text(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.') => {
            Ok(Some(t))
        }
        Asn::Text(t) => Err(de::Error::custom(format!("{t:?} is not an AS number"))),
    }
}

impl Peer {
    fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{name} ({}, VRF {})", self.peer, self.vrf),
            None => format!("{} (VRF {})", self.peer, self.vrf),
        }
    }
}

impl Check for BgpPeers {
    const ID: &'static str = "eos.bgp.peers";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        for p in &input.bgp_peers {
            if p.max_prefixes.is_some_and(|max| max < p.min_prefixes) {
                return Err(Invalid(format!(
                    "`expect.bgp_peers` {}: max_prefixes is below min_prefixes",
                    p.label()
                )));
            }
        }
        Ok(())
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        if input.bgp_peers.is_empty() {
            return Vec::new();
        }
        vec![Box::new(ShowBgpSummary)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        if input.bgp_peers.is_empty() {
            return Ok(Verdict::skip(
                "the baseline names no BGP peer (`expect.bgp_peers`): nothing to judge on this switch; where it has hand-off sessions, list them there (`- { name, peer, vrf, asn, min_prefixes, max_prefixes }`)",
            ));
        }
        let now = facts.get(&ShowBgpSummary)?;
        let previous = facts.previous(&ShowBgpSummary);
        let reference = match &previous {
            Some((Ok(fact), record)) => Reference::Run(fact, record),
            Some((Err(e), record)) => Reference::Unreadable(format!(
                "the reference run's record ({}) is unreadable ({e})",
                record.run_id
            )),
            None => Reference::FirstRun,
        };
        let evidence = |p: &Peer| {
            now.vrfs
                .get(&p.vrf)
                .and_then(|v| v.peers.get(&p.peer))
                .map(|b| line(&p.peer, &p.vrf, b))
                .unwrap_or_default()
        };
        let parts = input
            .bgp_peers
            .iter()
            .map(|p| judge(p, now, &reference, facts).evidence(evidence(p)))
            .collect();
        let mut verdict = combine(
            parts,
            "BGP peers",
            "every baseline BGP peer Established with its prefixes in range, not reset since the reference run",
        );
        if verdict.status == premarket_core::Status::Ok {
            match &reference {
                Reference::FirstRun => verdict.summary.push_str(
                    " (first run on this switch: the sessions' last changes are recorded, resets are judged from the next run)",
                ),
                Reference::Unreadable(why) => {
                    verdict.summary = format!("{}; {why}: resets are judged from the next run", verdict.summary)
                }
                Reference::Run(..) => {}
            }
        }
        Ok(verdict)
    }
}

/// The run the sessions' last changes are compared with.
enum Reference<'a> {
    FirstRun,
    Unreadable(String),
    Run(&'a BgpSummary, &'a Recorded),
}

/// One peer as the evidence shows it.
fn line(key: &str, vrf: &str, b: &BgpPeer) -> String {
    let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let reason = b
        .reason
        .as_deref()
        .map(|r| format!("({r})"))
        .unwrap_or_default();
    let families: Vec<String> = b
        .families
        .iter()
        .map(|(f, c)| format!(" {f}={}/{}/{}", c.state, n(c.received), n(c.accepted)))
        .collect();
    format!(
        "VRF {vrf} {key}: {}{reason} AS {} received {} accepted {}{}",
        b.state,
        b.asn.as_deref().unwrap_or("-"),
        n(b.prefixes_received),
        n(b.prefixes_accepted),
        families.concat()
    )
}

fn judge(p: &Peer, now: &BgpSummary, reference: &Reference<'_>, facts: &Facts) -> Verdict {
    let label = p.label();
    if now.inactive {
        return Verdict::fail(format!("{label}: BGP is not running on the switch (`% BGP inactive`)"))
            .remedy("Check `show running-config section router bgp` (and `service routing protocols model`); the hand-off has no route to the exchange until BGP runs.");
    }
    let Some(vrf) = now.vrfs.get(&p.vrf) else {
        let known: Vec<&str> = now.vrfs.keys().map(String::as_str).collect();
        return Verdict::fail(format!(
            "{label}: VRF {} has no BGP instance (VRFs with BGP: {})",
            p.vrf,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    let Some(b) = vrf.peers.get(&p.peer) else {
        return Verdict::fail(format!("{label}: not a BGP neighbour of the switch (not in `show ip bgp summary`)"))
            .remedy("Check `router bgp` (`neighbor ... remote-as`) against the hand-off's design, or fix `peer`/`vrf` in `expect.bgp_peers`.");
    };
    let mut problems = Vec::new();
    if !b.established() {
        let reason = b
            .reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        problems.push(format!("{}{reason}, not Established", b.state));
    }
    if let (Some(want), Some(got)) = (&p.asn, &b.asn)
        && want != got
    {
        problems.push(format!("AS {got}, the baseline says {want}"));
    }
    if b.established() {
        match prefixes(p, b) {
            Err(why) => return Verdict::error(format!("{label}: {why}")),
            Ok(n) if n < p.min_prefixes => problems.push(format!(
                "{} {}, at least {} expected",
                counted(n),
                count_word(p.count),
                p.min_prefixes
            )),
            Ok(n) if p.max_prefixes.is_some_and(|max| n > max) => problems.push(format!(
                "{} {}, at most {} expected",
                counted(n),
                count_word(p.count),
                p.max_prefixes.unwrap_or_default()
            )),
            Ok(_) => {}
        }
        if let Some(reset) = reset_since(p, b, reference, facts) {
            problems.push(reset);
        }
    }
    if problems.is_empty() {
        let n = prefixes(p, b).unwrap_or_default();
        return Verdict::ok(format!(
            "{label}: Established, {} {}",
            counted(n),
            count_word(p.count)
        ));
    }
    Verdict::fail(format!("{label}: {}", problems.join("; "))).remedy(format!(
        "Check the session to {}: `show ip bgp neighbors {} vrf {}` (last reset reason, hold timer), the hand-off link and BFD, and the exchange's or carrier's side; a prefix count out of range points at their announcements or the inbound policy (`show ip bgp neighbors {} received-routes`). Rerun `premarket check eos.bgp.peers`.",
        label, p.peer, p.vrf, p.peer
    ))
}

/// `1 prefix`, `12 prefixes`.
fn counted(n: u64) -> String {
    if n == 1 {
        "1 prefix".into()
    } else {
        format!("{n} prefixes")
    }
}

fn count_word(count: Count) -> &'static str {
    match count {
        Count::Accepted => "accepted",
        Count::Received => "received",
    }
}

/// Why a peer's prefix count is not known.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct NoCount(String);

/// The count the range applies to: the older shape's, else the baseline's address family's.
fn prefixes(p: &Peer, b: &BgpPeer) -> Result<u64, NoCount> {
    let older = match p.count {
        Count::Accepted => b.prefixes_accepted,
        Count::Received => b.prefixes_received,
    };
    if let Some(n) = older {
        return Ok(n);
    }
    if b.reason.as_deref() == Some("NotNegotiated") {
        return Ok(0);
    }
    let family = b.families.get(&p.family).ok_or_else(|| {
        NoCount(format!(
            "`show ip bgp summary` prints no prefix count and no {} family for it",
            p.family
        ))
    })?;
    if family.state != "negotiated" {
        return Ok(0);
    }
    match p.count {
        Count::Accepted => family.accepted,
        Count::Received => family.received,
    }
    .ok_or_else(|| NoCount(format!("its {} family prints no prefix count", p.family)))
}

/// Whether the session's last state change is later than in the reference run: said with
/// when, or `None` when it did not reset (or cannot be told).
fn reset_since(
    p: &Peer,
    now: &BgpPeer,
    reference: &Reference<'_>,
    facts: &Facts,
) -> Option<String> {
    let Reference::Run(before, record) = reference else {
        return None;
    };
    let then = before.vrfs.get(&p.vrf)?.peers.get(&p.peer)?;
    // The switch's own clock, both runs: no skew between the switch and premarket.
    if let (Some(now_us), Some(then_us)) = (now.changed_us, then.changed_us) {
        return (now_us > then_us + 1_000_000).then(|| {
            format!(
                "reset since the reference run ({}): up for {} only",
                record.run_id,
                ago(facts, now_us)
            )
        });
    }
    // The text's "up for": reset when shorter than the time since the reference (at its
    // granularity: seconds under a day, hours after).
    let (up, at, then_at) = (
        now.changed_ago_s?,
        facts.collected_at()?,
        record.collected_at?,
    );
    let since = u64::try_from((at - then_at).num_seconds()).ok()?;
    let slack = if up < 86_400 { 2 } else { 3600 };
    (up + slack < since).then(|| {
        format!(
            "reset since the reference run ({}): up for {up} s only",
            record.run_id
        )
    })
}

/// How long ago `us` (the switch's epoch microseconds) was, by the collection time.
fn ago(facts: &Facts, us: u64) -> String {
    let Some(at) = facts.collected_at() else {
        return "an unknown time".into();
    };
    let now_us = at.timestamp_micros().max(0) as u64;
    let s = now_us.saturating_sub(us) / 1_000_000;
    match s {
        0..120 => format!("{s} s"),
        120..7200 => format!("{} min", s / 60),
        _ => format!("{} h", s / 3600),
    }
}
