//! What a firewall should look like (`expect:` in a FortiGate device file).
//!
//! ```yaml
//! expect:
//!   version: { exact: 7.6.7 }
//!   ha: { mode: standalone }
//!   cpu_max_percent: 60
//!   memory_max_percent: 75
//!   npu_sessions_min: 1
//!   setup_rate_max: 200
//!   idle_margin_s: 60
//!   flows:
//!     - name: md-unicast
//!       protocol: udp
//!       src: 10.10.1.10
//!       dst: 10.20.1.20
//!       dport: 5000
//!       policy: 1
//!       service: MD-UDP-5000
//!       max_pause_s: 300
//!     - name: md-multicast
//!       protocol: udp
//!       src: 10.10.1.10
//!       dst: 239.1.1.1          # a multicast destination makes it a multicast flow
//!       dport: 30001
//!       policy: 1               # multicast-policy id
//! ```

use std::fmt;
use std::net::IpAddr;

use serde::Deserialize;

use super::commands::SessionFilter;
use crate::config::VersionPin;

/// A share of a resource, 0-100.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Deserialize)]
#[serde(transparent)]
pub struct Percent(pub f64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.0)
    }
}

/// A duration in whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(transparent)]
pub struct Seconds(pub u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", self.0)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `fortigate.version.pinned`: `{ exact: 7.6.7 }` or `{ allowed: [..] }`.
    #[serde(default)]
    pub version: Option<VersionPin>,
    /// `fortigate.ha.state`.
    #[serde(default)]
    pub ha: Option<HaExpect>,
    /// `fortigate.cpu.ceiling`: highest acceptable CPU use (100 - idle).
    #[serde(default)]
    pub cpu_max_percent: Option<Percent>,
    /// `fortigate.memory.ceiling`.
    #[serde(default)]
    pub memory_max_percent: Option<Percent>,
    /// `fortigate.sessions.npu`: fewest sessions the NPU should hold before the open.
    #[serde(default)]
    pub npu_sessions_min: Option<u64>,
    /// `fortigate.sessions.npu`: most new sessions per second (a rise means packets on the CPU).
    #[serde(default)]
    pub setup_rate_max: Option<u64>,
    /// `fortigate.session.idle-margin`: least idle time a UDP trading session must have left.
    #[serde(default)]
    pub idle_margin_s: Option<Seconds>,
    /// The trading flows that must be offloaded.
    #[serde(default)]
    pub flows: Vec<Flow>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaExpect {
    pub mode: HaMode,
    /// Cluster size, when it should be checked.
    #[serde(default)]
    pub members: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum HaMode {
    #[serde(rename = "standalone")]
    Standalone,
    #[serde(rename = "a-p")]
    ActivePassive,
    #[serde(rename = "a-a")]
    ActiveActive,
}

impl HaMode {
    /// As `get system ha status` prints it (after normalising `HA A-P` to `a-p`).
    pub fn as_str(self) -> &'static str {
        match self {
            HaMode::Standalone => "standalone",
            HaMode::ActivePassive => "a-p",
            HaMode::ActiveActive => "a-a",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    #[default]
    Udp,
    Tcp,
}

impl Protocol {
    pub fn number(self) -> u8 {
        match self {
            Protocol::Udp => 17,
            Protocol::Tcp => 6,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Udp => "udp",
            Protocol::Tcp => "tcp",
        }
    }
}

/// One trading flow. A multicast `dst` (224.0.0.0/4) makes it a multicast flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    #[serde(default)]
    pub protocol: Protocol,
    #[serde(default)]
    pub src: Option<IpAddr>,
    pub dst: IpAddr,
    /// Only used to describe the flow; the session query never narrows by source port, so a
    /// flow that opens a new port per send is seen.
    #[serde(default)]
    pub sport: Option<u16>,
    #[serde(default)]
    pub dport: Option<u16>,
    /// The firewall policy (or multicast-policy) id the flow must match.
    #[serde(default)]
    pub policy: Option<u32>,
    /// `fortigate.service.udp-idle`: the `firewall service custom` the flow uses.
    #[serde(default)]
    pub service: Option<String>,
    /// `fortigate.service.udp-idle`: the longest pause of the flow during trading.
    #[serde(default)]
    pub max_pause_s: Option<Seconds>,
    /// `fortigate.flows.single-session`: how many sessions the flow may have (default 1).
    #[serde(default)]
    pub max_sessions: Option<usize>,
    /// `fortigate.session.idle-margin`: overrides the device-wide `idle_margin_s`.
    #[serde(default)]
    pub idle_margin_s: Option<Seconds>,
}

impl Flow {
    pub fn is_multicast(&self) -> bool {
        self.dst.is_multicast()
    }

    /// The session filter that lists this (unicast) flow's sessions.
    pub fn filter(&self) -> SessionFilter {
        SessionFilter {
            proto: self.protocol.number(),
            src: self.src,
            dst: Some(self.dst),
            dport: self.dport,
        }
    }

    /// `md-unicast (udp 10.10.1.10 -> 10.20.1.20:5000)`
    pub fn describe(&self) -> String {
        let src = self.src.map_or("any".to_string(), |s| match self.sport {
            Some(p) => format!("{s}:{p}"),
            None => s.to_string(),
        });
        let dst = match self.dport {
            Some(p) => format!("{}:{p}", self.dst),
            None => self.dst.to_string(),
        };
        format!("{} ({} {src} -> {dst})", self.name, self.protocol.name())
    }
}
