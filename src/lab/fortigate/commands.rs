//! The commands the emulated FortiGate knows, as the grammar matches them (`get system status`,
//! `diagnose sys session filter ...`, `config ...`), the configuration paths `show` and
//! `config` accept, and FortiOS's two error answers: `Unknown action 0` for a word it does not
//! know at all and `command parse error before '...'` for one that does not fit.

use premarket_platform::fortigate::Np;

use super::super::grammar::{Word, Word::*};

pub(super) const UNKNOWN_ACTION: &str = "Unknown action 0";

pub(super) fn parse_error(word: &str) -> String {
    format!("command parse error before '{word}'\nCommand fail. Return code -61")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmd {
    Status,
    Performance,
    Ha,
    Global,
    Console,
    Interface,
    /// `diagnose npu <np> port-list`: answered by a firewall with that NP only.
    NpPortList(Np),
    NtpStatus,
    /// `diagnose hardware deviceinfo nic <port>` / `get hardware nic <port>`.
    Nic,
    BgpSummary,
    HaChecksum,
    /// `diagnose npu <np> npu-feature`: answered by a firewall with that NP only.
    NpuFeature(Np),
    VdList,
    Sudo,
    Show,
    ShowFull,
    Filter,
    List,
    Stat,
    Clear,
    McastList,
    Config,
    Edit,
    End,
    Next,
    Abort,
    Exit,
    Execute,
}

pub(super) const COMMANDS: &[(&[Word], Cmd)] = &[
    (&[Key("get"), Key("system"), Key("status")], Cmd::Status),
    (
        &[Key("get"), Key("system"), Key("performance"), Key("status")],
        Cmd::Performance,
    ),
    (
        &[Key("get"), Key("system"), Key("ha"), Key("status")],
        Cmd::Ha,
    ),
    (&[Key("get"), Key("system"), Key("global")], Cmd::Global),
    (&[Key("get"), Key("system"), Key("console")], Cmd::Console),
    (
        &[Key("get"), Key("system"), Key("interface")],
        Cmd::Interface,
    ),
    (
        &[
            Key("diagnose"),
            Key("npu"),
            Key("np7lite"),
            Key("port-list"),
        ],
        Cmd::NpPortList(Np::Np7lite),
    ),
    (
        &[Key("diagnose"), Key("npu"), Key("np7"), Key("port-list")],
        Cmd::NpPortList(Np::Np7),
    ),
    (
        &[Key("diagnose"), Key("npu"), Key("np6"), Key("port-list")],
        Cmd::NpPortList(Np::Np6),
    ),
    (
        &[
            Key("diagnose"),
            Key("npu"),
            Key("np6lite"),
            Key("port-list"),
        ],
        Cmd::NpPortList(Np::Np6lite),
    ),
    (
        &[
            Key("diagnose"),
            Key("npu"),
            Key("np6xlite"),
            Key("port-list"),
        ],
        Cmd::NpPortList(Np::Np6xlite),
    ),
    (
        &[Key("diagnose"), Key("sys"), Key("ntp"), Key("status")],
        Cmd::NtpStatus,
    ),
    (
        &[Key("diagnose"), Key("sys"), Key("vd"), Key("list")],
        Cmd::VdList,
    ),
    (
        &[
            Key("diagnose"),
            Key("hardware"),
            Key("deviceinfo"),
            Key("nic"),
            Rest,
        ],
        Cmd::Nic,
    ),
    (&[Key("get"), Key("hardware"), Key("nic"), Rest], Cmd::Nic),
    (
        &[
            Key("get"),
            Key("router"),
            Key("info"),
            Key("bgp"),
            Key("summary"),
        ],
        Cmd::BgpSummary,
    ),
    (
        &[
            Key("diagnose"),
            Key("sys"),
            Key("ha"),
            Key("checksum"),
            Key("cluster"),
        ],
        Cmd::HaChecksum,
    ),
    (
        &[Key("diagnose"), Key("npu"), Key("np6"), Key("npu-feature")],
        Cmd::NpuFeature(Np::Np6),
    ),
    (
        &[
            Key("diagnose"),
            Key("npu"),
            Key("np6lite"),
            Key("npu-feature"),
        ],
        Cmd::NpuFeature(Np::Np6lite),
    ),
    (
        &[
            Key("diagnose"),
            Key("npu"),
            Key("np6xlite"),
            Key("npu-feature"),
        ],
        Cmd::NpuFeature(Np::Np6xlite),
    ),
    (&[Key("sudo"), Rest], Cmd::Sudo),
    (
        &[Key("show"), Key("full-configuration"), Rest],
        Cmd::ShowFull,
    ),
    (&[Key("show"), Rest], Cmd::Show),
    (
        &[
            Key("diagnose"),
            Key("sys"),
            Key("session"),
            Key("filter"),
            Rest,
        ],
        Cmd::Filter,
    ),
    (
        &[Key("diagnose"), Key("sys"), Key("session"), Key("list")],
        Cmd::List,
    ),
    (
        &[Key("diagnose"), Key("sys"), Key("session"), Key("stat")],
        Cmd::Stat,
    ),
    (
        &[Key("diagnose"), Key("sys"), Key("session"), Key("clear")],
        Cmd::Clear,
    ),
    (
        &[
            Key("diagnose"),
            Key("sys"),
            Key("mcast-session"),
            Key("list"),
        ],
        Cmd::McastList,
    ),
    (&[Key("config"), Rest], Cmd::Config),
    (&[Key("edit"), Arg], Cmd::Edit),
    (&[Key("end")], Cmd::End),
    (&[Key("next")], Cmd::Next),
    (&[Key("abort")], Cmd::Abort),
    (&[Key("exit")], Cmd::Exit),
    (&[Key("execute"), Rest], Cmd::Execute),
];

/// Configuration paths `show` and `config` know.
pub(super) const PATHS: &[&str] = &[
    "system interface",
    "system npu",
    "system session-ttl",
    "system global",
    "system console",
    "system ha",
    "system virtual-wire-pair",
    "system virtual-switch",
    "firewall policy",
    "firewall multicast-policy",
    "firewall service custom",
];

/// The configuration path and entry that the words after `show` name (`firewall policy 1`,
/// `firewall service custom "MD-UDP-5000"`); `None` when they name no path the box knows.
pub(super) fn shown_path(words: &str) -> Option<(&'static str, Option<String>)> {
    PATHS.iter().find_map(|p| {
        let rest = words.strip_prefix(p)?;
        let entry = rest.trim().trim_matches('"');
        (rest.is_empty() || rest.starts_with(' '))
            .then(|| (*p, (!entry.is_empty()).then(|| entry.to_string())))
    })
}
