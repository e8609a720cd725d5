//! The sender: numbered 64-byte UDP requests on an absolute schedule.
//!
//! Request i is due at t0 + i x interval on CLOCK_MONOTONIC, so one late send does not delay
//! the rest. The thread sleeps (absolute `clock_nanosleep`, timer slack 1 ns) until a short
//! stretch before the deadline, then spins; how late each send was is recorded and reported.
//! Lateness does not bias the latency (both copies descend from the same transmission); it
//! only changes the offered load.

use serde::Serialize;

use super::frame::{self, FrameSpec, Payload};
use super::stats::Summary;
use super::sys::{self, PacketSocket};
use super::units::{Nanos, Port};

/// What to send.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub count: usize,
    pub interval: Nanos,
    pub template: FrameSpec,
    /// Source port = base + i (wrapping within 20000-59999): every packet a new session.
    pub new_port_per_packet: bool,
    pub run: u16,
    pub round: u8,
    /// Spin this long before each deadline instead of sleeping.
    pub spin: Nanos,
    /// SCHED_FIFO priority for the sending thread (0: normal scheduling).
    pub priority: i32,
    /// Insert one pause of this length after this many requests (to show idle expiry).
    pub pause: Option<(usize, Nanos)>,
}

/// How the sending went.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SendReport {
    pub sent: usize,
    pub errors: usize,
    pub first_error: Option<String>,
    /// Whether the thread ran under SCHED_FIFO (else why not).
    pub realtime: String,
    /// Send time minus deadline, nearest-rank.
    pub lateness: Summary,
}

/// Sends the schedule on `socket`; returns when the last request is out.
pub fn send(socket: &PacketSocket, schedule: &Schedule) -> SendReport {
    sys::tight_timer_slack();
    let realtime = match schedule.priority {
        0 => "normal scheduling".into(),
        p => match sys::realtime_priority(p) {
            Ok(()) => format!("SCHED_FIFO {p}"),
            Err(e) => format!("normal scheduling (SCHED_FIFO refused: {e})"),
        },
    };
    let mut report = SendReport {
        realtime,
        ..SendReport::default()
    };
    let mut lateness = Vec::with_capacity(schedule.count);
    let t0 = sys::monotonic() + Nanos(5_000_000);
    let mut spec = schedule.template;
    for i in 0..schedule.count {
        let mut due = t0 + Nanos(schedule.interval.0.saturating_mul(i as i64));
        if let Some((after, length)) = schedule.pause
            && i >= after
        {
            due = due + length;
        }
        if schedule.new_port_per_packet {
            spec.sport =
                Port(20_000 + ((usize::from(schedule.template.sport.0) + i) % 40_000) as u16);
        }
        let payload = Payload {
            run: schedule.run,
            round: schedule.round,
            flags: 0,
            seq: i as u64,
        };
        let frame = frame::build(&spec, &payload);
        let wake = due - schedule.spin;
        if sys::monotonic() < wake {
            sys::sleep_until(wake);
        }
        let mut now = sys::monotonic();
        while now < due {
            std::hint::spin_loop();
            now = sys::monotonic();
        }
        lateness.push(now - due);
        match socket.send(&frame) {
            Ok(()) => report.sent += 1,
            Err(e) => {
                report.errors += 1;
                report.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    report.lateness = Summary::of(lateness);
    report
}
