//! What the flow checks share: finding a flow's sessions (after proving the session filter
//! read back as intended) and rendering a session as one evidence line.

use std::fmt::Write;

use serde::Deserialize;

use super::outcome::part_error;
use crate::core::Verdict;
use crate::parse::{AnyQuery, Facts, Query};
use crate::platform::fortigate::{
    DiagMcastSessions, FilterReadback, Flow, ListSessions, McastSession, Session,
};

/// The input of the checks that judge every trading flow: `expect.flows`, at least one.
#[derive(Deserialize)]
pub struct FlowsInput {
    pub flows: Vec<Flow>,
}

/// For a check's `validate`: a flow check with no flows would judge nothing.
pub fn require_flows(flows: &[Flow]) -> Result<(), String> {
    if flows.is_empty() {
        Err("`expect.flows` lists no flow".into())
    } else {
        Ok(())
    }
}

/// The queries that list `flow`'s sessions: the filter read-back and the list (unicast), or
/// the multicast session list.
pub fn queries(flow: &Flow) -> Vec<Box<dyn AnyQuery>> {
    if flow.is_multicast() {
        vec![Box::new(DiagMcastSessions)]
    } else {
        let filter = flow.filter();
        vec![
            Box::new(FilterReadback(filter.clone())),
            Box::new(ListSessions(filter)),
        ]
    }
}

/// The queries of every flow, each once, in order.
pub fn all_queries<'a>(flows: impl IntoIterator<Item = &'a Flow>) -> Vec<Box<dyn AnyQuery>> {
    let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
    for query in flows.into_iter().flat_map(queries) {
        if !out.iter().any(|q| q.key() == query.key()) {
            out.push(query);
        }
    }
    out
}

/// A unicast flow's sessions. ERROR when the filter did not read back as set: a leftover or
/// mistyped filter could make the flow look absent (or show another flow).
pub fn unicast<'a>(facts: &'a Facts, flow: &Flow) -> Result<&'a [Session], Box<Verdict>> {
    let filter = flow.filter();
    let readback_query = FilterReadback(filter.clone());
    let readback = facts
        .get(&readback_query)
        .map_err(|e| Box::new(part_error(&flow.name, &e)))?;
    let differences = readback.differences(&filter.expected());
    if !differences.is_empty() {
        let raw = facts.raw(&readback_query.command()).unwrap_or_default();
        return Err(Box::new(Verdict::error(format!(
            "{}: the session filter read back differently from what was set ({}); the session list cannot be trusted",
            flow.name,
            differences.join(", ")
        ))
        .evidence(format!("{}:\n{}", readback_query.command(), raw.trim()))
        .remedy("Rerun the inspection; if it repeats, another CLI session may be changing the filter (`diagnose sys session filter` shows it).")));
    }
    let list = facts
        .get(&ListSessions(filter))
        .map_err(|e| Box::new(part_error(&flow.name, &e)))?;
    Ok(&list.sessions)
}

/// A multicast flow's sessions: source (if known), group and port match.
pub fn multicast<'a>(facts: &'a Facts, flow: &Flow) -> Result<Vec<&'a McastSession>, Box<Verdict>> {
    let list = facts
        .get(&DiagMcastSessions)
        .map_err(|e| Box::new(part_error(&flow.name, &e)))?;
    Ok(list
        .sessions
        .iter()
        .filter(|s| s.group == Some(flow.dst))
        .filter(|s| flow.src.is_none() || s.src == flow.src)
        .filter(|s| flow.dport.is_none() || s.dport == flow.dport)
        .filter(|s| s.proto.is_none_or(|p| p == flow.protocol.number()))
        .collect())
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("?".to_string(), |v| v.to_string())
}

/// `10.1.1.10:40000->10.2.2.20:5000 proto=17 policy_id=1 expire=178 packets=2/0 npu_state=0x4000400 ofld-O no_ofld_reason: -`
pub fn render(s: &Session) -> String {
    let mut out = format!(
        "{}:{}->{}:{} proto={} policy_id={} expire={} packets(org/reply)={}/{} npu_state={}",
        opt(s.src),
        opt(s.sport),
        opt(s.dst),
        opt(s.dport),
        opt(s.proto),
        opt(s.policy_id),
        opt(s.expire),
        opt(s.org_packets),
        opt(s.reply_packets),
        s.npu_state.as_deref().unwrap_or("(not printed)"),
    );
    if let Some([o, r]) = s.npu_offload {
        let _ = write!(out, " offload={o}/{r}");
    }
    let reasons = if s.no_ofld_reason.is_empty() {
        "-".to_string()
    } else {
        s.no_ofld_reason.join(" ")
    };
    let _ = write!(out, " no_ofld_reason: {reasons}");
    out
}

/// `10.1.1.10.30001->239.1.1.1.30001 expire=177 pkts=2 npu: in_npuid=1 ... paths: policy 2 -> dev 6`
pub fn render_mcast(s: &McastSession) -> String {
    let paths: Vec<String> = s
        .paths
        .iter()
        .map(|p| {
            format!(
                "policy {} -> dev {}{}",
                opt(p.policy),
                opt(p.outdev),
                if p.deny { " npu-deny" } else { "" }
            )
        })
        .collect();
    format!(
        "{}.{}->{}.{} proto={} expire={} pkts={} session-npu-info: {} path: {}",
        opt(s.src),
        opt(s.sport),
        opt(s.group),
        opt(s.dport),
        opt(s.proto),
        opt(s.expire),
        opt(s.packets),
        s.npu_info.as_deref().unwrap_or("(not printed)"),
        if paths.is_empty() {
            "-".to_string()
        } else {
            paths.join(", ")
        }
    )
}

/// At most `max` rendered lines, then how many more there are.
pub fn capped<T>(items: &[T], max: usize, render: impl Fn(&T) -> String) -> String {
    let mut lines: Vec<String> = items.iter().take(max).map(render).collect();
    if items.len() > max {
        lines.push(format!("... and {} more", items.len() - max));
    }
    lines.join("\n")
}
