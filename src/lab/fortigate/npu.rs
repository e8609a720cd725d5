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
/// front-panel table, the NP6 family the `Chip XAUI Ports` table ([`np6_port_list`]; the
/// NP6Lite and NP6XLite rows are inferred, no published output was found).
pub fn port_list(np: Np, cross_chip_fault: bool) -> String {
    match np {
        Np::Np7 | Np::Np7lite => np7lite_port_list(),
        Np::Np6 | Np::Np6lite | Np::Np6xlite => np6_port_list(np, cross_chip_fault),
    }
}

/// The `Chip XAUI Ports` table: two chips on an NP6 (600E, `Cross-chip offloading` Yes: its
/// switch fabric joins them) and on an NP6Lite (200E: `NO`, modelled on the documented layout;
/// no public list prints `No`), one on an NP6XLite. The trading ports x1 and x2 share a chip;
/// under `np-cross-chip` x2 is cabled to a port of the other chip (the lab moves it there).
fn np6_port_list(np: Np, cross_chip_fault: bool) -> String {
    let mut out = String::from(
        "Chip   XAUI Ports            Max   Cross-chip\n                             Speed offloading\n------ ---- -------          ----- ----------\n",
    );
    let ports: Vec<&str> = INTERFACES
        .iter()
        .copied()
        .filter(|n| !matches!(*n, "mgmt" | "ha"))
        .collect();
    let chips = if matches!(np, Np::Np6 | Np::Np6lite) {
        2
    } else {
        1
    };
    let per_chip = ports.len().div_ceil(chips);
    let mut groups: Vec<Vec<&str>> = ports.chunks(per_chip).map(<[&str]>::to_vec).collect();
    if cross_chip_fault && groups.len() == 2 {
        // x2 trades places with the first chip's last port.
        let (first, second) = groups.split_at_mut(1);
        if let (Some(a), Some(b)) = (
            first[0].last_mut(),
            second[0].iter_mut().find(|p| **p == "x2"),
        ) {
            std::mem::swap(a, b);
        }
    }
    let cross = if np == Np::Np6lite { "NO" } else { "Yes" };
    for (chip, group) in groups.iter().enumerate() {
        for (i, name) in group.iter().enumerate() {
            let label = if i == 0 {
                format!("{}_{chip}", np.word())
            } else {
                String::new()
            };
            let speed = if name.starts_with('x') { "10G" } else { "1G" };
            out.push_str(&format!(
                "{label:<6} {:<4} {name:<16} {speed:<5} {cross}\n",
                i % 4
            ));
        }
        out.push_str("------ ---- -------          ----- ----------\n");
    }
    out
}

/// `diagnose npu np6|np6lite|np6xlite npu-feature`: the 200E's NP6Lite rows (Hardware
/// Acceleration guide 5619) on the NP6 and NP6Lite, the 60F's NP6XLite rows (567426), one
/// column per chip, fast path on.
pub fn npu_feature(np: Np) -> String {
    let (chips, rows): (usize, &[(&str, &str)]) = match np {
        Np::Np6xlite => (
            1,
            &[
                ("Fastpath", "Enabled"),
                ("HPE-type-shaping", "Disabled"),
                ("IPv4 firewall", "Yes"),
                ("IPv6 firewall", "Yes"),
                ("IPv4 IPSec", "Yes"),
                ("IPv6 IPSec", "Yes"),
                ("IPv4 tunnel", "Yes"),
                ("IPv6 tunnel", "Yes"),
                ("GRE passthrough", "Yes"),
                ("IPv4 Multicast", "Yes"),
                ("IPv6 Multicast", "Yes"),
                ("CAPWAP", "Yes"),
            ],
        ),
        _ => (
            2,
            &[
                ("Fastpath", "Enabled"),
                ("IPv4 firewall", "Yes"),
                ("IPv6 firewall", "Yes"),
                ("IPv4 IPSec", "Yes"),
                ("IPv6 IPSec", "Yes"),
                ("IPv4 tunnel", "Yes"),
                ("IPv6 tunnel", "Yes"),
                ("GRE tunnel", "No"),
            ],
        ),
    };
    let mut out = format!("{:<19}", "");
    for chip in 0..chips {
        out.push_str(&format!(" {:<9}", format!("np_{chip}")));
    }
    out = out.trim_end().to_string() + "\n-------------------" + &" ---------".repeat(chips) + "\n";
    for (name, value) in rows {
        let values = vec![format!("{value:<9}"); chips].join(" ");
        out.push_str(&format!("{name:<19} {}\n", values.trim_end()));
    }
    out
}

/// `show system np6xlite` of a factory NP6XLite box: its one chip, no non-default setting.
pub const NP6XLITE_CONFIG: &str =
    "config system np6xlite\n    edit \"np6xlite_0\"\n    next\nend\n";

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
        let chip = |list: &str, port: &str| {
            let mut chip = String::new();
            for line in list.lines() {
                if line.starts_with("np6") {
                    chip = line
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string();
                }
                if line
                    .split_whitespace()
                    .nth(if line.starts_with("np6") { 2 } else { 1 })
                    == Some(port)
                {
                    return chip;
                }
            }
            String::new()
        };
        let healthy = port_list(Np::Np6lite, false);
        assert!(healthy.contains(" NO\n"));
        assert_eq!(
            (chip(&healthy, "x1"), chip(&healthy, "x2")),
            ("np6lite_1".into(), "np6lite_1".into())
        );
        let moved = port_list(Np::Np6lite, true);
        assert_eq!(
            (chip(&moved, "x1"), chip(&moved, "x2")),
            ("np6lite_1".into(), "np6lite_0".into())
        );
        assert!(
            npu_feature(Np::Np6xlite).starts_with("                    np_0\n-------------------")
        );
        assert!(npu_feature(Np::Np6lite).contains("\nFastpath            Enabled   Enabled\n"));
    }
}
