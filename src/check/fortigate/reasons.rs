//! Plain explanations and remedies for FortiOS `no_ofld_reason` words, for an on-call engineer
//! who has never read the hardware acceleration guide. Sources: the Fortinet reason table
//! (`dirty`, `local`, `disabled-by-policy`, `non-npu-intf`, `npu-flag-off`) and reasons seen in
//! real output (`redir-to-ips`, `denied-by-nturbo`, `offload-denied`, `helper`, `not-established`).

use super::flows::port_list_command;
use premarket_platform::fortigate::Np;

/// Why one reason keeps a session on the CPU, and what to do. `{policy}` in the remedy is the
/// flow's policy id and `{table}` the policy table (`firewall policy` or `firewall multicast-policy`).
struct Reason {
    word: &'static str,
    explanation: &'static str,
    remedy: &'static str,
}

const REASONS: &[Reason] = &[
    Reason {
        word: "disabled-by-policy",
        explanation: "the firewall policy switches hardware offload off (`set auto-asic-offload disable`), so the CPU forwards every packet of the flow",
        remedy: "On the firewall: `config {table}`, `edit {policy}`, `set auto-asic-offload enable`, `end`. Existing sessions keep their state: restart the flow (or let its session be rebuilt) and rerun the check.",
    },
    Reason {
        word: "non-npu-intf",
        explanation: "an interface of the flow is not served by the NP (a management/HA port, a software switch, or NPU fastpath disabled), so the NP cannot forward it",
        remedy: "Put the trading link on NP-served ports ({port_list}), out of any software switch, and make sure `config system npu` does not disable fastpath (`premarket check fortigate.offload.blockers`).",
    },
    Reason {
        word: "npu-flag-off",
        explanation: "the NP cannot take this session because of an interface feature it does not support (e.g. an EMAC VLAN, sFlow or ingress shaping on the port)",
        remedy: "Review the settings of the flow's interfaces (VLAN type, sFlow, shaping) against the NP offload limits and remove the one that blocks offload (`premarket check fortigate.offload.blockers`).",
    },
    Reason {
        word: "sflow",
        explanation: "sFlow sampling is enabled on an interface of the flow, and sFlow disables NP offload for all traffic on that interface (NetFlow does not)",
        remedy: "On the firewall: `config system interface`, `edit <the flow's interface>`, `set sflow-sampler disable`, `end` (use NetFlow if flow records are needed). Then restart the flow and rerun `premarket check fortigate.offload.blockers`.",
    },
    Reason {
        word: "local",
        explanation: "the session starts or ends on the firewall itself (management, SSL-VPN, explicit proxy); such traffic is never offloaded",
        remedy: "A trading flow must pass through the firewall, not end on it: check the flow's addresses in the baseline and on the sender.",
    },
    Reason {
        word: "dirty",
        explanation: "the session is waiting to be re-checked after a configuration or routing change and stays on the CPU until then",
        remedy: "Rerun the check in a few seconds; if the session stays dirty, look for repeated configuration or route changes on the path.",
    },
    Reason {
        word: "not-established",
        explanation: "the session has not yet seen the packets that install it on the NP (the first packets of every session take the CPU)",
        remedy: "Send traffic on the flow now, before the open, and rerun. If every session stays not-established, the sender may open a new session per send (see fortigate.flows.single-session).",
    },
    Reason {
        word: "helper",
        explanation: "a session helper (ftp, dns-udp, sip ...) is attached to the flow's port, and sessions with a helper are not offloaded",
        remedy: "Remove the helper for this port (`config system session-helper`) or move the flow to a port no helper listens on.",
    },
    Reason {
        word: "offload-denied",
        explanation: "FortiOS refused to offload this session (the other words on the line say why)",
        remedy: "Fix the other reasons listed for this session; if none is listed, open a case with Fortinet with this session list.",
    },
    Reason {
        word: "redir-to-ips",
        explanation: "a flow-based security profile (IPS, application control, flow antivirus or web filter) on the policy sends the session to the IPS engine on the CPU",
        remedy: "Remove the security profiles from policy {policy} (`config {table}`, `edit {policy}`, `unset ips-sensor`, `unset application-list`, `end`; `premarket check fortigate.policy.offload` names each), or accept the CPU latency on purpose.",
    },
    Reason {
        word: "denied-by-nturbo",
        explanation: "nTurbo could not accelerate the inspection of this session, so it stays on the CPU",
        remedy: "Remove the security profiles from policy {policy}; trading flows should not be inspected.",
    },
    Reason {
        word: "redir-to-av",
        explanation: "the session is sent to antivirus/proxy inspection on the CPU (reason seen in briefs, not in published output)",
        remedy: "Remove proxy-mode profiles from policy {policy} (`set inspection-mode flow` and unset the antivirus/web-filter profiles).",
    },
];

/// The explanation and remedy of `word` for a flow on `policy` in `table`, on a firewall
/// whose NP is `np` (its diagnose commands differ).
pub fn explain(word: &str, policy: Option<u32>, table: &str, np: Option<Np>) -> (String, String) {
    let policy = policy.map_or("<policy id>".to_string(), |p| p.to_string());
    match REASONS.iter().find(|r| r.word == word) {
        Some(r) => (
            r.explanation.to_string(),
            r.remedy
                .replace("{policy}", &policy)
                .replace("{table}", table)
                .replace("{port_list}", &port_list_command(np)),
        ),
        None => (
            format!("`{word}` is a reason premarket does not know"),
            format!(
                "Look `{word}` up in the FortiOS 7.6 hardware acceleration guide (no_ofld_reason table)."
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remedies_name_the_policy() {
        let (why, what) = explain("disabled-by-policy", Some(3), "firewall policy", None);
        assert!(why.contains("auto-asic-offload disable"));
        assert!(what.contains("`edit 3`") && what.contains("`config firewall policy`"));
        assert!(
            explain("something-new", None, "firewall policy", None)
                .0
                .contains("does not know")
        );
        let (_, np7lite) = explain("non-npu-intf", None, "firewall policy", Some(Np::Np7lite));
        assert!(
            np7lite.contains("`diagnose npu np7lite port-list`"),
            "{np7lite}"
        );
        assert!(
            explain("sflow", None, "firewall policy", None)
                .1
                .contains("set sflow-sampler disable")
        );
        assert!(!why.starts_with("disabled-by-policy"));
    }
}
