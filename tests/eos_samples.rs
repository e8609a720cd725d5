//! The public EOS samples in `../shared/samples/eos/` (real outputs from the field, kept beside
//! the repository, not in it) parse with the right facts. Skipped with a reason when absent.

use crate::common;

/// A fact key and its expected value, or the words of the expected parse error.
type Expected = Result<(&'static str, &'static str), &'static str>;

/// (sample file, command, what it must give)
const SAMPLES: &[(&str, &str, Expected)] = &[
    (
        "show-version-json-ceoslab-4.30.0F.txt",
        "show version | json",
        Ok(("version", "4.30.0F-31408673.4300F")),
    ),
    (
        "show-version-text-7010t-4.28.9M.txt",
        "show version",
        Ok(("model", "DCS-7010T-48-R")),
    ),
    (
        "show-version-text-720xp-4.27.6M.txt",
        "show version",
        Ok(("version", "4.27.6M")),
    ),
    (
        "show-version-text-ceoslab-4.31.6M.txt",
        "show version",
        Ok(("version", "4.31.6M-39953990.4316M")),
    ),
    (
        "show-version-text-veos-4.14.7M.txt",
        "show version",
        Ok(("version", "4.14.7M")),
    ),
    (
        "running-config-diffs-ceoslab-4.34.1F-with-prompt.txt",
        "show running-config diffs",
        Ok(("empty", "false")),
    ),
    (
        "running-config-diffs-added-ip-host.txt",
        "show running-config diffs",
        Ok(("empty", "false")),
    ),
    (
        "error-privileged-mode-required-unprivileged-prompt.txt",
        "show running-config",
        Err("% Invalid input"),
    ),
];

/// The sample without its `#!` provenance header.
fn body(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("#!"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn shared_samples_parse() {
    let dir = common::repo().join("../shared/samples/eos");
    if !dir.is_dir() {
        eprintln!(
            "skipped: {} not present (it sits beside the repository in CI)",
            dir.display()
        );
        return;
    }
    for (file, command, expected) in SAMPLES {
        let text = std::fs::read_to_string(dir.join(file)).expect("sample");
        let parsed =
            premarket::platform::parse_json(premarket::Platform::Eos, command, &body(&text));
        match (parsed, expected) {
            (Ok(json), Ok((key, value))) => {
                let got = match &json[*key] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                assert_eq!(&got, value, "{file}: {key} in {json}");
            }
            (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{file}: {e}"),
            (Ok(json), Err(_)) => panic!("{file}: parsed although it should not: {json:?}"),
            (Err(e), Ok(_)) => panic!("{file}: {e}\n{}", e.excerpt),
        }
    }
}

/// (sample under `../shared/samples/`, command, JSON pointer into the fact and its value, or the
/// words of the error): the exchange hand-off's public outputs (issue 35).
const HANDOFF: &[(&str, &str, Expected)] = &[
    (
        "handoff/eos/show-ip-bgp-summary-vrf-all-json-napalm-established-and-active.txt",
        "show ip bgp summary vrf all | json",
        Ok(("/vrfs/default/peers/10.0.0.3/state", "Active")),
    ),
    (
        "handoff/eos/show-bgp-summary-vrf-all-json-anta-multi-afi-newer-shape.txt",
        "show bgp summary vrf all",
        Ok((
            "/vrfs/default/peers/10.1.0.1/families/l2VpnEvpn/accepted",
            "42",
        )),
    ),
    (
        "handoff/eos/show-ip-bgp-summary-vrf-all-text-ceoslab-4.27.2F-avd-leaf1a-three-vrfs.txt",
        "show ip bgp summary vrf all",
        Ok((
            "/vrfs/tenant_a_project01/peers/172.31.253.23/prefixes_accepted",
            "10",
        )),
    ),
    (
        "handoff/eos/show-ip-bgp-summary-text-ntc-active-idle-noif-estab.txt",
        "show ip bgp summary vrf all",
        Ok(("/vrfs/default/peers/10.106.0.153/reason", "NoIf")),
    ),
    (
        "handoff/eos/show-bfd-peers-json-anta-one-vrf-down.txt",
        "show bfd peers | json",
        Ok(("/sessions/0/status", "down")),
    ),
    (
        "handoff/eos/show-bfd-peers-text-ceoslab-4.27.2F-avd-leaf1a-two-multihop.txt",
        "show bfd peers",
        Ok(("/sessions/1/remote_disc", "1468068016")),
    ),
    (
        "handoff/eos/show-ip-pim-neighbor-text-7280sr-eantc-pe11-one-neighbor.txt",
        "show ip pim neighbor",
        Ok(("/neighbors/0/interface", "Ethernet1")),
    ),
    (
        "handoff/eos/show-ip-mroute-vrf-all-detail-text-ntc-two-vrfs-rp-and-spt.txt",
        "show ip mroute vrf all detail",
        Ok(("/routes/3/incoming", "Ethernet10")),
    ),
    (
        "handoff/eos/show-ip-mroute-vrf-all-detail-text-ntc-two-vrfs-rp-and-spt.txt",
        "show ip mroute vrf all detail",
        Ok(("/routes/7/vrf", "FOO")),
    ),
    (
        "handoff/eos/show-mlag-detail-json-suzieq-veos-4.23.5M-leaf01-secondary.txt",
        "show mlag detail",
        Ok(("/role", "secondary")),
    ),
    (
        "handoff/eos/show-mlag-config-sanity-json-anta-interface-trunk-native-vlan-mismatch.txt",
        "show mlag config-sanity | json",
        Ok(("/inconsistencies/0/peer", "3700")),
    ),
    (
        "handoff/eos/show-mlag-config-sanity-text-ceoslab-4.27.2F-consistent.txt",
        "show mlag config-sanity",
        Ok(("/active", "true")),
    ),
    (
        "trading/eos-show-mlag-json-pyateos-active-partial.txt",
        "show mlag | json",
        Ok(("/ports/inactive", "3")),
    ),
    (
        "trading/eos-show-mlag-json-pyateos-disabled.txt",
        "show mlag | json",
        Ok(("/state", "disabled")),
    ),
    (
        "trading/eos-show-mlag-text-ntc-inactive.txt",
        "show mlag",
        Ok(("/peer_link_status", "lowerLayerDown")),
    ),
    (
        "trading/eos-show-mlag-json-anta-active.txt",
        "show mlag | json",
        Ok(("/neg_status", "connected")),
    ),
    (
        "handoff/eos/show-hardware-counter-drop-json-jericho-excerpt-docstring.txt",
        "show hardware counter drop | json",
        Err("not valid JSON"),
    ),
    (
        "handoff/eos/show-interfaces-flowcontrol-json-puppet-eos-veos-2014.txt",
        "show interfaces flow-control | json",
        Ok(("/ports/Management1/tx_admin_state", "desired")),
    ),
    (
        "handoff/eos/show-lldp-neighbors-json-napalm-veos-2015.txt",
        "show lldp neighbors | json",
        Ok(("/neighbors/1/neighbor_port", "0800.27ca.c5be")),
    ),
    (
        "handoff/eos/show-lldp-neighbors-detail-json-napalm-issue903-linux-host.txt",
        "show lldp neighbors detail",
        Ok(("/neighbors/0/neighbor_port", "000c.297b.d2a8")),
    ),
    (
        "handoff/eos/show-lldp-neighbors-text-ntc-older-layout-no-rule.txt",
        "show lldp neighbors",
        Ok(("/neighbors/2/device", "tg104.sjc.aristanetworks.com")),
    ),
];

#[test]
fn shared_hand_off_samples_parse() {
    let dir = common::repo().join("../shared/samples");
    if !dir.join("handoff").is_dir() {
        eprintln!("skipped: {} not present", dir.join("handoff").display());
        return;
    }
    for (file, command, expected) in HANDOFF {
        let text = std::fs::read_to_string(dir.join(file)).expect("sample");
        let parsed =
            premarket::platform::parse_json(premarket::Platform::Eos, command, &body(&text));
        match (parsed, expected) {
            (Ok(json), Ok((pointer, value))) => {
                let got = match json.pointer(pointer) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => panic!("{file}: nothing at {pointer} in {json}"),
                };
                assert_eq!(&got, value, "{file}: {pointer}");
            }
            (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{file}: {e}"),
            (Ok(json), Err(_)) => panic!("{file}: parsed although it should not: {json:?}"),
            (Err(e), Ok(_)) => panic!("{file}: {e}\n{}", e.excerpt),
        }
    }
}
