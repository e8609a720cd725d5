use super::flows::{self, capped, render_mcast, summary_evidence};
use super::flows::{FlowsInput, all_queries, require_flows};
use crate::outcome::combine;
use crate::{Check, Invalid};
use premarket_core::{Grouped, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::Flow;

/// Each trading flow uses one session (or the baseline's `max_sessions`). Many sessions of one
/// flow, each from another source port and none older than the idle timer, mean the sender
/// opens a new socket per send: every packet builds a session and takes the CPU (21 us median
/// in the lab, worse than offload disabled), and `npu_session_count` stays 0.
///
/// Packet counts cannot tell a fresh session from a long offloaded one (NP7 counts only what
/// the CPU saw unless traffic logging keeps accounting, so an offloaded session shows
/// `org=.../2` after 10,000 packets): the judgement rests on the number of sessions of the
/// flow, their source ports, their age (`duration=`) and the `not-established` reason.
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

    fn validate(input: &FlowsInput) -> Result<(), Invalid> {
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

/// What one flow's sessions look like, whatever list they came from.
struct Shape {
    sessions: u64,
    source_ports: u64,
    /// Younger than three minutes (the default UDP idle timer): made since the last pause.
    young: u64,
    not_established: u64,
    oldest_s: Option<u64>,
    evidence: String,
}

fn shape(facts: &Facts, flow: &Flow) -> Result<Shape, Box<Verdict>> {
    if flow.is_multicast() {
        let s = flows::multicast(facts, flow)?;
        let mut ports: Vec<u16> = s.iter().filter_map(|s| s.sport).collect();
        ports.sort_unstable();
        ports.dedup();
        Ok(Shape {
            sessions: s.len() as u64,
            source_ports: ports.len() as u64,
            young: s
                .iter()
                .filter(|s| s.duration.is_some_and(|d| d < 180))
                .count() as u64,
            not_established: 0,
            oldest_s: s.iter().filter_map(|s| s.duration).max(),
            evidence: format!("{}:\n{}", flow.name, capped(&s, 5, |s| render_mcast(s))),
        })
    } else {
        let s = flows::unicast(facts, flow)?;
        Ok(Shape {
            sessions: s.sessions,
            source_ports: u64::from(s.distinct_source_ports),
            young: s.ages.younger_than_3m(),
            not_established: s.no_ofld_reasons.get("not-established"),
            oldest_s: s.oldest_s,
            evidence: summary_evidence(&flow.name, s),
        })
    }
}

fn judge(facts: &Facts, flow: &Flow) -> Verdict {
    let s = match shape(facts, flow) {
        Ok(s) => s,
        Err(outcome) => return *outcome,
    };
    let max = flow.max_sessions.unwrap_or(1) as u64;
    if s.sessions == 0 {
        return Verdict::skip(format!(
            "{}: no session yet (fortigate.flows.offloaded reports it)",
            flow.name
        ));
    }
    let oldest = s.oldest_s.map_or("age not printed".to_string(), |d| {
        format!("the oldest up {d} s")
    });
    if s.sessions <= max {
        return Verdict::ok(format!(
            "{}: {} session(s), at most {max} allowed ({oldest})",
            flow.describe(),
            s.sessions,
        ))
        .evidence(s.evidence);
    }
    // Two sessions may be a restart; three or more young ones from as many ports are the
    // pattern of a socket per send.
    let churn = s.source_ports >= 3 && s.young * 2 >= s.sessions;
    let lead = if churn {
        let within = s.oldest_s.map(|d| format!(" in {d} s")).unwrap_or_default();
        format!(
            "the {} sender opens a new socket per send: {} sessions{within}",
            flow.name,
            Grouped(s.sessions)
        )
    } else {
        format!(
            "{} has {} sessions, at most {max} allowed",
            flow.name,
            Grouped(s.sessions)
        )
    };
    let line = if churn {
        let established = if s.not_established > 0 {
            format!(", {} not established", s.not_established)
        } else {
            String::new()
        };
        format!(
            "{}: {} sessions from {} different source ports, {} of them younger than 3 minutes{established} ({oldest}): the sender opens a new socket per send, so every packet builds a new session and takes the CPU",
            flow.describe(),
            s.sessions,
            s.source_ports,
            s.young,
        )
    } else {
        format!(
            "{}: {} sessions, at most {max} allowed ({} source port(s), {oldest})",
            flow.describe(),
            s.sessions,
            s.source_ports,
        )
    };
    Verdict::fail(line).lead(lead).evidence(s.evidence).remedy(format!(
        "Make the sender of {} keep one socket (one fixed source port) for the whole trading day instead of opening one per send; restart it and rerun `premarket check fortigate.flows.single-session`. If several sessions are intended, set `max_sessions` for this flow in the baseline.",
        flow.name
    ))
}
