use super::flows::{FlowsInput, require_flows};
use super::outcome::{combine, part_error};
use crate::check::Check;
use crate::core::{Platform, Seconds, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::{Flow, GetSystemGlobal, Protocol, ShowService};

/// For each unicast UDP trading flow, the effective `udp-idle-timer` (the service's own, or the
/// global one when the service says 0 or nothing) is longer than the flow's longest pause during
/// trading. Otherwise a pause deletes the session and the first packets after it take the CPU
/// again (the lab notes: 180 s by default). Multicast has no service and is not judged here.
///
/// ```yaml
/// - id: fortigate.service.udp-idle
///   platform: fortigate
/// ```
/// Baseline: `expect.flows[*].service` and `expect.flows[*].max_pause_s` for unicast UDP flows.
pub struct ServiceUdpIdle;

fn judged(input: &FlowsInput) -> impl Iterator<Item = &Flow> {
    input
        .flows
        .iter()
        .filter(|f| f.protocol == Protocol::Udp && !f.is_multicast())
}

impl Check for ServiceUdpIdle {
    const ID: &'static str = "fortigate.service.udp-idle";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), String> {
        require_flows(&input.flows)?;
        for flow in judged(input) {
            if flow.service.is_none() {
                return Err(format!(
                    "`expect.flows[{}].service` is missing (the flow's firewall service custom)",
                    flow.name
                ));
            }
            if flow.max_pause_s.is_none() {
                return Err(format!(
                    "`expect.flows[{}].max_pause_s` is missing (the flow's longest pause during trading)",
                    flow.name
                ));
            }
        }
        Ok(())
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
        for flow in judged(input) {
            let Some(service) = &flow.service else {
                continue;
            };
            let query = ShowService(service.clone());
            if !out.iter().any(|q| q.key() == query.key()) {
                out.push(Box::new(query));
            }
        }
        if !out.is_empty() {
            out.push(Box::new(GetSystemGlobal));
        }
        out
    }

    fn evaluate(input: &FlowsInput, facts: &Facts) -> Result<Verdict, FactError> {
        let expect = input;
        let global = facts.get(&GetSystemGlobal);
        let parts = judged(expect)
            .map(|flow| {
                let (Some(service), Some(pause)) = (flow.service.as_deref(), flow.max_pause_s) else {
                    return Verdict::error(format!("{}: service or max_pause_s missing in the baseline", flow.name));
                };
                let tree = match facts.get(&ShowService(service.to_string())) {
                    Ok(t) => t,
                    Err(e) => return part_error(&flow.name, &e),
                };
                let Some(entry) = tree.entry("firewall service custom", service) else {
                    return Verdict::fail(format!("{}: service {service:?} does not exist on the firewall", flow.name))
                        .remedy(format!("Create `firewall service custom` {service:?} for the flow (with udp-idle-timer), or fix the name in the baseline."));
                };
                // `show` omits defaults: absent or 0 means the global timer applies.
                let own = match entry.get("udp-idle-timer").map(|v| v.parse::<u64>()) {
                    None | Some(Ok(0)) => None,
                    Some(Ok(t)) => Some(t),
                    Some(Err(_)) => {
                        return Verdict::error(format!(
                            "{}: service {service:?} has an unreadable udp-idle-timer {:?}",
                            flow.name,
                            entry.get("udp-idle-timer").unwrap_or_default()
                        ));
                    }
                };
                let (timer, source) = match own {
                    Some(t) => (t, format!("service {service:?}")),
                    None => {
                        let global = match &global {
                            Ok(g) => g,
                            Err(e) => return part_error(&flow.name, e),
                        };
                        let value = global.root.get("udp-idle-timer").or_else(|| global.root.at(&["system global"]).and_then(|n| n.get("udp-idle-timer")));
                        match value.and_then(|v| v.parse::<u64>().ok()) {
                            Some(t) => (t, "global (the service sets none)".to_string()),
                            None => return Verdict::error(format!("{}: get system global printed no udp-idle-timer", flow.name)),
                        }
                    }
                };
                let evidence = format!("service {service:?} udp-idle-timer={}; effective {timer} s from {source}", own.unwrap_or(0));
                judge(flow, service, Seconds(timer), &source, pause).evidence(evidence)
            })
            .collect();
        Ok(combine(
            parts,
            "services",
            "each unicast UDP flow's udp-idle-timer longer than its longest pause",
        ))
    }
}

fn judge(flow: &Flow, service: &str, timer: Seconds, source: &str, pause: Seconds) -> Verdict {
    if timer > pause {
        return Verdict::ok(format!(
            "{}: udp-idle-timer {timer} ({source}) outlasts the longest pause {pause}",
            flow.name
        ));
    }
    let suggested = pause.0 + pause.0.div_ceil(2).max(60);
    Verdict::fail(format!(
        "{}: udp-idle-timer {timer} ({source}) is not longer than the flow's longest pause {pause}: after such a pause the session is deleted and the next packets take the CPU",
        flow.name
    ))
    .remedy(format!(
        "On the firewall: `config firewall service custom`, `edit \"{service}\"`, `set udp-idle-timer {suggested}`, `end` (it affects only traffic using this service). Then rerun `premarket check fortigate.service.udp-idle`."
    ))
}
