//! What an analysis finds, as the report and other tools read it: the [`Analysis`] (its JSON is
//! the probe's output contract), the packets it lists, the pauses and slow packets it counts,
//! the verdict's [`Kind`], and a live run's sender and capture figures.
//!
//! These are named apart from the code that computes them ([`super::analysis`],
//! [`super::session`], [`super::verdict`], [`super::live`]) so that each of those reads and
//! fills the same words without importing the others.

use serde::Serialize;

use super::calibration::Calibration;
use super::capture::CaptureReport;
use super::options::TsSource;
use super::request::LostRequest;
use super::samples::Samples;
use super::sender::SendReport;
use super::stats::{Bin, Summary};
use super::units::Nanos;

/// A packet listed on its own (session start, after a pause, or slow in the steady state).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listed {
    /// Position among the pairs, in send order (0-based).
    pub index: usize,
    pub seq: Option<u64>,
    pub flow: String,
    pub latency_ns: Nanos,
    pub slow: bool,
}

/// A gap longer than the idle timer in one flow, and how the packets after it fared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pause {
    pub index: usize,
    pub flow: String,
    pub gap_ns: Nanos,
    pub after_ns: Vec<Nanos>,
    pub slow_after: bool,
}

/// Slow packets and where they fall.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Slow {
    pub threshold_ns: Nanos,
    pub total: usize,
    pub first: usize,
    pub after_pause: usize,
    pub steady: usize,
    /// Slow steady-state packets over all steady-state packets.
    pub steady_fraction: f64,
    /// Up to 20 slow steady-state packets.
    pub steady_examples: Vec<Listed>,
}

/// The verdict: what the latencies say about the firewall ([`super::verdict`] decides it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Offloaded,
    CpuPath,
    NewSessionPerPacket,
    IdleExpiry,
    Loss,
    Inconclusive,
    FirstPacketsNotSlow,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Offloaded => "offloaded",
            Kind::CpuPath => "cpu_path",
            Kind::NewSessionPerPacket => "new_session_per_packet",
            Kind::IdleExpiry => "idle_expiry",
            Kind::Loss => "loss",
            Kind::Inconclusive => "inconclusive",
            Kind::FirstPacketsNotSlow => "first_packets_not_slow",
        }
    }

    /// Whether the steady state was measured offloaded.
    pub fn is_offloaded(self) -> bool {
        matches!(self, Kind::Offloaded | Kind::FirstPacketsNotSlow)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the sender and the capture reported, kept in the analysis JSON under `live`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveFigures {
    pub send: SendReport,
    pub capture: CaptureReport,
    pub capture_file: String,
}

/// The whole analysis; its JSON is the probe's output contract (`median_ns`, `p99_ns`,
/// `max_ns`, `pairs`, `lost`, `verdict` are relied on by other tools).
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub files: Vec<String>,
    pub format: String,
    /// The coarsest time stamp unit of the inputs.
    pub tick_ns: Nanos,
    pub timestamps: TsSource,
    pub vlan_before: Option<u16>,
    pub vlan_after: Option<u16>,
    pub calibration: Calibration,
    pub frames: usize,
    pub requests: usize,
    pub pairs: usize,
    pub lost: usize,
    pub lost_examples: Vec<LostRequest>,
    pub duplicates: usize,
    pub orphans: usize,
    pub negative: usize,
    pub ignored: usize,
    /// Nearest-rank percentiles over all pairs (firewall latency, calibration removed).
    #[serde(flatten)]
    pub all: Summary,
    /// The same without the first packets of each session (and after pauses).
    pub steady: Summary,
    /// Median raw difference, before calibration.
    pub raw_median_ns: Option<Nanos>,
    pub sessions: usize,
    pub first_k: usize,
    pub first_packets_total: usize,
    /// Up to 100 first packets of sessions, in send order.
    pub first_packets: Vec<Listed>,
    pub idle_timer_ns: Nanos,
    pub pauses: Vec<Pause>,
    pub slow: Slow,
    /// 4 bins per octave over all pairs.
    pub histogram: Vec<Bin>,
    pub verdict: Kind,
    pub reason: String,
    /// Software or coarse stamps: the figures are indicative only.
    pub indicative: bool,
    pub notes: Vec<String>,
    /// Why no pair could be formed, when none could.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Sender and capture figures of a live run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveFigures>,
    /// Every pair's latency and class, fastest first (for the chart; not in the JSON).
    #[serde(skip)]
    pub samples: Samples,
}
