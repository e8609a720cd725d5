//! The HA link tables an emulated cluster prints in `get system ha status` (`HBDEV stats:`,
//! `MONDEV stats:`), in the 7.x shape of Fortinet's 7.4 administration guide: per member, the
//! heartbeat ports ha1 and ha2 (`set hbdev "ha1" 0 "ha2" 0`) and the monitored trading ports x1
//! and x2. The counters run with the clock, as a live box's do: heartbeats at 5 packets a
//! second each way. Under `ha-heartbeat` the secondary's ha2 counts receive errors (4 a second:
//! a failing optic) and drops (one a second), so they grow between any two runs.

use super::super::clock;
use super::super::scenario::Fault;
use super::state::FgState;

/// Heartbeat packets per second on each heartbeat link.
const HB_PPS: f64 = 5.0;
/// Bytes per heartbeat packet (FGCP heartbeats are small).
const HB_BYTES: u64 = 548;

/// The `HBDEV stats:` and `MONDEV stats:` blocks for the primary `serial` and its `peer`.
pub fn tables(s: &FgState, peer: &str, updated: (u32, u32)) -> String {
    let up = (clock::now() - s.booted).max(0.0);
    let beats = (up * HB_PPS) as u64;
    let failing = s.faults.has(Fault::HaHeartbeat);
    let hb = |rx_errors: u64, rx_dropped: u64| {
        format!(
            "physical/10000full, up, rx-bytes/packets/dropped/errors={}/{beats}/{rx_dropped}/{rx_errors}, tx={}/{beats}/0/0",
            beats * HB_BYTES,
            beats * HB_BYTES
        )
    };
    // The feed's traffic enters on the primary's x1 and leaves on x2; the secondary only
    // receives (A-P: its monitored ports transmit nothing).
    let feed = (up * 2_000.0) as u64;
    let (ha2_errors, ha2_dropped) = if failing {
        ((up * 4.0) as u64, up as u64)
    } else {
        (0, 0)
    };
    let (serial, (mine, theirs)) = (&s.serial, updated);
    format!(
        "HBDEV stats:\n\
         \x20   {serial}(updated {mine} seconds ago):\n\
         \x20       ha1: {hb0}\n\
         \x20       ha2: {hb0}\n\
         \x20   {peer}(updated {theirs} seconds ago):\n\
         \x20       ha1: {hb0}\n\
         \x20       ha2: {hb2}\n\
         MONDEV stats:\n\
         \x20   {serial}(updated {mine} seconds ago):\n\
         \x20       x1: physical/10000full, up, rx-bytes/packets/dropped/errors={fb}/{feed}/0/0, tx={ab}/{acks}/0/0\n\
         \x20       x2: physical/10000full, up, rx-bytes/packets/dropped/errors={ab}/{acks}/0/0, tx={fb}/{feed}/0/0\n\
         \x20   {peer}(updated {theirs} seconds ago):\n\
         \x20       x1: physical/10000full, up, rx-bytes/packets/dropped/errors=102211/1022/0/0, tx=0/0/0/0\n\
         \x20       x2: physical/10000full, up, rx-bytes/packets/dropped/errors=99120/981/0/0, tx=0/0/0/0\n",
        hb0 = hb(0, 0),
        hb2 = hb(ha2_errors, ha2_dropped),
        fb = feed * 256,
        acks = feed / 100,
        ab = feed / 100 * 64,
    )
}
