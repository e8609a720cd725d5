use super::flows::{self, capped, render, render_mcast};
use super::flows::{FlowsInput, all_queries, require_flows};
use super::outcome::combine;
use super::reasons::explain;
use crate::check::Check;
use crate::core::{Platform, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::{Flow, OffloadBasis, Session};

/// Every trading flow has a session, and every direction that carries traffic is offloaded to
/// the NP. A flow on the CPU path costs ~14 us at the median and ~44 us at p99 and alarms
/// nobody: reading the session's offload state is the only way to know (the lab notes).
///
/// Unicast flows are listed with `diagnose sys session list` under a session filter (cleared
/// first, read back before listing); multicast flows with `diagnose sys mcast-session list`.
///
/// ```yaml
/// - id: fortigate.flows.offloaded
///   platform: fortigate
/// ```
/// Baseline: `expect.flows` (name, protocol, src, dst, dport, policy).
pub struct FlowsOffloaded;

pub const NOT_ESTABLISHED: &str = "not established before the open: log in / start the feed now so its first packets take the CPU before trading";

impl Check for FlowsOffloaded {
    const ID: &'static str = "fortigate.flows.offloaded";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), String> {
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
                    unicast(facts, flow)
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

fn unicast(facts: &Facts, flow: &Flow) -> Verdict {
    let sessions = match flows::unicast(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    if sessions.is_empty() {
        return not_established(flow);
    }
    let evidence = format!("{}:\n{}", flow.name, capped(sessions, 5, render));
    let wrong_policy: Vec<&Session> = sessions
        .iter()
        .filter(|s| flow.policy.is_some() && s.policy_id.is_some() && s.policy_id != flow.policy)
        .collect();
    if let (Some(first), Some(want)) = (wrong_policy.first(), flow.policy) {
        return Verdict::fail(format!(
            "{}: matched policy {}, the baseline says policy {want}",
            flow.describe(),
            first.policy_id.unwrap_or_default()
        ))
        .evidence(evidence)
        .remedy(format!("Check the policy order: policy {want} must be the one that matches {}; rerun after fixing it.", flow.name));
    }
    let cpu: Vec<&Session> = sessions.iter().filter(|s| !s.offloaded()).collect();
    if cpu.is_empty() {
        let state = sessions[0].npu_state.as_deref().unwrap_or("-");
        return Verdict::ok(format!(
            "{}: {} session(s) offloaded (npu_state={state})",
            flow.describe(),
            sessions.len()
        ))
        .evidence(evidence);
    }
    let first = cpu[0];
    let mut reasons: Vec<&str> = Vec::new();
    for r in cpu.iter().flat_map(|s| &s.no_ofld_reason) {
        if !reasons.contains(&r.as_str()) {
            reasons.push(r);
        }
    }
    let (explanations, remedies): (Vec<String>, Vec<String>) = reasons
        .iter()
        .map(|r| explain(r, flow.policy, "firewall policy"))
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
        cpu.len(),
        sessions.len(),
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
    if let Some(s) = sessions.iter().find(|s| s.paths.iter().any(|p| p.deny)) {
        let denied = s.paths.iter().find(|p| p.deny).and_then(|p| p.policy);
        return Verdict::fail(format!(
            "{}: denied by multicast policy {} (npu-deny)",
            flow.describe(),
            denied.map_or("?".into(), |p| p.to_string())
        ))
        .evidence(evidence)
        .remedy(format!(
            "Allow the group in `config firewall multicast-policy` (policy {policy}) and rerun."
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
    if sessions.iter().any(|s| s.offloaded.is_none()) {
        return Verdict::error(format!(
            "{}: cannot tell whether the multicast session is offloaded (no session-npu-info line)",
            flow.describe()
        ))
        .evidence(evidence);
    }
    let cpu = sessions
        .iter()
        .filter(|s| s.offloaded == Some(false))
        .count();
    if cpu == 0 {
        return Verdict::ok(format!(
            "{}: {} multicast session(s) offloaded",
            flow.describe(),
            sessions.len()
        ))
        .evidence(evidence);
    }
    let (_, remedy) = explain(
        "disabled-by-policy",
        flow.policy,
        "firewall multicast-policy",
    );
    Verdict::fail(format!(
        "{}: {cpu} of {} multicast session(s) on the CPU path (in_npuid=0): the NP does not forward the group",
        flow.describe(),
        sessions.len()
    ))
    .evidence(evidence)
    .remedy(format!("{remedy} Also check `premarket check fortigate.policy.offload`."))
}
