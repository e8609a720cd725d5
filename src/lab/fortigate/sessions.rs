//! The emulated FortiGate's session table: the sessions the trading flows and some background
//! traffic would have, derived from the configuration and the scenario. The session filter
//! (`diagnose sys session filter ...`) is in `session_filter.rs`, the `diagnose sys session
//! list` rendering in `session_list.rs`.
//!
//! A socket-per-send sender makes thousands of sessions (10,000 in `new-source-port`, 200,000
//! in `huge-session-list`). Those are a [`Burst`]: session *i* is computed from *i*, so the
//! table is a few fixed sessions plus a formula, and a listing is made one session at a time
//! while the client reads it, never held whole.

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::sync::Arc;

use super::super::scenario::{Fault, Faults};
use super::super::topology::{self, Flow};
use super::config::Config;

/// How a session is forwarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Offloaded in the directions that carry traffic.
    Offloaded,
    /// On the CPU because the policy disables offload.
    DisabledByPolicy,
    /// On the CPU because it has not passed its first packets yet.
    NotEstablished,
    /// On the CPU because its interface samples sFlow (`no_ofld_reason: sflow`, seen in a real
    /// session list).
    SflowInterface,
    /// Local-in/out traffic (management), never offloaded.
    Local,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub proto: u8,
    pub src: Ipv4Addr,
    pub sport: u16,
    pub dst: Ipv4Addr,
    pub dport: u16,
    pub policy: u32,
    pub dev_in: u32,
    pub dev_out: u32,
    pub duration: u32,
    pub expire: u32,
    pub timeout: u32,
    pub org: (u64, u64),
    pub reply: (u64, u64),
    pub bidirectional: bool,
    pub path: Path,
    pub serial: u32,
}

impl Session {
    pub fn key(&self) -> (u8, Ipv4Addr, u16, Ipv4Addr, u16) {
        (self.proto, self.src, self.sport, self.dst, self.dport)
    }

    pub fn offloaded(&self) -> bool {
        self.path == Path::Offloaded
    }
}

fn flow_session(flow: &Flow, serial: u32) -> Session {
    Session {
        proto: flow.proto,
        src: Ipv4Addr::from(flow.src),
        sport: flow.sport,
        dst: Ipv4Addr::from(flow.dst),
        dport: flow.dport,
        policy: flow.policy,
        dev_in: topology::PORT_IN_INDEX,
        dev_out: topology::PORT_OUT_INDEX,
        duration: 5321,
        expire: 3594,
        timeout: 3600,
        // With offload the CPU sees (and counts) only the first two packets (lab notes).
        org: (92, 2),
        reply: (0, 0),
        bidirectional: flow.bidirectional,
        path: Path::Offloaded,
        serial,
    }
}

/// sFlow on the trading ingress interface: "disables all NP7 ... offloading for all traffic on
/// that interface" (Hardware Acceleration guide).
pub fn sflow_on_ingress(config: &Config) -> bool {
    config.entry_setting("system interface", topology::PORT_IN, "sflow-sampler") == Some("enable")
}

/// The 5-tuple that identifies a session (what `diagnose sys session clear` removes).
pub type Key = (u8, Ipv4Addr, u16, Ipv4Addr, u16);

/// Sessions of one sender that opens a new socket per send: session `i` is a function of `i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Burst {
    pub count: u32,
    /// The flow's own session; each burst session varies its source port, age and counters.
    template: Session,
    /// Idle timer of the sessions (seconds): expire counts down from it.
    timer: u32,
    /// How long the sender has been at it (seconds): the oldest session's duration.
    span: u32,
}

/// The ephemeral source ports a Linux sender draws from (32768-60999).
const EPHEMERAL_FIRST: u32 = 32_768;
const EPHEMERAL_COUNT: u32 = 28_232;

impl Burst {
    /// `count` sessions of `flow` made over the last `span` seconds, under the service's idle
    /// timer `idle` (`None`: the global 180 s, printed as `timeout=0`).
    fn of(flow: &Flow, idle: Option<u32>, count: u32, span: u32) -> Burst {
        let mut template = flow_session(flow, 0);
        template.timeout = idle.unwrap_or(0);
        Burst {
            count,
            template,
            timer: idle.unwrap_or(topology::GLOBAL_UDP_IDLE),
            span,
        }
    }

    /// Session `i` (0 = the newest).
    pub fn get(&self, i: u32) -> Session {
        let mut s = self.template.clone();
        // A stride prime to the range visits every port once before repeating. Past 28,232
        // sessions a 5-tuple repeats, which one source host cannot really do: see
        // `Fault::HugeSessionList`.
        s.sport = (EPHEMERAL_FIRST + (i.wrapping_mul(7_919)) % EPHEMERAL_COUNT) as u16;
        s.duration = (u64::from(i) * u64::from(self.span) / u64::from(self.count.max(1))) as u32;
        s.expire = self.timer.saturating_sub(s.duration);
        s.org = if i.is_multiple_of(3) {
            (92, 2)
        } else {
            (46, 1)
        };
        s.reply = (0, 0);
        s.path = Path::NotEstablished;
        s.serial = 0x0010_0000 + i;
        s
    }
}

/// The whole session table: fixed sessions, maybe a burst, minus the cleared ones.
#[derive(Clone, Debug)]
pub struct Table {
    pub fixed: Vec<Session>,
    pub burst: Option<Burst>,
    pub cleared: Arc<HashSet<Key>>,
    /// No session is older than the box (after `rebooted`): durations stop at its uptime.
    pub max_duration: u32,
}

/// Totals `diagnose sys session stat` and `get system performance status` print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub npu: usize,
    pub tcp: usize,
}

impl Table {
    /// Every session in list order: the burst's older half, the fixed sessions, the newer
    /// half (so the flow's own session sits in the middle of a huge listing).
    pub fn iter(&self) -> impl Iterator<Item = Session> + '_ {
        self.clone().into_sessions()
    }

    /// The same, owning the table (for a listing that outlives the state lock).
    pub fn into_sessions(self) -> impl Iterator<Item = Session> + Send + 'static {
        let Table {
            fixed,
            burst,
            cleared,
            max_duration,
        } = self;
        let n = burst.as_ref().map_or(0, |b| b.count);
        let half = n / 2;
        let older = burst.clone();
        let newer = burst;
        let burst_part = move |b: Option<Burst>, range: std::ops::Range<u32>| {
            range.filter_map(move |i| b.as_ref().map(|b| b.get(n - 1 - i)))
        };
        burst_part(older, 0..half)
            .chain(fixed)
            .chain(burst_part(newer, half..n))
            .filter(move |s| !cleared.contains(&s.key()))
            .map(move |mut s| {
                s.duration = s.duration.min(max_duration);
                s
            })
    }

    pub fn counts(&self) -> Counts {
        self.iter().fold(Counts::default(), |mut c, s| {
            c.total += 1;
            c.npu += usize::from(s.offloaded());
            c.tcp += usize::from(s.proto == 6);
            c
        })
    }
}

/// Every session on the box for this configuration and scenario.
pub fn table(config: &Config, faults: &Faults) -> Table {
    let md = &topology::MARKET_DATA;
    let mut sessions = Vec::new();
    let mut burst = None;
    let md_offload = config.entry_setting(
        "firewall policy",
        &md.policy.to_string(),
        "auto-asic-offload",
    ) != Some("disable");
    let idle = config
        .entry_setting("firewall service custom", md.service, "udp-idle-timer")
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|v| *v > 0);
    let timer = idle.unwrap_or(topology::GLOBAL_UDP_IDLE);
    if faults.has(Fault::NewSourcePort) {
        // A new socket per send at 1,000 sends a second for ten seconds: each packet is a
        // session of its own, still inside the first two packets that take the CPU.
        burst = Some(Burst::of(md, idle, NEW_SOURCE_PORT_SESSIONS, 10));
    } else if !faults.has(Fault::NotEstablished) {
        let mut s = flow_session(md, 0x0001_a2b3);
        match idle {
            Some(t) => {
                s.timeout = t;
                s.expire = t - 6;
            }
            None => {
                // The service leaves the idle timer to the global 180 s; the feed went quiet.
                s.timeout = 0;
                s.expire = if faults.has(Fault::IdleExpired) {
                    9
                } else {
                    topology::GLOBAL_UDP_IDLE - 6
                };
            }
        }
        if !md_offload {
            s.path = Path::DisabledByPolicy;
            // Every packet of the round through the CPU: 10000 packets of 46 bytes.
            s.org = (460_000, 10_000);
        } else if sflow_on_ingress(config) {
            s.path = Path::SflowInterface;
            s.org = (460_000, 10_000);
        }
        sessions.push(s);
        if faults.has(Fault::HugeSessionList) {
            // Another application on the feed host sends to the same address and port with a
            // socket per send, about 56 sends a second: over the service's idle timer that is
            // 200,000 live sessions on the feed's filter.
            burst = Some(Burst::of(md, idle, HUGE_SESSIONS, timer.saturating_sub(1)));
        }
    }
    let orders_offload = config.entry_setting(
        "firewall policy",
        &topology::ORDERS.policy.to_string(),
        "auto-asic-offload",
    ) != Some("disable");
    let mut orders = flow_session(&topology::ORDERS, 0x0001_a2b4);
    orders.org = (2_870, 41);
    orders.reply = (2_214, 38);
    if !orders_offload || sflow_on_ingress(config) {
        orders.path = if orders_offload {
            Path::SflowInterface
        } else {
            Path::DisabledByPolicy
        };
        orders.org = (1_486_221, 20_112);
        orders.reply = (1_102_554, 19_870);
    }
    sessions.push(orders);
    // Background: the admin's SSH login and the box's own NTP query (local traffic).
    sessions.push(Session {
        proto: 6,
        src: Ipv4Addr::new(192, 0, 2, 50),
        sport: 51514,
        dst: Ipv4Addr::new(192, 0, 2, 10),
        dport: 22,
        policy: u32::MAX,
        dev_in: 3,
        dev_out: 31,
        duration: 62,
        expire: 3598,
        timeout: 3600,
        org: (18_442, 121),
        reply: (40_118, 98),
        bidirectional: true,
        path: Path::Local,
        serial: 0x0001_a2c0,
    });
    sessions.push(Session {
        proto: 17,
        src: Ipv4Addr::new(192, 0, 2, 10),
        sport: 123,
        dst: Ipv4Addr::new(192, 0, 2, 123),
        dport: 123,
        policy: 0,
        dev_in: 31,
        dev_out: 3,
        duration: 14,
        expire: 166,
        timeout: 0,
        org: (76, 1),
        reply: (76, 1),
        bidirectional: true,
        path: Path::Local,
        serial: 0x0001_a2c1,
    });
    Table {
        fixed: sessions,
        burst,
        cleared: Arc::default(),
        max_duration: u32::MAX,
    }
}

/// Sessions of the feed in `new-source-port` (10 s of a sender at 1,000 sends a second).
pub const NEW_SOURCE_PORT_SESSIONS: u32 = 10_000;
/// Sessions of the neighbour in `huge-session-list`.
pub const HUGE_SESSIONS: u32 = 200_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_change_sessions() {
        let md = |faults: Faults| {
            let config = Config::new("fw1", &faults);
            table(&config, &faults)
                .iter()
                .filter(|s| s.dport == 5000)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            md(Faults::only(Fault::OffloadDisabled))[0].path,
            Path::DisabledByPolicy
        );
        assert!(md(Faults::only(Fault::NotEstablished)).is_empty());
        let burst = md(Faults::only(Fault::NewSourcePort));
        assert_eq!(burst.len(), 10_000);
        let ports: HashSet<u16> = burst.iter().map(|s| s.sport).collect();
        assert_eq!(
            ports.len(),
            10_000,
            "every session from another source port"
        );
        assert!(
            burst
                .iter()
                .all(|s| s.duration <= 10 && (1..=2).contains(&s.org.1))
        );
        assert!(burst.iter().all(|s| s.path == Path::NotEstablished));
        let idle = md(Faults::only(Fault::IdleExpired));
        assert_eq!((idle[0].timeout, idle[0].expire), (0, 9));
    }
}
