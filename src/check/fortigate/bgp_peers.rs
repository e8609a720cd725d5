//! `fortigate.bgp.peers`: the BGP sessions of a firewall that routes to the hand-off (the
//! exchange's, the broker's, the carrier's routers), as `get router info bgp summary` prints
//! them on 6.x and 7.x.

use std::net::IpAddr;

use serde::Deserialize;

use crate::outcome::combine;
use crate::previous::{Earlier, earlier};
use crate::{Check, Invalid};
use premarket_core::{Platform, Status, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{BgpPeer, BgpSummary, GetBgpSummary};

/// Each baseline peer is Established, received between its `min_prefixes` and `max_prefixes`
/// prefixes, and was not reset since the previous run: its `Up/Down` is shorter than the time
/// since then (to the precision the format prints: seconds under a day, hours after). A peer
/// whose `Up/Down` says `never` while Established cannot be judged for a reset (said). The
/// first run records. A baseline without `bgp_peers` (a firewall that does not route to the
/// hand-off, such as a virtual wire pair) is a SKIP that says so, and nothing is sent.
///
/// ```yaml
/// - id: fortigate.bgp.peers
///   platform: fortigate
/// ```
/// Baseline: `expect.bgp_peers: [{ peer: 10.20.0.1, name: exchange, remote_as: 65010,
/// min_prefixes: 1, max_prefixes: 500, vrf: 0 }]` (only `peer` required).
pub struct BgpPeers;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    bgp_peers: Vec<PeerExpect>,
}

#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeerExpect {
    peer: IpAddr,
    /// What the peer is, for the report (`exchange`, `broker`).
    #[serde(default)]
    name: Option<String>,
    /// The 7.x `VRF <n>` block the session is in; any when not given.
    #[serde(default)]
    vrf: Option<u32>,
    #[serde(default)]
    remote_as: Option<AsNumber>,
    #[serde(default = "one")]
    min_prefixes: u64,
    #[serde(default)]
    max_prefixes: Option<u64>,
}

/// An AS number as a baseline writes it: `65010` or asdot `65000.100`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum AsNumber {
    Number(u64),
    Text(String),
}

impl AsNumber {
    fn text(&self) -> String {
        match self {
            AsNumber::Number(n) => n.to_string(),
            AsNumber::Text(t) => t.clone(),
        }
    }
}

fn one() -> u64 {
    1
}

/// A session reset within this margin of the previous run is not told from clock skew.
const MARGIN_S: u64 = 60;

impl PeerExpect {
    fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("{} ({n})", self.peer),
            None => self.peer.to_string(),
        }
    }
}

impl Check for BgpPeers {
    const ID: &'static str = "fortigate.bgp.peers";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        for p in &input.bgp_peers {
            if p.max_prefixes.is_some_and(|max| max < p.min_prefixes) {
                return Err(Invalid(format!(
                    "`expect.bgp_peers[{}]`: max_prefixes is below min_prefixes",
                    p.peer
                )));
            }
        }
        Ok(())
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        if input.bgp_peers.is_empty() {
            return Vec::new();
        }
        vec![Box::new(GetBgpSummary)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        if input.bgp_peers.is_empty() {
            return Ok(Verdict::skip(
                "the baseline lists no BGP peer (`bgp_peers`): this firewall does not route to the hand-off",
            ));
        }
        let summary = facts.get(&GetBgpSummary)?;
        let before = earlier(facts, &GetBgpSummary);
        let elapsed = match (&before, facts.collected_at()) {
            (
                Earlier::Run {
                    collected_at: Some(then),
                    ..
                },
                Some(now),
            ) => u64::try_from((now - *then).num_seconds()).ok(),
            _ => None,
        };
        let mut notes = Vec::new();
        let parts = input
            .bgp_peers
            .iter()
            .map(|want| {
                let (verdict, note) = judge(want, summary, &before, elapsed);
                notes.extend(note);
                verdict
            })
            .collect();
        let mut verdict = combine(
            parts,
            "BGP peers",
            "every baseline peer Established, prefixes within the baseline, not reset since the previous run",
        );
        if matches!(before, Earlier::FirstRun) {
            notes.push("first run: resets are judged from the next run".into());
        } else if let Earlier::Unreadable(why) = &before {
            notes.push(why.clone());
        }
        if verdict.status == Status::Ok && !notes.is_empty() {
            verdict.summary = format!("{} ({})", verdict.summary, notes.join("; "));
        }
        Ok(verdict.evidence(table(summary)))
    }
}

/// The peer's row, or the verdict of its absence: FAIL when it is not configured, ERROR when
/// the baseline does not say which of several VRFs' sessions it means.
fn find<'a>(want: &PeerExpect, summary: &'a BgpSummary) -> Result<&'a BgpPeer, Box<Verdict>> {
    let label = want.label();
    let rows: Vec<&BgpPeer> = summary
        .peers
        .iter()
        .filter(|p| p.neighbor == want.peer && want.vrf.is_none_or(|v| p.vrf == Some(v)))
        .collect();
    match rows.as_slice() {
        [one] => Ok(one),
        [] => Err(Box::new(Verdict::fail(match want.vrf {
            Some(v) => format!("{label}: not in `get router info bgp summary` (VRF {v})"),
            None => format!(
                "{label}: not in `get router info bgp summary`: no such neighbor configured"
            ),
        }))),
        many => Err(Box::new(Verdict::error(format!(
            "{label}: listed in VRFs {}: set `vrf` for it in the baseline",
            many.iter()
                .map(|p| p.vrf.map_or("-".into(), |v| v.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        )))),
    }
}

fn judge(
    want: &PeerExpect,
    summary: &BgpSummary,
    before: &Earlier<BgpSummary>,
    elapsed: Option<u64>,
) -> (Verdict, Option<String>) {
    let label = want.label();
    let peer = match find(want, summary) {
        Ok(p) => p,
        Err(verdict) => return (*verdict, None),
    };
    let mut problems = Vec::new();
    if let Some(asn) = &want.remote_as
        && asn.text() != peer.remote_as
    {
        problems.push(format!(
            "remote AS {}, the baseline says {}",
            peer.remote_as,
            asn.text()
        ));
    }
    let Some(prefixes) = peer.prefixes else {
        problems.push(format!(
            "{}, not Established (Up/Down {})",
            peer.state, peer.up_down
        ));
        return (
            Verdict::fail(format!("{label}: {}", problems.join("; "))),
            None,
        );
    };
    if prefixes < want.min_prefixes {
        problems.push(format!(
            "Established with {prefixes} prefixes received, the baseline wants at least {}",
            want.min_prefixes
        ));
    }
    if let Some(max) = want.max_prefixes
        && prefixes > max
    {
        problems.push(format!(
            "{prefixes} prefixes received, the baseline allows at most {max} (a leak, or the peer sends a full table)"
        ));
    }
    let mut note = None;
    if let (Earlier::Run { fact, run_id, .. }, Some(elapsed)) = (before, elapsed) {
        let was_up = fact
            .peers
            .iter()
            .any(|p| p.neighbor == peer.neighbor && p.vrf == peer.vrf && p.established());
        match peer.up {
            Some(up) if was_up && up.s + up.precision_s + MARGIN_S < elapsed => {
                problems.push(format!(
                    "reset since the previous run ({run_id}, {}): up for {} only",
                    ago(elapsed),
                    peer.up_down
                ));
            }
            None if was_up => {
                note = Some(format!(
                    "{label}: Up/Down `never`, a reset since the previous run cannot be told"
                ));
            }
            _ => {}
        }
    }
    if problems.is_empty() {
        (
            Verdict::ok(format!(
                "{label}: Established for {}, {prefixes} prefixes",
                peer.up_down
            )),
            note,
        )
    } else {
        (
            Verdict::fail(format!("{label}: {}", problems.join("; "))),
            None,
        )
    }
}

/// `2 h ago`, `35 min ago`.
fn ago(s: u64) -> String {
    if s >= 7200 {
        format!("{} h ago", s / 3600)
    } else {
        format!("{} min ago", s / 60)
    }
}

/// The neighbor table as judged.
fn table(summary: &BgpSummary) -> String {
    let rows: Vec<String> = summary
        .peers
        .iter()
        .map(|p| {
            format!(
                "    {}{} AS {} Up/Down {} {}",
                p.vrf.map_or(String::new(), |v| format!("VRF {v} ")),
                p.neighbor,
                p.remote_as,
                p.up_down,
                p.prefixes
                    .map_or(p.state.clone(), |n| format!("Established, {n} prefixes"))
            )
        })
        .collect();
    format!(
        "BGP router identifier {}, local AS {}:\n{}",
        summary.router_id.as_deref().unwrap_or("-"),
        summary.local_as.as_deref().unwrap_or("-"),
        rows.join("\n")
    )
}
