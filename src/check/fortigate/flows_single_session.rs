use std::collections::BTreeSet;

use super::flows::{self, capped, render, render_mcast};
use super::flows::{FlowsInput, all_queries, require_flows};
use super::outcome::combine;
use crate::check::Check;
use crate::core::{Platform, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::Flow;

/// Each trading flow uses one session (or the baseline's `max_sessions`). Many sessions of one
/// flow, each from a different source port with one or two packets, mean the sender opens a
/// new socket per send: every packet builds a session and takes the CPU (21 us median in the
/// lab, worse than offload disabled), and `npu_session_count` stays 0.
///
/// ```yaml
/// - id: fortigate.flows.single-session
///   platform: fortigate
/// ```
/// Baseline: `expect.flows` (`max_sessions` per flow, default 1).
pub struct FlowsSingleSession;

impl Check for FlowsSingleSession {
    const ID: &'static str = "fortigate.flows.single-session";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), String> {
        require_flows(&input.flows)
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        all_queries(&input.flows)
    }

    fn evaluate(input: &FlowsInput, facts: &Facts) -> Result<Verdict, FactError> {
        let parts = input.flows.iter().map(|flow| judge(facts, flow)).collect();
        Ok(combine(
            parts,
            "flows",
            "each trading flow in at most its allowed number of sessions (default one)",
        ))
    }
}

/// A session's source port and original-direction packet count.
type PortPackets = (Option<u16>, Option<u64>);

fn judge(facts: &Facts, flow: &Flow) -> Verdict {
    // (source port, original-direction packets) per session, and the evidence lines.
    let (sessions, evidence): (Vec<PortPackets>, String) = if flow.is_multicast() {
        match flows::multicast(facts, flow) {
            Ok(s) => (
                s.iter().map(|s| (s.sport, s.packets)).collect(),
                capped(&s, 5, |s| render_mcast(s)),
            ),
            Err(outcome) => return *outcome,
        }
    } else {
        match flows::unicast(facts, flow) {
            Ok(s) => (
                s.iter().map(|s| (s.sport, s.org_packets)).collect(),
                capped(s, 5, render),
            ),
            Err(outcome) => return *outcome,
        }
    };
    let max = flow.max_sessions.unwrap_or(1);
    if sessions.is_empty() {
        return Verdict::skip(format!(
            "{}: no session yet (fortigate.flows.offloaded reports it)",
            flow.name
        ));
    }
    let evidence = format!("{}:\n{evidence}", flow.name);
    if sessions.len() <= max {
        return Verdict::ok(format!(
            "{}: {} session(s), at most {max} allowed",
            flow.describe(),
            sessions.len()
        ))
        .evidence(evidence);
    }
    let ports: BTreeSet<u16> = sessions.iter().filter_map(|(p, _)| *p).collect();
    let short = sessions
        .iter()
        .filter(|(_, packets)| packets.is_some_and(|p| p <= 2))
        .count();
    // Two sessions may be a restart; three or more short ones from as many ports are the pattern.
    let line = if ports.len() >= 3 && short * 2 >= sessions.len() {
        format!(
            "{}: {} sessions from {} different source ports, {short} of them with at most 2 packets: the sender opens a new socket per send, so every packet builds a new session and takes the CPU",
            flow.describe(),
            sessions.len(),
            ports.len()
        )
    } else {
        format!(
            "{}: {} sessions, at most {max} allowed",
            flow.describe(),
            sessions.len()
        )
    };
    Verdict::fail(line).evidence(evidence).remedy(format!(
        "Make the sender of {} keep one socket (one fixed source port) for the whole trading day instead of opening one per send; restart it and rerun `premarket check fortigate.flows.single-session`. If several sessions are intended, set `max_sessions` for this flow in the baseline.",
        flow.name
    ))
}
