//! The words an emulated switch understands: every command the lab answers, as the grammar
//! (`super::super::grammar`) matches them (each word may be abbreviated).

use super::super::grammar::{Word, Word::*};

/// A command the lab answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    Enable,
    Disable,
    Exit,
    TerminalLength,
    TerminalWidth,
    ShowVersion,
    ShowLanzStatus,
    ShowRunning,
    ShowRunningDiffs,
    ShowStartup,
    ShowClock,
    ShowHostname,
    ShowPrivilege,
    ShowInterfaces,
    ShowCountersErrors,
    ShowQueueDrops,
    ShowQueueDetail,
    ShowDiscards,
    ShowDomThresholds,
    ShowPtp,
    ShowPtpMasters,
    ShowIgmpSnooping,
    ShowIgmpQuerier,
    ShowIgmpGroups,
    ShowLanz,
    ShowReloadCause,
    ShowNtpStatus,
    ShowNtpAssociations,
    ShowUptime,
    Configure,
    Write,
    Copy,
    Reload,
    Clear,
}

pub const COMMANDS: &[(&[Word], Cmd)] = &[
    (&[Key("enable")], Cmd::Enable),
    (&[Key("disable")], Cmd::Disable),
    (&[Key("exit")], Cmd::Exit),
    (&[Key("logout")], Cmd::Exit),
    (&[Key("quit")], Cmd::Exit),
    (&[Key("terminal"), Key("length"), Arg], Cmd::TerminalLength),
    (&[Key("terminal"), Key("width"), Arg], Cmd::TerminalWidth),
    (&[Key("show"), Key("version")], Cmd::ShowVersion),
    (
        &[
            Key("show"),
            Key("queue-monitor"),
            Key("length"),
            Key("status"),
        ],
        Cmd::ShowLanzStatus,
    ),
    (&[Key("show"), Key("running-config")], Cmd::ShowRunning),
    (
        &[Key("show"), Key("running-config"), Key("diffs")],
        Cmd::ShowRunningDiffs,
    ),
    (&[Key("show"), Key("startup-config")], Cmd::ShowStartup),
    (&[Key("show"), Key("clock")], Cmd::ShowClock),
    (&[Key("show"), Key("hostname")], Cmd::ShowHostname),
    (&[Key("show"), Key("privilege")], Cmd::ShowPrivilege),
    (&[Key("show"), Key("interfaces")], Cmd::ShowInterfaces),
    (
        &[
            Key("show"),
            Key("interfaces"),
            Key("counters"),
            Key("errors"),
        ],
        Cmd::ShowCountersErrors,
    ),
    (
        &[
            Key("show"),
            Key("interfaces"),
            Key("counters"),
            Key("queue"),
            Key("drops"),
        ],
        Cmd::ShowQueueDrops,
    ),
    (
        &[
            Key("show"),
            Key("interfaces"),
            Key("counters"),
            Key("queue"),
            Key("detail"),
        ],
        Cmd::ShowQueueDetail,
    ),
    (
        &[
            Key("show"),
            Key("interfaces"),
            Key("counters"),
            Key("discards"),
        ],
        Cmd::ShowDiscards,
    ),
    (
        &[
            Key("show"),
            Key("interfaces"),
            Key("transceiver"),
            Key("dom"),
            Key("thresholds"),
        ],
        Cmd::ShowDomThresholds,
    ),
    (&[Key("show"), Key("ptp")], Cmd::ShowPtp),
    (
        &[Key("show"), Key("ptp"), Key("masters")],
        Cmd::ShowPtpMasters,
    ),
    (
        &[Key("show"), Key("ip"), Key("igmp"), Key("snooping")],
        Cmd::ShowIgmpSnooping,
    ),
    (
        &[
            Key("show"),
            Key("ip"),
            Key("igmp"),
            Key("snooping"),
            Key("querier"),
        ],
        Cmd::ShowIgmpQuerier,
    ),
    (
        &[
            Key("show"),
            Key("ip"),
            Key("igmp"),
            Key("snooping"),
            Key("groups"),
        ],
        Cmd::ShowIgmpGroups,
    ),
    (
        &[Key("show"), Key("queue-monitor"), Key("length")],
        Cmd::ShowLanz,
    ),
    (
        &[Key("show"), Key("reload"), Key("cause")],
        Cmd::ShowReloadCause,
    ),
    (
        &[Key("show"), Key("ntp"), Key("status")],
        Cmd::ShowNtpStatus,
    ),
    (
        &[Key("show"), Key("ntp"), Key("associations")],
        Cmd::ShowNtpAssociations,
    ),
    (&[Key("show"), Key("uptime")], Cmd::ShowUptime),
    (&[Key("configure")], Cmd::Configure),
    (&[Key("configure"), Key("terminal")], Cmd::Configure),
    (&[Key("write")], Cmd::Write),
    (&[Key("write"), Key("memory")], Cmd::Write),
    (&[Key("copy"), Arg, Arg], Cmd::Copy),
    (&[Key("reload"), Rest], Cmd::Reload),
    (&[Key("clear"), Rest], Cmd::Clear),
];
