//! The live run: open the capture first, send on the schedule, stop a grace period after the
//! last request, write the capture as nanosecond pcap and analyse that file with the offline
//! code path (one source of truth for the figures).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::baseline::LiveSource;
use super::capture::Capture;
use super::figures::Analysis;
use super::frame::FrameSpec;
use super::offline::{self, AnalyzeError};
use super::options::Options;
use super::sender::{self, Schedule};
use super::sys::{self, PacketSocket};
use super::units::{Nanos, Port};

// Kept in the analysis JSON, so named beside it; reachable here too.
pub use super::figures::LiveFigures;

/// One measurement to make.
#[derive(Clone, Debug)]
pub struct LivePlan {
    pub tx: String,
    pub rx: String,
    pub schedule: Schedule,
    /// How long to keep capturing after the last request (the slowest copy must arrive).
    pub grace: Nanos,
    /// Where to keep the capture (a temporary file otherwise).
    pub out: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{interface}: {source}")]
    Socket {
        interface: String,
        source: std::io::Error,
    },
    #[error("capture on {interface} failed: {source}")]
    Capture {
        interface: String,
        source: std::io::Error,
    },
    #[error("capture thread stopped unexpectedly")]
    Thread,
    #[error("cannot write the capture {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Analyze(#[from] AnalyzeError),
}

/// A run id for the payload, so one run's capture ignores another's frames.
pub fn run_id() -> u16 {
    (sys::realtime().0 as u64 ^ u64::from(std::process::id())) as u16
}

/// Sends, captures, analyses.
pub fn measure(plan: &LivePlan, options: &Options) -> Result<Analysis, LiveError> {
    let capture =
        Capture::open(&plan.rx, plan.schedule.run).map_err(|source| LiveError::Socket {
            interface: plan.rx.clone(),
            source,
        })?;
    let tx = PacketSocket::open(&plan.tx).map_err(|source| LiveError::Socket {
        interface: plan.tx.clone(),
        source,
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let capturing = std::thread::spawn(move || capture.run(flag));
    let send = sender::send(&tx, &plan.schedule);
    sys::sleep_until(sys::monotonic() + plan.grace);
    stop.store(true, Ordering::Relaxed);
    let (bytes, capture) = capturing
        .join()
        .map_err(|_| LiveError::Thread)?
        .map_err(|source| LiveError::Capture {
            interface: plan.rx.clone(),
            source,
        })?;
    let path = plan.out.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "premarket-probe-{}-{}.pcap",
            std::process::id(),
            plan.schedule.run
        ))
    });
    // Never through a link planted at that (guessable) name.
    premarket_files::write_atomic(&path, &bytes).map_err(|e| LiveError::Write {
        path: path.clone(),
        source: e.into_io(),
    })?;
    let mut options = options.clone();
    options.timestamps = capture.source();
    let mut analysis = offline::analyze_files(std::slice::from_ref(&path), &options)?;
    let l = &send.lateness;
    let show = |v: Option<Nanos>| v.map_or("-".to_string(), |v| v.to_string());
    analysis.notes.push(format!(
        "sent {} of {} ({} errors{}; {}); send lateness median {}, p99 {}, max {}",
        send.sent,
        plan.schedule.count,
        send.errors,
        send.first_error
            .as_ref()
            .map_or(String::new(), |e| format!(": {e}")),
        send.realtime,
        show(l.median_ns),
        show(l.p99_ns),
        show(l.max_ns)
    ));
    analysis.notes.push(format!(
        "captured {} frames on {} ({} hardware, {} software stamps, {} unstamped, {} kernel drops); {}",
        capture.frames, plan.rx, capture.hardware_stamps, capture.software_stamps, capture.unstamped, capture.kernel_drops, capture.hardware_note
    ));
    if analysis.requests < send.sent {
        analysis.notes.push(format!(
            "sent {} requests but the capture saw {} before the firewall: the switch or the capture missed some",
            send.sent, analysis.requests
        ));
    }
    if capture.kernel_drops > 0 {
        analysis.notes.push(
            "the kernel dropped captured frames: lost pairs may be capture loss, not firewall loss"
                .into(),
        );
    }
    analysis.live = Some(LiveFigures {
        send,
        capture,
        capture_file: path.display().to_string(),
    });
    Ok(analysis)
}

/// The live source of a probe device in a site (`source: live:`), one round.
pub fn measure_source(source: &LiveSource, options: &Options) -> Result<Analysis, LiveError> {
    let mut template = FrameSpec::default();
    if let Some(p) = source.src_port {
        template.sport = Port(p);
    }
    let plan = LivePlan {
        tx: source.tx.clone(),
        rx: source.rx.clone(),
        schedule: Schedule {
            count: source.count,
            interval: Nanos::from_micros(source.interval_us as i64),
            template,
            new_port_per_packet: false,
            run: run_id(),
            round: 0,
            spin: Nanos(200_000),
            priority: 50,
            pause: None,
        },
        grace: Nanos(200_000_000),
        out: source.out.clone(),
    };
    measure(&plan, options)
}
