use super::flows::require_flows;
use super::flows::{self, render, render_mcast};
use super::outcome::combine;
use crate::check::Check;
use crate::core::{Platform, Seconds, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::{Flow, Protocol};

/// A UDP trading flow's session has at least the baseline's margin of idle time left
/// (`expire`). Below it, a quiet feed lets the session expire before the open; it is then
/// rebuilt and its first packets take the CPU.
///
/// ```yaml
/// - id: fortigate.session.idle-margin
///   platform: fortigate
/// ```
/// Baseline: `expect.idle_margin_s: 60` (or per flow `idle_margin_s`).
pub struct SessionIdleMargin;

/// `expect:` keys read: the flows and the device-wide margin (a flow may set its own).
#[derive(serde::Deserialize)]
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

    fn validate(input: &Input) -> Result<(), String> {
        require_flows(&input.flows)?;
        match judged(input).find(|f| margin(input, f).is_none()) {
            Some(flow) => Err(format!(
                "`expect.idle_margin_s` is missing (flow {} sets none of its own)",
                flow.name
            )),
            None => Ok(()),
        }
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        flows::all_queries(judged(input))
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let expect = input;
        let parts = judged(expect)
            .map(|flow| {
                let Some(margin) = margin(expect, flow) else {
                    return Verdict::error(format!(
                        "{}: no idle_margin_s in the baseline",
                        flow.name
                    ));
                };
                // (expire, evidence line) per session
                let sessions: Vec<(Option<u64>, String)> = if flow.is_multicast() {
                    match flows::multicast(facts, flow) {
                        Ok(s) => s.iter().map(|s| (s.expire, render_mcast(s))).collect(),
                        Err(outcome) => return *outcome,
                    }
                } else {
                    match flows::unicast(facts, flow) {
                        // `expire=never` (session-ttl never) never runs out: any margin holds.
                        Ok(s) => s
                            .iter()
                            .map(|s| (s.expire.map(|e| e.seconds().unwrap_or(u64::MAX)), render(s)))
                            .collect(),
                        Err(outcome) => return *outcome,
                    }
                };
                judge(flow, margin, &sessions)
            })
            .collect();
        Ok(combine(
            parts,
            "flows",
            "every UDP trading session with at least its idle margin left",
        ))
    }
}

fn judge(flow: &Flow, margin: Seconds, sessions: &[(Option<u64>, String)]) -> Verdict {
    if sessions.is_empty() {
        return Verdict::skip(format!(
            "{}: no session yet (fortigate.flows.offloaded reports it)",
            flow.name
        ));
    }
    let evidence = format!(
        "{}:\n{}",
        flow.name,
        sessions
            .iter()
            .take(5)
            .map(|(_, line)| line.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let Some(least) = sessions
        .iter()
        .map(|(e, _)| *e)
        .collect::<Option<Vec<u64>>>()
        .and_then(|v| v.into_iter().min())
    else {
        return Verdict::error(format!(
            "{}: a session of the flow prints no expire=",
            flow.name
        ))
        .evidence(evidence);
    };
    if least >= margin.0 {
        return Verdict::ok(format!(
            "{}: session expires in {least} s (margin {margin})",
            flow.name
        ))
        .evidence(evidence);
    }
    Verdict::fail(format!(
        "{}: session expires in {least} s, under the {margin} margin: if the feed stays quiet that long the session is deleted and rebuilt on the CPU",
        flow.name
    ))
    .evidence(evidence)
    .remedy(format!(
        "Make {} send now (a heartbeat or a resubscribe) and rerun `premarket check fortigate.session.idle-margin`; if the feed pauses longer than udp-idle-timer during trading, raise the service's udp-idle-timer (fortigate.service.udp-idle).",
        flow.name
    ))
}
