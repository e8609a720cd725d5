use super::flows::{FlowsInput, require_flows};
use super::outcome::{combine, part_error};
use crate::check::Check;
use crate::core::{Command, Platform, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::{ConfigNode, ConfigTree, Flow, ShowMulticastPolicy, ShowPolicy};

/// Each trading policy (and multicast policy) lets the NP offload its sessions: it exists, is
/// enabled, does not `set auto-asic-offload disable`, and applies no proxy-mode inspection and
/// no IPS/application control (both send packets to the CPU).
///
/// ```yaml
/// - id: fortigate.policy.offload
///   platform: fortigate
/// ```
/// Baseline: `expect.flows[*].policy`.
pub struct PolicyOffload;

/// Security profiles that, in proxy mode, are never offloaded.
const PROFILES: [&str; 12] = [
    "av-profile",
    "webfilter-profile",
    "dnsfilter-profile",
    "emailfilter-profile",
    "dlp-profile",
    "file-filter-profile",
    "icap-profile",
    "waf-profile",
    "ssh-filter-profile",
    "voip-profile",
    "videofilter-profile",
    "profile-group",
];

/// Flow-based inspection that redirects sessions to IPS (`redir-to-ips`).
const IPS: [&str; 2] = ["ips-sensor", "application-list"];

/// The query that reads `flow`'s policy, and the table it is in.
fn policy_of(flow: &Flow, id: u32) -> (Box<dyn PolicyQuery>, &'static str) {
    if flow.is_multicast() {
        (
            Box::new(ShowMulticastPolicy(id)),
            "firewall multicast-policy",
        )
    } else {
        (Box::new(ShowPolicy(id)), "firewall policy")
    }
}

/// `show firewall policy N` or `show firewall multicast-policy N`: both read a [`ConfigTree`].
trait PolicyQuery: AnyQuery {
    fn tree<'f>(&self, facts: &'f Facts) -> Result<&'f ConfigTree, FactError>;
}

impl PolicyQuery for ShowPolicy {
    fn tree<'f>(&self, facts: &'f Facts) -> Result<&'f ConfigTree, FactError> {
        facts.get(self)
    }
}

impl PolicyQuery for ShowMulticastPolicy {
    fn tree<'f>(&self, facts: &'f Facts) -> Result<&'f ConfigTree, FactError> {
        facts.get(self)
    }
}

impl Check for PolicyOffload {
    const ID: &'static str = "fortigate.policy.offload";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), String> {
        require_flows(&input.flows)?;
        match input.flows.iter().find(|f| f.policy.is_none()) {
            Some(flow) => Err(format!(
                "`expect.flows[{}].policy` is missing (the id of the flow's firewall policy)",
                flow.name
            )),
            None => Ok(()),
        }
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
        for flow in &input.flows {
            let Some(id) = flow.policy else { continue };
            let query: Box<dyn AnyQuery> = if flow.is_multicast() {
                Box::new(ShowMulticastPolicy(id))
            } else {
                Box::new(ShowPolicy(id))
            };
            if !out.iter().any(|q| q.key() == query.key()) {
                out.push(query);
            }
        }
        out
    }

    fn evaluate(input: &FlowsInput, facts: &Facts) -> Result<Verdict, FactError> {
        let mut seen: Vec<Command> = Vec::new();
        let mut parts = Vec::new();
        for flow in &input.flows {
            let Some(id) = flow.policy else { continue };
            let (query, table) = policy_of(flow, id);
            let command = query.key().command;
            if seen.contains(&command) {
                continue;
            }
            seen.push(command.clone());
            let name = format!("{table} {id} ({})", flow.name);
            parts.push(match query.tree(facts) {
                Err(e) => part_error(&name, &e),
                Ok(tree) => judge(
                    tree,
                    table,
                    id,
                    &name,
                    facts.raw(&command).unwrap_or_default(),
                ),
            });
        }
        Ok(combine(
            parts,
            "policies",
            "trading policies enabled, auto-asic-offload enabled, no proxy inspection or IPS",
        ))
    }
}

fn judge(tree: &ConfigTree, table: &str, id: u32, name: &str, raw: &str) -> Verdict {
    let evidence = format!("{name}:\n{}", crate::parse::text::excerpt(raw, 30));
    let Some(policy) = tree.entry(table, &id.to_string()) else {
        return Verdict::fail(format!("{name}: does not exist on the firewall"))
            .evidence(evidence)
            .remedy(format!(
                "Fix the policy id in the baseline, or create {table} {id} for the flow."
            ));
    };
    let mut problems = Vec::new();
    let mut remedy = vec![format!("`config {table}`"), format!("`edit {id}`")];
    if policy.get("status").as_deref() == Some("disable") {
        problems.push("the policy is disabled".to_string());
        remedy.push("`set status enable`".into());
    }
    if policy.get("auto-asic-offload").as_deref() == Some("disable") {
        problems.push("`set auto-asic-offload disable`: every packet takes the CPU".to_string());
        remedy.push("`set auto-asic-offload enable`".into());
    }
    let proxy = policy.get("inspection-mode").as_deref() == Some("proxy");
    let profiles = applied(policy, &PROFILES);
    if proxy && !profiles.is_empty() {
        problems.push(format!(
            "proxy-mode inspection with {}: proxy inspection is never offloaded",
            shown(&profiles)
        ));
        remedy.push("`set inspection-mode flow`".into());
        remedy.extend(profiles.iter().map(|(k, _)| format!("`unset {k}`")));
    }
    let ips = applied(policy, &IPS);
    if !ips.is_empty() {
        problems.push(format!(
            "{} applied: sessions are redirected to IPS on the CPU",
            shown(&ips)
        ));
        remedy.extend(ips.iter().map(|(k, _)| format!("`unset {k}`")));
    }
    if problems.is_empty() {
        return Verdict::ok(format!("{name}: offload enabled, no proxy inspection"))
            .evidence(evidence);
    }
    remedy.push("`end`".into());
    Verdict::fail(format!("{name}: {}", problems.join("; ")))
        .evidence(evidence)
        .remedy(format!("On the firewall: {}. Then restart the flow and rerun `premarket check fortigate.flows.offloaded`.", remedy.join(", ")))
}

/// The profiles of `keys` the policy sets, with their values.
fn applied<'a>(policy: &ConfigNode, keys: &[&'a str]) -> Vec<(&'a str, String)> {
    keys.iter()
        .filter_map(|k| policy.get(k).filter(|v| !v.is_empty()).map(|v| (*k, v)))
        .collect()
}

fn shown(profiles: &[(&str, String)]) -> String {
    profiles
        .iter()
        .map(|(k, v)| format!("{k} \"{v}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
