//! The live capture on the trunk port: AF_PACKET, promiscuous, `SO_TIMESTAMPING` (hardware
//! when the NIC gives it, software otherwise, and the report says which), the VLAN from
//! `PACKET_AUXDATA` re-inserted into the frame, written as nanosecond pcap so the offline
//! analyser reads it like an exanic-capture or tcpdump file.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::cmsg::Stamp;
use super::frame;
use super::options::TsSource;
use super::pcap;
use super::sys::{self, HwtstampConfig, PacketSocket};
use super::units::Nanos;

/// How the capture went.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CaptureReport {
    pub frames: usize,
    pub hardware_stamps: usize,
    pub software_stamps: usize,
    pub unstamped: usize,
    /// Frames the kernel dropped before we read them (`PACKET_STATISTICS`).
    pub kernel_drops: u32,
    /// What happened when hardware stamping was asked for.
    pub hardware_note: String,
}

impl CaptureReport {
    pub fn source(&self) -> TsSource {
        match (self.hardware_stamps, self.software_stamps) {
            (0, 0) => TsSource::Unknown,
            (_, 0) => TsSource::Hardware,
            (0, _) => TsSource::Software,
            _ => TsSource::Mixed,
        }
    }
}

/// An open capture, ready before the first request leaves.
pub struct Capture {
    socket: PacketSocket,
    restore: Option<HwtstampConfig>,
    note: String,
    run: u16,
}

impl Capture {
    pub fn open(interface: &str, run: u16) -> std::io::Result<Capture> {
        let socket = PacketSocket::open(interface)?;
        socket.promiscuous()?;
        socket.auxdata()?;
        let _ = socket.ignore_outgoing();
        socket.timestamping(
            sys::TS_RX_HARDWARE | sys::TS_RAW_HARDWARE | sys::TS_RX_SOFTWARE | sys::TS_SOFTWARE,
        )?;
        let _ = socket.receive_buffer(16 << 20);
        socket.receive_timeout(Duration::from_millis(20))?;
        let (restore, note) = match socket.enable_hardware_rx() {
            Ok(Some(old)) => (
                Some(old),
                format!("hardware RX stamping enabled on {interface} for the run (restored after)"),
            ),
            Ok(None) => (
                None,
                format!("hardware RX stamping already on for {interface}"),
            ),
            Err(e) => (
                None,
                format!("no hardware time stamps on {interface} ({e}): software stamps"),
            ),
        };
        let _ = socket.statistics(); // reset the counters
        Ok(Capture {
            socket,
            restore,
            note,
            run,
        })
    }

    /// Captures until `stop` is set; returns the pcap bytes and the report.
    pub fn run(self, stop: Arc<AtomicBool>) -> std::io::Result<(Vec<u8>, CaptureReport)> {
        let mut writer = pcap::Writer::nano(Vec::with_capacity(1 << 20))?;
        let mut report = CaptureReport {
            hardware_note: self.note.clone(),
            ..CaptureReport::default()
        };
        let mut buf = vec![0u8; 2048];
        // Best effort: read promptly so the socket buffer never overflows on a busy machine.
        let _ = sys::realtime_priority(40);
        while !stop.load(Ordering::Relaxed) {
            let got = match self.socket.receive(&mut buf, 0) {
                Ok(got) => got,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    continue;
                }
                Err(e) => return Err(e),
            };
            if got.pkttype == sys::PACKET_OUTGOING {
                continue;
            }
            let data = &buf[..got.len];
            // Keep only this run's requests, like `exanic-capture ... udp dport 31999`.
            let ours = frame::parse(data)
                .ok()
                .and_then(|p| p.payload)
                .is_some_and(|p| p.run == self.run);
            if !ours {
                continue;
            }
            let ts: Nanos = match got.control.stamp() {
                Some(Stamp::Hardware(t)) => {
                    report.hardware_stamps += 1;
                    t
                }
                Some(Stamp::Software(t)) => {
                    report.software_stamps += 1;
                    t
                }
                None => {
                    report.unstamped += 1;
                    continue;
                }
            };
            let tagged;
            let bytes = match got.control.vlan {
                Some((tci, tpid)) => {
                    tagged = frame::insert_tag(data, tpid, tci);
                    &tagged[..]
                }
                None => data,
            };
            writer.write(ts, bytes)?;
            report.frames += 1;
        }
        report.kernel_drops = self
            .socket
            .statistics()
            .map(|(_, drops)| drops)
            .unwrap_or(0);
        if let Some(old) = self.restore {
            let _ = self.socket.restore_hardware(old);
        }
        Ok((writer.into_inner(), report))
    }
}
