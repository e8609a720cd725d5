//! From pairs to the figures the report shows: latencies after calibration, the first packets
//! of each session apart from the steady state, slow packets and where they fall, pauses
//! longer than the idle timer and the packets after them, a histogram, and the verdict.

use serde::{Deserialize, Serialize};

use super::calibration::Calibration;
use super::pair::{FastMap, LostRequest, Pairing, Sides};
use super::stats::{Bin, Summary, log_histogram};
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
    /// The latencies of all pairs, sorted (for the chart; not in the JSON).
    #[serde(skip)]
    pub latencies: Vec<Nanos>,
}

const LISTED_MAX: usize = 100;

/// Analyses paired copies.
pub fn analyze(
    pairing: Pairing,
    files: Vec<String>,
    format: String,
    tick: Nanos,
    options: &Options,
) -> Analysis {
    let calibration = options.calibration;
    let flow_name = |id: u32| {
        pairing
            .flows
            .get(id as usize)
            .map_or_else(|| "non-IP".to_string(), ToString::to_string)
    };
    let mut state: FastMap<u32, (usize, Nanos)> = FastMap::default();
    let mut latencies = Vec::with_capacity(pairing.pairs.len());
    let mut steady = Vec::with_capacity(pairing.pairs.len());
    let mut first_packets = Vec::new();
    let mut first_total = 0;
    let mut pauses: Vec<Pause> = Vec::new();
    let mut open_pause: FastMap<u32, usize> = FastMap::default();
    let mut slow = Slow {
        threshold_ns: options.threshold,
        ..Slow::default()
    };
    for (index, pair) in pairing.pairs.iter().enumerate() {
        let latency = calibration.apply(pair.delta());
        let is_slow = latency > options.threshold;
        latencies.push(latency);
        let entry = state.entry(pair.flow).or_insert((0, pair.before));
        let gap = pair.before - entry.1;
        if entry.0 > 0 && gap > options.idle_timer {
            entry.0 = 0;
            if pauses.len() < 20 {
                pauses.push(Pause {
                    index,
                    flow: flow_name(pair.flow),
                    gap_ns: gap,
                    after_ns: Vec::new(),
                    slow_after: false,
                });
                open_pause.insert(pair.flow, pauses.len() - 1);
            }
        }
        let position = entry.0;
        entry.0 += 1;
        entry.1 = pair.before;
        let after_pause = open_pause.get(&pair.flow).copied();
        let class = match (position < options.first_k, after_pause) {
            (true, Some(p)) => {
                pauses[p].after_ns.push(latency);
                pauses[p].slow_after |= is_slow;
                Class::AfterPause
            }
            (true, None) => Class::First,
            (false, _) => {
                open_pause.remove(&pair.flow);
                Class::Steady
            }
        };
        let listed = || Listed {
            index,
            seq: pair.seq,
            flow: flow_name(pair.flow),
            latency_ns: latency,
            slow: is_slow,
        };
        match class {
            Class::First => {
                first_total += 1;
                slow.first += usize::from(is_slow);
                if first_packets.len() < LISTED_MAX {
                    first_packets.push(listed());
                }
            }
            Class::AfterPause => slow.after_pause += usize::from(is_slow),
            Class::Steady => {
                steady.push(latency);
                if is_slow {
                    slow.steady += 1;
                    if slow.steady_examples.len() < 20 {
                        slow.steady_examples.push(listed());
                    }
                }
            }
        }
    }
    slow.total = slow.first + slow.after_pause + slow.steady;
    slow.steady_fraction = if steady.is_empty() {
        0.0
    } else {
        slow.steady as f64 / steady.len() as f64
    };
    let mut raw: Vec<Nanos> = pairing.pairs.iter().map(|p| p.delta()).collect();
    raw.sort_unstable();
    latencies.sort_unstable();
    let all = Summary::of_sorted(&latencies);
    let steady = Summary::of(steady);
    let mut analysis = Analysis {
        files,
        format,
        tick_ns: tick,
        timestamps: options.timestamps,
        vlan_before: pairing.sides.before.map(|v| v.0),
        vlan_after: pairing.sides.after.map(|v| v.0),
        calibration,
        frames: pairing.frames,
        requests: pairing.requests(),
        pairs: pairing.pairs.len(),
        lost: pairing.lost,
        lost_examples: pairing.lost_examples.clone(),
        duplicates: pairing.duplicates,
        orphans: pairing.orphans,
        negative: pairing.negative,
        ignored: pairing.ignored,
        all,
        steady,
        raw_median_ns: super::stats::percentile(&raw, super::stats::MEDIAN),
        sessions: state.len(),
        first_k: options.first_k,
        first_packets_total: first_total,
        first_packets,
        idle_timer_ns: options.idle_timer,
        pauses,
        slow,
        histogram: log_histogram(&latencies, 4),
        verdict: Kind::Inconclusive,
        reason: String::new(),
        indicative: false,
        notes: Vec::new(),
        problem: pairing.problem.clone(),
        live: None,
        latencies,
    };
    let decided = verdict::decide(&analysis, &options.rules);
    analysis.verdict = decided.kind;
    analysis.reason = decided.reason;
    analysis.indicative = decided.indicative;
    analysis.notes = decided.notes;
    analysis
}
