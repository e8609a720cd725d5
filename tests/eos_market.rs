//! The market-data path's EOS checks over fixtures (issue 19), run by [`crate::eos_checks`]'s
//! row runner: OK, FAIL and ERROR for feeds flowing now, PTP quality, NTP limits and pause
//! frames.

use crate::eos_checks::{
    FEED_B_2, NTP_ASSOCIATIONS, NTP_STATUS, PTP_MASTERS, QUERIER, Row, SHOW_INTERFACES, SHOW_PTP,
};

use premarket::Status;

pub(crate) const ROWS: &[Row] = &[
    Row {
        check: "eos.multicast.flowing",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "all 2 feed sides as expected",
    },
    Row {
        check: "eos.multicast.flowing",
        outputs: &[(
            FEED_B_2,
            Some("show-interfaces-port/ethernet9-sample-2-stalled.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "239.2.1.1",
    },
    Row {
        check: "eos.multicast.flowing",
        outputs: &[(FEED_B_2, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "Ethernet9",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(PTP_MASTERS, Some("show-ptp-masters/gm-holdover-class7.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "grandmaster clock class 7 (holdover within specification), allowed [6]",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(
            PTP_MASTERS,
            Some("show-ptp-masters/gm-accuracy-unknown.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "grandmaster clock accuracy 0xFE (unknown), limit 0x27 (within 100 µs)",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/long-path-delay.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "mean path delay 2310 ns, beyond 2000 ns",
    },
    // A clock that contradicts itself (it reads 1970, or an hour before its own last sync)
    // cannot say how long ago it synchronised: never "last sync 0 s ago".
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/clock-reads-1970.txt"))],
        previous: None,
        status: Status::Error,
        summary: "the switch's PTP clock reads 1970-01-01T00:00:05Z, 1796025155 s before its own last sync",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(SHOW_PTP, Some("show-ptp/clock-before-last-sync.txt"))],
        previous: None,
        status: Status::Error,
        summary: "3600 s before its own last sync",
    },
    Row {
        check: "eos.ptp.synchronised",
        outputs: &[(PTP_MASTERS, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "no grandmaster clock class from `show ptp masters`",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "synchronised to 10.0.0.1, stratum 2, offset 0.012 ms",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[(
            NTP_ASSOCIATIONS,
            Some("show-ntp-associations/sys-peer-250ms-off.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "clock offset 250.114 ms from 10.0.0.1, beyond ±100 ms",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[(
            NTP_ASSOCIATIONS,
            Some("show-ntp-associations/no-sys-peer.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "no association is `sys.peer`",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[(NTP_STATUS, Some("show-ntp-status/unsynchronised.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "NTP not synchronised: `unsynchronised`",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[(
            NTP_ASSOCIATIONS,
            Some("show-ntp-associations/sys-peer-no-offset.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "prints no offset for 10.0.0.1",
    },
    Row {
        check: "eos.ntp.synchronised",
        outputs: &[(NTP_STATUS, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "cannot read",
    },
    // Pause frames are judged as growth since the previous run, like the error counters.
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(
            SHOW_INTERFACES,
            Some("show-interfaces/pause-frames-ethernet4.txt"),
        )],
        previous: Some(&[]),
        status: Status::Fail,
        summary: "Ethernet4: +1840 pause frames received since the previous run",
    },
    Row {
        check: "eos.interfaces.errors",
        outputs: &[(
            SHOW_INTERFACES,
            Some("show-interfaces/pause-frames-ethernet4.txt"),
        )],
        previous: Some(&[(
            SHOW_INTERFACES,
            Some("show-interfaces/pause-frames-ethernet4.txt"),
        )]),
        status: Status::Ok,
        summary: "all 4 trading ports",
    },
    // The querier's IGMP version, judged where the switch prints it.
    Row {
        check: "eos.multicast.feeds",
        outputs: &[(QUERIER, Some("show-ip-igmp-snooping-querier/igmpv3.txt"))],
        previous: None,
        status: Status::Fail,
        summary: "the querier speaks IGMPv3, the baseline says v2",
    },
    Row {
        check: "eos.multicast.feeds",
        outputs: &[(
            QUERIER,
            Some("show-ip-igmp-snooping-querier/version-unreadable.txt"),
        )],
        previous: None,
        status: Status::Error,
        summary: "the querier's version \"version two\" is not one premarket reads",
    },
];

/// Rows for the PTP leads below: (what replaces the healthy outputs).
fn ptp(outputs: crate::eos_checks::Outputs) -> Row {
    Row {
        check: "eos.ptp.synchronised",
        outputs,
        previous: None,
        status: Status::Fail,
        summary: "",
    }
}

/// The switch follows the right grandmaster 11 ns off, and the grandmaster announces clock
/// class 7: the fault is the grandmaster's, and the result leads with it (`ptp-holdover`): the
/// sentence, the subject's words and the remedy start at the grandmaster, not at the switch.
/// A grandmaster that announces a locked class (6, or 13 for an application-specific
/// timescale) never reads as holdover, and a switch that lost the grandmaster (its own
/// grandmaster, free-running) is the switch's fault, never blamed on a grandmaster.
#[tokio::test]
async fn a_grandmaster_in_holdover_leads_and_a_locked_class_never_reads_as_holdover() {
    let config = premarket::config::Config::load(&crate::common::repo()).expect("site");
    let gm = "0xec:46:70:ff:fe:00:ff:a8";

    let holdover = crate::eos_checks::judge(
        &config,
        &ptp(&[(PTP_MASTERS, Some("show-ptp-masters/gm-holdover-class7.txt"))]),
    )
    .await;
    assert_eq!(holdover.status, Status::Fail);
    assert_eq!(
        holdover.lead,
        format!("grandmaster {gm} in holdover (clock class 7)")
    );
    assert_eq!(holdover.finding, "PTP grandmaster in holdover");
    assert!(
        holdover
            .remedy
            .starts_with(&format!("Start at the grandmaster {gm}")),
        "{}",
        holdover.remedy
    );
    assert!(
        holdover.summary.contains("the switch follows it"),
        "{}",
        holdover.summary
    );

    let freerun = crate::eos_checks::judge(
        &config,
        &ptp(&[(
            PTP_MASTERS,
            Some("show-ptp-masters/gm-freerun-class248.txt"),
        )]),
    )
    .await;
    assert_eq!(freerun.status, Status::Fail);
    assert_eq!(
        freerun.lead,
        format!("grandmaster {gm} free-running (clock class 248)")
    );

    // Locked classes: 6 passes as the baseline allows; 13 is not allowed by this site's
    // baseline, and says what it is, never holdover.
    for (row, status) in [
        (
            ptp(&[(PTP_MASTERS, Some("show-ptp-masters/gm-class6-gps.txt"))]),
            Status::Ok,
        ),
        (
            ptp(&[(
                PTP_MASTERS,
                Some("show-ptp-masters/gm-class13-app-specific.txt"),
            )]),
            Status::Fail,
        ),
    ] {
        let r = crate::eos_checks::judge(&config, &row).await;
        assert_eq!(r.status, status, "{:?}: {r:#?}", row.outputs);
        for text in [&r.lead, &r.summary, &r.finding, &r.remedy] {
            assert!(!text.contains("holdover"), "{:?}: {text}", row.outputs);
        }
    }

    // The switch is its own grandmaster: its fault leads, with the catalog's words.
    let own = crate::eos_checks::judge(
        &config,
        &ptp(&[
            (SHOW_PTP, Some("show-ptp/unlocked-own-gm.txt")),
            (PTP_MASTERS, Some("show-ptp-masters/own-clock-freerun.txt")),
        ]),
    )
    .await;
    assert_eq!(own.status, Status::Fail);
    assert_eq!(own.finding, "PTP not locked");
    assert!(!own.lead.contains("grandmaster 0x"), "{}", own.lead);
    assert!(
        !own.remedy.starts_with("Start at the grandmaster"),
        "{}",
        own.remedy
    );
}
