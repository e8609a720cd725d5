//! A "switch + firewall" emulator for the live test (`premarket probe emulate`, hidden).
//!
//! It sits between the probe's two interfaces: it busy-polls the sender's link, and for every
//! probe request sends copy A at once tagged with the before-VLAN (the switch flooding it to
//! the trunk) and copy B after the firewall's delay tagged with the after-VLAN. The tags are
//! inserted in user space because this kernel has no VLAN devices. The firewall model: the
//! first K packets of a session (5-tuple) take the slow path, later ones the fast path; a
//! session idle longer than the idle timer is gone; with offload off every packet is slow.
//! Delays are scaled to what veth can show (50 us fast, 500 us slow by default).
//!
//! Ground truth: the software TX stamp of both sends (error queue), written per request to
//! `--truth` as CSV `seq,round,tx_before_ns,tx_after_ns,slow`, so the test can compare the
//! probe's figures with what the emulator actually did.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::io::Write;
use std::path::PathBuf;

use premarket_probe::Nanos;
use premarket_probe::frame::{self, FiveTuple};
use premarket_probe::sys::{self, PacketSocket};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The interface facing the sender.
    #[arg(long = "in", value_name = "IF")]
    pub input: String,
    /// The interface facing the capture (the trunk).
    #[arg(long = "out", value_name = "IF")]
    pub output: String,
    #[arg(long, default_value_t = 10)]
    pub before_vlan: u16,
    #[arg(long, default_value_t = 20)]
    pub after_vlan: u16,
    #[arg(long, default_value_t = 50)]
    pub fast_us: i64,
    #[arg(long, default_value_t = 500)]
    pub slow_us: i64,
    /// Packets of a new session that take the slow path.
    #[arg(long, default_value_t = 2)]
    pub first: usize,
    /// A session idle longer than this is deleted.
    #[arg(long, default_value_t = 180_000)]
    pub idle_ms: i64,
    /// Offload on (sessions go fast after their first packets) or off (every packet slow).
    #[arg(long, default_value = "on")]
    pub mode: String,
    /// Read the mode from this file (re-read every 20 ms; a change also clears the sessions,
    /// like the lab's session clear between rounds).
    #[arg(long)]
    pub mode_file: Option<PathBuf>,
    /// Write the ground truth here.
    #[arg(long)]
    pub truth: Option<PathBuf>,
    /// Touched once the sockets are open.
    #[arg(long)]
    pub ready: Option<PathBuf>,
    /// Stop after this long.
    #[arg(long, default_value_t = 30.0)]
    pub duration_s: f64,
    /// Stop after forwarding this many requests.
    #[arg(long)]
    pub count: Option<usize>,
    /// SCHED_FIFO priority of the forwarding loop.
    #[arg(long, default_value_t = 60)]
    pub priority: i32,
}

struct Pending {
    frame: Vec<u8>,
    seq: u64,
    round: u8,
    tx_before: Nanos,
    slow: bool,
}

struct Session {
    packets: usize,
    last: Nanos,
}

/// Waits for the TX stamp of the frame just sent (veth stamps in the sender's call chain).
fn tx_stamp(socket: &PacketSocket, buf: &mut [u8]) -> Option<Nanos> {
    for _ in 0..100_000 {
        match socket.receive(buf, libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT) {
            Ok(r) => return r.control.software,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::hint::spin_loop(),
            Err(_) => return None,
        }
    }
    None
}

/// Why the emulator stopped: the interface or file it could not use.
#[derive(Debug, thiserror::Error)]
#[error("emulator: {0}")]
pub struct WireError(String);

fn io(what: &str) -> impl Fn(std::io::Error) -> WireError + '_ {
    move |e| WireError(format!("{what}: {e}"))
}

/// Forwards until the duration ends (or an interface fails).
pub fn run(a: Args) -> Result<(), WireError> {
    let rx = PacketSocket::open(&a.input).map_err(io(&a.input))?;
    rx.promiscuous().map_err(io("promiscuous"))?;
    let _ = rx.ignore_outgoing();
    let tx = PacketSocket::open(&a.output).map_err(io(&a.output))?;
    let _ = tx.ignore_outgoing();
    tx.timestamping(sys::TS_TX_SOFTWARE | sys::TS_SOFTWARE | sys::TS_OPT_TSONLY | sys::TS_OPT_ID)
        .map_err(io("SO_TIMESTAMPING"))?;
    let mut truth = match &a.truth {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(io("truth file"))?,
        )),
        None => None,
    };
    if let Some(t) = truth.as_mut() {
        let _ = writeln!(t, "seq,round,tx_before_ns,tx_after_ns,slow");
    }
    if let Some(r) = &a.ready {
        std::fs::write(r, b"ready\n").map_err(io("ready file"))?;
    }
    let read_mode = |current: &str| -> String {
        a.mode_file
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| current.to_string())
    };
    let mut mode = read_mode(&a.mode);
    let mut mode_checked = sys::monotonic();
    let end = sys::monotonic() + Nanos::from_secs_f64(a.duration_s);
    let (fast, slow, idle) = (
        Nanos::from_micros(a.fast_us),
        Nanos::from_micros(a.slow_us),
        Nanos(a.idle_ms * 1_000_000),
    );
    let mut sessions: HashMap<FiveTuple, Session> = HashMap::new();
    let mut queue: BinaryHeap<Reverse<(Nanos, u64)>> = BinaryHeap::new();
    let mut pending: HashMap<u64, Pending> = HashMap::new();
    let mut next_id = 0u64;
    let mut forwarded = 0usize;
    let mut buf = vec![0u8; 2048];
    let mut errbuf = vec![0u8; 256];
    if let Err(e) = sys::realtime_priority(a.priority) {
        // Not eprintln!: a closed stderr must not panic the emulator.
        let _ = writeln!(
            std::io::stderr(),
            "emulator: no realtime priority ({e}): delays will show this machine's load"
        );
    }
    loop {
        let now = sys::monotonic();
        if now > end || a.count.is_some_and(|c| forwarded >= c && queue.is_empty()) {
            break;
        }
        while let Some(Reverse((due, id))) = queue.peek().copied() {
            if due > now {
                break;
            }
            queue.pop();
            let Some(p) = pending.remove(&id) else {
                continue;
            };
            if tx.send(&p.frame).is_ok() {
                let after = tx_stamp(&tx, &mut errbuf);
                if let (Some(t), Some(after)) = (truth.as_mut(), after) {
                    let _ = writeln!(
                        t,
                        "{},{},{},{},{}",
                        p.seq,
                        p.round,
                        p.tx_before.0,
                        after.0,
                        u8::from(p.slow)
                    );
                }
            }
        }
        if now - mode_checked > Nanos(20_000_000) {
            mode_checked = now;
            let m = read_mode(&mode);
            if m != mode {
                mode = m;
                sessions.clear();
            }
        }
        // Sleep in ppoll until a frame comes or shortly before the next copy is due, then spin.
        let horizon = queue.peek().map_or(Nanos(2_000_000), |Reverse((due, _))| {
            *due - now - Nanos(30_000)
        });
        if horizon > Nanos(20_000) {
            let _ = rx.wait_readable(horizon.min(Nanos(2_000_000)));
        }
        let got = match rx.receive(&mut buf, libc::MSG_DONTWAIT) {
            Ok(got) => got,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::hint::spin_loop();
                continue;
            }
            Err(e) => {
                return Err(WireError(format!("receive: {e}")));
            }
        };
        if got.pkttype == sys::PACKET_OUTGOING {
            continue;
        }
        let data = &buf[..got.len];
        let Ok(parsed) = frame::parse(data) else {
            continue;
        };
        let (Some(payload), Some(flow)) = (parsed.payload, parsed.flow) else {
            continue;
        };
        let arrived = sys::monotonic();
        let a_copy = frame::insert_tag(data, 0x8100, a.before_vlan);
        let b_copy = frame::insert_tag(data, 0x8100, a.after_vlan);
        if tx.send(&a_copy).is_err() {
            continue;
        }
        let tx_before = tx_stamp(&tx, &mut errbuf).unwrap_or(Nanos::ZERO);
        let session = sessions.entry(flow).or_insert(Session {
            packets: 0,
            last: arrived,
        });
        if arrived - session.last > idle {
            session.packets = 0;
        }
        session.last = arrived;
        let is_slow = mode != "on" || session.packets < a.first;
        session.packets += 1;
        let delay = if is_slow { slow } else { fast };
        pending.insert(
            next_id,
            Pending {
                frame: b_copy,
                seq: payload.seq,
                round: payload.round,
                tx_before,
                slow: is_slow,
            },
        );
        queue.push(Reverse((arrived + delay, next_id)));
        next_id += 1;
        forwarded += 1;
    }
    if let Some(mut t) = truth {
        t.flush().map_err(io("truth file"))?;
    }
    let _ = writeln!(
        std::io::stderr(),
        "emulator: forwarded {forwarded} requests"
    );
    Ok(())
}
