//! What the flow checks share: finding a flow's sessions (after proving the session filter
//! read back as intended) and rendering a session as one evidence line.

use std::fmt::Write;

use super::outcome::part_error;
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::Facts;
use crate::platform::fortigate::commands::MCAST_SESSION_LIST;
use crate::platform::fortigate::{
    Flow, McastSession, McastSessionList, Session, SessionFilterReadback, SessionList,
};

/// The commands that list `flow`'s sessions: the filter readback and the list (unicast), or
/// the multicast session list.
pub fn commands(flow: &Flow) -> Vec<Command> {
    if flow.is_multicast() {
        vec![Command::new(MCAST_SESSION_LIST)]
    } else {
        let filter = flow.filter();
        vec![filter.readback(), filter.list()]
    }
}

/// The commands of every flow, each once, in order.
pub fn all_commands<'a>(flows: impl IntoIterator<Item = &'a Flow>) -> Vec<Command> {
    let mut out: Vec<Command> = Vec::new();
    for command in flows.into_iter().flat_map(commands) {
        if !out.contains(&command) {
            out.push(command);
        }
    }
    out
}

/// A unicast flow's sessions. ERROR when the filter did not read back as set: a leftover or
/// mistyped filter could make the flow look absent (or show another flow).
pub fn unicast<'a>(facts: &'a Facts, flow: &Flow) -> Result<&'a [Session], Box<Verdict>> {
    let filter = flow.filter();
    let readback = facts
        .get::<SessionFilterReadback>(&filter.readback())
        .map_err(|e| Box::new(part_error(&flow.name, &e)))?;
    let differences = readback.differences(&filter.expected());
    if !differences.is_empty() {
        let raw = facts.raw(&filter.readback()).unwrap_or_default();
        return Err(Box::new(Verdict::error(format!(
            "{}: the session filter read back differently from what was set ({}); the session list cannot be trusted",
            flow.name,
            differences.join(", ")
        ))
        .evidence(format!("{}:\n{}", filter.readback(), raw.trim()))
        .remedy("Rerun the inspection; if it repeats, another CLI session may be changing the filter (`diagnose sys session filter` shows it).")));
    }
    let list = facts
        .get::<SessionList>(&filter.list())
        .map_err(|e| Box::new(part_error(&flow.name, &e)))?;
    Ok(&list.sessions)
}

/// A multicast flow's sessions: source (if known), group and port match.
pub fn multicast<'a>(facts: &'a Facts, flow: &Flow) -> Result<Vec<&'a McastSession>, Box<Verdict>> {
    let list = facts
        .get::<McastSessionList>(&Command::new(MCAST_SESSION_LIST))
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
