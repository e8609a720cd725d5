use super::flows::{self, FlowsInput, require_flows};
use super::timers::{self, Source, Timer};
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Platform, Seconds, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{
    Flow, GetSystemGlobal, Protocol, ShowPolicy, ShowService, ShowSessionTtl, Ttl,
};

/// For each unicast UDP trading flow, the timer its session idles out by is longer than the
/// flow's longest pause during trading. Otherwise a pause deletes the session and the first
/// packets after it take the CPU again (the lab notes: 180 s by default).
///
/// The timer is the live session's `timeout=` when a session exists (`never`, a TTL, or `0`
/// for the UDP idle timer), else what the configuration gives: a `session-ttl` on the service,
/// on the policy or in a `config system session-ttl` port entry, else the service's
/// `udp-idle-timer`, else the global one. The trading policy must also name the baseline's
/// service in its `set service`: with another service (`ALL`) the service's timers do not
/// apply. Multicast has no service and is not judged here.
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

fn push(out: &mut Vec<Box<dyn AnyQuery>>, query: Box<dyn AnyQuery>) {
    if !out.iter().any(|q| q.key() == query.key()) {
        out.push(query);
    }
}

impl Check for ServiceUdpIdle {
    const ID: &'static str = "fortigate.service.udp-idle";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), Invalid> {
        require_flows(&input.flows)?;
        for flow in judged(input) {
            if flow.service.is_none() {
                return Err(Invalid(format!(
                    "`expect.flows[{}].service` is missing (the flow's firewall service custom)",
                    flow.name
                )));
            }
            if flow.max_pause_s.is_none() {
                return Err(Invalid(format!(
                    "`expect.flows[{}].max_pause_s` is missing (the flow's longest pause during trading)",
                    flow.name
                )));
            }
        }
        Ok(())
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
        for flow in judged(input) {
            if let Some(service) = &flow.service {
                push(&mut out, Box::new(ShowService(service.clone())));
            }
            if let Some(policy) = flow.policy {
                push(&mut out, Box::new(ShowPolicy(policy)));
            }
        }
        if !out.is_empty() {
            push(&mut out, Box::new(ShowSessionTtl));
            push(&mut out, Box::new(GetSystemGlobal));
            for query in flows::all_queries(judged(input)) {
                push(&mut out, query);
            }
        }
        out
    }

    fn evaluate(input: &FlowsInput, facts: &Facts) -> Result<Verdict, FactError> {
        let parts = judged(input).map(|flow| judge(facts, flow)).collect();
        Ok(combine(
            parts,
            "services",
            "each unicast UDP flow's idle timer longer than its longest pause",
        ))
    }
}

fn judge(facts: &Facts, flow: &Flow) -> Verdict {
    let (Some(name), Some(pause)) = (flow.service.as_deref(), flow.max_pause_s) else {
        return Verdict::error(format!(
            "{}: service or max_pause_s missing in the baseline",
            flow.name
        ));
    };
    let service = match facts.get(&ShowService(name.to_string())) {
        Ok(s) => s,
        Err(e) => return part_error(&flow.name, &e),
    };
    let Some(service) = service.service.as_ref() else {
        return Verdict::fail(format!(
            "{}: service {name:?} does not exist on the firewall",
            flow.name
        ))
        .remedy(format!(
            "Create `firewall service custom` {name:?} for the flow (with udp-idle-timer), or fix the name in the baseline."
        ));
    };
    let mut evidence = vec![format!(
        "service {name:?}: udp-idle-timer {}, session-ttl {}, udp-portrange {}",
        service
            .udp_idle_timer_s
            .map_or("0 (global applies)".to_string(), |t| t.to_string()),
        service
            .session_ttl
            .map_or("not set".to_string(), |t| t.to_string()),
        service.udp_portrange.join(" "),
    )];
    let policy = match flow.policy {
        None => None,
        Some(id) => match facts.get(&ShowPolicy(id)) {
            Err(e) => return part_error(&flow.name, &e),
            Ok(show) => match show.policy.as_ref() {
                None => {
                    return Verdict::fail(format!(
                        "{}: policy {id} does not exist on the firewall, so service {name:?} and its timers apply to nothing",
                        flow.name
                    ))
                    .remedy(format!(
                        "Fix the policy id in the baseline, or create firewall policy {id} for the flow; `premarket check fortigate.policy.offload` says the same."
                    ));
                }
                Some(p) => Some(p),
            },
        },
    };
    if let Some(p) = policy {
        evidence.push(format!(
            "policy {}: service {}, session-ttl {}",
            p.id,
            p.services.join(" "),
            p.session_ttl
                .map_or("not set".to_string(), |t| t.to_string())
        ));
        if !p.services.iter().any(|s| s == name) {
            return Verdict::fail(format!(
                "{}: policy {} matches `set service {}`, not {name:?}: the service's timers (udp-idle-timer) do not apply to the flow",
                flow.name,
                p.id,
                p.services.join(" ")
            ))
            .evidence(evidence.join("\n"))
            .remedy(format!(
                "On the firewall: `config firewall policy`, `edit {}`, `set service \"{name}\"`, `end` (or fix `service` in the baseline); rerun `premarket check fortigate.service.udp-idle`.",
                p.id
            ));
        }
    }
    let table = match facts.get(&ShowSessionTtl) {
        Ok(t) => t,
        Err(e) => return part_error(&flow.name, &e),
    };
    let global = match facts.get(&GetSystemGlobal) {
        Ok(g) => g.udp_idle_timer_s,
        Err(e) => return part_error(&flow.name, &e),
    };
    evidence.push(format!(
        "system session-ttl: default {}, {} port entr(ies); global udp-idle-timer {}",
        table.default,
        table.ports.len(),
        global.map_or("not printed".to_string(), |t| t.to_string())
    ));
    let configured = match timers::configured(service, policy, table, global, flow.dport) {
        Ok(t) => t,
        Err(e) => {
            return Verdict::error(format!("{}: {e}", flow.name)).evidence(evidence.join("\n"));
        }
    };
    // The live session is the ground truth; a list that cannot be read leaves the configuration.
    let live = flows::unicast(facts, flow)
        .ok()
        .and_then(|s| {
            evidence.push(format!(
                "live sessions: {} (timeout= {})",
                s.sessions,
                s.timeouts.describe()
            ));
            timers::live(s, Some(service), global)
        })
        .transpose();
    let live = match live {
        Ok(l) => l,
        Err(e) => {
            return Verdict::error(format!("{}: {e}", flow.name)).evidence(evidence.join("\n"));
        }
    };
    let (timer, said_by) = match live {
        Some(ttl) if ttl != configured.ttl => (
            ttl,
            format!(
                "the live session's timeout; the configuration gives {} ({})",
                configured.ttl,
                configured.source.describe()
            ),
        ),
        Some(ttl) => (
            ttl,
            format!(
                "{}, as the live session shows",
                configured.source.describe()
            ),
        ),
        None => (configured.ttl, configured.source.describe()),
    };
    evidence.push(format!("effective: {timer} ({said_by})"));
    verdict(flow, name, timer, &said_by, &configured, pause).evidence(evidence.join("\n"))
}

fn verdict(
    flow: &Flow,
    service: &str,
    timer: Ttl,
    said_by: &str,
    configured: &Timer,
    pause: Seconds,
) -> Verdict {
    let seconds = match timer {
        Ttl::Never => {
            return Verdict::ok(format!(
                "{}: the session never idles out (session-ttl never: {said_by})",
                flow.name
            ));
        }
        Ttl::Seconds(s) => Seconds(s),
    };
    if seconds > pause {
        return Verdict::ok(format!(
            "{}: idle timer {seconds} ({said_by}) outlasts the longest pause {pause}",
            flow.name
        ));
    }
    let suggested = pause.0 + pause.0.div_ceil(2).max(60);
    // A TTL (service, policy, system) wins over udp-idle-timer: change the one that applies.
    let source = match configured.source {
        Source::GlobalIdle => Source::ServiceIdle(service.to_string()),
        ref s => s.clone(),
    };
    Verdict::fail(format!(
        "{}: idle timer {seconds} ({said_by}) is not longer than the flow's longest pause {pause}: after such a pause the session is deleted and the next packets take the CPU",
        flow.name
    ))
    .remedy(format!(
        "On the firewall: {}. Then rerun `premarket check fortigate.service.udp-idle`.",
        source.remedy(service, suggested)
    ))
}
