//! Every EOS check over fixtures, through the whole pipeline (config -> plan -> offline collect
//! -> parse -> evaluate): one row per case, OK, FAIL and ERROR for each check.

use crate::common;
use crate::previous_support;

use std::sync::Arc;

use premarket::Status;
use premarket::collect::offline::Offline;
use premarket::config::Config;
use premarket::core::Command;
use premarket::inspect::{Limits, inspect};
use premarket::plan::{Plan, Selection};
use premarket::platform::eos::{
    ShowIgmpGroups, ShowIgmpQuerier, ShowIgmpSnooping, ShowInterfaces, ShowLanzRecords,
    ShowLanzStatus, ShowNtpAssociations, ShowNtpStatus, ShowPtp, ShowPtpMasters, ShowQueueDrops,
    ShowReloadCause, ShowRunningConfig, ShowRunningConfigDiffs, ShowStartupConfig,
    ShowTransceiverDom, ShowVersion,
};

const SHOW_VERSION: &str = ShowVersion::TEXT;
const SHOW_LANZ_STATUS: &str = ShowLanzStatus::TEXT;
const SHOW_STARTUP_CONFIG: &str = ShowStartupConfig::TEXT;
const SHOW_RUNNING_CONFIG: &str = ShowRunningConfig::TEXT;
const SHOW_RUNNING_CONFIG_DIFFS: &str = ShowRunningConfigDiffs::TEXT;
pub(crate) const SHOW_INTERFACES: &str = ShowInterfaces::TEXT;
pub(crate) const SHOW_PTP: &str = ShowPtp::TEXT;
const SNOOPING: &str = ShowIgmpSnooping::TEXT;
pub(crate) const QUERIER: &str = ShowIgmpQuerier::TEXT;
const GROUPS: &str = ShowIgmpGroups::TEXT;
const LANZ_RECORDS: &str = ShowLanzRecords::TEXT;
const QUEUE_DROPS: &str = ShowQueueDrops::TEXT;
const RELOAD_CAUSE: &str = ShowReloadCause::TEXT;
const DOM: &str = ShowTransceiverDom::TEXT;

/// The second read of a sampled command (`eos.multicast.flowing`): the command's text with this
/// suffix in the tables below.
pub(crate) const SECOND: &str = " #2";
pub(crate) const PTP_MASTERS: &str = ShowPtpMasters::TEXT;
pub(crate) const NTP_STATUS: &str = ShowNtpStatus::TEXT;
pub(crate) const NTP_ASSOCIATIONS: &str = ShowNtpAssociations::TEXT;
pub(crate) const FEED_A: &str = "show interfaces Ethernet1 | json";
pub(crate) const FEED_A_2: &str = "show interfaces Ethernet1 | json #2";
pub(crate) const FEED_B: &str = "show interfaces Ethernet9 | json";
pub(crate) const FEED_B_2: &str = "show interfaces Ethernet9 | json #2";
pub(crate) const BGP: &str = "show ip bgp summary vrf all | json";
pub(crate) const BFD: &str = "show bfd peers | json";
pub(crate) const PIM: &str = "show ip pim neighbor | json";
pub(crate) const MROUTE: &str = "show ip mroute | json";
pub(crate) const MROUTE_COUNT: &str = "show ip mroute count | json";
pub(crate) const MROUTE_COUNT_2: &str = "show ip mroute count | json #2";
pub(crate) const MLAG: &str = "show mlag | json";
pub(crate) const MLAG_SANITY: &str = "show mlag config-sanity | json";
pub(crate) const DROPS: &str = "show hardware counter drop | json";
pub(crate) const FLOW_CONTROL: &str = "show interfaces flow-control | json";
pub(crate) const LLDP: &str = "show lldp neighbors | json";

/// The saved-output file of a command of the tables (a second sample when it ends in [`SECOND`]).
fn file_name(command: &str) -> String {
    match command.strip_suffix(SECOND) {
        Some(text) => Command::new(text).resampled(1).file_name(),
        None => Command::new(command).file_name(),
    }
}

/// The healthy switch: (command, fixture under tests/fixtures/eos/).
const HEALTHY: [(&str, &str); 32] = [
    (SHOW_VERSION, "show-version/json-4.31.6M.txt"),
    (
        SHOW_LANZ_STATUS,
        "show-queue-monitor-length-status/json-enabled.txt",
    ),
    (SHOW_STARTUP_CONFIG, "show-startup-config/lanz-saved.txt"),
    (SHOW_RUNNING_CONFIG, "show-running-config/healthy.txt"),
    (
        SHOW_RUNNING_CONFIG_DIFFS,
        "show-running-config-diffs/clean.txt",
    ),
    (SHOW_INTERFACES, "show-interfaces/healthy.txt"),
    (SHOW_PTP, "show-ptp/locked-rev2.txt"),
    (PTP_MASTERS, "show-ptp-masters/gm-class6-gps.txt"),
    (SNOOPING, "show-ip-igmp-snooping/healthy.txt"),
    (QUERIER, "show-ip-igmp-snooping-querier/healthy.txt"),
    (GROUPS, "show-ip-igmp-snooping-groups/healthy.txt"),
    (LANZ_RECORDS, "show-queue-monitor-length/healthy.txt"),
    (
        QUEUE_DROPS,
        "show-interfaces-counters-queue-drops/healthy.txt",
    ),
    (RELOAD_CAUSE, "show-reload-cause/json-user.txt"),
    (
        DOM,
        "show-interfaces-transceiver-dom-thresholds/healthy.txt",
    ),
    (NTP_STATUS, "show-ntp-status/synchronised.txt"),
    (NTP_ASSOCIATIONS, "show-ntp-associations/healthy.txt"),
    (FEED_A, "show-interfaces-port/ethernet1-sample-1.txt"),
    (FEED_A_2, "show-interfaces-port/ethernet1-sample-2.txt"),
    (FEED_B, "show-interfaces-port/ethernet9-sample-1.txt"),
    (FEED_B_2, "show-interfaces-port/ethernet9-sample-2.txt"),
    (BGP, "show-ip-bgp-summary-vrf-all/healthy.txt"),
    (BFD, "show-bfd-peers/healthy.txt"),
    (PIM, "show-ip-pim-neighbor/healthy.txt"),
    (MROUTE, "show-ip-mroute/healthy.txt"),
    (MROUTE_COUNT, "show-ip-mroute-count/sample-1.txt"),
    (MROUTE_COUNT_2, "show-ip-mroute-count/sample-2.txt"),
    (MLAG, "show-mlag/active.txt"),
    (MLAG_SANITY, "show-mlag-config-sanity/consistent.txt"),
    (DROPS, "show-hardware-counter-drop/healthy.txt"),
    (FLOW_CONTROL, "show-interfaces-flow-control/off.txt"),
    (LLDP, "show-lldp-neighbors/healthy.txt"),
];

/// Fixtures replacing the healthy ones; `None` leaves the output missing.
pub(crate) type Outputs = &'static [(&'static str, Option<&'static str>)];

pub(crate) struct Row {
    pub check: &'static str,
    pub outputs: Outputs,
    /// A previous run an hour ago: the healthy outputs with these replaced; `None`: this is
    /// the first run.
    pub previous: Option<Outputs>,
    pub status: Status,
    /// Words the summary must contain.
    pub summary: &'static str,
}

const ROWS: &[Row] = &[
    Row {
        check: "eos.version.pinned",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "4.31.6M as pinned",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/text-old-padded-crlf.txt"))],
        previous: None,
        status: Status::Ok,
        summary: "4.31.6M",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/text-new.txt"))],
        previous: None,
        status: Status::Ok,
        summary: "4.32.2F",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/json-4.33.1F-drift.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "4.33.1F runs, the baseline pins one of 4.31.6M, 4.32.2F",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    Row {
        check: "eos.version.pinned",
        outputs: &[(SHOW_VERSION, None)],
        previous: None,
        status: Status::Error,
        summary: "missing",
    },
    // eos.lanz.running is declarative (checks/eos.yaml): the switch's JSON, `lanzEnabled`.
    Row {
        check: "eos.lanz.running",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "$.lanzEnabled equal to true (expect.lanz)",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/text-enabled.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "not JSON",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/json-disabled.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "$.lanzEnabled = false, wanted equal to true (expect.lanz)",
    },
    Row {
        check: "eos.lanz.running",
        outputs: &[(
            SHOW_LANZ_STATUS,
            Some("show-queue-monitor-length-status/invalid-command.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "% Invalid input",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "survives a reload",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/lanz-only-in-running.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "LANZ is on only in running-config and will be off after the next reload",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[
            (
                SHOW_STARTUP_CONFIG,
                Some("show-startup-config/lanz-only-in-running.txt"),
            ),
            (
                SHOW_LANZ_STATUS,
                Some("show-queue-monitor-length-status/json-disabled.txt"),
            ),
        ],
        previous: None,
        status: Status::Fail,
        summary: "not in startup-config",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/lanz-explicitly-off.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "only in running-config",
    },
    Row {
        check: "eos.lanz.persisted",
        outputs: &[(
            SHOW_STARTUP_CONFIG,
            Some("show-startup-config/not-privileged.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "privileged mode required",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "running-config is saved",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/cosmetic-only.txt"),
        )],
        previous: None,
        status: Status::Ok,
        summary: "cosmetic",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/unsaved.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "2 added, 0 removed",
    },
    Row {
        check: "eos.config.saved",
        outputs: &[(
            SHOW_RUNNING_CONFIG_DIFFS,
            Some("show-running-config-diffs/not-privileged.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "privileged mode required",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "first run on this switch: counters recorded",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[],
        previous: Some(&[]),
        status: Status::Ok,
        summary: "all 4 trading ports as expected",
    },
    // A healthy morning, then the fault: Ethernet3's FCS errors grow and the link flaps.
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(SHOW_INTERFACES, Some("show-interfaces/crc-errors.txt"))],
        previous: Some(&[]),
        status: Status::Fail,
        summary: "Ethernet3: +1843 FCS errors since the previous run",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(SHOW_INTERFACES, Some("show-interfaces/crc-errors.txt"))],
        previous: Some(&[]),
        status: Status::Fail,
        summary: "+2 link status changes",
    },
    // The same counters on a first run are history, not growth.
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(SHOW_INTERFACES, Some("show-interfaces/crc-errors.txt"))],
        previous: None,
        status: Status::Ok,
        summary: "first run on this switch",
    },
    // Counters that went down restarted (a reboot or a clear): said, not judged as growth.
    Row {
        check: "eos.interfaces.errors",
        outputs: &[],
        previous: Some(&[(SHOW_INTERFACES, Some("show-interfaces/crc-errors.txt"))]),
        status: Status::Ok,
        summary: "counters restarted (reboot or clear)",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(SHOW_VERSION, Some("show-version/json-4.32.2F-rebooted.txt"))],
        previous: Some(&[(
            SHOW_VERSION,
            Some("show-version/json-4.32.2F-up-12-days.txt"),
        )]),
        status: Status::Ok,
        summary: "rebooted since the previous run",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(
            SHOW_INTERFACES,
            Some("show-interfaces/ethernet3-down-1g.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "Ethernet3: notconnect/down, not connected/up; runs at 1G, the baseline says 10G",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(
            SHOW_INTERFACES,
            Some("show-interfaces/ethernet-without-counters.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "Ethernet2: `show interfaces` prints no linkStatusChanges",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "locked to grandmaster 0xec:46:70:ff:fe:00:ff:a8 (class 6) via Ethernet1, offset -11 ns, mean path delay 412 ns, last sync 1 s ago",
    },
    // A switch that ignores the revision pin still reads (revision 1, eAPI framing).
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/locked-rev1-eapi.txt"))],
        previous: None,
        status: Status::Ok,
        summary: "locked to grandmaster",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/unlocked-own-gm.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "the switch is its own grandmaster (0x00:1c:73:ff:ff:0a:00:01): it lost the upstream grandmaster and runs free; no slave port: nothing receives time from upstream; last sync 157 s ago",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/disabled.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "PTP is not running (ptpMode ptpDisabled)",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    Row {
        check: "eos.multicast.feeds",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "VLAN 100: querier 10.100.0.1, 1 group(s) joined on Ethernet4",
    },
    Row {
        check: "eos.multicast.feeds",
        outputs: &[
            (
                QUERIER,
                Some("show-ip-igmp-snooping-querier/no-querier.txt"),
            ),
            (GROUPS, Some("show-ip-igmp-snooping-groups/no-querier.txt")),
            (SNOOPING, Some("show-ip-igmp-snooping/flooding.txt")),
        ],
        previous: None,
        status: Status::Fail,
        summary: "VLAN 100: no IGMP querier: memberships age out and the feed is flooded or lost; not joined: 239.1.1.1 on Ethernet4; the VLAN floods multicast to every port",
    },
    Row {
        check: "eos.multicast.feeds",
        outputs: &[(GROUPS, Some("show-ip-igmp-snooping-groups/no-querier.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "not joined: 239.1.1.1 on Ethernet4",
    },
    Row {
        check: "eos.multicast.feeds",
        outputs: &[(QUERIER, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    Row {
        check: "eos.lanz.congestion",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "no congestion above 100000 bytes on the trading ports in the last hour (first run on this switch); queue drops recorded",
    },
    // A 3 MiB record seconds before the report: a microburst even on a first run.
    Row {
        check: "eos.lanz.congestion",
        outputs: &[(
            LANZ_RECORDS,
            Some("show-queue-monitor-length/microburst.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "1 LANZ record(s) above 98 KiB in the last hour (first run on this switch), the deepest 3.0 MiB on Ethernet4 (queue TC0) at ",
    },
    Row {
        check: "eos.lanz.congestion",
        outputs: &[(
            QUEUE_DROPS,
            Some("show-interfaces-counters-queue-drops/microburst.txt"),
        )],
        previous: Some(&[]),
        status: Status::Fail,
        summary: "+1203 queue drops on Ethernet4 since the previous run",
    },
    Row {
        check: "eos.lanz.congestion",
        outputs: &[(
            QUEUE_DROPS,
            Some("show-interfaces-counters-queue-drops/microburst.txt"),
        )],
        previous: Some(&[(
            QUEUE_DROPS,
            Some("show-interfaces-counters-queue-drops/microburst.txt"),
        )]),
        status: Status::Ok,
        summary: "no congestion above 100000 bytes on the trading ports since the previous run",
    },
    Row {
        check: "eos.lanz.congestion",
        outputs: &[],
        previous: Some(&[(
            QUEUE_DROPS,
            Some("show-interfaces-counters-queue-drops/microburst.txt"),
        )]),
        status: Status::Ok,
        summary: "counters restarted (reboot or clear)",
    },
    Row {
        check: "eos.lanz.congestion",
        outputs: &[(LANZ_RECORDS, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    Row {
        check: "eos.uptime.stable",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "first run on this switch, nothing to compare yet",
    },
    Row {
        check: "eos.uptime.stable",
        outputs: &[],
        previous: Some(&[]),
        status: Status::Ok,
        summary: "no reload since the previous run",
    },
    // The LANZ incident began with a reboot nobody noticed: now it is named.
    Row {
        check: "eos.uptime.stable",
        outputs: &[
            (SHOW_VERSION, Some("show-version/json-4.32.2F-rebooted.txt")),
            (RELOAD_CAUSE, Some("show-reload-cause/json-power-loss.txt")),
        ],
        previous: Some(&[(
            SHOW_VERSION,
            Some("show-version/json-4.32.2F-up-12-days.txt"),
        )]),
        status: Status::Fail,
        summary: "reloaded since the previous run (20261130T081500.000): up only 35 s, reload cause: The system rebooted due to a Power Loss; every setting that was only in running-config is gone",
    },
    Row {
        check: "eos.uptime.stable",
        outputs: &[
            (SHOW_VERSION, Some("show-version/json-4.32.2F-rebooted.txt")),
            (RELOAD_CAUSE, Some("show-reload-cause/text-power-loss.txt")),
        ],
        previous: Some(&[(
            SHOW_VERSION,
            Some("show-version/json-4.32.2F-up-12-days.txt"),
        )]),
        status: Status::Fail,
        summary: "reload cause: The system rebooted due to a Power Loss",
    },
    Row {
        check: "eos.uptime.stable",
        outputs: &[(SHOW_VERSION, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    // The first run on a switch records its configuration; the next compares with it.
    Row {
        check: "eos.config.unchanged",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "first run on this device",
    },
    // Read last evening: only the `! Time:` header differs, which is no change.
    Row {
        check: "eos.config.unchanged",
        outputs: &[],
        previous: Some(&[(
            SHOW_RUNNING_CONFIG,
            Some("show-running-config/yesterday-evening.txt"),
        )]),
        status: Status::Ok,
        summary: "unchanged since the previous run (08:15)",
    },
    // Overnight Ethernet3 moved to VLAN 202 and the trunk was opened to it.
    Row {
        check: "eos.config.unchanged",
        outputs: &[(
            SHOW_RUNNING_CONFIG,
            Some("show-running-config/vlan-moved.txt"),
        )],
        previous: Some(&[(
            SHOW_RUNNING_CONFIG,
            Some("show-running-config/yesterday-evening.txt"),
        )]),
        status: Status::Fail,
        summary: "configuration changed since the previous run (08:15): 4 lines",
    },
    Row {
        check: "eos.config.unchanged",
        outputs: &[(
            SHOW_RUNNING_CONFIG,
            Some("show-running-config-diffs/not-privileged.txt"),
        )],
        previous: Some(&[]),
        status: Status::Error,
        summary: "the switch answered with an error: % Invalid input (privileged mode required)",
    },
    Row {
        check: "eos.transceivers.light",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "all 4 trading ports as expected",
    },
    Row {
        check: "eos.transceivers.light",
        outputs: &[(
            DOM,
            Some("show-interfaces-transceiver-dom-thresholds/low-light.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "Ethernet3: receive power -11.2 dBm, below its low warning -9.5001 dBm (alarm at -12.5026 dBm)",
    },
    Row {
        check: "eos.transceivers.light",
        outputs: &[(DOM, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
];

/// These rows, the market-data path's ([`crate::eos_market`]) and the hand-off's
/// ([`crate::eos_handoff`]).
fn all_rows() -> impl Iterator<Item = &'static Row> {
    ROWS.iter()
        .chain(crate::eos_market::ROWS)
        .chain(crate::eos_handoff::ROWS)
}

#[test]
fn every_check_has_ok_fail_and_error_rows() {
    let eos = premarket::check::registry::builtin()
        .into_iter()
        .filter(|c| c.platform() == premarket::Platform::Eos)
        .map(|c| c.id().to_string());
    // The site checks over the switches' facts too (the example site's one switch takes part).
    let site = premarket::check::registry::site()
        .into_iter()
        .map(|c| c.id().to_string());
    for id in eos.chain(site) {
        for status in [Status::Ok, Status::Fail, Status::Error] {
            assert!(
                all_rows().any(|r| r.check == id && r.status == status),
                "{id} has no {status} row"
            );
        }
    }
}

#[tokio::test]
async fn every_row() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let mut seen = Vec::new();
    for row in all_rows() {
        let result = judge(&config, row).await;
        seen.push((row.check.to_string(), result.status, result.headline()));
        assert_eq!(
            result.status, row.status,
            "{} with {:?}: {result:#?}",
            row.check, row.outputs
        );
        assert!(
            result.summary.contains(row.summary),
            "{}: summary {:?} lacks {:?}",
            row.check,
            result.summary,
            row.summary
        );
        crate::subjects::assert_about(&result);
        if matches!(result.status, Status::Fail | Status::Error) {
            assert!(
                !result.remedy.is_empty(),
                "{}: a FAIL/ERROR needs a remedy",
                row.check
            );
        }
        if result.status == Status::Error {
            assert!(
                !result.evidence.is_empty() || result.summary.contains("missing"),
                "{}: ERROR without excerpt",
                row.check
            );
        }
    }
    crate::explain::assert_examples(&seen);
}

/// `row`'s check judged on sw1 of the example site over the healthy fixtures with the row's
/// replaced, through the whole pipeline: its one result.
pub(crate) async fn judge(config: &Config, row: &Row) -> premarket::report::CheckResult {
    let outputs = tempfile::tempdir().expect("tempdir");
    let device_dir = outputs.path().join("sw1");
    std::fs::create_dir_all(&device_dir).expect("mkdir");
    for (command, fixture) in HEALTHY {
        let replaced = row
            .outputs
            .iter()
            .find(|(c, _)| *c == command)
            .map(|(_, f)| *f);
        let Some(fixture) = replaced.unwrap_or(Some(fixture)) else {
            continue;
        };
        std::fs::copy(
            common::fixture(&format!("eos/{fixture}")),
            device_dir.join(file_name(command)),
        )
        .expect("copy fixture");
    }
    let selection = Selection {
        checks: vec![row.check.into()],
        devices: vec!["sw1".into()],
        tags: vec![],
    };
    let mut plan = Plan::new(config, &selection).expect("plan");
    if let Some(overrides) = row.previous {
        let before: Vec<(Command, String)> = HEALTHY
            .iter()
            .filter(|(command, _)| !command.ends_with(SECOND))
            .filter_map(|(command, fixture)| {
                let replaced = overrides
                    .iter()
                    .find(|(c, _)| c == command)
                    .map(|(_, f)| *f);
                let fixture = replaced.unwrap_or(Some(fixture))?;
                let text = std::fs::read_to_string(common::fixture(&format!("eos/{fixture}")))
                    .expect("previous fixture");
                Some((Command::new(*command), text))
            })
            .collect();
        let previous =
            previous_support::previous(&plan.devices[0], &before, chrono::Duration::hours(1));
        previous_support::judge_against(&mut plan.devices[0], previous);
    }
    let mut report = inspect(
        config,
        plan.clone(),
        Arc::new(Offline::new(outputs.path())),
        &Limits::from_config(config),
    )
    .await;
    assert_eq!(report.results.len(), 1, "{}", row.check);
    report.results.remove(0)
}

#[tokio::test]
async fn lanz_incident_fixture_fails_with_the_lab_notes_explanation() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let plan = Plan::new(
        &config,
        &Selection {
            devices: vec!["sw1".into()],
            ..Selection::default()
        },
    )
    .expect("plan");
    let limits = Limits::from_config(&config);
    let run = |dir: &str| {
        let collector = Arc::new(Offline::new(common::fixture(dir)));
        inspect(&config, plan.clone(), collector, &limits)
    };
    let healthy = run("site/healthy").await;
    // A first run records the error counters: eos.ports.errors-absent judges their growth
    // from the next run on. The lab notes' switch has no MLAG: that check says so.
    assert!(
        healthy.results.iter().all(|r| r.status == Status::Ok
            || (r.status == Status::Skip
                && ["eos.ports.errors-absent", "eos.mlag.healthy"].contains(&r.check.as_str()))),
        "{healthy:#?}"
    );
    let incident = run("site/lanz-incident").await;
    let persisted = incident
        .results
        .iter()
        .find(|r| r.check == "eos.lanz.persisted")
        .expect("result");
    assert_eq!(persisted.status, Status::Fail);
    assert!(
        persisted.summary.contains("only in running-config")
            && persisted.summary.contains("next reload")
    );
    assert!(persisted.remedy.contains("write memory"));
    assert_eq!(incident.exit_code(), 1);
}
