//! Scenarios: each switches one fault on, on one device (or every device, for the few that
//! are about the whole lab). `premarket lab serve --scenario hang` uses the default target;
//! `--scenario hang@sw1` picks another device.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// One fault the lab can switch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// Everything as the baselines expect (no fault; the default).
    Healthy,
    /// EOS: LANZ enabled in running-config only; startup-config lacks `queue-monitor length`.
    LanzUnsaved,
    /// EOS: LANZ off in running and startup (the lab notes' switch after its reboot).
    LanzOff,
    /// EOS: running-config has unsaved lines (`show running-config diffs` is not empty).
    ConfigUnsaved,
    /// FortiGate: policy 1 has `set auto-asic-offload disable`; the feed runs on the CPU.
    OffloadDisabled,
    /// FortiGate: the feed's sender opens a new source port per packet (many 1-packet sessions).
    NewSourcePort,
    /// FortiGate: the unicast feed has no session (not started before the open).
    NotEstablished,
    /// FortiGate: the feed's service has no `udp-idle-timer`; its session is about to expire.
    IdleExpired,
    /// FortiGate: an HA A-P cluster (baseline: standalone) whose secondary is out of sync.
    HaMismatch,
    /// FortiGate: CPU at 88 % with a high session setup rate.
    CpuHigh,
    /// Both platforms run a version outside the baseline's pin.
    VersionDrift,
    /// Every output pages after 10 lines whatever the terminal height (`--More--`).
    Pager,
    /// A post-login banner; the FortiGate waits for `a` (`(Press 'a' to accept):`).
    Banner,
    /// Every answer is delayed by [`SLOW_DELAY`].
    Slow,
    /// The first data command is accepted and never answered.
    Hang,
    /// The connection is cut in the middle of the first data command's output.
    Drop,
    /// The password is rejected.
    AuthFail,
    /// The device serves a host key other than the one in the site's known_hosts.
    HostKeyChanged,
    /// EOS: FCS errors on Ethernet3 (from the firewall) grew, and the link flapped twice.
    CrcErrors,
    /// EOS: PTP lost the grandmaster; the switch is its own GM, last sync 157 s ago.
    PtpUnlocked,
    /// EOS: no IGMP querier on the feed VLAN; the group's membership aged out.
    NoQuerier,
    /// EOS: a 3 MiB LANZ record on Ethernet4 seconds ago, and ~1200 more queue drops.
    Microburst,
    /// Both: the device rebooted seconds before the run (power loss / power cycle).
    Rebooted,
    /// FortiGate: `sflow-sampler enable` on x1, which stops NP offload on that interface.
    SflowEnabled,
    /// EOS: receive power on Ethernet3 at -11.2 dBm, below the low warning threshold.
    LowLight,
    /// Both: NTP not synchronised.
    NtpUnsynchronised,
    /// FortiGate: 200,000 sessions on the feed's filter (a socket-per-send neighbour), listed
    /// lazily and paged at the terminal height. One source host has about 28,000 ephemeral
    /// ports, so under a filter that names the source address a real box holds at most that
    /// many distinct sessions: past it the lab repeats 5-tuples (another source port
    /// sequence round), which keeps the count the benchmark needs.
    HugeSessionList,
    /// EOS: the grandmaster went into holdover: same identity, clock class 7 (was 6).
    PtpHoldover,
    /// EOS: the feed's B side (239.2.1.1 on Ethernet9) stopped ten minutes before the run;
    /// its port is up and its multicast counter holds still.
    FeedStalled,
    /// Both: NTP says synchronised, but the clock is 250 ms off its server.
    NtpOffset,
    /// EOS: Ethernet4 (the trading servers) received and sent pause frames since the
    /// previous run (flow control on a trading port).
    PauseFrames,
    /// Both: one configuration line differs from the healthy lab's (fw1: the order-entry
    /// policy's destination; sw1: a trading port's description), as after an overnight edit.
    ConfigChanged,
    /// FortiGate: every `ENC` secret re-encrypted (new salt, same length), nothing else
    /// changed: what a real FortiGate prints on each `show`.
    EncRotated,
    /// FortiGate: an HA A-P cluster, in sync (the site's baseline says so under this
    /// scenario), whose secondary's heartbeat link ha2 counts receive errors and drops (a
    /// failing optic): they grow between two runs.
    HaHeartbeat,
    /// EOS: the BGP session to exchange-a (10.1.1.1) dropped ten minutes before the run and
    /// stays Active.
    BgpDown,
    /// EOS: exchange-a is Established but announces 1 prefix (12 on a healthy day).
    BgpPrefixesLow,
    /// EOS: the BFD session to exchange-b (10.1.9.1 on Ethernet9) is down, the peer silent.
    BfdDown,
    /// EOS: side A's route (10.10.1.10, 239.1.1.1) arrives on side B's hand-off, Ethernet9.
    MrouteWrongRpf,
    /// EOS: LLDP shows carrier A's router at the far end of Ethernet9 too: both feed sides
    /// ride one carrier.
    FeedsShareUplink,
    /// FortiGate: x1's optic fails: receive (CRC) errors grow between any two runs.
    FwPortErrors,
    /// FortiGate (the mixed fleet's 200E, two NP6Lite chips that do not offload across chips):
    /// the trading port x2 is cabled to a port of the other chip than x1.
    NpCrossChip,
    /// FortiGate: a box with VDOMs (`root`, `trading`; the lab's site sets `ssh.vdom: trading`)
    /// whose CLI falls back to VDOM root after the third command typed in `trading`: the
    /// prompt turns to `fw1 (root) # ` under the session.
    VdomDropped,
    /// EOS: privileged mode is lost after the third command typed at `sw1#`: the prompt
    /// turns to `sw1>` under the session.
    PrivilegeDropped,
}

/// How long `slow` delays each answer.
pub const SLOW_DELAY: Duration = Duration::from_secs(2);
/// Lines per page in the `pager` scenario.
pub const PAGER_LINES: usize = 10;

/// Which devices a fault applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    All,
    Device(String),
}

impl Fault {
    pub const ALL: [Fault; 43] = [
        Fault::Healthy,
        Fault::LanzUnsaved,
        Fault::LanzOff,
        Fault::ConfigUnsaved,
        Fault::OffloadDisabled,
        Fault::NewSourcePort,
        Fault::NotEstablished,
        Fault::IdleExpired,
        Fault::HaMismatch,
        Fault::CpuHigh,
        Fault::VersionDrift,
        Fault::Pager,
        Fault::Banner,
        Fault::Slow,
        Fault::Hang,
        Fault::Drop,
        Fault::AuthFail,
        Fault::HostKeyChanged,
        Fault::CrcErrors,
        Fault::PtpUnlocked,
        Fault::NoQuerier,
        Fault::Microburst,
        Fault::Rebooted,
        Fault::SflowEnabled,
        Fault::LowLight,
        Fault::NtpUnsynchronised,
        Fault::HugeSessionList,
        Fault::PtpHoldover,
        Fault::FeedStalled,
        Fault::NtpOffset,
        Fault::PauseFrames,
        Fault::ConfigChanged,
        Fault::EncRotated,
        Fault::HaHeartbeat,
        Fault::BgpDown,
        Fault::BgpPrefixesLow,
        Fault::BfdDown,
        Fault::MrouteWrongRpf,
        Fault::FeedsShareUplink,
        Fault::FwPortErrors,
        Fault::NpCrossChip,
        Fault::VdomDropped,
        Fault::PrivilegeDropped,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::Healthy => "healthy",
            Fault::LanzUnsaved => "lanz-unsaved",
            Fault::LanzOff => "lanz-off",
            Fault::ConfigUnsaved => "config-unsaved",
            Fault::OffloadDisabled => "offload-disabled",
            Fault::NewSourcePort => "new-source-port",
            Fault::NotEstablished => "not-established",
            Fault::IdleExpired => "idle-expired",
            Fault::HaMismatch => "ha-mismatch",
            Fault::CpuHigh => "cpu-high",
            Fault::VersionDrift => "version-drift",
            Fault::Pager => "pager",
            Fault::Banner => "banner",
            Fault::Slow => "slow",
            Fault::Hang => "hang",
            Fault::Drop => "drop",
            Fault::AuthFail => "auth-fail",
            Fault::HostKeyChanged => "host-key-changed",
            Fault::CrcErrors => "crc-errors",
            Fault::PtpUnlocked => "ptp-unlocked",
            Fault::NoQuerier => "no-querier",
            Fault::Microburst => "microburst",
            Fault::Rebooted => "rebooted",
            Fault::SflowEnabled => "sflow-enabled",
            Fault::LowLight => "low-light",
            Fault::NtpUnsynchronised => "ntp-unsynchronised",
            Fault::HugeSessionList => "huge-session-list",
            Fault::PtpHoldover => "ptp-holdover",
            Fault::FeedStalled => "feed-stalled",
            Fault::NtpOffset => "ntp-offset",
            Fault::PauseFrames => "pause-frames",
            Fault::ConfigChanged => "config-changed",
            Fault::EncRotated => "enc-rotated",
            Fault::HaHeartbeat => "ha-heartbeat",
            Fault::BgpDown => "bgp-down",
            Fault::BgpPrefixesLow => "bgp-prefixes-low",
            Fault::BfdDown => "bfd-down",
            Fault::MrouteWrongRpf => "mroute-wrong-rpf",
            Fault::FeedsShareUplink => "feeds-share-uplink",
            Fault::FwPortErrors => "fw-port-errors",
            Fault::NpCrossChip => "np-cross-chip",
            Fault::VdomDropped => "vdom-dropped",
            Fault::PrivilegeDropped => "privilege-dropped",
        }
    }

    /// Where the fault goes when no `@device` is given.
    pub fn default_target(self) -> Target {
        match self {
            Fault::Healthy
            | Fault::VersionDrift
            | Fault::Pager
            | Fault::Banner
            | Fault::Rebooted
            | Fault::NtpUnsynchronised
            | Fault::NtpOffset => Target::All,
            Fault::ConfigChanged => Target::All,
            Fault::LanzUnsaved
            | Fault::LanzOff
            | Fault::ConfigUnsaved
            | Fault::CrcErrors
            | Fault::PtpUnlocked
            | Fault::NoQuerier
            | Fault::Microburst
            | Fault::LowLight
            | Fault::PtpHoldover
            | Fault::FeedStalled
            | Fault::PauseFrames
            | Fault::BgpDown
            | Fault::BgpPrefixesLow
            | Fault::BfdDown
            | Fault::MrouteWrongRpf
            | Fault::FeedsShareUplink
            | Fault::PrivilegeDropped => Target::Device("sw1".into()),
            Fault::Drop | Fault::AuthFail | Fault::Slow => Target::Device("sw1".into()),
            Fault::OffloadDisabled
            | Fault::NewSourcePort
            | Fault::NotEstablished
            | Fault::IdleExpired
            | Fault::HaMismatch
            | Fault::CpuHigh
            | Fault::Hang
            | Fault::HostKeyChanged
            | Fault::SflowEnabled
            | Fault::HugeSessionList
            | Fault::EncRotated
            | Fault::HaHeartbeat
            | Fault::FwPortErrors
            | Fault::VdomDropped => Target::Device("fw1".into()),
            // The mixed fleet's 200E: the only lab model with chips that do not offload
            // across each other.
            Fault::NpCrossChip => Target::Device("fw5".into()),
        }
    }

    /// A one-line description for `--help` and `lab serve`.
    pub fn describe(self) -> &'static str {
        match self {
            Fault::Healthy => "everything as the baselines expect",
            Fault::LanzUnsaved => "switch: LANZ on in running-config, not saved to startup-config",
            Fault::LanzOff => "switch: LANZ off in running and startup (after a reboot)",
            Fault::ConfigUnsaved => "switch: unsaved lines in running-config",
            Fault::OffloadDisabled => {
                "firewall: policy 1 disables offload, the feed runs on the CPU"
            }
            Fault::NewSourcePort => {
                "firewall: the feed opens a new source port per send (10,000 sessions)"
            }
            Fault::NotEstablished => "firewall: the unicast feed has no session yet",
            Fault::IdleExpired => {
                "firewall: feed service without udp-idle-timer, session about to expire"
            }
            Fault::HaMismatch => "firewall: HA A-P cluster with an out-of-sync secondary",
            Fault::CpuHigh => "firewall: CPU 88% used, high session setup rate",
            Fault::VersionDrift => "both: software version outside the pin",
            Fault::Pager => "every output pages after 10 lines (--More--)",
            Fault::Banner => "post-login banner; the firewall waits for 'a' to accept",
            Fault::Slow => "every answer delayed by 2 s",
            Fault::Hang => "first data command never answered",
            Fault::Drop => "connection cut in the middle of the first data command",
            Fault::AuthFail => "password rejected",
            Fault::HostKeyChanged => "host key differs from the site's known_hosts",
            Fault::CrcErrors => "switch: FCS errors grew on Ethernet3, link flapped twice",
            Fault::PtpUnlocked => "switch: PTP lost its grandmaster (own GM, sync 157 s old)",
            Fault::NoQuerier => "switch: no IGMP querier on the feed VLAN 100",
            Fault::Microburst => "switch: 3 MiB queue on Ethernet4 seconds ago, queue drops",
            Fault::Rebooted => "both: rebooted seconds ago (power loss / power cycle)",
            Fault::SflowEnabled => "firewall: sFlow sampler on x1 (stops NP offload)",
            Fault::LowLight => "switch: Ethernet3 receive power -11.2 dBm (below warning)",
            Fault::NtpUnsynchronised => "both: NTP not synchronised",
            Fault::HugeSessionList => "firewall: 200,000 sessions on the feed's filter",
            Fault::PtpHoldover => "switch: the PTP grandmaster in holdover (clock class 7)",
            Fault::FeedStalled => "switch: the feed's B side (239.2.1.1 on Ethernet9) stopped",
            Fault::NtpOffset => "both: NTP synchronised but 250 ms off",
            Fault::PauseFrames => "switch: pause frames received and sent on Ethernet4",
            Fault::ConfigChanged => {
                "both: one configuration line changed (fw1 policy 2, sw1 a port description)"
            }
            Fault::EncRotated => "firewall: every ENC secret re-encrypted, nothing else changed",
            Fault::HaHeartbeat => {
                "firewall: HA A-P cluster; the secondary's heartbeat ha2 counts receive errors"
            }
            Fault::BgpDown => "switch: BGP to exchange-a (10.1.1.1) Active for ten minutes",
            Fault::BgpPrefixesLow => "switch: exchange-a announces 1 prefix (12 when healthy)",
            Fault::BfdDown => "switch: BFD to exchange-b (10.1.9.1, Ethernet9) down",
            Fault::MrouteWrongRpf => {
                "switch: feed side A's route (239.1.1.1) arrives on side B's Ethernet9"
            }
            Fault::FeedsShareUplink => {
                "switch: LLDP shows carrier A's router behind both hand-offs"
            }
            Fault::FwPortErrors => "firewall: x1's optic fails, CRC errors grow (after a run)",
            Fault::NpCrossChip => {
                "firewall (--fleet mixed, the 200E): x2 on the other NP6Lite chip than x1"
            }
            Fault::VdomDropped => {
                "firewall: VDOMs root and trading; after 3 commands in trading the prompt is root's"
            }
            Fault::PrivilegeDropped => "switch: after 3 commands at sw1# the prompt is sw1>",
        }
    }

    /// `expect:` keys the lab's site writes for a device this fault applies to, replacing the
    /// example baseline's: a scenario that changes what the device is by design (a cluster
    /// instead of a standalone box) is judged against a baseline that says so.
    pub fn expect(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Fault::HaHeartbeat => &[("ha", "{ mode: a-p, members: 2 }")],
            _ => &[],
        }
    }

    /// `ssh:` keys the lab's site writes for a device this fault applies to: how premarket
    /// reaches a box that the fault makes different (a VDOM to enter).
    pub fn ssh(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Fault::VdomDropped => &[("vdom", super::fortigate::DROPPED_VDOM)],
            _ => &[],
        }
    }

    /// Commands typed in the fault's context before the device leaves it under the session.
    pub const CONTEXT_LASTS: usize = 3;
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                format!("unknown scenario {s:?} (one of: {})", names.join(", "))
            })
    }
}

/// A fault and where it applies: `hang`, `hang@sw1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub fault: Fault,
    pub target: Target,
}

impl Scenario {
    /// Parses `--scenario` values (`NAME` or `NAME@DEVICE`).
    pub fn parse_all(values: &[String]) -> Result<Vec<Scenario>, String> {
        values.iter().map(|s| s.parse()).collect()
    }

    pub fn new(fault: Fault) -> Self {
        Scenario {
            fault,
            target: fault.default_target(),
        }
    }

    pub fn applies_to(&self, device: &str) -> bool {
        match &self.target {
            Target::All => true,
            Target::Device(name) => name == device,
        }
    }
}

impl FromStr for Scenario {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('@') {
            Some((fault, device)) if !device.is_empty() => Ok(Scenario {
                fault: fault.parse()?,
                target: Target::Device(device.to_string()),
            }),
            Some(_) => Err(format!("scenario {s:?}: give a device name after @")),
            None => Ok(Scenario::new(s.parse()?)),
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::All => write!(f, "{}", self.fault),
            Target::Device(d) => write!(f, "{}@{d}", self.fault),
        }
    }
}

/// The faults switched on for one device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults(Vec<Fault>);

impl Faults {
    /// The faults of `scenarios` that apply to `device`.
    pub fn for_device(scenarios: &[Scenario], device: &str) -> Self {
        let mut faults: Vec<Fault> = scenarios
            .iter()
            .filter(|s| s.applies_to(device) && s.fault != Fault::Healthy)
            .map(|s| s.fault)
            .collect();
        faults.sort();
        faults.dedup();
        Faults(faults)
    }

    pub fn only(fault: Fault) -> Self {
        Faults(vec![fault])
    }

    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    /// Switches `fault` on or off.
    pub fn set(&mut self, fault: Fault, on: bool) {
        self.0.retain(|f| *f != fault);
        if on {
            self.0.push(fault);
            self.0.sort();
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_target() {
        let s: Scenario = "hang".parse().unwrap();
        assert_eq!(s.target, Target::Device("fw1".into()));
        let s: Scenario = "hang@sw1".parse().unwrap();
        assert!(s.applies_to("sw1") && !s.applies_to("fw1"));
        assert!("nope".parse::<Scenario>().is_err());
        assert!("hang@".parse::<Scenario>().is_err());
        for f in Fault::ALL {
            assert_eq!(f.name().parse::<Fault>().unwrap(), f);
        }
        let scenarios = vec![
            Scenario::new(Fault::Pager),
            "slow@fw1".parse().unwrap(),
            Scenario::new(Fault::Healthy),
        ];
        let faults = Faults::for_device(&scenarios, "fw1");
        assert!(faults.has(Fault::Pager) && faults.has(Fault::Slow) && !faults.has(Fault::Healthy));
        assert!(!Faults::for_device(&scenarios, "sw1").has(Fault::Slow));
    }
}
