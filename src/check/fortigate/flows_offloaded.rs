use super::flows::{self, capped, render_mcast, summary_evidence};
use super::flows::{FlowsInput, all_queries, require_flows};
use super::reasons::explain;
use crate::outcome::combine;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{Flow, Np, OffloadBasis, OffloadProof, Session};

/// Every trading flow has a session, and every direction that carries traffic is offloaded to
/// the NP. A flow on the CPU path costs ~14 us at the median and ~44 us at p99 and alarms
/// nobody: reading the session's offload state is the only way to know (the lab notes).
///
/// Unicast flows are listed with `diagnose sys session list` under a session filter (cleared
/// first, read back before listing); multicast flows with `diagnose sys mcast-session list`,
/// where only `npu-deny` (offload refused) is a documented sign: a multicast flow is ERROR
/// "cannot tell" unless its baseline says `offload_proof: probe`.
///
/// ```yaml
/// - id: fortigate.flows.offloaded
///   platform: fortigate
/// ```
/// Baseline: `expect.flows` (name, protocol, src, dst, dport, policy, `offload_proof` for
/// multicast), `expect.np` (`np7lite` on a 200G/201G: remedies name its commands).
pub struct FlowsOffloaded;

pub const NOT_ESTABLISHED: &str = "not established before the open: log in / start the feed now so its first packets take the CPU before trading";

impl Check for FlowsOffloaded {
    const ID: &'static str = "fortigate.flows.offloaded";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), Invalid> {
        require_flows(&input.flows)
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        all_queries(&input.flows)
    }

    fn evaluate(input: &FlowsInput, facts: &Facts) -> Result<Verdict, FactError> {
        let parts = input
            .flows
            .iter()
            .map(|flow| {
                if flow.is_multicast() {
                    multicast(facts, flow)
                } else {
                    unicast(facts, flow, input.np)
                }
            })
            .collect();
        Ok(combine(
            parts,
            "flows",
            "every trading flow has a session, offloaded in each direction that carries traffic",
        ))
    }
}

fn not_established(flow: &Flow) -> Verdict {
    Verdict::fail(format!("{}: no session, {NOT_ESTABLISHED}", flow.describe()))
        .evidence(format!("{}: no session", flow.name))
        .remedy(format!(
            "Start {} now (log in / subscribe) so its session exists and is offloaded before the open, then rerun `premarket check fortigate.flows.offloaded`.",
            flow.name
        ))
}

fn unicast(facts: &Facts, flow: &Flow, np: Option<Np>) -> Verdict {
    let sessions = match flows::unicast(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    if sessions.sessions == 0 {
        return not_established(flow);
    }
    let evidence = summary_evidence(&flow.name, sessions);
    if let Some(want) = flow.policy
        && sessions.other_policies(want) > 0
    {
        let got = sessions
            .example_of_other_policy(want)
            .and_then(|s| s.policy_id)
            .map_or("another policy".to_string(), |p| format!("policy {p}"));
        return Verdict::fail(format!(
            "{}: {} of {} session(s) matched {got}, the baseline says policy {want}",
            flow.describe(),
            sessions.other_policies(want),
            sessions.sessions,
        ))
        .evidence(evidence)
        .remedy(format!("Check the policy order: policy {want} must be the one that matches {}; rerun after fixing it.", flow.name));
    }
    let Some(first) = sessions.first_not_offloaded.as_ref() else {
        let state = sessions
            .first
            .first()
            .and_then(|s| s.npu_state.as_deref())
            .unwrap_or("-");
        return Verdict::ok(format!(
            "{}: {} session(s) offloaded (npu_state={state})",
            flow.describe(),
            sessions.sessions
        ))
        .evidence(evidence);
    };
    let reasons: Vec<&str> = sessions
        .no_ofld_reasons
        .0
        .keys()
        .map(String::as_str)
        .collect();
    let (explanations, remedies): (Vec<String>, Vec<String>) = reasons
        .iter()
        .map(|r| explain(r, flow.policy, "firewall policy", np))
        .unzip();
    let why = match (reasons.as_slice(), explanations.as_slice()) {
        ([], _) => no_reason(first),
        ([_], [one]) => one.clone(),
        _ => reasons
            .iter()
            .zip(&explanations)
            .map(|(r, e)| format!("{r}: {e}"))
            .collect::<Vec<_>>()
            .join("; "),
    };
    let direction = if first.offload_org {
        "reply direction"
    } else {
        "CPU path"
    };
    let line = format!(
        "{}: {} of {} session(s) on the {direction} (npu_state={}, no_ofld_reason: {}): {why}",
        flow.describe(),
        sessions.not_offloaded(),
        sessions.sessions,
        first.npu_state.as_deref().unwrap_or("not printed"),
        if reasons.is_empty() {
            "-".to_string()
        } else {
            reasons.join(" ")
        },
    );
    let remedy = if remedies.is_empty() {
        "Read the session list and `diagnose debug flow` for this flow to find why the NP does not take it; check the policy with `premarket check fortigate.policy.offload`.".to_string()
    } else {
        remedies.join("\n")
    };
    Verdict::fail(line).evidence(evidence).remedy(remedy)
}

/// Why a session is not offloaded when FortiOS printed no reason.
fn no_reason(s: &Session) -> String {
    match s.offload_basis {
        OffloadBasis::Nothing => {
            "the session list prints no offload fields (a VM or a unit without an NP?)".to_string()
        }
        _ if s.offload_org => {
            "the reply direction carries traffic and is not offloaded; FortiOS printed no reason"
                .to_string()
        }
        _ => "not offloaded and FortiOS printed no reason".to_string(),
    }
}

/// Multicast (research §2): `npu-deny` on a path says the NP refused the session; nothing in
/// the list says a multicast session *is* offloaded, so without `npu-deny` the check cannot
/// tell, unless the baseline leaves the proof to the latency probe (`offload_proof: probe`).
fn multicast(facts: &Facts, flow: &Flow) -> Verdict {
    let sessions = match flows::multicast(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    if sessions.is_empty() {
        return not_established(flow);
    }
    let evidence = format!(
        "{}:\n{}",
        flow.name,
        capped(&sessions, 5, |s| render_mcast(s))
    );
    let policy = flow
        .policy
        .map_or("<policy id>".to_string(), |p| p.to_string());
    if sessions.iter().any(|s| s.denied) {
        return Verdict::fail(format!(
            "{}: the multicast session is denied (`state=...: deny`): no multicast policy accepts the group",
            flow.describe(),
        ))
        .evidence(evidence)
        .remedy(format!(
            "Accept the group in `config firewall multicast-policy` (policy {policy}) and rerun `premarket check fortigate.flows.offloaded`."
        ));
    }
    if let Some(want) = flow.policy
        && let Some(got) = sessions
            .iter()
            .flat_map(|s| &s.paths)
            .filter_map(|p| p.policy)
            .find(|p| *p != want)
    {
        return Verdict::fail(format!(
            "{}: forwarded by multicast policy {got}, the baseline says {want}",
            flow.describe()
        ))
        .evidence(evidence)
        .remedy(format!(
            "Check the multicast policy order: policy {want} must match {}.",
            flow.name
        ));
    }
    let refused = sessions
        .iter()
        .filter(|s| s.offloaded == Some(false))
        .count();
    if refused > 0 {
        return Verdict::fail(format!(
            "{}: {refused} of {} multicast session(s) not offloaded: the firewall prints `npu-deny` on the path (the NP refused the session), so the CPU forwards the group",
            flow.describe(),
            sessions.len()
        ))
        .evidence(evidence)
        .remedy(format!(
            "On the firewall: `config firewall multicast-policy`, `edit {policy}`, `set auto-asic-offload enable`, `end`; run `premarket check fortigate.offload.blockers` (sFlow, NP ports) and `premarket check fortigate.policy.offload`, then rerun."
        ));
    }
    match flow.offload_proof {
        OffloadProof::Probe => Verdict::ok(format!(
            "{}: {} multicast session(s) via policy {policy}, no `npu-deny`; the offload itself is proven by the latency probe (the multicast session list has no documented offload sign)",
            flow.describe(),
            sessions.len()
        ))
        .evidence(evidence),
        OffloadProof::Session => Verdict::error(format!(
            "{}: cannot tell whether the multicast session is offloaded: FortiOS documents no sign of an offloaded multicast session (only `npu-deny` for a refused one, and none is printed)",
            flow.describe()
        ))
        .evidence(evidence)
        .remedy(format!(
            "Prove the offload with the latency probe (`probe.latency.offloaded`) and set `offload_proof: probe` for {} in the baseline; premarket then judges only `npu-deny`, the policy and the session's presence here.",
            flow.name
        )),
    }
}
