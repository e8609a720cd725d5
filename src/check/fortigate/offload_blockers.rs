use std::collections::BTreeMap;

use super::offload_chips;
use crate::Check;
use crate::outcome::{combine, part_error};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::model::Family;
use premarket_platform::fortigate::topology::{Kind, Resolved, Topology, Unresolved};
use premarket_platform::fortigate::{
    Flow, GetSystemInterface, Np, NpuPortList, ShowSystemInterface, ShowSystemNpu,
    ShowVirtualSwitch, SystemInterfaces,
};

/// Nothing on the trading path disables offload: no sFlow sampler on a trading interface
/// ("Configuring sFlow on any interface disables all NP7, NP6, NP6XLite, or NP6Lite offloading
/// for all traffic on that interface"; NetFlow does not), every trading interface is served by
/// the NP (`diagnose npu np7lite port-list` on a 200G/201G: its HA and MGMT ports are not), and
/// `config system npu` holds exactly the non-default settings the baseline lists (`show` prints
/// only those; `set fastpath disable` stops all offload).
///
/// A trading interface may be logical (issue 18): a VLAN, an aggregate, a redundant pair, a
/// hardware switch or one of its ports. It is resolved to its physical ports from `show system
/// interface` and `show system virtual-switch` ([`Topology`]); the NP port list, which names
/// physical ports only, judges those ports (every member of an aggregate), and sFlow is judged
/// on every layer crossed, where it is set (a VLAN, its parent, a hardware switch for its
/// ports). A software switch is never offloaded: FAIL. Per interface: `interface_part`.
///
/// On the NP6 generation (`offload_chips`): a model whose port list says `Cross-chip
/// offloading: No` (the 200E's two NP6Lite chips) offloads nothing that enters on one chip and
/// leaves on another, so each trading flow's path (its policy's interfaces, resolved to ports;
/// the trading interfaces pairwise where a policy cannot be read) must stay on one chip, and
/// the chips' fast path must be on (`diagnose npu <np> npu-feature`; on NP6XLite also `config
/// system np6xlite`).
///
/// On a model with ultra-low-latency ports (600F/601F and 400F/401F: x5-x8; 3700F/3701F:
/// port1-port4; [`Family::ull_ports`]) every physical port of a trading interface must be one
/// of them: traffic gets the ULL path only when it enters and exits through ULL ports, and an
/// aggregate mixing ULL and other members sends part of its flows through the ISF. The
/// baseline's `ull_ports` replaces the model table's list (a 900G, whose ULL ports no public
/// page names, or a model premarket does not know); `ull_ports: []` says the design does not
/// use them. Models without ULL ports are not judged on it.
///
/// ```yaml
/// - id: fortigate.offload.blockers
///   platform: fortigate
/// ```
/// Baseline: `expect.trading_interfaces: [x1, x2]`, `expect.np: np7lite`,
/// `expect.npu_settings: {}` (the non-default `config system npu` settings, name -> value),
/// `expect.ull_ports: [x5, x6]` (optional; default: the model's, from `get system status`),
/// `expect.flows[*].policy` (optional: where each flow enters and leaves).
pub struct OffloadBlockers;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    trading_interfaces: Vec<String>,
    np: Option<Np>,
    #[serde(default)]
    npu_settings: BTreeMap<String, String>,
    /// Replaces the model table's ULL ports; `[]` turns the ULL judgement off.
    #[serde(default)]
    ull_ports: Option<Vec<String>>,
    /// Where each trading flow enters and leaves (its policy), for the NP chips it crosses.
    #[serde(default)]
    flows: Vec<Flow>,
}

impl Check for OffloadBlockers {
    const ID: &'static str = "fortigate.offload.blockers";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), crate::Invalid> {
        if input.trading_interfaces.is_empty() {
            return Err("`expect.trading_interfaces` lists no interface".into());
        }
        if input.np.is_none() {
            return Err("`expect.np` is missing (`np7lite` on a 200G/201G, `np7` on NP7 models): it names the port-list command".into());
        }
        Ok(())
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        let np = input.np.unwrap_or_default();
        let mut out: Vec<Box<dyn AnyQuery>> = vec![
            Box::new(GetSystemInterface),
            Box::new(ShowSystemInterface),
            Box::new(ShowVirtualSwitch),
            Box::new(np.port_list()),
            Box::new(ShowSystemNpu),
        ];
        out.extend(offload_chips::queries(np, &input.flows));
        out
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let np = input.np.unwrap_or_default();
        let port_list = np.port_list();
        let list_command = format!("diagnose npu {} port-list", np.word());
        let mut parts: Vec<Verdict> = Vec::new();
        let interfaces = facts.get(&GetSystemInterface);
        let shown = facts.get(&ShowSystemInterface);
        let switches = facts
            .get(&ShowVirtualSwitch)
            .map_err(|e| format!("`show system virtual-switch`: {e}"));
        let served = facts.get(&port_list);
        let ull = Ull::of(input, facts);
        for name in &input.trading_interfaces {
            let (interfaces, shown) = match (&interfaces, &shown) {
                (Ok(i), Ok(s)) => (*i, *s),
                (Err(e), _) | (_, Err(e)) => {
                    parts.push(part_error(name, e));
                    continue;
                }
            };
            let topology = Topology {
                interfaces: shown,
                switches: switches.clone(),
            };
            let served = served.as_deref().map_err(|e| port_list_error(e, facts, np));
            parts.push(interface_part(
                name,
                &topology,
                interfaces,
                served,
                (&list_command, &ull),
            ));
        }
        if let (Ok(shown), Ok(list)) = (&shown, &served) {
            let topology = Topology {
                interfaces: shown,
                switches: switches.clone(),
            };
            let model = facts.model().map_or("model", |m| m.name.as_str());
            parts.extend(offload_chips::chips(
                &input.flows,
                &input.trading_interfaces,
                &topology,
                list,
                facts,
                model,
            ));
        }
        parts.extend(offload_chips::fastpath(np, facts));
        parts.push(match facts.get(&ShowSystemNpu) {
            Err(e) => part_error("config system npu", &e),
            Ok(npu) => {
                let mut problems = Vec::new();
                for (key, value) in &npu.settings {
                    match input.npu_settings.get(key) {
                        Some(want) if want == value => {}
                        Some(want) => problems.push(format!("`set {key} {value}`, the baseline says {want}")),
                        None if key == "fastpath" && value == "disable" => problems.push(
                            "`set fastpath disable`: the NP offloads nothing".to_string(),
                        ),
                        None => problems.push(format!("`set {key} {value}`, which the baseline does not list")),
                    }
                }
                for (key, want) in &input.npu_settings {
                    if !npu.settings.contains_key(key) {
                        problems.push(format!(
                            "`{key}` is at its default (not printed by `show system npu`), the baseline says {want}"
                        ));
                    }
                }
                let evidence = if npu.settings.is_empty() {
                    "show system npu: no non-default setting".to_string()
                } else {
                    format!(
                        "show system npu:\n{}",
                        npu.settings
                            .iter()
                            .map(|(k, v)| format!("    set {k} {v}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    )
                };
                if problems.is_empty() {
                    Verdict::ok("config system npu: NP settings as the baseline lists").evidence(evidence)
                } else {
                    Verdict::fail(format!("config system npu: {}", problems.join("; ")))
                        .evidence(evidence)
                        .remedy("Compare `show system npu` with the design: restore the NP settings (`config system npu`) or, if the change is intended, list it under `npu_settings` in the baseline.")
                }
            }
        });
        Ok(combine(
            parts,
            "parts of the trading path",
            "trading interfaces on the NP without sFlow, NP settings as the baseline lists",
        ))
    }
}

/// The port list could not be read: a model known to have another NP means the baseline's
/// `np:` is wrong (ERROR, say which); an unknown model's refusal is a SKIP of that part.
fn port_list_error(e: &FactError, facts: &Facts, np: Np) -> Verdict {
    let known = facts
        .model()
        .and_then(|m| Family::of(&m.name).map(|f| (m, f)));
    match known {
        Some((model, Family { np: Some(has), .. })) if e.not_available() && has != np => {
            Verdict::error(format!("the NP port list: {e}")).remedy(format!(
                "Set `np: {}` in the baseline of this {} (it names the port-list command).",
                has.word(),
                model.name
            ))
        }
        _ => part_error("the NP port list", e),
    }
}

/// One trading interface: resolved to its physical ports, each judged against the NP port
/// list, and sFlow judged on every layer crossed (the interface, a VLAN's parent, an
/// aggregate and its members, a hardware switch), where it is set.
fn interface_part(
    name: &str,
    topology: &Topology<'_>,
    interfaces: &SystemInterfaces,
    served: Result<&NpuPortList, Verdict>,
    (list_command, ull): (&str, &Ull),
) -> Verdict {
    let resolved = match topology.resolve(name) {
        Ok(r) => r,
        Err(e @ Unresolved::Unknown(_)) => {
            return Verdict::fail(e.to_string()).remedy(
                "Fix `trading_interfaces` in the baseline to the interfaces the trading path crosses.",
            );
        }
        Err(e @ Unresolved::SoftwareSwitch(_)) => {
            return Verdict::fail(e.to_string()).remedy(format!(
                "Carry the trading path on NP ports directly (a physical port, a VLAN or an aggregate of ports listed by `{list_command}`), not through a software switch."
            ));
        }
        Err(e) => return Verdict::error(e.to_string()),
    };
    let mut problems = Vec::new();
    let mut remedy = Vec::new();
    let mut sflow_said = Vec::new();
    for layer in &resolved.layers {
        // A hardware switch's port has no settings of its own: the switch's apply.
        if matches!(layer.kind, Kind::SwitchPort { .. }) {
            continue;
        }
        let sflow = sflow(&layer.name, topology, interfaces);
        sflow_said.push(format!("{} {}", layer.name, onoff(sflow)));
        if sflow == Some(true) {
            let on = if layer.name == name {
                String::new()
            } else {
                format!(" on {}", layer.name)
            };
            problems.push(format!(
                "sFlow is enabled{on} (`sflow-sampler: enable`): it disables NP offload for all traffic on the interface"
            ));
            remedy.push(format!(
                "On the firewall: `config system interface`, `edit {}`, `set sflow-sampler disable`, `end` (NetFlow does not block offload if flow records are needed); restart the trading flows and rerun `premarket check fortigate.offload.blockers`.",
                layer.name
            ));
        }
    }
    let list = match served {
        Ok(list) => list,
        Err(verdict) => {
            return Verdict {
                summary: format!("{name}: {}", verdict.summary),
                ..verdict
            };
        }
    };
    let mut on_np = Vec::new();
    for port in &resolved.ports {
        match list.ports.get(port) {
            Some(p) => on_np.push(format!("{port} {}", p.np_group)),
            None => {
                let which = if port == name {
                    String::new()
                } else {
                    format!("its port {port} is ")
                };
                problems.push(format!(
                    "{which}not served by the NP (absent from `{list_command}`): everything it carries takes the CPU"
                ));
                remedy.push(format!(
                    "Move the trading link to an NP port listed by `{list_command}` (on a 200G/201G the HA and MGMT ports are not)."
                ));
                on_np.push(format!("{port} -"));
            }
        }
    }
    if let Some((problem, fix)) = ull.judge(name, &resolved) {
        problems.push(problem);
        remedy.push(fix);
    }
    let status = interfaces
        .interfaces
        .get(name)
        .and_then(|i| i.status.as_deref())
        .unwrap_or("-");
    let mut evidence = format!(
        "{}; status {status}; sflow-sampler: {}; NP: {}",
        resolved.describe(),
        sflow_said.join(", "),
        on_np.join(", ")
    );
    if !ull.ports.is_empty() {
        evidence.push_str(&format!(
            "; ultra-low-latency ports ({}): {}",
            ull.source,
            ull.ports.join(", ")
        ));
    }
    if problems.is_empty() {
        Verdict::ok(format!(
            "{name}: on the NP ({}), no sFlow",
            np_groups(&resolved, list)
        ))
        .evidence(evidence)
    } else {
        Verdict::fail(format!("{name}: {}", problems.join("; ")))
            .evidence(evidence)
            .remedy(remedy.join("\n"))
    }
}

/// The ultra-low-latency ports trading interfaces must use, and where the list comes from.
struct Ull {
    ports: Vec<String>,
    /// `FortiGate-601F` (the model table's) or `the baseline`.
    source: String,
}

impl Ull {
    /// The baseline's list if it has one, else the model's (from `get system status`); no
    /// ports when neither names any.
    fn of(input: &Input, facts: &Facts) -> Ull {
        if let Some(ports) = &input.ull_ports {
            return Ull {
                ports: ports.clone(),
                source: "the baseline's `ull_ports`".into(),
            };
        }
        let model = facts.model().map(|m| m.name.clone()).unwrap_or_default();
        let ports = Family::of(&model).map_or(&[][..], |f| f.ull_ports);
        Ull {
            ports: ports.iter().map(|p| p.to_string()).collect(),
            source: model,
        }
    }

    /// A problem and its remedy when `name`'s physical ports are not all ULL ports.
    fn judge(&self, name: &str, resolved: &Resolved) -> Option<(String, String)> {
        if self.ports.is_empty() {
            return None;
        }
        let (on, off): (Vec<&String>, Vec<&String>) =
            resolved.ports.iter().partition(|p| self.ports.contains(p));
        if off.is_empty() {
            return None;
        }
        let list = self.ports.join(", ");
        let off_names = off
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let problem = if on.is_empty() {
            let which = match (resolved.ports.as_slice(), off.len()) {
                ([one], _) if one == name => "not an ultra-low-latency port".to_string(),
                (_, 1) => format!("its port {off_names} is not an ultra-low-latency port"),
                _ => format!("its ports {off_names} are not ultra-low-latency ports"),
            };
            format!(
                "{which} ({}: {list}): trading traffic crosses the internal switch fabric",
                self.source
            )
        } else {
            let on_names = on.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
            format!(
                "an aggregate mixing ultra-low-latency ports ({on_names}) with {off_names} ({}: {list}): flows hashed to {off_names} cross the internal switch fabric",
                self.source
            )
        };
        let fix = format!(
            "Carry the trading path on the ultra-low-latency ports ({list}) only, entering and leaving through them (Fortinet: low latency only when traffic enters and exits through ULL ports); if the design accepts the ISF's latency, say so with `ull_ports: []` in the baseline."
        );
        Some((problem, fix))
    }
}

/// `NP#0` for one port, `port1 NP#0, port2 NP#0` for several.
fn np_groups(resolved: &Resolved, list: &NpuPortList) -> String {
    let group = |p: &String| list.ports.get(p).map_or("-", |g| g.np_group.as_str());
    match resolved.ports.as_slice() {
        [one] => group(one).to_string(),
        many => many
            .iter()
            .map(|p| format!("{p} {}", group(p)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Whether sFlow samples `name`: `get system interface` says it when its record is complete;
/// `show system interface` prints `set sflow-sampler enable` only where it is on.
fn sflow(name: &str, topology: &Topology<'_>, interfaces: &SystemInterfaces) -> Option<bool> {
    interfaces
        .interfaces
        .get(name)
        .and_then(|i| i.sflow_sampler)
        .or_else(|| {
            topology
                .entry(name)
                .map(|e| e.get("sflow-sampler").as_deref() == Some("enable"))
        })
}

fn onoff(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "enable",
        Some(false) => "disable",
        None => "-",
    }
}
