//! `eos.bfd.peers`: the hand-off's BFD sessions are up, from `show bfd peers`.

use serde::Deserialize;

use crate::Check;
use crate::outcome::combine;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{BfdSession, ShowBfdPeers};

/// Each BFD session the baseline lists is `up` and established: the peer answers with its own
/// discriminator (an `up` with `remoteDisc` 0 never heard the peer, as ANTA judges). BFD is
/// what brings BGP down within a second when the hand-off's path fails; without it, a silent
/// failure waits for the BGP hold timer (90 s by default) while the feed is lost. A baseline
/// without `bfd_peers` (or with none: most leaves run no BFD) is a SKIP that says so, and
/// nothing is sent.
///
/// ```yaml
/// - id: eos.bfd.peers
///   platform: eos
/// ```
/// Baseline: `expect.bfd_peers: [{ peer: 10.1.1.1, vrf: default, interface: Ethernet1 }]`
/// (`vrf` default `default`; `interface` optional: any session to the peer otherwise).
pub struct BfdPeers;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    bfd_peers: Vec<Peer>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    peer: String,
    #[serde(default = "default_vrf")]
    vrf: String,
    #[serde(default)]
    interface: Option<String>,
}

fn default_vrf() -> String {
    "default".into()
}

impl Check for BfdPeers {
    const ID: &'static str = "eos.bfd.peers";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        if input.bfd_peers.is_empty() {
            return Vec::new();
        }
        vec![Box::new(ShowBfdPeers)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        if input.bfd_peers.is_empty() {
            return Ok(Verdict::skip(
                "the baseline names no BFD session (`expect.bfd_peers`): nothing to judge on this switch; where it runs BFD to the hand-off, list the sessions there (`- { peer, vrf, interface }`)",
            ));
        }
        let bfd = facts.get(&ShowBfdPeers)?;
        let parts = input
            .bfd_peers
            .iter()
            .map(|p| {
                let sessions: Vec<&BfdSession> = bfd
                    .to(&p.vrf, &p.peer)
                    .filter(|s| p.interface.is_none() || s.interface == p.interface)
                    .collect();
                judge(p, &sessions)
            })
            .collect();
        Ok(combine(
            parts,
            "BFD sessions",
            "every baseline BFD session up, the peer answering",
        ))
    }
}

fn line(s: &BfdSession) -> String {
    format!(
        "VRF {} {} on {}: {} remoteDisc {}{}",
        s.vrf,
        s.peer,
        s.interface.as_deref().unwrap_or("(multihop)"),
        s.status,
        s.remote_disc.map_or("-".to_string(), |d| d.to_string()),
        s.last_diag
            .as_deref()
            .map(|d| format!(", last diagnosis {d}"))
            .unwrap_or_default()
    )
}

fn judge(p: &Peer, sessions: &[&BfdSession]) -> Verdict {
    let on = p
        .interface
        .as_deref()
        .map(|i| format!(" on {i}"))
        .unwrap_or_default();
    let label = format!("{} (VRF {}){on}", p.peer, p.vrf);
    let remedy = format!(
        "Check the BFD session to {}: `show bfd peers detail` (state, last diagnosis), the link, and BFD on the peer's side (intervals, multiplier); a session the peer never answers is a configuration mismatch. Rerun `premarket check eos.bfd.peers`.",
        p.peer
    );
    let evidence = sessions
        .iter()
        .map(|s| line(s))
        .collect::<Vec<_>>()
        .join("\n");
    if sessions.is_empty() {
        return Verdict::fail(format!("{label}: no BFD session to it")).remedy(remedy);
    }
    let bad: Vec<String> = sessions
        .iter()
        .filter_map(|s| match (s.status.as_str(), s.remote_disc) {
            ("up", Some(0)) => {
                Some("up, but the peer's discriminator is 0: it never answered".to_string())
            }
            ("up", _) => None,
            (state, _) => Some(match &s.last_diag {
                Some(diag) => format!("{state} ({diag})"),
                None => state.to_string(),
            }),
        })
        .collect();
    if bad.is_empty() {
        return Verdict::ok(format!("{label}: up")).evidence(evidence);
    }
    Verdict::fail(format!("{label}: {}", bad.join("; ")))
        .evidence(evidence)
        .remedy(remedy)
}
