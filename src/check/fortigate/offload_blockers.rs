use std::collections::BTreeMap;

use crate::Check;
use crate::outcome::{combine, part_error};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{GetSystemInterface, Np, ShowSystemNpu};

/// Nothing on the trading path disables offload: no sFlow sampler on a trading interface
/// ("Configuring sFlow on any interface disables all NP7, NP6, NP6XLite, or NP6Lite offloading
/// for all traffic on that interface"; NetFlow does not), every trading interface is served by
/// the NP (`diagnose npu np7lite port-list` on a 200G/201G: its HA and MGMT ports are not), and
/// `config system npu` holds exactly the non-default settings the baseline lists (`show` prints
/// only those; `set fastpath disable` stops all offload).
///
/// ```yaml
/// - id: fortigate.offload.blockers
///   platform: fortigate
/// ```
/// Baseline: `expect.trading_interfaces: [x1, x2]`, `expect.np: np7lite`,
/// `expect.npu_settings: {}` (the non-default `config system npu` settings, name -> value).
pub struct OffloadBlockers;

/// `expect:` keys read.
#[derive(serde::Deserialize)]
pub struct Input {
    trading_interfaces: Vec<String>,
    np: Option<Np>,
    #[serde(default)]
    npu_settings: BTreeMap<String, String>,
}

impl Check for OffloadBlockers {
    const ID: &'static str = "fortigate.offload.blockers";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), String> {
        if input.trading_interfaces.is_empty() {
            return Err("`expect.trading_interfaces` lists no interface".into());
        }
        if input.np.is_none() {
            return Err("`expect.np` is missing (`np7lite` on a 200G/201G, `np7` on NP7 models): it names the port-list command".into());
        }
        Ok(())
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![
            Box::new(GetSystemInterface),
            Box::new(input.np.unwrap_or_default().port_list()),
            Box::new(ShowSystemNpu),
        ]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let np = input.np.unwrap_or_default();
        let port_list = np.port_list();
        let list_command = format!("diagnose npu {} port-list", np.word());
        let mut parts: Vec<Verdict> = Vec::new();
        let interfaces = facts.get(&GetSystemInterface);
        let served = facts.get(&port_list);
        for name in &input.trading_interfaces {
            let interfaces = match &interfaces {
                Ok(i) => i,
                Err(e) => {
                    parts.push(part_error(name, e));
                    continue;
                }
            };
            let Some(interface) = interfaces.interfaces.get(name) else {
                parts.push(
                    Verdict::fail(format!(
                        "{name}: not in `get system interface`: no such interface on the firewall"
                    ))
                    .remedy("Fix `trading_interfaces` in the baseline to the interfaces the trading path crosses."),
                );
                continue;
            };
            let mut problems = Vec::new();
            let mut remedy = Vec::new();
            match interface.sflow_sampler {
                Some(true) => {
                    problems.push("sFlow is enabled (`sflow-sampler: enable`): it disables NP offload for all traffic on the interface".to_string());
                    remedy.push(format!(
                        "On the firewall: `config system interface`, `edit {name}`, `set sflow-sampler disable`, `end` (NetFlow does not block offload if flow records are needed); restart the trading flows and rerun `premarket check fortigate.offload.blockers`."
                    ));
                }
                Some(false) => {}
                None => {
                    parts.push(Verdict::error(format!(
                        "{name}: `get system interface` prints no sflow-sampler for it: cannot tell whether sFlow blocks offload"
                    )));
                    continue;
                }
            }
            match &served {
                Ok(list) => match list.ports.get(name) {
                    Some(_) => {}
                    None => {
                        problems.push(format!(
                            "not served by the NP (absent from `{list_command}`): everything it carries takes the CPU"
                        ));
                        remedy.push(format!(
                            "Move the trading link to an NP port listed by `{list_command}` (on a 200G/201G the HA and MGMT ports are not)."
                        ));
                    }
                },
                Err(e) => {
                    parts.push(part_error(name, e));
                    continue;
                }
            }
            let np_group = served
                .as_ref()
                .ok()
                .and_then(|l| l.ports.get(name))
                .map_or("-".to_string(), |p| p.np_group.clone());
            let evidence = format!(
                "{name}: status {}, sflow-sampler {}, netflow-sampler {}, NP {np_group}",
                interface.status.as_deref().unwrap_or("-"),
                onoff(interface.sflow_sampler),
                onoff(interface.netflow_sampler),
            );
            parts.push(if problems.is_empty() {
                Verdict::ok(format!("{name}: on the NP ({np_group}), no sFlow")).evidence(evidence)
            } else {
                Verdict::fail(format!("{name}: {}", problems.join("; ")))
                    .evidence(evidence)
                    .remedy(remedy.join("\n"))
            });
        }
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

fn onoff(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "enable",
        Some(false) => "disable",
        None => "-",
    }
}
