//! `get system interface`: one line per interface after its `== [ name ]` header, fields
//! separated by single spaces as FortiOS 7.4 prints them (ntc-templates' 7.4 capture), values
//! read from the configuration so that `sflow-enabled` shows `sflow-sampler: enable` here and
//! `set sflow-sampler enable` in `show system interface x1`.

use super::config::{Config, INTERFACES};

pub fn get_system_interface(config: &Config) -> String {
    let mut out = String::new();
    for name in INTERFACES {
        let get = |key: &str, default: &str| {
            config
                .entry_setting("system interface", name, key)
                .unwrap_or(default)
                .trim_matches('"')
                .to_string()
        };
        let ip = get("ip", "0.0.0.0 0.0.0.0");
        out.push_str(&format!(
            "== [ {name} ]\nname: {name} mode: static ip: {ip} status: up netbios-forward: disable type: physical ring-rx: 0 ring-tx: 0 netflow-sampler: disable sflow-sampler: {sflow} src-check: enable explicit-web-proxy: disable explicit-ftp-proxy: disable proxy-captive-portal: disable mtu-override: disable wccp: disable drop-overlapped-fragment: disable drop-fragment: disable\n",
            sflow = get("sflow-sampler", "disable"),
        ));
    }
    for tunnel in ["naf.root", "l2t.root", "ssl.root"] {
        out.push_str(&format!(
            "== [ {tunnel} ]\nname: {tunnel} ip: 0.0.0.0 0.0.0.0 status: up netbios-forward: disable type: tunnel netflow-sampler: disable sflow-sampler: disable src-check: enable explicit-web-proxy: disable explicit-ftp-proxy: disable proxy-captive-portal: disable wccp: disable\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::{Fault, Faults};
    use super::*;

    #[test]
    fn sflow_shows_per_interface() {
        let healthy = get_system_interface(&Config::new("fw1", &Faults::default()));
        assert!(healthy.contains("== [ x1 ]\nname: x1 mode: static"));
        assert!(!healthy.contains("sflow-sampler: enable"));
        assert!(healthy.contains("name: mgmt mode: static ip: 192.0.2.10 255.255.255.0 "));
        let sflow = get_system_interface(&Config::new("fw1", &Faults::only(Fault::SflowEnabled)));
        let x1 = sflow.lines().find(|l| l.starts_with("name: x1 ")).unwrap();
        assert!(x1.contains(" sflow-sampler: enable "), "{x1}");
        let x2 = sflow.lines().find(|l| l.starts_with("name: x2 ")).unwrap();
        assert!(x2.contains(" sflow-sampler: disable "), "{x2}");
    }
}
