//! What the flow checks share: finding a flow's sessions (after proving the session filter
//! read back as intended; a unicast flow's list arrives as a bounded [`SessionSummary`]) and
//! rendering sessions as evidence lines.

use std::fmt::Write;

use serde::Deserialize;

use crate::Invalid;
use crate::outcome::part_error;
use premarket_core::Verdict;
use premarket_parse::{AnyQuery, FactError, Facts, Query};
use premarket_platform::fortigate::{
    DiagMcastSessions, FilterReadback, Flow, ListSessions, McastSession, Np, PolicyShow, Session,
    SessionSummary, ShowMulticastPolicy, ShowPolicy,
};

/// The input of the checks that judge every trading flow: `expect.flows`, at least one, and
/// the firewall's network processor (`np: np7lite` on a 200G/201G) so remedies name the right
/// diagnose commands.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct FlowsInput {
    pub flows: Vec<Flow>,
    #[serde(default)]
    pub np: Option<Np>,
}

/// `diagnose npu np7lite port-list` for a known NP; both forms otherwise.
pub fn port_list_command(np: Option<Np>) -> String {
    match np {
        Some(np) => format!("`diagnose npu {} port-list`", np.word()),
        None => "`diagnose npu np7 port-list` (`np7lite` on a 200G/201G)".to_string(),
    }
}

/// For a check's `validate`: a flow check with no flows would judge nothing.
pub fn require_flows(flows: &[Flow]) -> Result<(), Invalid> {
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

/// The query that reads `flow`'s policy, and the table it is in.
pub fn policy_of(flow: &Flow, id: u32) -> (Box<dyn PolicyQuery>, &'static str) {
    if flow.is_multicast() {
        (
            Box::new(ShowMulticastPolicy(id)),
            "firewall multicast-policy",
        )
    } else {
        (Box::new(ShowPolicy(id)), "firewall policy")
    }
}

/// `show firewall policy N` or `show firewall multicast-policy N`: both read a [`PolicyShow`].
pub trait PolicyQuery: AnyQuery {
    fn show<'f>(&self, facts: &'f Facts) -> Result<&'f PolicyShow, FactError>;
}

impl PolicyQuery for ShowPolicy {
    fn show<'f>(&self, facts: &'f Facts) -> Result<&'f PolicyShow, FactError> {
        facts.get(self)
    }
}

impl PolicyQuery for ShowMulticastPolicy {
    fn show<'f>(&self, facts: &'f Facts) -> Result<&'f PolicyShow, FactError> {
        facts.get(self)
    }
}

/// The policies of every flow (`show firewall policy N`, `multicast-policy N`), each once.
pub fn policy_queries(flows: &[Flow]) -> Vec<Box<dyn AnyQuery>> {
    let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
    for flow in flows {
        let Some(id) = flow.policy else { continue };
        let (query, _) = policy_of(flow, id);
        let query: Box<dyn AnyQuery> = query;
        if !out.iter().any(|q| q.key() == query.key()) {
            out.push(query);
        }
    }
    out
}

/// A unicast flow's sessions, summarised. ERROR when the filter did not read back as set: a
/// leftover or mistyped filter could make the flow look absent (or show another flow).
pub fn unicast<'a>(facts: &'a Facts, flow: &Flow) -> Result<&'a SessionSummary, Box<Verdict>> {
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
    facts
        .get(&ListSessions(filter))
        .map_err(|e| Box::new(part_error(&flow.name, &e)))
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

/// `10.1.1.10:40000->10.2.2.20:5000 proto=17 policy_id=1 duration=40 expire=178 timeout=0 packets(org/reply)=2/0 npu_state=0x4000400 ofld-O no_ofld_reason: -`
pub fn render(s: &Session) -> String {
    let mut out = format!(
        "{}:{}->{}:{} proto={} policy_id={} duration={} expire={} timeout={} packets(org/reply)={}/{} npu_state={}",
        opt(s.src),
        opt(s.sport),
        opt(s.dst),
        opt(s.dport),
        opt(s.proto),
        opt(s.policy_id),
        opt(s.duration),
        opt(s.expire),
        opt(s.timeout),
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

/// A flow's summarised list as evidence: one line of counts, then the sessions kept as
/// examples (the first ones and the notable ones), and how many more there are.
pub fn summary_evidence(name: &str, s: &SessionSummary) -> String {
    let mut out = format!(
        "{name}: {} session(s){}, {} offloaded, {} source port(s); age (duration) <10s {} / <1m {} / <3m {} / <1h {} / older {}",
        s.sessions,
        s.total
            .map_or(String::new(), |t| format!(" (`total session {t}`)")),
        s.offloaded,
        s.distinct_source_ports,
        s.ages.under_10s,
        s.ages.under_1m,
        s.ages.under_3m,
        s.ages.under_1h,
        s.ages.older,
    );
    if !s.no_ofld_reasons.0.is_empty() {
        let _ = write!(out, "; no_ofld_reason {}", s.no_ofld_reasons.describe());
    }
    let examples = s.examples();
    for e in &examples {
        let _ = write!(out, "\n{}", render(e));
    }
    let more = s.sessions.saturating_sub(examples.len() as u64);
    if more > 0 {
        let _ = write!(out, "\n... and {more} more");
    }
    out
}

/// At most `max` rendered lines, then how many more there are.
pub fn capped<T>(items: &[T], max: usize, render: impl Fn(&T) -> String) -> String {
    let mut lines: Vec<String> = items.iter().take(max).map(render).collect();
    if items.len() > max {
        lines.push(format!("... and {} more", items.len() - max));
    }
    lines.join("\n")
}
