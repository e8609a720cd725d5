//! From pairs to the figures the report shows: latencies after calibration, the first packets
//! of each session apart from the steady state, slow packets and where they fall, pauses
//! longer than the idle timer and the packets after them, a histogram, and the verdict.
//!
//! The classifying is done as pairs stream by ([`super::session`]); this module names the
//! figures and puts them together ([`build`]). [`analyze`] does the same for pairs already in
//! memory (tests, and any caller that has a [`Pairing`]).

use serde::{Deserialize, Serialize};

use super::calibration::Calibration;
use super::pair::{LostRequest, Pairing, Sides};
use super::samples::Samples;
use super::session::{Classified, Classifier};
use super::stats::{Bin, MEDIAN, Summary, log_histogram_ascending};
use super::units::Nanos;
use super::verdict::{self, Kind, Rules};

/// Where the time stamps came from. Only stamps of one kind on one port may be subtracted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TsSource {
    /// NIC hardware clock (production: ExaNIC port1).
    Hardware,
    /// Kernel software stamps: fine on veth, microseconds off on a real NIC.
    Software,
    /// A file from another tool: the file does not say.
    #[default]
    Unknown,
    /// Some pairs hardware, some software: not comparable.
    Mixed,
}

/// How to analyse.
#[derive(Clone, Debug)]
pub struct Options {
    pub sides: Sides,
    pub calibration: Calibration,
    /// Above this a packet is "slow" (default 6 us, the valley between the lab's two modes).
    pub threshold: Nanos,
    /// The firewall's UDP idle timer (`udp-idle-timer`, 180 s by default).
    pub idle_timer: Nanos,
    /// How many packets open a session on the CPU (2 on the lab's FortiGate).
    pub first_k: usize,
    pub timestamps: TsSource,
    pub rules: Rules,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sides: Sides::default(),
            calibration: Calibration::default(),
            threshold: Nanos(6_000),
            idle_timer: Nanos(180_000_000_000),
            first_k: 2,
            timestamps: TsSource::Unknown,
            rules: Rules::default(),
        }
    }
}

/// Which part of a session a packet belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// One of the first K packets of its 5-tuple: session setup, expected on the CPU.
    First,
    /// One of the first K packets after a pause longer than the idle timer.
    AfterPause,
    Steady,
}

impl Class {
    /// The class as stored beside each latency ([`super::samples`]).
    pub fn bits(self) -> u64 {
        match self {
            Class::Steady => 0,
            Class::First => 1,
            Class::AfterPause => 2,
        }
    }

    pub fn from_bits(bits: u64) -> Class {
        match bits {
            1 => Class::First,
            2 => Class::AfterPause,
            _ => Class::Steady,
        }
    }
}

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
    pub live: Option<super::live::LiveFigures>,
    /// Every pair's latency and class, fastest first (for the chart; not in the JSON).
    #[serde(skip)]
    pub samples: Samples,
}

/// Analyses pairs already in memory (sorted by their "before" copy, as pairing leaves them).
pub fn analyze(
    pairing: Pairing,
    files: Vec<String>,
    format: String,
    tick: Nanos,
    options: &Options,
) -> Analysis {
    let mut classifier = Classifier::new(options);
    for pair in &pairing.pairs {
        classifier.pair(*pair);
    }
    let classified = classifier.finish(&pairing.flows);
    build(classified, pairing, files, format, tick, options)
}

/// Puts the figures together and decides the verdict. `pairing` gives the sides and what did
/// not pair (its `pairs` are not read: `classified` has them).
pub fn build(
    classified: Classified,
    pairing: Pairing,
    files: Vec<String>,
    format: String,
    tick: Nanos,
    options: &Options,
) -> Analysis {
    let samples = classified.samples;
    let mut notes = Vec::new();
    if classified.out_of_order > 0 {
        notes.push(format!(
            "{} pairs came more than {} requests out of time order: the capture is not in time order, so which packets count as first in their session may be off",
            classified.out_of_order,
            super::session::WINDOW
        ));
    }
    if samples.clamped() > 0 {
        notes.push(format!(
            "{} pairs have copies more than 833 days apart (a damaged capture); their difference was cut to that",
            samples.clamped()
        ));
    }
    let mut analysis = Analysis {
        files,
        format,
        tick_ns: tick,
        timestamps: options.timestamps,
        vlan_before: pairing.sides.before.map(|v| v.0),
        vlan_after: pairing.sides.after.map(|v| v.0),
        calibration: options.calibration,
        frames: pairing.frames,
        requests: classified.pairs + pairing.lost,
        pairs: classified.pairs,
        lost: pairing.lost,
        lost_examples: pairing.lost_examples,
        duplicates: pairing.duplicates,
        orphans: pairing.orphans,
        negative: pairing.negative,
        ignored: pairing.ignored,
        all: samples.summary(),
        steady: samples.summary_of(Class::Steady),
        raw_median_ns: samples.raw_percentile(MEDIAN),
        sessions: classified.sessions,
        first_k: options.first_k,
        first_packets_total: classified.first_packets_total,
        first_packets: classified.first_packets,
        idle_timer_ns: options.idle_timer,
        pauses: classified.pauses,
        slow: classified.slow,
        histogram: log_histogram_ascending(samples.latencies(), 4),
        verdict: Kind::Inconclusive,
        reason: String::new(),
        indicative: false,
        notes: Vec::new(),
        problem: pairing.problem,
        live: None,
        samples,
    };
    let decided = verdict::decide(&analysis, &options.rules);
    analysis.verdict = decided.kind;
    analysis.reason = decided.reason;
    analysis.indicative = decided.indicative;
    analysis.notes = decided.notes;
    analysis.notes.extend(notes);
    analysis
}
