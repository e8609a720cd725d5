//! `get system interface`: one line per interface after its `== [ name ]` header, fields
//! separated by single spaces as FortiOS 7.4 prints them (ntc-templates' 7.4 capture) or
//! padded as 6.4 does, values read from the configuration so that `sflow-enabled` shows
//! `sflow-sampler: enable` here and `set sflow-sampler enable` in `show system interface x1`.
//! A hardware switch's ports print `name/status/type` only; the switch's members are in
//! `show system virtual-switch`, which only a model with a switch answers.

use super::config::{Config, HARD_SWITCH, HARD_SWITCH_PORTS, INTERFACES};
use super::model::{FirewallModel, Path, Release};

/// One `get system interface` record: 7.x separates fields with one space; 6.4 pads them with
/// several and ends the line with spaces (ntc-templates' 6.4.2 capture).
fn record(name: &str, fields: &[(&str, String)], release: Release) -> String {
    let (gap, end) = match release {
        Release::Fos7 => (" ", ""),
        Release::Fos64 => ("    ", "    "),
    };
    let body: Vec<String> = std::iter::once(format!("name: {name}"))
        .chain(fields.iter().map(|(k, v)| format!("{k}: {v}")))
        .collect();
    format!("== [ {name} ]\n{}{end}\n", body.join(gap))
}

pub fn get_system_interface(config: &Config, spec: &FirewallModel) -> String {
    let mut out = String::new();
    let mut names: Vec<&str> = INTERFACES.to_vec();
    match spec.path {
        Path::Ports => {}
        Path::VlanOnPort => names.push("md-feed"),
        Path::VlanOnAggregate => names.extend(["md-lag", "md-feed"]),
        Path::HardSwitchPort => names.push(HARD_SWITCH),
    }
    for name in names {
        // A hardware switch's ports print name, status and type only.
        if spec.path == Path::HardSwitchPort && HARD_SWITCH_PORTS.contains(&name) {
            let fields = [
                ("status", "up".to_string()),
                ("type", "physical".to_string()),
            ];
            out.push_str(&record(name, &fields, spec.release));
            continue;
        }
        let get = |key: &str, default: &str| {
            config
                .entry_setting("system interface", name, key)
                .unwrap_or(default)
                .trim_matches('"')
                .to_string()
        };
        let kind = match name {
            "md-feed" => "vlan".to_string(),
            _ => get("type", "physical"),
        };
        let fields = [
            ("mode", "static".to_string()),
            ("ip", get("ip", "0.0.0.0 0.0.0.0")),
            ("status", "up".to_string()),
            ("netbios-forward", "disable".to_string()),
            ("type", kind),
            ("ring-rx", "0".to_string()),
            ("ring-tx", "0".to_string()),
            ("netflow-sampler", "disable".to_string()),
            ("sflow-sampler", get("sflow-sampler", "disable")),
            ("src-check", "enable".to_string()),
            ("explicit-web-proxy", "disable".to_string()),
            ("explicit-ftp-proxy", "disable".to_string()),
            ("proxy-captive-portal", "disable".to_string()),
            ("mtu-override", "disable".to_string()),
            ("wccp", "disable".to_string()),
            ("drop-overlapped-fragment", "disable".to_string()),
            ("drop-fragment", "disable".to_string()),
        ];
        out.push_str(&record(name, &fields, spec.release));
    }
    for tunnel in ["naf.root", "l2t.root", "ssl.root"] {
        let fields = [
            ("ip", "0.0.0.0 0.0.0.0".to_string()),
            ("status", "up".to_string()),
            ("netbios-forward", "disable".to_string()),
            ("type", "tunnel".to_string()),
            ("netflow-sampler", "disable".to_string()),
            ("sflow-sampler", "disable".to_string()),
            ("src-check", "enable".to_string()),
            ("explicit-web-proxy", "disable".to_string()),
            ("explicit-ftp-proxy", "disable".to_string()),
            ("proxy-captive-portal", "disable".to_string()),
            ("wccp", "disable".to_string()),
        ];
        out.push_str(&record(tunnel, &fields, spec.release));
    }
    out
}

/// `show system virtual-switch` on a model with a hardware switch; `None` (a parse error on
/// the box) where the model has none.
pub fn virtual_switch(spec: &FirewallModel) -> Option<String> {
    (spec.path == Path::HardSwitchPort).then(|| {
        let ports: String = HARD_SWITCH_PORTS
            .iter()
            .map(|p| format!("            edit \"{p}\"\n            next\n"))
            .collect();
        format!(
            "config system virtual-switch\n    edit \"{HARD_SWITCH}\"\n        set physical-switch \"sw0\"\n        config port\n{ports}        end\n    next\nend\n"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::{Fault, Faults};
    use super::super::model::FG_201G;
    use super::*;

    #[test]
    fn sflow_shows_per_interface() {
        let healthy = get_system_interface(&Config::new("fw1", &Faults::default()), &FG_201G);
        assert!(healthy.contains("== [ x1 ]\nname: x1 mode: static"));
        assert!(!healthy.contains("sflow-sampler: enable"));
        assert!(healthy.contains("name: mgmt mode: static ip: 192.0.2.10 255.255.255.0 "));
        let sflow = get_system_interface(
            &Config::new("fw1", &Faults::only(Fault::SflowEnabled)),
            &FG_201G,
        );
        let x1 = sflow.lines().find(|l| l.starts_with("name: x1 ")).unwrap();
        assert!(x1.contains(" sflow-sampler: enable "), "{x1}");
        let x2 = sflow.lines().find(|l| l.starts_with("name: x2 ")).unwrap();
        assert!(x2.contains(" sflow-sampler: disable "), "{x2}");
    }
}
