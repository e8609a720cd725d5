use super::flows::{FlowsInput, policy_of, policy_queries, port_list_command, require_flows};
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Command, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{FirewallPolicy, Np, PolicyShow};

/// Each trading policy (and multicast policy) lets the NP offload its sessions: it exists, is
/// enabled, does not `set auto-asic-offload disable`, and applies no security profile: proxy
/// inspection is never offloaded, and flow-mode profiles (IPS, application control, flow
/// antivirus or web filter ...) send every session to the IPS engine on the CPU, nTurbo at best
/// offloading the firewall part around it (NP7Lite nTurbo support is undocumented). sFlow on
/// an interface also stops offload: `fortigate.offload.blockers` judges that.
///
/// ```yaml
/// - id: fortigate.policy.offload
///   platform: fortigate
/// ```
/// Baseline: `expect.flows[*].policy`, `expect.np`.
pub struct PolicyOffload;

impl Check for PolicyOffload {
    const ID: &'static str = "fortigate.policy.offload";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = FlowsInput;

    fn validate(input: &FlowsInput) -> Result<(), Invalid> {
        require_flows(&input.flows)?;
        match input.flows.iter().find(|f| f.policy.is_none()) {
            Some(flow) => Err(Invalid(format!(
                "`expect.flows[{}].policy` is missing (the id of the flow's firewall policy)",
                flow.name
            ))),
            None => Ok(()),
        }
    }

    fn queries(input: &FlowsInput) -> Vec<Box<dyn AnyQuery>> {
        policy_queries(&input.flows)
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
            let raw = facts.raw(&command).unwrap_or_default();
            let evidence = format!("{name}:\n{}", premarket_parse::text::excerpt(raw, 30));
            parts.push(match query.show(facts) {
                Err(e) => part_error(&name, &e),
                Ok(PolicyShow { policy: None }) => Verdict::fail(format!(
                    "{name}: does not exist on the firewall"
                ))
                .evidence(evidence)
                .remedy(format!(
                    "Fix the policy id in the baseline, or create {table} {id} for the flow."
                )),
                Ok(PolicyShow {
                    policy: Some(policy),
                }) => judge(policy, table, &name, input.np).evidence(evidence),
            });
        }
        Ok(combine(
            parts,
            "policies",
            "trading policies enabled, auto-asic-offload enabled, no security profile",
        ))
    }
}

fn judge(policy: &FirewallPolicy, table: &str, name: &str, np: Option<Np>) -> Verdict {
    let id = policy.id;
    let mut problems = Vec::new();
    let mut remedy = vec![format!("`config {table}`"), format!("`edit {id}`")];
    if !policy.enabled {
        problems.push("the policy is disabled".to_string());
        remedy.push("`set status enable`".into());
    }
    if !policy.auto_asic_offload {
        problems.push("`set auto-asic-offload disable`: every packet takes the CPU".to_string());
        remedy.push("`set auto-asic-offload enable`".into());
    }
    let profiles: Vec<String> = policy
        .profiles
        .iter()
        .map(|(k, v)| format!("{k} \"{v}\""))
        .collect();
    if !profiles.is_empty() {
        if policy.proxy() {
            problems.push(format!(
                "proxy-mode inspection with {}: proxy inspection is never offloaded",
                profiles.join(", ")
            ));
            remedy.push("`set inspection-mode flow`".into());
        } else {
            let nturbo = if policy.np_acceleration {
                "nTurbo can at best offload the firewall part around it, and NP7Lite support for nTurbo is undocumented"
            } else {
                "`set np-acceleration disable` also turns nTurbo off"
            };
            problems.push(format!(
                "flow-mode inspection with {}: every session is sent to the IPS engine on the CPU ({nturbo})",
                profiles.join(", ")
            ));
        }
        remedy.extend(policy.profiles.keys().map(|k| format!("`unset {k}`")));
    }
    if problems.is_empty() {
        return Verdict::ok(format!(
            "{name}: offload enabled, no security profile ({} inspection)",
            policy.inspection_mode
        ));
    }
    remedy.push("`end`".into());
    Verdict::fail(format!("{name}: {}", problems.join("; "))).remedy(format!(
        "On the firewall: {}. Then restart the flow and rerun `premarket check fortigate.flows.offloaded`; the flow's session must show `ofld-O` (its ports must be NP ports: {}).",
        remedy.join(", "),
        port_list_command(np)
    ))
}
