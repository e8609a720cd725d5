//! `eos.mlag.healthy`: MLAG, where configured, is active with its peer, from `show mlag` and
//! `show mlag config-sanity`.

use serde::Deserialize;

use crate::Check;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{Mlag, ShowMlag, ShowMlagConfigSanity};

/// Where MLAG is configured: it is `active`, negotiated with the peer (`connected`), the peer
/// link and the local interface are up, the peers' configurations are consistent
/// (config-sanity; the differing settings are named) and no MLAG port is inactive or active on
/// one side only. An MLAG pair that lost its peer link keeps forwarding until the next failure,
/// which then takes both switches' hand-offs. A switch without MLAG (`state: disabled`) is
/// SKIP, saying so, unless the baseline requires it.
///
/// ```yaml
/// - id: eos.mlag.healthy
///   platform: eos
/// ```
/// Baseline: `expect.mlag_required: true` (optional, default false: judged where configured).
pub struct MlagHealthy;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    mlag_required: bool,
}

impl Check for MlagHealthy {
    const ID: &'static str = "eos.mlag.healthy";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowMlag), Box::new(ShowMlagConfigSanity)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let mlag = facts.get(&ShowMlag)?;
        let evidence = line(mlag);
        if !mlag.configured() {
            if input.mlag_required {
                return Ok(Verdict::fail("MLAG is not configured (state: disabled), and the baseline requires it")
                    .evidence(evidence)
                    .remedy("Configure MLAG as designed (`mlag configuration`: domain-id, local-interface, peer-address, peer-link), or set `mlag_required: false` if this switch stands alone. Rerun `premarket check eos.mlag.healthy`."));
            }
            return Ok(
                Verdict::skip("MLAG is not configured on this switch (state: disabled)")
                    .evidence(evidence),
            );
        }
        let word = |v: &Option<String>| v.clone().unwrap_or_else(|| "not printed".into());
        let mut problems = Vec::new();
        if mlag.state != "active" {
            problems.push(format!("state {}, not active", mlag.state));
        }
        if mlag.neg_status.as_deref() != Some("connected") {
            problems.push(format!(
                "negotiation {}, not connected",
                word(&mlag.neg_status)
            ));
        }
        if !up(&mlag.peer_link_status) {
            problems.push(format!(
                "peer link {} {}",
                mlag.peer_link.as_deref().unwrap_or(""),
                word(&mlag.peer_link_status)
            ));
        }
        if !up(&mlag.local_intf_status) {
            problems.push(format!("local interface {}", word(&mlag.local_intf_status)));
        }
        if mlag
            .config_sanity
            .as_deref()
            .is_some_and(|c| c != "consistent")
        {
            problems.push(format!(
                "config-sanity {}{}",
                word(&mlag.config_sanity),
                differences(facts)
            ));
        }
        for (count, what) in [
            (mlag.ports.inactive, "inactive"),
            (
                mlag.ports.active_partial,
                "active on one peer only (Active-partial)",
            ),
        ] {
            if let Some(n) = count.filter(|n| *n > 0) {
                problems.push(format!("{n} MLAG port(s) {what}"));
            }
        }
        let domain = mlag.domain_id.as_deref().unwrap_or("MLAG");
        if problems.is_empty() {
            return Ok(Verdict::ok(format!(
                "{domain}: active, connected to {}, peer link up, consistent",
                mlag.peer_address.as_deref().unwrap_or("its peer")
            ))
            .evidence(evidence));
        }
        Ok(Verdict::fail(format!("{domain}: {}", problems.join("; ")))
            .evidence(evidence)
            .remedy("Check the peer link (`show interfaces` of its members, `show mlag detail`), the peer switch, and `show mlag config-sanity` for the settings to align on both peers; an MLAG pair without its peer link loses both hand-offs at the next failure. Rerun `premarket check eos.mlag.healthy`."))
    }
}

fn up(status: &Option<String>) -> bool {
    status.as_deref() == Some("up")
}

/// ` (Port-Channel30 trunk-native-vlan mlag30: 123 here, 3700 on the peer)`, or why they are
/// not known.
fn differences(facts: &Facts) -> String {
    match facts.get(&ShowMlagConfigSanity) {
        Ok(sanity) if !sanity.inconsistencies.is_empty() => {
            let each: Vec<String> = sanity
                .inconsistencies
                .iter()
                .map(|i| {
                    format!(
                        "{} {}: {} here, {} on the peer",
                        i.scope, i.parameter, i.local, i.peer
                    )
                })
                .collect();
            format!(" ({})", each.join("; "))
        }
        Ok(_) => " (`show mlag config-sanity` names no setting)".into(),
        Err(e) => format!(" (the differing settings are not known: {e})"),
    }
}

fn line(m: &Mlag) -> String {
    let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    format!(
        "state {} negStatus {} peerLinkStatus {} localIntfStatus {} configSanity {} mlagPorts Inactive {} Active-partial {} Active-full {}",
        m.state,
        m.neg_status.as_deref().unwrap_or("-"),
        m.peer_link_status.as_deref().unwrap_or("-"),
        m.local_intf_status.as_deref().unwrap_or("-"),
        m.config_sanity.as_deref().unwrap_or("-"),
        n(m.ports.inactive),
        n(m.ports.active_partial),
        n(m.ports.active_full),
    )
}
