use super::flows::require_flows;
use super::flows::{self, render_mcast, summary_evidence};
use super::timers;
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Platform, Seconds, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{Flow, Protocol, Session, ShowSystemNpu, Ttl};

/// A UDP trading flow's session has at least the baseline's margin of idle time left
/// (`expire`). Below it, a quiet feed lets the session expire before the open; it is then
/// rebuilt and its first packets take the CPU. `expire=never` (`session-ttl never`) always
/// has the margin.
///
/// The NP refreshes an offloaded session's `expire` in the kernel only every
/// `max-session-timeout` (`config system npu`, 40 s by default, `show system npu` prints it
/// only when changed): a busy offloaded session can show up to that much less than its full
/// timer. So an offloaded session within one refresh of its full timer has traffic and passes
/// whatever the margin; below that it has been idle at least a refresh, and its `expire` counts.
///
/// ```yaml
/// - id: fortigate.session.idle-margin
///   platform: fortigate
/// ```
/// Baseline: `expect.idle_margin_s: 60` (or per flow `idle_margin_s`).
pub struct SessionIdleMargin;

/// `expect:` keys read: the flows and the device-wide margin (a flow may set its own).
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    flows: Vec<Flow>,
    #[serde(default)]
    idle_margin_s: Option<Seconds>,
}

fn judged(input: &Input) -> impl Iterator<Item = &Flow> {
    input.flows.iter().filter(|f| f.protocol == Protocol::Udp)
}

fn margin(input: &Input, flow: &Flow) -> Option<Seconds> {
    flow.idle_margin_s.or(input.idle_margin_s)
}

impl Check for SessionIdleMargin {
    const ID: &'static str = "fortigate.session.idle-margin";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        require_flows(&input.flows)?;
        match judged(input).find(|f| margin(input, f).is_none()) {
            Some(flow) => Err(Invalid(format!(
                "`expect.idle_margin_s` is missing (flow {} sets none of its own)",
                flow.name
            ))),
            None => Ok(()),
        }
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        let mut out = flows::all_queries(judged(input));
        let unicast: Vec<&Flow> = judged(input).filter(|f| !f.is_multicast()).collect();
        if !unicast.is_empty() {
            out.push(Box::new(ShowSystemNpu));
            for flow in unicast {
                for q in timers::queries(flow.service.as_deref()) {
                    if !out.iter().any(|o| o.key() == q.key()) {
                        out.push(q);
                    }
                }
            }
        }
        out
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let parts = judged(input)
            .map(|flow| {
                let Some(margin) = margin(input, flow) else {
                    return Verdict::error(format!(
                        "{}: no idle_margin_s in the baseline",
                        flow.name
                    ));
                };
                if flow.is_multicast() {
                    multicast(facts, flow, margin)
                } else {
                    unicast(facts, flow, margin)
                }
            })
            .collect();
        Ok(combine(
            parts,
            "flows",
            "every UDP trading session with at least its idle margin left",
        ))
    }
}

fn seconds(ttl: Option<Ttl>) -> Option<u64> {
    ttl.map(|t| t.seconds().unwrap_or(u64::MAX))
}

fn unicast(facts: &Facts, flow: &Flow, margin: Seconds) -> Verdict {
    let sessions = match flows::unicast(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    if sessions.sessions == 0 {
        return skip(flow);
    }
    let mut evidence = summary_evidence(&flow.name, sessions);
    let npu = match facts.get(&ShowSystemNpu) {
        Ok(n) => n,
        Err(e) => return part_error(&flow.name, &e),
    };
    let lag = npu.max_session_timeout_s;
    evidence.push_str(&format!(
        "\nmax-session-timeout {lag} s ({})",
        if npu.max_session_timeout_set {
            "show system npu"
        } else {
            "default: show system npu prints none"
        }
    ));
    // The session that runs out first: the least `expire` of the CPU sessions, and of the
    // offloaded ones unless they are within one NP refresh of their full timer.
    let mut worst: Option<(u64, &Session, bool)> = None;
    for (session, offloaded) in [
        (sessions.least_expire_not_offloaded.as_ref(), false),
        (sessions.least_expire_offloaded.as_ref(), true),
    ] {
        let Some(s) = session else { continue };
        let Some(left) = seconds(s.expire) else {
            return Verdict::error(format!(
                "{}: a session of the flow prints no expire=",
                flow.name
            ))
            .evidence(evidence);
        };
        if worst.is_none_or(|(w, _, _)| left < w) {
            worst = Some((left, s, offloaded));
        }
    }
    let Some((left, session, offloaded)) = worst else {
        return skip(flow);
    };
    if left >= margin.0 {
        return ok(flow, left, margin).evidence(evidence);
    }
    if offloaded {
        let timer = match session.timeout {
            Some(Ttl::Seconds(0)) | None => {
                let (service, global) =
                    match timers::service_and_global(facts, &flow.name, flow.service.as_deref()) {
                        Ok(found) => found,
                        Err(outcome) => return *outcome,
                    };
                match timers::idle(service, global) {
                    Ok(t) => t.ttl,
                    Err(e) => {
                        return Verdict::error(format!("{}: {e}", flow.name)).evidence(evidence);
                    }
                }
            }
            Some(t) => t,
        };
        if let Ttl::Seconds(full) = timer
            && left + lag >= full
        {
            evidence.push_str(&format!(
                "\n{}: expire {left} s + max-session-timeout {lag} s >= its {full} s timer: refreshed by traffic",
                flow.name
            ));
            return Verdict::ok(format!(
                "{}: offloaded session at expire {left} s of its {full} s timer, within one NP refresh (max-session-timeout {lag} s): traffic is flowing (margin {margin})",
                flow.name
            ))
            .evidence(evidence);
        }
    }
    fail(flow, left, margin).evidence(evidence)
}

fn multicast(facts: &Facts, flow: &Flow, margin: Seconds) -> Verdict {
    let sessions = match flows::multicast(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    let evidence = format!(
        "{}:\n{}",
        flow.name,
        flows::capped(&sessions, 5, |s| render_mcast(s))
    );
    if sessions.is_empty() {
        return skip(flow);
    }
    let Some(least) = sessions
        .iter()
        .map(|s| s.expire)
        .collect::<Option<Vec<_>>>()
        .and_then(|v| v.into_iter().min())
    else {
        return Verdict::error(format!(
            "{}: a session of the flow prints no expire=",
            flow.name
        ))
        .evidence(evidence);
    };
    if least >= margin.0 {
        return ok(flow, least, margin).evidence(evidence);
    }
    fail(flow, least, margin).evidence(evidence)
}

fn skip(flow: &Flow) -> Verdict {
    Verdict::skip(format!(
        "{}: no session yet (fortigate.flows.offloaded reports it)",
        flow.name
    ))
}

fn ok(flow: &Flow, left: u64, margin: Seconds) -> Verdict {
    if left == u64::MAX {
        Verdict::ok(format!(
            "{}: the session never expires (expire=never, session-ttl never)",
            flow.name
        ))
    } else {
        Verdict::ok(format!(
            "{}: session expires in {left} s (margin {margin})",
            flow.name
        ))
    }
}

fn fail(flow: &Flow, left: u64, margin: Seconds) -> Verdict {
    Verdict::fail(format!(
        "{}: session expires in {left} s, under the {margin} margin: if the feed stays quiet that long the session is deleted and rebuilt on the CPU",
        flow.name
    ))
    .remedy(format!(
        "Make {} send now (a heartbeat or a resubscribe) and rerun `premarket check fortigate.session.idle-margin`; if the feed pauses longer than its idle timer during trading, raise it (fortigate.service.udp-idle).",
        flow.name
    ))
}
