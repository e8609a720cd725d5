//! A trading flow as a FortiGate baseline describes it (`expect.flows` in a firewall's device
//! file): which sessions belong to it and how to find them.
//!
//! ```yaml
//! flows:
//!   - name: md-unicast
//!     protocol: udp
//!     src: 10.10.1.10
//!     dst: 10.20.1.20
//!     dport: 5000
//!     policy: 1
//!     service: MD-UDP-5000
//!     max_pause_s: 300
//!   - name: md-multicast
//!     protocol: udp
//!     src: 10.10.1.10
//!     dst: 239.1.1.1          # a multicast destination makes it a multicast flow
//!     dport: 30001
//!     policy: 1               # multicast-policy id
//! ```

use std::net::IpAddr;

use serde::Deserialize;

use super::session_filter::SessionFilter;
use premarket_core::Seconds;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
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
    /// `fortigate.flows.offloaded`, multicast flows: what proves the flow offloaded.
    #[serde(default)]
    pub offload_proof: OffloadProof,
}

/// What proves a multicast flow offloaded. FortiOS 7.x documents no sign of an offloaded
/// multicast session in `diagnose sys mcast-session list` (only `npu-deny` on a path line, which
/// says offload was refused), so the session list alone can only say "not offloaded" or
/// "cannot tell".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OffloadProof {
    /// The session list must prove it: without `npu-deny` the check is ERROR "cannot tell".
    #[default]
    Session,
    /// The latency probe proves it (`probe.latency.offloaded`): the session list is read for
    /// `npu-deny` and for the session's policy, and the offload itself is left to the probe.
    Probe,
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
