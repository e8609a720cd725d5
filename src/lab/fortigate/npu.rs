//! The NP7Lite of the 201G: `show full-configuration system npu` (every field, defaults
//! included; `show system npu` prints only non-default ones, so a factory box prints an empty
//! block) and `diagnose npu np7lite port-list`. No real output of either was found for an
//! NP7/NP7Lite box: the field list follows Fortinet's `config system npu` reference for NP7
//! (`max-session-timeout` 40 s default, `per-session-accounting traffic-log-only`, ...), and
//! the port list follows the NP7 `port-list` layout (front panel table, then the NP ports).
//! Both are marked inferred.

use premarket_platform::fortigate::Np;

use super::config::{Config, INTERFACES};

/// `config system npu` fields and their defaults (NP7 reference; inferred for NP7Lite).
const NPU_DEFAULTS: &[(&str, &str)] = &[
    ("dedicated-management-cpu", "disable"),
    ("dedicated-management-affinity", "\"\""),
    ("capwap-offload", "enable"),
    ("ipsec-mtu-override", "disable"),
    ("ipsec-ordering", "disable"),
    ("ipsec-enc-subengine-mask", "0xff"),
    ("ipsec-dec-subengine-mask", "0xff"),
    ("fastpath", "enable"),
    ("per-session-accounting", "traffic-log-only"),
    ("session-acct-interval", "5"),
    ("max-session-timeout", "40"),
    ("mcast-session-accounting", "tpe-based"),
    ("mcast-denied-ses-offload", "disable"),
    ("double-level-mcast-offload", "disable"),
    ("strip-esp-padding", "disable"),
    ("strip-clear-text-padding", "disable"),
    ("ipsec-inbound-cache", "enable"),
    ("htx-icmp-csum-chk", "pass"),
    ("hash-tbl-spread", "enable"),
    ("ip-reassembly", "disable"),
];

/// `show full-configuration system npu`.
pub fn full_configuration(config: &Config) -> String {
    let mut out = String::from("config system npu\n");
    for (key, default) in NPU_DEFAULTS {
        let value = config.setting("system npu", key).unwrap_or(default);
        out.push_str(&format!("    set {key} {value}\n"));
    }
    out.push_str("end\n");
    out
}

/// The port list of the firewall's NP, in its generation's layout: NP7 and NP7Lite print the
/// front-panel table, the NP6 family the `Chip XAUI Ports` table (two chips on an NP6, one
/// on an NP6XLite; the NP6XLite rows are inferred, no published output was found).
pub fn port_list(np: Np) -> String {
    match np {
        Np::Np7 | Np::Np7lite => np7lite_port_list(),
        Np::Np6 | Np::Np6lite | Np::Np6xlite => np6_port_list(np),
    }
}

fn np6_port_list(np: Np) -> String {
    let mut out = String::from(
        "Chip   XAUI Ports            Max   Cross-chip\n                             Speed offloading\n------ ---- -------          ----- ----------\n",
    );
    let ports: Vec<&str> = INTERFACES
        .iter()
        .copied()
        .filter(|n| !matches!(*n, "mgmt" | "ha"))
        .collect();
    let chips = if np == Np::Np6 { 2 } else { 1 };
    let per_chip = ports.len().div_ceil(chips);
    for (chip, group) in ports.chunks(per_chip).enumerate() {
        for (i, name) in group.iter().enumerate() {
            let label = if i == 0 {
                format!("{}_{chip}", np.word())
            } else {
                String::new()
            };
            let speed = if name.starts_with('x') { "10G" } else { "1G" };
            out.push_str(&format!(
                "{label:<6} {:<4} {name:<16} {speed:<5} Yes\n",
                i % 4
            ));
        }
        out.push_str("------ ---- -------          ----- ----------\n");
    }
    out
}

/// `diagnose npu np7lite port-list`: the data ports on NP#0; MGMT and HA are not on the NP.
pub fn np7lite_port_list() -> String {
    let mut out = String::from(
        "Front Panel Port:\n\
         Name     Max_speed(Mbps) Dflt_speed(Mbps) NP_group        Switch_id SW_port_id SW_port_name \n\
         -------- --------------- ---------------  --------------- --------- ---------- ------------ \n",
    );
    let data_ports = INTERFACES.iter().filter(|n| !matches!(**n, "mgmt" | "ha"));
    for (sw_port, name) in data_ports.enumerate() {
        let speed = if name.starts_with('x') { 10_000 } else { 1_000 };
        out.push_str(&format!(
            "{name:<8} {speed:<15} {speed:<16} {:<15} {:<9} {sw_port:<10} {:<12} \n",
            "NP#0",
            0,
            format!("ge{sw_port}"),
        ));
    }
    out.push_str(
        "\nNP Port:\n\
         Name   Switch_id SW_port_id SW_port_name \n\
         ------ --------- ---------- ------------ \n\
         np0_0  0         32         xe0          \n\
         np0_1  0         33         xe1          \n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn defaults_and_ports() {
        let c = Config::new("fw1", &Faults::default());
        assert!(full_configuration(&c).contains("    set max-session-timeout 40\n"));
        let ports = np7lite_port_list();
        for name in ["x1", "x2", "port20"] {
            assert!(
                ports.lines().any(|l| l.starts_with(&format!("{name} "))),
                "{name}"
            );
        }
        assert!(!ports.contains("\nmgmt ") && !ports.contains("\nha "));
    }
}
