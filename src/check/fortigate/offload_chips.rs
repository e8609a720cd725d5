//! What `fortigate.offload.blockers` knows of the NP6 generation: the chips (a session that
//! enters on one NP chip and leaves on another is offloaded only where the port list says
//! `Cross-chip offloading: Yes`) and the fast path switches (`diagnose npu <np> npu-feature`,
//! and `config system np6xlite` on NP6XLite models). The NP7 generation has one logical NP per
//! box behind its switch fabric and its fast path in `config system npu`: nothing here applies.

use super::flows::{policy_of, policy_queries};
use crate::outcome::part_error;
use premarket_core::Verdict;
use premarket_parse::{AnyQuery, Facts};
use premarket_platform::fortigate::topology::Topology;
use premarket_platform::fortigate::{
    DiagNpuFeature, Flow, Np, NpuPortList, PolicyShow, ShowSystemNp6xlite,
};

/// The queries the NP6 judgements need: each flow's policy (where its traffic enters and
/// leaves), the chips' features and, on NP6XLite, its fast-path configuration.
pub(super) fn queries(np: Np, flows: &[Flow]) -> Vec<Box<dyn AnyQuery>> {
    let mut out = policy_queries(flows);
    if let Some(features) = DiagNpuFeature::of(np) {
        out.push(Box::new(features));
    }
    if np == Np::Np6xlite {
        out.push(Box::new(ShowSystemNp6xlite));
    }
    out
}

/// The NP fast path: every chip's `Fastpath Enabled` in `npu-feature`, and no `set fastpath
/// disable` under `config system np6xlite`. `None` for the NP7 generation.
pub(super) fn fastpath(np: Np, facts: &Facts) -> Option<Verdict> {
    let features = DiagNpuFeature::of(np)?;
    let mut problems = Vec::new();
    let mut evidence = Vec::new();
    let mut errors = Vec::new();
    match facts.get(&features) {
        Err(e) => errors.push((features.0, e)),
        Ok(f) => match f.fastpath_off() {
            None => {
                return Some(Verdict::error(format!(
                    "NP fast path: `{}` prints no Fastpath row",
                    features.0
                )));
            }
            Some(off) => {
                let row = f.features.get("Fastpath").cloned().unwrap_or_default();
                evidence.push(format!(
                    "{}: Fastpath {}",
                    features.0,
                    f.chips
                        .iter()
                        .zip(&row)
                        .map(|(c, v)| format!("{c} {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                for (chip, value) in off {
                    problems.push(format!("{chip} Fastpath {value} (`{}`)", features.0));
                }
            }
        },
    }
    if np == Np::Np6xlite {
        match facts.get(&ShowSystemNp6xlite) {
            Err(e) => errors.push((ShowSystemNp6xlite::TEXT, e)),
            Ok(config) => {
                for (chip, settings) in &config.chips {
                    let set: Vec<String> = settings
                        .iter()
                        .map(|(k, v)| format!("set {k} {v}"))
                        .collect();
                    evidence.push(format!(
                        "show system np6xlite: edit {chip}: {}",
                        if set.is_empty() {
                            "defaults".into()
                        } else {
                            set.join(", ")
                        }
                    ));
                    if settings.get("fastpath").map(String::as_str) == Some("disable") {
                        problems.push(format!(
                            "`config system np6xlite`, `edit {chip}`: `set fastpath disable`"
                        ));
                    }
                }
            }
        }
    }
    let evidence = evidence.join("\n");
    if !problems.is_empty() {
        return Some(
            Verdict::fail(format!(
                "NP fast path: {}: the NP offloads nothing, every session takes the CPU",
                problems.join("; ")
            ))
            .evidence(evidence)
            .remedy(match np {
                Np::Np6xlite => "On the firewall: `config system np6xlite`, `edit np6xlite_0` (each chip), `set fastpath enable`, `end`; rerun `premarket check fortigate.offload.blockers`.",
                _ => "On the firewall: `config system npu`, `set fastpath enable`, `end` (or the chip's `config system np6` entry); rerun `premarket check fortigate.offload.blockers`.",
            }),
        );
    }
    if let Some((command, e)) = errors.first() {
        return Some(part_error(&format!("NP fast path (`{command}`)"), e));
    }
    Some(Verdict::ok("NP fast path: enabled on every chip").evidence(evidence))
}

/// A port pair on two chips: (in port, its chip, out port, its chip).
type Crossing = (String, String, String, String);

/// Where a trading flow enters and leaves, as physical ports.
struct Path {
    label: String,
    ins: Vec<String>,
    outs: Vec<String>,
}

/// On a port list with a `Cross-chip offloading` column that says `No` somewhere: each trading
/// flow's path (its policy's `srcintf` to `dstintf`, resolved to physical ports; where a policy
/// cannot be read or resolved, every pair of trading interfaces) must stay on one chip where
/// either port does not offload across chips. `None` when the list has no such `No`.
pub(super) fn chips(
    flows: &[Flow],
    trading_interfaces: &[String],
    topology: &Topology<'_>,
    list: &NpuPortList,
    facts: &Facts,
    model: &str,
) -> Option<Verdict> {
    if !list.ports.values().any(|p| p.cross_chip == Some(false)) {
        return None;
    }
    let ports_of = |names: &[String]| -> Option<Vec<String>> {
        let mut out = Vec::new();
        for name in names {
            out.extend(topology.resolve(name).ok()?.ports);
        }
        Some(out)
    };
    let mut paths = Vec::new();
    let mut unresolved = flows.is_empty();
    for flow in flows {
        let show = flow.policy.map(|id| policy_of(flow, id).0.show(facts));
        let path = match show {
            Some(Ok(PolicyShow { policy: Some(p) })) => {
                ports_of(&p.srcintf).zip(ports_of(&p.dstintf))
            }
            _ => None,
        };
        match path {
            Some((ins, outs)) => paths.push(Path {
                label: flow.name.clone(),
                ins,
                outs,
            }),
            None => unresolved = true,
        }
    }
    if unresolved {
        for (i, a) in trading_interfaces.iter().enumerate() {
            for b in &trading_interfaces[i + 1..] {
                if let (Some(ins), Some(outs)) = (
                    ports_of(std::slice::from_ref(a)),
                    ports_of(std::slice::from_ref(b)),
                ) {
                    paths.push(Path {
                        label: format!("traffic between {a} and {b}"),
                        ins,
                        outs,
                    });
                }
            }
        }
    }
    let mut crossings: Vec<(Crossing, Vec<String>)> = Vec::new();
    let mut seen = Vec::new();
    for path in &paths {
        for a in &path.ins {
            for b in &path.outs {
                let (Some(pa), Some(pb)) = (list.ports.get(a), list.ports.get(b)) else {
                    continue;
                };
                seen.push(format!("{a} {}", pa.np_group));
                seen.push(format!("{b} {}", pb.np_group));
                let no_cross = pa.cross_chip == Some(false) || pb.cross_chip == Some(false);
                if pa.np_group == pb.np_group || !no_cross {
                    continue;
                }
                let key = (
                    a.clone(),
                    pa.np_group.clone(),
                    b.clone(),
                    pb.np_group.clone(),
                );
                match crossings.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, labels)) => labels.push(path.label.clone()),
                    None => crossings.push((key, vec![path.label.clone()])),
                }
            }
        }
    }
    seen.sort();
    seen.dedup();
    let evidence = format!(
        "NP chips of the trading ports: {} (Cross-chip offloading: No on this model's list)",
        seen.join(", ")
    );
    if crossings.is_empty() {
        return Some(
            Verdict::ok("NP chips: every trading flow enters and leaves on one chip")
                .evidence(evidence),
        );
    }
    let found: Vec<String> = crossings
        .iter()
        .map(|((a, ca, b, cb), labels)| {
            let (enter, leave) = if labels.len() == 1 {
                ("enters", "leaves")
            } else {
                ("enter", "leave")
            };
            format!(
                "{} {enter} on {a} ({ca}) and {leave} on {b} ({cb})",
                labels.join(", ")
            )
        })
        .collect();
    Some(
        Verdict::fail(format!(
            "NP chips: {}: this {model} does not offload between NP chips (`Cross-chip offloading: No`), so every packet takes the CPU",
            found.join("; ")
        ))
        .evidence(evidence)
        .remedy("Move the trading link so that each flow enters and leaves on ports of the same NP chip (`diagnose npu <np> port-list`: the Chip column), or route it through a model that offloads across chips; rerun `premarket check fortigate.offload.blockers`."),
    )
}
