//! One session of `diagnose sys session list` as the checks read it: the original direction's
//! 5-tuple, the policy, the timers and counters, and whether (and on what printed evidence) each
//! direction is offloaded. The scanner fills it; the whole-list reader, the summary and the
//! checks read it.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::fortigate::ttl::Ttl;

/// The most sessions a `total session` line may claim: 2^32 - 1. FortiOS numbers policies and
/// counters in 32 bits, and no FortiGate's session table comes near four billion entries; a
/// larger count is a garbled line, not a box.
pub const MAX_SESSIONS: u64 = u32::MAX as u64;

/// One session, original direction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// IP protocol number (6 TCP, 17 UDP, 1 ICMP).
    pub proto: Option<u8>,
    /// `proto_state=` as printed (two hex digits: `01` a UDP session that saw both directions,
    /// `00` one-way UDP such as a market-data feed).
    #[serde(default)]
    pub proto_state: Option<String>,
    pub src: Option<IpAddr>,
    pub sport: Option<u16>,
    pub dst: Option<IpAddr>,
    pub dport: Option<u16>,
    /// `4294967295` is local/implicit traffic.
    pub policy_id: Option<u32>,
    /// Seconds since the session was created.
    pub duration: Option<u64>,
    /// Seconds left before the session is removed for being idle, or `never` (`session-ttl
    /// never`); JSON: a number or `"never"`.
    pub expire: Option<Ttl>,
    /// Configured TTL: seconds or `never`; `0` for UDP/ICMP means the idle timer applies.
    pub timeout: Option<Ttl>,
    /// Packets counted in each direction (on NP7 only those the CPU saw, unless traffic logging
    /// keeps per-session accounting).
    pub org_packets: Option<u64>,
    pub reply_packets: Option<u64>,
    /// `npu_state` as printed, with its labels (`0x4000c00 ofld-O ofld-R`).
    pub npu_state: Option<String>,
    /// `npu info: offload=O/R` (NP type per direction, 0 when not offloaded).
    pub npu_offload: Option<[u64; 2]>,
    pub offload_org: bool,
    pub offload_reply: bool,
    /// Which printed field the offload decision rests on.
    pub offload_basis: OffloadBasis,
    /// `no_ofld_reason:` words (`disabled-by-policy`, `offload-denied`, `helper`, ...).
    pub no_ofld_reason: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffloadBasis {
    /// `ofld-O` / `ofld-R` / `no_offload` printed after `npu_state`.
    Labels,
    /// Bits 0x400 / 0x800 of `npu_state`.
    NpuState,
    /// `npu info: offload=O/R`.
    NpuInfo,
    /// No offload information printed at all (a VM, or a box without an NP).
    #[default]
    Nothing,
}

impl Session {
    /// Offloaded in every direction that carried traffic: the original always (it created the
    /// session), the reply when it counted packets.
    pub fn offloaded(&self) -> bool {
        self.offload_org && (self.offload_reply || self.reply_packets.unwrap_or(0) == 0)
    }
}
