//! The emulated FortiGate's session table: the sessions the trading flows and some background
//! traffic would have, derived from the configuration and the scenario, the session filter
//! (`diagnose sys session filter ...`, kept per device like the real box may), and the
//! `diagnose sys session list` rendering in the FortiOS 7.x layout.
//!
//! A socket-per-send sender makes thousands of sessions (10,000 in `new-source-port`, 200,000
//! in `huge-session-list`). Those are a [`Burst`]: session *i* is computed from *i*, so the
//! table is a few fixed sessions plus a formula, and a listing is made one session at a time
//! while the client reads it, never held whole.

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::sync::Arc;

use super::super::device::Stream;

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

/// An inclusive range of a filter key.
type Range<T> = Option<(T, T)>;

/// `diagnose sys session filter` state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    vd: Option<i64>,
    sintf: Option<String>,
    dintf: Option<String>,
    proto: Range<u32>,
    src: Range<Ipv4Addr>,
    dst: Range<Ipv4Addr>,
    sport: Range<u32>,
    dport: Range<u32>,
    policy: Range<u32>,
    expire: Range<u32>,
    duration: Range<u32>,
}

fn parse_range<T: std::str::FromStr + PartialOrd + Copy>(args: &[&str]) -> Result<(T, T), String> {
    let bad = |w: &str| format!("command parse error before '{w}'");
    let lo: T = args
        .first()
        .ok_or_else(|| bad(""))?
        .parse()
        .map_err(|_| bad(args[0]))?;
    let hi: T = match args.get(1) {
        Some(w) => w.parse().map_err(|_| bad(w))?,
        None => lo,
    };
    if args.len() > 2 {
        return Err(bad(args[2]));
    }
    Ok((lo, hi))
}

fn interface_index(name: &str) -> Option<u32> {
    match name {
        n if n == topology::PORT_IN => Some(topology::PORT_IN_INDEX),
        n if n == topology::PORT_OUT => Some(topology::PORT_OUT_INDEX),
        "mgmt" => Some(3),
        _ => None,
    }
}

impl Filter {
    /// `diagnose sys session filter KEY ARGS...`; setting prints nothing.
    pub fn set(&mut self, key: &str, args: &[&str]) -> Result<(), String> {
        match key {
            "clear" => *self = Filter::default(),
            "vd" => self.vd = Some(parse_range::<i64>(args)?.0).filter(|v| *v >= 0),
            "sintf" | "dintf" => {
                let name = args.first().map(|a| a.trim_matches('"').to_string());
                let Some(name) = name.filter(|n| interface_index(n).is_some()) else {
                    return Err(format!(
                        "command parse error before '{}'",
                        args.first().unwrap_or(&"")
                    ));
                };
                if key == "sintf" {
                    self.sintf = Some(name);
                } else {
                    self.dintf = Some(name);
                }
            }
            "proto" => self.proto = Some(parse_range(args)?),
            "src" => self.src = Some(parse_range(args)?),
            "dst" => self.dst = Some(parse_range(args)?),
            "sport" => self.sport = Some(parse_range(args)?),
            "dport" => self.dport = Some(parse_range(args)?),
            "policy" => self.policy = Some(parse_range(args)?),
            "expire" => self.expire = Some(parse_range(args)?),
            "duration" => self.duration = Some(parse_range(args)?),
            other => return Err(format!("command parse error before '{other}'")),
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The bare `diagnose sys session filter`: the current filter, one key per line.
    pub fn readback(&self) -> String {
        fn r<T: std::fmt::Display>(v: &Range<T>) -> String {
            v.as_ref()
                .map(|(lo, hi)| format!("{lo}-{hi}"))
                .unwrap_or_else(|| "any".into())
        }
        let lines = [
            (
                "vd",
                self.vd
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "any".into()),
            ),
            ("sintf", self.sintf.clone().unwrap_or_else(|| "any".into())),
            ("dintf", self.dintf.clone().unwrap_or_else(|| "any".into())),
            ("proto", r(&self.proto)),
            ("proto-state", "any".into()),
            ("source ip", r(&self.src)),
            ("NAT'd source ip", "any".into()),
            ("dest ip", r(&self.dst)),
            ("source port", r(&self.sport)),
            ("NAT'd source port", "any".into()),
            ("dest port", r(&self.dport)),
            ("policy id", r(&self.policy)),
            ("expire", r(&self.expire)),
            ("duration", r(&self.duration)),
            ("state1", "any".into()),
            ("state2", "any".into()),
        ];
        let mut out = String::from("session filter:\n");
        for (k, v) in lines {
            out.push_str(&format!("        {k}: {v}\n"));
        }
        out
    }

    pub fn matches(&self, s: &Session) -> bool {
        fn within<T: PartialOrd>(r: &Range<T>, v: T) -> bool {
            r.as_ref().is_none_or(|(lo, hi)| *lo <= v && v <= *hi)
        }
        self.vd.is_none_or(|vd| vd == 0)
            && self
                .sintf
                .as_deref()
                .is_none_or(|n| interface_index(n) == Some(s.dev_in))
            && self
                .dintf
                .as_deref()
                .is_none_or(|n| interface_index(n) == Some(s.dev_out))
            && within(&self.proto, s.proto as u32)
            && within(&self.src, s.src)
            && within(&self.dst, s.dst)
            && within(&self.sport, s.sport as u32)
            && within(&self.dport, s.dport as u32)
            && within(&self.policy, s.policy)
            && within(&self.expire, s.expire)
            && within(&self.duration, s.duration)
    }
}

/// `diagnose sys session list` output for `sessions`.
#[cfg(test)]
pub fn render_list(sessions: &[&Session]) -> String {
    let mut out = String::new();
    for s in sessions {
        render_one(&mut out, s);
        out.push('\n');
    }
    out.push_str(&format!("total session {}\n", sessions.len()));
    out
}

/// `diagnose sys session list` of the sessions of `table` that `filter` matches, one session
/// per piece, made as the client reads, ending with the `total session N` line.
pub fn list_stream(table: Table, filter: Filter) -> Stream {
    let mut matched = 0usize;
    let mut sessions = table.into_sessions().filter(move |s| filter.matches(s));
    let mut done = false;
    Stream::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        match sessions.next() {
            Some(s) => {
                matched += 1;
                let mut out = String::with_capacity(1_400);
                render_one(&mut out, &s);
                out.push('\n');
                Some(out)
            }
            None => {
                done = true;
                Some(format!("total session {matched}\n"))
            }
        }
    }))
}

fn render_one(out: &mut String, s: &Session) {
    // One-way UDP (a feed, a first packet) stays in state 00; UDP with replies is 01.
    let proto_state = match (s.proto, s.reply.1 > 0) {
        (6, _) => "11",
        (_, true) => "01",
        (_, false) => "00",
    };
    let state = match s.path {
        Path::Offloaded => "may_dirty npu ",
        Path::NotEstablished => "may_dirty npu ",
        Path::DisabledByPolicy | Path::SflowInterface => "may_dirty ",
        Path::Local => "local may_dirty ",
    };
    let (org_pre, reply_post) = match s.path {
        Path::Local if s.dev_out == 31 => ("pre->in", "out->post"),
        Path::Local => ("out->post", "pre->in"),
        _ => ("pre->post", "pre->post"),
    };
    out.push_str(&format!(
        "session info: proto={} proto_state={proto_state} duration={} expire={} timeout={} flags=00000000 socktype=0 sockport=0 av_idx=0 use=3\n",
        s.proto, s.duration, s.expire, s.timeout
    ));
    out.push_str("origin-shaper=\nreply-shaper=\nper_ip_shaper=\n");
    out.push_str("class_id=0 ha_id=0 policy_dir=0 tunnel=/ vlan_cos=0/255\n");
    out.push_str(&format!("state={state}\n"));
    out.push_str(&format!(
        "statistic(bytes/packets/allow_err): org={}/{}/1 reply={}/{}/{} tuples=2\n",
        s.org.0,
        s.org.1,
        s.reply.0,
        s.reply.1,
        u8::from(s.reply.1 > 0)
    ));
    out.push_str("tx speed(Bps/kbps): 0/0 rx speed(Bps/kbps): 0/0\n");
    out.push_str(&format!(
        "orgin->sink: org {org_pre}, reply {reply_post} dev={}->{}/{}->{} gwy=0.0.0.0/0.0.0.0\n",
        s.dev_in, s.dev_out, s.dev_out, s.dev_in
    ));
    out.push_str(&format!(
        "hook=pre dir=org act=noop {}:{}->{}:{}(0.0.0.0:0)\n",
        s.src, s.sport, s.dst, s.dport
    ));
    out.push_str(&format!(
        "hook=post dir=reply act=noop {}:{}->{}:{}(0.0.0.0:0)\n",
        s.dst, s.dport, s.src, s.sport
    ));
    out.push_str("pos/(before,after) 0/(0,0), 0/(0,0)\n");
    out.push_str(&format!(
        "src_mac=00:0c:29:{:02x}:01:0a dst_mac=00:0c:29:{:02x}:02:14\n",
        s.dev_in, s.dev_out
    ));
    out.push_str(&format!(
        "misc=0 policy_id={} pol_uuid_idx={} auth_info=0 chk_client_info=0 vd=0:0\n",
        s.policy,
        if s.policy == u32::MAX {
            0
        } else {
            600 + s.policy
        }
    ));
    out.push_str(&format!(
        "serial={:08x} tos=ff/ff app_list=0 app=0 url_cat=0\n",
        s.serial
    ));
    out.push_str("rpdb_link_id=00000000 ngfwid=n/a\n");
    match s.path {
        Path::Offloaded if s.bidirectional => {
            out.push_str("npu_state=0x4000c00 ofld-O ofld-R\n");
            out.push_str("npu info: flag=0x81/0x81, offload=9/9, ips_offload=0/0, epid=130/131, ipid=131/130, vlan=0x0000/0x0000\n");
            out.push_str("vlifid=131/130, vtag_in=0x0000/0x0000 in_npu=1/1, out_npu=1/1, fwd_en=0/0, qid=2/2\n");
        }
        Path::Offloaded => {
            out.push_str("npu_state=0x4000400 ofld-O\n");
            out.push_str("npu info: flag=0x81/0x00, offload=9/0, ips_offload=0/0, epid=130/0, ipid=131/0, vlan=0x0000/0x0000\n");
            out.push_str("vlifid=131/0, vtag_in=0x0000/0x0000 in_npu=1/0, out_npu=1/0, fwd_en=0/0, qid=2/0\n");
        }
        Path::DisabledByPolicy => {
            out.push_str("npu_state=0x4000001 no_offload\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  disabled-by-policy\n");
        }
        Path::NotEstablished => {
            out.push_str("npu_state=0x4000000\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  not-established\n");
        }
        Path::SflowInterface => {
            out.push_str("npu_state=0x4000000\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  sflow\n");
        }
        Path::Local => {
            out.push_str("npu_state=0x4000000\n");
            out.push_str("no_ofld_reason:  local\n");
        }
    }
}

fn push_no_npu(out: &mut String) {
    out.push_str("npu info: flag=0x00/0x00, offload=0/0, ips_offload=0/0, epid=0/0, ipid=0/0, vlan=0x0000/0x0000\n");
    out.push_str(
        "vlifid=0/0, vtag_in=0x0000/0x0000 in_npu=0/0, out_npu=0/0, fwd_en=0/0, qid=0/0\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_set_readback_match() {
        let config = Config::new("fw1", &Faults::default());
        let sessions = table(&config, &Faults::default());
        let mut f = Filter::default();
        assert!(f.readback().contains("        source ip: any\n"));
        f.set("src", &["10.10.1.10"]).unwrap();
        f.set("dport", &["5000"]).unwrap();
        f.set("proto", &["17"]).unwrap();
        assert!(
            f.readback()
                .contains("        source ip: 10.10.1.10-10.10.1.10\n")
        );
        assert!(f.readback().contains("        dest port: 5000-5000\n"));
        let hits: Vec<Session> = sessions.iter().filter(|s| f.matches(s)).collect();
        assert_eq!(hits.len(), 1);
        let text = render_list(&hits.iter().collect::<Vec<_>>());
        assert!(
            text.contains("npu_state=0x4000400 ofld-O\n") && text.ends_with("total session 1\n"),
            "{text}"
        );
        // The feed is one-way UDP: FortiOS keeps it in proto_state 00.
        assert!(
            text.starts_with("session info: proto=17 proto_state=00 "),
            "{text}"
        );
        assert_eq!(list_stream(sessions, f.clone()).collect_text(), text);
        assert!(f.set("bogus", &[]).is_err());
        assert!(f.set("dport", &["x"]).is_err());
        f.set("clear", &[]).unwrap();
        assert!(f.is_empty());
    }

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

    #[test]
    fn a_huge_list_is_made_lazily_with_the_flow_in_the_middle() {
        let faults = Faults::only(Fault::HugeSessionList);
        let t = table(&Config::new("fw1", &faults), &faults);
        let mut f = Filter::default();
        for (k, v) in [
            ("proto", "17"),
            ("src", "10.10.1.10"),
            ("dst", "10.20.1.20"),
            ("dport", "5000"),
        ] {
            f.set(k, &[v]).unwrap();
        }
        let mut pieces = list_stream(t.clone(), f);
        let mut count = 0usize;
        let mut offloaded_at = None;
        let mut last = String::new();
        for piece in pieces.by_ref() {
            if piece.contains("ofld-O") {
                offloaded_at = Some(count);
            }
            count += 1;
            last = piece;
        }
        assert_eq!(last, "total session 200001\n");
        assert_eq!(count, 200_002);
        let at = offloaded_at.unwrap();
        assert!((90_000..110_000).contains(&at), "{at}");
        assert_eq!(t.counts().total, 200_004);
    }
}
