//! Issue 18's defects, each over fixtures modelled on a real format, through the whole pipeline
//! (config -> plan -> offline collect -> parse -> evaluate): a rule that is right on the lab's
//! 7280R3 but raised a false alarm on another model, release or port kind. Every row failed
//! before the fix (ERROR or FAIL on a healthy switch, or the wrong words); the comment above
//! each says what it gave.

use crate::common;
use crate::previous_support;

use std::sync::Arc;

use premarket::Status;
use premarket::collect::offline::Offline;
use premarket::config::Config;
use premarket::core::Command;
use premarket::inspect::{Limits, inspect};
use premarket::plan::{Plan, Selection};

const VERSION: &str = "show version | json";
const INTERFACES: &str = "show interfaces | json";
const ERRORS: &str = "show interfaces counters errors | json";
const QUEUE_DROPS: &str = "show interfaces counters queue drops | json";
const QUEUE_DETAIL: &str = "show interfaces counters queue detail | json";
const DISCARDS: &str = "show interfaces counters discards | json";
const PTP: &str = "show ptp | json revision 2";
const SNOOPING: &str = "show ip igmp snooping | json";
const DOM: &str = "show interfaces transceiver dom thresholds | json";

/// The healthy lab switch (a 7280R3 on EOS 4.31): (command, fixture under tests/fixtures/eos/).
const HEALTHY: &[(&str, &str)] = &[
    (VERSION, "show-version/json-4.31.6M.txt"),
    (
        "show queue-monitor length status | json",
        "show-queue-monitor-length-status/json-enabled.txt",
    ),
    ("show startup-config", "show-startup-config/lanz-saved.txt"),
    (
        "show running-config diffs",
        "show-running-config-diffs/clean.txt",
    ),
    (INTERFACES, "show-interfaces/healthy.txt"),
    (ERRORS, "show-interfaces-counters-errors/healthy.txt"),
    (PTP, "show-ptp/locked-rev2.txt"),
    (SNOOPING, "show-ip-igmp-snooping/healthy.txt"),
    (
        "show ip igmp snooping querier | json",
        "show-ip-igmp-snooping-querier/healthy.txt",
    ),
    (
        "show ip igmp snooping groups | json",
        "show-ip-igmp-snooping-groups/healthy.txt",
    ),
    (
        "show queue-monitor length | json",
        "show-queue-monitor-length/healthy.txt",
    ),
    (
        QUEUE_DROPS,
        "show-interfaces-counters-queue-drops/healthy.txt",
    ),
    (
        "show reload cause | json",
        "show-reload-cause/json-user.txt",
    ),
    (
        DOM,
        "show-interfaces-transceiver-dom-thresholds/healthy.txt",
    ),
];

/// A 7050X on EOS 4.22 (Trident2, no VOQ): `show version`, and its egress queue counters.
const SW_7050X: &[(&str, &str)] = &[
    (VERSION, "show-version/json-7050sx-4.22.4M-2GB.txt"),
    (
        QUEUE_DROPS,
        "show-interfaces-counters-queue-drops/7050x-incomplete.txt",
    ),
    (
        QUEUE_DETAIL,
        "show-interfaces-counters-queue-detail/healthy-7050x.txt",
    ),
];

/// A 7150S on EOS 4.23 (FM6000): no VOQ, no documented egress queue counters: discards.
const SW_7150S: &[(&str, &str)] = &[
    (VERSION, "show-version/json-7150s-4.23.3M.txt"),
    (DISCARDS, "show-interfaces-counters-discards/healthy.txt"),
];

struct Row {
    check: &'static str,
    /// The switch: the healthy 7280R3's fixtures, then these (a model's), then `outputs`.
    model: &'static [(&'static str, &'static str)],
    outputs: &'static [(&'static str, &'static str)],
    /// A previous run an hour ago (the same model's outputs with these replaced).
    previous: Option<&'static [(&'static str, &'static str)]>,
    /// `expect:` lines of sw1.yaml replaced (`  key: value`).
    expect: &'static [(&'static str, &'static str)],
    status: Status,
    summary: &'static str,
}

const fn row(
    check: &'static str,
    model: &'static [(&'static str, &'static str)],
    outputs: &'static [(&'static str, &'static str)],
    status: Status,
    summary: &'static str,
) -> Row {
    Row {
        check,
        model,
        outputs,
        previous: None,
        expect: &[],
        status,
        summary,
    }
}

const ROWS: &[Row] = &[
    // Before: ERROR "the device answered with an error: % Incomplete command" every morning.
    row(
        "eos.lanz.congestion",
        SW_7050X,
        &[],
        Status::Ok,
        "egress queue drops recorded, their growth is judged from the next run",
    ),
    // Before: ERROR (the VOQ command on a Trident switch).
    Row {
        previous: Some(&[]),
        ..row(
            "eos.lanz.congestion",
            SW_7050X,
            &[(
                QUEUE_DETAIL,
                "show-interfaces-counters-queue-detail/microburst-7050x.txt",
            )],
            Status::Fail,
            "+1203 egress queue drops on Ethernet4 since the previous run",
        )
    },
    // A 7150S has neither source documented: its discards are read.
    row(
        "eos.lanz.congestion",
        SW_7150S,
        &[],
        Status::Ok,
        "discards recorded",
    ),
    // ... and when it refuses them, LANZ alone is judged and the reason said.
    row(
        "eos.lanz.congestion",
        SW_7150S,
        &[(
            DISCARDS,
            "show-interfaces-counters-discards/unavailable-hardware-platform.txt",
        )],
        Status::Ok,
        "drops not judged: not available on DCS-7150S-24-CL-R (4.23.3M)",
    ),
    // Before: ERROR. A switch whose model may lack PTP says so: SKIP with the model.
    row(
        "eos.ptp.synchronised",
        SW_7050X,
        &[(PTP, "show-ptp/7050x-incomplete.txt")],
        Status::Skip,
        "not available on DCS-7050SX-64-R (4.22.4M-2GB)",
    ),
    // Before: ERROR (`% Unavailable command` reached the parser).
    row(
        "eos.ptp.synchronised",
        SW_7150S,
        &[(PTP, "show-ptp/unavailable-hardware-platform.txt")],
        Status::Skip,
        "not available on DCS-7150S-24-CL-R (4.23.3M): `show ptp | json revision 2`: % Unavailable command (not supported on this hardware platform)",
    ),
    // A model known to have the command: the refusal stays an ERROR.
    row(
        "eos.ptp.synchronised",
        &[],
        &[(PTP, "show-ptp/7050x-incomplete.txt")],
        Status::Error,
        "refused although DCS-7280SR3-48YC8 (4.31.6M) has this command",
    ),
    // Before: ERROR "Ethernet5.100: an Ethernet port without its ... counters" for the whole
    // document, although only Ethernet1-4 are judged.
    row(
        "eos.interfaces.errors",
        &[],
        &[(
            INTERFACES,
            "show-interfaces/subinterface-on-the-trading-path.txt",
        )],
        Status::Ok,
        "all 4 trading ports as expected",
    ),
    // Before: ERROR for the whole document. A subinterface on the trading path is judged by
    // its physical port's counters.
    Row {
        expect: &[(
            "trading_ports",
            "[Ethernet1, Ethernet2, Ethernet3, Ethernet4, Ethernet5.100]",
        )],
        ..row(
            "eos.interfaces.errors",
            &[],
            &[(
                INTERFACES,
                "show-interfaces/subinterface-on-the-trading-path.txt",
            )],
            Status::Ok,
            "all 5 trading ports as expected",
        )
    },
    // EOS 4.2x prints no `lastClear` and no `inTotalPkts`.
    row(
        "eos.interfaces.errors",
        &[],
        &[(INTERFACES, "show-interfaces/4.2x-no-last-clear.txt")],
        Status::Ok,
        "all 4 trading ports as expected",
    ),
    // A trading port whose counters are cut is that port's ERROR, named with what is missing.
    row(
        "eos.interfaces.errors",
        &[],
        &[(INTERFACES, "show-interfaces/ethernet-without-counters.txt")],
        Status::Error,
        "Ethernet2: `show interfaces` prints no linkStatusChanges, totalInErrors, totalOutErrors, inDiscards, outDiscards for it",
    ),
    // Before: ERROR "no receive/transmit power ... cannot judge" every run for the DAC, and
    // ERROR "no low threshold" for the 1000BASE-SX that reports receive power only.
    row(
        "eos.transceivers.light",
        &[],
        &[(
            DOM,
            "show-interfaces-transceiver-dom-thresholds/dac-and-rx-only.txt",
        )],
        Status::Skip,
        "1 of 4 trading ports skipped: Ethernet4: no DOM: DAC or passive module",
    ),
    // The site wants an optic with DOM on Ethernet4: the DAC there FAILs.
    Row {
        expect: &[("require_dom", "[Ethernet4]")],
        ..row(
            "eos.transceivers.light",
            &[],
            &[(
                DOM,
                "show-interfaces-transceiver-dom-thresholds/dac-and-rx-only.txt",
            )],
            Status::Fail,
            "Ethernet4: no DOM: a DAC or a module without DOM where the baseline requires an optic with DOM",
        )
    },
    // Before: FAIL "Ethernet3: $.inErrors = 1843, wanted at most 10" every morning after one
    // old incident, until someone cleared the counters.
    Row {
        previous: Some(&[(ERRORS, "show-interfaces-counters-errors/crc-errors.txt")]),
        ..row(
            "eos.ports.errors-absent",
            &[],
            &[(ERRORS, "show-interfaces-counters-errors/crc-errors.txt")],
            Status::Ok,
            "holds",
        )
    },
    Row {
        previous: Some(&[]),
        ..row(
            "eos.ports.errors-absent",
            &[],
            &[(ERRORS, "show-interfaces-counters-errors/crc-errors.txt")],
            Status::Fail,
            "Ethernet3: $.fcsErrors grew from 0 to 1843",
        )
    },
    // Before: "IGMP snooping is off on the VLAN", which the output does not say.
    row(
        "eos.multicast.feeds",
        &[],
        &[(SNOOPING, "show-ip-igmp-snooping/feed-vlan-absent.txt")],
        Status::Fail,
        "VLAN 100: not in `show ip igmp snooping` (it lists VLANs 1, 200)",
    ),
    // Before: FAIL "EOS 4.22.4M-2GB runs, the baseline pins 4.22.4M".
    Row {
        expect: &[("version", "{ allowed: [4.22.4M] }")],
        ..row(
            "eos.version.pinned",
            SW_7050X,
            &[],
            Status::Ok,
            "EOS 4.22.4M-2GB as pinned",
        )
    },
];

/// The switch's outputs: the healthy ones, then the model's, then the row's.
fn outputs(
    model: &[(&'static str, &'static str)],
    replaced: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<(&str, &str)> = HEALTHY.to_vec();
    for (command, fixture) in model.iter().chain(replaced) {
        all.retain(|(c, _)| c != command);
        all.push((command, fixture));
    }
    all
}

/// A copy of the example site with sw1's `expect:` lines replaced.
fn site(expect: &[(&str, &str)]) -> common::Site {
    let site = common::Site::example();
    let mut text = site.read("baselines/sw1.yaml");
    for (key, value) in expect {
        let Some(at) = text.find(&format!("\n  {key}:")) else {
            text = text.replacen("\nexpect:\n", &format!("\nexpect:\n  {key}: {value}\n"), 1);
            continue;
        };
        let start = at + 1;
        let mut end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        // A block value continues on more deeply indented lines.
        while text[end..].starts_with("\n    ") {
            end = text[end + 1..]
                .find('\n')
                .map_or(text.len(), |i| end + 1 + i);
        }
        text.replace_range(start..end, &format!("  {key}: {value}"));
    }
    site.write("baselines/sw1.yaml", &text);
    site
}

/// The row's result, or why it could not be planned (a baseline key the check does not read).
async fn judge(row: &Row) -> Result<premarket::report::CheckResult, String> {
    let site = site(row.expect);
    let config = Config::load(site.path()).map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("sw1")).expect("mkdir");
    for (command, fixture) in outputs(row.model, row.outputs) {
        std::fs::copy(
            common::fixture(&format!("eos/{fixture}")),
            dir.path()
                .join("sw1")
                .join(Command::new(command).file_name()),
        )
        .expect("copy fixture");
    }
    let selection = Selection {
        checks: vec![row.check.into()],
        devices: vec!["sw1".into()],
        tags: vec![],
    };
    let mut plan = Plan::new(&config, &selection).map_err(|e| e.to_string())?;
    if let Some(replaced) = row.previous {
        let device = &plan.devices[0];
        // What the archive keeps: facts that parsed (a refusal is never recorded).
        let parses = |command: &Command, text: &str| {
            device
                .queries
                .iter()
                .filter(|q| q.archived() && &q.key().command == command)
                .all(|q| q.parse_any(&mut premarket::parse::Raw::new(text)).is_ok())
        };
        let before: Vec<(Command, String)> = outputs(row.model, replaced)
            .into_iter()
            .map(|(command, fixture)| {
                let text = std::fs::read_to_string(common::fixture(&format!("eos/{fixture}")))
                    .expect("previous fixture");
                (Command::new(command), text)
            })
            .filter(|(command, text)| parses(command, text))
            .collect();
        let previous =
            previous_support::previous(&plan.devices[0], &before, chrono::Duration::hours(1));
        previous_support::judge_against(&mut plan.devices[0], previous);
    }
    let report = inspect(
        &config,
        plan.clone(),
        Arc::new(Offline::new(dir.path())),
        &Limits::from_config(&config),
    )
    .await;
    assert_eq!(report.results.len(), 1, "{}", row.check);
    Ok(report.results[0].clone())
}

#[tokio::test]
async fn every_defect_row() {
    let mut wrong = Vec::new();
    for (i, row) in ROWS.iter().enumerate() {
        let result = match judge(row).await {
            Ok(result) => result,
            Err(e) => {
                wrong.push(format!("row {i} {}: not planned: {e}", row.check));
                continue;
            }
        };
        if result.status != row.status || !result.summary.contains(row.summary) {
            wrong.push(format!(
                "row {i} {}: {} {:?}, wanted {} with {:?}",
                row.check, result.status, result.summary, row.status, row.summary
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
