//! The mixed fleet over real SSH on loopback (issue 18): `premarket demo --fleet mixed` starts
//! a 7280R3 on EOS 4.31 (sw1), a 7050X on EOS 4.22 with a DAC, a port-channel and a routed
//! subinterface on its trading path (sw2), the FortiGate 201G (fw1) and four other FortiGate
//! models (a 600E on 6.4, a 601F, a 100F, a 200E with two NP6Lite chips), each answering only
//! what its model answers, and inspects them with the normal collector. Healthy, every check
//! on every device is OK or SKIP with a reason: zero FAIL, zero ERROR. Each fault scenario
//! FAILs the right check on every model it applies to. The plan says which commands depend on
//! the model, and resolves them once the model is known.

use std::process::Command as Process;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::common;

fn bin() -> std::path::PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

/// What a healthy mixed fleet SKIPs, and why (words of the summary): nothing else is not OK.
const HEALTHY_SKIPS: &[(&str, &[&str])] = &[
    (
        "sw2 eos.ptp.synchronised",
        &[
            "not available on DCS-7050SX-64-R (4.2",
            "`show ptp | json revision 2`: % Incomplete command",
        ],
    ),
    (
        "sw1 eos.mlag.healthy",
        &["MLAG is not configured on this switch (state: disabled)"],
    ),
    (
        "sw2 eos.transceivers.light",
        &[
            "Ethernet4: no DOM: DAC or passive module; Port-Channel10: a port-channel has no optic of its own",
        ],
    ),
];

/// (scenario, the results that are not OK besides the healthy SKIPs, as "STATUS device check";
/// `*` for every check of the device). In this order: the counter faults come after a run with
/// healthy counters, `rebooted` last.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("healthy", &[]),
    ("healthy", &[]),
    // The switch faults, on each switch model.
    (
        "lanz-unsaved@sw1",
        &["FAIL sw1 eos.lanz.persisted", "FAIL sw1 eos.config.saved"],
    ),
    (
        "lanz-unsaved@sw2",
        &["FAIL sw2 eos.lanz.persisted", "FAIL sw2 eos.config.saved"],
    ),
    (
        "lanz-off@sw2",
        &["FAIL sw2 eos.lanz.persisted", "FAIL sw2 eos.lanz.running"],
    ),
    ("config-unsaved@sw2", &["FAIL sw2 eos.config.saved"]),
    ("no-querier@sw1", &["FAIL sw1 eos.multicast.feeds"]),
    ("no-querier@sw2", &["FAIL sw2 eos.multicast.feeds"]),
    // PTP: sw1 only (sw2's model has none, its check is SKIP with the reason).
    ("ptp-unlocked@sw1", &["FAIL sw1 eos.ptp.synchronised"]),
    ("low-light@sw1", &["FAIL sw1 eos.transceivers.light"]),
    ("low-light@sw2", &["FAIL sw2 eos.transceivers.light"]),
    // VOQ drops on sw1, egress queue drops on sw2; each after a healthy run.
    ("microburst@sw1", &["FAIL sw1 eos.lanz.congestion"]),
    // The exchange hand-off (issue 35): side A on sw1, side B on sw2.
    ("bgp-down@sw2", &["FAIL sw2 eos.bgp.peers"]),
    ("bgp-prefixes-low@sw1", &["FAIL sw1 eos.bgp.peers"]),
    ("bfd-down@sw2", &["FAIL sw2 eos.bfd.peers"]),
    ("mroute-wrong-rpf@sw1", &["FAIL sw1 eos.multicast.routes"]),
    (
        "feeds-share-uplink@sw2",
        &["FAIL lab site.feeds.independent"],
    ),
    ("healthy", &[]),
    ("microburst@sw2", &["FAIL sw2 eos.lanz.congestion"]),
    ("healthy", &[]),
    (
        "crc-errors@sw1",
        &[
            "FAIL sw1 eos.interfaces.errors",
            "FAIL sw1 eos.ports.errors-absent",
        ],
    ),
    ("healthy", &[]),
    (
        "crc-errors@sw2",
        &[
            "FAIL sw2 eos.interfaces.errors",
            "FAIL sw2 eos.ports.errors-absent",
        ],
    ),
    (
        "version-drift",
        &[
            "FAIL fw1 fortigate.version.pinned",
            "FAIL fw2 fortigate.version.pinned",
            "FAIL fw3 fortigate.version.pinned",
            "FAIL fw4 fortigate.version.pinned",
            "FAIL fw5 fortigate.version.pinned",
            "FAIL sw1 eos.version.pinned",
            "FAIL sw2 eos.version.pinned",
        ],
    ),
    (
        "ntp-unsynchronised",
        &[
            "FAIL fw1 fortigate.ntp.synchronised",
            "FAIL fw2 fortigate.ntp.synchronised",
            "FAIL fw3 fortigate.ntp.synchronised",
            "FAIL fw4 fortigate.ntp.synchronised",
            "FAIL fw5 fortigate.ntp.synchronised",
            "FAIL sw1 eos.ntp.synchronised",
            "FAIL sw2 eos.ntp.synchronised",
        ],
    ),
    // The firewall's faults, on each FortiGate model: the 201G (x1/x2, the probe's path), the
    // 600E on 6.4 (a VLAN on x1), the 601F on 7.4 (a VLAN on an aggregate of x1 and x3), the
    // 100F (a hardware-switch port beside x1/x2). sFlow on x1 is on each one's trading path.
    (
        "offload-disabled",
        &[
            "FAIL fw1 fortigate.flows.offloaded",
            "FAIL fw1 fortigate.policy.offload",
            "FAIL probe1 probe.latency.offloaded",
        ],
    ),
    (
        "offload-disabled@fw2",
        &[
            "FAIL fw2 fortigate.flows.offloaded",
            "FAIL fw2 fortigate.policy.offload",
        ],
    ),
    (
        "offload-disabled@fw3",
        &[
            "FAIL fw3 fortigate.flows.offloaded",
            "FAIL fw3 fortigate.policy.offload",
        ],
    ),
    (
        "offload-disabled@fw4",
        &[
            "FAIL fw4 fortigate.flows.offloaded",
            "FAIL fw4 fortigate.policy.offload",
        ],
    ),
    (
        "sflow-enabled",
        &[
            "FAIL fw1 fortigate.flows.offloaded",
            "FAIL fw1 fortigate.sessions.npu",
            "FAIL fw1 fortigate.offload.blockers",
            "FAIL probe1 probe.latency.offloaded",
        ],
    ),
    (
        "sflow-enabled@fw2",
        &[
            "FAIL fw2 fortigate.flows.offloaded",
            "FAIL fw2 fortigate.sessions.npu",
            "FAIL fw2 fortigate.offload.blockers",
        ],
    ),
    (
        "sflow-enabled@fw3",
        &[
            "FAIL fw3 fortigate.flows.offloaded",
            "FAIL fw3 fortigate.sessions.npu",
            "FAIL fw3 fortigate.offload.blockers",
        ],
    ),
    (
        "sflow-enabled@fw4",
        &[
            "FAIL fw4 fortigate.flows.offloaded",
            "FAIL fw4 fortigate.sessions.npu",
            "FAIL fw4 fortigate.offload.blockers",
        ],
    ),
    (
        "sflow-enabled@fw5",
        &[
            "FAIL fw5 fortigate.flows.offloaded",
            "FAIL fw5 fortigate.sessions.npu",
            "FAIL fw5 fortigate.offload.blockers",
        ],
    ),
    // The 200E's trading ports on two NP6Lite chips that do not offload across each other.
    ("np-cross-chip", &["FAIL fw5 fortigate.offload.blockers"]),
    // A failing optic on x1, in each NIC layout: the kernel driver's (201G, 601F: CRC
    // errors) and the NP's (600E, 100F, 200E: host receive drops). Each after a run.
    ("fw-port-errors", &["FAIL fw1 fortigate.ports.errors"]),
    ("fw-port-errors@fw2", &["FAIL fw2 fortigate.ports.errors"]),
    ("fw-port-errors@fw3", &["FAIL fw3 fortigate.ports.errors"]),
    ("fw-port-errors@fw5", &["FAIL fw5 fortigate.ports.errors"]),
    ("ha-mismatch", &["FAIL fw1 fortigate.ha.state"]),
    ("ha-mismatch@fw2", &["FAIL fw2 fortigate.ha.state"]),
    ("ha-mismatch@fw3", &["FAIL fw3 fortigate.ha.state"]),
    ("ha-mismatch@fw4", &["FAIL fw4 fortigate.ha.state"]),
    ("ha-mismatch@fw5", &["FAIL fw5 fortigate.ha.state"]),
    (
        "cpu-high",
        &[
            "FAIL fw1 fortigate.cpu.ceiling",
            "FAIL fw1 fortigate.sessions.npu",
        ],
    ),
    (
        "cpu-high@fw2",
        &[
            "FAIL fw2 fortigate.cpu.ceiling",
            "FAIL fw2 fortigate.sessions.npu",
        ],
    ),
    (
        "cpu-high@fw3",
        &[
            "FAIL fw3 fortigate.cpu.ceiling",
            "FAIL fw3 fortigate.sessions.npu",
        ],
    ),
    (
        "cpu-high@fw4",
        &[
            "FAIL fw4 fortigate.cpu.ceiling",
            "FAIL fw4 fortigate.sessions.npu",
        ],
    ),
    // A device that cannot be inspected: every one of its checks, one block.
    // The site check over both switches cannot tell either: ERROR naming sw2.
    (
        "drop@sw2",
        &["ERROR sw2 *", "ERROR lab site.feeds.independent"],
    ),
    (
        "auth-fail@sw2",
        &["ERROR sw2 *", "ERROR lab site.feeds.independent"],
    ),
    (
        "rebooted",
        &[
            "FAIL fw1 fortigate.uptime.stable",
            "FAIL fw2 fortigate.uptime.stable",
            "FAIL fw3 fortigate.uptime.stable",
            "FAIL fw4 fortigate.uptime.stable",
            "FAIL fw5 fortigate.uptime.stable",
            "FAIL sw1 eos.uptime.stable",
            "FAIL sw2 eos.uptime.stable",
            // Every BGP session restarted with the switch (eos.uptime.stable explains it).
            "FAIL sw1 eos.bgp.peers",
            "FAIL sw2 eos.bgp.peers",
        ],
    ),
];

fn demo(scenario: &str, home: &std::path::Path) -> (i32, Value) {
    let mut args = vec!["demo", "--fleet", "mixed", "--format", "json"];
    if scenario != "healthy" {
        args.extend(["--scenario", scenario]);
    }
    let out = Command::new(bin())
        .args(&args)
        .arg("--home")
        .arg(home)
        .timeout(Duration::from_secs(180))
        .output()
        .expect("demo runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{scenario}: no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report)
}

fn matches(pattern: &str, status: &str, device: &str, check: &str) -> bool {
    let mut parts = pattern.split(' ');
    let (s, d, c) = (parts.next(), parts.next(), parts.next());
    s == Some(status) && d == Some(device) && (c == Some("*") || c == Some(check))
}

#[test]
fn the_mixed_fleet_is_right_healthy_and_under_every_fault() {
    common::scenarios_in_parts(SCENARIOS, 3, &SCENARIOS[0], |home, (scenario, not_ok)| {
        let (code, report) = demo(scenario, home);
        let results = report["results"].as_array().expect("results");
        let devices: Vec<&str> = results
            .iter()
            .filter_map(|r| r["device"].as_str())
            .collect();
        for device in [
            "sw1", "sw2", "fw1", "fw2", "fw3", "fw4", "fw5", "probe1", "lab",
        ] {
            assert!(devices.contains(&device), "{scenario}: no {device}");
        }
        let mut wrong = Vec::new();
        for r in results {
            let field = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            let (status, device, check, summary) = (
                field("status"),
                field("device"),
                field("check"),
                field("summary"),
            );
            // After the first (healthy) run, judged against the previous scenario's
            // configuration, which a fault may change: `config_changes` tests them.
            if check.ends_with(".config.unchanged")
                && status == "FAIL"
                && scenario != &SCENARIOS[0].0
            {
                continue;
            }
            let faulted = not_ok.iter().any(|p| matches(p, &status, &device, &check));
            let device_down = not_ok
                .iter()
                .any(|p| p.ends_with(" *") && p.split(' ').nth(1) == Some(device.as_str()));
            let skip = HEALTHY_SKIPS
                .iter()
                .find(|(which, _)| *which == format!("{device} {check}"));
            let fine = match status.as_str() {
                "OK" => !faulted,
                "SKIP" if !device_down => {
                    skip.is_some_and(|(_, why)| why.iter().all(|w| summary.contains(w))) && !faulted
                }
                _ => faulted,
            };
            if !fine {
                wrong.push(format!("{status} {device} {check}: {summary}"));
            }
        }
        for pattern in *not_ok {
            let hits = results
                .iter()
                .filter(|r| {
                    let f = |k: &str| r[k].as_str().unwrap_or_default();
                    matches(pattern, f("status"), f("device"), f("check"))
                })
                .count();
            if hits == 0 {
                wrong.push(format!("expected {pattern}, not reported"));
            }
        }
        assert!(wrong.is_empty(), "{scenario}:\n{}", wrong.join("\n"));
        let config_changed = results.iter().any(|r| {
            r["status"] == "FAIL"
                && r["check"]
                    .as_str()
                    .is_some_and(|c| c.ends_with(".config.unchanged"))
        });
        let fails = config_changed || not_ok.iter().any(|p| p.starts_with("FAIL"));
        let errors = not_ok.iter().any(|p| p.starts_with("ERROR"));
        let want = if fails {
            1
        } else if errors {
            2
        } else {
            0
        };
        assert_eq!(code, want, "{scenario}: exit code");
    });
}

/// `premarket plan` shows each model-dependent command's condition; once the model is known
/// (the baseline's `model:`, else the previous run's archived `show version`) it says which
/// are sent and which not, and from where it knows.
#[test]
fn plan_resolves_the_model_dependent_commands() {
    let site = common::Site::example();
    let plan = |site: &common::Site| {
        let out = Process::new(bin())
            .args(["plan", "--device", "sw1", "--dir"])
            .arg(site.path())
            .output()
            .expect("plan runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let line = |text: &str, command: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(command))
            .unwrap_or_else(|| panic!("no {command} in\n{text}"))
            .to_string()
    };
    let unknown = plan(&site);
    assert!(
        unknown.contains("(model: not known before the run; the device's answer decides)"),
        "{unknown}"
    );
    assert!(
        line(&unknown, "show interfaces counters queue drops | json").contains(
            "# VOQ families (7280R, 7280E, 7500R/E, 7800R3, 7020R) only; `show version | json` decides"
        ),
        "{unknown}"
    );
    assert!(!line(&unknown, "show interfaces | json").contains('#'));

    let text = site.read("baselines/sw1.yaml");
    site.write(
        "baselines/sw1.yaml",
        &text.replacen(
            "platform: eos\n",
            "platform: eos\nmodel: DCS-7050SX-64-R\n",
            1,
        ),
    );
    let declared = plan(&site);
    assert!(
        declared.contains("(model: DCS-7050SX-64-R, per the baseline's `model:`)"),
        "{declared}"
    );
    let drops = line(&declared, "show interfaces counters queue drops | json");
    assert!(
        drops.contains("DCS-7050SX-64-R (per the baseline's `model:`): not sent, a 7050X has no VOQ drop counters"),
        "{drops}"
    );
    let detail = line(&declared, "show interfaces counters queue detail | json");
    assert!(
        detail.contains("DCS-7050SX-64-R (per the baseline's `model:`): sent"),
        "{detail}"
    );
    site.write("baselines/sw1.yaml", &text);

    // The previous run's archived `show version` (an offline run of saved outputs).
    let out = Process::new(bin())
        .args([
            "run",
            "--device",
            "sw1",
            "--no-email",
            "--archive",
            "--offline",
        ])
        .arg(common::fixture("site/healthy"))
        .arg("--dir")
        .arg(site.path())
        .output()
        .expect("run");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let archived = plan(&site);
    assert!(
        archived.contains("(model: DCS-7280SR3-48YC8 (4.31.6M), per the previous run ("),
        "{archived}"
    );
    assert!(
        line(&archived, "show interfaces counters queue drops | json").ends_with(": sent"),
        "{archived}"
    );
    assert!(
        line(&archived, "show interfaces counters discards | json").contains("not sent"),
        "{archived}"
    );
}
